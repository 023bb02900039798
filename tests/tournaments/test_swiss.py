"""Swiss events (arena.tournaments.swiss): config, rounds from records, byes,
tie-breaks, standings after every round, reproducibility, and a stored run."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.core.dealing import derive_seed
from arena.records.spec import MatchSpec
from arena.tournaments.config import ConfigError, ConfigWarning
from arena.tournaments.rounds import TournamentView, make_format
from arena.tournaments.standings import format_standings, standings
from arena.tournaments.swiss import SwissHistory, Encounter, swiss_table

from tests.tournaments.helpers import FakeRecord, make_config, tags_of
from tests.tournaments.rounds_driver import drive


def strength_play(strength: dict[str, float]) -> Any:
    """Synthetic records: each seat scores its entrant's strength plus deal noise."""
    def play(spec: MatchSpec) -> FakeRecord:
        rets = [strength[e] + (derive_seed(spec.seed, e) % 7) / 10 for e in spec.entrants]
        return FakeRecord(spec.match_id, rets, tags_of(spec))
    return play


def field(n: int) -> list[tuple[str, str]]:
    return [(f"e{i:02d}", "random") for i in range(n)]


def test_two_sided_event_pairs_by_score_without_rematches() -> None:
    n = 9
    cfg = make_config("calypso", "swiss", field(n), deals=2, swiss={"rounds": 5})
    strength = {f"e{i:02d}": float(n - i) for i in range(n)}
    specs, recs = drive(cfg, strength_play(strength))
    rounds = Counter(s.round for s in specs)
    assert sorted(rounds) == list(range(5))
    assert all(c == (n // 2) * 2 * 2 for c in rounds.values())  # pairs x deals x 2 seatings
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    for r in range(5):
        rs = [s for s in specs if s.round == r]
        sides = {tuple(s.tags["sides"]) for s in rs}
        for a, b in sides:
            met[frozenset((a, b))] += 1
        byes.update(rs[0].tags["byes"])
        playing = [e for sd in sides for e in sd]
        assert sorted(playing + rs[0].tags["byes"]) == sorted(cfg.entrant_ids)
        # every encounter plays each deal in both seatings: duplicate
        for s in rs:
            assert set(s.entrants) == set(s.tags["sides"])
        assert len({s.deal for s in rs}) == 2 and all(s.deal // 2 == r for s in rs)
    assert max(met.values()) == 1
    assert len(byes) == 5 and max(byes.values()) == 1
    st = standings(cfg, recs)
    assert st.kind == "swiss" and st.complete
    # the strongest wins every encounter
    assert st.rows[0]["entrant"] == "e00" and st.rows[0]["points"] == 5.0
    assert len(st.details["after_round"]) == 5
    assert "Buchholz" in format_standings(st)


def test_pairings_are_reproducible_from_specs_records_and_seed() -> None:
    cfg = make_config("calypso", "swiss", field(8), deals=1, swiss={"rounds": 4, "seed": 3})
    strength = {f"e{i:02d}": float(i % 3) for i in range(8)}
    specs, recs = drive(cfg, strength_play(strength))
    again, _ = drive(cfg, strength_play(strength))
    assert [s.to_dict() for s in specs] == [s.to_dict() for s in again]
    # round 2 recomputed from what a store holds after round 1 (records in any order)
    fmt = make_format(cfg)
    upto = [s for s in specs if s.round <= 1]
    view = TournamentView(cfg.id, cfg, 1, upto)
    rec_upto = [r for r in recs if r.tags["index"] < len(upto)]
    nxt = fmt.next_round(view, list(reversed(rec_upto)))
    assert nxt is not None and [s.to_dict() for s in nxt] == [s.to_dict() for s in specs if s.round == 2]
    # another seed draws another round 0
    other = make_config("calypso", "swiss", field(8), deals=1, swiss={"rounds": 4, "seed": 4})
    r0 = {tuple(s.tags["sides"]) for s in make_format(other).first_round(other.entrants)}
    assert r0 != {tuple(s.tags["sides"]) for s in specs if s.round == 0}


def test_last_round_returns_none() -> None:
    cfg = make_config("calypso", "swiss", field(4), deals=1, swiss={"rounds": 1})
    specs, _ = drive(cfg, strength_play({e: 1.0 for e in cfg.entrant_ids}))
    assert {s.round for s in specs} == {0}


def test_tables_event() -> None:
    cfg = make_config("auction", "swiss", field(7), preset="3p", deals=1, swiss={"rounds": 3})
    strength = {f"e{i:02d}": float(7 - i) for i in range(7)}
    specs, recs = drive(cfg, strength_play(strength))
    for r in range(3):
        rs = [s for s in specs if s.round == r]
        tables = {s.table: tuple(s.tags["sides"]) for s in rs}
        assert all(len(t) == 3 for t in tables.values()) and len(tables) == 2
        assert len(rs[0].tags["byes"]) == 1
        # every entrant holds every seat of the deal at its table
        for t, sides in tables.items():
            seat0 = {s.entrants[0] for s in rs if s.table == t}
            assert seat0 == set(sides)
    st = standings(cfg, recs)
    assert st.rows[0]["entrant"] == "e00" and st.rows[0]["points"] == 3.0
    byes = Counter(b for r in st.details["rounds"] for b in r["byes"])
    assert len(byes) == 3 and max(byes.values()) == 1


def test_bridge_teams_score_victory_points() -> None:
    cfg = make_config("bridge", "swiss", field(4), preset="duplicate", deals=2, swiss={"rounds": 2})
    specs = make_format(cfg).first_round(cfg.entrants)
    assert {s.init["board"] for s in specs} == {1, 2}
    strength = {"e00": 300.0, "e01": 0.0, "e02": 0.0, "e03": -300.0}
    specs, recs = drive(cfg, strength_play(strength))
    st = standings(cfg, recs)
    assert st.columns[6] == ("points", "VP")
    enc = st.details["rounds"][0]["encounters"]
    for e in enc:
        assert abs(sum(e["vp"]) - 20.0) < 1e-9
    assert st.rows[0]["entrant"] == "e00"


def test_tie_breaks_by_hand() -> None:
    """A: beat B, beat C.  B: lost to A, beat D.  C: lost to A, drew D.  D: lost to B, drew C."""
    cfg = make_config("calypso", "swiss", [("A", "random"), ("B", "random"), ("C", "random"), ("D", "random")],
                      swiss={"rounds": 2})
    assert cfg.swiss is not None

    def enc(r: int, t: int, a: str, b: str, ra: float) -> Encounter:
        return Encounter(r, t, (a, b), {a: ra, b: 1 - ra}, {(a, b): ra, (b, a): 1 - ra}, 1)

    h = SwissHistory([enc(0, 0, "A", "B", 1.0), enc(0, 1, "C", "D", 0.5), enc(1, 0, "A", "C", 1.0),
                      enc(1, 1, "B", "D", 1.0)], {}, 2)
    tab = swiss_table(cfg.entrant_ids, cfg.swiss, h)
    assert tab.points == {"A": 2.0, "B": 1.0, "C": 0.5, "D": 0.5}
    assert tab.breaks["A"]["buchholz"] == 1.5 and tab.breaks["B"]["buchholz"] == 2.5
    assert tab.breaks["A"]["sonneborn_berger"] == 1.5  # 1 x 1.0 + 1 x 0.5
    assert tab.breaks["B"]["sonneborn_berger"] == 0.5
    assert tab.breaks["C"]["head_to_head"] == 0.5 and tab.breaks["D"]["head_to_head"] == 0.5
    assert tab.breaks["C"]["buchholz"] == 2.5 and tab.breaks["D"]["buchholz"] == 1.5


def test_config_errors_name_the_field() -> None:
    base: dict[str, Any] = {"swiss": {"rounds": 2}}
    with pytest.raises(ConfigError, match=r"^swiss\.round: unknown key"):
        make_config("calypso", "swiss", field(4), swiss={"round": 2})
    with pytest.raises(ConfigError, match=r"^swiss\.tiebreaks\[1\]: unknown tie-break 'elo'"):
        make_config("calypso", "swiss", field(4), swiss={"tiebreaks": ["buchholz", "elo"]})
    with pytest.raises(ConfigError, match=r"^swiss\.bye_score: must be a number in \[0, 1\]"):
        make_config("calypso", "swiss", field(5), swiss={"bye_score": 2})
    with pytest.raises(ConfigError, match=r"^swiss\.rounds: must be a positive integer"):
        make_config("calypso", "swiss", field(4), swiss={"rounds": 0})
    with pytest.raises(ConfigError, match=r"^entrants: a Swiss of auction needs at least 3 entrants"):
        make_config("auction", "swiss", field(2), preset="3p", **base)
    with pytest.raises(ConfigError, match=r"^tournament\.options: a Swiss of bridge plays duplicate"):
        make_config("bridge", "swiss", field(4), preset="rubber", **base)
    with pytest.raises(ConfigError, match=r"^swiss: section given but tournament.format is 'round_robin'"):
        make_config("calypso", "round_robin", field(4), **base)
    with pytest.raises(ConfigError, match=r"^swiss\.scoring: n-player tables"):
        make_config("auction", "swiss", field(4), preset="3p", swiss={"scoring": "vp"})


def test_too_many_rounds_warn_then_allow_rematches() -> None:
    with pytest.warns(ConfigWarning, match=r"^swiss\.rounds: 6 rounds with 4 entrants cannot avoid rematches"):
        cfg = make_config("calypso", "swiss", field(4), deals=1, swiss={"rounds": 6})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConfigWarning)
        specs, _ = drive(cfg, strength_play({e: 1.0 for e in cfg.entrant_ids}))
    pairs = Counter(frozenset(s.tags["sides"]) for s in specs if s.deal % 1 == 0 and s.rotation == 0)
    assert sum(pairs.values()) == 12 and max(pairs.values()) == 2  # 3 pairings, each met twice


def test_stored_run_embedded(tmp_path: Path) -> None:
    """Through the store and the conductor: rounds are added until the event is over."""
    from arena.store import Store
    from arena.tournaments import service

    toml = tmp_path / "swiss.toml"
    toml.write_text("""
[tournament]
id = "sw"
game = "calypso"
format = "swiss"
deals = 1
seed = 2
[swiss]
rounds = 3
[[entrants]]
id = "h0"
bot = "heuristic"
[[entrants]]
id = "h5"
bot = "heuristic"
options = { noise = 0.5 }
[[entrants]]
id = "r1"
bot = "random"
[[entrants]]
id = "r2"
bot = "random"
[[entrants]]
id = "r3"
bot = "random"
""", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(url)
    store.migrate()
    cfg, added = service.register(toml, store)
    assert added == 4  # two pairs x 1 deal x 2 seatings, one bye
    run = service.run_embedded(url, "sw", jobs=1)
    assert run.finished == "done", run.errors
    assert store.tournament("sw").round == 2
    st = service.standings(store, "sw")
    assert st.kind == "swiss" and st.recorded == 12 and not st.details["missing"]
    assert sum(r["byes"] for r in st.rows) == 3


def test_a_schedule_decides_when_never_what() -> None:
    from arena.tournaments.swiss import SwissFormat

    plain = make_config("calypso", "swiss", field(6), deals=1, swiss={"rounds": 3})
    cfg = make_config("calypso", "swiss", field(6), deals=1,
                      swiss={"rounds": 3, "round_every": 600, "start_at": "2026-01-05T18:00:00Z"})
    assert cfg.swiss is not None and cfg.swiss.start_at == 1767636000.0 and cfg.swiss.round_every == 600.0
    strength = {f"e{i:02d}": float(i) for i in range(6)}
    want, _ = drive(plain, strength_play(strength))
    fmt = make_format(cfg)
    assert isinstance(fmt, SwissFormat)
    now = [cfg.swiss.start_at + 599.0]
    fmt.clock = lambda: now[0]  # type: ignore[method-assign, assignment]
    specs = fmt.first_round(cfg.entrants)  # round 0: with the event
    recs = [strength_play(strength)(s) for s in specs]
    assert fmt.next_round(TournamentView(cfg.id, cfg, 0, specs), recs) == []  # not due: nothing yet
    now[0] += 1.0
    for rnd in (1, 2):
        nxt = fmt.next_round(TournamentView(cfg.id, cfg, rnd - 1, specs), recs)
        assert nxt, rnd
        specs += nxt
        recs += [strength_play(strength)(s) for s in nxt]
        if rnd == 1:
            assert fmt.next_round(TournamentView(cfg.id, cfg, 1, specs), recs) == []
            now[0] += 600.0
    assert fmt.next_round(TournamentView(cfg.id, cfg, 2, specs), recs) is None
    assert [(s.entrants, s.seed) for s in specs] == [(s.entrants, s.seed) for s in want]
    for bad, msg in (({"round_every": 0}, r"^swiss\.round_every: must be a positive number of seconds"),
                     ({"start_at": 5}, r"^swiss\.start_at: goes with round_every"),
                     ({"round_every": 60, "start_at": "monday"}, r"^swiss\.start_at: must be Unix seconds")):
        with pytest.raises(ConfigError, match=msg):
            make_config("calypso", "swiss", field(6), deals=1, swiss={"rounds": 3, **bad})


def test_canasta_rounds_are_decided_on_canasta_points() -> None:
    from arena.tournaments.swiss import SwissFormat, swiss_history

    cfg = make_config("canasta", "swiss", [("A", "random"), ("B", "random")], deals=1, preset="classic-2p",
                      swiss={"rounds": 1})
    specs = SwissFormat(cfg).first_round(cfg.entrants)
    assert len(specs) == 2  # one deal, both seatings

    def rec(spec: MatchSpec, points: bool) -> FakeRecord:
        a = spec.entrants.index("A")
        ret, pts = [0.0, 0.0], [0.0, 0.0]
        # each side wins one seating (a draw on the rank-based returns); on points A is far ahead
        ret[a], ret[1 - a] = (1.0, -1.0) if spec.rotation == 0 else (-1.0, 1.0)
        pts[a], pts[1 - a] = (1500.0, -200.0) if spec.rotation == 0 else (300.0, 450.0)
        return FakeRecord(spec.match_id, ret, tags_of(spec), points=pts if points else None)

    history = swiss_history(cfg, [s.tags | {"table": s.table} for s in specs], [rec(s, True) for s in specs])
    assert history.encounters[0].results == {"A": 1.0, "B": 0.0}
    history = swiss_history(cfg, [s.tags | {"table": s.table} for s in specs], [rec(s, False) for s in specs])
    assert history.encounters[0].results == {"A": 0.5, "B": 0.5}
