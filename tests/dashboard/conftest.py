"""Fixtures of the dashboard tests: one store (built once per session) holding every
example tournament played to the end plus a bridge tournament in progress."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the dashboard needs fastapi (not installed)")

from .store_fixture import build_store  # noqa: E402


@pytest.fixture(scope="session")
def dashboard_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Facts about the store (see :func:`store_fixture.build_store`); ``url`` is its URL."""
    path = tmp_path_factory.mktemp("dashboard") / "arena.db"
    return build_store(path)


@pytest.fixture(scope="session")
def client(dashboard_store: dict[str, Any]) -> Iterator[Any]:
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app

    with TestClient(create_app(dashboard_store["url"])) as c:
        yield c
