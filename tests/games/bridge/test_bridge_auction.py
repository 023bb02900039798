"""Auction rules: legal calls, precise reasons, end of the auction, declarer."""

from __future__ import annotations

import pytest

from arena.core.errors import IllegalActionError, InvalidActionError
from arena.games.bridge import Call, Phase
from arena.games.bridge.actions import (AUCTION_LEGAL, DOUBLE, PASS, REDOUBLE, bid_id,
                                      call_to_string, string_to_call)

from bridge_helpers import calls, stacked


def reason(state, token: str) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(string_to_call(token))
    return info.value.reason


def test_action_ids() -> None:
    assert string_to_call("P") == PASS == 52
    assert string_to_call("X") == DOUBLE == 53
    assert string_to_call("XX") == REDOUBLE == 54
    assert string_to_call("1C") == 55 and string_to_call("1NT") == 59
    assert string_to_call("7N") == 89 and bid_id(3, 4) == 69
    assert [call_to_string(a) for a in (52, 53, 54, 55, 59, 60, 89)] == ["P", "X", "XX", "1C", "1N", "2C", "7N"]
    assert str(Call.parse("3nt")) == "3N" and eval(repr(Call.parse("4S"))) == Call.parse("4S")
    assert Call.parse("4S").level == 4 and Call.parse("4S").strain == 3
    with pytest.raises(InvalidActionError):
        string_to_call("8C")
    assert len(AUCTION_LEGAL) == 36 * 3


@pytest.mark.parametrize("board", [1, 2, 3, 4])
def test_dealer_calls_first(board: int) -> None:
    state = stacked(board=board)
    assert state.current_player() == (board - 1) % 4
    assert state.legal_actions() == [52] + list(range(55, 90))
    assert state.phase is Phase.AUCTION


def test_double_and_redouble_rules() -> None:
    state = stacked()
    assert reason(state, "X") == "cannot double: no bid has been made"
    assert reason(state, "XX") == "cannot redouble: no bid has been made"
    calls(state, "1H")  # N
    assert 53 in state.legal_actions() and 54 not in state.legal_actions()  # E may double
    calls(state, "P")  # E
    assert "own side" in reason(state, "X")  # S: partner's bid
    assert "has not been doubled" in reason(state, "XX")
    calls(state, "P X")  # S passes, W doubles in the pass-out seat
    assert state.legal_actions()[:2] == [52, 54]  # N may redouble his own bid
    assert "own side" in reason(state, "X")
    calls(state, "P")  # N passes
    assert "already doubled" in reason(state, "X")  # E
    assert "your opponents' bid" in reason(state, "XX")  # E cannot redouble
    calls(state, "P")
    calls(state, "XX")  # S, partner of the bidder, redoubles
    assert "already redoubled" in reason(state, "XX")
    assert "already redoubled" in reason(state, "X")
    calls(state, "P P P")
    assert state.contract == "1HXX" and state.declarer == 0 and state.dummy == 2
    assert state.phase is Phase.PLAY


def test_insufficient_bids() -> None:
    state = stacked()
    calls(state, "2H")
    r = reason(state, "1S")
    assert r.startswith("insufficient bid: 1S does not outrank the last bid 2H")
    assert "insufficient" in reason(state, "2H")
    assert "insufficient" in reason(state, "2D")
    calls(state, "2S")
    assert "insufficient" in reason(state, "2S")
    calls(state, "2N 3C")


def test_card_during_auction() -> None:
    state = stacked()
    with pytest.raises(IllegalActionError, match="auction is in progress"):
        state.apply_action(51)
    with pytest.raises(InvalidActionError):
        state.apply_action(90)
    with pytest.raises(InvalidActionError):
        state.apply_action("1C")  # text is not an id
    assert state.string_to_action("2C") == 60  # a bid in the auction


def test_new_bid_cancels_double() -> None:
    state = stacked()
    calls(state, "1H X 2C P P P")
    assert state.contract == "2C" and state.declarer == 2


def test_double_ends_with_three_passes() -> None:
    state = stacked()
    calls(state, "1H X P P P")
    assert state.contract == "1HX" and state.declarer == 0


def test_declarer_is_first_to_name_the_strain() -> None:
    state = stacked()
    calls(state, "1H P 4H P P P")
    assert state.declarer == 0 and state.contract == "4H"
    state = stacked()
    calls(state, "1C P 1H P 2H P P P")  # S named hearts first
    assert state.declarer == 2 and state.dummy == 0
    assert state.current_player() == 3  # W leads


def test_passed_out_board() -> None:
    state = stacked(board=2)
    calls(state, "P P P")
    assert not state.is_terminal()
    calls(state, "P")
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0, 0.0]
    assert state.contract == "Pass"
    assert state.game.describe(state) == "Board 2: passed out, 0"


def test_longest_auction_has_319_calls() -> None:
    state = stacked()
    calls(state, "P P P")
    for b in range(55, 90):
        calls(state, call_to_string(b) + " P P X P P XX P P")
    calls(state, "P")
    assert len(state.calls) == 319 and state.phase is Phase.PLAY
    assert state.contract == "7NTXX"
    assert state.game.max_game_length >= 319 + 52
