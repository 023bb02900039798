"""Retries after a refused action follow each game's rules (``Game.max_retries``):
rummy (rules decision 9, section 12) and auction (section 11) count a refused play or
bid as a pass at once; other games keep the referee's default; a tournament's
``max_retries`` overrides both."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.base import Agent
from arena.games import get_game
from arena.match.referee import DEFAULT_MAX_RETRIES, run_match


class Stubborn(Agent):
    """Answers every decision with text no game accepts; counts its attempts."""

    name = "stubborn"

    def __init__(self) -> None:
        self.attempts: list[int] = []
        self.refusals: list[bool] = []
        self._n = 0

    def act(self, observation: Any, legal_actions: Any) -> Any:
        self._n += 1
        return "not an action of any game"

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        self.refusals.append(retry_allowed)


class FirstLegal(Agent):
    def act(self, observation: Any, legal_actions: Any) -> Any:
        return legal_actions[0]


def _first_decision(game_name: str, max_retries: int | None, **options: Any) -> tuple[Stubborn, Any]:
    game = get_game(game_name, **options)
    stubborn = Stubborn()
    agents: list[Agent] = [stubborn] + [FirstLegal() for _ in range(game.num_players - 1)]
    result = run_match(game, agents, seed=3, deadline_ms=60_000, max_retries=max_retries)
    return stubborn, result.record


@pytest.mark.parametrize("game_name,options", [("rummy", {"players": 2, "deals": 1}),
                                               ("auction", {"players": 3, "games": 1})])
def test_a_refused_play_counts_as_a_pass_at_once(game_name: str, options: dict[str, Any]) -> None:
    assert get_game(game_name, **options).max_retries == 0
    stubborn, record = _first_decision(game_name, None, **options)
    assert stubborn.refusals and not any(stubborn.refusals), "a retry was offered"
    mine = [f for f in record.faults if f.seat == 0]
    # one refusal per decision, each followed by the default: never a second attempt
    assert len(mine) == len(stubborn.refusals)
    defaulted = [a for a in record.actions if a.seat == 0 and a.default]
    assert len(defaulted) == len(mine) and record.terminal


def test_a_tournament_may_override_the_rule() -> None:
    stubborn, record = _first_decision("rummy", 2, players=2, deals=1)
    # each decision: two refusals with a retry, then one without
    assert stubborn.refusals[:3] == [True, True, False]
    assert len(stubborn.refusals) == 3 * sum(1 for a in record.actions if a.seat == 0 and a.default)


def test_other_games_keep_the_default() -> None:
    assert get_game("calypso").max_retries is None
    stubborn, _ = _first_decision("calypso", None)
    assert stubborn.refusals[:DEFAULT_MAX_RETRIES + 1] == [True] * DEFAULT_MAX_RETRIES + [False]
