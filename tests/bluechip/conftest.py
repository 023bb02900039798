"""Fixtures: a Blue Chip host on a free loopback port, pauses off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from arena.bluechip import BlueChipHost, HostConfig


@pytest.fixture
def host() -> Iterator[BlueChipHost]:
    server = BlueChipHost("127.0.0.1:0", HostConfig(transcripts=True, connect_timeout=3.0).without_pauses())
    server.start()
    try:
        yield server
    finally:
        server.stop(timeout=3)
