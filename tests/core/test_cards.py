"""Card tokens and canonical orders."""

from __future__ import annotations

import pytest

from arena.core.cards import (JOKER, card_index, card_rank, card_suit, card_token, parse_card, parse_cards,
                              sort_cards, standard_deck, Rank, Suit)
from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.seats import Seat


def test_canonical_order_and_indexes() -> None:
    deck = standard_deck()
    assert deck[0] == "2C" and deck[12] == "AC" and deck[13] == "2D" and deck[51] == "AS"
    assert [card_index(c) for c in deck] == list(range(52))
    assert card_token(38) == "AH" and card_rank("TH") == Rank.T and card_suit("TH") == Suit.H
    assert standard_deck(2, 3)[-4:] == ["AS", JOKER, JOKER, JOKER]


def test_parsing_is_lenient_but_strict_about_garbage() -> None:
    assert parse_card("as") == "AS" and parse_card(" 10h ") == "TH"
    assert parse_cards("2c, 3d 4h") == ["2C", "3D", "4H"]
    assert parse_card("jk", jokers=True) == JOKER
    for bad in ("JK", "1C", "AX", "", "ASS"):
        with pytest.raises(InvalidActionError):
            parse_card(bad)
    assert not issubclass(InvalidActionError, IllegalActionError)
    assert sort_cards(["AS", JOKER, "2C"]) == ["2C", "AS", JOKER]


def test_seats() -> None:
    assert Seat.W.lho == Seat.N and Seat.E.partner == Seat.W and Seat.N.rho == Seat.W
    assert Seat.parse("s") == Seat.S and str(Seat.E) == "E" and Seat.S.next(3) == Seat.E
