"""Stacked-deck scenarios for two-player rummy tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.core.cards import standard_deck
from arena.games import get_game
from arena.games.rummy import RummyAction, RummyState


def stacked_deck(seat1: Sequence[str], seat0: Sequence[str], draws: Sequence[str] = ()) -> list[str]:
    """A 104-card deck for 2 players (dealer 0): seat 1 gets ``seat1``, seat 0 ``seat0``
    (each topped up to 10 cards), then the stock starts with ``draws`` in order.

    Cards 0, 2, ..., 18 go to seat 1 and 1, 3, ..., 19 to seat 0; stock from 20.
    """
    rest = Counter(standard_deck(2))
    rest.subtract(Counter([*seat1, *seat0, *draws]))
    assert all(v >= 0 for v in rest.values()), "more copies than two packs hold"
    # fillers: high spades / clubs alternate so they rarely matter
    pool = [c for c in standard_deck(1)[::-1] for _ in range(2)]
    fillers: list[str] = []
    for c in pool:
        if rest[c] > 0:
            rest[c] -= 1
            fillers.append(c)
    h1 = list(seat1)
    h0 = list(seat0)
    while len(h1) < 10:
        h1.append(fillers.pop(0))
    while len(h0) < 10:
        h0.append(fillers.pop(0))
    deck = []
    for i in range(10):
        deck += [h1[i], h0[i]]
    deck += list(draws) + fillers
    assert sorted(deck) == sorted(standard_deck(2))
    return deck


def new_state(seat1: Sequence[str], seat0: Sequence[str], draws: Sequence[str] = (), **options: object) -> RummyState:
    game = get_game("rummy", players=2, **options)
    state = game.new_initial_state(deck=stacked_deck(seat1, seat0, draws))
    assert isinstance(state, RummyState)
    return state


def act(state: RummyState, text: str) -> None:
    state.apply_action(RummyAction.parse(text))


def hand(state: RummyState, seat: int) -> list[str]:
    return list(state.observation(seat).hand)


def table_text(state: RummyState) -> str:
    return " ".join("[" + " ".join(m) + "]" for m in state.observation(0).table)
