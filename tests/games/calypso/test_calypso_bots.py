"""Calypso bots: legality, determinism, the strategy hints, and a small duplicate match."""

from __future__ import annotations

from calypso_helpers import new_state, play, stacked_deck

from arena.bots import list_bots, make_bot
from arena.core.cards import card_index
from arena.games import get_game
from arena.games.calypso import CalypsoState

N, E, S, W = 0, 1, 2, 3


def _play_out(state: CalypsoState, names: list[str], seed: int) -> CalypsoState:
    agents = [make_bot("calypso", names[s], seed=f"{seed}|{s}") for s in range(4)]
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = agents[seat].act(state.observation(seat), legal)
        assert action in legal
        state.apply_action(action)
    return state


def test_registry_lists_both_bots() -> None:
    assert {"random", "heuristic"} <= set(list_bots("calypso"))


def test_heuristic_is_legal_and_deterministic() -> None:
    game = get_game("calypso")
    a = _play_out(game.new_initial_state(seed=3), ["heuristic"] * 4, 1)  # type: ignore[arg-type]
    b = _play_out(game.new_initial_state(seed=3), ["heuristic"] * 4, 2)  # type: ignore[arg-type]
    assert a.history == b.history


def test_leads_own_trump_ace() -> None:
    # E leads with AD (own trump: nobody can beat it) among other cards.
    state = new_state(stacked_deck({"E": "AD 2C 5S KH 9C"}))
    bot = make_bot("calypso", "heuristic")
    assert bot.act(state.observation(E), state.legal_actions()) == card_index("AD")


def test_feeds_partner_calypso_when_partner_wins() -> None:
    # W leads a spade, N (void) trumps with 2H, E follows; S, void and last to
    # play, discards a heart N's calypso needs rather than a club or a diamond.
    deck = stacked_deck({"W": "5S", "N": "2H", "E": "6S", "S": "KH 3C 4D"},
                        first_dealer=S, avoid={"N": "S", "S": "S"})
    state = new_state(deck, first_dealer=S)
    play(state, "5S 2H 6S")  # N's 2H is the only trump: N is winning, S plays last
    bot = make_bot("calypso", "heuristic")
    choice = bot.act(state.observation(S), state.legal_actions())
    assert choice // 13 == 2  # a heart, which joins N's calypso


def test_heuristic_beats_random_in_duplicate() -> None:
    game = get_game("calypso")
    margin = 0.0
    for seed in (1, 2):
        for hero in (0, 1):
            names = ["heuristic" if s % 2 == hero else "random" for s in range(4)]
            final = _play_out(game.new_initial_state(seed=seed), names, seed)  # type: ignore[arg-type]
            r = final.returns()
            margin += r[hero] - r[1 - hero]
    assert margin > 0
