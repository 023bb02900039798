"""Calypso's pure rule functions: trick winner, automatic collection, scoring.

Cards here are card indexes 0..51 (``suit * 13 + rank``, suits C D H S, ranks
2..A as 0..12; see :mod:`arena.core.cards`). A player's calypso in progress is a
13-bit mask of ranks. These functions hold no state and are table-tested in
``tests/games/calypso/``.

>>> from arena.core.cards import card_index as ci
>>> trick_winner(1, [ci('9S'), ci('KS'), ci('9S'), ci('AS')])  # rules 5.2 example 1: N wins
0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "TRUMP",
    "FULL_CALYPSO",
    "CALYPSO_POINTS",
    "IN_PROGRESS_POINTS",
    "PILE_POINTS",
    "SEAT_NAMES",
    "SIDE_NAMES",
    "DEALS_PER_GAME",
    "TRICKS_PER_DEAL",
    "CARDS_PER_GAME",
    "MIN_SIDE_POINTS_PER_GAME",
    "DEFAULT_OPTIONS",
    "max_games",
    "is_trump",
    "trick_winner",
    "winning_position",
    "collect",
    "calypso_points",
    "player_points",
    "side_points",
]

TRUMP: tuple[int, int, int, int] = (2, 1, 3, 0)
"""Personal trump suit of each seat: N hearts (2), E diamonds (1), S spades (3), W clubs (0)."""
FULL_CALYPSO = (1 << 13) - 1
"""Rank mask of a complete calypso (all 13 ranks)."""
CALYPSO_POINTS: tuple[int, int, int, int] = (500, 750, 1000, 1000)
"""Points of a player's 1st, 2nd, 3rd and 4th completed calypso."""
IN_PROGRESS_POINTS = 20
"""Points per card of the calypso in progress at the end of a game."""
PILE_POINTS = 10
"""Points per card of a side's pile at the end of a game."""


SEAT_NAMES = ("N", "E", "S", "W")
"""Seat names in play order."""
SIDE_NAMES = ("NS", "EW")
"""Side names; seat ``s`` is on side ``s % 2``."""
DEALS_PER_GAME = 4
TRICKS_PER_DEAL = 13
CARDS_PER_GAME = 208
MIN_SIDE_POINTS_PER_GAME = 1040
"""Each of the 208 cards scores at least 10, so after g games some side has at least 1040 g."""
DEFAULT_OPTIONS = {"games": 1, "target_score": None, "first_dealer": 0}
"""The match options (section 8) and their defaults."""


def max_games(options: Mapping[str, Any]) -> int:
    """The most games a match of these options can take (``games``, or with
    ``target_score`` enough games for some side to reach it), after checking them.

    :raises ValueError: for an option out of its range.
    """
    games = options["games"]
    target = options["target_score"]
    first = options["first_dealer"]
    if type(games) is not int or games < 1:
        raise ValueError(f"calypso: games must be a positive integer, got {games!r}")
    if target is not None and (type(target) is not int or target < 1):
        raise ValueError(f"calypso: target_score must be a positive integer or None, got {target!r}")
    if type(first) is not int or not 0 <= first < 4:
        raise ValueError(f"calypso: first_dealer must be a seat 0..3, got {first!r}")
    return games if target is None else max(1, -(-target // MIN_SIDE_POINTS_PER_GAME))


def is_trump(position: int, seat: int, card: int, lead_suit: int) -> bool:
    """Whether ``card``, the ``position``-th card of a trick (0 = lead), played by
    ``seat``, counts as a trump: it is of ``seat``'s own suit and either led or
    played by a follower void in the suit led (rules 5.2)."""
    suit = card // 13
    return suit == TRUMP[seat] and (position == 0 or suit != lead_suit)


def winning_position(leader: int, cards: Sequence[int]) -> int:
    """Position (0 = lead) of the card winning the (possibly partial) trick so far.

    The highest trump wins; with no trump, the highest card of the suit led; at
    equal rank the earlier card wins.
    """
    lead_suit = cards[0] // 13
    best_trump = -1
    best_trump_rank = -1
    best_lead = 0
    best_lead_rank = cards[0] % 13
    for i, card in enumerate(cards):
        suit, rank = divmod(card, 13)
        seat = (leader + i) & 3
        if suit == TRUMP[seat] and (i == 0 or suit != lead_suit):
            if rank > best_trump_rank:
                best_trump, best_trump_rank = i, rank
        elif suit == lead_suit and rank > best_lead_rank:
            best_lead, best_lead_rank = i, rank
    return best_trump if best_trump >= 0 else best_lead


def trick_winner(leader: int, cards: Sequence[int]) -> int:
    """Seat that wins a trick led by ``leader`` with ``cards`` in playing order."""
    return (leader + winning_position(leader, cards)) & 3


def collect(winner: int, cards: Sequence[int], current: list[int],
            completed: list[int]) -> list[int]:
    """Collect a won trick (rules 6.2), updating ``current`` and ``completed`` in place.

    :param winner: the seat that won the trick.
    :param cards: the trick's cards in playing order.
    :param current: per-seat rank masks of the calypsos in progress (mutated).
    :param completed: per-seat numbers of completed calypsos (mutated).
    :returns: the cards that go onto the winning side's pile, in playing order
        (duplicates of the winner, then of the partner, then every other card).
    """
    pile: list[int] = []
    used = [False] * len(cards)
    for x in (winner, (winner + 2) & 3):
        suit = TRUMP[x]
        mask = current[x]
        dups: list[int] = []
        for i, card in enumerate(cards):
            if card // 13 != suit:
                continue
            used[i] = True
            bit = 1 << (card % 13)
            if mask & bit:
                dups.append(card)
            else:
                mask |= bit
        if mask == FULL_CALYPSO:
            completed[x] += 1
            mask = 0
            left = []
            for card in dups:
                bit = 1 << (card % 13)
                if mask & bit:
                    left.append(card)
                else:
                    mask |= bit
            dups = left
        current[x] = mask
        pile.extend(dups)
    pile.extend(card for i, card in enumerate(cards) if not used[i])
    return pile


def calypso_points(completed: int) -> int:
    """Points of ``completed`` finished calypsos of one player (500, 750, 1000, 1000)."""
    return sum(CALYPSO_POINTS[:completed])


def player_points(completed: int, in_progress: int) -> int:
    """Points of one player: completed calypsos plus 20 per card in progress."""
    return calypso_points(completed) + IN_PROGRESS_POINTS * in_progress


def side_points(players: Sequence[tuple[int, int]], pile_cards: int) -> int:
    """A side's game score from its players' ``(completed, in_progress)`` and its pile size.

    >>> side_points([(2, 5), (1, 12)], 48)  # rules section 7, NS
    2570
    """
    return sum(player_points(c, n) for c, n in players) + PILE_POINTS * pile_cards
