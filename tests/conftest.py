"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena import games


@pytest.fixture
def toy_registered() -> Iterator[str]:
    """Registers the toy game ``highcard`` for the duration of a test."""
    games.GAME_MODULES["highcard"] = "arena.testing.toy"
    try:
        yield "highcard"
    finally:
        del games.GAME_MODULES["highcard"]
