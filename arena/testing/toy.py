"""A minimal game implementing the whole protocol, for tests of the shared parts.

*Highcard*: two players, one pack, three cards each (deck positions 0-5 dealt
alternately, seat 0 first); the rest of the pack stays hidden. In each of three
rounds seat 0 then seat 1 plays a card; the higher card index wins the round.
Returns: +1 to the player who won more rounds, -1 to the other. Action ids are card
indexes 0..51 (``2C`` = 0 ... ``AS`` = 51).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from arena.core.cards import card_index, card_token, parse_card, standard_deck
from arena.core.dealing import Dealer
from arena.core.descriptor import GameDescriptor
from arena.core.state import TERMINAL, Action, Game, Observation, State

__all__ = ["HighcardGame", "HighcardState", "HighcardObservation"]


@dataclass(frozen=True, slots=True)
class HighcardObservation(Observation):
    seat: int
    hand: tuple[str, ...]
    played: tuple[tuple[int, str], ...]
    wins: tuple[int, int]
    to_play: int


class HighcardGame(Game):
    name = "highcard"
    action_space_size = 52
    zero_sum = True

    @property
    def num_players(self) -> int:
        return 2

    @property
    def max_game_length(self) -> int:
        return 6

    def full_deck(self) -> list[str]:
        return standard_deck()

    def _new_state(self, dealer: Dealer, **kwargs: Any) -> HighcardState:
        if kwargs:
            raise ValueError(f"highcard takes no {', '.join(kwargs)}")
        return HighcardState(self, dealer)


class HighcardState(State):
    def __init__(self, game: HighcardGame, dealer: Dealer) -> None:
        super().__init__(game, dealer)
        self.deck = dealer.shuffle(game.full_deck())
        self.hands = [sorted(card_index(c) for c in self.deck[s:6:2]) for s in (0, 1)]
        self.played: list[tuple[int, int]] = []
        self.wins = [0, 0]

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else len(self.played) % 2

    def is_terminal(self) -> bool:
        return len(self.played) == 6

    def returns(self) -> list[float]:
        if not self.is_terminal() or self.wins[0] == self.wins[1]:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.wins[0] > self.wins[1] else [-1.0, 1.0]

    def _legal_actions(self) -> list[Action]:
        return list(self.hands[self.current_player()])

    def illegal_reason(self, action: Action) -> str:
        return f"{card_token(int(cast(int, action)))} is not in your hand"

    def _apply_action(self, action: Action) -> None:
        seat = self.current_player()
        self.hands[seat].remove(int(cast(int, action)))
        self.played.append((seat, int(cast(int, action))))
        if len(self.played) % 2 == 0:
            a, b = self.played[-2][1], self.played[-1][1]
            self.wins[0 if a > b else 1] += 1

    def action_to_string(self, action: Action) -> str:
        return card_token(int(cast(int, action)))

    def string_to_action(self, text: str) -> Action:
        return card_index(parse_card(text))

    def observation(self, seat: int) -> HighcardObservation:
        return HighcardObservation(
            seat=seat,
            hand=tuple(card_token(c) for c in self.hands[seat]),
            played=tuple((s, card_token(c)) for s, c in self.played),
            wins=(self.wins[0], self.wins[1]),
            to_play=self.current_player(),
        )

    def card_locations(self) -> Mapping[str, Iterable[str]]:
        return {
            "hand0": [card_token(c) for c in self.hands[0]],
            "hand1": [card_token(c) for c in self.hands[1]],
            "played": [card_token(c) for _, c in self.played],
            "stock": self.deck[6:],
        }

    def hidden_positions(self, seat: int) -> list[tuple[int, int]]:
        other = 1 - seat
        unplayed = set(self.hands[other])
        hidden = [(0, p) for p in range(other, 6, 2) if card_index(self.deck[p]) in unplayed]
        return hidden + [(0, p) for p in range(6, 52)]

    def clone(self) -> HighcardState:
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.history = list(self.history)
        other.hands = [list(h) for h in self.hands]
        other.played = list(self.played)
        other.wins = list(self.wins)
        other._legal_cache = None
        return other


GAME = HighcardGame
DESCRIPTOR = GameDescriptor("highcard", HighcardGame, HighcardObservation, proto_field="highcard")
"""The test game's descriptor (registered by ``tests/conftest.py``'s ``toy_registered``)."""
