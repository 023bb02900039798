"""Bidding decisions of the heuristic bridge bot on given hands."""

from __future__ import annotations

import pytest
from bridge_bot_helpers import bid_uncontested, call_text, legal_calls

from arena.bots.bridge.bidding import choose_call
from arena.bots.bridge.hand import DOUBLE, PASS, Auction, Hand
from arena.bots.bridge.model import shown


def call(hand: str, auction: str = "", seat: int | None = None, dealer: int = 0,
         legal: list[int] | None = None) -> str:
    tokens = auction.split()
    a = Auction.from_tokens(dealer, tokens)
    me = (dealer + len(tokens)) & 3 if seat is None else seat
    return call_text(choose_call(Hand.parse(hand), a, me, legal or legal_calls(a, me)))


# -- hand evaluation ------------------------------------------------------------------------
def test_hcp_counting() -> None:
    assert Hand.parse("AS KS QS JS AH KH QH JH AD KD QD JD AC").hcp == 34
    assert Hand.parse("2S 3S 4S 5S 2H 3H 4H 5H 2D 3D 4D 5D 2C").hcp == 0
    assert Hand.parse("AS 2S 3S KH 2H 3H QD 2D 3D JC 2C 3C 4C").hcp == 10


def test_balanced_shapes() -> None:
    assert Hand.parse("AS 2S 3S 4S KH 2H 3H QD 2D 3D JC 2C 3C").balanced  # 4333
    assert Hand.parse("AS 2S 3S 4S 5S KH 2H 3H QD 2D JC 2C 3C").balanced  # 5332
    assert not Hand.parse("AS 2S 3S 4S 5S KH 2H 3H 4H QD 2D 3D JC").balanced  # 5431
    assert not Hand.parse("AS 2S 3S 4S KH 2H 3H 4H QD 2D 3D 4D 5D").balanced  # 4450


# -- openings -------------------------------------------------------------------------------
def test_1nt_opening_15_to_17_balanced() -> None:
    assert call("AS KS 5S AH QH 7H 4H KD 3D 2D 9C 8C 2C") == "1N"  # 16, 3433


def test_1nt_not_with_14_or_18() -> None:
    assert call("AS KS 5S AH QH 7H 4H JD 3D 2D 9C 8C 2C") != "1N"  # 14
    assert call("AS KS 5S AH QH 7H 4H KD QD 2D 9C 8C 2C") != "1N"  # 18


def test_2nt_opening_20_21() -> None:
    assert call("AS KS 5S AH KH 7H 4H KD QD 2D AC 8C 2C") == "2N"  # 21


def test_major_opening_with_five_cards() -> None:
    assert call("AS KS 9S 5S 3S AH 7H 4H QD 3D 2D 8C 2C") == "1S"  # 13, five spades
    assert call("AS KS 9S 5S 3S AH QH 7H 6H 4H 2D 8C 2C") == "1S"  # 5-5 majors: spades
    assert call("AH KH 9H 5H 3H AS 7S 4S QD 3D 2D 8C 2C") == "1H"


def test_minor_opening_without_a_five_card_major() -> None:
    assert call("AS KS 9S 5S AH 7H 4H QD 3D 2D JC 8C 2C") == "1C"  # 3-3 minors
    assert call("AS KS 9S 5S AH 7H QD 3D 2D 4D JC 8C 2C") == "1D"  # 4-3 minors
    assert call("AS KS 9S 5S AH QD 3D 2D 4D JC 8C 2C 3C") == "1D"  # 4-4 minors


def test_pass_without_opening_values() -> None:
    assert call("AS 9S 5S 4S KH 7H 4H QD 3D 2D JC 8C 2C") == "P"  # 10, flat
    assert call("2S 3S 4S 5S 2H 3H 4H 5H 2D 3D 4D 5D 2C") == "P"


# -- responses ------------------------------------------------------------------------------
RESPONDER = 2  # N deals and opens, E passes, S responds


def test_simple_raise_of_a_major() -> None:
    # 8 HCP, three hearts, 4333.
    assert call("KS 5S 4S 3S QH 7H 4H QD 3D 2D JC 8C 2C", "1H P") == "2H"


def test_limit_raise_and_game_raise() -> None:
    assert call("KS 5S 4S 3S QH 7H 4H AD 3D 2D JC 8C 2C", "1H P") == "3H"  # 12 with shortness? 4333 = 11
    assert call("KS 5S 4S 3S QH 7H 4H AD KD 2D JC 8C 2C", "1H P") == "4H"  # 14


def test_pass_with_a_weak_hand() -> None:
    assert call("9S 5S 4S 3S QH 7H 4H 8D 3D 2D JC 8C 2C", "1H P") == "P"  # 3 HCP


def test_new_major_at_one_level() -> None:
    assert call("KS JS 5S 3S 7H 4H QD 8D 3D JC 8C 5C 2C", "1D P") == "1S"


def test_responses_to_1nt() -> None:
    assert call("KS 5S 4S QH 7H 4H AD 3D 2D JC 8C 5C 2C", "1N P") == "3N"  # 10, 3334
    assert call("9S 5S 4S QH 7H 4H 8D 3D 2D JC 8C 5C 2C", "1N P") == "P"   # 3
    assert call("KS QS 5S 4S 7H 4H AD 3D 2D JC 8C 5C 2C", "1N P") == "2C"  # Stayman
    assert call("KS QS 9S 7S 5S 4S AD 3D 2D JC 8C 5C 2C", "1N P") == "4S"  # six spades, 10


def test_opener_answers_stayman() -> None:
    assert call("AS KS 5S AH QH 7H 4H KD 3D 2D 9C 8C 2C", "1N P 2C P") == "2H"
    assert call("AS KS 5S 3S QH 7H 4H KD 3D 2D AC 8C 2C", "1N P 2C P") == "2S"
    assert call("AS KS 5S AH QH 7H KD 4D 3D 2D 9C 8C 2C", "1N P 2C P") == "2D"


# -- reaching (and not overreaching) game ------------------------------------------------------
def test_game_in_a_major_fit() -> None:
    north = "AS KS 9S 5S 3S AH 7H 4H QD 3D 2D 8C 2C"   # 13, five spades
    south = "QS JS 4S KH 8H 5H KD 8D 4D QC 9C 5C 3C"   # 11, three spades
    assert bid_uncontested(north, south)[-4] == "4S"


def test_3nt_with_combined_26_balanced() -> None:
    north = "AS KS 5S AH QH 7H 4H KD 3D 2D 9C 8C 2C"   # 16 balanced
    south = "QS 9S 4S KH 8H 5H QD 8D 4D KC 9C 5C 3C"   # 10 balanced
    assert bid_uncontested(north, south)[-4] == "3N"


def test_partscore_with_combined_20() -> None:
    north = "AS KS 9S 5S 3S AH 7H 4H QD 3D 2D 8C 2C"   # 13
    south = "QS 8S 4S 9H 8H 5H JD 8D 4D QC 9C 5C 3C"   # 5? (Q J Q = 5) -> passes
    auction = bid_uncontested(north, south)
    assert auction[-4] in ("1S", "2S")
    south2 = "QS 8S 4S 9H 8H 5H KD 8D 4D QC 9C 5C 3C"  # 7, three spades
    assert bid_uncontested(north, south2)[-4] == "2S"


def test_weak_pair_stays_low_and_passed_out() -> None:
    weak = "9S 8S 4S 9H 8H 5H 7D 8D 4D 6C 9C 5C 3C"
    assert bid_uncontested(weak, weak.replace("9S", "2S").replace("9H", "2H")) == ["P"] * 4


def test_never_beyond_combined_values() -> None:
    # 13 + 12 HCP, no fit anywhere: no slam, no five-level.
    north = "AS KS 9S 5S AH 7H 4H QD 3D 2D JC 8C 2C"
    south = "QS JS 4S KH 8H 5H KD 8D 4D QC 9C 5C 3C"
    final = bid_uncontested(north, south)[-4]
    assert int(final[0]) <= 3


# -- competition and doubles ---------------------------------------------------------------------
def test_penalty_double_of_a_seven_level_contract() -> None:
    # E bid 7N; S holds two aces: it beats the contract.
    hand = "AS 9S 4S AH 8H 5H 7D 8D 4D 6C 9C 5C 3C"
    a = "1C 7N"
    legal = [PASS, DOUBLE] + []
    assert call(hand, a, legal=legal) == "X"


def test_no_double_of_a_low_contract_without_tricks() -> None:
    hand = "QS 9S 4S 7H 8H 5H 7D 8D 4D 6C 9C 5C 3C"
    a = Auction.from_tokens(0, "P 2S".split())
    legal = [PASS, DOUBLE] + list(range(69, 90))
    assert choose_call(Hand.parse(hand), a, 2, legal) != DOUBLE


def test_pass_partners_penalty_double() -> None:
    hand = "KS QS JS TS 9S 8S 4S 7D 8D 4D 6C 9C 5C"
    a = Auction.from_tokens(0, "1C 4H X".split())  # N 1C, E 4H, S doubles; W's turn... now N
    assert choose_call(Hand.parse(hand), Auction.from_tokens(0, "1C 4H X P".split()), 0,
                       [PASS] + list(range(74, 90))) == PASS
    assert a.doubler() == 2


def test_reads_partners_1nt_opening() -> None:
    s = shown(Auction.from_tokens(0, ["1N", "P"]), 0)
    assert (s.lo, s.hi, s.balanced) == (15, 17, True)


@pytest.mark.parametrize("tokens", ["", "1C", "1C 1H", "1N P 2C", "P P 1S 2H 4S"])
def test_always_legal(tokens: str) -> None:
    for hand in ["AS KS QS JS AH KH QH JH AD KD QD JD AC",
                 "2S 3S 4S 5S 2H 3H 4H 5H 2D 3D 4D 5D 2C"]:
        a = Auction.from_tokens(0, tokens.split())
        seat = len(a.calls) & 3
        legal = legal_calls(a, seat)
        assert choose_call(Hand.parse(hand), a, seat, legal) in legal
