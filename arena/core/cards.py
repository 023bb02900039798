"""Card tokens, canonical orders and multi-deck multisets.

A card is written as a two-character token: rank ``2 3 4 5 6 7 8 9 T J Q K A``
followed by suit ``C D H S`` (``TH`` is the ten of hearts, ``AS`` the ace of
spades). The joker is ``JK``. Copies of the same card in multi-pack games cannot
be told apart, so hands and piles are multisets of tokens (:class:`collections.Counter`).

Canonical order (used for shuffling, display and card ids): pack by pack; within
a pack suits C, D, H, S; within a suit ranks 2 up to A; after all packs, the
jokers. The card index of a standard card is ``suit * 13 + rank`` with suit
C=0, D=1, H=2, S=3 and rank 2=0 ... A=12, so ``2C`` is 0 and ``AS`` is 51. This is
the id bridge and calypso use for cards.

>>> standard_deck()[:3]
['2C', '3C', '4C']
>>> card_index('AS'), card_token(0)
(51, '2C')
>>> len(standard_deck(packs=2, jokers=6))
110
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from enum import IntEnum

from arena.core.errors import InvalidActionError

__all__ = [
    "Suit",
    "Rank",
    "RANKS",
    "SUITS",
    "JOKER",
    "STANDARD_TOKENS",
    "card_index",
    "card_token",
    "card_rank",
    "card_suit",
    "is_card_token",
    "parse_card",
    "parse_cards",
    "format_cards",
    "standard_deck",
    "sort_cards",
    "Multiset",
    "multiset",
    "check_same_cards",
]

RANKS = "23456789TJQKA"
"""Rank characters, lowest first."""
SUITS = "CDHS"
"""Suit characters in canonical order: clubs, diamonds, hearts, spades."""
JOKER = "JK"
"""The joker token."""


class Suit(IntEnum):
    """Suits in canonical (and bridge ranking) order."""

    C = 0
    D = 1
    H = 2
    S = 3

    @property
    def symbol(self) -> str:
        """Unicode suit symbol, for display only."""
        return "\u2663\u2666\u2665\u2660"[self]

    def __str__(self) -> str:
        return self.name


class Rank(IntEnum):
    """Ranks, 2 lowest (0) to ace highest (12)."""

    R2 = 0
    R3 = 1
    R4 = 2
    R5 = 3
    R6 = 4
    R7 = 5
    R8 = 6
    R9 = 7
    T = 8
    J = 9
    Q = 10
    K = 11
    A = 12

    @property
    def char(self) -> str:
        """The rank's token character (``2`` ... ``9``, ``T``, ``J``, ``Q``, ``K``, ``A``)."""
        return RANKS[self]

    def __str__(self) -> str:
        return self.char


STANDARD_TOKENS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""The 52 standard tokens in canonical order; ``STANDARD_TOKENS[i]`` has card index ``i``."""

_INDEX = {tok: i for i, tok in enumerate(STANDARD_TOKENS)}


def is_card_token(token: str, *, jokers: bool = False) -> bool:
    """Whether ``token`` is a valid card token (``JK`` only when ``jokers``)."""
    return token in _INDEX or (jokers and token == JOKER)


def parse_card(token: str, *, jokers: bool = False) -> str:
    """Validate a token and return it in canonical spelling (upper case).

    Lower case is accepted and ``10`` is accepted for ``T``.

    :raises InvalidActionError: if the text is not a card token.

    >>> parse_card('th'), parse_card('10S')
    ('TH', 'TS')
    """
    if not isinstance(token, str):
        raise InvalidActionError(f"card token must be a string, got {type(token).__name__}")
    t = token.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if t in _INDEX or (jokers and t == JOKER):
        return t
    raise InvalidActionError(
        f"{token!r} is not a card token (rank 2-9,T,J,Q,K,A then suit C,D,H,S"
        + (", or JK)" if jokers else ")")
    )


def parse_cards(text: str | Iterable[str], *, jokers: bool = False) -> list[str]:
    """Parse whitespace- or comma-separated tokens (or an iterable of tokens)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t, jokers=jokers) for t in items]


def format_cards(cards: Iterable[str]) -> str:
    """Tokens joined by single spaces, in the order given."""
    return " ".join(cards)


def card_index(token: str) -> int:
    """Canonical index 0..51 of a standard token (``2C`` = 0, ``AS`` = 51).

    :raises InvalidActionError: for a joker or a malformed token.
    """
    try:
        return _INDEX[token]
    except KeyError:
        raise InvalidActionError(f"{token!r} is not a standard card token") from None


def card_token(index: int) -> str:
    """Token of a canonical card index 0..51."""
    if not 0 <= index < 52:
        raise InvalidActionError(f"card index {index} is outside 0..51")
    return STANDARD_TOKENS[index]


def card_rank(token: str) -> Rank:
    """Rank of a standard token."""
    return Rank(RANKS.index(token[0]))


def card_suit(token: str) -> Suit:
    """Suit of a standard token."""
    return Suit(SUITS.index(token[1]))


def _sort_key(token: str) -> int:
    return _INDEX.get(token, 52)


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Tokens sorted in canonical order (jokers last)."""
    return sorted(cards, key=_sort_key)


def standard_deck(packs: int = 1, jokers: int = 0) -> list[str]:
    """The canonical list: ``packs`` standard packs in canonical order, then ``jokers`` jokers."""
    if packs < 0 or jokers < 0:
        raise ValueError("packs and jokers must be non-negative")
    return list(STANDARD_TOKENS) * packs + [JOKER] * jokers


Multiset = Counter
"""A multiset of card tokens (token -> count)."""


def multiset(cards: Iterable[str]) -> Counter[str]:
    """The multiset of the given tokens."""
    return Counter(cards)


def check_same_cards(cards: Sequence[str], expected: Sequence[str], what: str = "deck") -> None:
    """Check that ``cards`` is a permutation of ``expected`` (as multisets).

    :raises InvalidActionError: naming the surplus and missing cards.
    """
    got, want = Counter(cards), Counter(expected)
    if got == want:
        return
    surplus = sorted((got - want).elements(), key=_sort_key)
    missing = sorted((want - got).elements(), key=_sort_key)
    parts = []
    if surplus:
        parts.append("unexpected " + " ".join(surplus))
    if missing:
        parts.append("missing " + " ".join(missing))
    raise InvalidActionError(f"{what} of {len(cards)} cards is not a permutation of the expected "
                             f"{len(expected)} cards: " + "; ".join(parts))
