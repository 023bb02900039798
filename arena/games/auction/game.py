"""The :class:`AuctionGame` (Aukció): options, facts and presentation hooks; its states
are :class:`~arena.games.auction.state.AuctionState`.

See the package docstring (:mod:`arena.games.auction`) for the rules summary, the
action forms, the observation layout, the shuffle layout and the rule decisions.
"""

from __future__ import annotations

from typing import Any

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.state import Game, State
from arena.games.auction.rules import DEFAULT_OPTIONS, PRESETS, match_rules
from arena.games.auction.state import AuctionState

__all__ = ["AuctionGame"]


class AuctionGame(Game):
    """Aukció for 3 to 6 players; a match is ``games`` games (default: one per seat)."""

    name = "auction"
    ruleset_version = 1
    presets = PRESETS
    default_options = DEFAULT_OPTIONS
    action_space_size = None
    zero_sum = False
    max_retries = 0
    """Section 11: an illegal bid counts as PASS, an illegal payment is replaced by
    the fallback payment, at once (no retry)."""

    def _configure(self) -> None:
        self.rules = r = match_rules(self.options)
        self._n = r.players
        self.games = r.games
        """Games per match."""
        self.packs = r.packs
        self.jokers = r.jokers
        self.picture_canon = r.picture_canon
        self.money_canon = r.money_canon

    @property
    def num_players(self) -> int:
        return self._n

    @property
    def max_game_length(self) -> int:
        # Every round uses one picture and asks at most n bids and one payment.
        return self.games * len(self.picture_canon) * (self._n + 1)

    def full_deck(self) -> list[str]:
        return standard_deck(self.packs, self.jokers)

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> AuctionState:
        if kwargs:
            raise ValueError(f"auction takes no {', '.join(kwargs)}")
        return AuctionState(self, dealer, rules=self.rules)

    # -- presentation -------------------------------------------------------
    def describe(self, state: State) -> str:
        assert isinstance(state, AuctionState)
        pts = "-".join(str(p) for p in state.points)
        done = len(state.results)
        drawn = sum(1 for r in state.results if r["winner"] < 0)
        best = max(state.points) if state.points else 0
        leaders = [s for s, p in enumerate(state.points) if p == best]
        lead = ("no winner" if best == 0 else
                f"seat {leaders[0]} wins" if len(leaders) == 1 else
                "seats " + ",".join(map(str, leaders)) + " share first")
        return f"games won {pts} after {done} game(s), {drawn} drawn; {lead}"

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        assert isinstance(state, AuctionState)
        rows = []
        for r in state.results:
            row: dict[str, Any] = {"game": r["game"], "dealer": r["dealer"], "rounds": r["rounds"],
                                   "winner": r["winner"] if r["winner"] >= 0 else "-",
                                   "combo": " ".join(r["combination"]) or "(drawn)"}
            for s in range(self._n):
                row[f"seat {s}"] = r["points"][s]
            rows.append(row)
        return rows
