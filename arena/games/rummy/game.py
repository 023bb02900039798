"""The :class:`RummyGame` (robber rummy): options, facts and presentation hooks; its
states are :class:`~arena.games.rummy.state.RummyState` (see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.state import Game, State
from arena.games.rummy.rules import DEFAULT_OPTIONS, PRESETS, TURN_CAP, max_deals
from arena.games.rummy.state import RummyState

__all__ = ["RummyGame"]


class RummyGame(Game):
    """Robber rummy (rablórömi), 2-6 players; see :mod:`arena.games.rummy`."""

    name = "rummy"
    ruleset_version = 1
    default_options: ClassVar[Mapping[str, Any]] = DEFAULT_OPTIONS
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = PRESETS
    action_space_size = None
    zero_sum = False
    max_retries = 0
    """Rule decision 9 and section 12: a refused play counts as a pass, no retry."""
    conformance_options: ClassVar[Mapping[str, Any]] = {"deals": 2}
    """Two deals (dealer rotation, cumulative scores) keep the shared suite short."""

    def _configure(self) -> None:
        self.max_deals = max_deals(self.options)
        self._n: int = self.options["players"]

    @property
    def num_players(self) -> int:
        return self._n

    @property
    def max_game_length(self) -> int:
        return self.max_deals * TURN_CAP

    def full_deck(self) -> list[str]:
        return standard_deck(2)

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> RummyState:
        if kwargs:
            raise ValueError(f"rummy takes no {', '.join(kwargs)}")
        return RummyState(self, dealer)

    def describe(self, state: State) -> str:
        assert isinstance(state, RummyState)
        n = self._n
        totals = state.scores
        parts = [f"{len(state.deal_results)} deal(s)"]
        parts.append("scores " + " ".join(f"{self.seat_name(s)}:{totals[s]:+d}" for s in range(n)))
        parts.append("won " + " ".join(f"{self.seat_name(s)}:{state.deals_won[s]}" for s in range(n)))
        ranked = sorted(range(n), key=lambda s: (-totals[s], -state.deals_won[s]))
        best = ranked[0]
        tied = [s for s in ranked if (totals[s], state.deals_won[s]) == (totals[best], state.deals_won[best])]
        parts.append("first " + ",".join(self.seat_name(s) for s in tied))
        return "; ".join(parts)

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        """One row per finished deal: deal, dealer, end, winner, turns, then each seat's
        deal score, then each seat's running total (``total <seat>``)."""
        assert isinstance(state, RummyState)
        rows = []
        totals = [0] * self._n
        for r in state.deal_results:
            row: dict[str, Any] = {"deal": r["deal"] + 1, "dealer": r["dealer"], "end": r["end"],
                                   "winner": "-" if r["winner"] is None else r["winner"], "turns": r["turns"]}
            for s, v in enumerate(r["scores"]):
                totals[s] += v
                row[self.seat_name(s)] = v
            for s in range(self._n):
                row[f"total {self.seat_name(s)}"] = totals[s]
            rows.append(row)
        return rows
