"""The gateway half of the Redis route: :class:`RedisBridge` serves each connected
bot's request queue (key layout and messages: :mod:`arena.remote.redis_router`,
whose :class:`~arena.remote.redis_router.RedisRouter` is the worker half).

It runs on the gateway's event loop (``redis.asyncio`` for presence and clean-up,
and :class:`RespConnection`, an asyncio protocol with the hiredis parser, on the
hot path), pulls up to :data:`PULL_BATCH` queued items per round trip, hands
requests to the :class:`~arena.gateway.session.SessionHub` and pushes the answers
back on their reply keys (on a connection with ``CLIENT REPLY OFF``: Redis sends
nothing back there).

A bot in its reconnection grace period (:mod:`arena.gateway.session`) keeps its
online key and its pull: its requests wait at the hub for its next stream; its
between key is set meanwhile, so that no worker starts a new match against it. A
request that waits at the gateway (queued behind the bot's other requests, or held
during the grace period) gets a ``Q`` with this gateway's id on its reply key, so
that its worker waits for it beyond its own deadline bound, while the bot stays
online at this gateway (a restarted gateway has another id: a worker whose request
died with the old one gives up instead of waiting for it). Answers carry the
bot's time (``d<microseconds>|<Decision>``: from the request's write to the bot's
stream to the answer), which is the part of the deadline the bot used.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping
from typing import Any

import hiredis
import redis.asyncio as aioredis

from arena.bot.v1 import bot_pb2
from arena.match.agent import DecisionTimeout
from arena.remote.redis_router import (REPLY_TTL, SEEN_TTL, between_key, online_key, pack_command, requests_key,
                                       seen_key)

__all__ = ["RedisBridge", "RespConnection", "open_resp", "PULL_BATCH"]

log = logging.getLogger("arena.gateway.redis")

PULL_BATCH = 64
"""Most queued items the gateway takes from a bot's queue in one ``BLMPOP``."""
STOP_STEP_SECONDS = 1.0
"""Bound on each step of :meth:`RedisBridge.stop`."""

_pack = pack_command
_REPLY_OFF = pack_command(b"CLIENT", b"REPLY", b"OFF")

class RespConnection(asyncio.Protocol):
    """A Redis connection for the bridge's hot path: pre-encoded commands out,
    replies parsed by hiredis and handed to ``on_reply`` as they arrive.

    The pull loop and the replies need nothing of a client but "write these bytes"
    and "here is a reply": redis-py's asyncio connection adds a stream reader, a
    task wake-up and its parser's coroutines to every reply, which cost the gateway
    about as much CPU per decision as the bot's gRPC stream. :func:`open_resp`
    connects it (TCP, TLS or a Unix socket, with AUTH and SELECT from the URL,
    parsed by redis-py).

    Replies are hiredis values: ``bytes``, ``int``, lists, ``None``, or a
    ``hiredis.ReplyError`` instance for an error reply.
    """

    def __init__(self, on_reply: Any, setup: int) -> None:
        self._parser = hiredis.Reader()
        self._on_reply = on_reply
        self._setup = setup
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        """Done when the AUTH/SELECT replies are in (an exception if one failed)."""
        self.closed: asyncio.Future[BaseException | None] = loop.create_future()
        """Done when the connection is lost (its result: the error, if any)."""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # a stream connection's is a Transport
        if not self._setup and not self.ready.done():
            self.ready.set_result(None)

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        parser.feed(data)
        while True:
            reply = parser.gets()
            if reply is False:
                return
            if self._setup:
                self._setup -= 1
                if isinstance(reply, hiredis.ReplyError):
                    if not self.ready.done():
                        self.ready.set_exception(ConnectionError(f"Redis refused the connection: {reply}"))
                    self.close()
                    return
                if not self._setup and not self.ready.done():
                    self.ready.set_result(None)
                continue
            try:
                self._on_reply(reply)
            except Exception:  # noqa: BLE001 - a bug here must not close the connection
                log.exception("redis bridge: handling a reply failed")

    def connection_lost(self, exc: BaseException | None) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(f"connection to Redis lost: {exc}"))
        if not self.closed.done():
            self.closed.set_result(exc)

    def write(self, data: bytes) -> bool:
        """Write ``data`` unless the connection is closing; returns whether written."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return False
        transport.write(data)
        return True

    def close(self) -> None:
        """Close after the buffered writes went out."""
        if self.transport is not None:
            self.transport.close()


async def open_resp(url: str, on_reply: Any, *, timeout: float = 5.0) -> RespConnection:
    """A :class:`RespConnection` to the Redis at ``url``, authenticated and on its db.

    :raises ConnectionError: if Redis cannot be reached or refuses AUTH/SELECT.
    """
    options = aioredis.connection.parse_url(url)
    setup = []
    if options.get("password") is not None:
        user = options.get("username")
        setup.append(_pack(b"AUTH", *( [str(user).encode()] if user else []),
                           str(options["password"]).encode()))
    if int(options.get("db") or 0):
        setup.append(_pack(b"SELECT", b"%d" % int(options["db"])))
    loop = asyncio.get_running_loop()

    def factory() -> RespConnection:
        return RespConnection(on_reply, len(setup))

    try:
        async with asyncio.timeout(timeout):
            if options.get("path"):
                _, conn = await loop.create_unix_connection(factory, str(options["path"]))
            else:
                tls = _tls_context(options) if options.get("connection_class") is aioredis.SSLConnection \
                    else None
                _, conn = await loop.create_connection(
                    factory, str(options.get("host", "127.0.0.1")), int(options.get("port", 6379)), ssl=tls)
            conn.write(b"".join(setup))
            await conn.ready
    except (OSError, asyncio.TimeoutError) as exc:
        raise ConnectionError(f"cannot connect to Redis at {url}: {exc}") from None
    return conn


def _tls_context(options: Mapping[str, Any]) -> Any:
    """The TLS context of a ``rediss://`` URL's options (``ssl_cert_reqs``,
    ``ssl_ca_certs``, ``ssl_certfile``, ``ssl_keyfile``, ``ssl_check_hostname``), as
    redis-py reads them."""
    import ssl

    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"))
    if options.get("ssl_certfile"):
        context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"))
    reqs = str(options.get("ssl_cert_reqs", "required")).lower()
    if options.get("ssl_check_hostname") is False or reqs in ("none", "optional"):
        context.check_hostname = False
    if reqs == "none":
        context.verify_mode = ssl.CERT_NONE
    elif reqs == "optional":
        context.verify_mode = ssl.CERT_OPTIONAL
    return context


SHARED_CONNECTIONS = 8
"""Connections of the bridge's shared pool (presence keys and clean-up)."""

SHARED_WAIT_SECONDS = 30.0
"""Most seconds a presence or clean-up step waits for a free pooled connection."""


class RedisBridge:
    """Gateway side: serves each connected bot's Redis queue through the hub.

    Runs on the hub's event loop (``await bridge.start()``, ``await bridge.stop()``).
    It watches ``hub.sessions`` every ``poll_interval`` seconds: a new session
    gets its online key and a pull task; a closed one loses both and its queued
    requests are answered ``F``.

    The hot path runs in protocol callbacks (:class:`RespConnection`): each
    connected bot has a pull connection on which a ``BLMPOP`` reply is handed to
    the hub and the next ``BLMPOP`` written in the same callback, and one reply
    connection carries every answer (``RPUSH`` + ``EXPIRE``, written the moment the
    bot's decision is handled). Presence keys and clean-up use redis-py.
    """

    def __init__(self, hub: Any, url: str, *, gateway_id: str | None = None,
                 poll_interval: float = 0.05, online_ttl: float = 5.0) -> None:
        self.hub = hub
        self.url = url
        self.gateway_id = gateway_id or f"gw-{uuid.uuid4().hex[:8]}"
        self.poll_interval = poll_interval
        self.online_ttl = online_ttl
        self._redis: aioredis.Redis | None = None
        self._pullers: dict[str, asyncio.Task[None]] = {}
        self._between: set[str] = set()
        """Bots whose between key this gateway has set (in their grace period)."""
        self._supervisor: asyncio.Task[None] | None = None
        self._replier: asyncio.Task[None] | None = None
        self._reply_conn: RespConnection | None = None
        self._outgoing: list[bytes] = []
        """Replies (packed commands) waiting for the reply connection."""
        self._ttl = b"%d" % REPLY_TTL
        self._blmpop = True

    async def start(self) -> RedisBridge:
        # presence and clean-up share a bounded pool: a burst (every bot of a gateway
        # going offline at once) waits for a free connection instead of opening one
        # per bot or failing past redis-py's limit (pull and reply connections are
        # the bridge's own, one per connected bot and one in all)
        self._redis = aioredis.Redis.from_pool(aioredis.BlockingConnectionPool.from_url(
            self.url, max_connections=SHARED_CONNECTIONS, timeout=SHARED_WAIT_SECONDS,
            health_check_interval=0))
        # a bot whose grace period ends loses its online key before its held requests
        # fail (else a worker could start its next match in between, against the absent bot)
        self.hub.before_offline.append(self._offline)
        loop = asyncio.get_running_loop()
        self._replier = loop.create_task(self._keep_reply_connection())
        self._supervisor = loop.create_task(self._supervise())
        return self

    async def stop(self) -> None:
        """Stop pulling; connected bots go offline (their queued requests get ``F``).

        Bounded: each step gets at most :data:`STOP_STEP_SECONDS` (a Redis that
        does not answer must not hold the gateway's shutdown).
        """
        with contextlib.suppress(ValueError):
            self.hub.before_offline.remove(self._offline)
        if self._supervisor is not None:
            self._supervisor.cancel()
            await _settle(self._supervisor)
        for bot_id in list(self._pullers):
            try:
                await asyncio.wait_for(self._offline(bot_id), STOP_STEP_SECONDS)
            except asyncio.TimeoutError:
                log.warning("redis bridge: %s not taken offline in time", bot_id)
        deadline = time.monotonic() + STOP_STEP_SECONDS
        while self._outgoing and time.monotonic() < deadline:  # reconnecting: let it flush
            await asyncio.sleep(0.01)
        if self._replier is not None:
            self._replier.cancel()
            await _settle(self._replier)
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._redis.aclose(), STOP_STEP_SECONDS)

    async def _supervise(self) -> None:
        assert self._redis is not None
        last_refresh = 0.0
        while True:
            try:
                connected = self.hub.present()
                for bot_id in connected - set(self._pullers):
                    await self._redis.set(online_key(bot_id), self.gateway_id, ex=int(self.online_ttl))
                    await self._redis.set(seen_key(bot_id), _now_ms(), ex=SEEN_TTL)
                    self._pullers[bot_id] = asyncio.get_running_loop().create_task(self._pull(bot_id))
                for bot_id in set(self._pullers) - connected:
                    await self._offline(bot_id)
                between = self.hub.between_streams() & set(self._pullers)
                for bot_id in between - self._between:  # no new match starts against it
                    await self._redis.set(between_key(bot_id), self.gateway_id, ex=int(self.online_ttl))
                for bot_id in self._between - between:  # streaming again (or gone)
                    await self._redis.delete(between_key(bot_id))
                self._between = between
                now = time.monotonic()
                if now - last_refresh >= 1.0 and self._pullers:
                    pipe = self._redis.pipeline(transaction=False)
                    seen = _now_ms()
                    for bot_id in self._pullers:
                        pipe.set(online_key(bot_id), self.gateway_id, ex=int(self.online_ttl))
                        if bot_id in self._between:
                            pipe.set(between_key(bot_id), self.gateway_id, ex=int(self.online_ttl))
                        else:  # streaming: seen now (a bot between streams was last seen before)
                            pipe.set(seen_key(bot_id), seen, ex=SEEN_TTL)
                    await pipe.execute()
                    last_refresh = now
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis down: retry
                log.warning("redis bridge: %s", exc)
                await asyncio.sleep(0.5)
            await asyncio.sleep(self.poll_interval)

    async def _offline(self, bot_id: str) -> None:
        task = self._pullers.pop(bot_id, None)
        if task is not None:
            task.cancel()
            await _settle(task)
        if self._redis is None:
            return
        streaming = bot_id not in self._between
        self._between.discard(bot_id)
        try:
            if streaming:  # its stream ended just now (a bot between streams: when it broke)
                await self._redis.set(seen_key(bot_id), _now_ms(), ex=SEEN_TTL)
            await self._redis.delete(online_key(bot_id), between_key(bot_id))
            while True:
                item = await self._redis.lpop(requests_key(bot_id))
                if item is None:
                    break
                if isinstance(item, bytes) and item[:1] == b"D":
                    _, reply_key, _ = _parse_request(item)
                    self._reply(reply_key, f"Fbot {bot_id} disconnected".encode())
        except Exception as exc:  # noqa: BLE001
            log.warning("redis bridge: cleaning up %s: %s", bot_id, exc)

    async def _pull(self, bot_id: str) -> None:
        """Keep a pull connection for ``bot_id`` (reconnecting after errors)."""
        key = requests_key(bot_id).encode()
        blmpop = _pack(b"BLMPOP", b"1", b"1", key, b"LEFT", b"COUNT", b"%d" % PULL_BATCH)
        blpop = _pack(b"BLPOP", key, b"1")
        conn: RespConnection | None = None
        loop = asyncio.get_running_loop()

        def pop_next() -> None:
            if conn is not None:
                conn.write(blmpop if self._blmpop else blpop)

        def on_reply(reply: Any) -> None:
            if isinstance(reply, hiredis.ReplyError):
                if self._blmpop and "unknown command" in str(reply).lower():
                    self._blmpop = False  # Redis < 7
                    pop_next()
                else:
                    log.warning("redis bridge: pulling %s: %s", bot_id, reply)
                    loop.call_later(0.5, pop_next)
                return
            try:
                if reply:
                    items = reply[1] if self._blmpop else [reply[1]]
                    for item in items:
                        if isinstance(item, bytes):
                            self._handle(bot_id, item)
            finally:
                pop_next()  # whatever happened to these items, keep pulling

        try:
            while True:
                try:
                    conn = await open_resp(self.url, on_reply)
                    pop_next()
                    lost = await conn.closed
                    log.warning("redis bridge: pull connection of %s lost: %s", bot_id, lost)
                except ConnectionError as exc:
                    log.warning("redis bridge: pulling %s: %s", bot_id, exc)
                conn = None
                await asyncio.sleep(0.5)
        finally:
            # cancelled (the bot went offline, or stop()); a pop in flight is dropped
            if conn is not None:
                conn.close()

    def _handle(self, bot_id: str, item: bytes) -> None:
        kind = item[:1]
        if kind == b"N":
            try:
                self.hub.send(bot_id, bot_pb2.ArenaMessage.FromString(item[1:]))
            except Exception as exc:  # noqa: BLE001 - a bad message is dropped
                log.warning("redis bridge: bad message for %s: %s", bot_id, exc)
            return
        if kind != b"D":
            return
        try:
            deadline_ms, reply_key, body = _parse_request(item)
            request = bot_pb2.DecisionRequest.FromString(body)
        except Exception as exc:  # noqa: BLE001
            log.warning("redis bridge: bad request for %s: %s", bot_id, exc)
            return
        remaining = deadline_ms / 1000.0 - time.time()
        if remaining <= 0:
            self._reply(reply_key, b"Tthe deadline passed before the gateway got the request")
            return
        self.hub.submit(bot_id, request, remaining, _Answer(self, reply_key))

    def _reply(self, reply_key: bytes, payload: bytes) -> None:
        """Send a reply to the worker waiting on ``reply_key`` (loop thread only):
        written at once when the reply connection is up, else queued for it."""
        packed = _pack(b"RPUSH", reply_key, payload) + _pack(b"EXPIRE", reply_key, self._ttl)
        conn = self._reply_conn
        if conn is None or self._outgoing or not conn.write(packed):
            self._outgoing.append(packed)

    async def _keep_reply_connection(self) -> None:
        """Keep the reply connection up; write what was queued while it was down.

        Replies written on a connection that is then lost are lost: their workers
        time out by themselves.
        """
        def on_reply(reply: Any) -> None:  # only when Redis refuses CLIENT REPLY OFF
            if isinstance(reply, hiredis.ReplyError):
                log.warning("redis bridge: a reply was refused: %s", reply)

        conn: RespConnection | None = None
        try:
            while True:
                try:
                    conn = await open_resp(self.url, on_reply)
                    # nothing to read back: Redis sends no replies on this connection (fewer
                    # wake-ups of the gateway and writes by Redis; a refused reply is then
                    # not logged, and its worker times out by itself as for a lost one)
                    conn.write(_REPLY_OFF)
                    while self._outgoing:  # in order, before any new reply is written
                        batch, self._outgoing = self._outgoing, []
                        conn.write(b"".join(batch))
                    self._reply_conn = conn
                    lost = await conn.closed
                    log.warning("redis bridge: reply connection lost: %s", lost)
                except ConnectionError as exc:
                    log.warning("redis bridge: reply connection: %s", exc)
                self._reply_conn, conn = None, None
                await asyncio.sleep(0.2)
        finally:
            self._reply_conn = None
            if conn is not None:
                conn.close()


class _Answer:
    """The outcome of one routed request (a :class:`~arena.gateway.session.DecisionFuture`):
    set once, on the loop thread, it becomes the reply on the request's key."""

    __slots__ = ("_bridge", "_key", "_done", "_sent", "_queued")

    def __init__(self, bridge: RedisBridge, key: bytes) -> None:
        self._bridge, self._key, self._done = bridge, key, False
        self._sent = 0.0
        self._queued = False

    def set_running_or_notify_cancel(self) -> bool:
        return True

    def done(self) -> bool:
        return self._done

    def on_queued(self) -> None:
        if not self._done and not self._queued:  # one Q is enough: the worker then waits on presence
            self._queued = True
            self._bridge._reply(self._key, b"Q" + self._bridge.gateway_id.encode())

    def on_sent(self) -> None:
        self._sent = time.monotonic()

    def set_result(self, result: bot_pb2.Decision) -> None:
        if not self._done:
            self._done = True
            micros = int((time.monotonic() - self._sent) * 1e6) if self._sent else 0
            self._bridge._reply(self._key, b"d%d|%s" % (micros, result.SerializeToString()))

    def set_exception(self, exception: BaseException) -> None:
        if not self._done:
            self._done = True
            kind = b"T" if isinstance(exception, DecisionTimeout) else b"F"
            self._bridge._reply(self._key, kind + (str(exception) or type(exception).__name__).encode())


def _now_ms() -> int:
    """The wall clock in Unix milliseconds (the ``seen`` keys' unit)."""
    return int(time.time() * 1000)


async def _settle(task: asyncio.Task[Any]) -> None:
    """Wait (boundedly) for a cancelled task to finish."""
    with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError, Exception):
        await asyncio.wait_for(asyncio.shield(task), STOP_STEP_SECONDS)


def _parse_request(item: bytes) -> tuple[int, bytes, bytes]:
    deadline, reply_key, body = item[1:].split(b"|", 2)
    return int(deadline), reply_key, body
