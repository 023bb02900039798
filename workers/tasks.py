"""Thin, idempotent tasks over arena services (CONVENTIONS rule 12).

* ``arena.tournament.play_batch(tournament_id, match_ids)``: plays the listed
  matches that are still pending in the store and records each one exactly once
  (the store writes a record once per match id; matches already recorded, e.g. by
  an earlier delivery of the same batch, are skipped). Never raises for a match:
  a failing match is reported in the result and marked ``failed`` in the store.
  Claims are advisory: a batch delivered again after its worker died takes over
  the matches the dead worker had claimed.
* ``arena.tournament.finalize(results, tournament_id)``: the chord callback. It
  reads the tournament's progress from the store: complete -> status ``done``;
  else the matches still pending or running (lost with a batch) are submitted
  again as a new chord, at most ``MAX_ROUNDS`` times. It never waits on another task.

Both are ``acks_late`` with ``reject_on_worker_lost``: a batch whose worker died
is delivered again.

A gauntlet with ``[gauntlet.sprt]`` stops by itself: a batch plays nothing once
the SPRT on the recorded results has decided (checked when the batch starts and
after each match), and finalize then marks the tournament ``stopped`` instead of
resubmitting what is pending.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import threading
import time
from typing import Any

from celery import shared_task

__all__ = ["play_batch", "finalize", "get_store", "warm_up", "MAX_ROUNDS"]

log = logging.getLogger("arena.workers")

MAX_ROUNDS = 3
"""How many times finalize resubmits pending matches before giving up."""

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
    from arena.tournaments import commands, history, runner  # noqa: F401 - SPRT check, finalize
    from arena.ratings import records  # noqa: F401 - numpy/scipy, for the rating history at finalize

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


def _sprt_decided(store: Any, tournament_id: str) -> Any:
    """A callable telling whether the tournament's SPRT has decided (``None`` if it has none)."""
    from arena.tournaments.commands import sprt_stopper, stored_config

    try:
        config = stored_config(store, tournament_id)
    except Exception:  # noqa: BLE001 - a tournament stored without its file has no SPRT
        return None
    return sprt_stopper(config, store)


def _store_url(task: Any, store_url: str | None) -> str:
    return store_url or str(task.app.conf.get("arena_store_url") or "sqlite:///arena.db")


@shared_task(name="arena.tournament.play_batch", bind=True, acks_late=True,
             reject_on_worker_lost=True, ignore_result=False)
def play_batch(self: Any, tournament_id: str, match_ids: list[str],
               store_url: str | None = None) -> dict[str, Any]:
    """Play the pending ones of ``match_ids``; see the module docstring."""
    from arena.tournaments.runner import play_spec

    store = get_store(_store_url(self, store_url))
    worker = f"{socket.gethostname()}:{os.getpid()}"
    recorded, skipped, errors = 0, 0, []
    start = time.perf_counter()
    sprt = _sprt_decided(store, tournament_id)
    for match_id in match_ids:
        if sprt is not None and sprt():
            skipped += 1
            continue
        # claim(timeout=0) is refused only for a match already done (or failed); it
        # takes over a match claimed by a worker that died with this batch's first
        # delivery. Claims are advisory: the record is written once anyway.
        try:
            if not store.claim(match_id, worker, timeout=0):
                skipped += 1
                continue
            record = play_spec(store.spec(match_id))
            if store.record_result(record):
                recorded += 1
        except Exception as exc:  # noqa: BLE001 - reported; the match is marked failed
            log.exception("match %s failed", match_id)
            errors.append(f"{match_id}: {type(exc).__name__}: {exc}")
            try:
                store.mark_failed(match_id, worker, errors[-1])
            except Exception:  # noqa: BLE001
                pass
    return {"tournament_id": tournament_id, "requested": len(match_ids),
            "skipped": skipped, "recorded": recorded, "errors": errors,
            "seconds": round(time.perf_counter() - start, 3), "worker": worker}


@shared_task(name="arena.tournament.finalize", bind=True, acks_late=True,
             reject_on_worker_lost=True, ignore_result=False)
def finalize(self: Any, results: Any, tournament_id: str, store_url: str | None = None,
             round: int = 0, batch_size: int | None = None) -> dict[str, Any]:
    """Chord callback; see the module docstring."""
    from arena.tournaments.history import refresh_after

    url = _store_url(self, store_url)
    store = get_store(url)
    done, total = store.progress(tournament_id)
    errors = [e for r in (results or []) if isinstance(r, dict) for e in r.get("errors", [])]
    summary: dict[str, Any] = {"tournament_id": tournament_id, "done": done, "total": total,
                               "round": round, "errors": errors[:20], "resubmitted": 0}
    sprt = _sprt_decided(store, tournament_id)
    if done >= total:
        store.set_tournament_status(tournament_id, "done")
        refresh_after(store, tournament_id)
    elif sprt is not None and sprt():
        store.set_tournament_status(tournament_id, "stopped")
        summary["sprt"] = sprt.decision
        refresh_after(store, tournament_id)
    elif round < MAX_ROUNDS:
        from arena.tournaments.executors import submit_chord

        # every header task has returned, so a match still "running" lost its worker
        pending = [st.match_id for st in store.spec_states(tournament_id)
                   if st.status in ("pending", "running")]
        if pending:
            submit_chord(self.app, tournament_id, pending, store_url=url, batch_size=batch_size,
                         round=round + 1)
            summary["resubmitted"] = len(pending)
    return summary
