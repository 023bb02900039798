"""How a conductor offers work to the Celery workers.

:class:`CeleryDispatcher` implements :class:`arena.tournaments.conductor.Dispatcher`:
``offer(tournament_id, n)`` sends ``n`` ``arena.tournament.work`` tasks (no match
ids: each leases what is playable when it runs), ``queued()`` is the number of
messages waiting in the broker's queue (a kombu queue declare, so the
conductor sees at once when a restarted Redis lost them). Results are ignored:
the store is the record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

__all__ = ["CeleryDispatcher", "QUEUE"]

QUEUE = "arena"
"""The queue of the work tasks (``task_default_queue`` of :mod:`workers.celery`)."""


class CeleryDispatcher:
    """Offers on ``app``'s broker (see the module docstring).

    :param app: the Celery app, passed explicitly (never ``current_app``).
    :param store_url: sent with each offer, so workers use the submitter's store.
    """

    def __init__(self, app: Any, *, store_url: str | None = None, queue: str = QUEUE) -> None:
        self.app, self.store_url, self.queue = app, store_url, queue

    def queued(self) -> int:
        with self.app.connection_for_read() as conn:
            # not passive: the Redis transport has no queue object, only a list that
            # exists while it holds messages (a declare creates nothing)
            ok = conn.default_channel.queue_declare(queue=self.queue, passive=False)
            return int(ok.message_count)

    def offer(self, tournament_id: str, count: int) -> None:
        kwargs = {"store_url": self.store_url} if self.store_url else {}
        with _not_listening(self.app), self.app.producer_or_acquire() as producer:
            for _ in range(count):
                self.app.send_task("arena.tournament.work", args=(tournament_id,), kwargs=kwargs,
                                   queue=self.queue, ignore_result=True, producer=producer)


@contextlib.contextmanager
def _not_listening(app: Any) -> Iterator[None]:
    """While sending, the sender does not subscribe to task results (Celery's Redis
    backend otherwise subscribes to each sent task's result channel: after a Redis
    restart that retries for a minute). Nobody here waits on a result."""
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
