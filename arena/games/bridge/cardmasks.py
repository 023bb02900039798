"""Hands as 52-bit integers: bit ``i`` set means the card with canonical index ``i``.

Card index = suit * 13 + rank (suit C=0 D=1 H=2 S=3, rank 2=0 .. A=12), as
:func:`arena.core.cards.card_index`. The tables here turn masks into sorted card
lists without per-bit Python loops.

>>> mask_to_tokens(tokens_to_mask(['AS', '2C', 'TH']))
['2C', 'TH', 'AS']
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.core.cards import STANDARD_TOKENS, card_index

__all__ = ["SUIT_MASK", "SUIT_CARDS", "mask_to_ids", "mask_to_tokens", "tokens_to_mask",
           "ids_to_mask", "deal_masks", "pbn_hand", "popcount"]

SUIT_MASK: tuple[int, ...] = tuple(0x1FFF << (13 * s) for s in range(4))
"""Mask of every card of suit ``s``."""


def _build_suit_cards() -> tuple[tuple[tuple[int, ...], ...], ...]:
    ranks: list[tuple[int, ...]] = [()] * 8192
    for m in range(1, 8192):
        high = m.bit_length() - 1
        ranks[m] = ranks[m ^ (1 << high)] + (high,)
    return tuple(tuple(tuple(r + 13 * s for r in rs) for rs in ranks) for s in range(4))


SUIT_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = _build_suit_cards()
"""``SUIT_CARDS[s][m]``: sorted card ids of suit ``s`` whose ranks are the 13-bit mask ``m``."""


def mask_to_ids(mask: int) -> list[int]:
    """Sorted card ids of a mask."""
    out: list[int] = []
    for s in range(4):
        sub = (mask >> (13 * s)) & 0x1FFF
        if sub:
            out.extend(SUIT_CARDS[s][sub])
    return out


def mask_to_tokens(mask: int) -> list[str]:
    """Card tokens of a mask, in canonical order."""
    return [STANDARD_TOKENS[i] for i in mask_to_ids(mask)]


def ids_to_mask(ids: Iterable[int]) -> int:
    """Mask of card ids."""
    m = 0
    for i in ids:
        m |= 1 << i
    return m


def tokens_to_mask(tokens: Iterable[str]) -> int:
    """Mask of card tokens."""
    return ids_to_mask(card_index(t) for t in tokens)


def popcount(mask: int) -> int:
    """Number of cards in a mask."""
    return bin(mask).count("1")


_INDEX = {tok: i for i, tok in enumerate(STANDARD_TOKENS)}


def deal_masks(deck: list[str], dealer: int) -> list[int]:
    """Hands of a dealt deck: card ``j`` goes to seat ``(dealer + 1 + j) mod 4``."""
    idx = _INDEX
    hands = [0, 0, 0, 0]
    for off in range(4):
        m = 0
        for tok in deck[off::4]:
            m |= 1 << idx[tok]
        hands[(dealer + 1 + off) & 3] = m
    return hands


def pbn_hand(mask: int) -> str:
    """A hand in PBN form ``spades.hearts.diamonds.clubs``, ranks high to low.

    >>> pbn_hand(tokens_to_mask(['AS', 'KS', 'TH', '2C']))
    'AK.T..2'
    """
    parts = []
    for s in (3, 2, 1, 0):
        sub = (mask >> (13 * s)) & 0x1FFF
        parts.append("".join("23456789TJQKA"[r] for r in range(12, -1, -1) if sub >> r & 1))
    return ".".join(parts)
