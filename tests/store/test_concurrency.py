"""Four processes (spawn) writing the same rows at once, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import create_engine, func, select

from arena.store import Store
from arena.store.models import MatchRecordRow, ResultRow

from .helpers import SpawnPool, claim_many, claim_next_all, make_record, make_spec, record_many

N = 50


def test_record_result_exactly_once_across_processes(store: Store, db_url: str,
                                                    spawn_pool: SpawnPool) -> None:
    store.add_tournament("t1", "Demo", "highcard", {}, [make_spec("t1", i) for i in range(N)])
    wrote = spawn_pool.run(record_many, lambda i, start: (db_url, "t1", N, start))
    assert sum(wrote) == N, wrote
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(MatchRecordRow)).scalar_one() == N
            assert conn.execute(select(func.count()).select_from(ResultRow)).scalar_one() == 2 * N
    finally:
        engine.dispose()
    assert store.progress("t1") == (N, N)
    assert list(store.records("t1")) == [make_record("t1", i) for i in range(N)]
    assert store.status_counts("t1")["done"] == N


def test_claims_exclusive_across_processes(store: Store, db_url: str, spawn_pool: SpawnPool) -> None:
    store.add_tournament("t1", "Demo", "highcard", {}, [make_spec("t1", i) for i in range(N)])
    got = spawn_pool.run(claim_many, lambda i, start: (db_url, "t1", N, f"w{i}", start))
    counts = Counter(mid for ids in got for mid in ids)
    assert len(counts) == N and set(counts.values()) == {1}, got
    states = store.spec_states("t1")
    assert all(s.status == "leased" and s.attempts == 1 for s in states)
    owner = {mid: f"w{i}" for i, ids in enumerate(got) for mid in ids}
    assert all(s.claimed_by == owner[s.match_id] for s in states)


def test_claim_next_partitions_work_across_processes(store: Store, db_url: str,
                                                     spawn_pool: SpawnPool) -> None:
    store.add_tournament("t1", "Demo", "highcard", {}, [make_spec("t1", i) for i in range(N)])
    got = spawn_pool.run(claim_next_all, lambda i, start: (db_url, "t1", f"w{i}", start))
    counts = Counter(mid for ids in got for mid in ids)
    assert len(counts) == N and set(counts.values()) == {1}, got
    assert store.lease_next("t1", "late", 60) == []
