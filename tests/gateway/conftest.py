"""Fixtures of the gateway tests that need a store: every such test runs against
SQLite (a temporary file) and PostgreSQL, as the store's own tests do.

PostgreSQL: ``ARENA_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); each test gets its own
schema (through ``search_path`` in the URL) and drops it afterwards. If PostgreSQL
does not answer, the PostgreSQL variants FAIL, unless ``ARENA_TEST_NO_POSTGRES=1``,
which skips them (the convention of ``tests/store/conftest.py``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from arena.gateway import Gateway, GatewayConfig

PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NO_PG = os.environ.get("ARENA_TEST_NO_POSTGRES") == "1"
OPERATOR_TOKEN = "op-secret"
AUTH = (("authorization", f"Bearer {OPERATOR_TOKEN}"),)


@pytest.fixture(scope="session")
def _pg_reachable() -> bool:
    if NO_PG:
        return False
    engine = create_engine(PG_URL, connect_args={"connect_timeout": 5})
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
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store: a SQLite file or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'arena.db'}"
        return
    if not request.getfixturevalue("_pg_reachable"):
        pytest.skip("ARENA_TEST_NO_POSTGRES=1")
    schema = f"arena_gw_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_URL, connect_args={"connect_timeout": 5})
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
def store_gateway(store_url: str) -> Iterator[Gateway]:
    """A real gateway on loopback over the store at ``store_url`` (bots in its
    ``bots`` table, tournaments played embedded with 2 spawned processes)."""
    gw = Gateway("127.0.0.1:0", store=store_url, operator_token=OPERATOR_TOKEN,
                 config=GatewayConfig(ping_interval=0.5, hello_timeout=2.0, tournament_jobs=2))
    gw.start()
    try:
        yield gw
    finally:
        gw.stop(grace=2.0)
