"""Fixtures of the gateway tests that need a store: every such test runs against
SQLite and PostgreSQL, as the store's own tests do (``db_url`` in ``tests/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.gateway import Gateway, GatewayConfig

OPERATOR_TOKEN = "op-secret"
AUTH = (("authorization", f"Bearer {OPERATOR_TOKEN}"),)


@pytest.fixture
def store_url(db_url: str) -> str:
    """An empty store: a SQLite file or a fresh PostgreSQL schema (``db_url``)."""
    return db_url


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
