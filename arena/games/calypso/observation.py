"""What one calypso seat may see: :class:`CalypsoObservation` and its finished tricks,
:class:`CalypsoTrick` (value types only; the state builds them, ``CalypsoState.observation``).
The layout is in the package docstring (:mod:`arena.games.calypso`)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.state import Observation

__all__ = ["CalypsoObservation", "CalypsoTrick"]


@dataclass(frozen=True, slots=True)
class CalypsoTrick(Observation):
    """A finished trick of the current game (public)."""

    leader: int
    """Seat that led (0 N, 1 E, 2 S, 3 W)."""
    cards: tuple[str, ...]
    """The four cards in playing order, starting with the leader's."""
    winner: int
    """Seat that won the trick."""


@dataclass(frozen=True, slots=True)
class CalypsoObservation(Observation):
    """What one seat may see (rules section 9). Seats: 0 N, 1 E, 2 S, 3 W; sides: 0 NS, 1 EW."""

    seat: int
    """The observing seat."""
    to_play: int
    """Seat to act, or -4 when the match is over."""
    hand: tuple[str, ...]
    """The observing seat's own cards, canonical order, copies repeated."""
    hand_sizes: tuple[int, int, int, int]
    """Number of cards in each seat's hand."""
    game_number: int
    """Game of the match, from 0."""
    deal_number: int
    """Deal of the current game, 0..3."""
    dealer: int
    """Dealer of the current deal."""
    leader: int
    """Leader of the current trick (when the match is over: the last trick's winner)."""
    trick_number: int
    """Tricks finished in the current deal, 0..13."""
    current_trick: tuple[str, ...]
    """Cards of the trick in progress, in playing order from ``leader``."""
    tricks: tuple[CalypsoTrick, ...]
    """Every finished trick of the current game, oldest first."""
    calypsos: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    """Per seat, the cards of the calypso in progress (own trump suit, ranks 2..A)."""
    completed: tuple[int, int, int, int]
    """Per seat, the number of completed calypsos in the current game."""
    pile_sizes: tuple[int, int]
    """Per side (NS, EW), the number of cards in its pile."""
    tricks_won: tuple[int, int]
    """Per side, tricks won in the current game."""
    undealt: int
    """Cards of the current game's pack not yet dealt."""
    game_points: tuple[int, int]
    """Per side, the current game's score if it ended now (final after deal 4)."""
    scores: tuple[int, int]
    """Per side, cumulative totals of the match's finished games."""
