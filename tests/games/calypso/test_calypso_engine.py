"""Calypso engine on stacked decks: dealing, trick winner, collection, carry-over, scoring."""

from __future__ import annotations

import pytest
from calypso_helpers import WINNER_TABLE, new_state, play, stacked_deck

from arena.core.cards import card_index, parse_cards, standard_deck
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.games import get_game
from arena.games.calypso import CalypsoGame, CalypsoState
from arena.games.calypso.rules import collect, trick_winner
from arena.testing.conformance import random_playout

N, E, S, W = 0, 1, 2, 3


def test_dealing_positions_and_leader() -> None:
    deck = standard_deck(packs=4)  # unshuffled, as a stacked deck
    state = new_state(deck)
    # Deal 0, dealer N: position i goes to seat (1 + i) mod 4; E leads.
    assert state.dealer_seat == N and state.current_player() == E
    for seat in range(4):
        expect = sorted(card_index(deck[i]) for i in range(52) if (1 + i) % 4 == seat)
        got = [c for c in range(52) for _ in range(state.hands[seat][c])]
        assert got == expect
    assert state.observation(0).undealt == 156
    for _ in range(52):
        state.apply_action(state.default_action())
    # Deal 1 uses positions 52..103, dealer E, S receives first and leads.
    assert state.deal == 1 and state.dealer_seat == E and state.current_player() == S
    for seat in range(4):
        expect = sorted(card_index(deck[52 + i]) for i in range(52) if (2 + i) % 4 == seat)
        assert [c for c in range(52) for _ in range(state.hands[seat][c])] == expect


def test_first_dealer_option() -> None:
    state = new_state(standard_deck(packs=4), first_dealer=2)
    assert state.dealer_seat == S and state.current_player() == W


@pytest.mark.parametrize("leader,cards,winner,why", WINNER_TABLE, ids=[r[3] for r in WINNER_TABLE])
def test_trick_winner_in_play(leader: int, cards: str, winner: int, why: str) -> None:
    toks = parse_cards(cards)
    lead_suit = toks[0][1]
    hands, avoid = {}, {}
    for i, tok in enumerate(toks):
        letter = "NESW"[(leader + i) % 4]
        hands[letter] = tok
        if i and tok[1] != lead_suit:
            avoid[letter] = lead_suit  # a void follower
    dealer = (leader - 1) % 4
    state = new_state(stacked_deck(hands, first_dealer=dealer, avoid=avoid), first_dealer=dealer)
    assert state.current_player() == leader
    play(state, cards)
    assert state.tricks[-1].winner == winner, why
    assert state.current_player() == winner
    # The collection the engine did equals the pure function's.
    current, completed = [0, 0, 0, 0], [0, 0, 0, 0]
    pile = collect(winner, [card_index(t) for t in toks], current, completed)
    assert state.current == current and state.completed == completed
    assert len(state.piles[winner % 2]) == len(pile) and state.piles[1 - winner % 2] == []
    assert state.tricks_won[winner % 2] == 1


def test_collection_example_a() -> None:
    deck = stacked_deck({"N": "2H 6H JH 7H", "E": "3H 8H QH AS", "S": "4H 9H KH 7H",
                         "W": "5H TH 4H 3H"}, first_dealer=W, avoid={"E": "H"})
    state = new_state(deck, first_dealer=W)
    play(state, "2H 3H 4H 5H  6H 8H 9H TH  JH QH KH 4H")
    obs = state.observation(E)
    assert obs.calypsos[N] == tuple(parse_cards("2H 3H 4H 5H 6H 8H 9H TH JH QH KH"))
    assert obs.pile_sizes == (1, 0)
    play(state, "7H AS 7H 3H")
    obs = state.observation(E)
    assert [t.winner for t in obs.tricks] == [N, N, N, N]
    assert len(obs.calypsos[N]) == 12 and "AH" not in obs.calypsos[N]
    assert obs.completed == (0, 0, 0, 0)
    assert obs.calypsos[S] == ("AS",)
    assert obs.pile_sizes == (3, 0)
    assert sorted(state.piles[0]) == sorted(card_index(t) for t in ("4H", "7H", "3H"))


def test_collection_example_b() -> None:
    deck = stacked_deck({"S": "KH QH JH AH", "W": "2H 5H 8H AH", "N": "3H 6H 9H 4C",
                         "E": "4H 7H TH KH"}, first_dealer=E, avoid={"N": "H"})
    state = new_state(deck, first_dealer=E)
    play(state, "KH 2H 3H 4H  QH 5H 6H 7H  JH 8H 9H TH")
    obs = state.observation(N)
    assert [t.winner for t in obs.tricks] == [S, S, S]
    assert len(obs.calypsos[N]) == 12 and obs.calypsos[S] == ()
    play(state, "AH AH 4C KH")
    obs = state.observation(N)
    assert obs.tricks[-1].winner == S
    assert obs.completed == (1, 0, 0, 0)
    assert obs.calypsos[N] == ("KH", "AH")
    assert obs.pile_sizes == (1, 0) and state.piles[0] == [card_index("4C")]
    assert obs.game_points == (500 + 2 * 20 + 10, 0)


def test_collection_example_c_and_equal_rank_trumps() -> None:
    deck = stacked_deck({"E": "5D", "S": "5H", "W": "5C", "N": "5H"}, first_dealer=N,
                        avoid={"S": "D", "W": "D", "N": "D"})
    state = new_state(deck)
    play(state, "5D 5H 5C 5H")
    obs = state.observation(S)
    assert obs.tricks[-1].winner == E  # trumps 5D (leader), 5C, 5H all rank 5: E first
    assert obs.calypsos[E] == ("5D",) and obs.calypsos[W] == ("5C",)
    assert obs.calypsos[N] == () and obs.pile_sizes == (0, 2)
    assert obs.game_points == (0, 20 + 20 + 20)


def test_calypsos_and_piles_carry_over_between_deals() -> None:
    state = get_game("calypso").new_initial_state(seed=11)
    assert isinstance(state, CalypsoState)
    while state.trick_in_deal < 12 or len(state.trick) < 3:
        state.apply_action(state.default_action())
    before_cur, before_done = list(state.current), list(state.completed)
    piles = [len(p) for p in state.piles]
    cards = state.trick + [state.default_action()]
    winner = trick_winner(state.leader, cards)
    pile = collect(winner, cards, before_cur, before_done)
    state.apply_action(state.default_action())
    assert state.deal == 1 and state.trick_in_deal == 0
    assert state.current == before_cur and state.completed == before_done
    piles[winner % 2] += len(pile)
    assert [len(p) for p in state.piles] == piles
    assert sum(bin(m).count("1") for m in state.current) > 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_card_is_counted_once(seed: int) -> None:
    game = get_game("calypso")
    state = random_playout(game, seed)
    assert isinstance(state, CalypsoState)
    for side in (0, 1):
        seats = (side, side + 2)
        cards = len(state.piles[side]) + sum(13 * state.completed[s] + state.current[s].bit_count()
                                             for s in seats)
        assert cards == 4 * state.tricks_won[side]
    assert sum(state.tricks_won) == 52
    ns, ew = state.returns()[:2]
    assert state.returns() == [ns, ew, ns, ew]
    assert (ns, ew) == state.game_points() == tuple(state.totals)


def test_follow_suit_and_reasons() -> None:
    deck = stacked_deck({"E": "9S", "S": "KS 2C"})
    state = new_state(deck)
    play(state, "9S")
    with pytest.raises(IllegalActionError, match="does not follow suit: 9S was led and you hold spades"):
        state.apply_action(card_index("2C"))
    missing = next(c for c in range(52) if not state.hands[S][c])
    with pytest.raises(IllegalActionError, match="is not in your hand"):
        state.apply_action(missing)
    assert all(c // 13 == 3 for c in state.legal_actions())
    with pytest.raises(InvalidActionError):
        state.string_to_action("XX")
    with pytest.raises(InvalidActionError):
        state.apply_action(52)
    assert state.string_to_action("play ks") == card_index("KS")
    assert state.string_to_action("10S") == card_index("TS")


def test_void_player_may_play_anything_and_default_is_first_canonical() -> None:
    deck = stacked_deck({"E": "9S"}, avoid={"S": "S"})
    state = new_state(deck)
    play(state, "9S")
    legal = state.legal_actions()
    assert legal == sorted(c for c in range(52) if state.hands[S][c])
    assert state.default_action() == legal[0]


def test_observation_shows_only_own_hand() -> None:
    state = get_game("calypso").new_initial_state(seed=4)
    for _ in range(30):
        state.apply_action(state.default_action())
    obs = [state.observation(s).to_dict() for s in range(4)]
    for s in range(4):
        assert tuple(obs[s]["hand"]) == state.observation(s).hand
        assert len(obs[s]["hand"]) == obs[s]["hand_sizes"][s]
        public = {k: v for k, v in obs[s].items() if k not in ("seat", "hand")}
        assert public == {k: v for k, v in obs[0].items() if k not in ("seat", "hand")}
    hidden = state.hidden_positions(0)
    assert len(hidden) == sum(state.hand_sizes[1:]) + 156
    assert all(p >= 52 or (1 + p) % 4 != 0 for _, p in hidden)


def test_two_game_match() -> None:
    game = get_game("calypso", games=2)
    state = random_playout(game, 5)
    assert isinstance(state, CalypsoState)
    assert len(state.dealer.realized) == 2 and len(state.game_results) == 2
    assert state.totals == [sum(g[0] for g in state.game_results), sum(g[1] for g in state.game_results)]
    assert len(state.history) == 416 and state.match_deal == 7 and state.dealer_seat == W
    sheet = game.score_sheet(state)
    assert len(sheet) == 16 and sheet[-1]["total"] == state.totals[1]
    assert sheet[8]["game"] == 2 and sheet[8]["deal"] == 1
    # The second game starts afresh with dealer N again (the deal keeps rotating).
    s2 = game.new_initial_state(seed=5)
    while s2.game_index == 0:
        s2.apply_action(s2.default_action())
    assert s2.dealer_seat == N and s2.current == [0, 0, 0, 0] and s2.piles == [[], []]
    assert s2.observation(1).game_number == 1 and s2.observation(1).scores == tuple(s2.totals)


def test_target_score_plays_whole_games_until_reached() -> None:
    game = CalypsoGame(target_score=4000)
    assert game.max_game_length == 208 * 4
    state = random_playout(game, 6)
    assert isinstance(state, CalypsoState)
    assert max(state.totals) >= 4000
    assert all(max(sum(g[i] for g in state.game_results[:k]) for i in (0, 1)) < 4000
               for k in range(1, len(state.game_results)))


def test_options_are_validated() -> None:
    with pytest.raises(ValueError, match="games"):
        CalypsoGame(games=0)
    with pytest.raises(ValueError, match="first_dealer"):
        CalypsoGame(first_dealer=4)
    with pytest.raises(ValueError, match="unknown option"):
        CalypsoGame(packs=2)


def test_describe_and_score_sheet() -> None:
    game = get_game("calypso")
    state = random_playout(game, 7)
    sheet = game.score_sheet(state)
    assert [(r["deal"], r["side"]) for r in sheet[:4]] == [(1, "NS"), (1, "EW"), (2, "NS"), (2, "EW")]
    assert set(sheet[0]) == {"game", "deal", "side", "tricks", "calypsos", "in progress",
                             "pile cards", "points", "total"}
    ns, ew = state.totals
    assert sheet[-2]["points"] == ns and sheet[-1]["points"] == ew
    assert game.describe(state).startswith(f"NS {ns} - EW {ew} after 1 game")
    assert game.teams() == [[0, 2], [1, 3]] and game.seat_name(3) == "W"
