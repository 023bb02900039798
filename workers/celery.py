"""The Celery app of arena, configured from the environment.

``ARENA_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``)
    broker and result backend. Results are only progress hints (they expire after a
    day); the store is the record.
``ARENA_STORE_URL`` (default ``sqlite:///arena.db``)
    the store tasks read specs from and write records to, unless a task is given
    its own ``store_url`` (the submitter passes the one it used).
``ARENA_VISIBILITY_TIMEOUT`` (seconds, default 3600)
    with ``acks_late`` on Redis, a message that is not acknowledged within this
    time is delivered again. Messages here are offers of work
    (``arena.tournament.work``, at most :data:`workers.tasks.TARGET_WORK_SECONDS` of
    play each) that carry no match ids, so a redelivered offer is harmless and a
    lost one costs nothing: liveness comes from the store's leases and the
    conductor (:mod:`arena.tournaments.conductor`), never from redelivery. The
    timeout only bounds how long an unacknowledged offer lingers.
``ARENA_UNACKED_RESTORE_INTERVAL``, ``ARENA_UNACKED_RESTORE_THROTTLE`` (default 10, 10)
    kombu looks for unacknowledged messages older than the visibility timeout every
    interval x throttle seconds (100 s by default); the fault tests use 1 and 1 with
    a 3 s visibility timeout.

kombu guards each restore scan with a mutex key in Redis that expires after 300 s
by default; a worker killed inside a scan would block every other worker's
restores for that long, so :data:`UNACKED_MUTEX_EXPIRE` is 5 s (a scan takes
milliseconds; if two ever overlap, an offer is delivered twice, which is harmless).

Run: ``celery -A workers.celery worker -l info`` (or ``arena worker``). Prefork is
fine: tasks never use gRPC (remote bots are reached through Redis,
:mod:`arena.remote.redis_router`). On ``worker_init`` the parent process imports the
engines, bots and store modules and migrates the store (:func:`workers.tasks.warm_up`),
so the forked pool processes start warm.
"""

from __future__ import annotations

import os

from typing import Any

from celery import Celery
from celery.signals import worker_init

__all__ = ["app", "make_app", "REDIS_URL", "STORE_URL", "VISIBILITY_TIMEOUT"]

REDIS_URL = os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")
STORE_URL = os.environ.get("ARENA_STORE_URL", "sqlite:///arena.db")
VISIBILITY_TIMEOUT = int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", "3600"))
RESTORE_INTERVAL = int(os.environ.get("ARENA_UNACKED_RESTORE_INTERVAL", "10"))
RESTORE_THROTTLE = int(os.environ.get("ARENA_UNACKED_RESTORE_THROTTLE", "10"))
UNACKED_MUTEX_EXPIRE = 5
"""Seconds until a restore-scan lock left by a killed worker expires (see above)."""


def make_app(redis_url: str | None = None, store_url: str | None = None,
             visibility_timeout: int | None = None) -> Celery:
    """A configured app (the module-level :data:`app` uses the environment)."""
    redis_url = redis_url or REDIS_URL
    vt = visibility_timeout or VISIBILITY_TIMEOUT
    celery_app = Celery("arena", broker=redis_url, backend=redis_url, include=["workers.tasks"])
    celery_app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options={"visibility_timeout": vt,
                                  "unacked_restore_interval": RESTORE_INTERVAL,
                                  "unacked_restore_throttle": RESTORE_THROTTLE,
                                  "unacked_mutex_expire": UNACKED_MUTEX_EXPIRE},
        result_backend_transport_options={"visibility_timeout": vt},
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        result_expires=86_400,
        task_default_queue="arena",
        task_track_started=False,
        worker_hijack_root_logger=False,
        arena_store_url=store_url or STORE_URL,
        arena_redis_url=redis_url,
    )
    return celery_app


app = make_app()


@worker_init.connect
def _warm_up(sender: Any = None, **_: Any) -> None:
    """Warm the worker's parent before the pool forks (see the module docstring)."""
    from workers.tasks import warm_up

    conf = getattr(getattr(sender, "app", None), "conf", None)
    warm_up(conf.get("arena_store_url") if conf is not None else STORE_URL)
