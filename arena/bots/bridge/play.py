"""The heuristic bot's card play, from one seat's observation only.

Rules of thumb, in order of use:

* **Opening lead**: partner's bid suit; else the top of a sequence; else (in a
  suit contract) a side-suit singleton; else fourth best from the longest suit
  (the top of a short suit without an honour).
* **Second hand low**, unless the hand still to play is dummy and a card of ours
  beats both the trick and everything dummy can play.
* **Third hand high** (the lowest of equal top cards); against a visible fourth
  hand, the cheapest card that beats it.
* **Never overtake** partner's card when it is sure to win; otherwise **win as
  cheaply as possible**, else follow with the lowest card.
* **Ruff** when void and the opponents are winning; otherwise **discard** the
  lowest card of the weakest suit.
* **Declarer** draws the opponents' trumps, cashes winners, leads towards
  dummy's high cards, and leads losers that the other hand can ruff.

Everything is computed from the observation: dummy's cards once faced, the
completed tricks (for cards gone and known voids) and the trick in progress.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.bots.bridge.hand import FIRST_BID, Auction, bid_strain, card_ids

__all__ = ["choose_card", "PlayView"]


def _suit(c: int) -> int:
    return c // 13


class PlayView:
    """What the hand to play knows, precomputed from an observation."""

    def __init__(self, obs: Any, cache: dict[str, Any] | None = None) -> None:
        self.seat: int = obs.seat
        self.declarer: int = obs.declarer
        self.dummy: int = obs.dummy
        self.hand_seat: int = obs.playing_hand if obs.playing_hand >= 0 else obs.seat
        contract: str = obs.contract
        self.trump = "CDHS".find(contract[1]) if len(contract) > 1 else -1
        self.level = int(contract[0]) if contract[:1].isdigit() else 0
        self.won = obs.tricks_won[self.declarer % 2] if self.declarer >= 0 else 0
        """Tricks won so far by the declaring side."""
        dummy_cards = card_ids(obs.dummy_hand)
        own = card_ids(obs.hand)
        self.hands: dict[int, list[int]] = {self.seat: own}
        if dummy_cards and self.dummy >= 0:
            self.hands[self.dummy] = dummy_cards
        key = (obs.board, obs.deal, obs.declarer, len(obs.tricks))
        memo = cache.get("tricks") if cache is not None else None
        if memo is not None and memo[0][:3] == key[:3] and 0 < memo[0][3] <= key[3] \
                and memo[4] == obs.tricks[0]:
            _, played, voids, led_by, _first = memo
            played, voids = set(played), [set(x) for x in voids]
            led_by = [list(x) for x in led_by]
            start = memo[0][3]
        else:
            played, voids, led_by, start = set(), [set(), set(), set(), set()], [[], [], [], []], 0
        self.voids: list[set[int]] = voids
        self.led_by: list[list[int]] = led_by
        for leader, cards, _winner in obs.tricks[start:]:
            ids = card_ids(cards)
            self._note(leader, ids)
            played.update(ids)
        if cache is not None:
            cache["tricks"] = (key, frozenset(played), [frozenset(x) for x in voids],
                               [list(x) for x in led_by], obs.tricks[0] if obs.tricks else None)
        self.trick_leader: int = obs.trick_leader
        self.trick = card_ids(obs.current_trick)
        self._note(self.trick_leader, self.trick)
        played.update(self.trick)
        self.played = played
        visible: set[int] = set()
        for cards in self.hands.values():
            visible.update(cards)
        self.unseen = set(range(52)) - played - visible
        """Cards that may be in a hidden hand."""
        self.my_cards = sorted(self.hands.get(self.hand_seat, own))
        self.partner = (self.hand_seat + 2) & 3
        self.first_trick = not obs.tricks
        self.partner_suits: list[int] = []
        """Suits the partner of the hand to play bid, first bid first."""
        self.opponent_suits: list[int] = []
        if self.first_trick and not self.trick:
            auction = Auction.from_tokens(obs.dealer, obs.auction)
            for s, c in auction.calls:
                if c >= FIRST_BID and bid_strain(c) < 4:
                    group = self.partner_suits if s == self.partner else (
                        self.opponent_suits if not self.same_side(s, self.hand_seat) else [])
                    if bid_strain(c) not in group:
                        group.append(bid_strain(c))

    def _note(self, leader: int, ids: Sequence[int]) -> None:
        if not ids:
            return
        led = _suit(ids[0])
        self.led_by[leader].append(led)
        for i, c in enumerate(ids[1:], 1):
            if _suit(c) != led:
                self.voids[(leader + i) & 3].add(led)

    # -- card facts ----------------------------------------------------------------
    def same_side(self, a: int, b: int) -> bool:
        return (a - b) % 2 == 0

    def beats(self, a: int, b: int, led: int) -> bool:
        """Whether card ``a`` beats card ``b`` in a trick led in suit ``led``."""
        sa, sb = _suit(a), _suit(b)
        if sa == sb:
            return a > b
        if sa == self.trump:
            return True
        return False if sb == self.trump else sb != led and sa == led

    def winning(self) -> tuple[int, int]:
        """(card, seat) currently winning the trick in progress."""
        led = _suit(self.trick[0])
        best, bi = self.trick[0], 0
        for i, c in enumerate(self.trick[1:], 1):
            if self.beats(c, best, led):
                best, bi = c, i
        return best, (self.trick_leader + bi) & 3

    def can_beat(self, seat: int, card: int, led: int) -> bool:
        """Whether ``seat`` (still to play) might beat ``card`` in this trick."""
        if seat in self.hands:
            cards = self.hands[seat]
            follow = [c for c in cards if _suit(c) == led]
            pool = follow if follow else [c for c in cards if _suit(c) == self.trump]
            return any(self.beats(c, card, led) for c in pool)
        if seat in (self.hand_seat, self.partner) and self.same_side(seat, self.hand_seat):
            return False  # our side; only opponents are threats
        if led not in self.voids[seat]:
            # Not known to be void: assume it follows suit (it cannot ruff).
            return any(_suit(c) == led and self.beats(c, card, led) for c in self.unseen)
        if self.trump >= 0 and self.trump not in self.voids[seat]:
            return any(_suit(c) == self.trump and self.beats(c, card, led) for c in self.unseen)
        return False

    def later_seats(self) -> list[int]:
        n = len(self.trick)
        return [(self.trick_leader + i) & 3 for i in range(n + 1, 4)]

    def safe(self, card: int, led: int) -> bool:
        """No opponent still to play can beat ``card``."""
        return not any(self.can_beat(s, card, led) for s in self.later_seats()
                       if not self.same_side(s, self.hand_seat))

    def is_master(self, card: int) -> bool:
        """No unseen card and no visible opponent card of its suit is higher."""
        s = _suit(card)
        for c in self.unseen:
            if _suit(c) == s and c > card:
                return False
        for seat, cards in self.hands.items():
            if not self.same_side(seat, self.hand_seat):
                if any(_suit(c) == s and c > card for c in cards):
                    return False
        return True

    def top_equivalent(self, cards: list[int]) -> int:
        """The lowest card equal in value to the highest of ``cards`` (one suit)."""
        cards = sorted(cards, reverse=True)
        best = cards[0]
        mine = set(cards)
        r = best - 1
        while r >= (best // 13) * 13 and (r in mine or r in self.played):
            if r in mine:
                best = r
            r -= 1
        return best


def choose_card(obs: Any, legal: Sequence[int], cache: dict[str, Any] | None = None) -> int:
    """The heuristic card for the hand to play; always one of ``legal``.

    ``cache`` (a dict the caller keeps between decisions of one seat) only saves
    re-reading completed tricks; the choice is the same without it.
    """
    legal = [a for a in legal if 0 <= a < 52]
    if len(legal) == 1:
        return legal[0]
    v = PlayView(obs, cache)
    card = _lead(v, legal) if not v.trick else _follow(v, legal)
    return card if card in legal else min(legal)


# -- following -------------------------------------------------------------------------
def _follow(v: PlayView, legal: list[int]) -> int:
    led = _suit(v.trick[0])
    win_card, win_seat = v.winning()
    pos = len(v.trick)
    following = _suit(legal[0]) == led
    partner_wins = v.same_side(win_seat, v.hand_seat)
    if partner_wins and (pos == 3 or v.safe(win_card, led)):
        return _lowest(v, legal, following)
    if partner_wins and pos == 2 and following and win_card % 13 >= 9 and _suit(win_card) == led:
        return _lowest(v, legal, following)  # partner's honour: let it run, do not overtake
    winners = sorted(c for c in legal if v.beats(c, win_card, led))
    if not winners:
        return _lowest(v, legal, following)
    if pos == 3:
        return winners[0]
    secure = [c for c in winners if v.safe(c, led)]
    if pos == 1 and _partner_covers(v, led, win_card):
        return _lowest(v, legal, following)
    if not following:  # ruffing
        if partner_wins and pos == 2:
            return _lowest(v, legal, following)
        return secure[0] if secure else winners[0]
    if pos == 1:
        nxt = v.later_seats()[0]
        if nxt in v.hands and secure:
            return secure[0]  # dummy to play next and cannot beat it: win cheaply
        if secure and v.same_side(v.hand_seat, v.declarer):
            return secure[0]  # declarer's side takes a sure trick when the other hand cannot
        if secure and v.is_master(secure[0]) and len(v.my_cards) <= 2:
            return secure[0]
        return _lowest(v, legal, following)
    # Third hand.
    if secure:
        return secure[0]
    nxt = v.later_seats()[0]
    if nxt in v.hands:
        return _lowest(v, legal, following)  # fourth hand visible and beats all we have
    top = v.top_equivalent(legal)
    return top if v.beats(top, win_card, led) else _lowest(v, legal, following)


def _partner_covers(v: PlayView, led: int, win_card: int) -> bool:
    """Second hand: partner plays last, is visible, and surely wins the trick."""
    cards = v.hands.get(v.partner)
    if not cards or v.partner == v.hand_seat:
        return False
    follow = [c for c in cards if _suit(c) == led]
    if follow:
        top = max(follow)
        return v.beats(top, win_card, led) and not any(
            _suit(c) == led and c > top for c in v.unseen)
    trumps = [c for c in cards if _suit(c) == v.trump]
    third = (v.hand_seat + 1) & 3
    return bool(trumps) and led != v.trump and led not in v.voids[third]


def _lowest(v: PlayView, legal: list[int], following: bool) -> int:
    if following:
        return min(legal)
    return _discard(v, legal)


def _discard(v: PlayView, legal: list[int]) -> int:
    by: dict[int, list[int]] = {}
    for c in legal:
        by.setdefault(_suit(c), []).append(c)
    side = [s for s in by if s != v.trump] or list(by)

    def keep_value(s: int) -> tuple[float, int]:
        cards = sorted(by[s], reverse=True)
        value = 0.0
        for c in cards:
            if v.is_master(c):
                value += 10
            elif c % 13 >= 9:
                value += (c % 13) - 8
        return (value, -len(cards))

    s = min(side, key=lambda x: (keep_value(x), x))
    return min(by[s])


# -- leading -------------------------------------------------------------------------------
def _lead(v: PlayView, legal: list[int]) -> int:
    by: dict[int, list[int]] = {}
    for c in legal:
        by.setdefault(_suit(c), []).append(c)
    for cards in by.values():
        cards.sort(reverse=True)
    declaring = v.same_side(v.hand_seat, v.declarer)
    if declaring:
        return _declarer_lead(v, by)
    if v.first_trick:
        return _opening_lead(v, by, v.partner_suits)
    return _defender_lead(v, by)


def _sequence_top(cards: list[int]) -> int | None:
    """Top of a two-card honour sequence (AK, KQ, QJ, JT) in a suit of 3+ cards, or AK."""
    ranks = [c % 13 for c in cards]
    if len(ranks) >= 2 and ranks[0] >= 8 and ranks[1] == ranks[0] - 1:
        if len(ranks) >= 3 or ranks[0] == 12:
            return cards[0]
    return None


def _from_suit(cards: list[int]) -> int:
    """Conventional lead from a suit: sequence top, top of a doubleton, fourth best, low from an honour."""
    seq = _sequence_top(cards)
    if seq is not None:
        return seq
    if len(cards) <= 2:
        return cards[0]
    if len(cards) >= 4:
        return cards[3]
    return cards[-1] if cards[0] % 13 >= 9 else cards[0]


def _opening_lead(v: PlayView, by: dict[int, list[int]], partner_suits: list[int]) -> int:
    for s in partner_suits:
        if s in by and s != v.trump:
            cards = by[s]
            seq = _sequence_top(cards)
            return seq if seq is not None else cards[0] if len(cards) <= 2 else cards[-1]
    side = [s for s in by if s != v.trump] or list(by)
    seqs = [(by[s][0], s) for s in side if _sequence_top(by[s]) is not None]
    if seqs:
        return max(seqs)[0]
    if v.trump >= 0 and 1 <= len(by.get(v.trump, [])) <= 3:
        singles = [s for s in side if len(by[s]) == 1 and by[s][0] % 13 < 12]
        if singles:
            return by[singles[0]][0]
    opp = v.opponent_suits
    choices = [s for s in side if s not in opp] or side
    if v.trump >= 0:  # avoid leading away from an ace against a suit contract
        no_ace = [s for s in choices if by[s][0] % 13 != 12 or len(by[s]) == 1]
        choices = no_ace or choices
    s = max(choices, key=lambda x: (len(by[x]), sum(max(0, c % 13 - 8) for c in by[x]), x))
    return _from_suit(by[s])


def _defender_lead(v: PlayView, by: dict[int, list[int]]) -> int:
    dummy_cards = v.hands.get(v.dummy, [])
    dummy_suits = {_suit(c) for c in dummy_cards}
    dummy_trumps = v.trump >= 0 and v.trump in dummy_suits

    def ruffable(s: int) -> bool:
        return v.trump >= 0 and s != v.trump and s not in dummy_suits and dummy_trumps

    side = [s for s in by if s != v.trump] or list(by)
    for s in side:
        if v.is_master(by[s][0]) and not ruffable(s):
            return by[s][0]
    partner_led = [s for s in v.led_by[v.partner] if s in by and s != v.trump]
    if partner_led:
        cards = by[partner_led[0]]
        return cards[0] if len(cards) <= 2 else cards[-1]
    safe = [s for s in side if not ruffable(s)] or side
    s = max(safe, key=lambda x: (len(by[x]), x))
    return _from_suit(by[s])


def _declarer_lead(v: PlayView, by: dict[int, list[int]]) -> int:
    other = v.partner
    other_cards = v.hands.get(other, [])
    other_by: dict[int, list[int]] = {}
    for c in other_cards:
        other_by.setdefault(_suit(c), []).append(c)
    t = v.trump
    if t >= 0:
        ours = len(by.get(t, [])) + len(other_by.get(t, []))
        theirs = sum(1 for c in v.unseen if _suit(c) == t)
        if theirs > 0 and t in by and ours > theirs:
            top = by[t][0]
            if v.is_master(top):
                return top
            if other_by.get(t) and v.is_master(max(other_by[t])):
                return min(by[t])
            return min(by[t])
    side = [s for s in by if s != t]
    side.sort(key=lambda s: -(len(by[s]) + len(other_by.get(s, []))))
    # Short of sure tricks: set up a long suit before cashing the stoppers.
    sure = sum(_top_tricks(v, by.get(s, []), other_by.get(s, [])) for s in range(4))
    if sure < 6 + v.level - v.won:
        dev = _develop(v, by, other_by, side)
        if dev is not None:
            return dev
    # Cash a side-suit winner, longest combined suit first.
    for s in side:
        if v.is_master(by[s][0]):
            return by[s][0]
    # Lead low towards a winner in the other hand.
    for s in side:
        if other_by.get(s) and v.is_master(max(other_by[s])):
            return min(by[s])
    # Lead a loser the other hand can ruff.
    if t >= 0 and other_by.get(t):
        for s in side:
            if s not in other_by:
                return min(by[s])
    if side:
        s = max(side, key=lambda x: (len(by[x]) + len(other_by.get(x, [])), x))
        return _from_suit(by[s])
    return min(by[t]) if t in by else min(c for cards in by.values() for c in cards)


def _top_tricks(v: PlayView, mine: list[int], other: list[int]) -> int:
    """Sure tricks of one suit: our top cards in an unbroken run, at most the longer holding."""
    ours = set(mine) | set(other)
    if not ours:
        return 0
    suit = _suit(next(iter(ours)))
    count = 0
    for c in range(suit * 13 + 12, suit * 13 - 1, -1):
        if c in ours:
            count += 1
        elif c not in v.played:
            break
    return min(count, max(len(mine), len(other)))


def _develop(v: PlayView, by: dict[int, list[int]], other_by: dict[int, list[int]],
             side: list[int]) -> int | None:
    """A lead that sets up tricks in the longest suit with missing top cards, or None."""
    best = None
    for s in side:
        mine, other = by[s], other_by.get(s, [])
        length = len(mine) + len(other)
        if length < 5 or _top_tricks(v, mine, other) >= max(len(mine), len(other)):
            continue
        honours = sum(1 for c in mine + other if c % 13 >= 9)
        key = (length, honours, s)
        if best is None or key > best[0]:
            best = (key, s)
    if best is None:
        return None
    s = best[1]
    mine = by[s]
    other = sorted(other_by.get(s, []), reverse=True)
    if len(mine) >= 2 and mine[0] % 13 >= 9 and v.top_equivalent(mine) != mine[0]:
        return mine[0]  # top of a sequence drives out the opponents' honour
    if other and other[0] % 13 >= 9:
        return min(mine)  # low towards the honours
    return mine[0] if mine[0] % 13 >= 9 and len(mine) > 1 else min(mine)
