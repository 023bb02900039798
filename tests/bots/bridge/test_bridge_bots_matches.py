"""The bridge bots in real matches: legality, determinism, speed sanity and strength."""

from __future__ import annotations

import pytest

from arena.bots import list_bots, make_bot
from arena.games import get_game
from arena.games.bridge.scoring import imps
from arena.bots.evaluate import compare_bots, mean_interval
from arena.match.referee import run_match


@pytest.fixture(scope="module")
def game():  # type: ignore[no-untyped-def]
    return get_game("bridge")


def test_registered() -> None:
    assert {"random", "heuristic"} <= set(list_bots("bridge"))


def _play(game, names, seed):  # type: ignore[no-untyped-def]
    agents = [make_bot("bridge", n, seed=seed * 4 + i) for i, n in enumerate(names)]
    return run_match(game, agents, seed=seed, match_id=f"t{seed}", init={"board": seed % 16 + 1})


def test_heuristic_never_illegal(game) -> None:  # type: ignore[no-untyped-def]
    faults = 0
    for seed in range(200):
        faults += len(_play(game, ["heuristic"] * 4, seed).record.faults)
    for seed in range(200, 300):
        names = ["heuristic", "random"] if seed % 2 else ["random", "heuristic"]
        faults += len(_play(game, names * 2, seed).record.faults)
    assert faults == 0


def test_heuristic_is_deterministic(game) -> None:  # type: ignore[no-untyped-def]
    for seed in (3, 4, 5):
        a = _play(game, ["heuristic"] * 4, seed).record.actions
        b = _play(game, ["heuristic"] * 4, seed).record.actions
        assert [x.action for x in a] == [x.action for x in b]


def test_random_is_deterministic_given_its_seed(game) -> None:  # type: ignore[no-untyped-def]
    a = [x.action for x in _play(game, ["random"] * 4, 7).record.actions]
    b = [x.action for x in _play(game, ["random"] * 4, 7).record.actions]
    assert a == b
    state = game.new_initial_state(seed=7)
    agents = [make_bot("bridge", "random", seed=100 + i) for i in range(4)]
    c = [x.action for x in run_match(game, agents, seed=7).record.actions]
    assert c != a or len(state.legal_actions()) == 1


def test_uncontested_heuristic_reaches_sensible_levels(game) -> None:  # type: ignore[no-untyped-def]
    # With four heuristic bots the contracts stay sane: no grand slams on random deals,
    # and most boards are not passed out.
    levels = []
    for seed in range(60):
        obs = _play(game, ["heuristic"] * 4, seed).state.observation(0)
        levels.append(0 if obs.contract == "Pass" else int(obs.contract[0]))
    assert max(levels) <= 6
    assert sum(1 for x in levels if x == 0) < 20
    assert sum(1 for x in levels if x >= 3) >= 10


def test_heuristic_beats_random_in_imps(game) -> None:  # type: ignore[no-untyped-def]
    cmp = compare_bots(game, ["heuristic", "random"], deals=30, seed=11, keep_matches=False)
    assert cmp.faults == 0
    per_board = mean_interval([float(imps(round(r.margin))) for r in cmp.results
                               if r.margin is not None])
    assert per_board.low > 5.0, per_board
