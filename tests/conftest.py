"""Shared fixtures.

``db_url``: every test that takes it runs against SQLite (a temporary file) and
PostgreSQL (``ARENA_TEST_POSTGRES_URL``, default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``). Each PostgreSQL test gets its
own schema (``arena_test_<random>``, selected through ``search_path`` in the URL)
and drops it afterwards, so parallel runs never collide. If PostgreSQL does not
answer, the PostgreSQL variants FAIL, unless ``ARENA_TEST_NO_POSTGRES=1``, which
skips them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from arena import games
from arena.gateway import Gateway, GatewayConfig

PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NO_PG = os.environ.get("ARENA_TEST_NO_POSTGRES") == "1"


def _pg_admin_engine() -> Engine:
    return create_engine(PG_URL, connect_args={"connect_timeout": 5})


SLOW_FIRST = ("tests/tournaments_exec/", "tests/drills/", "tests/games/test_compiled_engines.py",
              "tests/bluechip/test_tournament.py", "tests/test_cli_errors.py", "tests/clients/",
              "tests/gateway/test_admin_leagues.py", "tests/dashboard/")
"""Where the longest tests are (real processes, 20-80 s each): under xdist they are handed
out first, so that no worker starts one of them when the others are nearly done."""


ONE_AT_A_TIME = ("tests/tournaments_exec/",)
"""Folders whose tests share one xdist group (one worker, one test at a time, as in a
plain run): their real-process tests have timing bounds (both workers play, a stop
within 20 s, the in-flight matches of an outage) that failed with three of them at
once on the two cores."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``-n N --dist loadgroup``, as ``.ci/run`` runs the suite), the
    tests that share an expensive fixture run on one worker, so it is made once: a
    module-scoped fixture groups its module's tests, a session- or package-scoped one
    from a conftest below this one groups the tests of that folder (the dashboard's
    store, say). An explicit ``xdist_group`` marker wins. The fixtures of this file
    are cheap and stay per worker. On xdist's workers the :data:`SLOW_FIRST` tests
    also come first (the same order on every worker, as xdist requires). Without
    xdist (not installed, ``-p no:xdist``, no ``-n``) nothing changes: no marker (it
    would not even be registered) and the collection's order."""
    if not hasattr(config, "workerinput"):
        return

    def rank(item: pytest.Item) -> int:
        return next((i for i, p in enumerate(SLOW_FIRST) if item.nodeid.startswith(p)), len(SLOW_FIRST))
    items.sort(key=rank)
    here = Path(__file__).resolve()
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("xdist_group") is not None:
            continue
        folder = module = None
        for name in info.names_closure:
            defs = info.name2fixturedefs.get(name)
            if not defs:
                continue
            fdef = defs[-1]
            code = getattr(fdef.func, "__code__", None)
            if code is None or Path(code.co_filename).resolve() == here:
                continue
            if fdef.scope in ("session", "package"):
                folder = folder or fdef.baseid
            elif fdef.scope == "module":
                module = module or item.nodeid.split("::", 1)[0]
        group = next((p.rstrip("/") for p in ONE_AT_A_TIME if item.nodeid.startswith(p)), None) or folder or module
        if group:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_xdist_group_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-xdist 3.8 tells its controller a test's group by appending ``@group`` to
    the node id on the worker, through ``item._nodeid``, which pytest 9.2 no longer
    reads (pytest-xdist issue 1386: loadgroup then groups nothing, silently). Here the
    same suffix goes where pytest 9.2 keeps the id. Only on xdist's workers under
    ``--dist loadgroup``; if the id cannot be set, tests run ungrouped as before."""
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        return
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:  # an older pytest: xdist's own suffix works there
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            item._id = coerce_node_id(item.nodeid + suffix)  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def _pg_available() -> bool:
    if NO_PG:
        return False
    engine = _pg_admin_engine()
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"PostgreSQL is not reachable at {make_url(PG_URL).render_as_string()}: "
                    f"{type(exc).__name__}: {exc}\nStart it, set ARENA_TEST_POSTGRES_URL, or set "
                    "ARENA_TEST_NO_POSTGRES=1 to skip the PostgreSQL variants.", pytrace=False)
    finally:
        engine.dispose()
    return True


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    if not request.getfixturevalue("_pg_available"):
        pytest.skip("ARENA_TEST_NO_POSTGRES=1")
    schema = f"arena_test_{uuid.uuid4().hex[:12]}"
    admin = _pg_admin_engine()
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def toy_registered() -> Iterator[str]:
    """Registers the toy game ``highcard`` for the duration of a test."""
    games.GAME_MODULES["highcard"] = "arena.testing.toy"
    try:
        yield "highcard"
    finally:
        del games.GAME_MODULES["highcard"]


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    """A real gateway on 127.0.0.1 with an ephemeral port (operator token ``op-secret``)."""
    gw = Gateway("127.0.0.1:0", operator_token="op-secret",
                 config=GatewayConfig(ping_interval=0.5, hello_timeout=2.0))
    gw.start()
    try:
        yield gw
    finally:
        gw.stop(grace=0.5)
