"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena import games
from arena.gateway import Gateway, GatewayConfig


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
