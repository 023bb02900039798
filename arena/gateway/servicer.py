"""The ``arena.bot.v1.BotService`` servicer: protocol work only (rule 11).

It authenticates the stream's Hello, opens a :class:`~arena.gateway.session.BotSession`
in the hub, writes the session's outbox to the stream, hands every message read
to the session, and pings. Routing and deadlines live in the session; game logic
lives nowhere in the gateway.

Keepalive: a Ping every ``ping_interval``; a bot that sends nothing at all for
:data:`DEAD_AFTER_PINGS` (3) intervals is closed (UNAVAILABLE) at that moment, not
at the next ping after it. A stream that ends without the gateway closing it keeps
its requests for the hub's reconnection grace period
(:mod:`arena.gateway.session`).

Logs (logger ``arena.gateway``, INFO): every accepted stream ("bot B connected from
PEER ..."), every end ("bot B session S from PEER closed: why"), and at WARNING
every refused Hello (bad token, invalid Hello) with the peer and, when known, the
bot id. Tokens are never logged.

Undecodable bytes: :class:`DecodeGuard` (a server interceptor on every service,
health and reflection included) answers INVALID_ARGUMENT with a plain reason
instead of gRPC's UNKNOWN with a Python exception text.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena import __version__
from arena.bot.v1 import bot_pb2, bot_pb2_grpc
from arena.store.registry import BotRegistry
from arena.gateway.session import BotSession, CloseCode, SessionHub, bounded

__all__ = ["BotServicer", "DecodeGuard", "UNDECODABLE", "GRPC_STATUS"]

GRPC_STATUS: dict[CloseCode, grpc.StatusCode] = {
    CloseCode.MALFORMED: grpc.StatusCode.INVALID_ARGUMENT,
    CloseCode.OVERLOADED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    CloseCode.REPLACED: grpc.StatusCode.ABORTED,
    CloseCode.UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    CloseCode.REVOKED: grpc.StatusCode.UNAUTHENTICATED,
}
"""The gRPC status a stream ends with, per :class:`~arena.gateway.session.CloseCode`
(the session speaks no transport's terms; this adapter does)."""

log = logging.getLogger("arena.gateway")

if TYPE_CHECKING:
    # Connect's context. Its read() returns grpc.aio.EOF once the bot closes its
    # stream, which the stubs leave out (they say BotMessage), so the request
    # type stays open.
    _Context: TypeAlias = grpc.aio.ServicerContext[Any, bot_pb2.ArenaMessage]

DEAD_AFTER_PINGS = 3
"""A bot silent for this many ping intervals is considered dead."""


class _Undecodable:
    """What a guarded deserializer returns for bytes it cannot decode."""

    __slots__ = ("message_type",)

    def __init__(self, message_type: str) -> None:
        self.message_type = message_type

    def reason(self) -> str:
        return f"the message could not be decoded as {self.message_type}"


UNDECODABLE = _Undecodable
"""The type of a message that could not be decoded (see :class:`DecodeGuard`)."""


def _guard(deserializer: Callable[[bytes], Any], method: str) -> Callable[[bytes], Any]:
    qualname = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    message_type = getattr(qualname, "full_name", None) or f"the request of {method}"

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # noqa: BLE001 - DecodeError and whatever a parser raises
            return _Undecodable(message_type)

    return decode


class DecodeGuard(grpc.aio.ServerInterceptor):
    """Undecodable request bytes get INVALID_ARGUMENT ("the message could not be
    decoded as arena.bot.v1.BotMessage") on every RPC. Streaming handlers that read
    with ``context.read()`` (``BotService.Connect``) see an :data:`UNDECODABLE`
    value and close the stream themselves."""

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]],
                                handler_call_details: Any) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        decode = _guard(handler.request_deserializer, handler_call_details.method)
        serialize = handler.response_serializer
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                _wrap(handler.unary_unary, _check_one), request_deserializer=decode,
                response_serializer=serialize)
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                _wrap(handler.unary_stream, _check_one), request_deserializer=decode,
                response_serializer=serialize)
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                _wrap(handler.stream_unary, _check_each), request_deserializer=decode,
                response_serializer=serialize)
        return grpc.stream_stream_rpc_method_handler(
            _wrap(handler.stream_stream, _check_each), request_deserializer=decode,
            response_serializer=serialize)


async def _check_one(request: Any, context: Any) -> Any:
    if isinstance(request, _Undecodable):
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.reason())
    return request


async def _check_each(requests: Any, context: Any) -> Any:
    async def checked() -> AsyncIterator[Any]:
        async for request in requests:
            if isinstance(request, _Undecodable):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.reason())
            yield request

    return checked()


def _wrap(behavior: Callable[..., Any], check: Callable[[Any, Any], Awaitable[Any]]) -> Callable[..., Any]:
    """``behavior`` with its request (or request iterator) checked first; an async
    generator stays one (gRPC tells the response-iterator API from the write API by it)."""
    if inspect.isasyncgenfunction(behavior):
        async def generator(request: Any, context: Any) -> AsyncIterator[Any]:
            async for item in behavior(await check(request, context), context):
                yield item

        return generator

    async def coroutine(request: Any, context: Any) -> Any:
        return await behavior(await check(request, context), context)

    return coroutine


def _hello_problem(hello: bot_pb2.Hello) -> str:
    """What is wrong with a Hello's fields ("" if nothing)."""
    if len(hello.bot_name) > 100 or len(hello.bot_version) > 100:
        return "Hello.bot_name and Hello.bot_version must be at most 100 characters"
    if hello.max_concurrent_decisions > 1024:
        return "Hello.max_concurrent_decisions must be at most 1024"
    if len(hello.games) > 100:
        return "Hello.games lists more than 100 games"
    return ""


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """Serves ``BotService.Connect``."""

    def __init__(self, hub: SessionHub, registry: BotRegistry, *, hello_timeout: float = 5.0) -> None:
        self.hub = hub
        self.registry = registry
        self.hello_timeout = hello_timeout

    async def Connect(self, request_iterator: object, context: _Context) -> None:  # noqa: N802
        peer = _peer(context)
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout)
        except asyncio.TimeoutError:
            log.warning("stream from %s refused: no Hello within %g s", peer, self.hello_timeout)
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"no Hello within {self.hello_timeout:g} s")
            return
        if first is grpc.aio.EOF:
            return
        if isinstance(first, _Undecodable) or first.WhichOneof("kind") != "hello":
            log.warning("stream from %s refused: the first message is not a Hello", peer)
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message of a stream must be a Hello")
            return
        hello = first.hello
        problem = _hello_problem(hello)
        if problem:
            log.warning("stream from %s refused: %s", peer, problem)
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            return
        # off the loop: the registry may be a database across the network (the store),
        # and a slow query must not stall the decisions of every connected bot
        entry = await asyncio.to_thread(self.registry.authenticate, hello.token)
        if entry is None:
            log.warning("authentication failed for a stream from %s (bot name %r): invalid or revoked "
                        "token", peer, bounded(hello.bot_name, 100))
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or revoked bot token")
            return
        session = self.hub.open(entry.bot_id, hello, peer)
        log.info("bot %s connected from %s (session %s, %s %s, %d concurrent)", entry.bot_id, peer,
                 session.session_id, bounded(hello.bot_name, 100), bounded(hello.bot_version, 100),
                 session.max_concurrent)
        await context.write(bot_pb2.ArenaMessage(welcome=bot_pb2.Welcome(
            session_id=session.session_id, bot_id=entry.bot_id,
            max_concurrent_decisions=session.max_concurrent,
            ping_interval_ms=int(self.hub.ping_interval * 1000), server_version=__version__)))
        reader = asyncio.create_task(self._read(context, session))
        pinger = asyncio.create_task(self._keepalive(session))
        try:
            outbox = session.outbox
            while True:
                message = await outbox.get()
                if message is None:
                    break
                await context.write(message)
        except (asyncio.CancelledError, Exception) as exc:  # stream broken or call cancelled
            session.close(None, f"stream ended: {type(exc).__name__}", hold=True)
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            reader.cancel()
            pinger.cancel()
            session.close(None, "stream ended", hold=True)
            log.info("bot %s session %s from %s closed: %s", session.bot_id, session.session_id, peer,
                     session.close_details)
        if session.close_status is not None:
            await context.abort(GRPC_STATUS[session.close_status], session.close_details)

    @staticmethod
    async def _read(context: _Context, session: BotSession) -> None:
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    session.close(None, "the bot closed its stream", hold=True)
                    return
                if isinstance(message, _Undecodable):
                    session.close(CloseCode.MALFORMED, message.reason())
                    return
                session.on_message(message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a broken connection
            session.close(None, f"stream ended: {type(exc).__name__}", hold=True)

    async def _keepalive(self, session: BotSession) -> None:
        interval = self.hub.ping_interval
        loop = self.hub.loop
        nonce = 0
        next_ping = loop.time() + interval
        while not session.closed:
            dead_at = session.last_seen + DEAD_AFTER_PINGS * interval
            await asyncio.sleep(max(0.0, min(next_ping, dead_at) - loop.time()))
            if session.closed:
                return
            now = loop.time()
            silent = now - session.last_seen
            if silent >= DEAD_AFTER_PINGS * interval:
                session.close(CloseCode.UNAVAILABLE,
                              f"no message for {silent:.1f} s ({DEAD_AFTER_PINGS} ping intervals); "
                              "the bot is considered dead")
                return
            if now >= next_ping:
                nonce += 1
                session.send(bot_pb2.ArenaMessage(ping=bot_pb2.Ping(nonce=nonce)))
                next_ping = now + interval


def _peer(context: Any) -> str:
    try:
        return str(context.peer())
    except Exception:  # noqa: BLE001 - logging only
        return "?"
