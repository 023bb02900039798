"""The agent interface every player of a match implements, and the route errors.

The referee calls :meth:`Agent.act` with the acting seat's observation and the
legal actions; the agent returns an action (an id, a value object, or its text).
The other methods are notifications with no-op defaults. Built-in bots
(:mod:`arena.bots`), remote bots (:mod:`arena.remote`, :mod:`arena.gateway`) and Blue
Chip seats (:mod:`arena.bluechip`) implement it; it lives with the referee, the layer
that calls it, so that no route depends on the built-in bots.
:mod:`arena.bots.base` re-exports every name (bots import it from there).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena.core.state import Action, SeatIndex

__all__ = ["Agent", "MatchInfo", "LegalActions", "DecisionTimeout", "AgentFailure", "RouteFailure"]


class MatchInfo(dict[str, Any]):
    """What an agent learns when a match starts: ``game``, ``ruleset``, ``seat``,
    ``num_players``, ``match_id``, ``options`` and ``deadline_ms`` (the time allowed
    per decision). Never the seed or the deck."""


class LegalActions(tuple[Action, ...]):
    """The legal actions of one decision, with their canonical texts.

    A plain tuple to built-in bots; remote agents also send :attr:`texts`, which
    are computed on first use when given as a function.
    """

    _texts: tuple[str, ...] | Callable[[Action], str]

    def __new__(cls, actions: Sequence[Action],
                texts: Sequence[str] | Callable[[Action], str]) -> LegalActions:
        self = super().__new__(cls, actions)
        self._texts = texts if callable(texts) else tuple(texts)
        return self

    @property
    def texts(self) -> tuple[str, ...]:
        """Canonical text of each action, in the same order."""
        if callable(self._texts):
            self._texts = tuple(self._texts(a) for a in self)
        return self._texts


class DecisionTimeout(Exception):
    """Raised by an agent that got no answer before the decision's deadline."""


class AgentFailure(Exception):
    """Raised by an agent that cannot answer at all (disconnected, crashed)."""


class RouteFailure(AgentFailure):
    """An :class:`AgentFailure` whose cause is the platform, not the bot: the gateway
    shutting down or gone, the route to it lost. The referee treats it as any
    AgentFailure; a runner may void the match instead of recording it."""


class Agent:
    """Base class of every bot. Subclasses implement :meth:`act`."""

    name: str = "agent"

    def start_match(self, info: MatchInfo) -> None:
        """A match starts with this agent at ``info['seat']``."""

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        """Choose an action; may return its canonical text instead."""
        raise NotImplementedError

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        """The last action was refused; ``act`` is called again if ``retry_allowed``.

        ``kind`` is ``invalid`` (not an action of this game: unreadable text, unknown
        id), ``ambiguous`` (text matching several actions) or ``illegal`` (well formed,
        forbidden by the rules now).
        """

    def end_match(self, seat: SeatIndex, returns: Sequence[float]) -> None:
        """The match is over; ``returns`` holds every seat's result."""

    def close(self) -> None:
        """Release resources (connections, processes)."""
