"""Bridge's actions: cards and calls (pass, double, redouble, bids), their ids and the
auction rules.

Action ids (stable; shared with :mod:`arena.games.bridge.state`): ``0..51`` play the
card ``suit * 13 + rank`` (:func:`arena.core.cards.card_index`, text its token ``AS``),
and the calls:

====== ==========================================================
id     call
====== ==========================================================
52     ``P``  pass
53     ``X``  double
54     ``XX`` redouble
55..89 bids ``1C 1D 1H 1S 1N 2C ... 7N``: id = 55 + 5*(level-1) + strain
====== ==========================================================

Strains: C=0, D=1, H=2, S=3, N (notrump)=4. Call tokens write notrump as ``N``;
:meth:`Call.parse` also accepts ``NT``, ``Pass``, ``Double``/``Redouble`` and lower case.

The auction rules (rules/bridge.md section 4) are implemented twice: fast tables used by
the engine (:data:`AUCTION_LEGAL`) and :func:`call_illegal_reason`, which explains why a
call is illegal with a precise reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.errors import InvalidActionError

__all__ = [
    "PASS", "DOUBLE", "REDOUBLE", "FIRST_BID", "LAST_BID", "STRAINS", "Call",
    "bid_id", "bid_level", "bid_strain", "call_to_string", "string_to_call",
    "auction_legal_key", "AUCTION_LEGAL", "call_illegal_reason", "trick_winner",
]

PASS = 52
"""Action id of Pass."""
DOUBLE = 53
"""Action id of Double."""
REDOUBLE = 54
"""Action id of Redouble."""
FIRST_BID = 55
"""Action id of ``1C``."""
LAST_BID = 89
"""Action id of ``7N``."""
STRAINS = "CDHSN"
"""Strain characters in rank order; index = strain number."""


def bid_id(level: int, strain: int) -> int:
    """Action id of a bid (``level`` 1..7, ``strain`` 0..4)."""
    return FIRST_BID + 5 * (level - 1) + strain


def bid_level(action: int) -> int:
    """Level 1..7 of a bid id."""
    return (action - FIRST_BID) // 5 + 1


def bid_strain(action: int) -> int:
    """Strain 0..4 of a bid id."""
    return (action - FIRST_BID) % 5


_CALL_TEXT: tuple[str, ...] = ("P", "X", "XX") + tuple(
    f"{lv}{s}" for lv in range(1, 8) for s in STRAINS)


def call_to_string(action: int) -> str:
    """Canonical token of a call id (``P``, ``X``, ``XX``, ``1C`` .. ``7N``)."""
    return _CALL_TEXT[action - PASS]


_ALIASES = {"P": PASS, "PASS": PASS, "AP": PASS, "X": DOUBLE, "D": DOUBLE, "DBL": DOUBLE,
            "DOUBLE": DOUBLE, "XX": REDOUBLE, "R": REDOUBLE, "RDBL": REDOUBLE, "REDOUBLE": REDOUBLE}


def string_to_call(text: str) -> int:
    """Call id of a token (lenient: ``NT``, ``Pass``, lower case).

    :raises InvalidActionError: if the text is not a call.

    >>> string_to_call('3nt'), string_to_call('Pass'), string_to_call('XX')
    (69, 52, 54)
    """
    t = text.strip().upper()
    if t in _ALIASES:
        return _ALIASES[t]
    if t.endswith("NT"):
        t = t[:-1]
    if len(t) == 2 and t[0] in "1234567" and t[1] in STRAINS:
        return bid_id(int(t[0]), STRAINS.index(t[1]))
    raise InvalidActionError(f"{text!r} is not a call (P, X, XX or a bid 1C..7N)")


@dataclass(frozen=True, slots=True)
class Call:
    """A call as a value: ``Call.parse('4S')``; ``int(call)`` is its action id."""

    id: int
    """Action id, 52..89."""

    def __post_init__(self) -> None:
        if not PASS <= self.id <= LAST_BID:
            raise InvalidActionError(f"call id {self.id} is outside 52..89")

    @classmethod
    def parse(cls, text: str) -> Call:
        """Parse a call token; see :func:`string_to_call`."""
        return cls(string_to_call(text))

    @property
    def is_bid(self) -> bool:
        """Whether this call is a bid."""
        return self.id >= FIRST_BID

    @property
    def level(self) -> int:
        """Level of a bid (0 for other calls)."""
        return bid_level(self.id) if self.is_bid else 0

    @property
    def strain(self) -> int:
        """Strain of a bid (-1 for other calls)."""
        return bid_strain(self.id) if self.is_bid else -1

    def __int__(self) -> int:
        return self.id

    def __str__(self) -> str:
        return call_to_string(self.id)

    def __repr__(self) -> str:
        return f"Call.parse({str(self)!r})"


# -- fast legality tables ------------------------------------------------------
# Key: (last bid id or 54 when there is none) - 54, times 3, plus 0 (no double or
# redouble possible), 1 (double possible) or 2 (redouble possible).


def auction_legal_key(last_bid: int, can_double: bool, can_redouble: bool) -> int:
    """Index into :data:`AUCTION_LEGAL` (``last_bid`` = -1 when no bid was made)."""
    base = 0 if last_bid < 0 else last_bid - REDOUBLE
    return base * 3 + (1 if can_double else 2 if can_redouble else 0)


def _build_table() -> tuple[tuple[int, ...], ...]:
    rows: list[tuple[int, ...]] = []
    for base in range(0, LAST_BID - REDOUBLE + 1):
        first = FIRST_BID if base == 0 else REDOUBLE + base + 1
        for flag in range(3):
            extra = (DOUBLE,) if flag == 1 else (REDOUBLE,) if flag == 2 else ()
            rows.append((PASS,) + extra + tuple(range(first, LAST_BID + 1)))
    return tuple(rows)


AUCTION_LEGAL: tuple[tuple[int, ...], ...] = _build_table()
"""Sorted legal call ids for every :func:`auction_legal_key`."""


def call_illegal_reason(action: int, seat: int, last_bid: int, last_bidder: int,
                        doubled: int) -> str | None:
    """Why call ``action`` by ``seat`` is illegal, or ``None`` if it is legal.

    ``last_bid`` is the current bid id (-1 if none), ``last_bidder`` its seat and
    ``doubled`` 0, 1 (doubled) or 2 (redoubled).
    """
    if action == PASS:
        return None
    if action >= FIRST_BID:
        if last_bid >= 0 and action <= last_bid:
            return (f"insufficient bid: {call_to_string(action)} does not outrank the last bid "
                    f"{call_to_string(last_bid)} (a bid needs a higher level, or the same level "
                    f"and a higher strain)")
        return None
    if action == DOUBLE:
        if last_bid < 0:
            return "cannot double: no bid has been made"
        if (last_bidder - seat) % 2 == 0:
            return (f"cannot double: the last bid {call_to_string(last_bid)} was made by your "
                    f"own side")
        if doubled == 1:
            return f"cannot double: {call_to_string(last_bid)} is already doubled"
        if doubled == 2:
            return f"cannot double: {call_to_string(last_bid)} is already redoubled"
        return None
    if action == REDOUBLE:
        if last_bid < 0:
            return "cannot redouble: no bid has been made"
        if doubled == 0:
            return f"cannot redouble: {call_to_string(last_bid)} has not been doubled"
        if doubled == 2:
            return f"cannot redouble: {call_to_string(last_bid)} is already redoubled"
        if (last_bidder - seat) % 2 != 0:
            return ("cannot redouble: only the side whose bid was doubled may redouble; "
                    f"{call_to_string(last_bid)} is your opponents' bid")
        return None
    return f"action {action} is not a call"


def trick_winner(trump: int, cards: list[int], leader: int) -> int:
    """The seat winning a trick of four ``cards`` (ids, in playing order from seat
    ``leader``) with ``trump`` the trump suit (-1, or the notrump strain 4: none): the
    highest trump, else the highest card of the suit led (rules/bridge.md section 5).
    The one statement of the rule for every reader of card ids (the engine's
    observation, Blue Chip's table view, PBN's play section); the engine's own play
    reads a precomputed table built the same way."""
    best, bi = cards[0], 0
    for i in (1, 2, 3):
        c = cards[i]
        if c // 13 == best // 13:
            if c > best:
                best, bi = c, i
        elif c // 13 == trump:
            best, bi = c, i
    return (leader + bi) & 3
