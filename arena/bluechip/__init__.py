"""Blue Chip Table Manager protocol v18 (placeholder docstring, completed below)."""

from __future__ import annotations

from arena.bluechip.client import BlueChipClient
from arena.bluechip.host import BlueChipHost, HostConfig
from arena.bluechip.observe import observed, run_match
from arena.bluechip.seat import BlueChipAgent

__all__ = ["BlueChipHost", "HostConfig", "BlueChipAgent", "BlueChipClient", "observed", "run_match"]
