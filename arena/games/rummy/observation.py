"""The robber rummy observation and its public log of turns.

A module of its own, never compiled: the state module may be compiled with mypyc
(``setup.py``), and a frozen dataclass with slots over the interpreted
:class:`~arena.core.state.Observation` mixin must stay an ordinary Python class.
The package (:mod:`arena.games.rummy`) exports both.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.state import Observation

__all__ = ["RummyEvent", "RummyObservation"]


@dataclass(frozen=True, slots=True)
class RummyEvent:
    """One turn of the current deal, as every seat sees it."""

    seat: int
    """Who took the turn."""
    drew: bool
    """Whether a card was drawn (never which)."""
    passed: bool
    """True for a pass (or a refused play, which the referee turns into a pass)."""
    played: tuple[str, ...]
    """Cards that went from the hand to the table (net), canonical order."""
    taken: tuple[str, ...]
    """Table cards taken into the hand (net), canonical order."""


@dataclass(frozen=True, slots=True)
class RummyObservation(Observation):
    """What one seat sees (see the package docstring for the layout)."""

    seat: int
    num_players: int
    deal: int
    """0-based number of the current deal in the match."""
    dealer: int
    current_player: int
    """The seat to act, or -4 when the match is over."""
    hand: tuple[str, ...]
    """Own hand (after the draw when it is this seat's turn), canonical order."""
    drawn: str | None
    """The card this seat just drew, when it is its turn and a card was drawn."""
    table: tuple[tuple[str, ...], ...]
    """The table, melds canonical and in canonical order."""
    stock_size: int
    hand_sizes: tuple[int, ...]
    melded: tuple[bool, ...]
    initial_meld_pending: bool
    """Whether this seat has not melded yet in this deal."""
    blocked_turns: int
    """Consecutive turns with an empty stock and no play."""
    turn: int
    """Turns taken so far in this deal."""
    scores: tuple[int, ...]
    """Cumulative match scores (completed deals)."""
    deals_won: tuple[int, ...]
    strict_table: bool
    """Whether table cards must stay on the table (option)."""
    log: tuple[RummyEvent, ...]
    """Every turn of the current deal so far."""
