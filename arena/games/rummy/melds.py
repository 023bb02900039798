"""Cards and melds of robber rummy (rablórömi).

Cards are ids ``suit * 13 + rank`` (suit C=0 D=1 H=2 S=3, rank 2=0 ... A=12), the
same numbering as :func:`arena.core.cards.card_index`; a multiset of cards is a
list of 52 counts. Text uses the two-character tokens (``TH``, ``AS``).

A meld is a set (3-4 cards of one rank, all suits different) or a run (3-13
cards of one suit with consecutive ranks; the ace is either below the 2 or above
the king, never both). Canonical meld text: a run ascending, the ace first if the
run holds the 2 and last otherwise; a set in suit order C, D, H, S. Canonical
layout order: runs (by suit, then lowest rank with a low ace lowest, then shorter
first), then sets (by rank, then suit lists compared item by item, a prefix
first), then - only inside a refused proposal - invalid groups by their cards.

Actions are :mod:`.actions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from arena.core.cards import STANDARD_TOKENS

__all__ = [
    "TOKENS", "INDEX", "VALUE", "ACE",
    "card_value", "meld_problem", "is_meld", "canonical_meld", "meld_key", "meld_key_of", "meld_text",
    "canonical_layout", "meld_tokens",
    "counts_of", "cards_of", "format_meld",
]

TOKENS: tuple[str, ...] = STANDARD_TOKENS
"""Token of each card id 0..51."""
INDEX: dict[str, int] = {t: i for i, t in enumerate(TOKENS)}
"""Card id of each token."""
ACE = 12
"""Rank index of the ace."""
VALUE: tuple[int, ...] = tuple((r + 2 if r <= 8 else 10) for _s in range(4) for r in range(13))
"""Penalty value of each card id: 2-10 face value, J Q K A 10."""


def card_value(card: int) -> int:
    """Penalty value of a card id."""
    return VALUE[card]


def meld_problem(cards: Sequence[int]) -> str | None:
    """Why ``cards`` is not a valid meld, or ``None`` if it is one."""
    return _meld_problem(tuple(cards))


@lru_cache(maxsize=1 << 16)
def _meld_problem(cards: tuple[int, ...]) -> str | None:
    n = len(cards)
    if n < 3:
        return f"a meld needs at least 3 cards, this group has {n}"
    ranks = [c % 13 for c in cards]
    suits = [c // 13 for c in cards]
    if len(set(ranks)) == 1:
        if n > 4:
            return f"a set has at most 4 cards, this one has {n}"
        if len(set(suits)) != n:
            return "two cards of the same suit in a set"
        return None
    if len(set(suits)) != 1:
        return "neither a set (ranks differ) nor a run (suits differ)"
    if len(set(ranks)) != n:
        return "a rank repeated in a run"
    rs = sorted(ranks)
    if rs[-1] - rs[0] == n - 1:
        return None
    if rs[-1] == ACE:
        low = sorted(-1 if r == ACE else r for r in ranks)
        if low[-1] - low[0] == n - 1:
            return None
        if rs[0] == 0 and rs[-2] == 11:
            return "a run may not turn the corner (K-A-2)"
    return "ranks of the run are not consecutive"


def is_meld(cards: Sequence[int]) -> bool:
    """Whether ``cards`` is a valid set or run."""
    return meld_problem(cards) is None


def canonical_meld(cards: Iterable[int]) -> tuple[int, ...]:
    """Canonical order of a meld's cards (valid melds as documented; others sorted)."""
    cs = sorted(cards)
    if len(cs) >= 3 and meld_problem(cs) is None:
        if cs[0] % 13 == cs[-1] % 13:  # a set: already in suit order
            return tuple(cs)
        if cs[-1] % 13 == ACE and cs[0] % 13 == 0:  # run holding 2 and A: ace first
            return (cs[-1], *cs[:-1])
    return tuple(cs)


def meld_key(meld: Sequence[int]) -> tuple[int, int, tuple[int, ...]]:
    """Sort key of a canonical meld (runs, then sets, then invalid groups)."""
    return meld_key_of(tuple(meld))


@lru_cache(maxsize=1 << 16)
def meld_key_of(meld: tuple[int, ...]) -> tuple[int, int, tuple[int, ...]]:
    """:func:`meld_key` of a meld given as a tuple (memoized)."""
    if len(meld) >= 3 and meld_problem(meld) is None:
        if meld[0] % 13 == meld[1] % 13:  # a set
            return (1, meld[0] % 13, tuple(c // 13 for c in meld))
        first = meld[0] % 13
        low = -1 if first == ACE else first
        return (0, (meld[0] // 13) * 16 + low + 1, (len(meld),))
    return (2, 0, tuple(meld))


def canonical_layout(melds: Iterable[Iterable[int]]) -> tuple[tuple[int, ...], ...]:
    """Every meld in canonical form, melds in canonical order."""
    ms = [canonical_meld(m) for m in melds]
    ms.sort(key=meld_key)
    return tuple(ms)


def counts_of(cards: Iterable[int]) -> list[int]:
    """The 52-count multiset of card ids."""
    out = [0] * 52
    for c in cards:
        out[c] += 1
    return out


def cards_of(counts: Sequence[int]) -> list[int]:
    """Card ids of a 52-count multiset, in canonical order."""
    return [c for c in range(52) for _ in range(counts[c])]


def format_meld(meld: Iterable[int]) -> str:
    """``[7H 8H 9H]``."""
    return "[" + " ".join(TOKENS[c] for c in meld) + "]"


@lru_cache(maxsize=1 << 16)
def meld_tokens(meld: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(TOKENS[c] for c in meld)


@lru_cache(maxsize=1 << 16)
def meld_text(meld: tuple[int, ...]) -> str:
    """A group's text inside an action, ``[7H 8H 9H]`` (memoized)."""
    return "[" + " ".join(TOKENS[c] for c in meld) + "]"
