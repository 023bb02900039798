"""Observations after every action, for agents that must follow the whole board.

The referee asks an agent only when its seat acts, and tells it nothing at the end
but the returns. A Table Manager must relay every call and card to its robot as
they happen (dummy's robot is never asked anything in the play), so the board is
played on a thin wrapper of the game: after every applied action (and once at the
start) each agent with an ``observe(observation)`` method receives **its own
seat's** ``state.observation(seat)``, nothing else.

:func:`run_match` is :func:`arena.match.referee.run_match` on that wrapper, with the
same arguments and result (the result's ``state`` is the engine's own state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from arena.match.agent import Agent
from arena.core.state import Action, Game, State
from arena.match.referee import MatchResult
from arena.match.referee import run_match as referee_run_match

__all__ = ["observed", "run_match", "ObservedGame", "ObservedState"]

Listener = tuple[int, Callable[[Any], None]]


class ObservedState:
    """A state that tells listeners their seat's observation after each action."""

    def __init__(self, inner: State, listeners: Sequence[Listener]) -> None:
        self.inner = inner
        self._listeners = listeners

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def apply_action(self, action: Action) -> None:
        self.inner.apply_action(action)
        self.notify()

    def notify(self) -> None:
        """Each listener gets the observation of its own seat."""
        for seat, listener in self._listeners:
            listener(self.inner.observation(seat))


class ObservedGame:
    """A game whose states are :class:`ObservedState` (everything else delegated)."""

    def __init__(self, game: Game, listeners: Sequence[Listener]) -> None:
        self.inner = game
        self._listeners = list(listeners)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def new_initial_state(self, **kwargs: Any) -> State:
        state = ObservedState(self.inner.new_initial_state(**kwargs), self._listeners)
        state.notify()
        return cast(State, state)


def observed(game: Game, agents: Sequence[Agent]) -> Game:
    """``game`` with every agent that has ``observe`` listening at its seat(s)."""
    listeners: list[Listener] = []
    for seat, agent in enumerate(agents):
        fn = getattr(agent, "observe", None)
        if callable(fn):
            listeners.append((seat, fn))
    return cast(Game, ObservedGame(game, listeners))


def run_match(game: Game, agents: Sequence[Agent], **kwargs: Any) -> MatchResult:
    """:func:`arena.match.referee.run_match` with observing agents kept up to date."""
    result = referee_run_match(observed(game, agents), agents, **kwargs)
    state = result.state
    inner = state.inner if isinstance(state, ObservedState) else state
    return MatchResult(result.record, inner)
