"""Worked scoring examples of rules section 14, played from stacked decks."""

from __future__ import annotations

import pytest
from canasta_helpers import draw_and_discard, play, stack

from arena.games.canasta import CanastaGame
from arena.games.canasta.rules import Rules, DEFAULT_OPTIONS
from arena.games.canasta.scoring import score_side


def example1(preset: str = "classic"):
    g = CanastaGame(preset=preset, deals=1)
    hands = {
        0: "KC KD KH KS KC KD KH KS AC AD AH".split(),                 # N
        1: "3D QC QD QH 2C JK 8C 8D 4C 5C 9C".split(),                 # E (+ JC replacement)
        2: "3H 7C 7D 7H 7S 7C 2D JK 9D 5D 4D".split(),                 # S (+ 6C replacement)
        3: "3H 6D 6H 6S 6C AS 3S TC 4S 7D 9S".split(),                 # W (+ JD replacement)
    }
    # at the deal, in play order N, E, S, W: E's, S's and W's red threes are replaced
    draws = ["JC", "6S", "JD",
             "9H", "8H", "5H", "4H", "TH"]  # N, E, S, W, N draw these (and discard them)
    deck = stack(g, hands, ["JH"], draws, first_dealer=3)
    s = g.new_initial_state(deck=deck, first_dealer=3)
    play(s, "draw", "meld K:KC,KD,KH,KS,KC", "discard 9H",
         "draw", "meld Q:QC,QD,QH,2C", "discard 8H",
         "draw", "meld 7:7C,7D,7H,7S,7C,2D,JK", "discard 5H",
         "draw", "meld 6:6D,6H,6S,6C", "discard 4H",
         "draw", "meld K:KD,KH,KS A:AC,AD,AH", "discard TH")
    return s


def test_example1_classic_normal_going_out() -> None:
    s = example1()
    assert s.is_terminal()
    d = s.hand_details[0]
    assert d["went_out"] == 0 and not d["concealed"]
    ns, ew = d["sides"]
    assert ns == {"canastas": 800, "red_threes": 100, "going_out": 100, "melded": 235, "in_hand": -25,
                  "total": 1210}
    assert ew == {"canastas": 0, "red_threes": 200, "going_out": 0, "melded": 70, "in_hand": -165,
                  "total": 105}
    assert s.scores == [1210, 105]
    assert s.revealed[1] == ("4C", "5C", "8C", "9C", "JC", "8D", "JK")


def example2(preset: str):
    g = CanastaGame(preset=preset, deals=1)
    hands = {
        3: "7C 7D 7H 7S 7C 7D 7H 4C 4D 4H 2C".split(),                 # W
        0: "3H AC AD KC 9C 5C 5D 3C 6C 6D 8C".split(),                 # N (+ TC replacement)
        1: "3D KD KH QC 2D JK 4S 4C 5H 5S 6H".split(),                 # E (+ 6S replacement)
        2: "JK 2H 2S 8D 9D 9H TD TH JC JD QD".split(),                 # S
    }
    deck = stack(g, hands, ["9S"], ["TC", "6S", "JH"], first_dealer=2)
    s = g.new_initial_state(deck=deck, first_dealer=2, start_scores=[0, 3150])
    assert s.requirement == [50, 120] and s.current_player() == 3
    play(s, "draw", "meld 7:7C,7D,7H,7S,7C,7D,7H 4:4C,4D,4H,2C", "discard JH")
    return s


@pytest.mark.parametrize(("preset", "ew"), [("classic", 740), ("classic-004", 840)])
def test_example2_concealed_going_out_skips_minimum(preset: str, ew: int) -> None:
    s = example2(preset)
    d = s.hand_details[0]
    assert d["went_out"] == 3 and d["concealed"]
    ns_row, ew_row = d["sides"]
    assert ew_row["going_out"] == 200 and ew_row["melded"] == 70 and ew_row["in_hand"] == -130
    assert ew_row["total"] == ew
    assert ns_row == {"canastas": 0, "red_threes": -100, "going_out": 0, "melded": 0, "in_hand": -275,
                      "total": -375}
    assert s.scores == [-375, 3150 + ew]


def test_example2_without_exemption_the_minimum_applies() -> None:
    g = CanastaGame(deals=1)
    hands = {
        3: "7C 7D 7H 7S 7C 7D 7H 4C 4D 4H 2C".split(),
        0: "3H AC AD KC 9C 5C 5D 3C 6C 6D 8C".split(),
        1: "3D KD KH QC 2D JK 4S 4C 5H 5S 6H".split(),
        2: "JK 2H 2S 8D 9D 9H TD TH JC JD QD".split(),
    }
    s = g.new_initial_state(deck=stack(g, hands, ["9S"], ["TC", "6S", "JH"], first_dealer=2),
                            first_dealer=2, start_scores=[0, 3150])
    play(s, "draw")
    why = s.problem(s.string_to_action("meld 7:7C,7D,7H,7S,7C,7D,7H"))
    assert why is not None and "below the minimum 120" in why


def test_example3_stock_exhausted_four_red_threes() -> None:
    g = CanastaGame(deals=1)
    hands = {
        0: "3H 3D TC TD TH TS JK 4C KC KD 6C".split(),                 # N (+ 6D, 9C)
        1: "9C 9D 9H QD QH QS KH JD 9S 8D 4D".split(),                 # E
        2: "3H 3D TC TD 5C 5D 5H 2C JC AC QC".split(),                 # S (+ 8C, 7C)
        3: "AD AH 6H 3S 3C 7D 7H 8H JH KS 4H".split(),                 # W
    }
    deck = stack(g, hands, ["5S"], ["6D", "9C", "8C", "7C"], first_dealer=3, last=["3S"])
    s = g.new_initial_state(deck=deck, first_dealer=3)
    assert [len(r) for r in s.red3] == [4, 0]
    seat_n = s.current_player()
    assert seat_n == 0
    play(s, "draw")
    f = [c for c in s.hands[0] if c not in ("TC", "TD", "TH", "TS", "JK", "4C", "KC", "KD", "6C", "6D", "9C")]
    play(s, "meld T:TC,TD,TH,TS,JK", f"discard {f[0]}")
    play(s, "draw")
    f = [c for c in s.hands[1] if c not in "9C 9D 9H QD QH QS KH JD 9S 8D 4D".split()]
    play(s, "meld 9:9C,9D,9H Q:QD,QH,QS", f"discard {f[0]}")
    play(s, "draw")
    f = [c for c in s.hands[2] if c not in "TC TD 5C 5D 5H 2C JC AC QC 8C 7C".split()]
    play(s, "meld T:TC,TD 5:5C,5D,5H", f"discard {f[0]}")
    while not s.is_terminal():
        draw_and_discard(s)
    assert len(s.hand_scores) == 1
    d = s.hand_details[0]
    assert d["went_out"] == -1
    assert s.pile[-1] == "3S" and s.stock_pos == len(s.deck)
    assert d["sides"][0] == {"canastas": 300, "red_threes": 800, "going_out": 0, "melded": 125,
                             "in_hand": -120, "total": 1105}
    assert d["sides"][1]["total"] == -85
    assert s.scores == [1105, -85]


def test_example3_unmelded_red_threes_count_minus_800() -> None:
    rules = Rules.from_options(DEFAULT_OPTIONS)
    assert score_side(rules, {}, (), 4, False, False, [], False).red_threes == -800
    hung = Rules.from_options({**DEFAULT_OPTIONS, **CanastaGame.presets["hungarian"]})
    assert score_side(hung, {}, (), 4, False, False, [], False).red_threes == -400


def test_example4_hungarian_concealed_out_doubles_others() -> None:
    g = CanastaGame(preset="hungarian", deals=1)
    hands = {
        0: "3H 8C 8D 8H 8S 8C 8D 8H 3S 3C 3S".split(),                 # A
        1: "9C 9D 9H KC KD KH KS 2C JK 3C 6C".split(),                 # B
        2: "3D 3H AC 7C 7D 4C 4D 5C 6C 6D 9D".split(),                 # C
        3: "3D JK JK 2D 2H 2S 2C 2D 5D 5H 5S".split(),                 # D
    }
    draws = ["8S", "QC", "TC", "TD", "JD", "QH", "KH", "QS", "QD"]
    deck = stack(g, hands, ["9S"], draws, first_dealer=3)
    s = g.new_initial_state(deck=deck, first_dealer=3)
    assert s.hands[0]["3H"] == 0 and s.red3[0] == ["3H"]  # placed at A's first turn
    assert s.hands[2]["3D"] == 1  # C's wait for C's first turn
    play(s, "draw", "discard QC",
         "draw", "meld 9:9C,9D,9H K:KC,KD,KH,KS,2C", "discard TC",
         "draw", "discard QH",
         "draw", "meld WILD:2C,2D,2D,2H,2S,JK,JK 5:5D,5H,5S", "discard QS",
         "draw", "meld 8:8C,8C,8D,8D,8H,8H,8S,8S BLACK3:3C,3S,3S", "discard QD")
    d = s.hand_details[0]
    assert d["went_out"] == 0 and d["concealed"]
    totals = [row["total"] for row in d["sides"]]
    assert totals == [895, -220, -370, 1295]
    assert d["sides"][1]["in_hand"] == -310 and d["sides"][2]["in_hand"] == -170
    assert d["sides"][3]["canastas"] == 1000 and d["sides"][2]["red_threes"] == -200


def hungarian_at(score: int, hand: list[str], top: str | None = None):
    g = CanastaGame(preset="hungarian", deals=1)
    filler = {1: "9C 9D 9H QC QD QH 5C 5D 5H 6C 6D".split(),
              2: "9S TC TD TH TS JC JD JH JS 6H 6S".split(),
              3: "7C 7D 7H 7S 8C 8D 8H 8S AH AS KH".split()}
    deck = stack(g, {0: hand, **filler}, [top or "JC"], ["KS"], first_dealer=3)
    s = g.new_initial_state(deck=deck, first_dealer=3, start_scores=[score, 0, 0, 0])
    return s


def test_example5_hungarian_substituted_opening_values() -> None:
    s = hungarian_at(1600, "KC KD 2C AC AD JK 7C 7D 7H 5S 4S".split())
    assert s.requirement[0] == 90
    play(s, "draw")
    assert s.problem(s.string_to_action("meld K:KC,KD,2C A:AC,AD,JK 7:7C,7D,7H")) is None
    assert s.problem(s.string_to_action("meld K:KC,KD,2C A:AC,AD,JK")) is None  # exactly 90
    why = s.problem(s.string_to_action("meld K:KC,KD,2C 7:7C,7D,7H"))
    assert why is not None and "counts 45, below the minimum 90" in why
    # the same melds at classic face values would count 145
    c = CanastaGame(deals=1).new_initial_state(seed=1, start_scores=[1600, 0])
    assert c.requirement[0] == 90


@pytest.mark.parametrize("score", [3200, 4200])
def test_example5_canasta_opening(score: int) -> None:
    s = hungarian_at(score, "4C 4D 4H 4S 4C 4D 2C AC 9S KC QC".split())
    assert s.requirement[0] == (120 if score < 4000 else -1)
    play(s, "draw")
    assert s.problem(s.string_to_action("meld 4:4C,4D,4H,4S,4C,4D,2C")) is None
    why = s.problem(s.string_to_action("meld 4:4C,4D,4H,4S,4C,2C"))  # six cards: no canasta
    if score < 4000:
        assert why is not None and "counts 30, below the minimum 120" in why
    else:
        assert why is not None and "needs a canasta in this action" in why


def test_example5_canasta_by_taking_frozen_pile() -> None:
    s = hungarian_at(4200, "4C 4D 4H 4S 4C 2C AC 9S KC QC JK".split(), top="4D")
    assert s.pile == ["4D"]
    s.pile.insert(0, "2D")  # make the pile frozen (a wild card below the top)
    s.pile_wild += 1
    assert s._frozen()
    take = s.string_to_action("take 4:4C,4C,4D,4H,4S,2C")
    assert s.problem(take) is None
    assert "needs a canasta" in s.problem(s.string_to_action("take 4:4C,4D,4H,4S,2C"))
