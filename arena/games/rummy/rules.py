"""Robber rummy's match options and limits: players, deals or the loss limit, the
strict table, and the caps that bound a match (the rules summary and decisions are
in the package docstring, :mod:`arena.games.rummy`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["DEFAULT_OPTIONS", "HAND_SIZE", "MAX_DEALS_LOSS_LIMIT", "PRESETS", "TURN_CAP", "max_deals"]

TURN_CAP = 1000
"""Safety cap on turns in one deal."""
MAX_DEALS_LOSS_LIMIT = 50
"""Hard cap on deals in loss-limit mode."""
HAND_SIZE = 10
"""Cards dealt to each player."""

DEFAULT_OPTIONS: dict[str, Any] = {
    "players": 4,
    "deals": None,
    "loss_limit": None,
    "strict_table": False,
}
PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "2p": {"players": 2},
    "4p": {"players": 4},
    "6p": {"players": 6},
}


def max_deals(options: Mapping[str, Any]) -> int:
    """The most deals a match of these options can take (``deals``, one per player by
    default, or :data:`MAX_DEALS_LOSS_LIMIT` with a ``loss_limit``), after checking them.

    :raises ValueError: for an option out of its range, or ``deals`` with ``loss_limit``.
    """
    n = options["players"]
    if type(n) is not int or not 2 <= n <= 6:
        raise ValueError(f"rummy: players must be an integer 2..6, got {n!r}")
    deals = options["deals"]
    if deals is not None and (type(deals) is not int or deals < 1):
        raise ValueError(f"rummy: deals must be a positive integer or None, got {deals!r}")
    limit = options["loss_limit"]
    if limit is not None and (type(limit) is not int or limit < 1):
        raise ValueError(f"rummy: loss_limit must be a positive integer or None, got {limit!r}")
    if deals is not None and limit is not None:
        raise ValueError("rummy: give deals (fixed mode) or loss_limit, not both")
    if not isinstance(options["strict_table"], bool):
        raise ValueError("rummy: strict_table must be a bool")
    return MAX_DEALS_LOSS_LIMIT if limit is not None else (deals or n)
