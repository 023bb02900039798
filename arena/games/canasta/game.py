"""The canasta Game: options, presets, bounds and presentation hooks."""

from __future__ import annotations

from typing import Any

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.state import Game, SeatIndex, State

from arena.games.canasta.rules import DEFAULT_OPTIONS, PRESETS, Rules
from arena.games.canasta.state import CanastaState

__all__ = ["CanastaGame"]


class CanastaGame(Game):
    """Canasta (classic family and the Hungarian kanaszta); see :mod:`arena.games.canasta`."""

    name = "canasta"
    ruleset_version = 1
    presets = PRESETS
    default_options = DEFAULT_OPTIONS
    action_space_size = None
    zero_sum = True
    conformance_options = {"deals": 1}
    """Options for the shared conformance suite: a whole random game is thousands of
    actions (hungarian random games often reach ``max_hands``), and the suite replays
    the history at every step; one hand per match exercises every rule."""

    def _configure(self) -> None:
        self.rules = Rules.from_options(self.options)

    @property
    def num_players(self) -> int:
        return self.rules.players

    @property
    def hand_action_bound(self) -> int:
        """Upper bound on the actions of one hand: ``4 * deck_size + 2`` (see the docstring)."""
        return 4 * self.rules.deck_size + 2

    @property
    def max_game_length(self) -> int:
        r = self.rules
        hands = r.deals or r.max_hands
        return min(r.max_actions, hands * self.hand_action_bound)

    def full_deck(self) -> list[str]:
        return standard_deck(self.rules.packs, self.rules.jokers)

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> State:
        unknown = set(kwargs) - {"first_dealer", "start_scores"}
        if unknown:
            raise ValueError(f"canasta: unknown initial-state argument(s) {', '.join(sorted(unknown))}")
        return CanastaState(self, dealer, **kwargs, rules=self.rules)

    # -- presentation ------------------------------------------------------
    def teams(self) -> list[list[SeatIndex]]:
        sides: list[list[SeatIndex]] = [[] for _ in range(self.rules.num_sides)]
        for seat, side in enumerate(self.rules.side_of):
            sides[side].append(seat)
        return sides

    def side_name(self, side: int) -> str:
        return "+".join(str(s) for s in self.teams()[side])

    def match_points(self, state: State) -> list[float]:
        """Each seat's side's cumulative game score (returns are rank-based)."""
        assert isinstance(state, CanastaState)
        return [float(state.scores[side]) for side in self.rules.side_of]

    def describe(self, state: State) -> str:
        assert isinstance(state, CanastaState)
        parts = [f"{self.side_name(i)}: {sc}" for i, sc in enumerate(state.scores)]
        best = max(state.scores)
        winners = [self.side_name(i) for i, sc in enumerate(state.scores) if sc == best]
        result = ("winner " if len(winners) == 1 else "draw between ") + ", ".join(winners)
        return f"{len(state.hand_scores)} hands; " + "; ".join(parts) + f"; {result}"

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        assert isinstance(state, CanastaState)
        rows = []
        running = [0] * self.rules.num_sides
        init = state._init_kwargs.get("start_scores")
        if init:
            running = list(init)
        for det in state.hand_details:
            row: dict[str, Any] = {"hand": det["hand"] + 1, "dealer": det["dealer"],
                                   "went_out": det["went_out"], "concealed": det["concealed"]}
            for i, s in enumerate(det["sides"]):
                running[i] += s["total"]
                row[f"side {self.side_name(i)}"] = s["total"]
                row[f"total {self.side_name(i)}"] = running[i]
            rows.append(row)
        return rows
