"""Standings from synthetic records with hand-checked numbers (duplicate.md sections 3 and 5)."""

from __future__ import annotations

import json

import pytest

from arena.ratings import SprtFeeder
from arena.ratings.sprt import Sprt
from arena.tournaments.formats import expand
from arena.records.spec import MatchSpec
from arena.tournaments.standings import (butler_datum, format_standings, matchpoints, neuberg, sprt_results,
                                         standings)

from tests.tournaments.helpers import FakeRecord, make_config, records, tags_of


def by_entrant(st: object) -> dict[str, dict[str, object]]:
    return {r.get("entrant") or r["opponent"]: r for r in st.rows}  # type: ignore[attr-defined]


# -- helpers ------------------------------------------------------------------------------------

def test_scoring_helpers_match_duplicate_md() -> None:
    assert matchpoints([620, 620, 650, 170, -100, 620, 140]) == [8, 8, 12, 4, 0, 8, 2]
    assert round(neuberg(4, 6, 7), 4) == 4.8333 and round(neuberg(9, 6, 7), 4) == 10.6667
    assert round(neuberg(18, 10, 11), 1) == 19.9 and round(neuberg(0, 10, 11), 1) == 0.1
    assert butler_datum([620] * 4 + [170] * 3, round_to=10) == 440


# -- bridge teams -------------------------------------------------------------------------------

OPEN = [420, 630, -790, 1430]   # duplicate.md 5.1: A N-S in the open room
CLOSED = [-50, 600, 100, 680]   # B N-S in the closed room


def bridge_teams(vp: bool = True) -> tuple[object, list[MatchSpec]]:
    cfg = make_config("bridge", "duplicate", [("A", "heuristic"), ("B", "random")], deals=4,
                      preset="duplicate", duplicate={"mode": "teams", "vp": vp})
    return cfg, expand(cfg)


def ns_returns(spec: MatchSpec) -> list[float]:
    ns = (OPEN if spec.rotation == 0 else CLOSED)[spec.deal]
    return [ns, -ns, ns, -ns]


def test_bridge_team_match_imps_and_vps() -> None:
    cfg, specs = bridge_teams()
    assert [s.entrants[0] for s in specs[:2]] == ["A", "B"]
    st = standings(cfg, records(specs, ns_returns))  # type: ignore[arg-type]
    assert [b["imps"] for b in st.details["boards"]] == [10, 1, -13, 13]
    match = st.details["matches"][0]
    assert (match["a"], match["b"], match["boards"], match["imps_a"], match["imps_b"]) == ("A", "B", 4, 24, 13)
    assert (match["vp_a"], match["vp_b"]) == (15.38, 4.62)  # 10 + 10(1 - t^(33/30))/(1 - t^3), t = 0.618
    rows = by_entrant(st)
    assert rows["A"]["rank"] == 1 and rows["A"]["net_imps"] == 11 and rows["A"]["vp"] == 15.38
    assert (rows["A"]["won"], rows["B"]["lost"]) == (1, 1)
    assert st.kind == "duplicate_teams" and st.complete and st.recorded == 8
    json.dumps(st.to_dict(), allow_nan=False)
    assert "15.38" in format_standings(st)


def test_bridge_team_match_skips_a_board_missing_a_room() -> None:
    cfg, specs = bridge_teams(vp=False)
    recs = records(specs, ns_returns)
    del recs[3]  # board 2, closed room
    st = standings(cfg, recs)  # type: ignore[arg-type]
    assert st.details["matches"][0]["boards"] == 3
    assert by_entrant(st)["A"]["net_imps"] == 10 + (-13) + 13
    assert "vp" not in by_entrant(st)["A"] and not st.complete


# -- bridge pairs -------------------------------------------------------------------------------

SEVEN = [620, 620, 650, 170, -100, 620, 140]


def pairs(k: int, scoring: str) -> tuple[object, list[MatchSpec]]:
    cfg = make_config("bridge", "duplicate", [f"random-{i}" for i in range(k)], deals=1, preset="duplicate",
                      duplicate={"mode": "pairs", "scoring": scoring})
    specs = expand(cfg)
    assert len(specs) == k // 2 and all(s.tags["movement"] == "field" for s in specs)
    return cfg, specs


def from_table(scores: list[int]):  # noqa: ANN201
    return lambda s: [scores[s.table], -scores[s.table]] * 2


def test_pairs_matchpoints() -> None:
    cfg, specs = pairs(14, "matchpoints")
    st = standings(cfg, records(specs, from_table(SEVEN)))  # type: ignore[arg-type]
    rows = by_entrant(st)
    for s, mp in zip(specs, [8, 8, 12, 4, 0, 8, 2]):
        assert rows[s.entrants[0]]["matchpoints"] == mp
        assert rows[s.entrants[0]]["score"] == pytest.approx(100 * mp / 12)
        assert rows[s.entrants[1]]["matchpoints"] == 12 - mp
    # the 650 N-S and the E-W against -100 share the top (100%); the tie-break is the raw margin
    assert {rows[specs[2].entrants[0]]["rank"], rows[specs[4].entrants[1]]["rank"]} == {1, 2}
    assert rows[specs[4].entrants[0]]["score"] == 0 and rows[specs[4].entrants[1]]["score"] == 100


def test_pairs_neuberg_when_a_result_is_missing() -> None:
    cfg, specs = pairs(14, "matchpoints")
    recs = records(specs, from_table(SEVEN))
    del recs[2]  # the 650 table never finished: 6 results where 7 were scheduled
    st = standings(cfg, recs)  # type: ignore[arg-type]
    rows = by_entrant(st)
    ns170, ew170 = rows[specs[3].entrants[0]], rows[specs[3].entrants[1]]
    assert ns170["matchpoints"] == pytest.approx(4.8333, abs=1e-4)  # duplicate.md 3.2: M = 4 -> 4.8333 of 12
    assert ns170["score"] == pytest.approx(100 * 4.8333 / 12, abs=1e-3)
    assert ew170["matchpoints"] == pytest.approx(7 * 7 / 6 - 1)  # M = 6 of 10 -> 7.1667 of 12
    assert rows[specs[0].entrants[0]]["matchpoints"] == pytest.approx(9.5)  # 620: M = 8 -> 9.5
    assert rows[specs[2].entrants[0]]["results"] == 0 and rows[specs[2].entrants[0]]["score"] is None
    assert st.recorded == 6 and st.expected == 7


def test_pairs_butler() -> None:
    cfg, specs = pairs(14, "butler")
    st = standings(cfg, records(specs, from_table([620] * 4 + [170] * 3)))  # type: ignore[arg-type]
    rows = by_entrant(st)
    assert [rows[s.entrants[0]]["total"] for s in specs] == [5] * 4 + [-7] * 3  # datum 440
    assert [rows[s.entrants[1]]["total"] for s in specs] == [-5] * 4 + [7] * 3


def test_pairs_cross_imps() -> None:
    cfg, specs = pairs(8, "cross_imps")
    st = standings(cfg, records(specs, from_table([430, 400, 150, -50])))  # type: ignore[arg-type]
    rows = by_entrant(st)
    got = [rows[s.entrants[0]]["score"] for s in specs]
    assert got == pytest.approx([6, 5, -8 / 3, -25 / 3])


# -- other games: seat-by-seat comparison and round robin ------------------------------------------

BASE = {"A": 10, "B": 5, "C": 0, "Z": 10, "Y": 5, "X": 0}
BONUS = [0, 3, 6]


def by_seat(spec: MatchSpec) -> list[float]:
    return [BASE[e] + BONUS[seat] for seat, e in enumerate(spec.entrants)]


def test_seats_matchpoints_compare_the_same_seat() -> None:
    cfg = make_config("rummy", "duplicate", [("A", "random"), ("B", "random"), ("C", "random")], deals=2,
                      options={"players": 3})
    specs = expand(cfg)
    assert len(specs) == 2 * 3
    st = standings(cfg, records(specs, by_seat))  # type: ignore[arg-type]
    rows = by_entrant(st)
    assert [rows[e]["score"] for e in "ABC"] == [100, 50, 0]
    assert [rows[e]["margin"] for e in "ABC"] == [7.5, 0, -7.5]
    assert [rows[e]["results"] for e in "ABC"] == [6, 6, 6]
    assert st.kind == "duplicate_seats"


def test_seats_butler_uses_game_points() -> None:
    cfg = make_config("rummy", "duplicate", [("A", "random"), ("B", "random"), ("C", "random")], deals=1,
                      options={"players": 3}, duplicate={"scoring": "butler"})
    rows = by_entrant(standings(cfg, records(expand(cfg), by_seat)))  # type: ignore[arg-type]
    assert [rows[e]["score"] for e in "ABC"] == [5, 0, -5]


def test_round_robin_wins_and_tie_break_by_mean_score() -> None:
    # seat scores: entrant base (Z 10, Y 5, X 0) + seat bonus (0, 3, 6); rotations Z Y X, X Z Y, Y X Z
    cfg = make_config("rummy", "round_robin", [("Z", "random"), ("Y", "random"), ("X", "random")], deals=1,
                      options={"players": 3})
    st = standings(cfg, records(expand(cfg), by_seat))  # type: ignore[arg-type]
    assert [r["entrant"] for r in st.rows] == ["Z", "Y", "X"]  # Y before X on mean score, not id
    rows = by_entrant(st)
    assert (rows["Z"]["wins"], rows["Z"]["win_rate"], rows["Z"]["mean_score"]) == (3, 1, 13)
    assert (rows["Y"]["wins"], rows["Y"]["mean_score"], rows["X"]["mean_score"]) == (0, 8, 3)
    assert rows["Y"]["total_score"] == 24


def test_round_robin_ties_split_the_win() -> None:
    cfg = make_config("canasta", "round_robin", ["random-1", "random-2"], deals=1, preset="classic")
    st = standings(cfg, records(expand(cfg), lambda s: [0, 0, 0, 0]))  # type: ignore[arg-type]
    assert [r["wins"] for r in st.rows] == [1, 1]


# -- gauntlet -----------------------------------------------------------------------------------

def gauntlet_returns(spec: MatchSpec) -> list[float]:
    h = spec.entrants.index("H") % 2  # the candidate's unit (seats 0,2 or 1,3)
    if spec.tags["opponent"] == "R1":
        c = 1.0
    elif spec.deal == 0:
        c = 0.0
    else:
        c = -1.0 if spec.rotation == 0 else 1.0
    per_unit = [c, -c] if h == 0 else [-c, c]
    return per_unit * 2


def test_gauntlet_candidate_against_the_field() -> None:
    cfg = make_config("canasta", "gauntlet", [("H", "heuristic"), ("R1", "random"), ("R2", "random")], deals=2,
                      preset="classic", gauntlet={"candidate": "H"})
    specs = expand(cfg)
    recs = records(specs, gauntlet_returns)
    st = standings(cfg, recs)  # type: ignore[arg-type]
    rows = by_entrant(st)
    assert (rows["R1"]["matches"], rows["R1"]["won"], rows["R1"]["score"], rows["R1"]["margin"]) == (4, 4, 1, 2)
    assert (rows["R2"]["won"], rows["R2"]["drawn"], rows["R2"]["lost"], rows["R2"]["score"]) == (1, 2, 1, 0.5)
    assert rows["R2"]["margin"] == 0
    s = st.details["summary"]
    assert (s["matches"], s["won"], s["drawn"], s["lost"], s["score"]) == (8, 5, 2, 1, 0.75)
    # pairing data for the SPRT: two tables per duplicate set
    results = sprt_results(cfg, recs)  # type: ignore[arg-type]
    assert {r.deal_id for r in results} == {"R1/0", "R1/1", "R2/0", "R2/1"}
    feeder = SprtFeeder(Sprt(0, 10, pentanomial=True), "H")
    for r in results:
        feeder.add(r)
    assert feeder.pending == 0 and sum(feeder.sprt.counts) == 4


# -- record handling ------------------------------------------------------------------------------

def test_duplicates_other_tournaments_unfinished_and_missing_tags() -> None:
    cfg = make_config("canasta", "round_robin", ["random-1", "random-2"], deals=1, preset="classic")
    specs = expand(cfg)
    recs = records(specs, lambda s: [1, -1, 1, -1])
    recs.append(recs[0])  # delivered twice: counted once
    recs.append(FakeRecord("other:000000", [1, -1, 1, -1], {**tags_of(specs[0]), "tournament_id": "other"}))
    unfinished = records(specs[1:], lambda s: [0, 0, 0, 0])[0]
    unfinished.terminal = False
    st = standings(cfg, recs[:1] + [unfinished] + recs[2:])  # type: ignore[arg-type]
    assert (st.recorded, st.unfinished, st.ignored, st.expected) == (1, 1, 1, 2)
    bad = FakeRecord(specs[0].match_id, [1, -1, 1, -1], {"tournament_id": "t1", "deal": 0})
    with pytest.raises(ValueError, match="missing tag"):
        standings(cfg, [bad])  # type: ignore[list-item]


# -- games scored in their own points (canasta) ------------------------------------------------

def pointed(specs: list[MatchSpec], returns: object, points: object) -> list[object]:
    """Synthetic records with rank-based ``returns`` and the game's own ``points``."""
    recs = records(specs, returns)  # type: ignore[arg-type]
    for rec, spec in zip(recs, specs):
        rec.points = [float(x) for x in points(spec)]  # type: ignore[operator]
    return recs  # type: ignore[return-value]


def test_canasta_gauntlet_margin_is_in_canasta_points() -> None:
    cfg = make_config("canasta", "gauntlet", [("H", "heuristic"), ("R1", "random"), ("R2", "random")], deals=2,
                      preset="classic", gauntlet={"candidate": "H"})
    specs = expand(cfg)

    def points(spec: MatchSpec) -> list[float]:
        h = spec.entrants.index("H") % 2
        c = {"R1": 1500.0, "R2": 300.0 if spec.rotation == 0 else -100.0}[spec.tags["opponent"]]
        unit = [c, -c] if h == 0 else [-c, c]
        return unit * 2

    st = standings(cfg, pointed(specs, gauntlet_returns, points))  # type: ignore[arg-type]
    rows = by_entrant(st)
    assert rows["R1"]["won"] == 4 and rows["R1"]["margin"] == 3000  # W/D/L from returns, margin in points
    assert rows["R2"]["margin"] == 200  # per deal: mean over the rotations of 300 - -300 and -100 - 100
    assert st.details["unit"] == "points"
    # without points (records written before the field, not replayable here): the returns
    st = standings(cfg, records(specs, gauntlet_returns))  # type: ignore[arg-type]
    assert by_entrant(st)["R1"]["margin"] == 2 and st.details["unit"] == "returns"


def test_canasta_duplicate_seats_compare_canasta_points() -> None:
    cfg = make_config("canasta", "duplicate", [("A", "random"), ("B", "random"), ("C", "random")], deals=1,
                      preset="classic-3p", duplicate={"scoring": "butler"})
    specs = expand(cfg)
    base = {"A": 2000.0, "B": 500.0, "C": -500.0}
    # ranks say A > B > C in every match: a rank comparison cannot tell the margins apart
    rank = {"A": 1.0, "B": 0.0, "C": -1.0}
    st = standings(cfg, pointed(specs, lambda s: [rank[e] for e in s.entrants],
                                lambda s: [base[e] for e in s.entrants]))  # type: ignore[arg-type]
    rows = by_entrant(st)
    datum = (2000 + 500 - 500) / 3  # the mean of the three results in each seat
    assert [rows[e]["score"] for e in "ABC"] == pytest.approx([2000 - datum, 500 - datum, -500 - datum])
    assert st.details["unit"] == "points"


def test_canasta_team_matches_are_in_canasta_points() -> None:
    cfg = make_config("canasta", "duplicate", [("A", "random"), ("B", "random")], deals=2, preset="classic",
                      duplicate={"mode": "teams"})
    specs = expand(cfg)

    def side(spec: MatchSpec, a: float, b: float) -> list[float]:
        unit = [a, b] if spec.entrants[0] == "A" else [b, a]
        return unit * 2

    open_a, closed_a = {0: 2500.0, 1: 800.0}, {0: 1900.0, 1: 1000.0}  # A's points, B's are 1000 each time
    st = standings(cfg, pointed(
        specs, lambda s: side(s, 1.0, -1.0),
        lambda s: side(s, (open_a if s.rotation == 0 else closed_a)[s.deal], 1000.0)))  # type: ignore[arg-type]
    boards = st.details["boards"]
    # margin = (A's points in both rooms - B's in both rooms) / 2
    assert [b["margin"] for b in boards] == [(2500 + 1900 - 2000) / 2, (800 + 1000 - 2000) / 2]
    assert st.details["unit"] == "points" and by_entrant(st)["A"]["net_imps"] == 1200 - 100
