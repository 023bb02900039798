"""Routing decision requests from referees to the gateway that holds the bot.

The referee side sees only :class:`DecisionRouter`: ``decide`` blocks until the
bot's :class:`~arena.bot.v1.bot_pb2.Decision` arrives or fails with
:class:`~arena.bots.base.DecisionTimeout` / :class:`~arena.bots.base.AgentFailure`;
``notify`` sends a one-way message (MatchStarted, MatchEnded, DecisionError).
Messages cross the router as protobuf messages, which serialize to bytes, so a
router may carry them between processes.

* :class:`LocalRouter` (embedded default): the referee runs in a thread of the
  gateway's process; requests go through an in-process queue (the event loop's
  call queue) to the :class:`~arena.gateway.session.SessionHub`.
* :class:`~arena.remote.redis_router.RedisRouter` (distributed mode) implements
  the same interface on the worker side: the serialized request goes to the bot's
  Redis queue with a reply key, and a
  :class:`~arena.gateway.redis_bridge.RedisBridge` in the gateway that holds the bot
  answers on that key. Workers never hold gRPC objects, so they may fork freely:
  nothing in :mod:`arena.remote` imports gRPC.
"""

from __future__ import annotations

import concurrent.futures
from abc import ABC, abstractmethod
from typing import Protocol

from arena.bot.v1 import bot_pb2
from arena.bots.base import AgentFailure, DecisionTimeout

__all__ = ["DecisionRouter", "LocalRouter", "Hub"]


class Hub(Protocol):
    """What :class:`LocalRouter` needs of the gateway's
    :class:`~arena.gateway.session.SessionHub` (any thread may call these)."""

    def submit_threadsafe(self, bot_id: str, request: bot_pb2.DecisionRequest,
                          timeout: float) -> concurrent.futures.Future[bot_pb2.Decision]: ...

    def send_threadsafe(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None: ...

    def is_connected(self, bot_id: str) -> bool: ...


class DecisionRouter(ABC):
    """How a referee reaches a connected bot."""

    @abstractmethod
    def decide(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
               ) -> bot_pb2.Decision:
        """Send ``request`` (its ``request_id`` and ``deadline_ms`` are filled in on
        the way) and wait at most ``timeout`` seconds for the answer.

        :raises DecisionTimeout: if no usable answer came in time.
        :raises AgentFailure: if the bot is not connected or disconnects.
        """

    @abstractmethod
    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        """Send a one-way message to the bot if it is connected (best effort)."""

    @abstractmethod
    def is_connected(self, bot_id: str) -> bool:
        """Whether the bot has a session now."""


class LocalRouter(DecisionRouter):
    """In-process routing to a gateway's hub on another thread's loop."""

    def __init__(self, hub: Hub, *, slack: float = 1.0) -> None:
        self.hub = hub
        self.slack = slack
        """Extra seconds to wait beyond the deadline for the hub's own expiry."""

    def decide(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
               ) -> bot_pb2.Decision:
        if timeout <= 0:
            raise DecisionTimeout("no time left for this decision")
        try:
            future = self.hub.submit_threadsafe(bot_id, request, timeout)
        except RuntimeError as exc:  # the loop is closed: the gateway stopped
            raise AgentFailure(f"gateway is not running: {exc}") from None
        try:
            return future.result(timeout + self.slack)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise DecisionTimeout(f"bot {bot_id} did not answer within {timeout * 1000:.0f} ms") from None

    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        try:
            self.hub.send_threadsafe(bot_id, message)
        except RuntimeError:
            pass  # gateway stopped: nobody to tell

    def is_connected(self, bot_id: str) -> bool:
        return self.hub.is_connected(bot_id)
