"""The gateway: a grpc.aio server holding bot sessions, and the referee's remote agent.

* :func:`serve` -- run it in the foreground (``arena serve``).
* :class:`Gateway` -- run it embedded on a thread; ``gateway.agent(bot_id)`` gives a
  :class:`RemoteAgent` for the referee.
* :class:`DecisionRouter` -- how a referee reaches the gateway holding a bot
  (:class:`LocalRouter` in process; a Redis router plugs in behind the same interface).
* :class:`BotRegistry` -- bots and their SHA-256-hashed tokens (in memory or SQLite).

The names are imported on first use (PEP 562), so that importing
:mod:`arena.gateway.remote_agent` or :mod:`arena.gateway.redis_router` -- what a
Celery worker needs -- does not import gRPC: a forked worker must never hold gRPC
state (see ``DESIGN.md``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.gateway.registry import BotEntry, BotRegistry, InMemoryRegistry, SqliteRegistry
    from arena.gateway.remote_agent import RemoteAgent
    from arena.gateway.router import DecisionRouter, LocalRouter
    from arena.gateway.server import (DEFAULT_ADDRESS, Gateway, GatewayConfig, serve, serve_async,
                                      start_server)
    from arena.gateway.session import BotSession, SessionHub

_EXPORTS = {
    "BotEntry": "registry", "BotRegistry": "registry", "InMemoryRegistry": "registry",
    "SqliteRegistry": "registry",
    "RemoteAgent": "remote_agent",
    "DecisionRouter": "router", "LocalRouter": "router",
    "DEFAULT_ADDRESS": "server", "Gateway": "server", "GatewayConfig": "server", "serve": "server",
    "serve_async": "server", "start_server": "server",
    "BotSession": "session", "SessionHub": "session",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.gateway' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"arena.gateway.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
