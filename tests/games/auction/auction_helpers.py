"""Stacked decks for auction tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from arena.games.auction import AuctionGame, AuctionState
from arena.games.auction.rules import money_deck, picture_deck


def _rest(canon: list[str], used: Sequence[str]) -> list[str]:
    left = Counter(canon)
    left.subtract(used)
    assert min(left.values()) >= 0, f"too many copies in {used}"
    out = []
    for t in canon:
        if left[t] > 0:
            out.append(t)
            left[t] -= 1
    return out


def stacked_state(players: int = 3, *, pictures: Sequence[str] = (),
                  hands: Mapping[int, Sequence[str]] | None = None,
                  stock: Sequence[str] = (), dealer: int = 0, games: int = 1,
                  exact_money: Sequence[str] | None = None) -> AuctionState:
    """A new game whose picture stock starts with ``pictures`` and whose seats hold ``hands``
    (5 cards each; seats not given get the next unused cards), followed by ``stock``."""
    assert dealer == 0, "the first game's dealer is seat 0"
    game = AuctionGame(players=players, games=games)
    packs = 1 if players == 3 else 2
    pics = list(pictures) + _rest(picture_deck(packs), pictures)
    canon = money_deck(packs, 3 * packs)
    if exact_money is not None:
        money = list(exact_money)
    else:
        hands = dict(hands or {})
        used = [c for h in hands.values() for c in h] + list(stock)
        spare = _rest(canon, used)
        seq: list[str] = []
        cursor = {s: list(h) for s, h in hands.items()}
        for j in range(5 * players):
            seat = (dealer + 1 + j) % players
            if seat in cursor:
                seq.append(cursor[seat].pop(0))
            else:
                seq.append(spare.pop(0))
        money = seq + list(stock) + spare
    state = game.new_initial_state(decks=[pics, money])
    assert isinstance(state, AuctionState)
    return state


def hand(state: AuctionState, seat: int) -> list[str]:
    return sorted(state.hand_tokens(seat))
