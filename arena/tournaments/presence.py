"""Presence: whether a remote bot is connected now, as the caller knows it.

A :class:`Presence` is anything with ``is_connected(bot_id)``: the gateway's
:class:`~arena.remote.router.LocalRouter` (its sessions), a
:class:`~arena.remote.redis_router.RedisRouter` (the presence keys the gateways
keep in Redis). It is passed in -- to :func:`arena.tournaments.rounds.make_format`,
to a :class:`~arena.tournaments.conductor.Conductor`, by an embedded executor
from its router -- and the ladder asks it which remote entrants to seat
(:func:`arena.tournaments.ladder.connected`). Without one, a process reads the
Redis presence keys when ``$ARENA_REDIS_URL`` is set (Celery workers and their
conductors, ``arena conductor``), else it cannot tell and counts every bot
present (the runner defers a match whose bot is away).
"""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable

__all__ = ["Presence", "AllPresent", "from_env"]


@runtime_checkable
class Presence(Protocol):
    """Whether a remote bot is connected now."""

    def is_connected(self, bot_id: str) -> bool: ...


class AllPresent:
    """The presence of a process that cannot tell: every bot counts as connected."""

    def is_connected(self, bot_id: str) -> bool:
        return True


_ROUTERS: dict[tuple[int, str], Any] = {}
"""The Redis presence readers of :func:`from_env`, per process and URL."""


def from_env() -> Presence:
    """This process's presence without a router of its own: the Redis presence keys
    when ``$ARENA_REDIS_URL`` is set, else :class:`AllPresent`."""
    url = os.environ.get("ARENA_REDIS_URL")
    if not url:
        return AllPresent()
    key = (os.getpid(), url)
    router = _ROUTERS.get(key)
    if router is None:
        from arena.remote.redis_router import RedisRouter

        router = _ROUTERS[key] = RedisRouter(url)
    presence: Presence = router
    return presence
