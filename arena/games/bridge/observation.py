"""What one seat may see: :class:`BridgeObservation` (rules/bridge.md section 6).

Built on demand by :meth:`BridgeState.observation` (in :mod:`.state`); this module
holds the value type only and imports nothing of the engine.
Cards are tokens (``AS``), calls are tokens (``P``, ``X``, ``XX``, ``1C`` .. ``7N``),
seats are 0..3 (N, E, S, W), sides are (N-S, E-W).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.state import Observation

__all__ = ["PHASES", "BridgeObservation"]

PHASES = ("auction", "play", "over")
"""``BridgeObservation.phase`` by the state's phase number."""


@dataclass(frozen=True, slots=True)
class BridgeObservation(Observation):
    """One seat's view of a bridge match. Never holds another seat's hidden card."""

    seat: int
    """The observing seat, 0..3 (N, E, S, W)."""
    phase: str
    """``auction``, ``play`` or ``over``."""
    scoring: str
    """``duplicate`` or ``rubber``."""
    board: int
    """Duplicate board number (0 in rubber)."""
    deal: int
    """1-based number of the current deal in the match (always 1 in duplicate)."""
    dealer: int
    """Dealer seat of the current deal."""
    vulnerable: tuple[bool, bool]
    """(N-S, E-W) vulnerability of the current deal."""
    hand: tuple[str, ...]
    """This seat's remaining cards, canonical order (2C .. AS)."""
    auction: tuple[str, ...]
    """Calls of the current deal in order; the first is the dealer's."""
    contract: str
    """``''`` during the auction, ``Pass`` if passed out, else e.g. ``4SX`` or ``3NT``."""
    declarer: int
    """Declarer seat, -1 until the auction ends with a contract."""
    dummy: int
    """Dummy seat, -1 until the auction ends with a contract."""
    dummy_hand: tuple[str, ...]
    """Dummy's remaining cards once the opening lead is faced (every seat), else ``()``."""
    to_act: int
    """Seat asked to act now (the declarer when dummy is to play); -4 when the match is over."""
    playing_hand: int
    """Seat whose card is played next (dummy's seat when declarer plays from dummy); -1 outside the play."""
    trick_leader: int
    """Seat that led the trick in progress (-1 outside the play)."""
    current_trick: tuple[str, ...]
    """Cards of the trick in progress, in play order from ``trick_leader``."""
    tricks: tuple[tuple[int, tuple[str, ...], int], ...]
    """Completed tricks of the current deal: (leader, four cards in play order, winner)."""
    tricks_won: tuple[int, int]
    """Tricks won in the current deal by (N-S, E-W)."""
    games: tuple[int, int]
    """Rubber: games won by (N-S, E-W) in the current rubber; (0, 0) in duplicate."""
    part_scores: tuple[int, int]
    """Rubber: below-the-line points of (N-S, E-W) in the current game; (0, 0) in duplicate."""
    score: tuple[int, int]
    """Points so far of (N-S, E-W): rubber totals of finished deals (all rubbers);
    duplicate: (0, 0) until the board is over, then the positive board score on the
    scoring side's entry."""
