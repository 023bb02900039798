"""Thin, idempotent tasks over arena services (CONVENTIONS rule 12).

``arena.tournament.work(tournament_id)`` is an *offer* of work, sent by a
conductor (:mod:`arena.tournaments.conductor`, through
:class:`workers.dispatch.CeleryDispatcher`). It carries no match ids: it leases the
tournament's playable matches from the store, about :data:`TARGET_BATCH_SECONDS` of
play at a time (owner ``celery:<host>:<pid>``), renews its leases by heartbeat while
it plays, and records each match exactly once (a batch's records in one write
transaction), until nothing is left to lease or :data:`TARGET_WORK_SECONDS` have passed. A match that raises is marked ``failed``
(the conductor retries it with backoff, up to its attempts). Store errors are
retried with backoff; records that still cannot be written after two lease
lengths leave their leases to expire, and the match is offered again (it replays
identically from its seed). A match the platform failed mid-way
(:class:`arena.bots.base.RouteFailure`: the gateway or the route to a bot lost) is
void: given back unplayed, not counted as an attempt, and replayed. When it stops, the task runs one conductor pass for
its tournament, so the tournament finishes as soon as its last match is recorded.

A gauntlet with ``[gauntlet.sprt]`` stops by itself: the task leases nothing more
once the SPRT on the recorded results has decided, and the conductor finalizes
the tournament ``stopped``.

The task is ``acks_late`` with ``reject_on_worker_lost`` and ignores its result
(nothing reads the result backend). An offer lost in the broker (a Redis restart
without persistence) or never acknowledged (a worker killed outright) costs
nothing: the leases of a dead worker expire, and the conductor offers again
whatever is playable.
"""

from __future__ import annotations

import gc
import logging
import math
import os
import threading
import time
from typing import Any

from celery import shared_task

__all__ = ["work", "get_store", "warm_up", "TARGET_WORK_SECONDS", "TARGET_BATCH_SECONDS", "MAX_BATCH"]

log = logging.getLogger("arena.workers")

TARGET_WORK_SECONDS = 20.0
"""How long one offer plays at most before it returns (another offer goes on):
long enough that Celery's own cost per offer is negligible, short enough to spread
a tournament over the workers and keep the broker's redelivery out of the way."""

TARGET_BATCH_SECONDS = 1.0
"""A task leases about this much play at a time (from the duration of its last
batch), at most :data:`MAX_BATCH` matches: the tail of a tournament is uneven by at
most about this long across workers, and short matches cost one lease round trip
per batch instead of one each (and near the end :data:`GUIDED_SHARE` makes them smaller)."""

MAX_BATCH = 16

GUIDED_SHARE = 4
"""A task leases at most ``1 / GUIDED_SHARE`` of what is left (guided self-scheduling):
batches shrink near a tournament's end, so the last matches spread over the workers
instead of one batch finishing alone."""

_stores: dict[tuple[int, str], Any] = {}
_lock = threading.Lock()


def get_store(url: str) -> Any:
    """The store at ``url``, one per process (migrated on first use)."""
    key = (os.getpid(), url)
    with _lock:
        store = _stores.get(key)
        if store is None:
            from arena.tournaments.executors import open_store

            store = _stores[key] = open_store(url)
        return store


def warm_up(store_url: str | None) -> None:
    """Import what matches need and migrate the store, once, in the worker's parent.

    Called on ``worker_init`` (:mod:`workers.celery`): the prefork pool's processes
    are forked afterwards and inherit the imported engines, bots, protobuf and
    SQLAlchemy modules, so the first batch of each process starts at once instead
    of spending a quarter of a second importing (which also skewed the remote-route
    benchmark's CPU figures). Nothing opened here crosses the fork: the store's
    engine is disposed, and no gRPC module is imported (tasks never use gRPC).
    Failures are logged, never raised: a worker starts even if the store is down.
    Last, ``gc.freeze()`` moves everything loaded so far out of the collector's
    reach, as prefork servers do.
    """
    from arena.bots import list_bots, make_bot
    from arena.remote import agent, convert, redis_router  # noqa: F401 - the remote route
    from arena.games import get_game, list_games
    from arena.tournaments import conductor, history, rounds, runner  # noqa: F401 - SPRT, finalize
    from arena.ratings import records  # noqa: F401 - numpy/scipy, for the rating history at finalize

    rounds.format_names()  # the format modules, which every task's conductor pass reads

    for name in list_games():
        try:
            get_game(name)
            for bot in list_bots(name):
                make_bot(name, bot, seed=0)
        except Exception as exc:  # noqa: BLE001 - a broken game fails its own matches
            log.warning("warm-up: %s: %s", name, exc)
    if store_url:
        try:
            from arena.tournaments.executors import open_store

            store = open_store(store_url)
            store.engine.dispose()
        except Exception as exc:  # noqa: BLE001
            log.warning("warm-up: store %s: %s", store_url, exc)
    # what the parent holds now lives as long as the worker: keep it out of the
    # pool processes' garbage collections (and their pages shared after the fork)
    gc.collect()
    gc.freeze()


def _store_url(task: Any, store_url: str | None) -> str:
    return store_url or str(task.app.conf.get("arena_store_url") or "sqlite:///arena.db")


def _settings() -> Any:
    from arena.tournaments.conductor import ConductorSettings

    return ConductorSettings.from_env()


@shared_task(name="arena.tournament.work", bind=True, acks_late=True,
             reject_on_worker_lost=True, ignore_result=True)
def work(self: Any, tournament_id: str, store_url: str | None = None,
         max_seconds: float = TARGET_WORK_SECONDS) -> dict[str, Any]:
    """Lease and play ``tournament_id``'s matches; see the module docstring."""
    from arena.tournaments.conductor import Conductor, Heartbeat, owner_id, with_store_retries
    from arena.tournaments.conductor import early_stop
    from arena.tournaments.runner import (DEFERRED, FORFEIT, check_presence, default_router,
                                         forfeit_record, in_process, offline_bots, play_spec,
                                         remote_bots)
    from workers.dispatch import CeleryDispatcher

    url = _store_url(self, store_url)
    settings = _settings()
    store = get_store(url)
    owner = owner_id("celery")
    from arena.bots.base import RouteFailure

    recorded, failed, voided, errors = 0, 0, 0, []
    start = time.monotonic()
    stop = early_stop(store, tournament_id)
    retry = settings.lease_seconds
    batch = 1
    with Heartbeat(store, owner, settings):
        while time.monotonic() - start < max_seconds:
            if stop is not None and stop():
                break
            limit = batch
            if limit > 1:  # guided: near the end, smaller batches, so the workers end together
                left = with_store_retries(lambda: store.leasable_count(tournament_id), seconds=retry,
                                          what="count")
                limit = max(1, min(limit, math.ceil(left / GUIDED_SHARE)))
            specs = with_store_retries(lambda: store.lease_next(tournament_id, owner,
                                                                 settings.lease_seconds, limit),
                                       seconds=retry, what="lease")
            if not specs:
                break
            began = time.monotonic()
            finished: list[Any] = []  # written together after the batch: one transaction
            for spec in specs:
                try:
                    if in_process(spec):
                        raise ValueError("Blue Chip robots play only in the process hosting their "
                                         "Table Manager (arena tournament run FILE --bluechip HOST:PORT)")
                    verdict = check_presence(store, spec, owner, default_router(), settings) \
                        if remote_bots(spec) else "play"
                    if verdict == DEFERRED:
                        continue  # a remote bot is offline: the match waits for it
                    if verdict == FORFEIT:
                        record = forfeit_record(spec, offline_bots(spec, default_router()),
                                                settings.absence_limit)
                    else:
                        record = play_spec(spec)
                except RouteFailure as exc:  # the platform failed, not a bot: void, replayed
                    log.warning("match %s void (platform fault): %s", spec.match_id, exc)
                    voided += 1
                    reason, match_id = str(exc), spec.match_id
                    with_store_retries(lambda: store.void(match_id, owner, settings.heartbeat_seconds,
                                                          reason), seconds=retry, what="void")
                    continue
                except Exception as exc:  # noqa: BLE001 - recorded as the match's failure
                    log.exception("match %s failed", spec.match_id)
                    errors.append(f"{spec.match_id}: {type(exc).__name__}: {exc}")
                    failed += 1
                    match_id = spec.match_id
                    with_store_retries(lambda: store.mark_failed(match_id, owner, errors[-1]),
                                       seconds=retry, what="mark failed")
                    continue
                finished.append(record)
            # one write transaction for the batch (on SQLite the workers' writes take
            # turns, and a writer that finds the lock held sleeps 1, 2, 5 ... ms: one
            # turn per match cost a quarter of the play with two workers). A store
            # outage is waited out for up to two leases; after that the leases expire
            # and the matches are offered again (and replay identically)
            if finished:
                wrote = with_store_retries(lambda: store.record_results(finished), seconds=2 * retry,
                                           what=f"{len(finished)} records")
                recorded += sum(wrote)
            # lease about TARGET_BATCH_SECONDS of play at a time (short matches: fewer
            # store round trips; long ones: one at a time, so the work stays spread)
            per_match = (time.monotonic() - began) / len(specs)
            batch = max(1, min(MAX_BATCH, int(TARGET_BATCH_SECONDS / max(per_match, 1e-3))))
    # the tournament may be complete now: finish it at once instead of at the next pass
    try:
        Conductor(store, CeleryDispatcher(self.app, store_url=url), settings).reconcile(tournament_id)
    except Exception as exc:  # noqa: BLE001 - the conductor loops pass again
        log.warning("conductor pass after work on %s failed: %s", tournament_id, exc)
    return {"tournament_id": tournament_id, "recorded": recorded, "failed": failed, "voided": voided,
            "errors": errors[:20], "seconds": round(time.monotonic() - start, 3), "worker": owner}
