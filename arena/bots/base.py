"""The agent interface every bot implements (:mod:`arena.match.agent`, re-exported
here for bots), and :class:`RandomAgent`.

The referee calls :meth:`Agent.act` with the acting seat's observation and the
legal actions; the agent returns an action (an id, a value object, or its text).
The other methods are notifications with no-op defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.core.dealing import SeedStream
from arena.core.state import Action
from arena.match.agent import Agent, AgentFailure, DecisionTimeout, LegalActions, MatchInfo, RouteFailure

__all__ = ["Agent", "RandomAgent", "MatchInfo", "LegalActions", "DecisionTimeout", "AgentFailure",
           "RouteFailure"]


class RandomAgent(Agent):
    """Uniform choice among the listed legal actions, from its own seeded stream."""

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self._seed = seed
        self._rng = SeedStream(seed)

    def start_match(self, info: MatchInfo) -> None:
        self._rng = SeedStream(f"{self._seed}|{info.get('match_id', '')}|{info.get('seat', '')}")

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return self._rng.choice(legal_actions)
