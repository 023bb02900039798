"""The calypso state, :class:`CalypsoState`: dealing, play, collection and scoring.

The rules summary, action ids, observation layout, rule decisions and version
history are in the package docstring (:mod:`arena.games.calypso`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import compress
from typing import Any

from arena.core.cards import STANDARD_TOKENS, card_index
from arena.core.dealing import Dealer
from arena.core.state import TERMINAL, Action, Game, State
from arena.games.calypso.actions import action_text, parse_action
from arena.games.calypso.observation import CalypsoObservation, CalypsoTrick
from arena.games.calypso.rules import (CARDS_PER_GAME, DEALS_PER_GAME, SEAT_NAMES, SIDE_NAMES, TRICKS_PER_DEAL,
                                       TRUMP, collect, max_games, player_points, side_points,
                                       winning_position)

__all__ = ["CalypsoState"]

_TOK = STANDARD_TOKENS
_IDS = tuple(range(52))
_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


class CalypsoState(State):
    """One position of a Calypso match."""

    def __init__(self, game: Game, dealer: Dealer) -> None:
        super().__init__(game, dealer)
        self.max_games = max_games(game.options)
        self.target = game.options["target_score"]
        self.first_dealer: int = game.options["first_dealer"]
        self.totals = [0, 0]
        self.game_results: list[tuple[int, int]] = []
        self.sheet: list[dict[str, Any]] = []
        self.match_deal = 0
        self.over = False
        self._start_game()

    # -- progression -------------------------------------------------------
    def _start_game(self) -> None:
        self.game_index = len(self.game_results)
        self.pack: list[str] = self.dealer.shuffle(self.game.full_deck())
        self.pack_ids = [card_index(t) for t in self.pack]
        self.current = [0, 0, 0, 0]
        self.completed = [0, 0, 0, 0]
        self.piles: list[list[int]] = [[], []]
        self.tricks_won = [0, 0]
        self.tricks: list[CalypsoTrick] = []
        self.deal = -1
        self._start_deal()

    def _start_deal(self) -> None:
        if self.deal >= 0:
            self.match_deal += 1
        self.deal += 1
        self.dealer_seat = (self.first_dealer + self.match_deal) & 3
        base = 52 * self.deal
        hands = [[0] * 52 for _ in range(4)]
        first = self.dealer_seat + 1
        ids = self.pack_ids
        for i in range(52):
            hands[(first + i) & 3][ids[base + i]] += 1
        self.hands = hands
        self.hand_sizes = [13, 13, 13, 13]
        self.leader = first & 3
        self.trick: list[int] = []
        self.trick_in_deal = 0

    def _finish_trick(self) -> None:
        cards = self.trick
        leader = self.leader
        winner = (leader + winning_position(leader, cards)) & 3
        side = winner & 1
        self.piles[side].extend(collect(winner, cards, self.current, self.completed))
        self.tricks_won[side] += 1
        self.tricks.append(CalypsoTrick(leader, tuple(_TOK[c] for c in cards), winner))
        self.trick = []
        self.leader = winner
        self.trick_in_deal += 1
        if self.trick_in_deal == TRICKS_PER_DEAL:
            self._finish_deal()

    def _finish_deal(self) -> None:
        points = self.game_points()
        for side in (0, 1):
            seats = (side, side + 2)
            self.sheet.append({
                "game": self.game_index + 1,
                "deal": self.deal + 1,
                "side": SIDE_NAMES[side],
                "tricks": self.tricks_won[side],
                "calypsos": sum(self.completed[s] for s in seats),
                "in progress": sum(self.current[s].bit_count() for s in seats),
                "pile cards": len(self.piles[side]),
                "points": points[side],
                "total": self.totals[side] + points[side],
            })
        if self.deal < DEALS_PER_GAME - 1:
            self._start_deal()
            return
        self.game_results.append((points[0], points[1]))
        self.totals[0] += points[0]
        self.totals[1] += points[1]
        played = len(self.game_results)
        if self.target is None:
            done = played >= self.max_games
        else:
            done = max(self.totals) >= self.target or played >= self.max_games
        if done:
            self.over = True
        else:
            self.match_deal += 1
            self._start_game()

    # -- scoring -------------------------------------------------------------
    def game_points(self) -> tuple[int, int]:
        """Per side, the current game's score if it ended now (rules section 7)."""
        c, cur, piles = self.completed, self.current, self.piles
        return (
            side_points([(c[0], cur[0].bit_count()), (c[2], cur[2].bit_count())], len(piles[0])),
            side_points([(c[1], cur[1].bit_count()), (c[3], cur[3].bit_count())], len(piles[1])),
        )

    def running_totals(self) -> tuple[int, int]:
        """Per side, finished games plus the current game as if it ended now."""
        if self.over:
            return self.totals[0], self.totals[1]
        p = self.game_points()
        return self.totals[0] + p[0], self.totals[1] + p[1]

    def player_points(self, seat: int) -> int:
        """One seat's calypso points in the current game (completed plus in progress)."""
        return player_points(self.completed[seat], self.current[seat].bit_count())

    # -- protocol ---------------------------------------------------------------
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        return (self.leader + len(self.trick)) & 3

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        ns, ew = self.running_totals()
        return [float(ns), float(ew), float(ns), float(ew)]

    def _legal_actions(self) -> list[Action]:
        hand = self.hands[(self.leader + len(self.trick)) & 3]
        if self.trick:
            lo = (self.trick[0] // 13) * 13
            follow = list(compress(_IDS[lo:lo + 13], hand[lo:lo + 13]))
            if follow:
                return follow  # type: ignore[return-value]  # list[int] of card ids is a list of actions
        return list(compress(_IDS, hand))

    def illegal_reason(self, action: Action) -> str:
        card = int(action)  # type: ignore[call-overload]  # calypso actions are card ids
        token = _TOK[card]
        if self.over:
            return "the match is over"
        hand = self.hands[self.current_player()]
        if not hand[card]:
            return f"{token} is not in your hand"
        lead = _TOK[self.trick[0]]
        suit = _SUIT_NAMES[lead[1]]
        return f"{token} does not follow suit: {lead} was led and you hold {suit}"

    def _apply_action(self, action: Action) -> None:
        card: int = action  # type: ignore[assignment]  # calypso actions are card ids
        seat = (self.leader + len(self.trick)) & 3
        self.hands[seat][card] -= 1
        self.hand_sizes[seat] -= 1
        self.trick.append(card)
        if len(self.trick) == 4:
            self._finish_trick()

    def action_to_string(self, action: Action) -> str:
        return action_text(action)

    def string_to_action(self, text: str) -> Action:
        return parse_action(text)

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        locs: dict[str, list[str]] = {}
        for seat in range(4):
            hand = self.hands[seat]
            locs[f"hand {SEAT_NAMES[seat]}"] = [_TOK[c] for c in range(52) for _ in range(hand[c])]
        locs["undealt"] = self.pack[52 * (self.deal + 1):]
        locs["trick"] = [_TOK[c] for c in self.trick]
        for seat in range(4):
            suit = TRUMP[seat]
            mask = self.current[seat]
            locs[f"calypso {SEAT_NAMES[seat]}"] = [_TOK[suit * 13 + r] for r in range(13) if mask >> r & 1]
            locs[f"completed {SEAT_NAMES[seat]}"] = [_TOK[suit * 13 + r] for r in range(13)] * self.completed[seat]
        for side in (0, 1):
            locs[f"pile {SIDE_NAMES[side]}"] = [_TOK[c] for c in self.piles[side]]
        return locs

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        if self.over:
            return []
        k = self.game_index
        base = 52 * self.deal
        first = self.dealer_seat + 1
        hidden: list[tuple[int, int]] = []
        budget = [list(h) for h in self.hands]
        # Positions are scanned from the back so that each remaining copy of a card
        # in another seat's hand names one position (copies are indistinguishable).
        for i in range(51, -1, -1):
            owner = (first + i) & 3
            if owner == seat:
                continue
            c = self.pack_ids[base + i]
            if budget[owner][c]:
                budget[owner][c] -= 1
                hidden.append((k, base + i))
        hidden.reverse()
        hidden.extend((k, p) for p in range(base + 52, CARDS_PER_GAME))
        return hidden

    def observation(self, seat: int) -> CalypsoObservation:
        if not 0 <= seat < 4:
            raise ValueError(f"seat {seat} is not 0..3")
        hand = self.hands[seat]
        cur = self.current
        return CalypsoObservation(
            seat=seat,
            to_play=self.current_player(),
            hand=tuple(_TOK[c] for c in range(52) for _ in range(hand[c])),
            hand_sizes=(self.hand_sizes[0], self.hand_sizes[1], self.hand_sizes[2], self.hand_sizes[3]),
            game_number=self.game_index,
            deal_number=self.deal,
            dealer=self.dealer_seat,
            leader=self.leader,
            trick_number=self.trick_in_deal,
            current_trick=tuple(_TOK[c] for c in self.trick),
            tricks=tuple(self.tricks),
            calypsos=tuple(  # type: ignore[arg-type]  # always 4 (one per seat); mypy sees tuple[..., ...]
                tuple(_TOK[TRUMP[s] * 13 + r] for r in range(13) if cur[s] >> r & 1) for s in range(4)),
            completed=(self.completed[0], self.completed[1], self.completed[2], self.completed[3]),
            pile_sizes=(len(self.piles[0]), len(self.piles[1])),
            tricks_won=(self.tricks_won[0], self.tricks_won[1]),
            undealt=CARDS_PER_GAME - 52 * (self.deal + 1),
            game_points=self.game_points(),
            scores=(self.totals[0], self.totals[1]),
        )

    def clone(self) -> CalypsoState:
        other = CalypsoState.__new__(CalypsoState)
        d = other.__dict__
        d.update(self.__dict__)
        other.history = list(self.history)
        other._legal_cache = None
        other.totals = list(self.totals)
        other.game_results = list(self.game_results)
        other.sheet = [dict(r) for r in self.sheet]
        other.current = list(self.current)
        other.completed = list(self.completed)
        other.piles = [list(self.piles[0]), list(self.piles[1])]
        other.tricks_won = list(self.tricks_won)
        other.tricks = list(self.tricks)
        other.hands = [list(h) for h in self.hands]
        other.hand_sizes = list(self.hand_sizes)
        other.trick = list(self.trick)
        # Realized and stacked decks are never mutated in place, so they are shared.
        dealer = Dealer.__new__(Dealer)
        dealer.seed = self.dealer.seed
        dealer.stacked = self.dealer.stacked
        dealer.realized = list(self.dealer.realized)
        other.dealer = dealer
        return other

    def __str__(self) -> str:
        if self.over:
            return f"CalypsoState(over, NS {self.totals[0]} EW {self.totals[1]})"
        return (f"CalypsoState(game {self.game_index + 1} deal {self.deal + 1} "
                f"trick {self.trick_in_deal + 1}, {SEAT_NAMES[self.current_player()]} to play)")
