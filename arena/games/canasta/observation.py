"""The canasta observation: what one seat may see (rules section 15).

A module of its own, never compiled: the state module may be compiled with mypyc
(``setup.py``), and a frozen dataclass with slots over the interpreted
:class:`~arena.core.state.Observation` mixin must stay an ordinary Python class.
:mod:`arena.games.canasta.state` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.state import Observation

__all__ = ["CanastaObservation"]


@dataclass(frozen=True, slots=True)
class CanastaObservation(Observation):
    """What one seat may see (rules section 15). Per-side tuples are indexed by side."""

    seat: int
    """The observing seat."""
    side: int
    """The observing seat's side."""
    seat_sides: tuple[int, ...]
    """Side of every seat."""
    hand_number: int
    """Hands completed before the current one (0-based index of the current hand)."""
    dealer: int
    current_player: int
    """Seat to act, or -4 when the match is over."""
    phase: str
    """``draw``, ``play`` or ``over``."""
    hand: tuple[str, ...]
    """Own hand in canonical order."""
    hand_sizes: tuple[int, ...]
    """Cards held by every seat."""
    melds: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...]
    """Per side: ``(key, cards)`` in key order."""
    red_threes: tuple[tuple[str, ...], ...]
    """Per side: placed red threes."""
    pile: tuple[str, ...]
    """Discard pile, bottom first (top card last)."""
    pile_top: str
    """Top card of the pile, ``""`` if empty."""
    pile_size: int
    pile_frozen: bool
    """The pile itself is frozen (a wild card, or a red-three upcard when that freezes)."""
    black3_block_seat: int
    """With ``black3_block=full_round``: the seat whose black three blocks the pile, else -1."""
    stock_size: int
    last_take: bool
    """Hungarian exhaustion: this turn is the one last optional pickup."""
    scores: tuple[int, ...]
    """Cumulative score per side (before the current hand)."""
    requirements: tuple[int, ...]
    """Opening minimum per side for this hand; -1 means a canasta is required."""
    opened: tuple[bool, ...]
    """Per side: has opened this hand."""
    melded: tuple[bool, ...]
    """Per seat: has made a MELD action or a pickup this hand."""
    hand_scores: tuple[tuple[int, ...], ...]
    """Per finished hand, the hand score of every side."""
    last_hand_hands: tuple[tuple[str, ...], ...]
    """Per seat, the cards left in hand at the end of the previous hand (revealed for scoring)."""
