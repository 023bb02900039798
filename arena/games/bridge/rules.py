"""Bridge's rule options and the deal: presets, option checks, seat names, and the deck
that deals given hands. Scoring (vulnerability and dealer by board, contract scores,
IMPs) is :mod:`.scoring`; the calls and the auction rules are :mod:`.actions`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.core.cards import standard_deck

__all__ = ["DEFAULT_OPTIONS", "PRESETS", "SEATS", "check_options", "deck_of_hands"]

SEATS = "NESW"
"""Seat names by seat number."""

PRESETS: dict[str, dict[str, Any]] = {
    "duplicate": {"scoring": "duplicate"},
    "rubber": {"scoring": "rubber"},
}
DEFAULT_OPTIONS: dict[str, Any] = {
    "scoring": "duplicate",
    "honours": False,
    "rubbers": 1,
    "deal_cap": 30,
}
"""``scoring`` (``"duplicate"`` or ``"rubber"``), ``honours`` (rubber only), ``rubbers``
(rubbers per match), ``deal_cap`` (deals per rubber before it is scored as unfinished)."""


def check_options(o: Mapping[str, Any]) -> None:
    """:raises ValueError: for an option out of its range or one that does not apply."""
    if o["scoring"] not in ("duplicate", "rubber"):
        raise ValueError(f"bridge: scoring must be 'duplicate' or 'rubber', got {o['scoring']!r}")
    if not isinstance(o["honours"], bool):
        raise ValueError("bridge: honours must be true or false")
    if o["honours"] and o["scoring"] != "rubber":
        raise ValueError("bridge: honours are scored in rubber bridge only")
    for key in ("rubbers", "deal_cap"):
        if type(o[key]) is not int or o[key] < 1:
            raise ValueError(f"bridge: {key} must be an integer >= 1, got {o[key]!r}")


def deck_of_hands(hands: Any, dealer: int) -> list[str]:
    """The deck whose dealing from ``dealer`` (card ``j`` to seat ``(dealer + 1 + j)
    mod 4``) gives ``hands`` (N, E, S, W; 13 card tokens each, in any order: each
    hand is taken in canonical order).

    >>> from arena.core.cards import standard_deck
    >>> d = standard_deck()
    >>> deck = deck_of_hands([d[0:13], d[13:26], d[26:39], d[39:52]], 0)
    >>> deck[:4] == [d[13], d[26], d[39], d[0]]
    True

    :raises ValueError: unless the hands hold the 52 cards, 13 each.
    """
    order = {tok: i for i, tok in enumerate(standard_deck())}
    if not isinstance(hands, (list, tuple)) or len(hands) != 4 or any(
            not isinstance(h, (list, tuple)) or len(h) != 13 for h in hands):
        raise ValueError("bridge: hands= takes four hands (N, E, S, W) of 13 cards each")
    cards = [str(c) for h in hands for c in h]
    if sorted(cards, key=lambda c: order.get(c, -1)) != standard_deck():
        unknown = sorted(set(cards) - set(order))
        raise ValueError("bridge: the hands must hold every card once"
                         + (f"; unknown card(s) {', '.join(unknown)}" if unknown else ""))
    ordered = [sorted((str(c) for c in h), key=order.__getitem__) for h in hands]
    return [ordered[(dealer + 1 + j) % 4][j // 4] for j in range(52)]
