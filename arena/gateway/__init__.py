"""The gateway: grpc.aio servicers holding bot sessions, the operators' API and
the gateway half of the Redis route.

* :func:`serve` -- run it in the foreground (``arena serve``).
* :class:`Gateway` -- run it embedded on a thread; ``gateway.agent(bot_id)`` gives a
  :class:`arena.remote.RemoteAgent` for the referee over a
  :class:`arena.remote.LocalRouter`.
* :class:`SessionHub` -- the connected bots' sessions that routers reach.

The route's worker half (agent, router interface, Redis router, proto
conversion) lives in :mod:`arena.remote`, which imports no gRPC; bots and their
tokens live in the store (:mod:`arena.store.registry`). The names here are
imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.gateway.server import (DEFAULT_ADDRESS, Gateway, GatewayConfig, serve, serve_async,
                                      start_server)
    from arena.gateway.session import BotSession, SessionHub

_EXPORTS = {
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
