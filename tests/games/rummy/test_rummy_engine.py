"""Rummy engine: melds (section 5), action text, validation checks, deal flow, scoring, observation."""

from __future__ import annotations

import pytest
from rummy_helpers import act, hand, new_state

from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.games.rummy import PASS, RummyAction
from arena.games.rummy.melds import INDEX, meld_problem

MELDS = [
    ("7H 8H 9H", True), ("AS 2S 3S", True), ("QD KD AD", True),
    ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", True), ("QC QD QS", True), ("5C 5D 5H 5S", True),
    ("KS AS 2S", False), ("7H 8H 8H 9H", False), ("7H 8H 9D", False), ("QC QC QD", False),
    ("5C 5D 5H 5S 5S", False), ("5S 6S", False),
]


@pytest.mark.parametrize("cards,valid", MELDS, ids=[m[0] for m in MELDS])
def test_meld_table(cards: str, valid: bool) -> None:
    assert (meld_problem([INDEX[t] for t in cards.split()]) is None) == valid


def test_canonical_text_and_parse() -> None:
    a = RummyAction.parse('PLAY [["qs","qc","qd"], ["ac","kc","qc"], ["3s","as","2s"], ["4h","5h","6h"]]')
    assert str(a) == "PLAY [QC KC AC] [4H 5H 6H] [AS 2S 3S] [QC QD QS]"
    assert RummyAction.parse(str(a)) == a and eval(repr(a)) == a  # noqa: S307
    assert RummyAction.parse("play([10h, jh, qh])") == RummyAction.parse("PLAY [TH JH QH]")
    assert str(RummyAction.parse(" pass ")) == "PASS" and RummyAction.parse("PASS") == PASS
    # the 13-card run: ace first; runs first, then sets by rank, then suit lists (prefix first)
    b = RummyAction.parse("PLAY [QC QD QH QS] [QC QD QH] [QC QD QS] [2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC]")
    assert str(b) == ("PLAY [AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC] [QC QD QH] [QC QD QH QS] [QC QD QS]")
    for garbage in ("no such action ###", "PLAY [XX]", "PLAY 7H 8H 9H", "DRAW", "PLAY [7H] junk"):
        with pytest.raises(InvalidActionError):
            RummyAction.parse(garbage)
    with pytest.raises(InvalidActionError, match="V1"):
        RummyAction.parse("PLAY " + " ".join("[2C 3C 4C]" for _ in range(35)))


def test_validation_reasons() -> None:
    state = new_state(["4H", "5H", "6H", "7H"], [], draws=["KS", "2D", "8H"])
    with pytest.raises(IllegalActionError, match="V6: .* 8H"):
        act(state, "PLAY [4H 5H 6H 7H 8H]")
    with pytest.raises(IllegalActionError, match=r"V2: \[4H 5H\]"):
        act(state, "PLAY [4H 5H] [6H 7H]")
    with pytest.raises(InvalidActionError):
        state.apply_action("PLAY [4H 5H 6H]")  # text, not an action value
    act(state, "PLAY [4H 5H 6H 7H]")
    act(state, "PASS")
    # seat 1 melded; taking the whole run back is V4
    with pytest.raises(IllegalActionError, match="V4: hand would not shrink"):
        act(state, "PLAY [4H 5H 6H]")
    act(state, "PLAY [4H 5H 6H 7H 8H]")


def test_strict_table_forbids_taking() -> None:
    state = new_state(["4C", "5C", "6C", "7C", "9D", "9H", "9S"], [], draws=["KS", "2D", "3D"],
                      strict_table=True)
    act(state, "PLAY [4C 5C 6C 7C]")
    act(state, "PASS")
    with pytest.raises(IllegalActionError, match="strict_table: table card 7C"):
        act(state, "PLAY [4C 5C 6C] [9D 9H 9S]")
    act(state, "PLAY [4C 5C 6C 7C] [9D 9H 9S]")


def test_blocked_deal_and_never_melded_scoring() -> None:
    game = get_game("rummy", players=2, deals=1)
    state = game.new_initial_state(seed=5)
    turns = 0
    while not state.is_terminal():
        state.apply_action(PASS)
        turns += 1
    # 84 drawing turns, then 2 turns without a draw
    assert turns == 86
    result = state.deal_results[0]
    assert result["end"] == "blocked" and result["winner"] is None
    assert state.returns() == [-10.0 * 52, -10.0 * 52]


def test_scoring_example_of_section_10() -> None:
    state = get_game("rummy", players=4, deals=1).new_initial_state(seed=1)
    # rewrite the end position of the rules' example: seat 1 went out
    hands = {0: ["2S"], 1: [], 2: ["7D", "KC", "AH"], 3: ["2C"] * 2 + ["3C"] * 2 + ["4C"] * 2 + ["5C"] * 2 + ["6C"] * 2 + ["7C"]}
    for seat, cards in hands.items():
        counts = [0] * 52
        for t in cards:
            counts[INDEX[t]] += 1
        state.hands[seat] = counts
        state.hand_size[seat] = len(cards)
    state.melded = [True, True, True, False]
    state._end_deal(1, "out")
    assert state.deal_results[0]["scores"] == [-2, 20, -27, -110]
    assert state.is_terminal()
    assert "first 1" in state.game.describe(state)
    sheet = state.game.score_sheet(state)
    assert sheet[0]["deal"] == 1 and sheet[0]["winner"] == 1 and sheet[0]["total 2"] == -27


def test_deal_flow_and_observation() -> None:
    game = get_game("rummy", players=3)
    state = game.new_initial_state(seed=11)
    obs = state.observation(1)
    assert state.current_player() == 1 and obs.dealer == 0
    assert len(obs.hand) == 11 and obs.drawn in obs.hand and obs.hand_sizes == (10, 11, 10)
    assert obs.stock_size == 104 - 30 - 1 and obs.initial_meld_pending and obs.table == ()
    other = state.observation(2)
    assert other.drawn is None and len(other.hand) == 10
    # hidden positions: the other hands and the stock, never the seat's own cards
    hidden = set(state.hidden_positions(2))
    own = {(0, j) for j in range(30) if (0 + 1 + j) % 3 == 2}
    assert not hidden & own and (0, 31) in hidden and (0, 30) in hidden
    # play on: every listed play is legal and shrinks the hand
    rng = SeedStream("flow")
    deals_seen = {0}
    while not state.is_terminal():
        seat = state.current_player()
        before = state.hand_size[seat]
        action = rng.choice(state.legal_actions())
        deal = state.deal_index
        state.apply_action(action)
        if isinstance(action, RummyAction) and not action.is_pass and state.deal_index == deal:
            assert state.hand_size[seat] <= before - 1
        deals_seen.add(state.deal_index)
    assert deals_seen == {0, 1, 2}
    assert [r["dealer"] for r in state.deal_results] == [0, 1, 2]


def test_legal_actions_sorted_unique_and_valid() -> None:
    state = get_game("rummy", players=2).new_initial_state(seed=3)
    rng = SeedStream("legal")
    for _ in range(60):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert legal[0] == PASS and len(set(legal)) == len(legal)
        assert legal == sorted(legal, key=lambda a: a.sort_key())
        for a in legal:
            state.validate(a)
        state.apply_action(rng.choice(legal))
