"""The embedded executor: a stored tournament's playable matches on local processes.

:class:`EmbeddedExecutor` (default, no services) leases the tournament's playable
specs in the store (owner ``embedded:<host>:<pid>``, renewed by a
:class:`~arena.tournaments.conductor.Heartbeat`), plays them on local worker
processes (``concurrent.futures.ProcessPoolExecutor`` with the *spawn* start
method, so no child inherits gRPC or SQLite state) and writes each record as it
comes back; the parent alone writes to the store (SQLite has one writer). Specs with
a ``remote:`` bot are played on threads of the parent with the ``router`` given (an
embedded gateway's :class:`~arena.remote.router.LocalRouter`). Those are daemon
threads (:class:`DaemonThreads`): a stopped run does not wait for the remote matches
it was playing (a bot may take its whole deadline per decision); their results are
never written, their leases are given back, and the next run plays them again.

A :class:`~arena.tournaments.conductor.Conductor` pass runs before it starts and
after every batch of results: it reopens leases of this host's dead processes at
once (a rerun after ``kill -9``), expired leases and failed matches with attempts
left (after their backoff, which the run waits out), adds the format's next round,
and finalizes the tournament (``done``, or ``stopped`` by a gauntlet's SPRT). So
running the same tournament again resumes it, and a stopped run (Ctrl-C) gives its
leases back.

Ctrl-C (SIGINT) and SIGTERM, when the run is on the main thread, set a flag that the
run reads at its safe points (while it waits for results, between records, between
passes): no store write is cut in half, which on SQLite could leave a write lock
held by a half-closed connection and hang the release of the leases. The run then
stops its worker processes, gives its leases back, sets the tournament ``paused``
and raises :class:`KeyboardInterrupt`. A second signal raises at once.

Store errors while leasing or writing are retried with backoff
(:func:`~arena.tournaments.conductor.with_store_retries`); a record that still
cannot be written leaves its match leased, and the lease's expiry offers it again.

The distributed mode has no executor object: ``arena tournament submit`` stores the
tournament and runs a conductor pass that offers work to the Celery workers
(:mod:`workers.dispatch`, :mod:`workers.tasks`).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from arena.records.record import MatchRecord
from arena.records.spec import MatchSpec
from arena.tournaments.routes import routes_of
from arena.tournaments.conductor import (Conductor, ConductorSettings, Heartbeat, early_stop, owner_id,
                                         owner_pid_alive, with_store_retries)

if TYPE_CHECKING:  # for the annotation only; open_store imports it when called
    from arena.store import Store

__all__ = ["EmbeddedExecutor", "open_store", "Progress", "DaemonThreads"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called as records are written."""


def open_store(url: str) -> Store:
    """``arena.store.Store(url)``, migrated."""
    from arena.store import Store

    store = Store(url)
    store.migrate()
    return store


def _has_remote(spec: MatchSpec) -> bool:
    """Played on a thread of this process: a *threaded* route (remote bots: the router
    is here; Blue Chip robots: their connections are to this process's Table Manager)."""
    return any(r.threaded for r in routes_of(spec.bots))


def _dead_local(owner: str) -> bool:
    return owner_pid_alive(owner, "embedded") is False


# -- embedded --------------------------------------------------------------------------------

def _child_init() -> None:
    # Ctrl-C goes to the whole process group: the parent decides, the children ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_chunk(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from arena.tournaments.runner import play_spec

    from arena.bots.base import RouteFailure

    out: list[dict[str, Any]] = []
    for data in specs:
        try:
            out.append({"record": play_spec(MatchSpec.from_dict(data)).to_dict()})
        except RouteFailure as exc:  # the platform failed: void, replayed
            out.append({"match_id": data.get("match_id"), "void": str(exc)})
        except Exception as exc:  # noqa: BLE001 - reported; the match stays pending
            out.append({"match_id": data.get("match_id"),
                        "error": f"{data.get('match_id')}: {type(exc).__name__}: {exc}"})
    return out


class EmbeddedExecutor:
    """Local processes, no Redis (see the module docstring).

    :param jobs: worker processes (default: CPU count); 1 plays in this process.
    :param router: for specs with remote bots (played on threads of this process).
    :param chunk: specs per process call (default: adapted to the number pending).
    :param settings: lease and retry settings (default: from the environment).
    """

    def __init__(self, store_url: str, jobs: int | None = None, *, router: Any = None,
                 chunk: int | None = None, settings: ConductorSettings | None = None) -> None:
        self.store_url = store_url
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.router = router
        self.chunk = chunk
        self.settings = settings or ConductorSettings.from_env()
        self.errors: list[str] = []
        self.finished: str | None = None
        """``done`` or ``stopped`` once the conductor finalized the tournament."""
        self.notes: list[str] = []
        self.voided: list[str] = []
        """Matches voided by a platform fault (replayed), with the reason."""
        self._stop: Callable[[], bool] | None = None
        self._signals: _Signals | None = None

    def run(self, tournament_id: str, *, progress: Progress | None = None,
            stop: Callable[[], bool] | None = None) -> tuple[int, int]:
        """Play until the tournament is finished (every round played, failed
        matches retried up to their attempts) or stopped early by its format;
        returns the store's ``(done, total)``.

        :param stop: asked after each batch of results; when it returns true the
            run gives its leases back and returns, the tournament unfinished with the
            status ``paused`` (run it again, or let a conductor, to resume). Ctrl-C
            or SIGTERM does the same at the run's next safe point and raises
            :class:`KeyboardInterrupt` (see the module docstring).
        """
        with _Signals() as signals:
            self._signals = signals
            try:
                result = self._run(tournament_id, progress, stop)
            finally:
                self._signals = None
            if signals.caught is not None:
                raise KeyboardInterrupt
            return result

    def _signalled(self) -> bool:
        return self._signals is not None and self._signals.caught is not None

    def _run(self, tournament_id: str, progress: Progress | None,
             stop: Callable[[], bool] | None) -> tuple[int, int]:
        self._stop = stop
        store = open_store(self.store_url)
        owner = owner_id("embedded")
        conductor = Conductor(store, None, self.settings, dead_owner=_dead_local, presence=self.router)
        if store.tournament(tournament_id).status in ("done", "stopped"):
            return store.progress(tournament_id)
        try:
            with Heartbeat(store, owner, self.settings):
                while not self._signalled():
                    reports = with_store_retries(lambda: conductor.reconcile(tournament_id),
                                                 seconds=self.settings.lease_seconds, what="conductor pass")
                    rep = reports[0] if reports else None
                    if rep is not None:
                        self.notes.extend(rep.notes)
                    if rep is None or rep.finished or store.tournament(tournament_id).status in ("done", "stopped"):
                        self.finished = store.tournament(tournament_id).status
                        break
                    specs = with_store_retries(
                        lambda: store.lease_next(tournament_id, owner, self.settings.lease_seconds,
                                                 limit=1_000_000),
                        seconds=self.settings.lease_seconds, what="lease")
                    if not specs:
                        self._wait_for_work(store, tournament_id)
                        continue
                    store.set_tournament_status(tournament_id, "running")
                    if not self._play(store, tournament_id, owner, specs, progress):
                        break
        except BaseException:
            try:
                store.release_owner(owner)
                store.set_tournament_status(tournament_id, "paused")
            except Exception:  # noqa: BLE001 - the leases expire by themselves
                pass
            raise
        if self.finished is None:  # stopped from outside (``stop``): resumable
            store.set_tournament_status(tournament_id, "paused")
        return store.progress(tournament_id)

    def _wait_for_work(self, store: Any, tournament_id: str) -> None:
        """Nothing leasable now: wait for a retry's backoff or a lease held elsewhere."""
        from arena.store.models import utcnow

        ready = store.next_ready(tournament_id)
        pause = self.settings.heartbeat_seconds
        if ready is not None:
            pause = min(pause, max(0.05, (ready - utcnow()).total_seconds()))
        end = time.monotonic() + pause
        while not self._signalled() and time.monotonic() < end:
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))

    def _play(self, store: Any, tournament_id: str, owner: str, specs: list[MatchSpec],
              progress: Progress | None) -> bool:
        """Play leased specs; False if the run's ``stop`` asked to end it."""
        done, total = store.progress(tournament_id)
        if progress:
            progress(done, total)
        remote = [s for s in specs if _has_remote(s)]
        local = [s for s in specs if not _has_remote(s)]
        needs_router = [s for s in remote if any(r.needs_router for r in routes_of(s.bots))]
        if needs_router and self.router is None:
            for spec in remote:
                store.release(spec.match_id, owner)
            raise ValueError(f"{len(needs_router)} matches have remote bots: the embedded executor needs a "
                             "gateway router (run it inside `arena serve`) or use the Celery workers")
        fmt_stop = early_stop(store, tournament_id)

        def write(results: list[dict[str, Any]]) -> None:
            nonlocal done
            for item in results:
                if "record" in item:
                    record = MatchRecord.from_dict(item["record"])
                    if with_store_retries(lambda: store.record_result(record),
                                          seconds=self.settings.lease_seconds, what="record write"):
                        done += 1
                elif "deferred" in item:
                    continue  # a remote bot is offline: the match waits for it
                elif "void" in item:  # a platform fault: replayed from its seed, not counted
                    self.voided.append(f"{item['match_id']}: {item['void']}")
                    with_store_retries(lambda: store.void(item["match_id"], owner,
                                                          self.settings.heartbeat_seconds, item["void"],
                                                          **self.settings.pause_policy()),
                                       seconds=self.settings.lease_seconds, what="void")
                else:
                    self.errors.append(item["error"])
                    with_store_retries(lambda: store.mark_failed(item["match_id"], owner, item["error"]),
                                       seconds=self.settings.lease_seconds, what="mark failed")
            if progress:
                progress(done, total)
            if self._signalled() or (self._stop is not None and self._stop()):
                raise _Interrupted
            if fmt_stop is not None and fmt_stop():
                raise _Stopped

        # a Blue Chip robot plays one board at a time: those matches go one by one
        from arena.tournaments.runner import in_process

        robots = [s for s in remote if in_process(s)]
        routed = [s for s in remote if not in_process(s)]
        threads = DaemonThreads(max(1, min(32, len(routed)))) if routed else None
        one = DaemonThreads(1) if robots else None
        futures: set[Future[Any]] = set()
        try:
            if threads is not None:
                futures |= {threads.submit(self._play_remote, s, store, owner) for s in routed}
            if one is not None:
                futures |= {one.submit(self._play_remote, s, store, owner) for s in robots}
            if local and self.jobs == 1 and not remote:
                for spec in local:
                    write(_play_chunk([spec.to_dict()]))
            elif local:
                chunk = self.chunk or max(1, min(8, len(local) // (self.jobs * 8)))
                pool = ProcessPoolExecutor(max_workers=min(self.jobs, len(local)),
                                           mp_context=multiprocessing.get_context("spawn"),
                                           initializer=_child_init)
                try:
                    futures |= {pool.submit(_play_chunk, [s.to_dict() for s in local[i:i + chunk]])
                                for i in range(0, len(local), chunk)}
                    self._drain(futures, write)
                except BaseException:
                    pool.shutdown(wait=False, cancel_futures=True)
                    _kill_pool(pool)
                    raise
                pool.shutdown(wait=True)
            self._drain(futures, write)
        except _Stopped:  # the format decided: the conductor pass finalizes it
            store.release_owner(owner)
        except _Interrupted:
            store.release_owner(owner)
            return False
        finally:
            for pool_ in (threads, one):
                if pool_ is not None:
                    pool_.shutdown()
        return True

    def _drain(self, futures: set[Future[Any]], write: Callable[[list[dict[str, Any]]], None]) -> None:
        while futures:
            if self._signalled():
                raise _Interrupted
            finished, _ = wait(futures, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                futures.discard(fut)
                try:
                    results = fut.result()
                except BrokenProcessPool:
                    # Ctrl-C reached a worker process still starting (before its
                    # initializer ignores SIGINT): the run is stopping anyway
                    if self._signalled():
                        raise _Interrupted from None
                    raise
                write(results)

    def _play_remote(self, spec: MatchSpec, store: Any, owner: str) -> list[dict[str, Any]]:
        from arena.bots.base import RouteFailure
        from arena.tournaments.runner import (DEFERRED, FORFEIT, check_presence, forfeit_record,
                                              play_spec)

        try:
            verdict, absent = check_presence(store, spec, owner, self.router, self.settings)
            if verdict == DEFERRED:
                return [{"deferred": spec.match_id}]
            if verdict == FORFEIT:
                return [{"record": forfeit_record(spec, absent, self.settings.absence_limit).to_dict()}]
            return [{"record": play_spec(spec, router=self.router).to_dict()}]
        except RouteFailure as exc:  # the platform failed: void, replayed
            return [{"match_id": spec.match_id, "void": str(exc)}]
        except Exception as exc:  # noqa: BLE001
            return [{"match_id": spec.match_id, "error": f"{spec.match_id}: {type(exc).__name__}: {exc}"}]


class DaemonThreads:
    """Runs calls on up to ``workers`` daemon threads, each returning a :class:`Future`.

    Unlike :class:`~concurrent.futures.ThreadPoolExecutor`, whose threads the
    interpreter joins at exit, a call still running when its run stops (Ctrl-C) does
    not hold the process: :meth:`shutdown` cancels the calls not started and waits for
    none. The executor writes only what comes back through the futures, on its own
    thread, so an abandoned call's result is never recorded.
    """

    def __init__(self, workers: int) -> None:
        self._todo: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = \
            queue.SimpleQueue()
        self._workers = workers
        self._threads: list[threading.Thread] = []

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        self._todo.put((fut, fn, args))
        if len(self._threads) < self._workers:
            thread = threading.Thread(target=self._work, name=f"remote-match-{len(self._threads)}",
                                      daemon=True)
            self._threads.append(thread)
            thread.start()
        return fut

    def _work(self) -> None:
        while True:
            item = self._todo.get()
            if item is None:
                return
            fut, fn, args = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting run
                fut.set_exception(exc)

    def shutdown(self) -> None:
        """Cancel the calls not started; the threads end after their current call."""
        while True:
            try:
                item = self._todo.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        for _ in self._threads:
            self._todo.put(None)


class _Stopped(Exception):
    """Raised inside a run when the format stops early."""


class _Interrupted(Exception):
    """Raised inside a run when its ``stop`` callback says so, or a signal came."""


class _Signals:
    """SIGINT and SIGTERM while a run is on the main thread: the first sets
    :attr:`caught` (read at the run's safe points), a second raises
    :class:`KeyboardInterrupt` at once. Elsewhere (a run on another thread) it does
    nothing: signals are the main thread's."""

    def __init__(self) -> None:
        self.caught: int | None = None
        self._old: dict[int, Any] = {}

    def __enter__(self) -> _Signals:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.caught is not None:
            raise KeyboardInterrupt
        self.caught = signum

    def __exit__(self, *exc: Any) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except Exception:  # noqa: BLE001
            pass
