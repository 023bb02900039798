"""Hand evaluation and auction reading for the built-in bridge bots.

Cards are handled as action ids (``suit * 13 + rank``; suits C=0 D=1 H=2 S=3,
ranks 2=0 .. A=12), converted from the observation's tokens. Everything here is
pure and uses only what a seat may see.

>>> h = Hand.parse("AS KS 5S 3S AH QH 7H 4D 3D 2D 9C 8C 2C")
>>> h.hcp, h.lengths, h.balanced
(13, (3, 3, 3, 4), True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "RANKS", "SUITS", "STRAINS", "PASS", "DOUBLE", "REDOUBLE", "FIRST_BID",
    "card_id", "card_ids", "card_text", "bid_id", "bid_level", "bid_strain", "call_id",
    "Hand", "Auction",
]

RANKS = "23456789TJQKA"
SUITS = "CDHS"
STRAINS = "CDHSN"
PASS, DOUBLE, REDOUBLE, FIRST_BID = 52, 53, 54, 55
ACE, KING, QUEEN, JACK = 12, 11, 10, 9


def card_id(token: str) -> int:
    """Id of a card token such as ``AS`` (rank then suit).

    >>> card_id("2C"), card_id("AS")
    (0, 51)
    """
    cid = _CARD_IDS.get(token)
    if cid is None:
        return SUITS.index(token[1].upper()) * 13 + RANKS.index(token[0].upper())
    return cid


_CARD_IDS = {r + s: i * 13 + j for i, s in enumerate(SUITS) for j, r in enumerate(RANKS)}


def card_ids(tokens: Iterable[str]) -> list[int]:
    """Ids of card tokens, in the given order."""
    ids = _CARD_IDS
    try:
        return [ids[t] for t in tokens]
    except KeyError:
        return [card_id(t) for t in tokens]


def card_text(cid: int) -> str:
    """Token of a card id."""
    return RANKS[cid % 13] + SUITS[cid // 13]


def bid_id(level: int, strain: int) -> int:
    """Action id of a bid (level 1..7, strain 0..4)."""
    return FIRST_BID + 5 * (level - 1) + strain


def bid_level(call: int) -> int:
    """Level of a bid id."""
    return (call - FIRST_BID) // 5 + 1


def bid_strain(call: int) -> int:
    """Strain of a bid id."""
    return (call - FIRST_BID) % 5


def call_id(token: str) -> int:
    """Id of a call token (``P``, ``X``, ``XX``, ``1C`` .. ``7N``; ``NT`` accepted).

    >>> call_id("P"), call_id("1C"), call_id("3NT"), call_id("7N")
    (52, 55, 69, 89)
    """
    t = token.upper()
    if t in ("P", "PASS"):
        return PASS
    if t in ("X", "D", "DOUBLE"):
        return DOUBLE
    if t in ("XX", "R", "REDOUBLE"):
        return REDOUBLE
    return bid_id(int(t[0]), STRAINS.index(t[1]))


@dataclass(frozen=True, slots=True)
class Hand:
    """A hand's cards by suit (ranks high first) and its basic counts."""

    suits: tuple[tuple[int, ...], ...]
    """Ranks held in each suit C, D, H, S, highest first."""

    @classmethod
    def from_ids(cls, ids: Iterable[int]) -> Hand:
        """A hand from card ids."""
        by: list[list[int]] = [[], [], [], []]
        for c in ids:
            by[c // 13].append(c % 13)
        return cls(tuple(tuple(sorted(s, reverse=True)) for s in by))

    @classmethod
    def parse(cls, text: str | Sequence[str]) -> Hand:
        """A hand from card tokens (a list or a space-separated string)."""
        tokens = text.split() if isinstance(text, str) else text
        return cls.from_ids(card_ids(tokens))

    @property
    def lengths(self) -> tuple[int, int, int, int]:
        """Suit lengths C, D, H, S."""
        s = self.suits
        return (len(s[0]), len(s[1]), len(s[2]), len(s[3]))

    @property
    def hcp(self) -> int:
        """High-card points (A4 K3 Q2 J1)."""
        return sum(max(0, r - 8) for s in self.suits for r in s)

    def suit_hcp(self, suit: int) -> int:
        """High-card points in one suit."""
        return sum(max(0, r - 8) for r in self.suits[suit])

    @property
    def balanced(self) -> bool:
        """4333, 4432 or 5332."""
        shape = sorted(self.lengths)
        return shape[0] >= 2 and shape[1] >= 3 or shape == [2, 3, 3, 5]

    def shortness_points(self, trump: int) -> int:
        """Support points for shortness outside ``trump``: void 3, singleton 2, doubleton 1."""
        return sum((3, 2, 1)[n] for i, n in enumerate(self.lengths) if i != trump and n < 3)

    def length_points(self) -> int:
        """One point per card beyond four in each suit."""
        return sum(max(0, n - 4) for n in self.lengths)

    def stopper(self, suit: int) -> bool:
        """A, Kx, Qxx or Jxxx in ``suit``."""
        s = self.suits[suit]
        return bool(s) and (s[0] == ACE or (s[0] == KING and len(s) >= 2)
                            or (s[0] == QUEEN and len(s) >= 3) or (s[0] == JACK and len(s) >= 4))

    def quick_tricks(self, suit: int) -> float:
        """Defensive quick tricks in one suit (AK 2, AQ 1.5, A 1, KQ 1, Kx 0.5)."""
        s = self.suits[suit]
        if not s:
            return 0.0
        top = s[0]
        second = s[1] if len(s) > 1 else -1
        if top == ACE:
            return 2.0 if second == KING else 1.5 if second == QUEEN else 1.0
        if top == KING:
            return 1.0 if second == QUEEN else 0.5 if len(s) >= 2 else 0.0
        return 0.0

    def trump_tricks(self, suit: int) -> float:
        """Rough defensive tricks when ``suit`` is the opponents' trump suit."""
        s = self.suits[suit]
        n = len(s)
        honours = sum(1 for r in s if r >= QUEEN)
        t = self.quick_tricks(suit)
        # Length and middle honours in the opponents' trumps are worth extra tricks.
        if n >= 4:
            t += 1.0 + 0.5 * max(0, honours - 1)
        elif n == 3 and s[0] >= QUEEN:
            t += 0.5
        return t


@dataclass(frozen=True, slots=True)
class Auction:
    """The calls of a deal as (seat, call id), read from the observation."""

    dealer: int
    calls: tuple[tuple[int, int], ...]

    @classmethod
    def from_tokens(cls, dealer: int, tokens: Sequence[str]) -> Auction:
        """Read ``observation.auction``."""
        return cls(dealer, tuple(((dealer + i) & 3, call_id(t)) for i, t in enumerate(tokens)))

    def bids(self, seat: int | None = None) -> list[int]:
        """Bids (not passes or doubles), optionally of one seat only."""
        return [c for s, c in self.calls if c >= FIRST_BID and (seat is None or s == seat)]

    def last_bid(self) -> tuple[int, int]:
        """(seat, bid id) of the last bid, or (-1, -1)."""
        for s, c in reversed(self.calls):
            if c >= FIRST_BID:
                return s, c
        return -1, -1

    def doubled(self) -> int:
        """0, 1 or 2: the double state of the last bid."""
        d = 0
        for _, c in reversed(self.calls):
            if c >= FIRST_BID:
                return d
            if c == DOUBLE:
                d = max(d, 1)
            elif c == REDOUBLE:
                d = 2
        return d

    def doubler(self) -> int:
        """Seat that doubled the last bid (-1 if undoubled)."""
        for s, c in reversed(self.calls):
            if c >= FIRST_BID:
                return -1
            if c == DOUBLE:
                return s
        return -1

    def first_bidder(self) -> int:
        """Seat of the first bid (the opener), or -1."""
        for s, c in self.calls:
            if c >= FIRST_BID:
                return s
        return -1
