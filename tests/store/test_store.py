"""The Store API on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import create_engine, select

from arena.records.record import MatchRecord
from arena.store import (
    RatingPoint,
    SpecConflictError,
    Store,
    StoreBotRegistry,
    TournamentNotFoundError,
)
from arena.store.models import BotRow
from arena.store.registry import BotExistsError, BotNotFoundError, hash_token
from arena.records.spec import make_match_id

from .helpers import make_record, make_spec


def _add(store: Store, tid: str = "t1", n: int = 4) -> list:  # type: ignore[type-arg]
    specs = [make_spec(tid, i) for i in range(n)]
    store.add_tournament(tid, "Demo", "highcard", {"deals": 2, "entrants": ["alice", "bob"]}, specs)
    return specs


def test_add_tournament_round_trip_and_idempotent(store: Store) -> None:
    specs = [make_spec("t1", i) for i in range(4)]
    cfg = {"deals": 2, "seeds": (1, 2)}
    assert store.add_tournament("t1", "Demo", "highcard", cfg, specs) == 4
    assert store.add_tournament("t1", "Demo", "highcard", cfg, specs) == 0
    assert store.add_tournament("t1", "Demo", "highcard", cfg, list(reversed(specs[:2]))) == 0
    assert store.specs("t1") == specs
    assert store.spec(specs[2].match_id) == specs[2]
    info = store.tournament("t1")
    assert (info.id, info.name, info.game, info.config, info.status) == (
        "t1", "Demo", "highcard", {"deals": 2, "seeds": [1, 2]}, "pending")
    assert info.created.tzinfo is not None
    assert abs(info.created - datetime.now(timezone.utc)) < timedelta(minutes=1)
    assert [t.id for t in store.tournaments()] == ["t1"]
    assert store.progress("t1") == (0, 4)
    # more specs later (e.g. a Swiss round) are added, old ones untouched
    more = [make_spec("t1", i) for i in range(4, 6)]
    assert store.add_tournament("t1", "Demo", "highcard", cfg, specs + more) == 2
    assert store.add_specs("t1", more) == 0
    assert store.progress("t1") == (0, 6)


def test_add_tournament_conflicts_write_nothing(store: Store) -> None:
    specs = _add(store)
    cfg = {"deals": 2, "entrants": ["alice", "bob"]}
    with pytest.raises(SpecConflictError, match="t1:000001"):
        store.add_tournament("t1", "Demo", "highcard", cfg,
                             [make_spec("t1", 9), make_spec("t1", 1, seed=5)])
    assert store.specs("t1") == specs  # the new spec 9 was rolled back
    with pytest.raises(SpecConflictError, match="exists as"):
        store.add_tournament("t1", "Other name", "highcard", cfg, specs)
    with pytest.raises(SpecConflictError, match="exists as"):
        store.add_tournament("t1", "Demo", "highcard", {"deals": 3}, specs)
    with pytest.raises(SpecConflictError, match="index 2"):  # same index, other id
        store.add_tournament("t1", "Demo", "highcard", cfg, [make_spec("t1", 2, match_id="t1:x")])
    with pytest.raises(SpecConflictError, match="belongs to"):
        store.add_tournament("t1", "Demo", "highcard", cfg, [make_spec("t2", 0)])
    with pytest.raises(TournamentNotFoundError):
        store.add_specs("nope", [make_spec("nope", 0)])
    with pytest.raises(TournamentNotFoundError):
        store.tournament("nope")
    with pytest.raises(KeyError):
        store.spec("t1:999999")
    assert store.specs("t1") == specs


def test_tournament_status(store: Store) -> None:
    _add(store)
    store.set_tournament_status("t1", "running")
    assert store.tournament("t1").status == "running"
    with pytest.raises(TournamentNotFoundError):
        store.set_tournament_status("nope", "done")


def _expire(store: Store, match_id: str) -> None:
    """Make a lease look expired (its holder stopped renewing it long ago)."""
    from datetime import timedelta

    from sqlalchemy import update

    from arena.store.models import MatchSpecRow, utcnow

    with store.engine.begin() as conn:
        conn.execute(update(MatchSpecRow).where(MatchSpecRow.match_id == match_id)
                     .values(lease_expires=utcnow() - timedelta(seconds=1)))


def test_leases_heartbeat_and_takeover(store: Store) -> None:
    specs = _add(store)
    a, b = specs[0].match_id, specs[1].match_id
    assert store.lease(a, "w1", 30) is True
    assert store.lease(a, "w2", 30) is False
    assert store.lease(a, "w1", 30) is False  # not twice while it holds it
    assert store.leasable_specs("t1") == specs[1:]
    assert store.leasable_specs("t1", limit=2) == specs[1:3]
    assert store.leasable_count("t1") == 3
    # the heartbeat renews only the owner's leases
    assert store.renew("w1", 30) == 1 and store.renew("w2", 30) == 0
    assert store.renew("w1", 30, [a, b]) == 1
    # a lease that expired (its worker died) is taken over
    _expire(store, a)
    assert store.leasable_specs("t1")[0] == specs[0]
    assert store.lease(a, "w2", 30) is True
    st = {s.match_id: s for s in store.spec_states("t1")}[a]
    assert (st.status, st.claimed_by, st.attempts) == ("leased", "w2", 2)
    assert st.claimed_at is not None and st.claimed_at.tzinfo is not None
    assert st.lease_expires is not None and st.lease_expires > st.claimed_at
    assert store.renew("w1", 30) == 0  # the old holder lost it
    # released: pending again, and the attempt is not counted
    assert store.release(a, "w1") is False
    assert store.release(a, "w2") is True
    assert {s.match_id: s for s in store.spec_states("t1")}[a].attempts == 1
    assert store.lease(a, "w3", 30) is True
    assert store.lease(b, "w1", 30) is True
    assert store.mark_failed(b, "w2", "boom") is False
    assert store.mark_failed(b, "w1", "boom") is True
    _expire(store, b)
    assert store.lease(b, "w4", 30) is False  # failed: only after the conductor reopens it
    assert store.status_counts("t1") == {"pending": 2, "leased": 1, "done": 0, "failed": 1}
    assert store.lease("t1:unknown", "w1", 30) is False
    assert store.leased_owners("t1") == ["w3"]
    assert store.release_owner("w3") == 1
    assert store.status_counts("t1")["pending"] == 3


def test_expired_leases_reopen_then_fail_after_max_attempts(store: Store) -> None:
    specs = _add(store)
    a = specs[0].match_id
    assert store.lease(a, "w1", 30)
    assert store.expire_leases("t1", 3) == (0, 0)  # not expired yet
    _expire(store, a)
    assert store.expire_leases("t1", 3) == (1, 0)
    assert store.spec_states("t1")[0].status == "pending"
    for owner in ("w2", "w3"):
        assert store.lease(a, owner, 30)
        _expire(store, a)
    assert store.expire_leases("t1", 3) == (0, 1)  # third attempt used up
    st = store.spec_states("t1")[0]
    assert st.status == "failed" and "lease expired" in (st.error or "")
    # an owner known dead has its leases reopened at once
    assert store.lease(specs[1].match_id, "dead", 30)
    assert store.expire_leases("t1", 3, owners=["dead"]) == (1, 0)


def test_failed_matches_retry_with_backoff_then_by_hand(store: Store) -> None:
    specs = _add(store)
    a = specs[0].match_id
    assert store.lease(a, "w1", 30) and store.mark_failed(a, "w1", "boom")
    assert store.reopen_failed("t1", max_attempts=1, backoff=0) == 0  # no attempts left
    assert store.reopen_failed("t1", max_attempts=3, backoff=60) == 1
    st = store.spec_states("t1")[0]
    assert st.status == "pending" and st.not_before is not None
    assert store.lease(a, "w1", 30) is False  # waiting out its backoff
    assert store.next_ready("t1") == st.not_before
    assert store.reopen_failed("t1", max_attempts=3, backoff=60) == 0
    assert store.lease(specs[1].match_id, "w1", 30) and store.mark_failed(specs[1].match_id, "w1", "x")
    assert store.retry_failed("t1") == 1
    st1 = store.spec_states("t1")[1]
    assert (st1.status, st1.attempts, st1.not_before) == ("pending", 0, None)


def test_finish_tournament_once_and_reopen(store: Store) -> None:
    _add(store)
    assert store.finish_tournament("t1", "done") is True
    assert store.finish_tournament("t1", "done") is False  # a second conductor loses the race
    info = store.tournament("t1")
    assert info.status == "done" and info.finished is not None
    assert [t.id for t in store.active_tournaments()] == []
    store.reopen_tournament("t1")
    assert store.tournament("t1").status == "running" and store.tournament("t1").finished is None
    store.set_round("t1", 2)
    store.set_round("t1", 1)  # never lowered
    assert store.tournament("t1").round == 2


def test_record_result_exactly_once_and_round_trip(store: Store) -> None:
    specs = _add(store)
    rec = make_record("t1", 0)
    assert store.lease(rec.match_id, "w1", 30)
    assert store.record_result(rec) is True
    assert store.record_result(rec) is False
    other = MatchRecord.from_dict({**rec.to_dict(), "returns": [9.0, 9.0]})
    assert store.record_result(other) is False  # first write wins, nothing changes
    got = store.record(rec.match_id)
    assert got == rec and got is not None and got.to_dict() == rec.to_dict()
    assert store.record("t1:999999") is None
    assert store.progress("t1") == (1, 4)
    assert {s.match_id: s.status for s in store.spec_states("t1")}[rec.match_id] == "done"
    _expire(store, rec.match_id)
    assert store.lease(rec.match_id, "w2", 30) is False  # done is never leased
    assert store.leasable_specs("t1") == specs[1:]
    # a late mark_failed by the (stale) claimer does not undo done
    assert store.mark_failed(rec.match_id, "w1", "late") is False
    for i in (3, 1, 2):
        assert store.record_result(make_record("t1", i))
    assert list(store.records("t1")) == [make_record("t1", i) for i in range(4)]
    assert list(store.records("t1", batch=3)) == [make_record("t1", i) for i in range(4)]
    assert list(store.records("nope")) == []
    assert store.progress("t1") == (4, 4)
    assert store.status_counts("t1")["done"] == 4


def test_record_results_in_one_transaction_each_once(store: Store) -> None:
    _add(store)
    recs = [make_record("t1", i) for i in range(3)]
    assert store.record_results([recs[0], recs[1], recs[0]]) == [True, True, False]
    assert store.record_results([recs[1], recs[2]]) == [False, True]
    assert store.record_results([]) == []
    assert list(store.records("t1")) == recs and store.progress("t1") == (3, 4)
    assert len(store.results("t1")) == 6  # two seats each, written once


def test_a_record_that_is_not_terminal_writes_no_results_rows(store: Store) -> None:
    _add(store)
    forfeit = MatchRecord.from_dict({**make_record("t1", 0).to_dict(), "terminal": False,
                                     "actions": [], "returns": []})
    assert store.record_result(forfeit) and store.record(forfeit.match_id) == forfeit
    assert store.results("t1") == [] and store.progress("t1") == (1, 4)


def test_results_rows(store: Store) -> None:
    _add(store)
    for i in range(2):
        store.record_result(make_record("t1", i))
    rows = store.results("t1")
    assert [(r.match_id, r.seat, r.entrant, r.bot, r.returns, r.ruleset) for r in rows] == [
        ("t1:000000", 0, "alice", "random", 1.0, "highcard@v1"),
        ("t1:000000", 1, "bob", "bob-bot", -1.0, "highcard@v1"),
        ("t1:000001", 0, "alice", "random", -0.5, "highcard@v1"),
        ("t1:000001", 1, "bob", "bob-bot", 0.5, "highcard@v1"),
    ]
    assert len(store.results(ruleset="highcard@v1", bot="bob-bot")) == 2
    assert store.results(ruleset="other@v1") == []


def test_record_without_spec(store: Store) -> None:
    rec = make_record("adhoc", 0)
    assert store.record_result(rec) is True
    assert store.record_result(rec) is False
    assert list(store.records("adhoc")) == [rec]  # tournament from the record's tags
    assert [r.entrant for r in store.results("adhoc")] == ["random", "bob-bot"]


def test_rating_history(store: Store) -> None:
    t0 = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
    pts = [RatingPoint("highcard@v1", "a", 1516.0, None, 1, t0, "t1:000000", "elo"),
           RatingPoint("highcard@v1", "b", 1484.0, None, 1, t0, "t1:000000", "elo"),
           RatingPoint("highcard@v1", "a", 1530.5, 40.0, 2, t0 + timedelta(seconds=1), None, "elo"),
           RatingPoint("bridge@v1", "a", 1500.0)]
    assert store.append_ratings(pts) == 4
    assert store.append_ratings([]) == 0
    assert store.rating_history("highcard@v1") == pts[:3]
    assert store.rating_history("highcard@v1", "a") == [pts[0], pts[2]]
    assert store.rating_history("highcard@v1", rater="glicko2") == []
    assert store.rating_history("bridge@v1")[0].rater == ""
    assert store.clear_ratings("highcard@v1") == 3
    assert store.rating_history("highcard@v1") == []


def test_bot_registry_stores_hash_never_token(store: Store, db_url: str) -> None:
    reg = store.bot_registry()
    assert isinstance(reg, StoreBotRegistry)
    entry, token = reg.register("alice-bot", owner="alice")
    assert entry.token_sha256 == hash_token(token)
    assert reg.authenticate(token) == entry
    assert reg.authenticate("arena_bot_wrong") is None and reg.authenticate("") is None
    assert reg.get("alice-bot") == entry  # created_unix_ms survives the round trip
    with pytest.raises(BotExistsError):
        reg.register("alice-bot")
    with pytest.raises(ValueError):
        reg.register("bad id!")
    _, token_b = reg.register("bob-bot")
    assert [b.bot_id for b in reg.list()] == ["alice-bot", "bob-bot"]
    # another store instance (another process) sees the same bots
    other = StoreBotRegistry(Store(db_url))
    assert other.authenticate(token_b) is not None and other.get("alice-bot") == entry
    assert reg.revoke("alice-bot").revoked is True
    assert reg.authenticate(token) is None and other.authenticate(token) is None
    with pytest.raises(BotNotFoundError):
        reg.revoke("nobody")
    with pytest.raises(BotNotFoundError):
        reg.get("nobody")
    # the database holds the hash and never the token
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(BotRow.__table__)).all()
    finally:
        engine.dispose()
    dump = repr(rows)
    assert token not in dump and token_b not in dump
    assert hash_token(token) in dump and hash_token(token_b) in dump
    other.store.dispose()


def test_lease_and_record_ids_match_make_match_id(store: Store) -> None:
    _add(store, "t-x", 2)
    assert store.lease(make_match_id("t-x", 1), "w", 30)


def test_lease_next(store: Store) -> None:
    specs = _add(store, "t1", 5)
    assert store.lease_next("t1", "w1", 30, 2) == specs[:2]
    assert store.lease_next("t1", "w2", 30) == specs[2:3]
    assert store.lease_next("t1", "w2", 30, 10) == specs[3:]
    assert store.lease_next("t1", "w3", 30, 10) == []
    _expire(store, specs[0].match_id)
    assert store.lease_next("t1", "w3", 30, 1) == specs[:1]  # an expired lease


def test_default_url_and_nested_sqlite_path(tmp_path: object) -> None:
    from pathlib import Path

    from arena.store import DEFAULT_URL
    assert Store().url == DEFAULT_URL == "sqlite:///arena.db"
    url = f"sqlite:///{Path(str(tmp_path)) / 'a' / 'b' / 'arena.db'}"
    s = Store(url)
    try:
        assert s.migrate() is not None
        assert (Path(str(tmp_path)) / "a" / "b" / "arena.db").exists()
        with s.engine.connect() as conn:  # WAL and a busy timeout for several writer processes
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 60_000
    finally:
        s.dispose()


def test_defer_and_void_give_the_lease_back_uncounted(store: Store) -> None:
    specs = _add(store)
    a, b = specs[0].match_id, specs[1].match_id
    assert store.lease(a, "w1", 30) and store.lease(b, "w1", 30)
    assert store.defer(a, "w2", 60, "x offline") is None  # not its lease
    since = store.defer(a, "w1", 60, "deferred: x offline")
    assert since is not None and store.deferred_since(a) == since
    st = {s.match_id: s for s in store.spec_states("t1")}
    assert (st[a].status, st[a].attempts, st[a].error) == ("pending", 0, "deferred: x offline")
    assert st[a].not_before is not None and store.lease(a, "w1", 30) is False  # waits
    _expire(store, a)  # (only leases expire; the deferral's not_before still holds)
    assert store.lease(a, "w1", 30) is False
    assert store.void(b, "w1", 0, "gateway gone") is True
    st_b = {s.match_id: s for s in store.spec_states("t1")}[b]
    assert (st_b.status, st_b.attempts, st_b.error) == ("pending", 0, "void: gateway gone")
    assert store.lease(b, "w3", 30) is True  # playable again at once (0 s)
    assert store.void(b, "w1", 0, "late") is False  # no longer its lease
    assert store.deferred_since(b) is None


def test_voids_in_a_row_pause_the_tournament_until_a_record(store: Store) -> None:
    """Issue 26: a route that keeps failing voided the same matches again and again
    (16,883 voids in one log). Now ``pause_after`` voids in a row (no record between)
    that span at least ``pause_seconds`` pause the tournament: nothing of it is
    leasable until the pause ends, the reason is kept for ``tournament status``, the
    next pause is longer, and a record ends it. A burst (one fault voiding every match
    in flight at once) is replayed at once, not paused."""
    from arena.store.models import MatchSpecRow, TournamentRow
    from arena.tournaments.service import status

    specs = _add(store, "t1", 7)
    ids = [s.match_id for s in specs]
    policy = {"pause_after": 3, "pause_seconds": 60.0}

    def void(k: int, reason: str = "Redis unavailable: Too many connections") -> None:
        assert store.lease(ids[k], "w1", 30)
        assert store.void(ids[k], "w1", 0, reason, **policy)

    def move_back(**values: Any) -> None:
        with store.engine.begin() as conn:
            conn.execute(TournamentRow.__table__.update().values(**values))

    for k in range(3):  # a burst: three at once
        void(k)
    info = store.tournament("t1")
    assert (info.voids_in_row, info.paused_until) == (3, None) and store.leasable_count("t1") == 7
    move_back(voids_since=datetime.now(timezone.utc) - timedelta(seconds=61))  # the route failed for a minute
    void(3)
    info = store.tournament("t1")
    now = datetime.now(timezone.utc)
    assert info.voids_in_row == 4 and info.paused_until is not None
    assert timedelta(seconds=55) < info.paused_until - now <= timedelta(seconds=60)
    assert "4 matches in a row voided" in (info.pause_reason or "") and "Too many connections" in info.pause_reason
    assert store.leasable_count("t1") == 0 and store.lease_next("t1", "w2", 30, 7) == []
    st = status(store, "t1")
    assert st.route_pause is not None and st.to_dict()["route_pause"]["reason"] == info.pause_reason
    # the pause over (moved back here), the route still fails: paused again at once, for longer
    past = datetime.now(timezone.utc) - timedelta(seconds=1)
    move_back(paused_until=past)
    with store.engine.begin() as conn:
        conn.execute(MatchSpecRow.__table__.update().values(not_before=past))
    leased = store.lease_next("t1", "w1", 30, 3)
    assert len(leased) == 3
    for spec in leased:  # the first void pauses it again; the others come in while paused
        assert store.void(spec.match_id, "w1", 0, "still failing", **policy)
    info = store.tournament("t1")
    assert info.voids_in_row == 7 and info.paused_until is not None
    assert "5 matches in a row" in (info.pause_reason or "")
    assert timedelta(seconds=115) < info.paused_until - datetime.now(timezone.utc) <= timedelta(seconds=120)
    # a record ends the pause and the count
    assert store.record_results([make_record("t1", 6)]) == [True]
    info = store.tournament("t1")
    assert (info.voids_in_row, info.paused_until, info.pause_reason) == (0, None, None)
    assert status(store, "t1").route_pause is None
    # without a policy, voids count but never pause
    with store.engine.begin() as conn:
        conn.execute(MatchSpecRow.__table__.update().values(not_before=past))
    move_back(voids_since=datetime.now(timezone.utc) - timedelta(seconds=600))
    leased = store.lease_next("t1", "w1", 30, 7)
    assert len(leased) == 6
    for spec in leased:
        assert store.void(spec.match_id, "w1", 0, "x")
    info = store.tournament("t1")
    assert (info.voids_in_row, info.paused_until) == (6, None) and store.leasable_count("t1") == 6


def test_a_void_forgets_the_deferral(store: Store) -> None:
    """A void means the bot was there (the route failed, not the bot): a later absence
    is counted afresh, not from a deferral before the void."""
    specs = _add(store)
    a = specs[0].match_id
    assert store.lease(a, "w1", 30) and store.defer(a, "w1", 0, "deferred: x offline") is not None
    assert store.lease(a, "w1", 30) and store.void(a, "w1", 0, "gateway gone")
    assert store.deferred_since(a) is None
