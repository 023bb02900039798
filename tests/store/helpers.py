"""Builders and subprocess entry points for the store tests (importable under spawn)."""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable
from typing import Any

from arena.records.record import ActionEntry, Fault, MatchRecord
from arena.records.spec import MatchSpec, make_match_id


def make_spec(tid: str, index: int, **kw: Any) -> MatchSpec:
    args: dict[str, Any] = dict(
        match_id=make_match_id(tid, index), tournament_id=tid, index=index, game="highcard",
        preset=None, options={"deals": 2, "nested": {"a": [1, 2]}}, seed=1000 + index,
        entrants=("alice", "bob"), bots=("builtin:random", "remote:bob-bot"),
        init={"board": index + 1}, deal=index // 2, rotation=index % 2, table=0,
        deadline_ms=2500.0, tags={"round": 1})
    args.update(kw)
    return MatchSpec(**args)


def make_record(tid: str, index: int) -> MatchRecord:
    return MatchRecord(
        match_id=make_match_id(tid, index), game="highcard", ruleset="highcard@v1", preset=None,
        options={"deals": 2}, init={"board": index + 1}, seed=1000 + index,
        decks=[["AS", "KH", "2C"], ["3D", "4S"]], seats=["random", "bob-bot"],
        actions=[ActionEntry(0, "AS", id=12, ms=0.5), ActionEntry(1, "KH", id=11, default=True)],
        returns=[1.0, -1.0] if index % 2 == 0 else [-0.5, 0.5],
        faults=[Fault(1, 1, "timeout", "no answer in 2500 ms")],
        terminal=True, started_at="2026-11-29T10:00:00+00:00",
        finished_at="2026-11-29T10:00:01.250000+00:00", tags={"tournament": tid, "deal": index})


def record_many(url: str, tid: str, n: int, start: Any) -> int:
    """Wait for ``start``, then try to record matches 0..n-1; returns how many this process wrote."""
    from arena.store import Store
    store = Store(url)
    try:
        start.wait(30)
        return sum(store.record_result(make_record(tid, i)) for i in range(n))
    finally:
        store.dispose()


def claim_many(url: str, tid: str, n: int, worker: str, start: Any) -> list[str]:
    """Wait for ``start``, then try to lease matches 0..n-1; returns the ids this worker got."""
    from arena.store import Store
    store = Store(url)
    try:
        start.wait(30)
        return [make_match_id(tid, i) for i in range(n) if store.lease(make_match_id(tid, i), worker, 60)]
    finally:
        store.dispose()


def claim_next_all(url: str, tid: str, worker: str, start: Any) -> list[str]:
    """Wait for ``start``, then lease batches of 3 until nothing is left."""
    from arena.store import Store
    store = Store(url)
    try:
        start.wait(30)
        got: list[str] = []
        while batch := store.lease_next(tid, worker, 60, 3):
            got.extend(s.match_id for s in batch)
        return got
    finally:
        store.dispose()


def migrate_once(url: str, start: Any) -> str | None:
    from arena.store import Store
    store = Store(url)
    try:
        start.wait(30)
        return store.migrate()
    finally:
        store.dispose()


class SpawnPool:
    """A pool of spawned processes (started once per session) and a manager for events."""

    def __init__(self, processes: int) -> None:
        ctx = mp.get_context("spawn")
        self.processes = processes
        self.manager = ctx.Manager()
        self.pool = ctx.Pool(processes)
        self.pool.map(_warm, range(processes))  # import arena.store in every worker

    def run(self, fn: Callable[..., Any], args_for: Callable[[int, Any], tuple[Any, ...]]) -> list[Any]:
        """Run ``fn(*args_for(i, start))`` in each process; they all begin at ``start``."""
        start = self.manager.Event()
        futures = [self.pool.apply_async(fn, args_for(i, start)) for i in range(self.processes)]
        start.set()
        return [f.get(120) for f in futures]

    def close(self) -> None:
        self.pool.close()
        self.pool.join()
        self.manager.shutdown()


def _warm(_: int) -> None:
    import arena.store  # noqa: F401
