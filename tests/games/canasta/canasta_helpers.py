"""Stacked decks and scripted play for canasta tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.core.cards import sort_cards
from arena.games.canasta import CanastaAction, CanastaGame, CanastaState


def stack(game: CanastaGame, hands: dict[int, Sequence[str]], upcards: Sequence[str],
          draws: Sequence[str], first_dealer: int = 0, last: Sequence[str] = ()) -> list[str]:
    """A deck dealing ``hands`` (seat -> dealt cards), then ``upcards``, then ``draws``
    (stock cards in the order they will be drawn, replacements included), then the
    unused cards in canonical order, then ``last`` (the bottom of the stock)."""
    n = game.num_players
    size = game.rules.hand_size
    first = (first_dealer + 1) % n
    deal = [""] * (n * size)
    for seat, cards in hands.items():
        assert len(cards) == size, f"seat {seat} needs {size} cards"
        for k, c in enumerate(cards):
            deal[k * n + (seat - first) % n] = c
    assert all(deal), "every seat needs a hand"
    used = Counter(deal) + Counter(upcards) + Counter(draws) + Counter(last)
    full = Counter(game.full_deck())
    over = used - full
    assert not over, f"more copies than the deck holds: {over}"
    rest = sort_cards((full - used).elements())
    return deal + list(upcards) + list(draws) + rest + list(last)


def play(state: CanastaState, *texts: str) -> None:
    for t in texts:
        state.apply_action(CanastaAction.parse(t))


def draw_and_discard(state: CanastaState) -> str:
    """Draw from the stock and discard the card drawn; returns it."""
    seat = state.current_player()
    before = Counter(state.hands[seat])
    play(state, "draw")
    if state.current_player() != seat or state.phase.value != "play":
        return ""
    new = list((Counter(state.hands[seat]) - before).elements())
    play(state, f"discard {new[0]}")
    return new[0]
