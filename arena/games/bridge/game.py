"""The :class:`BridgeGame`: facts and presentation hooks over the options of
:mod:`.rules`; its states are :class:`~arena.games.bridge.state.BridgeState`."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer
from arena.core.state import Game, State

from arena.games.bridge.rules import DEFAULT_OPTIONS, PRESETS, SEATS, check_options, deck_of_hands
from arena.games.bridge.state import BridgeState

__all__ = ["BridgeGame"]

class BridgeGame(Game):
    """Contract bridge, duplicate (one board) or rubber (one or more rubbers).

    Options: ``scoring`` (``"duplicate"`` or ``"rubber"``), ``honours`` (rubber only,
    default off), ``rubbers`` (rubbers per match, default 1), ``deal_cap`` (deals per
    rubber before it is scored as unfinished, default 30).

    >>> g = BridgeGame(preset="rubber")
    >>> g.ruleset, g.num_players, g.seat_name(3)
    ('bridge_rubber@v1', 4, 'W')
    """

    name = "bridge"
    ruleset_version = 1
    presets: ClassVar[dict[str, dict[str, Any]]] = PRESETS
    default_options: ClassVar[dict[str, Any]] = DEFAULT_OPTIONS
    action_space_size = 90
    zero_sum = True

    def _configure(self) -> None:
        check_options(self.options)

    @property
    def num_players(self) -> int:
        return 4

    @property
    def max_game_length(self) -> int:
        per_deal = 319 + 52  # longest auction plus every card
        if self.options["scoring"] == "duplicate":
            return per_deal
        return per_deal * int(self.options["deal_cap"]) * int(self.options["rubbers"])

    def full_deck(self) -> list[str]:
        return standard_deck()

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> BridgeState:
        """``board=`` (duplicate: dealer and vulnerability follow its number) and
        ``hands=`` (a given deal, e.g. a board of a PBN file: four lists of card
        tokens, N, E, S, W). A stacked deck is dealt as given: a replay passes the
        realized deck, a search bot a resampled one, so ``hands`` applies only when
        the dealer has none."""
        board = kwargs.pop("board", None)
        hands = kwargs.pop("hands", None)
        if kwargs:
            raise ValueError(f"bridge: unknown argument(s) {', '.join(sorted(kwargs))}; "
                             f"bridge takes board= and hands= (duplicate)")
        if hands is not None:
            if self.options["scoring"] != "duplicate":
                raise ValueError("bridge: hands= is for duplicate boards")
            from arena.games.bridge.scoring import board_dealer

            deck = deck_of_hands(hands, board_dealer(1 if board is None else int(board)))
            if not dealer.stacked:
                dealer.stacked.append(deck)
        return BridgeState(self, dealer, board)

    # -- presentation -------------------------------------------------------------
    def margin_points(self, margin: float) -> float:
        """IMPs for a per-board duplicate margin (N-S score in one room minus the other)."""
        from arena.games.bridge.scoring import imps

        return float(imps(round(margin)))

    def seat_name(self, seat: int) -> str:
        return SEATS[seat]

    def teams(self) -> list[list[int]]:
        return [[0, 2], [1, 3]]

    def describe(self, state: State) -> str:
        """One line, e.g. ``Board 3: 4S by E, made 10, EW +620``."""
        assert isinstance(state, BridgeState)
        if state.game.options["scoring"] == "rubber":
            obs = state.observation(0)
            ns, ew = obs.score
            deals = len(state.records)
            head = "Rubber" if state.game.options["rubbers"] == 1 else f"{state.game.options['rubbers']} rubbers"
            if not state.is_terminal():
                return f"{head} in progress after {deals} deals: NS {ns}, EW {ew}"
            if ns == ew:
                verdict = "tie"
            else:
                verdict = f"{'NS' if ns > ew else 'EW'} win by {abs(ns - ew)}"
            return f"{head}: NS {ns}, EW {ew}, {verdict} ({deals} deals)"
        head = f"Board {state.board}"
        if not state.records:
            return f"{head}: in progress"
        rec = state.records[-1]
        if rec["declarer"] < 0:
            return f"{head}: passed out, 0"
        need = rec["level"] + 6
        tricks = rec["tricks"]
        result = f"made {tricks}" if tricks >= need else f"down {need - tricks}"
        ns = rec["ns_score"]
        score = "0" if ns == 0 else f"NS +{ns}" if ns > 0 else f"EW +{-ns}"
        return f"{head}: {rec['contract']} by {SEATS[rec['declarer']]}, {result}, {score}"

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        """One row per finished deal (see :class:`~arena.games.bridge.state.DealRecord`)."""
        assert isinstance(state, BridgeState)
        rows = []
        for rec in state.records:
            row: dict[str, Any] = {
                "deal": rec["deal"],
                "dealer": SEATS[rec["dealer"]],
                "vulnerable": _vul_name(rec["vulnerable"]),
                "contract": rec["contract"],
                "declarer": SEATS[rec["declarer"]] if rec["declarer"] >= 0 else "",
                "tricks": rec["tricks"] if rec["tricks"] >= 0 else None,
            }
            if state.game.options["scoring"] == "rubber":
                row.update(rubber=rec["rubber"], ns_below=rec["ns_below"], ns_above=rec["ns_above"],
                           ew_below=rec["ew_below"], ew_above=rec["ew_above"],
                           games=f"{rec['games'][0]}/{rec['games'][1]}", note=rec["note"])
            else:
                row.update(board=rec["board"], ns_score=rec["ns_score"], ew_score=-rec["ns_score"])
            rows.append(row)
        return rows


def _vul_name(vul: tuple[bool, bool]) -> str:
    return ("None", "NS", "EW", "All")[vul[0] + 2 * vul[1]]
