"""The built-in rummy bots: registered, deterministic, legal, and the heuristic sheds cards."""

from __future__ import annotations

from arena.bots import list_bots, make_bot
from arena.games import get_game
from arena.games.rummy import PASS, RummyAction
from arena.match.referee import run_match


def test_registered() -> None:
    assert {"random", "heuristic"} <= set(list_bots("rummy"))


def test_heuristic_plays_legal_and_wins_a_few_deals() -> None:
    game = get_game("rummy", players=2, deals=1)
    margin = 0.0
    for seed in range(3):
        for flip in (False, True):
            names = ["heuristic", "random"] if not flip else ["random", "heuristic"]
            agents = [make_bot("rummy", b, seed=seed) for b in names]
            result = run_match(game, agents, seed=seed, match_id=f"t{seed}{flip}", bot_names=names)
            assert not result.record.faults
            h = names.index("heuristic")
            margin += result.record.returns[h] - result.record.returns[1 - h]
    assert margin > 0


def test_heuristic_lays_the_most_cards() -> None:
    state = get_game("rummy", players=2).new_initial_state(seed=4)
    bot = make_bot("rummy", "heuristic")
    seat = state.current_player()
    obs = state.observation(seat)
    action = bot.act(obs, state.legal_actions())
    assert isinstance(action, RummyAction)
    state.validate(action)
    if action != PASS:
        # the initial meld: nothing listed lays more cards
        laid = sum(len(m) for m in action.layout or ())
        assert all(sum(len(m) for m in (a.layout or ())) <= laid for a in state.legal_actions())
