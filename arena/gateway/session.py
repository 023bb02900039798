"""Bot sessions and the hub that routes decision requests to them.

Everything here runs on the gateway's event loop, except the ``*_threadsafe``
entry points of :class:`SessionHub`, which any thread may call (the in-process
router uses them). No gRPC object leaves this module's loop thread.

A :class:`BotSession` is one connected bot stream: an outbox of
``ArenaMessage`` (written by the servicer's writer), the requests sent and not yet
answered (``pending``, at most ``max_concurrent``), and the requests waiting for
a free slot (``backlog``). Each request has a deadline (loop clock); at the
deadline it fails with :class:`~arena.bots.base.DecisionTimeout`. When the session
closes (disconnect, dead bot, revoked, replaced) every pending and waiting
request fails at once with :class:`~arena.bots.base.AgentFailure`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from arena.bot.v1 import bot_pb2
from arena.bots.base import AgentFailure, DecisionTimeout

__all__ = ["BotSession", "SessionHub", "PendingDecision", "DecisionFuture", "MAX_PROTOCOL_ERRORS",
           "MAX_MESSAGES_PER_SECOND"]

log = logging.getLogger("arena.gateway")

MAX_PROTOCOL_ERRORS = 100
"""A session that makes more protocol errors than this is closed (RESOURCE_EXHAUSTED)."""

MAX_MESSAGES_PER_SECOND = 5_000
"""A session that sends more messages than this within one second is closed
(RESOURCE_EXHAUSTED): a bot never needs more than its answers and Pongs."""

_RECENT_EXPIRED = 4096
"""How many expired request ids a session remembers (to answer LATE, not UNKNOWN)."""


class DecisionFuture(Protocol):
    """Where a request's outcome goes: the part of ``concurrent.futures.Future`` the
    hub uses (a loop-side router may pass a lighter object of its own)."""

    def set_running_or_notify_cancel(self) -> bool: ...

    def done(self) -> bool: ...

    def set_result(self, result: bot_pb2.Decision) -> None: ...

    def set_exception(self, exception: BaseException) -> None: ...


@dataclass(eq=False)
class PendingDecision:
    """One decision request on its way to a bot and back."""

    request: bot_pb2.DecisionRequest
    deadline: float
    """Loop clock (``loop.time()``) at which it expires."""
    future: DecisionFuture
    timer: asyncio.TimerHandle | None = field(default=None)


class BotSession:
    """One connected bot stream (see the module docstring)."""

    def __init__(self, hub: SessionHub, bot_id: str, session_id: str, max_concurrent: int,
                 hello: bot_pb2.Hello) -> None:
        self.hub = hub
        self.bot_id = bot_id
        self.session_id = session_id
        self.max_concurrent = max_concurrent
        self.hello = hello
        self.outbox: asyncio.Queue[bot_pb2.ArenaMessage | None] = asyncio.Queue()
        self.pending: dict[int, PendingDecision] = {}
        self.backlog: deque[PendingDecision] = deque()
        self.expired: OrderedDict[int, None] = OrderedDict()
        self.closed = False
        self.close_status: grpc.StatusCode | None = None
        self.close_details = ""
        self.protocol_errors = 0
        self.last_seen = hub.loop.time()
        self._window_start = self.last_seen
        self._window_count = 0

    # -- arena -> bot ------------------------------------------------------
    def send(self, message: bot_pb2.ArenaMessage) -> None:
        """Queue a message for the bot (dropped if the session is closed)."""
        if not self.closed:
            self.outbox.put_nowait(message)

    def submit(self, pending: PendingDecision) -> None:
        """Send a decision request now, or queue it until a slot frees."""
        if self.closed:
            _fail(pending.future, AgentFailure(f"bot {self.bot_id} disconnected"))
            return
        loop = self.hub.loop
        pending.timer = loop.call_at(pending.deadline, self._expire, pending)
        if len(self.pending) < self.max_concurrent:
            self._send_request(pending)
        else:
            self.backlog.append(pending)

    def _send_request(self, pending: PendingDecision) -> None:
        remaining_ms = int((pending.deadline - self.hub.loop.time()) * 1000)
        pending.request.deadline_ms = max(1, remaining_ms)
        self.pending[pending.request.request_id] = pending
        self.outbox.put_nowait(bot_pb2.ArenaMessage(decision_request=pending.request))

    def _free_slot(self) -> None:
        while self.backlog and len(self.pending) < self.max_concurrent:
            nxt = self.backlog.popleft()
            if not nxt.future.done():
                self._send_request(nxt)

    def _expire(self, pending: PendingDecision) -> None:
        rid = pending.request.request_id
        if self.pending.pop(rid, None) is not None:
            self._remember_expired(rid)
        else:
            try:
                self.backlog.remove(pending)
            except ValueError:
                pass
        _fail(pending.future, DecisionTimeout(
            f"bot {self.bot_id} did not answer request {rid} within {pending.request.deadline_ms} ms"))
        self._free_slot()

    def cancel(self, request_id: int) -> None:
        """Forget a request whose waiter gave up."""
        pending = self.pending.pop(request_id, None)
        if pending is not None:
            self._remember_expired(request_id)
            if pending.timer is not None:
                pending.timer.cancel()
            self._free_slot()

    def _remember_expired(self, rid: int) -> None:
        self.expired[rid] = None
        if len(self.expired) > _RECENT_EXPIRED:
            self.expired.popitem(last=False)

    # -- bot -> arena ------------------------------------------------------
    def on_message(self, message: bot_pb2.BotMessage) -> None:
        """Handle one message from the bot (after the Hello)."""
        now = self.last_seen = self.hub.loop.time()
        if now - self._window_start >= 1.0:
            self._window_start, self._window_count = now, 0
        self._window_count += 1
        if self._window_count > self.hub.max_messages_per_second:
            self.close(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"more than {self.hub.max_messages_per_second} messages in one second")
            return
        kind = message.WhichOneof("kind")
        if kind == "decision":
            self._on_decision(message.decision)
        elif kind == "pong":
            pass
        elif kind == "hello":
            self.protocol_error(0, bot_pb2.DECISION_ERROR_CODE_MALFORMED,
                                "Hello is only allowed as the first message of a stream")
        else:
            self.protocol_error(0, bot_pb2.DECISION_ERROR_CODE_MALFORMED,
                                "empty BotMessage: set one of hello, decision, pong")

    def _on_decision(self, decision: bot_pb2.Decision) -> None:
        rid = decision.request_id
        pending = self.pending.get(rid)
        if pending is None:
            if rid in self.expired:
                self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_LATE,
                                    f"request {rid} is no longer open: its deadline passed")
            else:
                self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_UNKNOWN_REQUEST,
                                    f"no open request {rid} on this stream")
            return
        if decision.WhichOneof("action") is None:
            self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_MALFORMED,
                                "Decision has no action: set action_id or action_text",
                                retry_allowed=True)
            return
        if decision.WhichOneof("action") == "action_text" and not decision.action_text.strip():
            self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_MALFORMED,
                                "Decision.action_text is empty", retry_allowed=True)
            return
        del self.pending[rid]
        if pending.timer is not None:
            pending.timer.cancel()
        if not pending.future.done():
            pending.future.set_result(decision)
        self._free_slot()

    def protocol_error(self, request_id: int, code: bot_pb2.DecisionErrorCode, reason: str, *,
                       retry_allowed: bool = False) -> None:
        """Tell the bot what was wrong; close the session after too many errors."""
        self.protocol_errors += 1
        log.info("bot %s session %s: %s", self.bot_id, self.session_id, reason)
        self.send(bot_pb2.ArenaMessage(decision_error=bot_pb2.DecisionError(
            request_id=request_id, code=code, reason=reason, retry_allowed=retry_allowed)))
        if self.protocol_errors > MAX_PROTOCOL_ERRORS:
            self.close(grpc.StatusCode.RESOURCE_EXHAUSTED,
                       f"more than {MAX_PROTOCOL_ERRORS} protocol errors")

    # -- end ---------------------------------------------------------------
    def close(self, status: grpc.StatusCode | None = None, details: str = "") -> None:
        """Close the session: fail its requests, stop its writer, leave the hub."""
        if self.closed:
            return
        self.closed = True
        self.close_status, self.close_details = status, details
        failure = AgentFailure(f"bot {self.bot_id} disconnected"
                               + (f": {details}" if details else ""))
        for pending in [*self.pending.values(), *self.backlog]:
            if pending.timer is not None:
                pending.timer.cancel()
            _fail(pending.future, failure)
        self.pending.clear()
        self.backlog.clear()
        self.outbox.put_nowait(None)
        self.hub._remove(self)


def _fail(future: DecisionFuture, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


class SessionHub:
    """The connected sessions of one gateway, by bot id (one session per bot).

    Loop-side methods (``submit``, ``send``, ``cancel``) must run on :attr:`loop`;
    the ``*_threadsafe`` ones may be called from any thread.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, *, max_concurrent_cap: int = 64,
                 ping_interval: float = 10.0,
                 max_messages_per_second: int = MAX_MESSAGES_PER_SECOND) -> None:
        self.loop = loop
        self.max_messages_per_second = max_messages_per_second
        self.max_concurrent_cap = max_concurrent_cap
        self.ping_interval = ping_interval
        self.sessions: dict[str, BotSession] = {}
        self._request_ids = itertools.count(1)
        self._session_ids = itertools.count(1)

    def open(self, bot_id: str, hello: bot_pb2.Hello) -> BotSession:
        """A new session for ``bot_id``; an older one is closed (ABORTED)."""
        old = self.sessions.get(bot_id)
        if old is not None:
            old.close(grpc.StatusCode.ABORTED, "replaced by a newer session of the same bot")
        wanted = hello.max_concurrent_decisions or 1
        session = BotSession(self, bot_id, f"s{next(self._session_ids)}",
                             max(1, min(wanted, self.max_concurrent_cap)), hello)
        self.sessions[bot_id] = session
        return session

    def _remove(self, session: BotSession) -> None:
        if self.sessions.get(session.bot_id) is session:
            del self.sessions[session.bot_id]

    def is_connected(self, bot_id: str) -> bool:
        return bot_id in self.sessions

    def close_bot(self, bot_id: str, status: grpc.StatusCode, details: str) -> None:
        """Close the bot's session, if any (e.g. after its token was revoked)."""
        session = self.sessions.get(bot_id)
        if session is not None:
            session.close(status, details)

    def close_all(self, details: str = "the arena is shutting down") -> None:
        for session in list(self.sessions.values()):
            session.close(grpc.StatusCode.UNAVAILABLE, details)

    # -- loop side ---------------------------------------------------------
    def submit(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float,
               future: DecisionFuture) -> None:
        """Assign a request id and route the request to the bot's session."""
        request.request_id = next(self._request_ids)
        if not future.set_running_or_notify_cancel():
            return
        session = self.sessions.get(bot_id)
        if session is None:
            future.set_exception(AgentFailure(f"bot {bot_id} is not connected"))
            return
        session.submit(PendingDecision(request, self.loop.time() + timeout, future))

    def send(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        session = self.sessions.get(bot_id)
        if session is not None:
            session.send(message)

    def cancel(self, bot_id: str, request_id: int) -> None:
        session = self.sessions.get(bot_id)
        if session is not None:
            session.cancel(request_id)

    # -- any thread ----------------------------------------------------------
    def submit_threadsafe(self, bot_id: str, request: bot_pb2.DecisionRequest,
                          timeout: float) -> concurrent.futures.Future[bot_pb2.Decision]:
        """Route a request from another thread; the future gets the Decision or
        :class:`DecisionTimeout` / :class:`AgentFailure`."""
        future: concurrent.futures.Future[bot_pb2.Decision] = concurrent.futures.Future()
        self.loop.call_soon_threadsafe(self.submit, bot_id, request, timeout, future)
        return future

    def send_threadsafe(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        self.loop.call_soon_threadsafe(self.send, bot_id, message)

    def cancel_threadsafe(self, bot_id: str, request_id: int) -> None:
        self.loop.call_soon_threadsafe(self.cancel, bot_id, request_id)
