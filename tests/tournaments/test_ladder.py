"""The continuous ladder (arena.tournaments.ladder): batches, duplicate sets,
matchmaking, rate limits, stop_after, leaderboard, and a stored run."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.core.dealing import derive_seed
from arena.records.spec import MatchSpec
from arena.tournaments.config import ConfigError, parse_config
from arena.tournaments.ladder import LadderFormat, fit_ladder, ladder_outcomes
from arena.tournaments.rounds import TournamentView, make_format
from arena.tournaments.standings import format_standings, standings

from tests.tournaments.helpers import FakeRecord, make_config, tags_of
from tests.tournaments.rounds_driver import drive


def strength_play(strength: dict[str, float]) -> Any:
    def play(spec: MatchSpec) -> FakeRecord:
        rets = [strength[e] + (derive_seed(spec.seed, e) % 7) / 10 for e in spec.entrants]
        return FakeRecord(spec.match_id, rets, tags_of(spec))
    return play


def ladder(n: int, **settings: Any) -> Any:
    return make_config("calypso", "ladder", [(f"e{i:02d}", "random") for i in range(n)], deals=1,
                       ladder=settings)


def test_batches_stop_after_and_duplicate_sets() -> None:
    cfg = ladder(6, concurrency=2, stop_after=7)
    strength = {f"e{i:02d}": float(6 - i) for i in range(6)}
    specs, recs = drive(cfg, strength_play(strength))
    encounters = {(s.round, s.table): s for s in specs}
    assert len(encounters) == 7
    per_round = Counter(r for r, _ in encounters)
    assert list(per_round.values()) == [2, 2, 2, 1]  # batches of concurrency, the last one short
    for r in per_round:
        sides = [e for (rr, _), s in encounters.items() if rr == r for e in s.tags["sides"]]
        assert len(sides) == len(set(sides)), "an entrant plays one encounter per batch"
    by_enc: dict[int, list[MatchSpec]] = {}
    for s in specs:
        by_enc.setdefault(s.tags["encounter"], []).append(s)
    for k, group in by_enc.items():
        assert len(group) == 2 and {s.rotation for s in group} == {0, 1}
        assert len({s.deal for s in group}) == 1 and group[0].deal == k  # new cards per encounter
        assert group[0].entrants != group[1].entrants  # seats rotated
    st = standings(cfg, recs)
    assert st.kind == "ladder" and st.complete and st.recorded == 14
    assert "rating" in format_standings(st)


def test_ratings_order_the_field_and_matchmaking_pairs_close_ratings() -> None:
    n = 12
    strength = {f"e{i:02d}": float(n - i) for i in range(n)}
    cfg = ladder(n, concurrency=6, stop_after=120)
    specs, recs = drive(cfg, strength_play(strength))
    st = standings(cfg, recs)
    from scipy.stats import spearmanr

    rho = spearmanr([strength[r["entrant"]] for r in st.rows], list(range(n, 0, -1))).statistic
    assert rho > 0.95, [r["entrant"] for r in st.rows]
    # once ratings exist, rating matchmaking pairs entrants close in strength; random does not
    rand = ladder(n, concurrency=6, stop_after=120, matchmaking="random")
    rspecs, _ = drive(rand, strength_play(strength))

    def gap(ss: list[MatchSpec]) -> float:
        late = {s.tags["encounter"]: s.tags["sides"] for s in ss if s.tags["encounter"] >= 60}
        return sum(abs(strength[a] - strength[b]) for a, b in late.values()) / len(late)

    assert gap(specs) < 0.6 * gap(rspecs), (gap(specs), gap(rspecs))


def test_reproducible_from_specs_records_and_clock() -> None:
    cfg = ladder(8, concurrency=3, stop_after=15)
    strength = {f"e{i:02d}": float(i % 4) for i in range(8)}
    specs, recs = drive(cfg, strength_play(strength))
    again, _ = drive(cfg, strength_play(strength))
    strip = [{**s.to_dict(), "tags": {k: v for k, v in s.tags.items() if k != "scheduled_at"}} for s in specs]
    assert strip == [{**s.to_dict(), "tags": {k: v for k, v in s.tags.items() if k != "scheduled_at"}}
                     for s in again]
    # a batch recomputed from a store's state after round 2, records in another order
    fmt = make_format(cfg)
    upto = [s for s in specs if s.round <= 2]
    rec_upto = [r for r in recs if r.tags["index"] < len(upto)]
    nxt = fmt.next_round(TournamentView(cfg.id, cfg, 2, upto), list(reversed(rec_upto)))
    assert nxt is not None
    assert [s.entrants for s in nxt] == [s.entrants for s in specs if s.round == 3]


def test_rate_limit_waits_instead_of_finishing() -> None:
    cfg = ladder(4, concurrency=2, max_matches_per_entrant_per_hour=1)
    fmt = make_format(cfg)
    assert isinstance(fmt, LadderFormat)
    now = [1000.0]
    fmt.clock = lambda: now[0]  # type: ignore[method-assign, assignment]
    first = fmt.first_round(cfg.entrants)
    assert len({s.table for s in first}) == 2
    recs = [strength_play({e: 1.0 for e in cfg.entrant_ids})(s) for s in first]
    view = TournamentView(cfg.id, cfg, 0, first)
    assert fmt.next_round(view, recs) == []  # everyone at the limit: nothing yet, not over
    now[0] += 3601
    assert len({s.table for s in fmt.next_round(view, recs) or []}) == 2


def test_conductor_keeps_a_rate_limited_ladder_open(tmp_path: Path) -> None:
    """An empty round does not finalize the tournament; None does."""
    from arena.store import Store
    from arena.tournaments.conductor import Conductor
    from arena.tournaments.runner import play_spec

    file = tmp_path / "l.toml"
    file.write_text("""
[tournament]
id = "lad"
game = "calypso"
format = "ladder"
deals = 1
[ladder]
concurrency = 2
max_matches_per_entrant_per_hour = 1
[[entrants]]
id = "a"
bot = "random"
[[entrants]]
id = "b"
bot = "random"
[[entrants]]
id = "c"
bot = "heuristic?noise=0.5"
[[entrants]]
id = "d"
bot = "heuristic"
""", encoding="utf-8")
    from arena.tournaments import service

    store = Store(f"sqlite:///{tmp_path / 'l.db'}")
    store.migrate()
    service.register(file, store)
    for spec in store.specs("lad"):
        store.record_result(play_spec(spec))
    reports = Conductor(store).reconcile("lad")
    assert reports[0].finished is None and reports[0].added_round is None
    assert store.tournament("lad").status != "done"


def test_stored_run_embedded(tmp_path: Path) -> None:
    from arena.store import Store
    from arena.tournaments import service

    file = tmp_path / "l.toml"
    file.write_text("""
[tournament]
id = "lad2"
game = "calypso"
format = "ladder"
deals = 1
seed = 4
[ladder]
concurrency = 2
stop_after = 5
[[entrants]]
id = "h0"
bot = "heuristic"
[[entrants]]
id = "h5"
bot = "heuristic?noise=0.5"
[[entrants]]
id = "r"
bot = "random"
""", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(url)
    store.migrate()
    service.register(file, store)
    run = service.run_embedded(url, "lad2", jobs=1)
    assert run.finished == "done", run.errors
    st = service.standings(store, "lad2")
    assert st.kind == "ladder" and st.recorded == 10 and st.details["encounters"] == 5


def test_fit_without_results_and_disconnected_groups() -> None:
    r = fit_ladder(["a", "b", "c", "d"], {})
    assert r.rating == dict.fromkeys("abcd", 0.0) and r.error["a"] > 500
    r = fit_ladder(["a", "b", "c", "d"], {("a", "b", 1.0): 3, ("c", "d", 1.0): 3})
    assert r.rating["a"] > r.rating["b"] and r.rating["c"] > r.rating["d"]


def test_outcomes_cache_follows_the_records() -> None:
    cfg = ladder(4, concurrency=2, stop_after=4)
    strength = {f"e{i:02d}": float(i) for i in range(4)}
    specs, recs = drive(cfg, strength_play(strength))
    full = ladder_outcomes(cfg, recs)
    assert ladder_outcomes(cfg, recs[:4]) == ladder_outcomes(cfg, recs[:4], cache=False)
    assert ladder_outcomes(cfg, recs) == full == ladder_outcomes(cfg, recs, cache=False)
    changed = [FakeRecord(r.match_id, [-x for x in r.returns], r.tags) for r in recs]
    assert ladder_outcomes(cfg, changed) == ladder_outcomes(cfg, changed, cache=False) != full


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ConfigError, match=r"^ladder\.concurency: unknown key"):
        ladder(4, concurency=2)
    with pytest.raises(ConfigError, match=r"^entrants: a ladder needs entrants"):
        parse_config({"tournament": {"id": "x", "game": "calypso", "format": "ladder", "deals": 1},
                      "entrants": []})
    with pytest.raises(ConfigError, match=r"^ladder\.max_matches_per_entrant_per_hour: must be a positive"):
        ladder(4, max_matches_per_entrant_per_hour=0)
    with pytest.raises(ConfigError, match=r"^ladder\.matchmaking: must be one of rating, random"):
        ladder(4, matchmaking="elo")
    with pytest.raises(ConfigError, match=r"^ladder\.stop_after: must be a positive integer"):
        ladder(4, stop_after=-1)


def test_disconnected_remote_entrants_are_skipped_and_join_when_connected() -> None:
    from arena.tournaments import ladder as lad

    ents = [(f"e{i}", "random") for i in range(4)]
    cfg = parse_config({"tournament": {"id": "rl", "game": "calypso", "format": "ladder", "deals": 1, "seed": 3},
                        "ladder": {"concurrency": 3},
                        "entrants": [{"id": e, "bot": b} for e, b in ents]
                        + [{"id": "far", "remote": "far-bot"}, {"id": "near", "remote": "near-bot"}]})
    online = {"near-bot"}

    class Present:  # the caller's presence (its router, in the CLI and the gateway)
        def is_connected(self, bot: str) -> bool:
            return bot in online

    strength = {e: float(i) for i, e in enumerate(cfg.entrant_ids)}
    play = strength_play(strength)
    fmt = make_format(cfg, presence=Present())
    specs = list(fmt.first_round(cfg.entrants))
    recs = [play(s) for s in specs]
    for rnd in range(1, 6):
        nxt = fmt.next_round(TournamentView(cfg.id, cfg, rnd - 1, specs), recs) or []
        specs += nxt
        recs += [play(s) for s in nxt]
    assert all("far" not in s.entrants for s in specs), "an offline bot is skipped"
    assert all(s.tags["offline"] == ["far"] for s in specs)
    assert sum("near" in s.tags["sides"] for s in specs) > 0
    # it connects: its first batch has it at once (no games: the widest interval)
    online.add("far-bot")
    nxt = fmt.next_round(TournamentView(cfg.id, cfg, 5, specs), recs) or []
    assert any("far" in s.tags["sides"] for s in nxt) and all("offline" not in s.tags for s in nxt)
    # everyone offline but two of six: one encounter; nobody: nothing yet (not the end)
    online.clear()
    specs += nxt
    recs += [play(s) for s in nxt]
    none_ = fmt.next_round(TournamentView(cfg.id, cfg, 6, specs), recs)
    assert none_ is not None and len({s.table for s in none_}) == 2  # the 4 built-in bots only
    assert lad.connected(["x"]) == {"x"} or "ARENA_REDIS_URL" in __import__("os").environ


@pytest.mark.parametrize("rating", ["glicko2", "openskill"])
def test_online_leaderboards(rating: str) -> None:
    n = 8
    strength = {f"e{i:02d}": float(n - i) for i in range(n)}
    cfg = ladder(n, concurrency=4, stop_after=60, rating=rating)
    specs, recs = drive(cfg, strength_play(strength))
    st = standings(cfg, recs)
    assert st.details["rating"] == rating and f"{rating} ratings" in st.title
    assert ("Glicko-2" if rating == "glicko2" else "OpenSkill") in st.tie_breaks
    from scipy.stats import spearmanr

    assert spearmanr([strength[r["entrant"]] for r in st.rows], range(n, 0, -1)).statistic > 0.9
    assert all(r["error"] > 0 for r in st.rows)
    again = standings(cfg, list(reversed(recs)))  # record order does not matter
    assert [(r["entrant"], r["rating"]) for r in again.rows] == [(r["entrant"], r["rating"]) for r in st.rows]
    batch = standings(ladder(n, concurrency=4, stop_after=60), recs)
    assert batch.details["rating"] == "batch" and batch.rows[0]["rating"] != st.rows[0]["rating"]
    with pytest.raises(ConfigError, match=r"^ladder\.rating: must be one of batch, glicko2, openskill"):
        ladder(4, rating="elo")


def test_presence_from_redis_without_a_registered_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Celery worker's conductor has no gateway in its process: it reads the
    presence keys the gateways keep in Redis (CI runs Redis on 127.0.0.1:6379)."""
    import redis

    from arena.remote.redis_router import online_key
    from arena.tournaments import ladder as lad

    url = "redis://127.0.0.1:6379/13"
    client = redis.Redis.from_url(url)
    client.delete(online_key("lad-here"), online_key("lad-away"))
    client.set(online_key("lad-here"), "gw-test", ex=30)
    monkeypatch.setenv("ARENA_REDIS_URL", url)
    try:
        assert lad.connected(["lad-here", "lad-away"]) == {"lad-here"}
    finally:
        client.delete(online_key("lad-here"))
    monkeypatch.delenv("ARENA_REDIS_URL")
    assert lad.connected(["lad-here", "lad-away"]) == {"lad-here", "lad-away"}  # cannot tell: all


def test_tables_of_three() -> None:
    """n-player tables (auction, 3 players): each batch seats every entrant once at
    most, each table plays every seating of its deal."""
    cfg = make_config("auction", "ladder", [(f"e{i}", "random") for i in range(7)], deals=1, preset="3p",
                      ladder={"concurrency": 2, "stop_after": 10})
    strength = {f"e{i}": float(i) for i in range(7)}
    specs, recs = drive(cfg, strength_play(strength))
    encounters: dict[int, list[MatchSpec]] = {}
    for s in specs:
        encounters.setdefault(s.tags["encounter"], []).append(s)
    assert len(encounters) == 10
    for group in encounters.values():
        assert len(group[0].tags["sides"]) == 3 and len(group) == 3  # 3 cyclic seatings
        assert len({tuple(s.entrants) for s in group}) == 3 and len({s.deal for s in group}) == 1
    for rnd in {s.round for s in specs}:
        seated = [e for s in specs if s.round == rnd and s.rotation == 0 for e in s.tags["sides"]]
        assert len(seated) == len(set(seated))


def test_canasta_encounters_are_decided_on_canasta_points() -> None:
    from arena.tournaments.ladder import LadderFormat

    cfg = make_config("canasta", "ladder", [("A", "random"), ("B", "random")], deals=1, preset="classic-2p",
                      ladder={"concurrency": 1})
    specs = LadderFormat(cfg).first_round(cfg.entrants)
    assert len(specs) == 2  # one deal, both seatings

    def rec(spec: MatchSpec, points: bool) -> FakeRecord:
        winner = spec.rotation == 0  # each side wins one seating: a draw on the rank-based returns
        a = spec.entrants.index("A")
        ret = [0.0, 0.0]
        ret[a], ret[1 - a] = (1.0, -1.0) if winner else (-1.0, 1.0)
        pts = [0.0, 0.0]
        pts[a], pts[1 - a] = (1500.0, -200.0) if winner else (300.0, 450.0)  # A: +1700, then -150
        return FakeRecord(spec.match_id, ret, tags_of(spec), points=pts if points else None)

    assert ladder_outcomes(cfg, [rec(s, True) for s in specs], cache=False) == {("A", "B", 1.0): 1}
    assert ladder_outcomes(cfg, [rec(s, False) for s in specs], cache=False) == {("A", "B", 0.5): 1}
