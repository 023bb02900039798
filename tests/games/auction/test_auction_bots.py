"""Built-in auction bots: registered, legal, deterministic, and the heuristic's rules."""

from __future__ import annotations

from arena.bots import list_bots, make_bot
from arena.games import get_game
from arena.games.auction import PASS, Bid, Pay, Phase
from arena.match.referee import run_match

from auction_helpers import stacked_state


def test_registered() -> None:
    assert {"random", "heuristic"} <= set(list_bots("auction"))


def test_bots_play_legally_and_deterministically() -> None:
    game = get_game("auction", preset="4p")
    for seed in (1, 2):
        names = ["heuristic", "random", "heuristic", "random"]
        runs = []
        for _ in range(2):
            agents = [make_bot("auction", b, seed=i) for i, b in enumerate(names)]
            res = run_match(game, agents, seed=seed)
            assert res.record.faults == []
            runs.append([a.action for a in res.record.actions])
        assert runs[0] == runs[1]


def _obs_for(state, seat):  # type: ignore[no-untyped-def]
    return state.observation(seat), state.legal_actions()


def test_heuristic_bids_everything_to_complete_its_combination() -> None:
    s = stacked_state(3, pictures=["JS", "AC", "QS", "AD", "KS"],
                      hands={0: ["2C", "2D", "2H", "2S", "3C"], 1: ["TC", "TD", "TH", "9C", "9D"],
                             2: ["3D", "3H", "3S", "4C", "4D"]})
    s.collections[1] = ["JS", "QS"]  # set up by hand: seat 1 needs only KS
    s.picture = "KS"
    bot = make_bot("auction", "heuristic", seed=0)
    assert s.current_player() == 1
    obs, legal = _obs_for(s, 1)
    action = bot.act(obs, legal)
    assert action == Bid(obs.purchasing_power)


def test_heuristic_blocks_an_opponent_one_card_away() -> None:
    s = stacked_state(3, pictures=["AS"],
                      hands={1: ["2C", "2D", "2H", "2S", "3C"], 2: ["3D", "3H", "3S", "4C", "4D"],
                             0: ["TC", "TD", "TH", "9C", "9D"]})
    assert s.picture == "AS" and s.current_player() == 1
    s.collections[0] = ["AC", "AD"]  # seat 0 (still to bid) would win with AS
    bot = make_bot("auction", "heuristic", seed=0)
    obs, legal = _obs_for(s, 1)
    assert bot.act(obs, legal) == Bid(obs.purchasing_power)
    # If the threatening seat has no chance to buy (barred), no block is needed.
    s.barred = 0
    s.order = [1, 2]
    obs, legal = _obs_for(s, 1)
    assert bot.act(obs, legal) != Bid(obs.purchasing_power) or obs.purchasing_power <= 5000


def test_heuristic_bids_the_minimum_when_last() -> None:
    s = stacked_state(3, pictures=["KD"])
    s.collections[0] = ["JD", "QD"]
    s.apply_action(Bid(1000))  # seat 1
    s.apply_action(PASS)       # seat 2
    bot = make_bot("auction", "heuristic", seed=0)
    obs, legal = _obs_for(s, 0)
    assert bot.act(obs, legal) == Bid(2000)


def test_heuristic_pays_keeping_most_power() -> None:
    s = stacked_state(3, pictures=["KD"], hands={1: ["6H", "4C", "3D", "2C", "JK"]})
    s.apply_action(Bid(9000))
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.phase is Phase.PAY
    bot = make_bot("auction", "heuristic", seed=0)
    obs, legal = _obs_for(s, 1)
    choice = bot.act(obs, legal)
    assert isinstance(choice, Pay) and choice in legal
    # 6H 4C leaves 3D 2C JK (8000); 6H JK leaves 4C 3D 2C (9000); 4C 3D 2C pays exactly
    # 9000 and leaves 6H JK (12000): the best.
    assert choice == Pay(("4C", "3D", "2C"))
