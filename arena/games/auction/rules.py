"""Aukció rules: money values, purchasing power, payments, combinations, and a
match's make-up from its options (:func:`match_rules`).

Pure functions over card tokens (see :mod:`arena.core.cards`); the state machine
is in :mod:`arena.games.auction.state`. Amounts are points (multiples of 1000).

>>> purchasing_power(['6H', '4C', '3D', 'JK'])
19000
>>> payment_problem(['6H', '4C', '3D'], 9000)
'not minimal: without 3D the payment is still worth 10000 >= 9000'
>>> fallback_payment(['6H', '4C', '3D', 'JK'], 9000)
('6H', '4C')
>>> find_combination(['QS', 'QS', 'QH', 'QC'])
('QC', 'QH', 'QS')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.core.cards import JOKER, RANKS, SUITS, standard_deck

__all__ = [
    "DEFAULT_OPTIONS",
    "HAND_SIZE",
    "MatchRules",
    "PRESETS",
    "match_rules",
    "PICTURE_RANKS",
    "UNIT",
    "is_picture",
    "is_money",
    "money_value",
    "money_key",
    "sort_money",
    "picture_deck",
    "money_deck",
    "canonical_money_order",
    "purchasing_power",
    "payment_value",
    "payment_problem",
    "covers",
    "fallback_payment",
    "minimal_payments",
    "find_combination",
    "completed_combination",
    "COMBINATIONS",
]

PICTURE_RANKS = "JQKA"
"""Picture ranks in sequence order (J < Q < K < A, no wrap)."""
UNIT = 1000
"""Bids and values are multiples of this many points."""

_VALUE = {r: (RANKS.index(r) + 2) * UNIT for r in "23456789T"}
_SUIT = {s: i for i, s in enumerate(SUITS)}


def is_picture(token: str) -> bool:
    """Whether ``token`` is a picture card (J, Q, K, A)."""
    return token != JOKER and token[0] in PICTURE_RANKS


def is_money(token: str) -> bool:
    """Whether ``token`` is a money card (2 to 10, or a joker)."""
    return token == JOKER or token[0] in _VALUE


def money_value(token: str) -> int:
    """Face value in points of a number card (2C is 2000, TS 10000); 0 for a joker."""
    return _VALUE.get(token[0], 0) if token != JOKER else 0


def money_key(token: str) -> tuple[int, int]:
    """Display/payment order: higher value first, equal values in suit order C D H S, jokers last."""
    if token == JOKER:
        return (1, 0)
    return (-_VALUE[token[0]], _SUIT[token[1]])


def sort_money(tokens: Iterable[str]) -> list[str]:
    """Money tokens in :func:`money_key` order (e.g. ``6H 4C 3D JK``)."""
    return sorted(tokens, key=money_key)


def picture_deck(packs: int) -> list[str]:
    """Canonical picture stock: pack by pack, suits C D H S, ranks J Q K A."""
    return [t for t in standard_deck(packs) if is_picture(t)]


def money_deck(packs: int, jokers: int) -> list[str]:
    """Canonical money stock: pack by pack, suits C D H S, ranks 2 to T, then the jokers."""
    return [t for t in standard_deck(packs, jokers) if is_money(t)]


def canonical_money_order(tokens: Iterable[str]) -> list[str]:
    """A multiset of money cards in canonical order (how the paid pile is reshuffled).

    Copies are indistinguishable, so the k-th copy of a card is taken to belong to
    pack k: first copies in card order, then second copies, then the jokers. This is
    the order :func:`money_deck` would list the same cards in.
    """
    seen: Counter[str] = Counter()
    keyed = []
    jokers = 0
    for t in sorted(tokens, key=lambda t: (t == JOKER, _SUIT.get(t[1], 0), _VALUE.get(t[0], 0))):
        if t == JOKER:
            jokers += 1
            continue
        keyed.append((seen[t], _SUIT[t[1]], _VALUE[t[0]], t))
        seen[t] += 1
    keyed.sort()
    return [k[3] for k in keyed] + [JOKER] * jokers


def purchasing_power(tokens: Iterable[str]) -> int:
    """Sum of the number cards, plus the highest one again if a joker is held."""
    total = top = 0
    joker = False
    for t in tokens:
        if t == JOKER:
            joker = True
            continue
        v = _VALUE[t[0]]
        total += v
        if v > top:
            top = v
    return total + top if joker and top else total


def payment_value(tokens: Sequence[str]) -> int:
    """Value of a payment: its number cards, plus the highest again if it holds a joker."""
    return purchasing_power(tokens)


def payment_problem(tokens: Sequence[str], bid: int) -> str | None:
    """Why ``tokens`` is not a legal payment of ``bid`` (section 6), or ``None`` if it is.

    Holding the cards is checked by the caller.
    """
    numbers = [t for t in tokens if t != JOKER]
    jokers = len(tokens) - len(numbers)
    for t in tokens:
        if not is_money(t):
            return f"{t} is a picture card, not money"
    if not numbers:
        return "a payment needs at least one number card" + (" (a joker alone is worth 0)" if jokers else "")
    if jokers > 1:
        return f"at most one joker per payment, got {jokers}"
    value = payment_value(tokens)
    if value < bid:
        return f"payment worth {value} is below the winning bid {bid}"
    # Minimality: the removal that keeps the most value is the joker (if any) or the
    # lowest number card (see the module notes); report the first offending card.
    if jokers:
        rest = sum(_VALUE[t[0]] for t in numbers)
        if rest >= bid:
            return f"not minimal: without JK the payment is still worth {rest} >= {bid}"
    if len(numbers) >= 2:
        low = min(numbers, key=lambda t: (_VALUE[t[0]], _SUIT[t[1]]))
        rest_tokens = list(tokens)
        rest_tokens.remove(low)
        rest = payment_value(rest_tokens)
        if rest >= bid:
            return f"not minimal: without {low} the payment is still worth {rest} >= {bid}"
    return None


def fallback_payment(hand: Sequence[str], bid: int) -> tuple[str, ...]:
    """The deterministic fallback payment of section 6 (``bid`` must be within the hand's power).

    :raises ValueError: if the hand cannot pay ``bid``.
    """
    numbers = sorted((t for t in hand if t != JOKER), key=money_key)  # high first, C D H S
    chosen: list[str] = []
    total = 0
    for t in numbers:
        if total >= bid:
            break
        chosen.append(t)
        total += _VALUE[t[0]]
    if total < bid:
        if JOKER not in hand or purchasing_power(numbers + [JOKER]) < bid:
            raise ValueError(f"hand {' '.join(hand)} cannot pay {bid}")
        chosen = numbers + [JOKER]
    order = sorted((t for t in chosen if t != JOKER),
                   key=lambda t: (_VALUE[t[0]], _SUIT[t[1]])) + [t for t in chosen if t == JOKER]
    changed = True
    while changed:
        changed = False
        for t in order:
            if t not in chosen:
                continue
            rest = list(chosen)
            rest.remove(t)
            if covers(rest, bid):
                chosen = rest
                changed = True
                break
    return tuple(sort_money(chosen))


def covers(tokens: Sequence[str], bid: int) -> bool:
    """Whether ``tokens`` is a well-formed payment worth at least ``bid`` (minimality aside)."""
    numbers = sum(1 for t in tokens if t != JOKER)
    return numbers > 0 and len(tokens) - numbers <= 1 and payment_value(tokens) >= bid


def minimal_payments(hand: Sequence[str], bid: int, limit: int = 256) -> list[tuple[str, ...]]:
    """Legal payments of ``bid`` from ``hand``, one per multiset of values.

    Equal values use the hand's cards in suit order C D H S (any other choice of
    suits is equally legal). At most ``limit`` payments are generated (those whose
    number cards come first in a high-to-low enumeration); each is a token tuple in
    :func:`sort_money` order.
    """
    by_value: dict[int, list[str]] = {}
    joker = False
    for t in sort_money(hand):
        if t == JOKER:
            joker = True
        else:
            by_value.setdefault(_VALUE[t[0]], []).append(t)
    values = sorted(by_value, reverse=True)
    counts = [len(by_value[v]) for v in values]
    suffix = [0] * (len(values) + 1)
    for i in range(len(values) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + values[i] * counts[i]
    out: list[tuple[str, ...]] = []
    chosen: list[tuple[int, int]] = []  # (value index, count)

    def emit(with_joker: bool) -> None:
        cards: list[str] = []
        for i, k in chosen:
            cards.extend(by_value[values[i]][:k])
        if with_joker:
            cards.append(JOKER)
        out.append(tuple(cards))

    def dfs(start: int, total: int, ncards: int, top: int) -> None:
        if len(out) >= limit:
            return
        if ncards:
            low = values[chosen[-1][0]]
            if total >= bid:
                if total - low < bid:
                    emit(False)
                return
            if joker and total + top >= bid and (ncards == 1 or total - low + top < bid):
                emit(True)
        best_top = top if ncards else (values[start] if start < len(values) else 0)
        if total + suffix[start] + (best_top if joker else 0) < bid:
            return
        for i in range(start, len(values)):
            v = values[i]
            for k in range(counts[i], 0, -1):
                chosen.append((i, k))
                dfs(i + 1, total + v * k, ncards + k, top if ncards else v)
                chosen.pop()
                if len(out) >= limit:
                    return

    dfs(0, 0, 0, 0)
    return out


def _combinations(packs_suits: str = SUITS) -> list[tuple[str, ...]]:
    combos: list[tuple[str, ...]] = []
    for s in packs_suits:
        combos.append(("J" + s, "Q" + s, "K" + s))
        combos.append(("Q" + s, "K" + s, "A" + s))
    for r in PICTURE_RANKS:
        for skip in range(3, -1, -1):
            combos.append(tuple(r + s for i, s in enumerate(SUITS) if i != skip))
    return combos


COMBINATIONS: tuple[tuple[str, ...], ...] = tuple(_combinations())
"""All 24 winning three-card sets: J-Q-K and Q-K-A of each suit, then for each rank
every choice of three suits. A collection wins if it contains one of them."""


def find_combination(collection: Iterable[str]) -> tuple[str, ...] | None:
    """The first combination (in :data:`COMBINATIONS` order) the collection holds, or ``None``."""
    have = set(collection)
    for combo in COMBINATIONS:
        if have.issuperset(combo):
            return combo
    return None


_WITH: dict[str, tuple[tuple[str, ...], ...]] = {}
for _combo in COMBINATIONS:
    for _t in _combo:
        _WITH[_t] = _WITH.get(_t, ()) + (_combo,)


def completed_combination(collection: Iterable[str], new: str) -> tuple[str, ...] | None:
    """The first combination holding ``new`` that ``collection`` (which includes it) holds."""
    have = set(collection)
    for combo in _WITH.get(new, ()):
        if have.issuperset(combo):
            return combo
    return None


HAND_SIZE = 5
"""Money cards dealt to each player."""
DEFAULT_OPTIONS: dict[str, Any] = {"players": 4, "games": None}
"""The match options: 3 to 6 players, ``games`` games (``None``: one per seat)."""
PRESETS: dict[str, dict[str, Any]] = {f"{n}p": {"players": n, "games": 1} for n in (3, 4, 5, 6)}
"""One-game matches for 3 to 6 players (conformance, deal-by-deal comparisons); the
rules' full match is ``players=n`` with ``games`` left at its default (n)."""


@dataclass(frozen=True)
class MatchRules:
    """A match's make-up from its options (:func:`match_rules`)."""

    players: int
    games: int
    """Games per match."""
    packs: int
    jokers: int
    picture_canon: list[str]
    """The picture stock before its shuffle (:func:`picture_deck`)."""
    money_canon: list[str]
    """The money stock before its shuffle (:func:`money_deck`)."""


def match_rules(options: Mapping[str, Any]) -> MatchRules:
    """The match's make-up, after checking the options: one pack for 3 players, two
    for more, 3 jokers a pack.

    :raises ValueError: for an option out of its range.
    """
    n = options["players"]
    if isinstance(n, bool) or not isinstance(n, int) or not 3 <= n <= 6:
        raise ValueError(f"auction: players must be 3 to 6, got {n!r}")
    g = options["games"]
    if g is None:
        g = n
    if isinstance(g, bool) or not isinstance(g, int) or g < 1:
        raise ValueError(f"auction: games must be a positive integer, got {g!r}")
    packs = 1 if n == 3 else 2
    jokers = 3 * packs
    return MatchRules(n, g, packs, jokers, picture_deck(packs), money_deck(packs, jokers))
