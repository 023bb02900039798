"""Expansion of configs into match specs: counts, stable ids and seeds, seatings, movements."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from itertools import combinations

import pytest

from arena.core.dealing import derive_seed
from arena.games import get_game
from arena.games.bridge.scoring import board_dealer, board_vulnerability
from arena.tournaments.formats import deal_groups, expand, field_tables, resolve_movement, seatings
from arena.records.spec import MatchSpec, make_match_id

from tests.tournaments.helpers import make_config

FOUR = ["heuristic-1", "heuristic-2", "random-1", "random-2"]


def units_held(spec: MatchSpec, units: list[list[int]]) -> dict[str, list[int]]:
    held: dict[str, list[int]] = {}
    for u, unit in enumerate(units):
        assert len({spec.entrants[s] for s in unit}) == 1, "an entrant holds a whole unit"
        held.setdefault(spec.entrants[unit[0]], []).append(u)
    return held


def test_canasta_round_robin_counts() -> None:
    cfg = make_config("canasta", "round_robin", FOUR, deals=3, preset="classic", options={"deals": 1})
    specs = expand(cfg)
    assert len(specs) == 6 * 3 * 2  # C(4,2) pairings x deals x 2 rotations
    pairings = {frozenset(s.entrants) for s in specs}
    assert pairings == {frozenset(p) for p in combinations(FOUR, 2)}
    for s in specs:  # partners are the same entrant (N-S and E-W style seats 0,2 / 1,3)
        assert s.entrants[0] == s.entrants[2] and s.entrants[1] == s.entrants[3]
        assert s.bots[0] == "builtin:" + s.entrants[0].split("-")[0]


def test_ids_and_seeds_are_stable() -> None:
    cfg = make_config("canasta", "round_robin", FOUR, deals=3, preset="classic")
    a, b = expand(cfg), expand(cfg)
    assert a == b
    assert [s.match_id for s in a] == [make_match_id("t1", i) for i in range(len(a))]
    assert [s.index for s in a] == list(range(len(a)))
    for s in a:
        assert s.seed == derive_seed(7, "deal", s.deal)
    other = expand(replace(cfg, seed=8))
    assert [s.seed for s in other] != [s.seed for s in a]
    assert [replace(s, seed=0) for s in other] == [replace(s, seed=0) for s in a]
    assert len({s.seed for s in a}) == 3  # one seed per deal, the same at every table


@pytest.mark.parametrize(("game", "preset", "options", "n", "rotations", "per_deal"), [
    ("canasta", "classic", {}, 4, "cyclic", 6 * 2),
    ("rummy", None, {}, 4, "cyclic", 1 * 4),
    ("auction", "3p", {}, 5, "cyclic", 10 * 3),
    ("auction", "3p", {}, 3, "all", 1 * 6),
    ("auction", "4p", {}, 4, "reversed", 1 * 8),
    ("canasta", "classic-2p", {}, 3, "cyclic", 3 * 2),
])
def test_round_robin_every_entrant_meets_every_deal_from_every_unit(
        game: str, preset: str | None, options: dict[str, object], n: int, rotations: str, per_deal: int) -> None:
    ids = [f"random-{i}" for i in range(n)]
    cfg = make_config(game, "round_robin", ids, deals=2, preset=preset, options=options,
                      round_robin={"rotations": rotations})
    units = [list(u) for u in cfg.make_game().teams()]
    specs = expand(cfg)
    assert len(specs) == 2 * per_deal
    by_table: dict[tuple[int, int], list[MatchSpec]] = {}
    for s in specs:
        by_table.setdefault((s.table, s.deal), []).append(s)
    for (_table, _deal), group in by_table.items():
        entrants = set(group[0].entrants)
        met = Counter((e, u) for s in group for e, us in units_held(s, units).items() for u in us)
        assert set(met) == {(e, u) for e in entrants for u in range(len(units))}
        assert len(set(met.values())) == 1  # equally often
        assert len({s.seed for s in group}) == 1
    # every table plays the same deals
    assert {(s.table, s.deal) for s in specs} == {(t, d) for t, _ in by_table for d in range(2)}


def test_fewer_entrants_than_units_drop_repeated_seatings() -> None:
    assert seatings(4, 2) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert len(seatings(3, 2)) == 3
    cfg = make_config("rummy", "round_robin", ["heuristic", "random"], deals=2)
    specs = expand(cfg)
    assert len(specs) == 2 * 2
    assert specs[0].entrants == ("heuristic", "random", "heuristic", "random")
    assert specs[1].entrants == ("random", "heuristic", "random", "heuristic")


def test_bridge_boards_dealer_and_vulnerability() -> None:
    cfg = make_config("bridge", "duplicate", ["heuristic", "random"], deals=16, preset="duplicate")
    specs = expand(cfg)
    assert len(specs) == 16 * 2
    assert sorted({s.init["board"] for s in specs}) == list(range(1, 17))
    game = get_game("bridge", preset="duplicate")
    table = {1: ("N", "None"), 2: ("E", "NS"), 3: ("S", "EW"), 4: ("W", "Both"), 5: ("N", "NS"),
             6: ("E", "EW"), 7: ("S", "Both"), 8: ("W", "None"), 9: ("N", "EW"), 10: ("E", "Both"),
             11: ("S", "None"), 12: ("W", "NS"), 13: ("N", "Both"), 14: ("E", "None"), 15: ("S", "NS"),
             16: ("W", "EW")}
    vul_names = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "Both"}
    for s in specs:
        b = s.init["board"]
        assert b == s.deal + 1 and s.tags["board"] == b
        state = game.new_initial_state(seed=s.seed, **s.init)
        assert state.board == b
        assert "NESW"[state.current_player()] == table[b][0] == "NESW"[board_dealer(b)]
        assert vul_names[board_vulnerability(b)] == table[b][1]
    # open room: first entrant N-S; closed room: swapped; same cards
    open_, closed = specs[0], specs[1]
    assert open_.entrants == ("heuristic", "random", "heuristic", "random")
    assert closed.entrants == ("random", "heuristic", "random", "heuristic")
    assert open_.seed == closed.seed and open_.deal == closed.deal


def test_bridge_teams_round_robin_of_matches() -> None:
    cfg = make_config("bridge", "duplicate", ["heuristic-a", "random-b", "random-c"], deals=3,
                      preset="duplicate", duplicate={"mode": "teams"})
    specs = expand(cfg)
    assert len(specs) == 3 * 3 * 2
    assert resolve_movement(cfg) == "rotation"
    assert {s.tags["mode"] for s in specs} == {"teams"}


def test_bridge_rubber_round_robin_has_no_board() -> None:
    cfg = make_config("bridge", "round_robin", ["heuristic", "random"], deals=2, preset="rubber")
    assert all(s.init == {} and "board" not in s.tags for s in expand(cfg))


@pytest.mark.parametrize("k", [4, 5, 6, 7, 8])
def test_howell_field_movement_each_pair_plays_each_board_once(k: int) -> None:
    ids = [f"random-{i}" for i in range(k)]
    n = k + k % 2
    deals = 2 * (n - 1)
    cfg = make_config("bridge", "duplicate", ids, deals=deals, preset="duplicate",
                      duplicate={"mode": "pairs", "scoring": "matchpoints"})
    assert resolve_movement(cfg) == "field"
    specs = expand(cfg)
    assert len(specs) == deals * (k // 2)
    met: Counter[frozenset[str]] = Counter()
    ns: Counter[str] = Counter()
    for deal, group in deal_groups(specs).items():
        seated = [e for s in group for e in (s.entrants[0], s.entrants[1])]
        assert len(seated) == len(set(seated)), "nobody plays a board twice"
        assert len(seated) == k - k % 2
        assert all(s.rotation == 0 for s in group)
        for s in group:
            met[frozenset((s.entrants[0], s.entrants[1]))] += 1
            ns[s.entrants[0]] += 1
    assert set(met.values()) == {2}  # everyone meets everyone, once in each direction
    assert len(met) == k * (k - 1) // 2
    plays = Counter(e for s in specs for e in (s.entrants[0], s.entrants[1]))
    for e in ids:
        assert ns[e] * 2 == plays[e], "as often N-S as E-W"


def test_grid_field_movement_for_three_units() -> None:
    ids = [f"random-{i}" for i in range(6)]
    cfg = make_config("canasta", "duplicate", ids, deals=3, preset="classic-3p")
    assert resolve_movement(cfg) == "field"
    specs = expand(cfg)
    assert len(specs) == 3 * 2
    units: Counter[tuple[str, int]] = Counter()
    for deal, group in deal_groups(specs).items():
        seated = [e for s in group for e in s.entrants]
        assert sorted(seated) == sorted(ids)
        for s in group:
            for seat, e in enumerate(s.entrants):
                units[(e, seat)] += 1
    assert set(units.values()) == {1} and len(units) == 18  # each entrant each seat once in 3 deals
    assert field_tables(5, 3, 0) is None and field_tables(3, 2, 0) is None


def test_small_field_duplicate_uses_rotations() -> None:
    cfg = make_config("calypso", "duplicate", ["heuristic", "random"], deals=2)
    assert resolve_movement(cfg) == "rotation"
    specs = expand(cfg)
    assert len(specs) == 2 * 2 and {s.tags["movement"] for s in specs} == {"rotation"}


def test_gauntlet_pairs_the_candidate_with_each_field_entrant() -> None:
    cfg = make_config("bridge", "gauntlet", ["heuristic", "random-1", "random-2"], deals=3,
                      preset="duplicate", gauntlet={"candidate": "heuristic"})
    specs = expand(cfg)
    assert len(specs) == 2 * 3 * 2
    for s in specs:
        assert "heuristic" in s.entrants and s.tags["opponent"] in s.entrants
        assert s.tags["pair_deal"] == f"{s.tags['opponent']}/{s.deal}"
        assert s.tags["candidate"] == "heuristic"
    per_set = Counter(s.tags["pair_deal"] for s in specs)
    assert set(per_set.values()) == {2}  # two tables per duplicate set (pentanomial SPRT)


def test_specs_of_a_deal_are_contiguous() -> None:
    cfg = make_config("auction", "round_robin", FOUR, deals=3, preset="4p")
    specs = expand(cfg)
    deals = [s.deal for s in specs]
    assert deals == sorted(deals)
    assert {d: len(g) for d, g in deal_groups(specs).items()} == {0: 4, 1: 4, 2: 4}
