"""Line formats and lenient parsing (reference sections 2, 4 and 6)."""

from __future__ import annotations

import pytest

from arena.bluechip import protocol as P
from arena.bluechip.events import forced_at, position, step_at
from arena.games import get_game


def test_sent_forms() -> None:
    assert P.format_seated(1, "WBridge5") == 'East ("WBridge5") seated'
    assert P.format_teams("BEN", "WB5") == 'Teams : N/S : "BEN" E/W : "WB5"'
    assert [P.format_board(b, (b - 1) % 4, v) for b, v in
            ((1, (False, False)), (2, (True, False)), (3, (False, True)), (4, (True, True)))] == [
        "Board number 1. Dealer North. Neither vulnerable.", "Board number 2. Dealer East. N/S vulnerable.",
        "Board number 3. Dealer South. E/W vulnerable.", "Board number 4. Dealer West. Both vulnerable."]
    assert P.format_hand(["AH", "2C", "TD"]) == "S -. H A. D T. C 2."
    assert P.format_call(1, "4C", "") == "East bids 4C Alert."
    assert P.format_call(2, "7N") == "South bids 7NT" and P.format_call(0, "XX") == "North redoubles"
    assert P.format_play(3, "TD") == "West plays TD"
    assert P.format_connect("X", None) == 'Connecting "X" as ANYPL using protocol version 18'


@pytest.mark.parametrize("line, seat, token, alert", [
    ("North bids 1NT", 0, "1N", None),
    ("WEST PASSES", 3, "P", None),
    ("NORTH DOUBLES", 0, "X", None),
    ("North doubles.", 0, "X", None),
    ("east redoubles\r", 1, "XX", None),
    ("EAST bids 4C Alert.", 1, "4C", ""),
    ("South bids 2C Alert. at least 16 total points.", 2, "2C", "at least 16 total points."),
    ("North bids 1H Infos. C=0-8,HCP=12-14.", 0, "1H", None),
    ("West bids 3 nt", 3, "3N", None),
    ("South  bids  6N", 2, "6N", None),
])
def test_calls_are_read_leniently(line: str, seat: int, token: str, alert: str | None) -> None:
    call = P.parse_call(line)
    assert call is not None and (call.seat, call.token, call.alert) == (seat, token, alert)


@pytest.mark.parametrize("line", ["North bids 8C", "North bids 1Z", "North plays AS", "passes", "!!"])
def test_not_calls(line: str) -> None:
    assert P.parse_call(line) is None


@pytest.mark.parametrize("line, seat, token, dummy", [
    ("South plays 7S", 2, "7S", False),
    ("west plays ts", 3, "TS", False),
    ("EAST plays 10h", 1, "TH", False),
    ("North plays SA", 0, "AS", False),
    ("North plays 4S. Forced", 0, "4S", False),
    ("Dummy plays 8C", -1, "8C", True),
])
def test_cards_are_read_leniently(line: str, seat: int, token: str, dummy: bool) -> None:
    assert P.parse_play(line) == P.PlayLine(seat, token, dummy)


def test_ready_lines() -> None:
    assert P.parse_ready("North ready for teams") == P.Ready(0, "teams")
    assert P.parse_ready("north ready to start.") == P.Ready(0, "start")
    assert P.parse_ready("WEST ready for  NORTH's bid") == P.Ready(3, "bid", 0)
    assert P.parse_ready("East ready for dummy's card to trick 3") == P.Ready(1, "card", -1, 3)
    assert P.parse_ready("East ready for Dummy's card to trick 13") == P.Ready(1, "card", -1, 13)
    assert P.parse_ready("West ready for West's card to trick 1") == P.Ready(3, "card", 3, 1)
    assert P.parse_ready("East ready for dummy.") == P.Ready(1, "dummy")
    assert P.parse_ready("East plays 7S") is None
    assert P.is_received_dummy("North received dummy") and not P.is_received_dummy("North ready for dummy")


def test_connect_lines() -> None:
    c = P.parse_connect('Connecting "BEN" as North using protocol version 18 BEN-21GF 0.8.8.6 x')
    assert c == P.Connect("BEN", 0, 18, "BEN-21GF 0.8.8.6 x")
    assert P.parse_connect('connecting "WB5" as ANYPL using protocol version 18') == P.Connect("WB5", None, 18, "")
    assert P.parse_connect('Connecting BEN as North using protocol version 18') is None


def test_hands_in_every_spelling() -> None:
    want = sorted(["AS", "TS", "4S", "3S", "TH", "8H", "5H", "3H", "KD", "TD", "KC", "TC", "6C"])
    for text in ("S A T 4 3. H T 8 5 3. D K T. C K T 6.", "S A T 4 3.H T 8 5 3.D K T.C K T 6.",
                 "C K T 6. D K T. H T 8 5 3. S A T 4 3.", "S A 10 4 3. H 10 8 5 3. D K 10. C K 10 6."):
        assert sorted(P.parse_hand(text)) == want
    assert P.parse_cards_line("EAST's cards: C A. D -. H.  S K") == (1, ["AC", "KS"])
    assert P.parse_cards_line("Dummy's cards : S 3. H -. D -. C -.") == (-1, ["3S"])
    assert P.parse_board("Board number 3. Dealer SOUTH. E/W vulnerable") == P.BoardLine(3, 2, (False, True))


def test_forced_positions_seen_from_the_seat() -> None:
    game = get_game("bridge")
    state = game.new_initial_state(seed=4)
    for call in ("7N", "X", "XX"):
        state.apply_action(state.string_to_action(call))
    obs = state.observation(3)  # West, after 7NT by North doubled by East, redoubled by South
    step = step_at(obs, position(obs))
    assert step is not None and step.kind == "call" and forced_at(obs, 3, step)
    assert state.legal_actions() == [52]
