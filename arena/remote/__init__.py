"""The remote route, worker half: how a referee reaches a bot that is not in its process.

Below the gateway and beside the referee (``DESIGN.md``): nothing here imports
gRPC or the gateway, so a forked Celery worker may import all of it.

* :class:`~arena.remote.agent.RemoteAgent` -- the referee's agent for a remote bot:
  each decision becomes a ``DecisionRequest`` sent through a router.
* :class:`~arena.remote.router.DecisionRouter` -- the router interface;
  :class:`~arena.remote.router.LocalRouter` reaches a gateway in this process.
* :class:`~arena.remote.redis_router.RedisRouter` -- the worker half of the Redis
  route (the gateway half is :class:`arena.gateway.redis_bridge.RedisBridge`).
* :mod:`arena.remote.convert` -- engine observations and actions <-> protobuf.
"""

from __future__ import annotations

from arena.remote.agent import RemoteAgent
from arena.remote.router import DecisionRouter, LocalRouter

__all__ = ["RemoteAgent", "DecisionRouter", "LocalRouter"]
