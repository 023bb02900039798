"""Calypso's constraint on a search bot's samples (:mod:`arena.match.infoset`): who
holds each hidden card position, and which suits each seat is known to be void in.

The positions of the current deal belong to known seats (rules: deal ``d`` of a game
is pack positions ``52d .. 52d+51``, one card at a time from ``dealer + 1``); a seat
that did not follow suit in this deal holds none of the suit led. The game's
descriptor names :func:`void_groups` (``sampling``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.core.descriptor import DealGroups

__all__ = ["void_groups"]


def void_groups(obs: Any, hidden: Sequence[tuple[int, list[int]]]) -> DealGroups | None:
    """(index into ``hidden`` of the current game's deck, positions by owner (-1 undealt),
    voids by owner), from the seat's observation; ``None`` at the match's end."""
    if obs.to_play < 0 or not hidden:
        return None
    index = len(hidden) - 1  # the current game's deck is the last shuffle
    base = 52 * obs.deal_number
    groups: dict[int, list[int]] = {}
    for p in hidden[index][1]:
        owner = (obs.dealer + 1 + (p - base)) & 3 if base <= p < base + 52 else -1
        groups.setdefault(owner, []).append(p)
    voids: dict[int, set[str]] = {s: set() for s in range(4)}
    deal_tricks = list(obs.tricks)[len(obs.tricks) - obs.trick_number:] if obs.trick_number else []
    plays = [(t.leader, t.cards) for t in deal_tricks] + [(obs.leader, obs.current_trick)]
    for leader, cards in plays:
        if not cards:
            continue
        led = cards[0][-1]
        for j, c in enumerate(cards[1:], 1):
            if c[-1] != led:
                voids[(leader + j) & 3].add(led)
    return index, groups, voids
