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
import time
from abc import ABC, abstractmethod
from typing import Protocol

from arena.bot.v1 import bot_pb2
from arena.match.agent import DecisionTimeout, RouteFailure

__all__ = ["DecisionRouter", "LocalRouter", "Hub", "MAX_QUEUE_WAIT"]

MAX_QUEUE_WAIT = 300.0
"""Most seconds a worker waits for a request that the gateway queued (behind the
bot's other requests, or while the bot reconnects) before it is written to the
bot's stream; the gateway's own bound is the same
(:data:`arena.gateway.session.MAX_QUEUE_WAIT`)."""


class Hub(Protocol):
    """What :class:`LocalRouter` needs of the gateway's
    :class:`~arena.gateway.session.SessionHub` (any thread may call these)."""

    def submit_threadsafe(self, bot_id: str, request: bot_pb2.DecisionRequest,
                          timeout: float) -> concurrent.futures.Future[bot_pb2.Decision]:
        """The future may carry ``queued`` (bool) and ``sent_at`` (``time.monotonic()``
        of the write to the bot's stream, or None) attributes, as the gateway's
        :class:`~arena.gateway.session.RoutedFuture` does."""

    def send_threadsafe(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None: ...

    def is_connected(self, bot_id: str) -> bool: ...

    def is_streaming(self, bot_id: str) -> bool: ...


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

    def decide_timed(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
                     ) -> tuple[bot_pb2.Decision, float]:
        """:meth:`decide`, and the seconds the bot had the request (from its write to
        the bot's stream to the answer; the gateway's clock starts there, and time
        spent queued behind the bot's other requests is not the bot's). Routers
        that cannot tell return the whole wait."""
        start = time.monotonic()
        decision = self.decide(bot_id, request, timeout)
        return decision, time.monotonic() - start

    @abstractmethod
    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        """Send a one-way message to the bot if it is connected (best effort)."""

    @abstractmethod
    def is_connected(self, bot_id: str) -> bool:
        """Whether the bot is present: it has a stream, or it is between streams in
        its reconnection grace period (its requests are held for its next stream)."""

    def is_streaming(self, bot_id: str) -> bool:
        """Whether the bot has a stream now (present and not between streams): what a
        match must see to *start* (:func:`arena.tournaments.runner.offline_bots`).
        Routers that cannot tell answer :meth:`is_connected`."""
        return self.is_connected(bot_id)

    def offline_seconds(self, bot_id: str) -> float | None:
        """How long the bot has been without a stream, as its gateway saw it (0 while
        it streams); None where the router cannot tell (then absence is counted from
        a match's first deferral alone)."""
        return None


class LocalRouter(DecisionRouter):
    """In-process routing to a gateway's hub on another thread's loop."""

    def __init__(self, hub: Hub, *, slack: float = 1.0) -> None:
        self.hub = hub
        self.slack = slack
        """Extra seconds to wait beyond the deadline for the hub's own expiry."""

    def decide(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
               ) -> bot_pb2.Decision:
        return self.decide_timed(bot_id, request, timeout)[0]

    def decide_timed(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
                     ) -> tuple[bot_pb2.Decision, float]:
        """Wait ``timeout`` + :attr:`slack` seconds from the request's write to the
        bot's stream; while the gateway holds it queued, wait as long as the bot is
        present, at most :data:`MAX_QUEUE_WAIT` seconds."""
        if timeout <= 0:
            raise DecisionTimeout("no time left for this decision")
        start = time.monotonic()
        try:
            future = self.hub.submit_threadsafe(bot_id, request, timeout)
        except RuntimeError as exc:  # the loop is closed: the gateway stopped
            raise RouteFailure(f"gateway is not running: {exc}") from None
        end = start + timeout + self.slack
        while True:
            try:
                decision = future.result(max(0.0, end - time.monotonic()))
                sent_at = getattr(future, "sent_at", None)
                return decision, time.monotonic() - (start if sent_at is None else sent_at)
            except concurrent.futures.TimeoutError:
                pass
            now = time.monotonic()
            sent_at = getattr(future, "sent_at", None)
            if sent_at is not None and sent_at + timeout + self.slack > now:
                end = sent_at + timeout + self.slack
                continue
            if (sent_at is None and getattr(future, "queued", False) and now - start < MAX_QUEUE_WAIT
                    and self.hub.is_connected(bot_id)):
                end = now + min(1.0, timeout + self.slack)
                continue
            future.cancel()
            raise DecisionTimeout(f"bot {bot_id} did not answer within {timeout * 1000:.0f} ms") from None

    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        try:
            self.hub.send_threadsafe(bot_id, message)
        except RuntimeError:
            pass  # gateway stopped: nobody to tell

    def is_connected(self, bot_id: str) -> bool:
        return self.hub.is_connected(bot_id)

    def is_streaming(self, bot_id: str) -> bool:
        return self.hub.is_streaming(bot_id)
