"""Routing decisions through Redis: referees in Celery workers, bots on a gateway.

Two halves over one key layout (this module's):

* :class:`RedisRouter` (worker side, here: synchronous redis-py, no gRPC, safe in
  forked Celery workers) implements :class:`~arena.remote.router.DecisionRouter`.
* :class:`~arena.gateway.redis_bridge.RedisBridge` (gateway side, on the gateway's
  loop) pulls each connected bot's request queue, hands requests to the
  :class:`~arena.gateway.session.SessionHub` and pushes the answers back.

Keys
----
``arena:bot:<bot_id>:requests``
    list; the bot's request queue. Worker ``RPUSH``es, the gateway pops up to
    :data:`~arena.gateway.redis_bridge.PULL_BATCH` items per round trip (``BLMPOP``; ``BLPOP`` before Redis 7).
``arena:bot:<bot_id>:online``
    string (the gateway id) with a TTL of ``online_ttl`` seconds (5 s), refreshed
    every second by the gateway that holds the bot's session and deleted when the
    session closes. ``is_connected`` reads it.
``arena:bot:<bot_id>:between``
    string (the gateway id), set while the bot is between streams in its
    reconnection grace period (the online key stays: its requests are held), with
    the online key's TTL; ``is_streaming`` (may a new match start?) reads both.
``arena:bot:<bot_id>:seen``
    string (Unix ms): when a gateway last saw the bot with a stream (refreshed with
    the online key, written once more when the stream ends; kept ``SEEN_TTL``).
    ``offline_seconds`` reads it: a bot forfeits for absence only after that long
    without a stream, never because the route failed.
``arena:reply:<uuid>:<n>``
    list; the reply of one request (a random prefix per worker thread, then a
    counter), expiring ``REPLY_TTL`` seconds after the push.

Messages (bytes)
----------------
request queue item
    ``b"D" + <deadline, unix ms> + b"|" + <reply key> + b"|" + DecisionRequest`` or
    ``b"N" + ArenaMessage`` (one-way: MatchStarted, MatchEnded, DecisionError).
    One queue per bot keeps a match's messages in order.
reply
    ``b"d" + <microseconds the bot had it> + b"|" + Decision`` (``b"D" + Decision``
    from older gateways) | ``b"T" + reason`` (DecisionTimeout) |
    ``b"F" + reason`` (AgentFailure); before one of these, possibly ``b"Q" + <gateway
    id>``: that gateway queued the request (behind the bot's other requests, or while
    the bot reconnects) and its deadline clock has not started (a bare ``b"Q"`` from
    older gateways names none).

One decision costs the worker one round trip and one wake-up: ``CLIENT REPLY SKIP``,
a Lua script (``EVAL``: push the request if the bot is online, else push an ``F``
reply to the reply key at once) and ``BLPOP`` on the reply key, written together;
the script's own reply is skipped, so the only reply is the ``BLPOP``'s (a Redis
without ``CLIENT REPLY`` gets ``EVALSHA`` and both replies, as before). The gateway expires the request at its deadline
(``T``); the worker waits ``slack`` seconds more before it gives up by itself (a
gateway that died). When a session closes the gateway deletes the online key and
answers every request still queued with ``F``; the script's check and the push are
atomic, so no request is left behind. Answers ready in the same loop turn are pushed
in one pipeline. After a ``Q`` the worker waits on for the answer as long as the bot's
online key names the gateway that queued the request (checked every second; a dead
gateway's key expires within ``online_ttl``, and a bot that reconnected to another
gateway, e.g. a restarted one, has that gateway's id there: the queued request died
with its gateway, and the worker gives up at once with
:class:`~arena.bots.base.RouteFailure`, a platform fault), at most
:data:`~arena.remote.router.MAX_QUEUE_WAIT` seconds more.

Deadlines cross processes as wall-clock times (hosts are assumed NTP-synced).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Iterator
from typing import Any

import redis

from arena.bot.v1 import bot_pb2
from arena.match.agent import AgentFailure, DecisionTimeout, RouteFailure
from arena.remote.router import MAX_QUEUE_WAIT, DecisionRouter

__all__ = ["RedisRouter", "requests_key", "online_key", "between_key", "seen_key", "pack_command",
           "REPLY_TTL", "SEEN_TTL", "MAX_CONNECTIONS"]

log = logging.getLogger("arena.remote.redis")

REPLY_TTL = 60
"""Seconds a reply key lives after its push (a worker that gave up never reads it)."""

SEEN_TTL = 7 * 86400
"""Seconds a bot's ``seen`` key outlives its last refresh."""

MAX_CONNECTIONS = 512
"""Default bound of a router's connections. A process holds as many connections
as it has calls in flight at once (remote matches on threads, each waiting on one
decision), so this is a safety cap far above what a worker needs, not a size."""

_PUSH = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[1])
  return 1
end
if #KEYS >= 3 then
  redis.call('RPUSH', KEYS[3], ARGV[2])
  redis.call('EXPIRE', KEYS[3], ARGV[3])
end
return 0
"""


_PUSH_SCRIPT = _PUSH.encode()
_SKIP = b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$4\r\nSKIP\r\n"
"""``CLIENT REPLY SKIP``: no reply to it, nor to the command after it."""

_ROUTERS: weakref.WeakSet[RedisRouter] = weakref.WeakSet()
"""Every live :class:`RedisRouter`: after a fork each takes new reply keys in the child."""


def _routers_after_fork() -> None:
    for router in list(_ROUTERS):
        router._after_fork()


os.register_at_fork(after_in_child=_routers_after_fork)


def requests_key(bot_id: str) -> str:
    """The request queue of ``bot_id``."""
    return f"arena:bot:{bot_id}:requests"


def online_key(bot_id: str) -> str:
    """The presence key of ``bot_id`` (set while a gateway holds its session)."""
    return f"arena:bot:{bot_id}:online"


def between_key(bot_id: str) -> str:
    """Set while ``bot_id`` is between streams in its reconnection grace period."""
    return f"arena:bot:{bot_id}:between"


def seen_key(bot_id: str) -> str:
    """When a gateway last saw ``bot_id`` streaming (Unix ms; kept :data:`SEEN_TTL` s)."""
    return f"arena:bot:{bot_id}:seen"


def pack_command(*args: bytes) -> bytes:
    """One Redis command in RESP (arguments already bytes)."""
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


class RedisRouter(DecisionRouter):
    """Worker-side router: see the module docstring.

    :param url: Redis URL (``redis://host:port/db``).
    :param slack: seconds to wait beyond the decision's deadline for the gateway's
        own reply (``T`` when the bot was silent). No reply at all by then means the
        gateway itself is gone: :class:`~arena.bots.base.RouteFailure` (a platform
        fault: the match is void and replayed), as is a lost connection to Redis.
    :param max_connections: most connections this router opens at once
        (:data:`MAX_CONNECTIONS`); reaching it is a route failure, never a bot's.

    Connections: one set of connections per router, and one router per process
    (:func:`arena.tournaments.runner.default_router`), shared by every thread and
    every task of the process. Each ``decide``/``notify`` takes an idle connection
    from the router's free list (or opens one) and gives it back on every path (an
    answer, a timeout, a failure, an interruption); a connection whose replies may
    be unread (interrupted mid-read, an error) is closed instead, and a new one is
    opened when one is next needed. So the process holds at most as many
    connections as it had calls in flight at once, whatever the number of threads
    that come and go (the remote matches of each work task run on threads of their
    own), and never more than ``max_connections``. Decisions, notifications,
    presence checks and the wait after a ``Q`` all use these connections (one set:
    two would each grow to the peak of their own calls). It is fork-safe: a forked
    child forgets its parent's connections and opens its own. The connections are
    redis-py's (``Connection`` from the URL: TCP, TLS or a Unix socket, AUTH and
    SELECT); the free list replaces redis-py's pool, whose checkout (a lock, a pid
    check, a poll of the socket for unread data, metrics) cost about a tenth of the
    worker's CPU per decision.

    ``decide`` writes its commands (``CLIENT REPLY SKIP`` + script + ``BLPOP``)
    pre-encoded on its connection and reads the one reply: the same round trip as a
    redis-py pipeline without its per-call machinery, and one wake-up of the worker
    per decision instead of two (the script's reply would come first, alone).
    ``notify`` writes its script call the same way and gets no reply at all
    (notifications are best effort). A Redis that refuses ``CLIENT REPLY`` (checked
    once per router) gets ``EVALSHA`` with both replies read, and a notification's
    reply is read before its connection goes back.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, slack: float = 1.0,
                 max_connections: int | None = None) -> None:
        self.url = url
        self.slack = slack
        self.max_connections = max_connections or MAX_CONNECTIONS
        options = redis.ConnectionPool.from_url(url, health_check_interval=0)
        self._connection_class = options.connection_class
        self._connection_kwargs = dict(options.connection_kwargs)
        """How to open a connection (redis-py's, from the URL: TCP, TLS or a Unix
        socket, AUTH and SELECT on connect); the pool object itself opens none."""
        self._sha: str | None = None
        self._local = threading.local()
        self._idle: list[Any] = []
        """The hot path's idle connections (a LIFO list: ``pop``/``append`` are atomic)."""
        self._open: set[Any] = set()
        """Every hot-path connection this process holds, idle or in use (under :attr:`_lock`)."""
        self._lock = threading.Lock()
        self._bot_keys: dict[str, tuple[bytes, bytes]] = {}
        self._skip: bool | None = None
        """Whether this Redis takes ``CLIENT REPLY SKIP`` (None: not asked yet)."""
        _ROUTERS.add(self)

    def _after_fork(self) -> None:
        # a forked child must not reuse its parent's reply key prefixes (its threads'
        # counters would repeat the parent's keys))
        self._local = threading.local()
        # the parent's connections are the parent's: dropped here, never closed (no
        # shutdown of a socket the parent still uses)
        self._idle = []
        self._open = set()
        self._lock = threading.Lock()

    def _script(self, conn: Any) -> bytes:
        """The routing script's SHA, loaded on ``conn`` (clean: nothing unread) if need be."""
        if self._sha is None:
            conn.send_packed_command([pack_command(b"SCRIPT", b"LOAD", _PUSH_SCRIPT)], check_health=False)
            sha = conn.read_response()
            self._sha = sha.decode() if isinstance(sha, bytes) else str(sha)
        return self._sha.encode()

    def _take(self) -> Any:
        """An idle hot-path connection, or a new one (not yet connected: it connects,
        AUTH and SELECT included, on its first write)."""
        try:
            return self._idle.pop()
        except IndexError:
            pass
        with self._lock:
            if len(self._open) >= self.max_connections:
                raise redis.exceptions.MaxConnectionsError(
                    f"{self.max_connections} connections to Redis in use in this process")
            conn = self._connection_class(**self._connection_kwargs)
            self._open.add(conn)
        return conn

    def _drop(self, conn: Any) -> None:
        with contextlib.suppress(Exception):
            conn.disconnect()
        with self._lock:
            self._open.discard(conn)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A hot-path connection for one call, given back on every path; the caller
        sets ``conn.arena_clean = False`` while replies may be unread on it, and such
        a connection is closed (and forgotten) instead of going back.

        A checkout is a list pop (see the class docstring), and a connection only
        goes back clean.
        """
        conn = self._take()
        conn.arena_clean = False
        try:
            if self._skip is None:  # once per router: does this Redis take CLIENT REPLY?
                conn.send_packed_command([pack_command(b"CLIENT", b"REPLY", b"ON")], check_health=False)
                try:
                    conn.read_response()
                    self._skip = True
                except redis.exceptions.ResponseError:
                    self._skip = False
            conn.arena_clean = True
            yield conn
        finally:
            if getattr(conn, "arena_clean", False) and conn in self._open:
                self._idle.append(conn)
            else:
                self._drop(conn)

    def connections(self) -> int:
        """Connections this router holds now (in use or idle)."""
        with self._lock:
            return len(self._open)

    def _call(self, *args: bytes) -> Any:
        """One command on a connection of the router's (once more on a new one if
        the first was stale, e.g. Redis restarted); its reply, undecoded.

        :raises redis.exceptions.RedisError: whatever Redis or the connection said.
        """
        command = pack_command(*args)
        for attempt in (0, 1):
            try:
                with self._connection() as conn:
                    conn.arena_clean = False
                    conn.send_packed_command([command], check_health=False)
                    reply = conn.read_response()
                    conn.arena_clean = True
                    return reply
            except redis.exceptions.ConnectionError as exc:
                if attempt or isinstance(exc, redis.exceptions.MaxConnectionsError):
                    raise
        raise AssertionError("unreachable")

    def _reply_key(self) -> bytes:
        """A reply key never used before: a random prefix per thread and a counter."""
        local = self._local
        prefix = getattr(local, "reply_prefix", None)
        if prefix is None:
            prefix = local.reply_prefix = b"arena:reply:" + uuid.uuid4().hex.encode() + b":"
            local.reply_count = itertools.count()
        return b"%s%d" % (prefix, next(local.reply_count))

    def _keys(self, bot_id: str) -> tuple[bytes, bytes]:
        keys = self._bot_keys.get(bot_id)
        if keys is None:
            keys = self._bot_keys[bot_id] = (online_key(bot_id).encode(), requests_key(bot_id).encode())
        return keys

    def decide(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
               ) -> bot_pb2.Decision:
        return self.decide_timed(bot_id, request, timeout)[0]

    def decide_timed(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float
                     ) -> tuple[bot_pb2.Decision, float]:
        if timeout <= 0:
            raise DecisionTimeout("no time left for this decision")
        start = time.monotonic()
        reply_key = self._reply_key()
        online, queue = self._keys(bot_id)
        deadline_ms = int((time.time() + timeout) * 1000)
        envelope = b"D%d|%s|%s" % (deadline_ms, reply_key, request.SerializeToString())
        failure = b"Fbot " + bot_id.encode() + b" is not connected"
        wait = b"%.3f" % (timeout + self.slack)
        popped: Any = None
        for attempt in (0, 1):
            answered = False  # whether Redis answered this decision's script call
            try:
                with self._connection() as conn:
                    conn.arena_clean = False  # until the one reply is read
                    if self._skip:
                        conn.send_packed_command(
                            [_SKIP + pack_command(b"EVAL", _PUSH_SCRIPT, b"3", online, queue, reply_key,
                                                  envelope, failure, b"%d" % REPLY_TTL)
                             + pack_command(b"BLPOP", reply_key, wait)], check_health=False)
                        # the one reply: the script's is skipped (an error in the script, e.g.
                        # Redis out of memory, goes unseen: no reply comes, as for a dead gateway)
                        popped = conn.read_response()
                        conn.arena_clean = True
                        break
                    sha = self._script(conn)
                    conn.send_packed_command(
                        [pack_command(b"EVALSHA", sha, b"3", online, queue, reply_key, envelope, failure,
                                      b"%d" % REPLY_TTL)
                         + pack_command(b"BLPOP", reply_key, wait)], check_health=False)
                    # (on a ResponseError the script did not run, e.g. NOSCRIPT after a
                    # Redis restart: nothing was pushed, and the connection, with its
                    # BLPOP pending, is closed instead of going back)
                    conn.read_response()
                    answered = True
                    popped = conn.read_response()
                    conn.arena_clean = True
                    break
            except redis.exceptions.ResponseError as exc:
                noscript = isinstance(exc, redis.exceptions.NoScriptError) or "NOSCRIPT" in str(exc)
                if noscript and not attempt:  # Redis restarted: load again
                    self._sha = None
                    continue
                if noscript:
                    raise RouteFailure("cannot load the routing script into Redis") from None
                raise RouteFailure(f"routing through Redis failed: {exc}") from None
            except redis.exceptions.RedisError as exc:
                if not answered and not attempt and isinstance(exc, redis.exceptions.ConnectionError) \
                        and not isinstance(exc, redis.exceptions.MaxConnectionsError):
                    # a stale connection (Redis restarted): the script most likely never
                    # ran; if it did, the bot is asked twice and the first answer counts
                    # (with the script's reply skipped, "answered" is never known: once
                    # more on a new connection, under the same reply key and deadline)
                    continue
                raise RouteFailure(f"Redis unavailable while routing to {bot_id}: {exc}") from None
        if popped is not None and popped[1][:1] == b"Q":
            popped = self._wait_queued(bot_id, reply_key, timeout, popped[1][1:])
        if popped is None:
            # the gateway answers every request it took by its deadline (T when the bot
            # was silent): no answer at all means the gateway itself went away
            raise RouteFailure(f"no reply from the gateway holding {bot_id} within "
                               f"{(timeout + self.slack) * 1000:.0f} ms (gateway gone?)")
        payload: bytes = popped[1]
        kind, body = payload[:1], payload[1:]
        if kind == b"d":
            micros, _, body = body.partition(b"|")
            return bot_pb2.Decision.FromString(body), int(micros) / 1e6
        if kind == b"D":
            decision: bot_pb2.Decision = bot_pb2.Decision.FromString(body)
            return decision, time.monotonic() - start
        if kind == b"T":
            raise DecisionTimeout(body.decode(errors="replace"))
        raise AgentFailure(body.decode(errors="replace"))

    def _wait_queued(self, bot_id: str, reply_key: bytes, timeout: float, holder: bytes = b"") -> Any:
        """After a ``Q`` from gateway ``holder`` (empty: not named): the answer, waiting
        while the bot stays online at that gateway (None: gave up)."""
        online = self._keys(bot_id)[0]
        end = time.monotonic() + MAX_QUEUE_WAIT + timeout + self.slack
        try:
            while time.monotonic() < end:
                popped = self._call(b"BLPOP", reply_key, b"1")
                if popped is not None and popped[1][:1] != b"Q":
                    return popped
                if popped is not None:
                    continue
                current = self._call(b"GET", online)
                if current is None or (holder and current != holder):
                    # gone (a dead gateway, or the bot left), or the bot is held by another
                    # gateway now (the one that queued this request died): its last word
                    # may be in flight
                    popped = self._call(b"BLPOP", reply_key, b"%.3f" % max(self.slack, 0.5))
                    if popped is not None and popped[1][:1] != b"Q":
                        return popped
                    if current is None:
                        raise RouteFailure(f"bot {bot_id} went offline while its request was queued "
                                           "(its gateway stopped announcing it)")
                    raise RouteFailure(f"the gateway that queued a request for {bot_id} is gone "
                                       "(the bot is connected to another gateway now)")
        except redis.exceptions.RedisError as exc:
            raise RouteFailure(f"Redis unavailable while routing to {bot_id}: {exc}") from None
        return None

    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        """Queue a one-way message for the bot (best effort: a Redis error loses it;
        with ``CLIENT REPLY SKIP`` it never waits for Redis)."""
        body = b"N" + message.SerializeToString()
        online, queue = self._keys(bot_id)
        for attempt in (0, 1):
            try:
                with self._connection() as conn:
                    if not self._skip:
                        command = pack_command(b"EVALSHA", self._script(conn), b"2", online, queue, body)
                    conn.arena_clean = False
                    if self._skip:
                        conn.send_packed_command([_SKIP + pack_command(b"EVAL", _PUSH_SCRIPT, b"2", online,
                                                                       queue, body)], check_health=False)
                    else:
                        conn.send_packed_command([command], check_health=False)
                        conn.read_response()
                    conn.arena_clean = True
                    return
            except redis.exceptions.ResponseError as exc:  # e.g. NOSCRIPT: load again, once
                if isinstance(exc, redis.exceptions.NoScriptError) or "NOSCRIPT" in str(exc):
                    self._sha = None
                    if not attempt:
                        continue
                return
            except redis.exceptions.ConnectionError:
                if attempt:  # stale (Redis restarted): once more on a new one
                    return
            except redis.exceptions.RedisError:
                return

    def is_connected(self, bot_id: str) -> bool:
        """Whether a gateway announces ``bot_id`` (its online key is set).

        :raises RouteFailure: when Redis cannot be asked: the route failed, which says
            nothing of the bot (never taken for its absence).
        """
        try:
            return bool(self._call(b"EXISTS", online_key(bot_id).encode()))
        except redis.exceptions.RedisError as exc:
            raise RouteFailure(f"Redis unavailable while checking whether {bot_id} is online: "
                               f"{exc}") from None

    def is_streaming(self, bot_id: str) -> bool:
        """Online and not between streams (one round trip).

        :raises RouteFailure: when Redis cannot be asked (see :meth:`is_connected`).
        """
        try:
            online, between = self._call(b"MGET", online_key(bot_id).encode(), between_key(bot_id).encode())
        except redis.exceptions.RedisError as exc:
            raise RouteFailure(f"Redis unavailable while checking whether {bot_id} is online: "
                               f"{exc}") from None
        return online is not None and between is None

    def offline_seconds(self, bot_id: str) -> float | None:
        """Seconds since a gateway last saw ``bot_id`` with a stream (0 while it has
        one; None: no gateway has seen it since Redis started).

        :raises RouteFailure: when Redis cannot be asked.
        """
        try:
            online, between, seen = self._call(b"MGET", online_key(bot_id).encode(),
                                               between_key(bot_id).encode(), seen_key(bot_id).encode())
        except redis.exceptions.RedisError as exc:
            raise RouteFailure(f"Redis unavailable while checking whether {bot_id} is online: "
                               f"{exc}") from None
        if online is not None and between is None:
            return 0.0
        if seen is None:
            return None
        try:
            return max(0.0, time.time() - int(seen) / 1000)
        except ValueError:
            return None

    def wait_connected(self, bot_id: str, timeout: float = 10.0) -> bool:
        """Poll until a gateway announces ``bot_id`` (for tests and scripts)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with contextlib.suppress(RouteFailure):
                if self.is_connected(bot_id):
                    return True
            time.sleep(0.02)
        return False

    def close(self) -> None:
        """Close every connection of the router's (idle and in use)."""
        with self._lock:
            conns, self._open, self._idle = list(self._open), set(), []
        for conn in conns:
            with contextlib.suppress(Exception):
                conn.disconnect()
