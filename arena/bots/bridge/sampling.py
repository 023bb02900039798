"""Deals consistent with one seat's observation, for the PIMC bot.

:func:`knowledge` reads what the seat to play knows from its
:class:`~arena.games.bridge.observation.BridgeObservation` and nothing else:

* its own remaining cards, and dummy's once faced;
* every card played so far, by whom (the completed tricks and the trick in
  progress), hence how many cards each hidden hand still holds;
* **voids** revealed by the play (a seat that did not follow suit);
* what each hidden seat's calls showed under the heuristic bot's system
  (:func:`arena.bots.bridge.model.shown`: a high-card point range, minimum suit
  lengths, balanced or not), plus two negative inferences of that system: a seat
  that passed before anyone had bid holds at most 11 HCP, and a seat that passed
  partner's one-level suit opening (its right-hand opponent passing) at most 5.

:class:`DealSampler` then deals the unseen cards to the hidden hands: voids are
always respected (cards of a suit only go to seats not known to be void in it;
cards of suits with a single possible holder are placed first, the others go
to a seat drawn with probability proportional to the room left in it, which is
the plain deal when there are no voids), and the auction's constraints are
checked on the whole original hand (remaining plus played cards), by rejection.
If rejection keeps failing the sampler relaxes, once per decision and for good:
first the point ranges and balance go, then the lengths; voids and counts are
facts and are never relaxed. :attr:`DealSampler.level` tells which level was used.

Everything is drawn from a :class:`~arena.core.dealing.SeedStream` the caller
passes: the same observation and seed give the same samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.bots.bridge.hand import FIRST_BID, PASS, Auction, bid_level, bid_strain, card_ids
from arena.bots.bridge.model import shown
from arena.core.dealing import SeedStream

__all__ = ["Knowledge", "SeatConstraint", "DealSampler", "knowledge", "mask_of", "ids_of"]

FULL = (1 << 52) - 1
_SUIT = [((1 << 13) - 1) << (13 * s) for s in range(4)]
_HCP_CARDS = [(s * 13 + r, r - 8) for s in range(4) for r in range(9, 13)]


def mask_of(ids: Any) -> int:
    """The 52-bit mask of card ids."""
    m = 0
    for c in ids:
        m |= 1 << c
    return m


def ids_of(mask: int) -> list[int]:
    """Card ids of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def hcp_of(mask: int) -> int:
    """High-card points of a mask (A4 K3 Q2 J1)."""
    return sum(p for c, p in _HCP_CARDS if mask >> c & 1)


def lengths_of(mask: int) -> tuple[int, int, int, int]:
    """Suit lengths C, D, H, S of a mask."""
    return ((mask & _SUIT[0]).bit_count(), (mask & _SUIT[1]).bit_count(),
            (mask & _SUIT[2]).bit_count(), (mask & _SUIT[3]).bit_count())


@dataclass
class SeatConstraint:
    """What the auction says of one hidden seat's original 13 cards."""

    lo: int = 0
    hi: int = 37
    lengths: tuple[int, int, int, int] = (0, 0, 0, 0)
    balanced: bool = False

    def ok(self, hand: int, level: int) -> bool:
        """Whether a whole hand fits, at relaxation ``level`` (0 all, 1 lengths, 2 none)."""
        if level >= 2:
            return True
        n = lengths_of(hand)
        if any(n[s] < self.lengths[s] for s in range(4)):
            return False
        if level >= 1:
            return True
        if self.balanced:
            shape = sorted(n)
            if not (shape[0] >= 2 and shape[1] >= 3 or shape == [2, 3, 3, 5]):
                return False
        return self.lo <= hcp_of(hand) <= self.hi


@dataclass
class Knowledge:
    """What the seat to play knows (see the module docstring)."""

    seat: int
    """The observing seat (the declarer when dummy's card is asked)."""
    mover: int
    """The hand whose card is played now."""
    known: dict[int, int]
    """Seat -> remaining cards (mask) of the hands the seat sees."""
    hidden: list[int]
    """Seats whose remaining cards are unknown."""
    counts: dict[int, int]
    """Hidden seat -> number of cards it still holds."""
    played: list[int]
    """Seat -> mask of the cards it has played (this deal)."""
    voids: list[set[int]]
    """Seat -> suits it has shown out of."""
    pool: int
    """Mask of the unseen cards (in the hidden hands)."""
    constraints: dict[int, SeatConstraint] = field(default_factory=dict)
    leader: int = 0
    """Seat that led the trick in progress."""
    trick: list[int] = field(default_factory=list)
    """Cards of the trick in progress, in order."""


def knowledge(obs: Any) -> Knowledge:
    """Read :class:`Knowledge` from a bridge observation in the play phase."""
    seat: int = obs.seat
    mover: int = obs.playing_hand if obs.playing_hand >= 0 else seat
    known = {seat: mask_of(card_ids(obs.hand))}
    if obs.dummy_hand and obs.dummy >= 0:
        known[obs.dummy] = mask_of(card_ids(obs.dummy_hand))
    played = [0, 0, 0, 0]
    voids: list[set[int]] = [set(), set(), set(), set()]

    def note(leader: int, ids: list[int]) -> None:
        if not ids:
            return
        led = ids[0] // 13
        for i, c in enumerate(ids):
            s = (leader + i) & 3
            played[s] |= 1 << c
            if c // 13 != led:
                voids[s].add(led)

    for leader, cards, _winner in obs.tricks:
        note(leader, card_ids(cards))
    trick = card_ids(obs.current_trick)
    leader = obs.trick_leader if obs.trick_leader >= 0 else mover
    note(leader, trick)
    hidden = [s for s in range(4) if s not in known]
    counts = {s: 13 - played[s].bit_count() for s in hidden}
    seen = 0
    for m in known.values():
        seen |= m
    for m in played:
        seen |= m
    pool = FULL & ~seen
    if pool.bit_count() != sum(counts.values()):
        raise ValueError("observation is inconsistent: unseen cards do not fill the hidden hands")
    auction = Auction.from_tokens(obs.dealer, obs.auction)
    cons = {s: auction_constraint(auction, s) for s in hidden}
    return Knowledge(seat=seat, mover=mover, known=known, hidden=hidden, counts=counts,
                     played=played, voids=voids, pool=pool, constraints=cons,
                     leader=leader, trick=trick)


def auction_constraint(auction: Auction, seat: int) -> SeatConstraint:
    """What ``seat``'s calls showed, with the system's two negative inferences."""
    info = shown(auction, seat)
    lo, hi = info.lo, info.hi
    calls = auction.calls
    first = next((i for i, (s, _c) in enumerate(calls) if s == seat), -1)
    if first >= 0 and calls[first][1] == PASS:
        before = [(s, c) for s, c in calls[:first] if c >= FIRST_BID]
        if not before and all(c == PASS for _s, c in calls[:first]):
            hi = min(hi, 11)  # would have opened with 12+
        elif len(before) == 1 and before[0][0] == (seat + 2) & 3 and first >= 1 \
                and calls[first - 1][1] == PASS and bid_level(before[0][1]) == 1 \
                and bid_strain(before[0][1]) < 4:
            hi = min(hi, 5)  # a response to partner's one of a suit needs 6+
    if lo > hi:
        lo, hi = 0, 37
    return SeatConstraint(lo=lo, hi=hi, lengths=(info.lengths[0], info.lengths[1],
                                                 info.lengths[2], info.lengths[3]),
                          balanced=info.balanced)


class DealSampler:
    """Random full layouts of the hidden hands consistent with :class:`Knowledge`."""

    def __init__(self, know: Knowledge, rng: SeedStream, tries: int = 400) -> None:
        self.k = know
        self.rng = rng
        self.tries = tries
        """Rejections allowed per sample before relaxing one level."""
        self.level = 0
        """Relaxation in use: 0 every constraint, 1 lengths only, 2 voids only."""
        self.rejected = 0
        pool = ids_of(know.pool)
        hidden = know.hidden
        elig: dict[int, list[int]] = {}
        for s in range(4):
            elig[s] = [h for h in hidden if s not in know.voids[h]]
        # Cards with a single possible holder first, then the rest.
        self._forced = [(c, elig[c // 13][0]) for c in pool if len(elig[c // 13]) == 1]
        self._free = [(c, elig[c // 13]) for c in pool if len(elig[c // 13]) > 1]
        if any(not elig[c // 13] for c in pool):
            raise ValueError("observation is inconsistent: a card no hidden hand can hold")
        self._unconstrained = all(len(e) == len(hidden) for _c, e in self._free) and not self._forced

    def _deal(self) -> dict[int, int] | None:
        k = self.k
        room = dict(k.counts)
        hands = {h: 0 for h in k.hidden}
        for c, h in self._forced:
            if room[h] == 0:
                return None
            room[h] -= 1
            hands[h] |= 1 << c
        free = list(self._free)
        self.rng.shuffle(free)
        rng = self.rng
        for c, seats in free:
            total = 0
            for h in seats:
                total += room[h]
            if total == 0:
                return None
            x = rng.below(total)
            for h in seats:
                x -= room[h]
                if x < 0:
                    room[h] -= 1
                    hands[h] |= 1 << c
                    break
        return hands

    def _fits(self, hands: dict[int, int]) -> bool:
        if self.level >= 2:
            return True
        k = self.k
        for h, m in hands.items():
            if not k.constraints[h].ok(m | k.played[h], self.level):
                return False
        return True

    def sample(self, deadline: float | None = None,
               clock: Callable[[], float] = time.perf_counter) -> list[int] | None:
        """Remaining cards of all four hands (masks by seat) for one random layout;
        ``None`` if ``clock()`` passes ``deadline`` first (checked every 64 tries)."""
        while True:
            for i in range(self.tries):
                if deadline is not None and not i & 63 and clock() > deadline:
                    return None
                hands = self._deal()
                if hands is not None and self._fits(hands):
                    out = [0, 0, 0, 0]
                    for s, m in self.k.known.items():
                        out[s] = m
                    for s, m in hands.items():
                        out[s] = m
                    return out
                self.rejected += 1
            if self.level >= 2:
                raise RuntimeError("no layout fits the voids and hand sizes")
            self.level += 1
            if self.level == 2:
                self.tries *= 25  # only voids and counts now: dead ends are the only failures
