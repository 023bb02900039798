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
