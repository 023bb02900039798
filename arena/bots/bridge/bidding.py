"""The heuristic bot's auction: a small natural system (see :mod:`arena.bots.bridge.model`).

Openings and first responses follow fixed rules; after that a player *places*
the contract from its own hand and what partner has shown: the combined points
and the best fit give a strain and the level the partnership can afford
(game at 25, five of a minor at 29, small slam at 33, grand slam at 37). A bot
never bids above that level. It doubles only when its own defensive tricks plus
partner's expected ones clearly beat the opponents' contract, and it passes
partner's doubles.

>>> from arena.bots.bridge.hand import Auction, Hand
>>> h = Hand.parse("AS KS 5S 3S AH QH 7H 4D 3D 2D 9C 8C 2C")  # 13 HCP, balanced
>>> choose_call(h, Auction.from_tokens(0, []), 0, range(52, 90))  # 1C
55
"""

from __future__ import annotations

from collections.abc import Collection

from arena.bots.bridge.hand import (DOUBLE, FIRST_BID, PASS, Auction, Hand, bid_id, bid_level,
                                    bid_strain)
from arena.bots.bridge.model import Shown, shown

__all__ = ["choose_call", "Bidder"]

NT = 4


def choose_call(hand: Hand, auction: Auction, seat: int, legal: Collection[int]) -> int:
    """The heuristic call for ``seat`` holding ``hand``; always one of ``legal``."""
    call = Bidder(hand, auction, seat, legal).decide()
    return call if call in legal else PASS


def _suit_level(total: float, major: bool) -> int:
    """Highest level a trump fit with ``total`` points can afford."""
    if total >= 37:
        return 7
    if total >= 33:
        return 6
    if not major and total >= 29:
        return 5
    if major and total >= 25:
        return 4
    if total >= 23:
        return 3
    if total >= 18:
        return 2
    return 1


def _nt_level(total: float) -> int:
    if total >= 37:
        return 7
    if total >= 33:
        return 6
    if total >= 25:
        return 3
    if total >= 23:
        return 2
    return 1


class Bidder:
    """One auction decision."""

    def __init__(self, hand: Hand, auction: Auction, seat: int, legal: Collection[int]) -> None:
        self.hand = hand
        self.auction = auction
        self.seat = seat
        self.partner = (seat + 2) & 3
        self.legal = set(legal)
        self.hcp = hand.hcp
        self.lengths = hand.lengths
        self.last_seat, self.last = auction.last_bid()

    # -- helpers ---------------------------------------------------------------
    def ours(self, s: int) -> bool:
        return (s - self.seat) % 2 == 0

    def cheapest(self, strain: int) -> int:
        """Lowest level at which ``strain`` can be bid now (8 if none)."""
        if self.last < 0:
            return 1
        level, cur = bid_level(self.last), bid_strain(self.last)
        return level if strain > cur else level + 1

    def bid(self, level: int, strain: int) -> int:
        """The bid if it is legal, else Pass."""
        if 1 <= level <= 7:
            c = bid_id(level, strain)
            if c in self.legal:
                return c
        return PASS

    def opp_suits(self) -> set[int]:
        return {bid_strain(c) for s, c in self.auction.calls
                if c >= FIRST_BID and not self.ours(s) and bid_strain(c) < NT}

    # -- the decision ------------------------------------------------------------
    def decide(self) -> int:
        a = self.auction
        if self.last >= 0 and not self.ours(self.last_seat):
            if a.doubler() == self.partner:
                return PASS
            if DOUBLE in self.legal and self.penalty_double():
                return DOUBLE
        side_bids = [(s, c) for s, c in a.calls if c >= FIRST_BID and self.ours(s)]
        if not side_bids:
            return self.opening() if self.last < 0 else self.overcall()
        my_bids = a.bids(self.seat)
        partner_bids = a.bids(self.partner)
        opener = side_bids[0][0]
        call = -1
        if not my_bids and opener == self.partner and len(partner_bids) == 1 \
                and a.first_bidder() == self.partner:
            call = self.response(partner_bids[0])
        elif len(my_bids) == 1 and opener == self.seat and len(partner_bids) == 1 \
                and a.first_bidder() == self.seat:
            call = self.rebid(my_bids[0], partner_bids[0])
        if call in self.legal:
            return call
        return self.place()

    # -- openings ------------------------------------------------------------------
    def opening(self) -> int:
        h, n = self.hcp, self.lengths
        if self.hand.balanced and 15 <= h <= 17:
            return self.bid(1, NT)
        if self.hand.balanced and 20 <= h <= 24:
            return self.bid(2, NT)
        two_longest = sum(sorted(n)[-2:])
        if h < 12 and not (h >= 10 and h + two_longest >= 20):
            return PASS
        if max(n[2], n[3]) >= 5:
            return self.bid(1, 3 if n[3] >= n[2] else 2)
        if n[1] > n[0] or (n[1] == n[0] and n[1] >= 4):
            return self.bid(1, 1)
        return self.bid(1, 0)

    def overcall(self) -> int:
        h, n = self.hcp, self.lengths
        opp = self.opp_suits()
        if 15 <= h <= 18 and self.hand.balanced and self.cheapest(NT) == 1 \
                and all(self.hand.stopper(s) for s in opp):
            return self.bid(1, NT)
        best = max(range(4), key=lambda s: (n[s], s))
        if best in opp or n[best] < 5:
            return PASS
        level = self.cheapest(best)
        top = self.hand.suits[best]
        good = sum(1 for r in top[:3] if r >= 9) >= 2  # two of the top three are honours
        if level == 1 and 8 <= h <= 16 and (good or h >= 10):
            return self.bid(1, best)
        if level == 2 and 11 <= h <= 16 and (n[best] >= 6 or good):
            return self.bid(2, best)
        if level == 3 and 13 <= h <= 17 and n[best] >= 6 and good:
            return self.bid(3, best)
        return PASS

    # -- responses -------------------------------------------------------------------
    def response(self, opening: int) -> int:
        level, strain = bid_level(opening), bid_strain(opening)
        if strain == NT and level == 1:
            return self.response_1nt()
        if strain == NT:
            return -1  # placement
        if level != 1:
            return -1
        return self.response_suit(strain)

    def response_1nt(self) -> int:
        h, n = self.hcp, self.lengths
        major = 3 if n[3] >= n[2] else 2
        if n[major] >= 5:
            if h <= 7:
                return self.bid(2, major)
            if h >= 10 and n[major] >= 6:
                return self.bid(4, major) if h <= 15 else self.bid(3, major)
            if h >= 10:
                return self.bid(3, major)
        if h >= 8 and (n[2] >= 4 or n[3] >= 4) and sorted(n) != [3, 3, 3, 4]:
            return self.bid(2, 0)  # Stayman
        if h <= 7:
            return self.bid(2, 1) if n[1] >= 5 else PASS
        if h <= 9:
            return self.bid(2, NT)
        if h <= 17:
            return self.bid(3, NT)
        if h <= 19:
            return self.bid(6, NT)
        return self.bid(7, NT)

    def response_suit(self, x: int) -> int:
        h, n = self.hcp, self.lengths
        if h < 6:
            return PASS
        if x >= 2 and n[x] >= 3:
            pts = h + self.hand.shortness_points(x)
            if pts <= 9:
                return self.bid(2, x)
            if pts <= 12:
                return self.bid(3, x)
            return self.bid(4, x)
        ones = [s for s in range(x + 1, 4) if n[s] >= 4]
        majors = [s for s in ones if s >= 2]
        if majors:
            s = max(majors, key=lambda m: (n[m], -m if n[m] == 4 else m))
            return self.bid(1, s)
        if ones and (n[ones[0]] >= 5 or h >= 10 or not self.hand.balanced):
            return self.bid(1, ones[0])
        if self.hand.balanced or h <= 9:
            if x < 2 and n[x] >= 5 and not self.hand.balanced:
                return self.bid(2, x) if h <= 9 else self.bid(3, x)
            if h <= 10:
                return self.bid(1, NT)
            if h <= 12:
                return self.bid(2, NT)
            return self.bid(3, NT)
        twos = [s for s in range(0, x) if n[s] >= (5 if s == 2 else 4)]
        if twos:
            return self.bid(2, max(twos, key=lambda s: (n[s], s)))
        if x < 2 and n[x] >= 4:
            return self.bid(3, x) if h <= 12 else self.bid(3, NT)
        return self.bid(1, NT) if h <= 10 else self.bid(2, NT) if h <= 12 else self.bid(3, NT)

    # -- opener's rebid -------------------------------------------------------------------
    def rebid(self, opening: int, response: int) -> int:
        olevel, x = bid_level(opening), bid_strain(opening)
        rlevel, y = bid_level(response), bid_strain(response)
        if x == NT:
            if olevel == 1 and response == bid_id(2, 0):  # answer Stayman
                n = self.lengths
                return self.bid(2, 2) if n[2] >= 4 else self.bid(2, 3) if n[3] >= 4 else self.bid(2, 1)
            return -1
        if y == x or y == NT or olevel != 1:
            return -1  # placement: raises and notrump responses are limited
        h, n = self.hcp, self.lengths
        if n[y] >= 4 or (rlevel == 2 and y >= 2 and n[y] >= 3):
            pts = h + self.hand.shortness_points(y)
            if rlevel == 1:
                if pts >= 19:
                    return self.bid(4, y) if y >= 2 else self.bid(3, NT)
                return self.bid(3 if pts >= 16 else 2, y)
            if y >= 2:
                return self.bid(4 if pts >= 15 else 3, y)
            return self.bid(3, y)
        if rlevel == 1:
            if y < 3 and n[3] >= 4 and x != 3:
                return self.bid(1, 3)
            if self.hand.balanced:
                return self.bid(1, NT) if h <= 14 else self.bid(2, NT) if h <= 19 else self.bid(3, NT)
            if n[x] >= 6:
                return self.bid(2 if h <= 15 else 3, x)
            lower = [s for s in range(x) if s != y and n[s] >= 4]
            if lower:
                return self.bid(2, max(lower, key=lambda s: (n[s], s)))
            higher = [s for s in range(x + 1, 4) if s != y and n[s] >= 4]
            if higher and h >= 17:
                return self.bid(2, higher[0])
            return self.bid(2, x)
        # Partner's two-level new suit (10+).
        if self.hand.balanced:
            return self.bid(2, NT) if h <= 14 else self.bid(3, NT)
        if n[x] >= 6:
            return self.bid(2, x) if h <= 15 and x > y else self.bid(3, x)
        others = [s for s in range(4) if s not in (x, y) and n[s] >= 4 and self.cheapest(s) == 2
                  and s < x]
        if others:
            return self.bid(2, others[0])
        return self.bid(2, x) if x > y else self.bid(2, NT)

    # -- placement ---------------------------------------------------------------------
    def place(self) -> int:
        """Choose the contract the partnership can afford and bid it, or pass."""
        p = shown(self.auction, self.partner)
        pe = p.points()
        if not p.bids:
            pe = min(pe, 6.0)
        n = self.lengths
        hand = self.hand
        combined = [n[s] + p.assumed_length(s) for s in range(4)]
        fits = [s for s in range(4) if combined[s] >= 8]
        majors = [s for s in fits if s >= 2]
        opp = self.opp_suits()
        stoppers = all(hand.stopper(s) for s in opp)
        nt_total = self.hcp + pe + (1 if max(n) >= 5 else 0)
        strain, level = -1, 0
        if majors:
            s = max(majors, key=lambda m: (combined[m], m))
            tot = self.hcp + pe + (hand.shortness_points(s) if n[s] >= 3 else hand.length_points())
            strain, level = s, _suit_level(tot, True)
        else:
            nt_ok = stoppers and (hand.balanced or p.balanced or min(n) >= 2)
            minors = [s for s in fits if s < 2]
            if minors:
                s = max(minors, key=lambda m: (combined[m], m))
                tot = self.hcp + pe + (hand.shortness_points(s) if n[s] >= 3 else hand.length_points())
                if nt_ok and 25 <= nt_total < 33:
                    strain, level = NT, _nt_level(nt_total)
                else:
                    strain, level = s, _suit_level(tot, False)
            elif nt_ok or p.balanced:
                strain, level = NT, _nt_level(nt_total)
            else:
                s = max(range(4), key=lambda m: (n[m], m))
                if n[s] < 6 or self.hcp < 6 or s in opp:
                    return PASS  # no fit, no notrump: leave the contract where it is
                strain, level = s, min(2, _suit_level(self.hcp + pe + 2, False))
        return self._reach(strain, level, combined, p)

    def _reach(self, strain: int, level: int, combined: list[int], p: Shown) -> int:
        ours = self.last >= 0 and self.ours(self.last_seat)
        if ours:
            cur_level, cur = bid_level(self.last), bid_strain(self.last)
            acceptable = cur == strain or cur == NT or combined[cur] >= 7
            if cur_level >= level and acceptable:
                return PASS
            if cur_level >= 4 and cur_level >= level - 1 and acceptable and level < 6:
                return PASS
        low = self.cheapest(strain)
        if low > level:
            if ours and self.forced():
                return self.bid(low, strain) if low <= level + 1 else PASS
            return PASS
        if level >= 6 and not self.slam_safe(strain):
            level = 5 if strain < 2 else 4 if strain < NT else 3
            if low > level:
                return PASS
        return self.bid(level, strain)

    def forced(self) -> bool:
        """Partner's last bid is a new suit by a responder, which the opener may not pass."""
        partner_bids = self.auction.bids(self.partner)
        if not partner_bids or self.last_seat != self.partner:
            return False
        if self.auction.first_bidder() != self.seat:
            return False
        c = partner_bids[-1]
        s = bid_strain(c)
        if s == NT:
            return False
        earlier = self.auction.bids(self.seat) + partner_bids[:-1]
        return all(bid_strain(b) != s for b in earlier) and len(partner_bids) == 1

    def slam_safe(self, strain: int) -> bool:
        """No side suit in which both top honours may be missing and we are not short."""
        for s in range(4):
            if s == strain:
                continue
            suit = self.hand.suits[s]
            if not suit:
                continue
            if suit[0] < 11 and len(suit) >= 2:  # no ace or king, two losers possible
                return False
        return True

    # -- penalty doubles -------------------------------------------------------------------
    def penalty_double(self) -> bool:
        level, strain = bid_level(self.last), bid_strain(self.last)
        if level < 2:
            return False
        need = 8 - level  # defensive tricks that beat the contract
        hand = self.hand
        mine = 0.0
        for s in range(4):
            if s == strain:
                mine += hand.trump_tricks(s)
            elif strain < NT and hand.lengths[strain] == 0 and hand.lengths[s] >= 5:
                mine += min(hand.quick_tricks(s), 1.0)
            else:
                mine += hand.quick_tricks(s)
        p = shown(self.auction, self.partner)
        if p.bids:
            pest = p.points()
        else:
            passed = any(s == self.partner for s, c in self.auction.calls)
            pest = max(0.0, (40 - self.hcp) / 3.0 - (2.0 if passed else 0.0))
        partner_def = pest / 7.0
        return mine + partner_def >= need + 1.0 and mine >= 0.5 * need
