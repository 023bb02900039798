"""Bot sessions and the hub that routes decision requests to them.

Everything here runs on the gateway's event loop, except the ``*_threadsafe``
entry points of :class:`SessionHub`, which any thread may call (the in-process
router uses them). No gRPC object leaves this module's loop thread.

A :class:`BotSession` is one connected bot stream: an outbox of
``ArenaMessage`` (written by the servicer's writer), the requests sent and not yet
answered (``pending``, at most ``max_concurrent``), and the requests waiting for
a free slot (``backlog``).

Transport
---------
Sessions speak the bot protocol's messages (``proto/arena/bot/v1``: ``ArenaMessage``
out, ``BotMessage`` in) and close with a :class:`CloseCode`; nothing here is gRPC's.
The protocol's schema is the session model: the gRPC servicer
(:mod:`arena.gateway.servicer`) is one adapter (it maps :class:`CloseCode` to gRPC
status codes, ``servicer.GRPC_STATUS``); another transport (WebSocket with
protobuf's JSON mapping, say) would be another, on the same sessions. Requests that
come from the Redis route are decoded once, here, because the session reads them
(``request_id``, ``deadline_ms``, ``attempt`` on a retry or a reconnection); forwarding
their bytes without decoding was measured at 1.1 against 7.0 us a request (issue 28),
under 1 % of the route's CPU per decision (about 1 ms over every process, issue 26),
and is not done.

Deadlines
---------
A request's deadline clock starts when it is written to the bot's stream (when it
leaves the backlog), not when it is created: a bot at ``max_concurrent=1`` in four
matches is never charged for the time its own earlier requests take. At the
deadline it fails with :class:`~arena.bots.base.DecisionTimeout`. A request waits
in the backlog at most :data:`MAX_QUEUE_WAIT` seconds (then it fails the same way).
A request that is queued rather than sent at once is reported to its future
(``on_queued``), so that the worker waiting on it extends its own bound; the moment
it is written is reported too (``on_sent``).

Reconnection grace
------------------
When a stream ends without the gateway closing it (the bot closed it, the
connection broke, the call was cancelled) or is taken over by a second stream
with the same token, its outstanding requests are *held* for
:data:`RECONNECT_GRACE_SECONDS` (5 s by default, ``SessionHub(grace=...)``): their
deadline clocks stop, the bot stays present (``is_connected``; the Redis bridge
keeps its online key) but not streaming (``is_streaming``: no new match starts
against it; the bridge sets its between key), new requests for it are held too, and the next stream of
the same bot gets every held request again (same ``request_id``, the time left on
its clock as ``deadline_ms``). A second stream with the same token takes the first
one's requests over at once. If no stream comes within the grace period, every
held request fails with :class:`~arena.bots.base.AgentFailure` (a disconnect
beyond the grace period is the bot's fault). Streams the gateway closes itself
(revoked token, protocol violation, a bot silent for three ping intervals, the
gateway shutting down) fail their requests at once.

Refusals and faults
-------------------
* A Decision with no action (or an empty text) is refused MALFORMED with
  ``retry_allowed``; the retry is a **new** ``DecisionRequest`` (new
  ``request_id``, ``attempt`` + 1, the time left on the clock), as ``bot.proto``
  says. After :data:`MAX_MALFORMED_RETRIES` such retries the request fails with
  :class:`DecisionTimeout` (the referee's default applies).
* An answer after the deadline gets ``DECISION_ERROR_CODE_LATE``; it is a fault of
  the match (the timeout already recorded), not a protocol error.
* Protocol errors (empty envelopes, a second Hello, answers to unknown requests)
  are limited to :data:`MAX_PROTOCOL_ERRORS_PER_MINUTE` per session in any 60 s
  window; beyond that the stream is closed (RESOURCE_EXHAUSTED).
* Text the bot sent that comes back in a ``DecisionError.reason`` or goes into a
  log is cut to :data:`MAX_ECHO_CHARS` characters (with an ellipsis).

Circuit breaker
---------------
A bot that misses :data:`UNRESPONSIVE_AFTER` (3) deadlines in a row is marked
*unresponsive*: its other outstanding requests fail at once with
:class:`DecisionTimeout` (their matches apply the default without waiting), and so
does every new request, except one probe at a time, which is sent to the bot as
usual. Any Decision from the bot (the probe's answer, even a late answer to an
older request) ends the unresponsive state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from arena.bot.v1 import bot_pb2
from arena.match.agent import AgentFailure, DecisionTimeout, RouteFailure

__all__ = ["BotSession", "SessionHub", "CloseCode", "PendingDecision", "DecisionFuture", "RoutedFuture",
           "MAX_PROTOCOL_ERRORS_PER_MINUTE", "MAX_MESSAGES_PER_SECOND", "RECONNECT_GRACE_SECONDS",
           "UNRESPONSIVE_AFTER", "MAX_ECHO_CHARS", "MAX_MALFORMED_RETRIES", "MAX_QUEUE_WAIT", "bounded"]

log = logging.getLogger("arena.gateway")



class CloseCode(Enum):
    """Why the arena ends a bot's stream, in no transport's terms: each transport
    says it in its own (gRPC: the status of :data:`arena.gateway.servicer.GRPC_STATUS`)."""

    MALFORMED = "malformed"
    """The bot broke the protocol (a message that cannot be decoded). gRPC INVALID_ARGUMENT."""
    OVERLOADED = "overloaded"
    """Too many messages in a second, or protocol errors in a minute. gRPC RESOURCE_EXHAUSTED."""
    REPLACED = "replaced"
    """A newer session of the same bot took over. gRPC ABORTED."""
    UNAVAILABLE = "unavailable"
    """The arena is shutting down, or the bot is considered dead. gRPC UNAVAILABLE."""
    REVOKED = "revoked"
    """The bot's token was revoked. gRPC UNAUTHENTICATED."""


MAX_PROTOCOL_ERRORS_PER_MINUTE = 100
"""A session that makes more protocol errors than this within 60 s is closed
(RESOURCE_EXHAUSTED). Late answers are not protocol errors."""

MAX_MESSAGES_PER_SECOND = 5_000
"""A session that sends more messages than this within one second is closed
(RESOURCE_EXHAUSTED): a bot never needs more than its answers and Pongs."""

RECONNECT_GRACE_SECONDS = 5.0
"""How long a dropped stream's requests wait for the bot's next stream."""

UNRESPONSIVE_AFTER = 3
"""Deadlines missed in a row after which a bot is unresponsive (the circuit breaker)."""

MAX_ECHO_CHARS = 256
"""Longest piece of a bot's own input echoed back or logged (longer: cut, with "…")."""

MAX_MALFORMED_RETRIES = 2
"""New requests sent after malformed answers to one decision before it fails."""

MAX_QUEUE_WAIT = 300.0
"""Seconds a request may wait in a session's backlog before it fails (DecisionTimeout)."""

_RECENT_EXPIRED = 4096
"""How many expired request ids a session remembers (to answer LATE, not UNKNOWN)."""


def bounded(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis.

    >>> bounded("x" * 300)[-3:], len(bounded("x" * 300)), bounded("short")
    ('xx…', 256, 'short')
    """
    return text if len(text) <= limit else text[:limit - 1] + "…"


class DecisionFuture(Protocol):
    """Where a request's outcome goes: the part of ``concurrent.futures.Future`` the
    hub uses (a loop-side router may pass a lighter object of its own), plus the
    ``on_queued``/``on_sent`` notifications (see :class:`RoutedFuture`)."""

    def set_running_or_notify_cancel(self) -> bool: ...

    def done(self) -> bool: ...

    def set_result(self, result: bot_pb2.Decision) -> None: ...

    def set_exception(self, exception: BaseException) -> None: ...

    def on_queued(self) -> None: ...

    def on_sent(self) -> None: ...


class RoutedFuture(concurrent.futures.Future[bot_pb2.Decision]):
    """A future that also says where its request is (for the in-process router):
    :attr:`queued` once it waited for a slot or for the bot's next stream, and
    :attr:`sent_at` each time it is written."""

    def __init__(self) -> None:
        super().__init__()
        self.queued = False
        self.sent_at: float | None = None
        """``time.monotonic()`` of the last write to the bot's stream (None: not on one)."""

    def on_queued(self) -> None:
        self.queued = True
        self.sent_at = None

    def on_sent(self) -> None:
        self.sent_at = time.monotonic()


@dataclass(eq=False)
class PendingDecision:
    """One decision request on its way to a bot and back."""

    request: bot_pb2.DecisionRequest
    timeout: float
    """Seconds the bot has once the request is written (what is left of it after a
    malformed answer or a dropped stream)."""
    future: DecisionFuture
    deadline: float = 0.0
    """Loop clock (``loop.time()``) at which it expires; set when it is written."""
    timer: asyncio.TimerHandle | None = field(default=None)
    queued: bool = False
    """Whether ``future.on_queued()`` was called."""
    malformed: int = 0
    """Malformed answers so far."""
    probe: bool = False
    """Sent while the bot was unresponsive (the circuit breaker's probe)."""

    def queue(self) -> None:
        if not self.queued:
            self.queued = True
            self.future.on_queued()


class BotSession:
    """One connected bot stream (see the module docstring)."""

    def __init__(self, hub: SessionHub, bot_id: str, session_id: str, max_concurrent: int,
                 hello: bot_pb2.Hello, peer: str = "") -> None:
        self.hub = hub
        self.bot_id = bot_id
        self.session_id = session_id
        self.max_concurrent = max_concurrent
        self.hello = hello
        self.peer = peer
        self.outbox: asyncio.Queue[bot_pb2.ArenaMessage | None] = asyncio.Queue()
        self.pending: dict[int, PendingDecision] = {}
        self.backlog: deque[PendingDecision] = deque()
        self.expired: OrderedDict[int, None] = OrderedDict()
        self.closed = False
        self.close_status: CloseCode | None = None
        self.close_details = ""
        self.protocol_errors = 0
        """Protocol errors over the session's life (for logs; the limit is a rate)."""
        self._error_times: deque[float] = deque()
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
            self.hub._orphan(self.bot_id, pending)
            return
        if len(self.pending) < self.max_concurrent:
            self._send_request(pending)
        else:
            pending.queue()
            pending.timer = self.hub.loop.call_later(self.hub.max_queue_wait, self._expire_queued, pending)
            self.backlog.append(pending)

    def _send_request(self, pending: PendingDecision) -> None:
        loop = self.hub.loop
        if pending.timer is not None:
            pending.timer.cancel()
        pending.deadline = loop.time() + pending.timeout
        pending.timer = loop.call_at(pending.deadline, self._expire, pending)
        pending.request.deadline_ms = max(1, int(pending.timeout * 1000))
        self.pending[pending.request.request_id] = pending
        self.outbox.put_nowait(bot_pb2.ArenaMessage(decision_request=pending.request))
        pending.future.on_sent()

    def _free_slot(self) -> None:
        while self.backlog and len(self.pending) < self.max_concurrent:
            nxt = self.backlog.popleft()
            if not nxt.future.done():
                self._send_request(nxt)
            elif nxt.timer is not None:
                nxt.timer.cancel()

    def _expire_queued(self, pending: PendingDecision) -> None:
        try:
            self.backlog.remove(pending)
        except ValueError:
            return
        _fail(pending.future, DecisionTimeout(
            f"bot {self.bot_id}: request waited {self.hub.max_queue_wait:g} s for a free slot"))

    def _expire(self, pending: PendingDecision) -> None:
        rid = pending.request.request_id
        if self.pending.pop(rid, None) is None:
            return
        self._remember_expired(rid)
        _fail(pending.future, DecisionTimeout(
            f"bot {self.bot_id} did not answer request {rid} within {pending.request.deadline_ms} ms"))
        self.hub._missed(self)
        self._free_slot()

    def fail_outstanding(self, make: type[Exception], reason: str) -> None:
        """Fail every sent and queued request at once (the circuit breaker)."""
        for rid, pending in list(self.pending.items()):
            if pending.probe:
                continue
            del self.pending[rid]
            self._remember_expired(rid)
            if pending.timer is not None:
                pending.timer.cancel()
            _fail(pending.future, make(reason))
        while self.backlog:
            pending = self.backlog.popleft()
            if pending.timer is not None:
                pending.timer.cancel()
            _fail(pending.future, make(reason))
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
            self.close(CloseCode.OVERLOADED,
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
                self.hub._answered(self.bot_id)  # late, but alive: the breaker closes
                self.refuse(rid, bot_pb2.DECISION_ERROR_CODE_LATE,
                            f"request {rid} is no longer open: its deadline passed")
            else:
                self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_UNKNOWN_REQUEST,
                                    f"no open request {rid} on this stream")
            return
        which = decision.WhichOneof("action")
        if which is None or (which == "action_text" and not decision.action_text.strip()):
            self._malformed(pending, "Decision has no action: set action_id or action_text"
                            if which is None else "Decision.action_text is empty")
            return
        del self.pending[rid]
        if pending.timer is not None:
            pending.timer.cancel()
        self.hub._answered(self.bot_id)
        if not pending.future.done():
            pending.future.set_result(decision)
        self._free_slot()

    def _malformed(self, pending: PendingDecision, reason: str) -> None:
        """Refuse a malformed answer; the retry is a new request (new id, attempt + 1)."""
        rid = pending.request.request_id
        del self.pending[rid]
        self._remember_expired(rid)
        if pending.timer is not None:
            pending.timer.cancel()
        remaining = pending.deadline - self.hub.loop.time()
        retry = pending.malformed < MAX_MALFORMED_RETRIES and remaining > 0.001 \
            and not pending.future.done()
        self.protocol_error(rid, bot_pb2.DECISION_ERROR_CODE_MALFORMED, reason, retry_allowed=retry)
        if not retry:
            _fail(pending.future, DecisionTimeout(f"bot {self.bot_id} sent no usable decision "
                                                  f"({pending.malformed + 1} malformed answers)"))
            self._free_slot()
            return
        request = bot_pb2.DecisionRequest()
        request.CopyFrom(pending.request)
        request.request_id = self.hub.next_request_id()
        request.attempt = pending.request.attempt + 1
        retried = PendingDecision(request, remaining, pending.future, malformed=pending.malformed + 1,
                                  probe=pending.probe, queued=pending.queued)
        if not self.closed:
            self._send_request(retried)  # the freed slot is this decision's own

    def refuse(self, request_id: int, code: bot_pb2.DecisionErrorCode, reason: str, *,
               retry_allowed: bool = False) -> None:
        """Tell the bot its Decision was refused (not a protocol error)."""
        self.send(bot_pb2.ArenaMessage(decision_error=bot_pb2.DecisionError(
            request_id=request_id, code=code, reason=bounded(reason), retry_allowed=retry_allowed)))

    def protocol_error(self, request_id: int, code: bot_pb2.DecisionErrorCode, reason: str, *,
                       retry_allowed: bool = False) -> None:
        """Tell the bot what was wrong; close the session after too many errors in a minute."""
        self.protocol_errors += 1
        now = self.hub.loop.time()
        times = self._error_times
        times.append(now)
        while times and now - times[0] > 60.0:
            times.popleft()
        log.info("bot %s session %s: %s", self.bot_id, self.session_id, bounded(reason))
        self.refuse(request_id, code, reason, retry_allowed=retry_allowed)
        if len(times) > MAX_PROTOCOL_ERRORS_PER_MINUTE:
            self.close(CloseCode.OVERLOADED,
                       f"more than {MAX_PROTOCOL_ERRORS_PER_MINUTE} protocol errors in a minute")

    # -- end ---------------------------------------------------------------
    def close(self, status: CloseCode | None = None, details: str = "", *,
              hold: bool = False, failure: type[AgentFailure] = AgentFailure) -> None:
        """Close the session and leave the hub; stop its writer.

        :param hold: keep its requests for the bot's next stream (the grace period)
            instead of failing them at once.
        :param failure: what they fail with otherwise.
        """
        if self.closed:
            return
        self.closed = True
        self.close_status, self.close_details = status, details
        outstanding = [*sorted(self.pending.values(), key=lambda p: p.request.request_id),
                       *self.backlog]
        now = self.hub.loop.time()
        for pending in outstanding:
            if pending.timer is not None:
                pending.timer.cancel()
                pending.timer = None
        for pending in self.pending.values():  # the clock stops while the bot has no stream
            pending.timeout = max(0.001, pending.deadline - now)
        self.pending.clear()
        self.backlog.clear()
        self.outbox.put_nowait(None)
        self.hub._remove(self, outstanding if hold else None)
        if not hold:
            exc = failure(f"bot {self.bot_id} disconnected" + (f": {details}" if details else ""))
            for pending in outstanding:
                _fail(pending.future, exc)


def _fail(future: DecisionFuture, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


@dataclass(eq=False)
class _Held:
    """A bot between streams: its requests, and the end of its grace period."""

    requests: list[PendingDecision]
    timer: asyncio.TimerHandle | None = None


@dataclass(eq=False)
class _Breaker:
    misses: int = 0
    open: bool = False
    probe: PendingDecision | None = None


class SessionHub:
    """The connected sessions of one gateway, by bot id (one session per bot).

    Loop-side methods (``submit``, ``send``, ``cancel``) must run on :attr:`loop`;
    the ``*_threadsafe`` ones may be called from any thread.

    :param grace: seconds a dropped stream's requests wait for the bot's next
        stream (:data:`RECONNECT_GRACE_SECONDS`).
    :param unresponsive_after: the circuit breaker's K (:data:`UNRESPONSIVE_AFTER`).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, *, max_concurrent_cap: int = 64,
                 ping_interval: float = 10.0,
                 max_messages_per_second: int = MAX_MESSAGES_PER_SECOND,
                 grace: float = RECONNECT_GRACE_SECONDS,
                 unresponsive_after: int = UNRESPONSIVE_AFTER,
                 max_queue_wait: float = MAX_QUEUE_WAIT) -> None:
        self.loop = loop
        self.max_messages_per_second = max_messages_per_second
        self.max_concurrent_cap = max_concurrent_cap
        self.ping_interval = ping_interval
        self.grace = grace
        self.unresponsive_after = max(1, unresponsive_after)
        self.max_queue_wait = max_queue_wait
        self.sessions: dict[str, BotSession] = {}
        self.held: dict[str, _Held] = {}
        """Bots in their grace period (no stream; requests kept)."""
        self.before_offline: list[Callable[[str], Awaitable[None]]] = []
        """Awaited when a bot's grace period ends, before its held requests fail: the
        Redis bridge removes the bot's online key there, so that no worker that sees
        its match fail can start another one against the absent bot."""
        self._breakers: dict[str, _Breaker] = {}
        self.resent = 0
        """Requests sent again on a bot's next stream (after a drop or a takeover)."""
        self._request_ids = itertools.count(1)
        self._session_ids = itertools.count(1)

    def next_request_id(self) -> int:
        return next(self._request_ids)

    def open(self, bot_id: str, hello: bot_pb2.Hello, peer: str = "") -> BotSession:
        """A new session for ``bot_id``; an older one is closed (ABORTED) and its
        outstanding requests move to the new one, as do those held since a drop."""
        old = self.sessions.get(bot_id)
        if old is not None:
            old.close(CloseCode.REPLACED, "replaced by a newer session of the same bot", hold=True)
        wanted = hello.max_concurrent_decisions or 1
        session = BotSession(self, bot_id, f"s{next(self._session_ids)}",
                             max(1, min(wanted, self.max_concurrent_cap)), hello, peer)
        self.sessions[bot_id] = session
        held = self.held.pop(bot_id, None)
        if held is not None:
            if held.timer is not None:
                held.timer.cancel()
            resent = 0
            for pending in held.requests:
                if not pending.future.done():
                    session.submit(pending)
                    resent += 1
            self.resent += resent
            if resent:
                log.info("bot %s session %s: %d outstanding requests sent again", bot_id,
                         session.session_id, resent)
        return session

    def _remove(self, session: BotSession, held: list[PendingDecision] | None) -> None:
        """``session`` closed; ``held``: its requests to keep for the grace period."""
        bot_id = session.bot_id
        if self.sessions.get(bot_id) is session:
            del self.sessions[bot_id]
        if held is None:
            return
        entry = self.held.get(bot_id)
        if entry is None:
            entry = self.held[bot_id] = _Held([])
        for pending in held:
            pending.queue()
            entry.requests.append(pending)
        if bot_id not in self.sessions and entry.timer is None:
            entry.timer = self.loop.call_later(self.grace, self._grace_over, bot_id)

    def _orphan(self, bot_id: str, pending: PendingDecision) -> None:
        """A request for a bot without a stream: hold it if the bot is in its grace period."""
        entry = self.held.get(bot_id)
        session = self.sessions.get(bot_id)
        if session is not None:
            session.submit(pending)
        elif entry is not None:
            pending.queue()
            entry.requests.append(pending)
        else:
            _fail(pending.future, AgentFailure(f"bot {bot_id} is not connected"))

    def _grace_over(self, bot_id: str) -> None:
        entry = self.held.pop(bot_id, None)
        if entry is None:
            return
        if self.before_offline:  # presence first, then the failures (see before_offline)
            self.loop.create_task(self._offline_then_fail(bot_id, entry))
        else:
            self._fail_expired(bot_id, entry)

    async def _offline_then_fail(self, bot_id: str, entry: _Held) -> None:
        for hook in list(self.before_offline):
            try:
                await asyncio.wait_for(hook(bot_id), 2.0)
            except Exception as exc:  # noqa: BLE001 - the requests fail anyway
                log.warning("going offline of %s: %s: %s", bot_id, type(exc).__name__, exc)
        self._fail_expired(bot_id, entry)

    def _fail_expired(self, bot_id: str, entry: _Held) -> None:
        failure = AgentFailure(f"bot {bot_id} disconnected and did not reconnect within {self.grace:g} s")
        waiting = [p for p in entry.requests if not p.future.done()]
        for pending in waiting:
            _fail(pending.future, failure)
        if waiting:
            log.info("bot %s did not reconnect within %g s: %d requests failed", bot_id, self.grace,
                     len(waiting))

    def _fail_held(self, bot_id: str, reason: str, kind: type[AgentFailure] = AgentFailure) -> None:
        entry = self.held.pop(bot_id, None)
        if entry is None:
            return
        if entry.timer is not None:
            entry.timer.cancel()
        for pending in entry.requests:
            _fail(pending.future, kind(reason))

    # -- circuit breaker ---------------------------------------------------
    def _missed(self, session: BotSession) -> None:
        breaker = self._breakers.setdefault(session.bot_id, _Breaker())
        breaker.misses += 1
        if breaker.misses >= self.unresponsive_after and not breaker.open:
            breaker.open = True
            reason = (f"bot {session.bot_id} is unresponsive: it missed {breaker.misses} deadlines in a "
                      "row; decision defaulted at once")
            log.warning("%s (session %s)", reason, session.session_id)
            session.fail_outstanding(DecisionTimeout, reason)

    def _answered(self, bot_id: str) -> None:
        breaker = self._breakers.get(bot_id)
        if breaker is not None and (breaker.misses or breaker.open):
            if breaker.open:
                log.info("bot %s answers again", bot_id)
            breaker.misses, breaker.open, breaker.probe = 0, False, None

    def is_unresponsive(self, bot_id: str) -> bool:
        breaker = self._breakers.get(bot_id)
        return breaker is not None and breaker.open

    # -- presence ----------------------------------------------------------
    def is_connected(self, bot_id: str) -> bool:
        """Whether the bot has a stream, or is in its reconnection grace period."""
        return bot_id in self.sessions or bot_id in self.held

    def is_streaming(self, bot_id: str) -> bool:
        """Whether the bot has a stream now (not between streams): new matches start
        only then (a match started in the grace period would wait for a bot that may
        not come back, and its faults would be the bot's)."""
        return bot_id in self.sessions

    def present(self) -> set[str]:
        """Bots with a stream or in their grace period (the Redis bridge's online keys)."""
        return set(self.sessions) | set(self.held)

    def between_streams(self) -> set[str]:
        """Bots in their grace period without a stream (the Redis bridge's between keys)."""
        return set(self.held) - set(self.sessions)

    def close_bot(self, bot_id: str, status: CloseCode, details: str) -> None:
        """Close the bot's session, if any (e.g. after its token was revoked); its
        requests fail at once."""
        session = self.sessions.get(bot_id)
        if session is not None:
            session.close(status, details)
        self._fail_held(bot_id, f"bot {bot_id} disconnected: {details}")

    def close_all(self, details: str = "the arena is shutting down") -> None:
        """Close every session (UNAVAILABLE); their requests fail with
        :class:`~arena.bots.base.RouteFailure` (the platform's fault, not the bots')."""
        for session in list(self.sessions.values()):
            session.close(CloseCode.UNAVAILABLE, details, failure=RouteFailure)
        for bot_id in list(self.held):
            self._fail_held(bot_id, f"bot {bot_id}: {details}", RouteFailure)

    # -- loop side ---------------------------------------------------------
    def submit(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float,
               future: DecisionFuture) -> None:
        """Assign a request id and route the request to the bot's session (or hold
        it while the bot is in its grace period). ``timeout`` counts from the moment
        the request is written to the bot's stream."""
        request.request_id = next(self._request_ids)
        if not future.set_running_or_notify_cancel():
            return
        pending = PendingDecision(request, timeout, future)
        breaker = self._breakers.get(bot_id)
        if breaker is not None and breaker.open:
            probe = breaker.probe
            if probe is not None and not probe.future.done():
                future.set_exception(DecisionTimeout(
                    f"bot {bot_id} is unresponsive (missed {breaker.misses} deadlines in a row); "
                    "decision defaulted at once"))
                return
            pending.probe = True
            breaker.probe = pending
        session = self.sessions.get(bot_id)
        if session is not None:
            session.submit(pending)
        else:
            self._orphan(bot_id, pending)

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
                          timeout: float) -> RoutedFuture:
        """Route a request from another thread; the future gets the Decision or
        :class:`DecisionTimeout` / :class:`AgentFailure`."""
        future = RoutedFuture()
        self.loop.call_soon_threadsafe(self.submit, bot_id, request, timeout, future)
        return future

    def send_threadsafe(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        self.loop.call_soon_threadsafe(self.send, bot_id, message)

    def cancel_threadsafe(self, bot_id: str, request_id: int) -> None:
        self.loop.call_soon_threadsafe(self.cancel, bot_id, request_id)
