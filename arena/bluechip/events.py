"""What a seat's observation says about the board's sequence of actions.

The host's conversation with a robot walks the board position by position
(position ``p`` = the ``p``-th action of the board: calls first, then cards). Every
function here reads one :class:`~arena.games.bridge.BridgeObservation` only, the
observation of the robot's own seat, so whatever the host sends is derived from
what that seat may see.

>>> from arena.games import get_game
>>> state = get_game("bridge").new_initial_state(seed=1)
>>> obs = state.observation(2)
>>> position(obs), step_at(obs, 0)
(0, Step(kind='call', player=0, controller=0, trick=0, index=0))
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

__all__ = ["Step", "position", "step_at", "action_at", "dealt_hand", "dummy_dealt_hand", "over_at"]


@dataclass(frozen=True)
class Step:
    """Who acts at one position: ``kind`` ``call`` or ``card``; ``controller`` sends it
    (declarer for dummy's cards); ``trick`` 1..13 and ``index`` 0..3 for cards."""

    kind: str
    player: int
    controller: int
    trick: int
    index: int


def position(obs: Any) -> int:
    """Number of actions of the board so far."""
    return len(obs.auction) + 4 * len(obs.tricks) + len(obs.current_trick)


def over_at(obs: Any, p: int) -> bool:
    """Whether the board ended after ``p`` actions (``obs`` at position >= ``p``)."""
    return obs.phase == "over" and position(obs) == p


def step_at(obs: Any, p: int) -> Step | None:
    """Who acts at position ``p`` (``obs`` must be at position >= ``p``); ``None`` if over."""
    calls = len(obs.auction)
    if p < calls or (p == calls and obs.phase == "auction"):
        seat = (obs.dealer + p) % 4
        return Step("call", seat, seat, 0, p)
    if over_at(obs, p) or obs.declarer < 0:
        return None
    k = p - calls
    t, i = divmod(k, 4)
    if t < len(obs.tricks):
        leader = obs.tricks[t][0]
    elif t == len(obs.tricks) and obs.phase == "play":
        leader = obs.trick_leader
    else:
        raise ValueError(f"position {p} is beyond the observation (at {position(obs)})")
    player = (leader + i) % 4
    controller = obs.declarer if player == obs.dummy else player
    return Step("card", player, controller, t + 1, i)


def action_at(obs: Any, p: int) -> str:
    """The token of the action at position ``p`` (``obs`` must be past it)."""
    calls = len(obs.auction)
    if p < calls:
        return str(obs.auction[p])
    t, i = divmod(p - calls, 4)
    if t < len(obs.tricks):
        return str(obs.tricks[t][1][i])
    return str(obs.current_trick[i])


def _played_by(obs: Any, seat: int) -> list[str]:
    out = []
    for leader, cards, _ in obs.tricks:
        out.append(cards[(seat - leader) % 4])
    if obs.current_trick:
        i = (seat - obs.trick_leader) % 4
        if i < len(obs.current_trick):
            out.append(obs.current_trick[i])
    return out


def dealt_hand(obs: Any) -> list[str]:
    """The observing seat's 13 dealt cards (its hand plus the cards it has played)."""
    return list(obs.hand) + _played_by(obs, obs.seat)


def dummy_dealt_hand(obs: Any) -> list[str]:
    """Dummy's 13 cards as faced after the opening lead (``[]`` before it)."""
    if not obs.dummy_hand and not obs.tricks:
        return []
    return list(obs.dummy_hand) + _played_by(obs, obs.dummy)


def forced_at(obs: Any, p: int, step: Step) -> bool:
    """Whether the card at position ``p`` was the only legal one for the hand that played it.

    Read from a later observation of the controller: the hand (its own or dummy's)
    is what it holds now plus what it played from position ``p`` on.
    """
    if step.kind != "card":
        return _only_pass(obs.auction[:p], step.player, obs.dealer)
    calls = len(obs.auction)
    seen = obs.hand if step.player == obs.seat else obs.dummy_hand
    hand = list(seen)
    cards: list[tuple[int, str]] = []  # (position, card) of the player's plays
    for t, (leader, trick, _) in enumerate(obs.tricks):
        cards.append((calls + 4 * t + (step.player - leader) % 4, trick[(step.player - leader) % 4]))
    if obs.current_trick:
        i = (step.player - obs.trick_leader) % 4
        if i < len(obs.current_trick):
            cards.append((calls + 4 * len(obs.tricks) + i, obs.current_trick[i]))
    hand += [c for q, c in cards if q >= p]
    if step.index == 0:
        return len(hand) == 1
    t = step.trick - 1
    trick = obs.tricks[t][1] if t < len(obs.tricks) else obs.current_trick
    suit = trick[0][1]
    follow = [c for c in hand if c[1] == suit]
    return len(follow or hand) == 1


def _only_pass(calls: Sequence[str], seat: int, dealer: int) -> bool:
    """Whether Pass is the only legal call for ``seat`` after ``calls`` (only after 7NT)."""
    last, bidder, doubled = "", -1, 0
    for k, call in enumerate(calls):
        if call == "X":
            doubled = 1
        elif call == "XX":
            doubled = 2
        elif call != "P":
            last, bidder, doubled = call, (dealer + k) % 4, 0
    if last != "7N":
        return False
    opponents = (bidder - seat) % 2 == 1
    return not ((doubled == 0 and opponents) or (doubled == 1 and not opponents))
