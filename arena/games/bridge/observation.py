"""What one seat may see: :class:`BridgeObservation` (rules/bridge.md section 6).

Built on demand by :meth:`BridgeState.observation`; it is not on the engine's hot path.
Cards are tokens (``AS``), calls are tokens (``P``, ``X``, ``XX``, ``1C`` .. ``7N``),
seats are 0..3 (N, E, S, W), sides are (N-S, E-W).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from arena.core.cards import STANDARD_TOKENS
from arena.core.state import Observation

from arena.games.bridge.calls import call_to_string
from arena.games.bridge.cardmasks import mask_to_ids

if TYPE_CHECKING:
    from arena.games.bridge.state import BridgeState

__all__ = ["BridgeObservation", "build_observation"]

_PHASES = ("auction", "play", "over")


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


def build_observation(state: BridgeState, seat: int) -> BridgeObservation:
    """The observation of ``seat`` (0..3) in ``state``."""
    s = state
    phase = s._phase
    exposed = s.dummy_exposed()
    plays = s._plays_now()
    leaders = s._leaders
    tricks = []
    n_full = len(plays) // 4
    for t in range(n_full):
        leader = leaders[t]
        cards = tuple(STANDARD_TOKENS[c] for c in plays[4 * t: 4 * t + 4])
        winner = leaders[t + 1] if t + 1 < len(leaders) else _winner(s, plays[4 * t: 4 * t + 4], leader)
        tricks.append((leader, cards, winner))
    in_play = phase == 1
    cur = plays[4 * n_full:]
    rs = s._rs
    if phase == 2:
        ns = s._ns_result
        score = (s._totals[0], s._totals[1]) if s._rubber else ((ns, 0) if ns > 0 else (0, -ns))
    else:
        t0, t1 = rs.totals()
        score = (s._totals[0] + t0, s._totals[1] + t1)
    return BridgeObservation(
        seat=seat,
        phase=_PHASES[phase],
        scoring="rubber" if s._rubber else "duplicate",
        board=s._board,
        deal=len(s._records) + (0 if phase == 2 else 1),
        dealer=s._dealer_seat,
        vulnerable=s._vul,
        hand=tuple(STANDARD_TOKENS[c] for c in mask_to_ids(s.hand_mask(seat))),
        auction=tuple(call_to_string(c) for c in s._calls),
        contract=s.contract,
        declarer=s._declarer,
        dummy=s._dummy,
        dummy_hand=tuple(STANDARD_TOKENS[c] for c in mask_to_ids(s.hand_mask(s._dummy))) if exposed else (),
        to_act=s.current_player(),
        playing_hand=s._hand if in_play else -1,
        trick_leader=leaders[-1] if in_play else -1,
        current_trick=tuple(STANDARD_TOKENS[c] for c in cur) if in_play else (),
        tricks=tuple(tricks),
        tricks_won=s._tricks_won(),
        games=(rs.games[0], rs.games[1]),
        part_scores=(rs.parts[0], rs.parts[1]),
        score=score,
    )


def _winner(s: BridgeState, cards: list[int], leader: int) -> int:
    best, bi = cards[0], 0
    for i in (1, 2, 3):
        c = cards[i]
        if c // 13 == best // 13:
            if c > best:
                best, bi = c, i
        elif c // 13 == s._trump:
            best, bi = c, i
    return (leader + bi) & 3
