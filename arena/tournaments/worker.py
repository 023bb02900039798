"""One offer of work, played: lease a tournament's matches from the store, play
them, record each once, until nothing is left to lease or the time is up.

What a Celery ``arena.tournament.work`` task does (:mod:`workers.tasks` calls it
through :func:`arena.tournaments.service.work`; the module docstring there tells
the whole story): about ``batch_seconds`` of local play is leased at a time (at
most ``max_batch`` matches, and near the end no more than ``1 / guided_share`` of
what is left, so the workers end together); matches with remote bots play on
threads, up to ``capacity`` at once, beside the local ones; what finished since
the last write is recorded in one write transaction; a match that raises is
marked failed, one the platform failed (a :class:`~arena.bots.base.RouteFailure`)
is void and replayed; a gauntlet whose SPRT has decided leases nothing more.
When it stops, one conductor pass over the tournament (with the caller's
dispatcher) finishes it as soon as its last match is recorded.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future

    from arena.records.spec import MatchSpec
    from arena.tournaments.conductor import ConductorSettings, Dispatcher

__all__ = ["play_one", "play_offer"]

log = logging.getLogger("arena.workers")


def play_one(spec: MatchSpec, store: Any, owner: str, settings: ConductorSettings) -> tuple[str, Any]:
    """Play one leased spec: ``("record", MatchRecord)``, ``("deferred", None)`` (a
    remote bot is offline: the lease was given back), ``("void", reason)`` (the
    platform failed: replayed) or ``("failed", reason)``. Any thread may call it."""
    from arena.bots.base import RouteFailure
    from arena.tournaments.routes import default_router
    from arena.tournaments.runner import (DEFERRED, FORFEIT, PLAY, check_presence, forfeit_record,
                                         in_process, play_spec, remote_bots)

    try:
        if in_process(spec):
            raise ValueError("Blue Chip robots play only in the process hosting their "
                             "Table Manager (arena tournament run FILE --bluechip HOST:PORT)")
        verdict, absent = check_presence(store, spec, owner, default_router(), settings) \
            if remote_bots(spec) else (PLAY, [])
        if verdict == DEFERRED:
            return "deferred", None  # a remote bot is offline: the match waits for it
        if verdict == FORFEIT:
            return "record", forfeit_record(spec, absent, settings.absence_limit)
        return "record", play_spec(spec)
    except RouteFailure as exc:  # the platform failed, not a bot: void, replayed
        log.warning("match %s void (platform fault): %s", spec.match_id, exc)
        return "void", str(exc)
    except Exception as exc:  # noqa: BLE001 - recorded as the match's failure
        log.exception("match %s failed", spec.match_id)
        return "failed", f"{spec.match_id}: {type(exc).__name__}: {exc}"


def play_offer(store: Any, tournament_id: str, dispatcher: Dispatcher | None, *, owner: str,
               settings: ConductorSettings, capacity: int, max_seconds: float,
               batch_seconds: float, max_batch: int, guided_share: int,
               play: Callable[[MatchSpec, Any, str, ConductorSettings], tuple[str, Any]] = play_one
               ) -> dict[str, Any]:
    """Lease and play ``tournament_id``'s matches as one offer of work (see the
    module docstring); returns ``{tournament_id, recorded, failed, voided,
    errors (at most 20), seconds, worker}``."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from arena.tournaments.conductor import Conductor, Heartbeat, early_stop, with_store_retries
    from arena.tournaments.executors import DaemonThreads
    from arena.tournaments.runner import in_process, remote_bots

    recorded, failed, voided = 0, 0, 0
    errors: list[str] = []
    start = time.monotonic()
    stop = early_stop(store, tournament_id)
    retry = settings.lease_seconds
    batch = 1
    threads: DaemonThreads | None = None
    in_flight: dict[Future[tuple[str, Any]], Any] = {}
    finished: list[Any] = []  # records, written together: one transaction per pass
    leasing = True

    def settle(spec: Any, kind: str, value: Any) -> None:
        nonlocal failed, voided
        match_id = spec.match_id
        if kind == "record":
            finished.append(value)
        elif kind == "void":
            voided += 1
            with_store_retries(lambda: store.void(match_id, owner, settings.heartbeat_seconds, value,
                                                  **settings.pause_policy()),
                               seconds=retry, what="void")
        elif kind == "failed":
            failed += 1
            errors.append(value)
            with_store_retries(lambda: store.mark_failed(match_id, owner, value), seconds=retry,
                               what="mark failed")

    with Heartbeat(store, owner, settings):
        try:
            while leasing or in_flight:
                for fut in [f for f in in_flight if f.done()]:
                    settle(in_flight.pop(fut), *fut.result())
                # one write transaction for what finished (on SQLite the workers' writes
                # take turns, and a writer that finds the lock held sleeps 1, 2, 5 ... ms:
                # one turn per match cost a quarter of the play with two workers). A store
                # outage is waited out for up to two leases; after that the leases expire
                # and the matches are offered again (and replay identically)
                if finished:
                    done_now, finished[:] = list(finished), []
                    wrote = with_store_retries(lambda: store.record_results(done_now), seconds=2 * retry,
                                               what=f"{len(done_now)} records")
                    recorded += sum(wrote)
                if leasing and time.monotonic() - start >= max_seconds:
                    leasing = False
                free = capacity - len(in_flight)
                if not leasing or free <= 0:
                    if in_flight:  # (wait() on no futures sleeps its whole timeout)
                        wait(list(in_flight), timeout=1.0, return_when=FIRST_COMPLETED)
                    continue
                if stop is not None and stop():  # a gauntlet's SPRT decided: lease nothing more
                    leasing = False
                    continue
                limit = min(batch, free)
                if limit > 1:  # guided: near the end, smaller batches, so the workers end together
                    left = with_store_retries(lambda: store.leasable_count(tournament_id), seconds=retry,
                                              what="count")
                    limit = max(1, min(limit, math.ceil(left / guided_share)))
                specs = with_store_retries(lambda: store.lease_next(tournament_id, owner,
                                                                     settings.lease_seconds, limit),
                                           seconds=retry, what="lease")
                if not specs:
                    leasing = False
                    continue
                began, played = time.monotonic(), 0
                for spec in specs:
                    if remote_bots(spec) and not in_process(spec):
                        # a remote match waits on its bots, not on this CPU: on a thread,
                        # beside the others in flight and this task's local matches
                        if threads is None:
                            threads = DaemonThreads(capacity)
                        in_flight[threads.submit(play, spec, store, owner, settings)] = spec
                    else:
                        settle(spec, *play(spec, store, owner, settings))
                        played += 1
                if played:
                    # lease about batch_seconds of local play at a time (short
                    # matches: fewer store round trips; long ones: one at a time)
                    per_match = (time.monotonic() - began) / played
                    batch = max(1, min(max_batch, int(batch_seconds / max(per_match, 1e-3))))
                else:  # remote only: fill the free places at once
                    batch = max_batch
        finally:
            if threads is not None:
                threads.shutdown()
    # the tournament may be complete now: finish it at once instead of at the next pass
    try:
        Conductor(store, dispatcher, settings).reconcile(tournament_id)
    except Exception as exc:  # noqa: BLE001 - the conductor loops pass again
        log.warning("conductor pass after work on %s failed: %s", tournament_id, exc)
    return {"tournament_id": tournament_id, "recorded": recorded, "failed": failed, "voided": voided,
            "errors": errors[:20], "seconds": round(time.monotonic() - start, 3), "worker": owner}
