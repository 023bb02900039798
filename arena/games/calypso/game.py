"""The :class:`CalypsoGame`: options, facts and presentation hooks; its states are
:class:`~arena.games.calypso.state.CalypsoState`.

The rules summary, action ids, observation layout, rule decisions and version
history are in the package docstring (:mod:`arena.games.calypso`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.state import Game, State
from arena.games.calypso.actions import ACTION_SPACE_SIZE
from arena.games.calypso.rules import CARDS_PER_GAME, DEFAULT_OPTIONS, SEAT_NAMES, max_games
from arena.games.calypso.state import CalypsoState

__all__ = ["CalypsoGame"]


class CalypsoGame(Game):
    """Calypso for four players in two partnerships (see :mod:`arena.games.calypso`)."""

    name = "calypso"
    ruleset_version = 1
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {"default": {}}
    default_options: ClassVar[Mapping[str, Any]] = DEFAULT_OPTIONS
    action_space_size = ACTION_SPACE_SIZE
    zero_sum = False

    def _configure(self) -> None:
        self.max_games = max_games(self.options)

    @property
    def num_players(self) -> int:
        return 4

    @property
    def max_game_length(self) -> int:
        return CARDS_PER_GAME * self.max_games

    def full_deck(self) -> list[str]:
        return standard_deck(packs=4)

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> CalypsoState:
        if kwargs:
            raise ValueError(f"calypso takes no {', '.join(sorted(kwargs))}")
        return CalypsoState(self, dealer)

    def seat_name(self, seat: int) -> str:
        return SEAT_NAMES[seat]

    def teams(self) -> list[list[int]]:
        return [[0, 2], [1, 3]]

    def describe(self, state: State) -> str:
        assert isinstance(state, CalypsoState)
        ns, ew = state.totals if state.is_terminal() else state.running_totals()
        games = len(state.game_results)
        result = "NS win" if ns > ew else "EW win" if ew > ns else "draw"
        return f"NS {ns} - EW {ew} after {games} game{'s' if games != 1 else ''}: {result}"

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        assert isinstance(state, CalypsoState)
        return [dict(row) for row in state.sheet]
