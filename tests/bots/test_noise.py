"""The strength knob: ``heuristic?noise=p`` for every game (arena.bots.noise)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.bots import NoisyAgent, check_bot_spec, make_bot, parse_bot_spec
from arena.games import get_game, list_games
from arena.match import run_match

GAMES = list_games()
PRESETS = {"rummy": "2p"}
"""Smaller tables where a game's heuristic is slow (rummy's meld solver)."""


def _game(name: str) -> Any:
    return get_game(name, **({"preset": PRESETS[name]} if name in PRESETS else {}))


def _play(game_name: str, spec: str, seed: int = 3) -> tuple[list[object], list[NoisyAgent | object]]:
    game = _game(game_name)
    agents = [make_bot(game_name, spec, seed=f"s{seat}") for seat in range(game.num_players)]
    result = run_match(game, agents, seed=seed, match_id=f"m-{game_name}", deadline_ms=60_000)
    actions = [a.get("action") if isinstance(a, dict) else a for a in result.record.to_dict()["actions"]]
    return actions, agents


def test_games_are_all_covered() -> None:
    assert set(GAMES) >= {"bridge", "canasta", "calypso", "rummy", "auction"}


@pytest.mark.parametrize("game_name", GAMES)
def test_noise_zero_is_the_heuristic_and_noise_is_seeded(game_name: str) -> None:
    plain, _ = _play(game_name, "heuristic")
    zero, agents = _play(game_name, "heuristic?noise=0")
    assert zero == plain
    assert agents[0].name == "heuristic"  # noise 0 is the bot itself, not a wrapper
    noisy1, a1 = _play(game_name, "heuristic?noise=0.5")
    noisy2, _ = _play(game_name, "heuristic?noise=0.5")
    assert noisy1 == noisy2, "same spec and seeds, same decisions"
    assert all(isinstance(a, NoisyAgent) for a in a1)
    assert sum(a.noisy_decisions for a in a1) > 0  # type: ignore[union-attr]
    assert noisy1 != plain


@pytest.mark.parametrize("game_name", GAMES)
def test_noise_fraction_follows_p(game_name: str) -> None:
    """Over the decisions of a match, the share taken at random is near p."""
    game = _game(game_name)
    agents = [NoisyAgent(make_bot(game_name, "heuristic", seed=s), 0.3, seed=s) for s in range(game.num_players)]
    asked = [0] * len(agents)
    for i, a in enumerate(agents):
        inner_act = a.act

        def counting(obs: object, legal: object, _i: int = i, _f: object = inner_act) -> object:
            asked[_i] += 1
            return _f(obs, legal)  # type: ignore[operator]
        a.act = counting  # type: ignore[method-assign]
    for seed in range(1 if game_name in PRESETS else 3):
        run_match(game, agents, seed=seed, match_id=f"frac-{seed}", deadline_ms=60_000)
    total, noisy = sum(asked), sum(a.noisy_decisions for a in agents)
    assert total >= 20
    share = noisy / total
    # binomial: 0.3 +- 4.5 sigma
    sigma = (0.3 * 0.7 / total) ** 0.5
    assert abs(share - 0.3) < 4.5 * sigma + 0.02, (noisy, total)


def test_noise_one_is_uniform_over_legal_actions() -> None:
    from arena.bots.base import Agent

    class Never(Agent):
        def act(self, observation: object, legal_actions: object) -> object:  # type: ignore[override]
            raise AssertionError("a noise-1 bot never asks the wrapped bot")

    agent = NoisyAgent(Never(), 1.0, seed=9)
    counts = {a: 0 for a in range(4)}
    for _ in range(4000):
        counts[agent.act(None, (0, 1, 2, 3))] += 1  # type: ignore[index]
    assert all(900 < c < 1100 for c in counts.values()), counts


def test_no_global_random_state_is_used() -> None:
    random.seed(1)
    a, _ = _play("calypso", "heuristic?noise=0.4")
    random.seed(2)
    b, _ = _play("calypso", "heuristic?noise=0.4")
    assert a == b


def test_specs_and_bad_options() -> None:
    assert check_bot_spec("bridge", "heuristic", {"noise": 0.30}) == "heuristic?noise=0.3"
    assert check_bot_spec("bridge", "heuristic?noise=0.3") == "heuristic?noise=0.3"
    assert parse_bot_spec("random") == ("random", {})
    with pytest.raises(ValueError, match="noise: must be a probability"):
        check_bot_spec("bridge", "heuristic?noise=1.5")
    with pytest.raises(ValueError, match="unknown bot option"):
        check_bot_spec("bridge", "heuristic?depth=2")
    with pytest.raises(ValueError, match="unknown bot"):
        check_bot_spec("bridge", "nobody?noise=0.1")


def test_tournament_entrant_options() -> None:
    from arena.tournaments.config import ConfigError, parse_config

    base = {"tournament": {"id": "t", "game": "calypso", "format": "round_robin", "deals": 1}}
    cfg = parse_config({**base, "entrants": [{"id": "a", "bot": "heuristic", "options": {"noise": 0.3}},
                                             {"id": "b", "bot": "heuristic?noise=0.5"}]})
    assert [e.bot for e in cfg.entrants] == ["builtin:heuristic?noise=0.3", "builtin:heuristic?noise=0.5"]
    with pytest.raises(ConfigError, match=r"^entrants\[0\]\.options: noise: must be a probability"):
        parse_config({**base, "entrants": [{"id": "a", "bot": "heuristic", "options": {"noise": 3}},
                                           {"id": "b", "bot": "random"}]})
    with pytest.raises(ConfigError, match=r"^entrants\[0\]\.options: options are for built-in bots"):
        parse_config({**base, "entrants": [{"id": "a", "remote": "x", "options": {"noise": 0.1}},
                                           {"id": "b", "bot": "random"}]})


@pytest.mark.parametrize("game_name", ["calypso", "auction"])
def test_noisier_is_weaker(game_name: str) -> None:
    """The knob does weaken the bot: heuristic beats heuristic?noise=0.9 over duplicate deals."""
    from arena.bots.evaluate import compare_bots

    cmp = compare_bots(get_game(game_name, **({"preset": "4p"} if game_name == "auction" else {})),
                       ["heuristic", "heuristic?noise=0.9"], deals=6, seed=5, keep_matches=False)
    strong, weak = cmp.entrants
    assert strong.score.mean > weak.score.mean, (strong.score, weak.score)
