"""Fixtures: every store test runs against SQLite (a temporary file) and PostgreSQL.

PostgreSQL: ``ARENA_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``). Each test gets its own
schema (``arena_test_<random>``, selected through ``search_path`` in the URL)
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
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from arena.store import Store

from .helpers import SpawnPool

PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NO_PG = os.environ.get("ARENA_TEST_NO_POSTGRES") == "1"


def _pg_admin_engine():  # type: ignore[no-untyped-def]
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
def store(db_url: str) -> Iterator[Store]:
    """A migrated store on ``db_url``."""
    s = Store(db_url, claim_timeout=60.0)
    s.migrate()
    try:
        yield s
    finally:
        s.dispose()


@pytest.fixture(scope="session")
def spawn_pool() -> Iterator[SpawnPool]:
    p = SpawnPool(4)
    try:
        yield p
    finally:
        p.close()
