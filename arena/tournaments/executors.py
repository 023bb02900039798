"""Executors: how a stored tournament's pending matches get played.

Both executors take a tournament already in the store (``Store.add_tournament``)
and play only its *pending* specs, so running one again resumes a stopped
tournament. Every record is written through ``Store.record_result``, which keeps
one record per match id whatever is retried.

* :class:`EmbeddedExecutor` (default, no services): local worker processes
  (``concurrent.futures.ProcessPoolExecutor`` with the *spawn* start method, so no
  child inherits gRPC or SQLite state) play chunks of specs and send the records
  back; the parent alone writes them to the store (SQLite has one writer).
  Specs with a ``remote:`` bot are played on threads of the parent with the
  ``router`` given (an embedded gateway's :class:`~arena.remote.router.LocalRouter`).
* :class:`CeleryExecutor` (distributed): submits the pending specs as
  ``arena.tournament.play_batch`` tasks, a batch of matches per task, grouped in a
  ``chord`` whose callback is ``arena.tournament.finalize``. :meth:`CeleryExecutor.run`
  then follows the progress *in the store* (never a task result).

Batch size: a task should carry enough play that Celery's own cost (a few ms per
task here) stays under 5%, and few enough matches that the work spreads over the
workers and a batch stays far below the broker's visibility timeout;
:func:`choose_batch_size` aims at about 32 batches, at most 50 matches each.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any

from arena.records.record import MatchRecord
from arena.tournaments.history import refresh_after
from arena.records.spec import MatchSpec

if TYPE_CHECKING:  # for the annotation only; open_store imports it when called
    from arena.store import Store

__all__ = ["Executor", "EmbeddedExecutor", "CeleryExecutor", "open_store", "choose_batch_size",
           "submit_chord", "Progress", "TARGET_BATCH_SECONDS", "MAX_BATCH"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called as records are written."""

TARGET_BATCH_SECONDS = 20.0
"""Upper aim for the play time of one batch (documented beside the visibility timeout)."""
MAX_BATCH = 50
"""Most matches in one task."""


def open_store(url: str) -> Store:
    """``arena.store.Store(url)``, migrated."""
    from arena.store import Store

    store = Store(url)
    store.migrate()
    return store


def choose_batch_size(pending: int, batches: int = 32) -> int:
    """Matches per task for ``pending`` matches: about ``batches`` tasks, 1..MAX_BATCH each."""
    return max(1, min(MAX_BATCH, math.ceil(pending / max(1, batches))))


def _has_remote(spec: MatchSpec) -> bool:
    return any(ref.startswith("remote:") for ref in spec.bots)


class Executor(ABC):
    """Plays the pending matches of a stored tournament."""

    store_url: str

    @abstractmethod
    def run(self, tournament_id: str, *, progress: Progress | None = None) -> tuple[int, int]:
        """Play every pending match; returns the store's ``(done, total)`` at the end."""


# -- embedded --------------------------------------------------------------------------------

def _child_init() -> None:
    # Ctrl-C goes to the whole process group: the parent decides, the children ignore it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_chunk(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from arena.tournaments.runner import play_spec

    out: list[dict[str, Any]] = []
    for data in specs:
        try:
            out.append({"record": play_spec(MatchSpec.from_dict(data)).to_dict()})
        except Exception as exc:  # noqa: BLE001 - reported; the match stays pending
            out.append({"error": f"{data.get('match_id')}: {type(exc).__name__}: {exc}"})
    return out


class EmbeddedExecutor(Executor):
    """Local processes, no Redis (see the module docstring).

    :param jobs: worker processes (default: CPU count); 1 plays in this process.
    :param router: for specs with remote bots (played on threads of this process).
    :param chunk: specs per process call (default: adapted to the number pending).
    """

    def __init__(self, store_url: str, jobs: int | None = None, *, router: Any = None,
                 chunk: int | None = None) -> None:
        self.store_url = store_url
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.router = router
        self.chunk = chunk
        self.errors: list[str] = []

    def run(self, tournament_id: str, *, progress: Progress | None = None,
            stop: Callable[[], bool] | None = None) -> tuple[int, int]:
        """Play the pending matches.

        :param stop: asked before the first match and after each batch of results
            is written; when it returns true the run ends early (pending matches
            stay pending, the tournament's status becomes ``stopped``). Gauntlets
            use it for SPRT stopping.
        """
        store = open_store(self.store_url)
        # no other worker plays this tournament: claims left by a stopped run are stale
        store.requeue(tournament_id, running=True, failed=True)
        if stop is not None and stop():
            store.set_tournament_status(tournament_id, "stopped")
            return store.progress(tournament_id)
        store.set_tournament_status(tournament_id, "running")
        specs = store.pending_specs(tournament_id)
        done, total = store.progress(tournament_id)
        if progress:
            progress(done, total)
        remote = [s for s in specs if _has_remote(s)]
        local = [s for s in specs if not _has_remote(s)]
        if remote and self.router is None:
            raise ValueError(f"{len(remote)} matches have remote bots: the embedded executor needs a "
                             "gateway router (run it inside `arena serve`) or use the Celery executor")

        def write(results: list[dict[str, Any]]) -> None:
            nonlocal done
            for item in results:
                if "record" in item:
                    if store.record_result(MatchRecord.from_dict(item["record"])):
                        done += 1
                else:
                    self.errors.append(item["error"])
            if progress:
                progress(done, total)
            if stop is not None and stop():
                raise _Stopped

        threads = ThreadPoolExecutor(max_workers=max(1, min(32, len(remote)))) if remote else None
        futures: set[Future[Any]] = set()
        try:
            if threads is not None:
                futures |= {threads.submit(self._play_remote, s) for s in remote}
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
        except _Stopped:
            store.requeue(tournament_id, running=True, failed=False)
            store.set_tournament_status(tournament_id, "stopped")
            refresh_after(store, tournament_id)
            return store.progress(tournament_id)
        finally:
            if threads is not None:
                threads.shutdown(wait=False, cancel_futures=True)
        result: tuple[int, int] = store.progress(tournament_id)
        if result[0] >= result[1]:
            store.set_tournament_status(tournament_id, "done")
            refresh_after(store, tournament_id)
        return result

    @staticmethod
    def _drain(futures: set[Future[Any]], write: Callable[[list[dict[str, Any]]], None]) -> None:
        while futures:
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in finished:
                futures.discard(fut)
                write(fut.result())

    def _play_remote(self, spec: MatchSpec) -> list[dict[str, Any]]:
        from arena.tournaments.runner import play_spec

        try:
            return [{"record": play_spec(spec, router=self.router).to_dict()}]
        except Exception as exc:  # noqa: BLE001
            return [{"error": f"{spec.match_id}: {type(exc).__name__}: {exc}"}]


class _Stopped(Exception):
    """Raised inside a run when its ``stop`` callback says so."""


def _kill_pool(pool: ProcessPoolExecutor) -> None:
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except Exception:  # noqa: BLE001
            pass


# -- Celery ----------------------------------------------------------------------------------

def submit_chord(app: Any, tournament_id: str, match_ids: Sequence[str], *, store_url: str | None,
                 batch_size: int | None = None, round: int = 0) -> Any:
    """Send ``match_ids`` as a chord of ``play_batch`` tasks with a ``finalize`` callback.

    ``app`` is passed explicitly (never ``current_app``). Returns the id of the
    callback's result (a hint only: the store is the record; no result handle is
    kept, so nothing listens on the result backend afterwards).
    """
    from celery import chord

    ids = list(match_ids)
    size = batch_size or choose_batch_size(len(ids))
    header = [app.signature("arena.tournament.play_batch",
                            args=(tournament_id, ids[i:i + size]), kwargs={"store_url": store_url})
              for i in range(0, len(ids), size)]
    callback = app.signature("arena.tournament.finalize", args=(tournament_id,),
                             kwargs={"store_url": store_url, "round": round, "batch_size": size})
    with _not_listening(app):
        result = chord(header, app=app)(callback)
    return str(result.id)


@contextlib.contextmanager
def _not_listening(app: Any) -> Any:
    """While submitting, the submitter does not subscribe to task results (Celery's
    Redis backend otherwise subscribes to each sent task's result channel, and the
    result handles unsubscribe when collected: after a Redis restart that retries
    for a minute). The store is the record; nobody here waits on a result."""
    backend = app.backend
    consumer = getattr(backend, "result_consumer", None)
    patched = [(backend, "on_task_call")]
    backend.on_task_call = lambda *args, **kwargs: None
    if consumer is not None:
        consumer.consume_from = lambda *args, **kwargs: None
        patched.append((consumer, "consume_from"))
    try:
        yield
    finally:
        for obj, name in patched:
            with contextlib.suppress(AttributeError):
                delattr(obj, name)


class CeleryExecutor(Executor):
    """Celery workers on Redis (see the module docstring).

    :param app: the Celery app (``workers.celery.app`` or ``make_app(redis_url)``).
    """

    def __init__(self, app: Any, store_url: str, *, batch_size: int | None = None,
                 poll_interval: float = 0.25) -> None:
        self.app = app
        self.store_url = store_url
        self.batch_size = batch_size
        self.poll_interval = poll_interval

    def submit(self, tournament_id: str) -> tuple[int, Any]:
        """Submit the pending matches; returns (how many, the finalize task's id or None)."""
        store = open_store(self.store_url)
        pending = [s.match_id for s in store.pending_specs(tournament_id)]
        if not pending:
            return 0, None
        store.set_tournament_status(tournament_id, "running")
        return len(pending), submit_chord(self.app, tournament_id, pending, store_url=self.store_url,
                                          batch_size=self.batch_size)

    def run(self, tournament_id: str, *, progress: Progress | None = None,
            timeout: float | None = None) -> tuple[int, int]:
        """Submit, then follow the store until every match is recorded (or ``timeout``)."""
        self.submit(tournament_id)
        return self.wait(tournament_id, progress=progress, timeout=timeout)

    def wait(self, tournament_id: str, *, progress: Progress | None = None,
             timeout: float | None = None) -> tuple[int, int]:
        """Follow the store's progress until done (or ``timeout`` seconds)."""
        store = open_store(self.store_url)
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            done, total = store.progress(tournament_id)
            if progress:
                progress(done, total)
            if done >= total or (end is not None and time.monotonic() > end):
                return done, total
            time.sleep(self.poll_interval)
