"""Table tests for Calypso's pure rules: trick winner (5.2), collection (6.2), scoring (7)."""

from __future__ import annotations

import pytest

from arena.core.cards import card_index, parse_cards
from arena.games.calypso.rules import (FULL_CALYPSO, calypso_points, collect, side_points,
                                       trick_winner, winning_position)

from calypso_helpers import WINNER_TABLE

N, E, S, W = 0, 1, 2, 3


def ids(text: str) -> list[int]:
    return [card_index(c) for c in parse_cards(text)]


def mask(ranks: str) -> int:
    return sum(1 << "23456789TJQKA".index(r) for r in ranks)


ALL_BUT = lambda ranks: FULL_CALYPSO & ~mask(ranks)  # noqa: E731



@pytest.mark.parametrize("leader,cards,winner,why", WINNER_TABLE, ids=[r[3] for r in WINNER_TABLE])
def test_trick_winner(leader: int, cards: str, winner: int, why: str) -> None:
    assert trick_winner(leader, ids(cards)) == winner, why


def test_partial_trick_winner() -> None:
    # After two cards of example 3, the leader's own trump still holds.
    assert winning_position(N, ids("5H 7D")) == 1
    assert winning_position(N, ids("5H TH")) == 0
    assert winning_position(E, ids("9S")) == 0


# --- collection (6.2) -------------------------------------------------------

def test_collection_example_a_duplicates_go_to_pile() -> None:
    current = [ALL_BUT("7A"), 0, 0, 0]
    completed = [0, 0, 0, 0]
    pile = collect(N, ids("7H 7H AS 3H"), current, completed)
    assert current[N] == ALL_BUT("A") and completed[N] == 0
    assert current[S] == mask("A")
    assert sorted(pile) == sorted(ids("7H 3H"))


def test_collection_example_a_partner_already_has_the_ace() -> None:
    current = [ALL_BUT("7A"), 0, mask("A"), 0]
    pile = collect(N, ids("7H 7H AS 3H"), current, [0, 0, 0, 0])
    assert sorted(pile) == sorted(ids("7H 3H AS"))


def test_collection_example_b_second_copies_start_next_calypso() -> None:
    current = [ALL_BUT("A"), 0, 0, 0]
    completed = [0, 0, 0, 0]
    pile = collect(S, ids("AH AH KH 4C"), current, completed)
    assert completed == [1, 0, 0, 0]
    assert current[N] == mask("AK") and current[S] == 0
    assert pile == ids("4C")


def test_collection_example_c_opponents_suits_to_pile() -> None:
    current = [0, 0, 0, 0]
    pile = collect(E, ids("5H 5H 5D 5C"), current, [0, 0, 0, 0])
    assert current == [0, mask("5"), 0, mask("5")]
    assert pile == ids("5H 5H")
    current = [0, mask("5"), 0, 0]
    pile = collect(E, ids("5H 5H 5D 5C"), current, [0, 0, 0, 0])
    assert current == [0, mask("5"), 0, mask("5")] and pile == ids("5D 5H 5H")


def test_collection_second_copy_already_in_new_calypso_goes_to_pile() -> None:
    # Decision 8: copies of a rank the new calypso already has go to the pile.
    current = [ALL_BUT("A"), 0, 0, 0]
    completed = [0, 0, 0, 0]
    pile = collect(N, ids("KH AH KH KH"), current, completed)
    assert completed[N] == 1 and current[N] == mask("K")
    assert pile == ids("KH KH")


def test_collection_completion_by_the_first_needed_card_in_playing_order() -> None:
    current = [0, 0, ALL_BUT("2"), 0]
    completed = [0, 0, 3, 0]
    pile = collect(N, ids("2S 2S 2S 9C"), current, completed)
    assert completed[S] == 4 and current[S] == mask("2")
    assert current[W] == 0 and pile == ids("2S 9C")


def test_collection_partner_processed_after_winner() -> None:
    current = [0, 0, 0, 0]
    pile = collect(N, ids("3S 4H 3S JD"), current, [0, 0, 0, 0])
    assert current == [mask("4"), 0, mask("3"), 0]
    assert pile == ids("3S JD")


# --- scoring (7) -------------------------------------------------------------

@pytest.mark.parametrize("players,pile,points", [
    ([(2, 5), (1, 12)], 48, 2570),   # worked example, NS
    ([(0, 9), (1, 3)], 79, 1530),    # worked example, EW
    ([(4, 0), (0, 0)], 0, 3250),     # all four calypsos of one player
    ([(0, 0), (0, 0)], 0, 0),
    ([(3, 0), (0, 1)], 1, 2250 + 20 + 10),
])
def test_side_points(players: list[tuple[int, int]], pile: int, points: int) -> None:
    assert side_points(players, pile) == points


def test_calypso_points_by_order() -> None:
    assert [calypso_points(k) for k in range(5)] == [0, 500, 1250, 2250, 3250]


def test_worked_example_card_count() -> None:
    # N 31 = 2*13 + 5, S 25 = 13 + 12, pile 48: 104 cards = 26 tricks.
    assert 2 * 13 + 5 + 13 + 12 + 48 == 104
    assert 9 + 13 + 3 + 79 == 104
