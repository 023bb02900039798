"""Thin, idempotent tasks over arena services (CONVENTIONS rule 12).

``arena.tournament.work(tournament_id)`` is an *offer* of work, sent by a
conductor (:mod:`arena.tournaments.conductor`, through
:class:`workers.dispatch.CeleryDispatcher`). It carries no match ids: it leases the
tournament's playable matches from the store, about :data:`TARGET_BATCH_SECONDS` of
play at a time (owner ``celery:<host>:<pid>``), renews its leases by heartbeat while
it plays, and records each match exactly once (what finished since the last write in
one write transaction), until nothing is left to lease or :data:`TARGET_WORK_SECONDS`
have passed (then it finishes what it has in flight). Matches with remote bots are
played on threads, up to :func:`remote_matches` at once (:data:`REMOTE_MATCHES`
unless ``ARENA_REMOTE_MATCHES`` says otherwise), while the task's own thread plays
the local ones: a remote match spends its time waiting for bots, so the number of
remote matches in flight is not bounded by the worker's processes.

A match that raises is marked ``failed`` (the conductor retries it with backoff, up
to its attempts). Store errors are retried with backoff; records that still cannot
be written after two lease lengths leave their leases to expire, and the match is
offered again (it replays identically from its seed). A match the platform failed
mid-way (:class:`arena.bots.base.RouteFailure`: the gateway or the route to a bot
lost) is void: given back unplayed, not counted as an attempt, and replayed. When
it stops, the task runs one conductor pass for its tournament, so the tournament
finishes as soon as its last match is recorded.

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
import os
import threading
from typing import Any

from celery import shared_task

__all__ = ["work", "get_store", "warm_up", "remote_matches", "TARGET_WORK_SECONDS", "TARGET_BATCH_SECONDS",
           "MAX_BATCH", "REMOTE_MATCHES"]

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

REMOTE_MATCHES = 16
"""Remote matches one task keeps in flight at once, on threads (``ARENA_REMOTE_MATCHES``,
``arena worker --remote-matches``): a remote match waits on its bots, not on the
worker's CPU, so a worker process plays many at once beside its local matches."""

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
            from arena.tournaments import service

            store = _stores[key] = service.open_store(url)
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
    from arena.tournaments import service
    from arena.ratings import records  # noqa: F401 - numpy/scipy, for the rating history at finalize

    service.preload()  # the formats, conductor, runner and rating history every task's pass reads

    for name in list_games():
        try:
            get_game(name)
            for bot in list_bots(name):
                make_bot(name, bot, seed=0)
        except Exception as exc:  # noqa: BLE001 - a broken game fails its own matches
            log.warning("warm-up: %s: %s", name, exc)
    if store_url:
        try:
            store = service.open_store(store_url)
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
    from arena.tournaments import service

    return service.ConductorSettings.from_env()


def remote_matches(env: Any = None) -> int:
    """Remote matches one task keeps in flight at once: ``$ARENA_REMOTE_MATCHES``
    (``arena worker --remote-matches``), default :data:`REMOTE_MATCHES`.

    >>> remote_matches({"ARENA_REMOTE_MATCHES": "4"})
    4

    :raises ValueError: for a value that is not a whole number >= 1.
    """
    env = os.environ if env is None else env
    text = env.get("ARENA_REMOTE_MATCHES", "")
    if not text:
        return REMOTE_MATCHES
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"ARENA_REMOTE_MATCHES={text!r} must be a whole number >= 1")
    return value


@shared_task(name="arena.tournament.work", bind=True, acks_late=True,
             reject_on_worker_lost=True, ignore_result=True)
def work(self: Any, tournament_id: str, store_url: str | None = None,
         max_seconds: float = TARGET_WORK_SECONDS) -> dict[str, Any]:
    """Lease and play ``tournament_id``'s matches; see the module docstring
    (:func:`arena.tournaments.service.work` does it)."""
    from arena.tournaments import service
    from workers.dispatch import CeleryDispatcher

    url = _store_url(self, store_url)
    return service.work(get_store(url), tournament_id, CeleryDispatcher(self.app, store_url=url),
                        max_seconds=max_seconds, capacity=remote_matches(), settings=_settings(),
                        batch_seconds=TARGET_BATCH_SECONDS, max_batch=MAX_BATCH, guided_share=GUIDED_SHARE)
