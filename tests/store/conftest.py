"""Fixtures: every store test runs against SQLite and PostgreSQL (``db_url``, in
``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.store import Store

from .helpers import SpawnPool


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A migrated store on ``db_url``."""
    s = Store(db_url)
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
