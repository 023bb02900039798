"""The gateway: a grpc.aio server holding bot sessions, and the referee's remote agent.

* :func:`serve` -- run it in the foreground (``arena serve``).
* :class:`Gateway` -- run it embedded on a thread; ``gateway.agent(bot_id)`` gives a
  :class:`RemoteAgent` for the referee.
* :class:`DecisionRouter` -- how a referee reaches the gateway holding a bot
  (:class:`LocalRouter` in process; a Redis router plugs in behind the same interface).
* :class:`BotRegistry` -- bots and their SHA-256-hashed tokens (in memory or SQLite).
"""

from arena.gateway.registry import BotEntry, BotRegistry, InMemoryRegistry, SqliteRegistry
from arena.gateway.remote_agent import RemoteAgent
from arena.gateway.router import DecisionRouter, LocalRouter
from arena.gateway.server import DEFAULT_ADDRESS, Gateway, GatewayConfig, serve, serve_async, start_server
from arena.gateway.session import BotSession, SessionHub

__all__ = [
    "BotEntry", "BotRegistry", "InMemoryRegistry", "SqliteRegistry",
    "RemoteAgent", "DecisionRouter", "LocalRouter",
    "DEFAULT_ADDRESS", "Gateway", "GatewayConfig", "serve", "serve_async", "start_server",
    "BotSession", "SessionHub",
]
