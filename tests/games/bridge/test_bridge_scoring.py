"""Table tests for arena.games.bridge.scoring: every worked example of rules/bridge.md
section 10 and reference/duplicate.md sections 1, 2, 3.1 and 4, plus the known bugs."""

from __future__ import annotations

import pytest

from arena.games.bridge.scoring import (RubberScore, board_dealer, board_vulnerability,
                                        duplicate_score, duplicate_score_parts, honours_bonus,
                                        imps, matchpoints, parse_contract, rubber_deal,
                                        trick_points, undertrick_penalty)
from arena.games.bridge.cardmasks import tokens_to_mask

# rules/bridge.md section 10: contract, vulnerable, tricks, rubber (decl. below,
# decl. above, def. above), duplicate.
RULES_ROWS = [
    (1, "1D", False, 7, 20, 0, 0, 70),
    (2, "2H", False, 8, 60, 0, 0, 110),
    (3, "2S", False, 9, 60, 30, 0, 140),
    (4, "1NT", False, 9, 40, 60, 0, 150),
    (5, "3NT", False, 9, 100, 0, 0, 400),
    (6, "3NT", True, 9, 100, 0, 0, 600),
    (7, "4S", False, 11, 120, 30, 0, 450),
    (8, "4S", True, 10, 120, 0, 0, 620),
    (9, "5D", True, 11, 100, 0, 0, 600),
    (10, "4H", False, 12, 120, 60, 0, 480),
    (11, "2CX", False, 8, 80, 50, 0, 180),
    (12, "2HX", True, 8, 120, 50, 0, 670),
    (13, "2NTX", False, 8, 140, 50, 0, 490),
    (14, "1NTXX", False, 7, 160, 100, 0, 560),
    (15, "3DX", True, 10, 120, 250, 0, 870),
    (16, "1CXX", True, 9, 80, 900, 0, 1030),
    (17, "6S", False, 12, 180, 500, 0, 980),
    (18, "6H", True, 12, 180, 750, 0, 1430),
    (19, "6NT", False, 13, 190, 530, 0, 1020),
    (20, "7NT", False, 13, 220, 1000, 0, 1520),
    (21, "7NTXX", True, 13, 880, 1600, 0, 2980),
    (22, "4S", False, 9, 0, 0, 50, -50),
    (23, "4H", True, 8, 0, 0, 200, -200),
    (24, "4SX", False, 7, 0, 0, 500, -500),
    (25, "4HX", True, 8, 0, 0, 500, -500),
    (26, "5CX", False, 7, 0, 0, 800, -800),
    (27, "7SX", True, 12, 0, 0, 200, -200),
    (28, "3NTXX", True, 7, 0, 0, 1000, -1000),
    (29, "4SX", False, 4, 0, 0, 1400, -1400),
]


@pytest.mark.parametrize("row", RULES_ROWS, ids=[f"rules-{r[0]}" for r in RULES_ROWS])
def test_rules_worked_examples(row: tuple) -> None:
    _, contract, vul, tricks, below, above, def_above, dup = row
    assert duplicate_score(contract, vul, tricks) == dup
    assert rubber_deal(contract, vul, tricks) == (below, above, def_above)


def test_rules_row_30_passed_out() -> None:
    assert duplicate_score("Pass", False, 0) == 0
    assert rubber_deal("Pass", True, 0) == (0, 0, 0)


# reference/duplicate.md section 1.5 (score for the declaring side).
REFERENCE_ROWS = [
    (1, "1C", False, 7, 70), (2, "2H", False, 8, 110), (3, "2S", False, 10, 170),
    (4, "1NT", False, 7, 90), (5, "3NT", False, 9, 400), (6, "3NT", True, 10, 630),
    (7, "4S", False, 10, 420), (8, "4H", True, 10, 620), (9, "4H", True, 11, 650),
    (10, "4H", False, 11, 450), (11, "4D", True, 10, 130), (12, "3D", True, 10, 130),
    (13, "3H", True, 10, 170), (14, "5D", True, 11, 600), (15, "5C", False, 11, 400),
    (16, "1SX", False, 7, 160), (17, "1HXX", False, 7, 520), (18, "2CX", True, 8, 180),
    (19, "2SX", False, 8, 470), (20, "2SX", True, 8, 670), (21, "2SX", True, 9, 870),
    (22, "3NTX", False, 9, 550), (23, "1NTXX", False, 8, 760), (24, "6H", False, 12, 980),
    (25, "6NT", True, 12, 1440), (26, "6SX", True, 13, 1860), (27, "7C", False, 13, 1440),
    (28, "7NT", True, 13, 2220), (29, "7SXX", True, 13, 2940), (30, "4S", False, 9, -50),
    (31, "2H", False, 7, -50), (32, "4S", True, 7, -300), (33, "3NT", False, 6, -150),
    (34, "3NTX", False, 6, -500), (35, "3DX", False, 8, -100), (36, "1CX", True, 6, -200),
    (37, "3NTX", False, 5, -800), (38, "3NTX", True, 5, -1100), (39, "4HXX", False, 6, -1600),
    (40, "4HXX", True, 6, -2200), (41, "5HX", False, 9, -300), (42, "Pass", False, 0, 0),
]


@pytest.mark.parametrize("row", REFERENCE_ROWS, ids=[f"ref-{r[0]}" for r in REFERENCE_ROWS])
def test_reference_worked_examples(row: tuple) -> None:
    _, contract, vul, tricks, score = row
    assert duplicate_score(contract, vul, tricks) == score


# BridgeData made-exactly table: contract -> (NV undoubled/doubled/redoubled, V ...).
MADE_EXACTLY = {
    "1C": ((70, 140, 230), (70, 140, 230)), "1D": ((70, 140, 230), (70, 140, 230)),
    "1H": ((80, 160, 520), (80, 160, 720)), "1S": ((80, 160, 520), (80, 160, 720)),
    "1NT": ((90, 180, 560), (90, 180, 760)),
    "2C": ((90, 180, 560), (90, 180, 760)), "2D": ((90, 180, 560), (90, 180, 760)),
    "2H": ((110, 470, 640), (110, 670, 840)), "2S": ((110, 470, 640), (110, 670, 840)),
    "2NT": ((120, 490, 680), (120, 690, 880)),
    "3C": ((110, 470, 640), (110, 670, 840)), "3D": ((110, 470, 640), (110, 670, 840)),
    "3H": ((140, 530, 760), (140, 730, 960)), "3S": ((140, 530, 760), (140, 730, 960)),
    "3NT": ((400, 550, 800), (600, 750, 1000)),
    "4C": ((130, 510, 720), (130, 710, 920)), "4D": ((130, 510, 720), (130, 710, 920)),
    "4H": ((420, 590, 880), (620, 790, 1080)), "4S": ((420, 590, 880), (620, 790, 1080)),
    "4NT": ((430, 610, 920), (630, 810, 1120)),
    "5C": ((400, 550, 800), (600, 750, 1000)), "5D": ((400, 550, 800), (600, 750, 1000)),
    "5H": ((450, 650, 1000), (650, 850, 1200)), "5S": ((450, 650, 1000), (650, 850, 1200)),
    "5NT": ((460, 670, 1040), (660, 870, 1240)),
    "6C": ((920, 1090, 1380), (1370, 1540, 1830)), "6D": ((920, 1090, 1380), (1370, 1540, 1830)),
    "6H": ((980, 1210, 1620), (1430, 1660, 2070)), "6S": ((980, 1210, 1620), (1430, 1660, 2070)),
    "6NT": ((990, 1230, 1660), (1440, 1680, 2110)),
    "7C": ((1440, 1630, 1960), (2140, 2330, 2660)), "7D": ((1440, 1630, 1960), (2140, 2330, 2660)),
    "7H": ((1510, 1770, 2240), (2210, 2470, 2940)), "7S": ((1510, 1770, 2240), (2210, 2470, 2940)),
    "7NT": ((1520, 1790, 2280), (2220, 2490, 2980)),
}


def test_made_exactly_table() -> None:
    checked = 0
    for contract, by_vul in MADE_EXACTLY.items():
        level = int(contract[0])
        for vul, values in zip((False, True), by_vul):
            for risk, expected in zip(("", "X", "XX"), values):
                assert duplicate_score(contract + risk, vul, level + 6) == expected, (contract, risk, vul)
                checked += 1
    assert checked == 210  # 35 contracts x 2 x 3 (the reference's 126 distinct values)


UNDERTRICKS = {  # (doubled, vulnerable) -> cumulative penalty for 1..7 down
    (0, False): [50, 100, 150, 200, 250, 300, 350],
    (0, True): [100, 200, 300, 400, 500, 600, 700],
    (1, False): [100, 300, 500, 800, 1100, 1400, 1700],
    (1, True): [200, 500, 800, 1100, 1400, 1700, 2000],
    (2, False): [200, 600, 1000, 1600, 2200, 2800, 3400],
    (2, True): [400, 1000, 1600, 2200, 2800, 3400, 4000],
}


@pytest.mark.parametrize("key", list(UNDERTRICKS))
def test_undertrick_table(key: tuple[int, bool]) -> None:
    doubled, vul = key
    assert [undertrick_penalty(d, doubled, vul) for d in range(1, 8)] == UNDERTRICKS[key]
    # "each further": +50 / +100 undoubled, +300 doubled, +600 redoubled
    step = {0: 100 if vul else 50, 1: 300, 2: 600}[doubled]
    assert undertrick_penalty(8, doubled, vul) - undertrick_penalty(7, doubled, vul) == step


def test_undertrick_extremes() -> None:
    assert duplicate_score("7NTX", False, 0) == -3500
    assert duplicate_score("7NTX", True, 0) == -3800
    assert duplicate_score("7NTXX", False, 0) == -7000
    assert duplicate_score("7NTXX", True, 0) == -7600


def test_reference_algorithm_agrees_everywhere() -> None:
    """The section 1.4 reference algorithm over all 2940 combinations."""
    def ref(level: int, strain: str, dbl: int, vul: bool, tricks: int) -> int:
        need = level + 6
        diff = tricks - need
        if diff >= 0:
            per = 20 if strain in "CD" else 30
            trick = (per * level + (10 if strain == "N" else 0)) * [1, 2, 4][dbl]
            s = trick + ((500 if vul else 300) if trick >= 100 else 50)
            s += {6: (750 if vul else 500), 7: (1500 if vul else 1000)}.get(level, 0)
            s += [0, 50, 100][dbl]
            s += diff * (per if dbl == 0 else (200 if vul else 100) * dbl)
            return s
        return -undertrick_penalty(-diff, dbl, vul)

    n = 0
    for level in range(1, 8):
        for si, strain in enumerate("CDHSN"):
            for dbl in range(3):
                for vul in (False, True):
                    for tricks in range(14):
                        assert duplicate_score_parts(level, si, dbl, vul, tricks) == ref(level, strain, dbl, vul, tricks)
                        n += 1
    assert n == 2940


def test_known_bug_game_bonus_at_exactly_100() -> None:
    """OpenSpiel 06becd1 tested ``> 100``: wrong in 22 made-contract cases."""
    assert duplicate_score("3NT", False, 9) == 400
    assert duplicate_score("5C", False, 11) == 400
    assert duplicate_score("5D", True, 11) == 600
    wrong = 0
    for level in range(1, 8):
        for strain in range(5):
            for dbl in range(3):
                tp = trick_points(level, strain, dbl)
                for vul in (False, True):
                    for tricks in range(level + 6, 14):
                        good = duplicate_score_parts(level, strain, dbl, vul, tricks)
                        old_bonus = (500 if vul else 300) if tp > 100 else 50
                        new_bonus = (500 if vul else 300) if tp >= 100 else 50
                        if good - new_bonus + old_bonus != good:
                            wrong += 1
    assert wrong == 22


def test_known_bug_grand_slam_bonus() -> None:
    """endplay issue #34: the grand slam bonus is 1000 NV / 1500 V."""
    assert duplicate_score("7C", False, 13) == 140 + 300 + 1000
    assert duplicate_score("7C", True, 13) == 140 + 500 + 1500
    assert duplicate_score("6C", False, 13) == 120 + 20 + 300 + 500  # 13 tricks in a small slam


def test_slam_needs_a_slam_contract() -> None:
    assert duplicate_score("4H", False, 12) == 480  # rules decision 2 / row 10


def test_doubled_trick_points_make_game() -> None:
    assert duplicate_score("2SX", False, 8) == 470
    assert duplicate_score("1HXX", False, 7) == 520


def test_parse_contract() -> None:
    assert parse_contract("3nt") == (3, 4, 0)
    assert parse_contract("4SX") == (4, 3, 1)
    assert parse_contract("7HXX") == (7, 2, 2)
    assert parse_contract("1N") == (1, 4, 0)
    for bad in ("8S", "3Z", "", "XX", "4SXXX"):
        if bad == "":
            continue
        with pytest.raises(ValueError):
            parse_contract(bad)
    with pytest.raises(ValueError):
        duplicate_score("3NT", False, 14)


# -- IMPs ------------------------------------------------------------------------------------

IMP_TABLE = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11),
    (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16),
    (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21),
    (3000, 3490, 22), (3500, 3990, 23),
]


@pytest.mark.parametrize(("lo", "hi", "expected"), IMP_TABLE)
def test_imp_table(lo: int, hi: int, expected: int) -> None:
    for d in range(lo, hi + 1, 10):
        assert imps(d) == expected
        assert imps(-d) == -expected


def test_imp_vectors() -> None:
    vectors = {10: 0, 20: 1, 40: 1, 50: 2, 420: 9, 430: 10, 450: 10, 3990: 23, 4000: 24,
               7600: 24, -720: -12, 1430: 16}
    for diff, expected in vectors.items():
        assert imps(diff) == expected
    assert imps(620 - 170) == 10


def test_team_match_example() -> None:
    """reference/duplicate.md 5.1: A wins by 11 IMPs."""
    boards = [
        (1, ("4S", 0, 10), ("4S", 0, 9)),
        (2, ("3NT", 2, 10), ("3NT", 2, 9)),
        (3, ("4HX", 1, 10), ("4H", 1, 9)),
        (4, ("6S", 0, 12), ("4S", 0, 12)),
    ]
    total = 0
    expected_nets = [470, 30, -890, 750]
    for (board, open_, closed), net_expected in zip(boards, expected_nets):
        vul = board_vulnerability(board)

        def ns(contract: str, declarer: int, tricks: int) -> int:
            s = duplicate_score(contract, vul[declarer & 1], tricks)
            return s if declarer % 2 == 0 else -s

        net = ns(*open_) - ns(*closed)
        assert net == net_expected
        total += imps(net)
    assert total == 11


def test_matchpoints() -> None:
    assert matchpoints([620, 620, 650, 170, -100, 620, 140]) == [8, 8, 12, 4, 0, 8, 2]
    assert sum(matchpoints([620, 620, 650, 170, -100, 620, 140])) == 42


# -- boards ----------------------------------------------------------------------------------

BOARDS = [
    (1, "N", "None"), (2, "E", "NS"), (3, "S", "EW"), (4, "W", "Both"),
    (5, "N", "NS"), (6, "E", "EW"), (7, "S", "Both"), (8, "W", "None"),
    (9, "N", "EW"), (10, "E", "Both"), (11, "S", "None"), (12, "W", "NS"),
    (13, "N", "Both"), (14, "E", "None"), (15, "S", "NS"), (16, "W", "EW"),
]
_VUL = {"None": (False, False), "NS": (True, False), "EW": (False, True), "Both": (True, True)}


@pytest.mark.parametrize(("board", "dealer", "vul"), BOARDS)
def test_board_table(board: int, dealer: str, vul: str) -> None:
    for b in (board, board + 16, board + 32):
        assert "NESW"[board_dealer(b)] == dealer
        assert board_vulnerability(b) == _VUL[vul]


def test_board_endplay_vectors() -> None:
    assert board_vulnerability(1) == _VUL["None"]
    assert board_vulnerability(13) == _VUL["Both"]
    assert board_vulnerability(18) == _VUL["NS"]
    assert board_vulnerability(35) == _VUL["EW"]
    with pytest.raises(ValueError):
        board_dealer(0)


# -- rubber ----------------------------------------------------------------------------------

def test_rubber_sequence() -> None:
    """rules/bridge.md section 10, rubber sequence: N-S win by 910."""
    r = RubberScore()
    rows = [
        r.record_deal(0, "2S", 9),
        r.record_deal(1, "3D", 9),
        r.record_deal(0, "2H", 8),
        r.record_deal(1, "4HX", 8),
        r.record_deal(1, "3NT", 9),
        r.record_passed_out(),
        r.record_deal(0, "4S", 10),
    ]
    assert [row["below"] for row in rows] == [[60, 0], [0, 60], [60, 0], [0, 0], [0, 100],
                                              [0, 0], [120, 0]]
    assert [row["above"] for row in rows] == [[30, 0], [0, 0], [0, 0], [300, 0], [0, 0],
                                              [0, 0], [500, 0]]
    assert r.games == [2, 1] and r.over
    assert r.below == [240, 160] and r.above == [830, 0]
    ns, ew = r.totals()
    assert (ns, ew, ns - ew) == (1070, 160, 910)
    assert r.deals == 7


def test_rubber_line_drawn_and_vulnerability() -> None:
    r = RubberScore()
    r.record_deal(1, "3D", 9)  # E-W 60 part-score
    assert r.parts == [0, 60] and not r.vulnerable(1)
    r.record_deal(0, "4S", 10)  # N-S game: E-W's 60 no longer counts
    assert r.parts == [0, 0] and r.games == [1, 0] and r.vulnerable(0)
    assert r.below == [120, 60]
    row = r.record_deal(0, "2H", 7)  # vulnerable, 1 down undoubled: 100 to E-W
    assert row["above"] == [0, 100]
    row = r.record_deal(0, "3NT", 9)
    assert row["above"] == [700, 0] and "rubber bonus 700" in row["note"] and r.over
    with pytest.raises(ValueError):
        r.record_deal(0, "1C", 7)


@pytest.mark.parametrize(("games", "parts", "bonus"), [
    ((1, 0), (0, 70), [300, 100]),
    ((1, 1), (40, 60), [0, 0]),
    ((0, 0), (60, 0), [100, 0]),
])
def test_incomplete_rubber(games: tuple[int, int], parts: tuple[int, int], bonus: list[int]) -> None:
    r = RubberScore()
    r.games, r.parts = list(games), list(parts)
    row = r.finish_incomplete()
    assert row["above"] == bonus and r.over


def test_honours() -> None:
    four = tokens_to_mask(["AH", "KH", "QH", "JH", "2C"])
    five = tokens_to_mask(["AH", "KH", "QH", "JH", "TH"])
    aces = tokens_to_mask(["AC", "AD", "AH", "AS"])
    assert honours_bonus(four, 2) == 100
    assert honours_bonus(five, 2) == 150
    assert honours_bonus(four, 3) == 0
    assert honours_bonus(aces, 4) == 150
    assert honours_bonus(four, 4) == 0
