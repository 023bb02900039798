"""Fixtures of the gateway tests: a real gateway on 127.0.0.1 with an ephemeral port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.gateway import Gateway, GatewayConfig


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway("127.0.0.1:0", operator_token="op-secret",
                 config=GatewayConfig(ping_interval=0.5, hello_timeout=2.0))
    gw.start()
    try:
        yield gw
    finally:
        gw.stop(grace=0.5)
