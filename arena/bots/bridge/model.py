"""What a player's calls have shown, under the heuristic bot's natural system.

:func:`shown` reads one seat's bids in the auction and returns a
:class:`Shown`: a high-card point range, minimum suit lengths and whether the
hand is balanced. The system (see :mod:`arena.bots.bridge.bidding`):

* openings: 1NT 15-17 balanced, 2NT 20-21 balanced, one of a suit 12-21
  (majors five cards, minors three);
* responses to a suit: raise 6-9 / 10-12 / game 13+, 1NT 6-9, 2NT 11-12,
  3NT 13-15, new suit at one level 6+ (four cards), at two level 10+;
* responses to 1NT: 2C Stayman 8+, 2D/2H/2S 0-7 to play, 2NT 8-9, 3NT 10-15,
  3H/3S 10-15 five cards, 4H/4S 10-15 six cards, 6NT 18+;
* opener's rebids: 1NT 12-14, 2NT jump 18-19, own suit 12-15 (six cards), jump
  16-18, raises 12-15 / 16-18 / 19-21, new suit 12-18;
* overcalls: one level 8-16, two level 11-16 (five cards), 1NT 15-18.

Anything else is read generically (a suit bid shows four cards, a rebid one more).

>>> from arena.bots.bridge.hand import Auction
>>> a = Auction.from_tokens(0, ["1N", "P"])
>>> s = shown(a, 0); (s.lo, s.hi, s.balanced)
(15, 17, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.bots.bridge.hand import FIRST_BID, Auction, bid_level, bid_strain

__all__ = ["Shown", "shown"]

NT = 4


@dataclass
class Shown:
    """What one seat's bids have shown."""

    lo: int = 0
    """Minimum high-card points."""
    hi: int = 37
    """Maximum high-card points."""
    lengths: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """Minimum length in each suit C, D, H, S."""
    balanced: bool = False
    stayman: bool = False
    """Asked with 2C over partner's 1NT."""
    bids: int = 0
    """Number of bids made."""

    def points(self) -> float:
        """A working estimate of the hand's high-card points."""
        if self.hi - self.lo <= 4:
            return (self.lo + self.hi) / 2
        return self.lo + 1.5

    def set_range(self, lo: int, hi: int) -> None:
        self.lo, self.hi = max(self.lo, lo), max(max(self.lo, lo), min(self.hi, hi))

    def need(self, suit: int, n: int) -> None:
        if suit < 4:
            self.lengths[suit] = max(self.lengths[suit], n)

    def assumed_length(self, suit: int) -> int:
        """Length to plan on: what was shown, or two in a balanced hand."""
        base = self.lengths[suit]
        if self.balanced:
            return max(base, 2 if suit >= 2 or base else 3)
        return base


def _side(a: int, b: int) -> bool:
    return (a - b) % 2 == 0


def shown(auction: Auction, seat: int) -> Shown:
    """Read every bid of ``seat`` in ``auction`` under the bot's system."""
    info = Shown()
    partner = (seat + 2) & 3
    first = -1          # first bid of the auction (any side)
    side_first = -1     # first bid of seat's side: (seat, call)
    partner_bids: list[int] = []
    mine: list[int] = []
    for s, c in auction.calls:
        if c < FIRST_BID:
            continue
        if s == seat:
            _read(info, c, mine, partner_bids, side_first == seat, first)
            mine.append(c)
            info.bids += 1
            if side_first == -1:
                side_first = seat
        elif s == partner:
            partner_bids.append(c)
            if side_first == -1:
                side_first = partner
        if first == -1:
            first = s
    return info


def _read(info: Shown, c: int, mine: list[int], partner_bids: list[int],
          opener: bool, first: int) -> None:
    level, strain = bid_level(c), bid_strain(c)
    if not mine and not partner_bids:
        if first == -1:  # an opening
            if strain == NT:
                if level == 1:
                    info.set_range(15, 17)
                elif level == 2:
                    info.set_range(20, 21)
                else:
                    info.set_range(22, 24)
                info.balanced = True
            elif level == 1:
                info.set_range(12, 21)
                info.need(strain, 5 if strain >= 2 else 3)
            else:
                info.set_range(6, 21)
                info.need(strain, 6)
        else:  # an overcall
            if strain == NT:
                info.set_range(15, 18)
                info.balanced = True
            elif level == 1:
                info.set_range(8, 16)
                info.need(strain, 5)
            elif level == 2:
                info.set_range(11, 16)
                info.need(strain, 5)
            else:
                info.set_range(11, 18)
                info.need(strain, 6)
        return
    if not mine:  # a response to partner
        _read_response(info, c, partner_bids[0])
        return
    if opener and len(mine) == 1 and partner_bids and bid_level(mine[0]) == 1 \
            and bid_strain(mine[0]) < NT:
        _read_rebid(info, c, mine[0], partner_bids[-1])
        return
    if not opener and len(mine) == 1 and len(partner_bids) >= 2 and bid_strain(partner_bids[0]) < NT:
        _read_responder_rebid(info, c, partner_bids, mine[0])
        return
    if len(mine) == 1 and mine[0] == 59 and partner_bids[:1] == [60] and level == 2:
        if strain in (2, 3):  # Stayman answers
            info.need(strain, 4)
        return
    # Generic later bids.
    if strain < NT:
        if any(bid_strain(b) == strain for b in mine):
            info.need(strain, max(info.lengths[strain] + 1, 5))
        elif any(bid_strain(b) == strain for b in partner_bids):
            info.need(strain, 3)
        else:
            info.need(strain, 4)


def _read_response(info: Shown, c: int, opening: int) -> None:
    level, strain = bid_level(c), bid_strain(c)
    olevel, ostrain = bid_level(opening), bid_strain(opening)
    if ostrain == NT and olevel == 1:
        if c == 60:  # 2C Stayman
            info.set_range(8, 37)
            info.stayman = True
        elif level == 2 and strain < NT:
            info.set_range(0, 7)
            info.need(strain, 5)
        elif level == 2:
            info.set_range(8, 9)
            info.balanced = True
        elif level == 3 and strain == NT:
            info.set_range(10, 15)
        elif level == 3:
            info.set_range(10, 15)
            info.need(strain, 5 if strain >= 2 else 6)
        elif level == 4 and strain in (2, 3):
            info.set_range(10, 15)
            info.need(strain, 6)
        elif level >= 6 and strain == NT:
            info.set_range(18, 21)
        else:
            info.set_range(10, 20)
        return
    if ostrain == NT:
        info.set_range(4, 12)
        if strain < NT:
            info.need(strain, 5)
        return
    if strain == ostrain:  # a raise
        info.need(strain, 3 if strain >= 2 else 4)
        if level <= 2:
            info.set_range(6, 9)
        elif level == 3:
            info.set_range(10, 12)
        else:
            info.set_range(13, 17)
        return
    if strain == NT:
        info.balanced = level > 1
        info.set_range(*{1: (6, 9), 2: (11, 12)}.get(level, (13, 15)))
        return
    jump = level > (olevel if strain > ostrain else olevel + 1)
    if jump:
        info.set_range(16, 37)
        info.need(strain, 5)
    elif level == 1:
        info.set_range(6, 37)
        info.need(strain, 4)
    else:
        info.set_range(10, 37)
        info.need(strain, 5 if strain == 2 and ostrain == 3 else 4)


def _read_rebid(info: Shown, c: int, opening: int, response: int) -> None:
    level, strain = bid_level(c), bid_strain(c)
    ostrain = bid_strain(opening)
    rlevel, rstrain = bid_level(response), bid_strain(response)
    cheapest = rlevel if strain > rstrain else rlevel + 1
    if rstrain == ostrain and strain == ostrain:  # partner raised; opener bids on
        if level == rlevel + 1:
            info.set_range(16, 18)
        else:
            info.set_range(18, 21)
        return
    if strain == NT:
        info.balanced = True
        if level == 1:
            info.set_range(12, 14)
        elif level == 2 and rlevel == 1:
            info.set_range(18, 19)
        elif level == 2:
            info.set_range(12, 14)
        else:
            info.set_range(15, 19)
    elif strain == ostrain:
        info.need(strain, 6)
        if level <= cheapest:
            info.set_range(12, 15)
        else:
            info.set_range(16, 18)
    elif strain == rstrain:
        info.need(strain, 4 if rstrain < 2 or rlevel == 1 else 3)
        extra = level - cheapest
        info.set_range(*((12, 15), (16, 18), (19, 21))[min(2, max(0, extra))])
        if rstrain in (2, 3) and level >= 4:
            info.set_range(19, 21)
    else:
        info.need(strain, 4)
        if level > cheapest or (level == 2 and strain > ostrain):
            info.set_range(17, 21)
        else:
            info.set_range(12, 18)


def _read_responder_rebid(info: Shown, c: int, partner_bids: list[int], response: int) -> None:
    level, strain = bid_level(c), bid_strain(c)
    last = partner_bids[-1]
    cheapest = bid_level(last) if strain > bid_strain(last) else bid_level(last) + 1
    jump = level > cheapest
    if strain == NT:
        info.balanced = True
        info.set_range(*{1: (6, 10), 2: (11, 12)}.get(level, (13, 15)))
    elif any(bid_strain(b) == strain for b in partner_bids):
        info.need(strain, 3)
        if level >= 4 and strain >= 2 or level >= 5:
            info.set_range(13, 17)
        elif jump:
            info.set_range(11, 12)
        else:
            info.set_range(6, 10)
    elif strain == bid_strain(response):
        info.need(strain, 6)
        if jump:
            info.set_range(11, 12)
        else:
            info.set_range(6, 10)
    else:
        info.need(strain, 4)
        info.set_range(11, 37)
