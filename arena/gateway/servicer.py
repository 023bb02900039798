"""The ``arena.bot.v1.BotService`` servicer: protocol work only (rule 11).

It authenticates the stream's Hello, opens a :class:`~arena.gateway.session.BotSession`
in the hub, writes the session's outbox to the stream, hands every message read
to the session, and pings. Routing and deadlines live in the session; game logic
lives nowhere in the gateway.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

from arena import __version__
from arena.bot.v1 import bot_pb2, bot_pb2_grpc
from arena.store.registry import BotRegistry
from arena.gateway.session import BotSession, SessionHub

__all__ = ["BotServicer"]

log = logging.getLogger("arena.gateway")

if TYPE_CHECKING:
    # Connect's context. Its read() returns grpc.aio.EOF once the bot closes its
    # stream, which the stubs leave out (they say BotMessage), so the request
    # type stays open.
    _Context: TypeAlias = grpc.aio.ServicerContext[Any, bot_pb2.ArenaMessage]

DEAD_AFTER_PINGS = 3
"""A bot silent for this many ping intervals is considered dead."""


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
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout)
        except asyncio.TimeoutError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"no Hello within {self.hello_timeout:g} s")
            return
        if first is grpc.aio.EOF:
            return
        if first.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                "the first message of a stream must be a Hello")
            return
        hello = first.hello
        problem = _hello_problem(hello)
        if problem:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            return
        # off the loop: the registry may be a database across the network (the store),
        # and a slow query must not stall the decisions of every connected bot
        entry = await asyncio.to_thread(self.registry.authenticate, hello.token)
        if entry is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or revoked bot token")
            return
        session = self.hub.open(entry.bot_id, hello)
        log.info("bot %s connected (session %s, %s %s, %d concurrent)", entry.bot_id,
                 session.session_id, hello.bot_name, hello.bot_version, session.max_concurrent)
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
            session.close(None, f"stream ended: {type(exc).__name__}")
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            reader.cancel()
            pinger.cancel()
            session.close(None, "stream ended")
            log.info("bot %s session %s closed: %s", session.bot_id, session.session_id,
                     session.close_details)
        if session.close_status is not None:
            await context.abort(session.close_status, session.close_details)

    @staticmethod
    async def _read(context: _Context, session: BotSession) -> None:
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    session.close(None, "the bot closed its stream")
                    return
                session.on_message(message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - unreadable bytes (or a broken connection)
            session.close(grpc.StatusCode.INVALID_ARGUMENT,
                          f"unreadable message from the bot: {type(exc).__name__}: {exc}")

    async def _keepalive(self, session: BotSession) -> None:
        interval = self.hub.ping_interval
        loop = self.hub.loop
        nonce = 0
        while not session.closed:
            await asyncio.sleep(interval)
            silent = loop.time() - session.last_seen
            if silent > DEAD_AFTER_PINGS * interval:
                session.close(grpc.StatusCode.UNAVAILABLE,
                              f"no message for {silent:.1f} s; the bot is considered dead")
                return
            nonce += 1
            session.send(bot_pb2.ArenaMessage(ping=bot_pb2.Ping(nonce=nonce)))
