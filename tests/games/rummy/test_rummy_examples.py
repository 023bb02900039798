"""Section 13 of rules/rummy.md: every worked example as a stacked-deck table test.

Seat 1 (first to play) lays the table melds as its initial meld on turn 1, seat 0
passes, and on turn 3 seat 1 (now melded, after its second draw) makes the play.
"""

from __future__ import annotations

import pytest
from rummy_helpers import act, hand, new_state, table_text

from arena.core.errors import IllegalActionError


def _melded_position(table: list[str], holds: list[str], last_draw: str | None = None):  # type: ignore[no-untyped-def]
    """Seat 1 has laid ``table`` (its initial meld) and holds ``holds`` after its second draw."""
    cards = [c for meld in table for c in meld.split()]
    held = list(holds)
    second = last_draw or held.pop()
    first_draw = "KS"  # a filler drawn on turn 1
    state = new_state(cards + held, [], draws=[first_draw, "2D", second])
    act(state, "PLAY " + " ".join(f"[{m}]" for m in table))
    act(state, "PASS")
    assert state.current_player() == 1 and state.melded[1]
    for c in holds:
        assert c in hand(state, 1)
    return state


CASES = [
    # (example, table, hand cards, layout, valid, check, hand change)
    ("1 extend", ["4H 5H 6H 7H"], ["8H"], "[4H 5H 6H 7H 8H]", True, None, -1),
    ("2 split for a set", ["2S 3S 4S 5S 6S 7S 8S"], ["5D", "5C"], "[2S 3S 4S] [6S 7S 8S] [5S 5D 5C]", True, None, -2),
    ("3 take into hand", ["4C 5C 6C 7C"], ["9D", "9H", "9S"], "[4C 5C 6C] [9D 9H 9S]", True, None, -2),
    ("4 steal from four", ["QC QD QH QS"], ["JD", "KD"], "[QC QH QS] [JD QD KD]", True, None, -2),
    ("5a net one", ["4C 5C 6C 7C"], ["8C"], "[4C 5C 6C 7C 8C]", True, None, -1),
    ("5b net zero", ["4C 5C 6C 7C"], ["8C"], "[5C 6C 7C 8C]", False, "V4", 0),
    ("6a fragment used", ["3S 4S 5S 6S"], ["6D", "6C"], "[3S 4S 5S] [6S 6D 6C]", True, None, -2),
    ("6b fragment left", ["3S 4S 5S 6S"], ["6D", "6C"], "[3S 4S 5S 6S] [6D 6C]", False, "V2", 0),
]


@pytest.mark.parametrize("name,table,holds,layout,valid,check,delta", CASES, ids=[c[0] for c in CASES])
def test_worked_example(name, table, holds, layout, valid, check, delta) -> None:  # type: ignore[no-untyped-def]
    state = _melded_position(table, holds)
    before_hand = hand(state, 1)
    before_table = table_text(state)
    if valid:
        act(state, "PLAY " + layout)
        after = hand(state, 0 if False else 1)
        assert len(after) == len(before_hand) + delta
        assert state.current_player() == 0
    else:
        with pytest.raises(IllegalActionError, match=check):
            act(state, "PLAY " + layout)
        # refused as a whole: nothing changed, the referee then applies PASS
        assert hand(state, 1) == before_hand and table_text(state) == before_table
        state.apply_action(state.default_action())
        assert hand(state, 1) == before_hand and table_text(state) == before_table
        assert state.current_player() == 0


def test_example_3_card_goes_to_hand() -> None:
    state = _melded_position(["4C 5C 6C 7C"], ["9D", "9H", "9S"])
    act(state, "PLAY [4C 5C 6C] [9D 9H 9S]")
    assert "7C" in hand(state, 1)
    assert state.log[-1].taken == ("7C",) and state.log[-1].played == ("9D", "9H", "9S")


def test_example_7_initial_meld_may_not_touch_table() -> None:
    # seat 1 lays 9C 9D 9H; seat 0 (not melded) holds 9S 2H 3H and AH
    state = new_state(["9C", "9D", "9H"], ["9S", "2H", "3H", "AH"], draws=["KS", "KS"])
    act(state, "PLAY [9C 9D 9H]")
    assert state.current_player() == 0 and not state.melded[0]
    with pytest.raises(IllegalActionError, match="V5"):
        act(state, "PLAY [9C 9D 9H 9S]")
    act(state, "PLAY [9C 9D 9H] [AH 2H 3H]")
    assert state.melded[0]
    assert table_text(state) == "[AH 2H 3H] [9C 9D 9H]"


def test_example_7_v6_table_card_in_new_meld() -> None:
    state = new_state(["9C", "9D", "9H", "9C", "9D", "9H"], ["8H", "TH", "9S"], draws=["KS", "KS"])
    act(state, "PLAY [9C 9D 9H] [9C 9D 9H]")
    # seat 0 tries to build 8H 9H TH with a 9H from the table, keeping the melds' shape
    with pytest.raises(IllegalActionError, match="V5"):
        act(state, "PLAY [9C 9D 9H] [9C 9D 9H 9S]")
    with pytest.raises(IllegalActionError, match="V6: .* 9H"):
        act(state, "PLAY [9C 9D 9H] [9C 9D 9H] [8H 9H TH]")


def test_example_8_going_out_scores_20() -> None:
    table = ["2C 3C 4C", "5D 6D 7D", "8S 9S TS"]
    cards = [c for m in table for c in m.split()]
    state = new_state(cards + ["TD"], ["2H", "5H", "7H", "9H", "JH", "KH", "3S", "5S", "7S", "JS"],
                      draws=["JD", "2D", "QD"], deals=1)
    act(state, "PLAY " + " ".join(f"[{m}]" for m in table))
    act(state, "PASS")
    assert hand(state, 1) == ["TD", "JD", "QD"]
    act(state, "PLAY [2C 3C 4C] [5D 6D 7D] [8S 9S TS] [TD JD QD]")
    assert state.is_terminal()
    # seat 0 never melded: -10 per card (10 dealt + 1 drawn)
    assert state.returns() == [-110.0, 20.0]
    assert state.deal_results[0]["end"] == "out" and state.deal_results[0]["winner"] == 1
