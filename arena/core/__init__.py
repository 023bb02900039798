"""Core building blocks shared by every game: cards, seats, errors, dealing, protocol."""

from arena.core.cards import JOKER, RANKS, SUITS, Rank, Suit, card_index, card_token, parse_card, standard_deck
from arena.core.dealing import Dealer, SeedStream, derive_seed, shuffled
from arena.core.errors import (AmbiguousActionError, ArenaError, DecodeError, GameOverError,
                               IllegalActionError, InvalidActionError)
from arena.core.seats import Seat, next_seat
from arena.core.state import TERMINAL, Action, ActionId, Game, Observation, SeatIndex, State

__all__ = [
    "JOKER", "RANKS", "SUITS", "Rank", "Suit", "card_index", "card_token", "parse_card", "standard_deck",
    "Dealer", "SeedStream", "derive_seed", "shuffled",
    "AmbiguousActionError", "ArenaError", "DecodeError", "GameOverError", "IllegalActionError",
    "InvalidActionError",
    "Seat", "next_seat",
    "TERMINAL", "Action", "ActionId", "Game", "Observation", "SeatIndex", "State",
]
