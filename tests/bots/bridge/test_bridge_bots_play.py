"""Card-play decisions of the heuristic bridge bot on constructed positions.

Seats: N=0 E=1 S=2 W=3. Unless stated, S declares 4S and N is dummy.
"""

from __future__ import annotations

from bridge_bot_helpers import cid, legal_cards, obs

from arena.bots.bridge.play import choose_card

DUMMY_N = "AS 5S 4S KH 9H 8H 7D 6D 5D 4D 9C 8C 7C"


def play(o) -> str:  # type: ignore[no-untyped-def]
    from arena.bots.bridge.hand import card_text
    return card_text(choose_card(o, legal_cards(o)))


def test_second_hand_low() -> None:
    # Dummy (N) leads 3H... dummy holds 9H 8H; N leads 8H, E holds K 5 2 of hearts.
    o = obs(seat=1, playing_hand=1, hand="KH 5H 2H QS 6S 2S AD 3D 2D KC 4C 3C 2C",
            dummy_hand="AS 5S 4S 9H 7D 6D 5D 4D 9C 8C 7C 6C", trick_leader=0,
            current_trick="8H")
    assert play(o) == "2H"


def test_third_hand_high_lowest_of_equals() -> None:
    # W leads 4C, dummy N plays 7C; E holds K Q 6 of clubs and plays the queen.
    o = obs(seat=1, playing_hand=1, hand="KC QC 6C QS 6S 2S AD 3D 2D 5H 4H 3H 2H",
            dummy_hand="AS 5S 4S KH 9H 8H 7D 6D 5D 4D 9C 8C", trick_leader=3,
            current_trick="4C 7C")
    assert play(o) == "QC"


def test_cheapest_winner_in_fourth_seat() -> None:
    # S leads 5D, W plays 7D, dummy N plays JD; E holds A Q 9 of diamonds: the queen wins.
    o = obs(seat=1, playing_hand=1, hand="AD QD 9D QS 6S 2S 5H 4H 3H 2H KC 6C 2C",
            dummy_hand="AS 5S 4S KH 9H 8H 7C 6D 4D 9C 8C 7H", trick_leader=2,
            current_trick="5D 7D JD")
    assert play(o) == "QD"


def test_do_not_overtake_partners_winner() -> None:
    # S leads 5D, W (partner of E) plays KD, dummy plays 3D; E holds A 2 of diamonds.
    o = obs(seat=1, playing_hand=1, hand="AD 2D QS 6S 2S 5H 4H 3H 2H KC 6C 2C 3C",
            dummy_hand="AS 5S 4S KH 9H 8H 7C 6D 4D 9C 8C 7H", trick_leader=2,
            current_trick="5D KD 3D")
    assert play(o) == "2D"


def test_do_not_overtake_a_sure_winner_in_third_seat() -> None:
    # W leads the ace of clubs (a sure winner), dummy follows; E holds K 5 of clubs.
    o = obs(seat=1, playing_hand=1, hand="KC 5C QS 6S 2S 5H 4H 3H 2H AD 6D 3D 2D",
            dummy_hand="AS 5S 4S KH 9H 8H 7D 4D 9C 8C 7H 8D", trick_leader=3,
            current_trick="AC 8C")
    assert play(o) == "5C"


def test_follow_low_when_unable_to_win() -> None:
    o = obs(seat=1, playing_hand=1, hand="9D 8D 2D QS 6S 2S 5H 4H 3H 2H KC 6C 2C",
            dummy_hand="AS 5S 4S KH 9H 8H 7C 6D 4D 9C 8C 7H", trick_leader=2,
            current_trick="5D 7D AD")
    assert play(o) == "2D"


def test_ruff_when_void_and_opponents_win() -> None:
    # Spades are trumps; hearts led by S, W follows, dummy wins with KH; E is void in hearts.
    o = obs(seat=1, playing_hand=1, hand="QS 6S 2S AD 9D 8D 2D KC 6C 2C 3C 4C 5C",
            dummy_hand="AS 5S 4S KH 9H 8H 7C 6D 4D 9C 8C 7H", trick_leader=2,
            current_trick="2H 3H KH")
    assert play(o) == "2S"


def test_discard_from_the_weakest_suit() -> None:
    # No trumps (3NT by S); E cannot follow to hearts: keep the A-K of diamonds and the
    # clubs with the queen; throw a small spade... E holds no honour in spades.
    o = obs(seat=1, playing_hand=1, contract="3NT",
            hand="7S 6S 2S AD KD 8D 2D QC 6C 5C 4C 3C 2C",
            dummy_hand="AS 5S 4S KH 9H 8H 7C 6D 4D 9C 8C 7H", trick_leader=2,
            current_trick="2H 3H KH")
    assert play(o) == "2S"


def test_declarer_draws_trumps() -> None:
    # S declares 4S and won trick 1 with the ace of clubs; the opponents hold five trumps.
    o = obs(seat=2, playing_hand=2, hand="KS QS JS TS 9S AH QH 2H 3D 2D 4C 3C",
            dummy_hand="AS 5S 4S KH 9H 8H 7D 6D 5D 4D 9C 8C", trick_leader=2,
            tricks=((3, ("KC", "5C", "6C", "AC"), 2),))
    assert play(o) == "KS"


def test_declarer_wins_cheaply_in_second_seat_from_dummy() -> None:
    # W leads 2D after the first trick; dummy (N) holds the A-K: N plays the king, the
    # cheapest sure winner (S, playing last, has only the three of diamonds).
    o = obs(seat=2, playing_hand=0, hand="KS QS JS TS 9S AH QH 2H 4C 3C 7C 3D",
            dummy_hand="AS 5S 4S KH 9H 8H AD KD 5D 4D 9C 8C", trick_leader=3,
            current_trick="2D", tricks=((3, ("KC", "5C", "6C", "AC"), 3),))
    assert play(o) == "KD"


def test_opening_lead_top_of_sequence() -> None:
    o = obs(seat=3, playing_hand=3, hand="KH QH JH 4H 9S 5S 8D 6D 3D 9C 5C 4C 2C",
            trick_leader=3, auction=("1S", "P", "4S", "P", "P", "P"), dealer=2)
    assert play(o) == "KH"


def test_opening_lead_partners_suit() -> None:
    # E (partner of W) opened 1D; W leads the top of a doubleton diamond.
    o = obs(seat=3, playing_hand=3, hand="KH QH JH 4H 9S 5S 8D 6D 7C 9C 5C 4C 2C",
            trick_leader=3, auction=("1D", "1S", "P", "2S", "P", "P", "P"), dealer=1,
            contract="2S")
    assert play(o) == "8D"


def test_only_legal_cards() -> None:
    o = obs(seat=1, playing_hand=1, hand="KC 5C QS 6S 2S 5H 4H 3H 2H AD 6D 3D 2D",
            dummy_hand="AS 5S 4S KH 9H 8H 7D 4D 9C 8C 7H 8D", trick_leader=3,
            current_trick="AC 8C")
    assert cid(play(o)) in (cid("KC"), cid("5C"))
