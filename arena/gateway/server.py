"""Running the gateway: :func:`serve` (foreground, ``arena serve``) and
:class:`Gateway` (embedded: the server on its own event-loop thread, with a
:class:`~arena.remote.router.LocalRouter` for referees in the same process).

Both take the store (:class:`arena.store.Store`): bots are authenticated against
its ``bots`` table (:class:`arena.store.StoreBotRegistry`, the same table
``arena bots register`` writes), and AdminService keeps tournaments there. A
:class:`Gateway` without a store keeps its bots in memory (tests, scripts) and
answers the tournament calls FAILED_PRECONDITION.

Never fork a process that has started a gateway and let the child use gRPC
(DESIGN.md, "gRPC and fork"): referees in other processes reach bots through a
router (Redis), not through this server's objects.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

import grpc

from arena.admin.v1 import admin_pb2_grpc
from arena.bot.v1 import bot_pb2_grpc
from arena.gateway.admin import AdminServicer
from arena.gateway.loop import event_loop_factory
from arena.store.registry import BotRegistry, InMemoryRegistry
from arena.remote.router import LocalRouter
from arena.gateway.servicer import BotServicer, DecodeGuard
from arena.gateway.session import RECONNECT_GRACE_SECONDS, UNRESPONSIVE_AFTER, SessionHub

__all__ = ["GatewayConfig", "Gateway", "StartedServer", "serve", "serve_async", "start_server",
           "open_gateway_store", "DEFAULT_ADDRESS", "DEFAULT_STORE_URL"]

log = logging.getLogger("arena.gateway")

DEFAULT_ADDRESS = "127.0.0.1:50051"
"""Plaintext on loopback by default."""
DEFAULT_STORE_URL = "sqlite:///arena.db"
"""The store of ``arena serve`` without ``--store`` (the CLI's default everywhere)."""


@dataclass
class GatewayConfig:
    """Tunables of one gateway."""

    ping_interval: float = 10.0
    """Seconds between Pings; a bot silent for 3 intervals is dropped."""
    reconnect_grace: float = RECONNECT_GRACE_SECONDS
    """Seconds a dropped stream's requests wait for the bot's next stream
    (:mod:`arena.gateway.session`, "Reconnection grace")."""
    unresponsive_after: int = UNRESPONSIVE_AFTER
    """Deadlines missed in a row after which the bot's other decisions are defaulted
    at once until it answers again (the circuit breaker)."""
    hello_timeout: float = 5.0
    """Seconds a new stream has to send its Hello."""
    max_concurrent_cap: int = 64
    """Upper bound on the concurrent decisions granted to one bot."""
    max_receive_message_bytes: int = 1 << 20
    """Largest message accepted from a bot or operator (1 MiB)."""
    max_messages_per_second: int = 5_000
    """Per bot stream; a bot that sends more is disconnected."""
    tls_cert: str | None = None
    """PEM certificate chain file; with ``tls_key`` the gateway serves TLS only."""
    tls_key: str | None = None
    """PEM private key file."""
    redis_url: str | None = None
    """Also serve connected bots to referees in other processes (Celery workers)
    through Redis at this URL (:class:`~arena.gateway.redis_bridge.RedisBridge`);
    ``CreateTournament`` then submits to those workers by default."""
    event_loop: str = "auto"
    """The gateway's event loop: ``auto`` (uvloop when installed), ``asyncio`` or
    ``uvloop`` (:mod:`arena.gateway.loop`)."""
    tournament_jobs: int | None = None
    """Local processes of a tournament this gateway plays itself (CreateTournament
    without Redis); default: the CPU count, at least 2 (1 plays on a thread of the
    gateway's own interpreter, competing with the event loop)."""


class StartedServer(NamedTuple):
    """What :func:`start_server` returns."""

    server: grpc.aio.Server
    port: int
    """The bound port (useful with ``:0``)."""
    hub: SessionHub
    admin: AdminServicer
    """The AdminService servicer (call :meth:`AdminServicer.close` before stopping)."""


def open_gateway_store(store: Any) -> Any:
    """A migrated :class:`arena.store.Store` for ``store`` (a URL, a Store or ``None``)."""
    if store is None or not isinstance(store, str):
        return store
    from arena.tournaments import service

    return service.open_store(store)


async def start_server(address: str, registry: BotRegistry, *, operator_token: str | None = None,
                       config: GatewayConfig | None = None,
                       server_credentials: grpc.ServerCredentials | None = None,
                       store: Any = None) -> StartedServer:
    """Build and start the grpc.aio server on the running loop.

    :param store: the :class:`arena.store.Store` of AdminService's tournament calls.
    :returns: the server, the bound port, the session hub and the admin servicer.
    :raises RuntimeError: if the address cannot be bound.
    """
    cfg = config or GatewayConfig()
    hub = SessionHub(asyncio.get_running_loop(), max_concurrent_cap=cfg.max_concurrent_cap,
                     ping_interval=cfg.ping_interval,
                     max_messages_per_second=cfg.max_messages_per_second,
                     grace=cfg.reconnect_grace, unresponsive_after=cfg.unresponsive_after)
    if bool(cfg.tls_cert) != bool(cfg.tls_key):
        raise ValueError("TLS needs both a certificate (tls_cert) and its private key (tls_key)")
    if server_credentials is None and cfg.tls_cert and cfg.tls_key:
        with open(cfg.tls_key, "rb") as key, open(cfg.tls_cert, "rb") as cert:
            server_credentials = grpc.ssl_server_credentials([(key.read(), cert.read())])
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", cfg.max_receive_message_bytes),
        ("grpc.keepalive_time_ms", 30_000),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.so_reuseport", 0),
    ]
    server = grpc.aio.server(options=options, interceptors=[DecodeGuard()])
    bot_pb2_grpc.add_BotServiceServicer_to_server(
        BotServicer(hub, registry, hello_timeout=cfg.hello_timeout), server)
    admin = AdminServicer(hub, registry, operator_token, store=store, redis_url=cfg.redis_url,
                          tournament_jobs=cfg.tournament_jobs)
    admin_pb2_grpc.add_AdminServiceServicer_to_server(admin, server)
    await _add_health_and_reflection(server)
    if server_credentials is not None:
        port = server.add_secure_port(address, server_credentials)
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"cannot bind {address}")
    await server.start()
    return StartedServer(server, port, hub, admin)


async def _add_health_and_reflection(server: grpc.aio.Server) -> bool:
    """Serve ``grpc.health.v1.Health`` (SERVING for "" and both services) and server
    reflection (so ``grpcurl`` works without the proto files), when the optional
    packages ``grpcio-health-checking`` and ``grpcio-reflection`` are installed.
    Returns whether they were added."""
    try:
        from grpc_health.v1 import health, health_pb2, health_pb2_grpc
        from grpc_reflection.v1alpha import reflection
    except ImportError:
        log.info("grpcio-health-checking/grpcio-reflection not installed: no health or reflection service")
        return False
    from arena.admin.v1 import admin_pb2
    from arena.bot.v1 import bot_pb2

    services = [bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
                admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name]
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ["", *services]:
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        [*services, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME],
        server)
    return True


async def serve_async(address: str = DEFAULT_ADDRESS, *, registry: BotRegistry | None = None,
                      store: Any = None, operator_token: str | None = None,
                      config: GatewayConfig | None = None, grace: float = 5.0,
                      stop: asyncio.Event | None = None) -> None:
    """Run the gateway until ``stop`` is set (or SIGINT/SIGTERM), then stop with ``grace``.

    :param registry: default: the store's bots, or in memory without a store.
    :param store: a :class:`arena.store.Store` (tournaments; bots by default), or ``None``.
    """
    if registry is None:
        registry = store.bot_registry() if store is not None else InMemoryRegistry()
    server, port, hub, admin = await start_server(address, registry, operator_token=operator_token,
                                                  config=config, store=store)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
            pass
    tls = config is not None and bool(config.tls_cert and config.tls_key)
    log.info("arena gateway listening on %s (port %d, %s)", address, port, "TLS" if tls else "plaintext")
    bridge = await _start_bridge(hub, config)
    try:
        await stop.wait()
    finally:
        await _shutdown(server, hub, admin, bridge, grace)


async def _shutdown(server: grpc.aio.Server, hub: SessionHub, admin: AdminServicer, bridge: Any,
                    grace: float) -> None:
    """Stop the tournaments this gateway plays (their bots still connected, so a
    match in flight finishes normally), then the sessions, the bridge and the server."""
    await asyncio.to_thread(admin.close, grace)
    hub.close_all()
    if bridge is not None:
        await bridge.stop()
    await server.stop(grace)


async def _start_bridge(hub: SessionHub, config: GatewayConfig | None) -> Any:
    """The Redis bridge when ``config.redis_url`` is set, else ``None``."""
    if config is None or not config.redis_url:
        return None
    from arena.gateway.redis_bridge import RedisBridge

    return await RedisBridge(hub, config.redis_url).start()


def serve(address: str = DEFAULT_ADDRESS, *, store_url: str | None = DEFAULT_STORE_URL,
          operator_token: str | None = None, grace: float = 5.0,
          config: GatewayConfig | None = None) -> None:
    """Run the gateway in the foreground until SIGINT/SIGTERM (``arena serve``).

    :param address: ``host:port`` to listen on (plaintext; loopback by default).
    :param store_url: the store (SQLAlchemy URL, migrated at start): its ``bots``
        table authenticates bots (``arena bots register --store URL`` writes it)
        and AdminService keeps tournaments in it. ``None``: bots in memory and no
        tournament calls.
    :param operator_token: token for AdminService; default ``$ARENA_OPERATOR_TOKEN``,
        else a random one that is logged once at start.
    :param grace: seconds given to open calls (and running tournaments) at shutdown.
    """
    token = operator_token or os.environ.get("ARENA_OPERATOR_TOKEN")
    if not token:
        token = secrets.token_urlsafe(24)
        log.warning("no operator token given; this run's operator token is %s", token)
    store = open_gateway_store(store_url)
    if store is not None:
        log.info("bots and tournaments in %r", store)
    loop_factory = event_loop_factory((config or GatewayConfig()).event_loop)
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(serve_async(address, store=store, operator_token=token, config=config, grace=grace))
    finally:
        if store is not None:
            store.dispose()


class Gateway:
    """An embedded gateway: the server on a private event-loop thread.

    :param registry: where bots are authenticated; default: the store's ``bots``
        table, or a fresh in-memory registry without a store.
    :param store: a :class:`arena.store.Store` or a store URL (migrated) for the
        tournament calls of AdminService; ``None``: those answer FAILED_PRECONDITION.

    >>> with Gateway() as gw:                     # listens on a free loopback port
    ...     bot, token = gw.registry.register('my-bot')
    ...     agent = gw.agent('my-bot')            # a RemoteAgent for the referee
    ...     gw.port > 0, type(agent).__name__
    (True, 'RemoteAgent')
    """

    def __init__(self, address: str = "127.0.0.1:0", *, registry: BotRegistry | None = None,
                 store: Any = None, operator_token: str | None = None,
                 config: GatewayConfig | None = None) -> None:
        self.address = address
        self.store = open_gateway_store(store)
        self._own_store = isinstance(store, str)
        if registry is None:
            registry = self.store.bot_registry() if self.store is not None else InMemoryRegistry()
        self.registry = registry
        self.operator_token = operator_token
        self.config = config or GatewayConfig()
        self.port = 0
        self.hub: SessionHub | None = None
        self.router: LocalRouter | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._grace = 1.0
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    @property
    def target(self) -> str:
        """``host:port`` for clients."""
        host = self.address.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    def start(self) -> Gateway:
        """Start the server thread; returns when it listens.

        :raises RuntimeError: if it could not start.
        """
        self._thread = threading.Thread(target=self._run, name="arena-gateway", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise RuntimeError(f"gateway failed to start: {self._error}") from self._error
        return self

    def _run(self) -> None:
        loop = event_loop_factory(self.config.event_loop)()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._error = exc
        finally:
            self._ready.set()
            loop.close()

    async def _main(self) -> None:
        server, self.port, hub, admin = await start_server(self.address, self.registry,
                                                           operator_token=self.operator_token,
                                                           config=self.config, store=self.store)
        self.hub = hub
        self.router = LocalRouter(hub)
        self._stop = asyncio.Event()
        bridge = await _start_bridge(hub, self.config)
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await _shutdown(server, hub, admin, bridge, self._grace)

    def stop(self, grace: float = 1.0) -> None:
        """Stop the server (``server.stop(grace)``) and join its thread."""
        if self._thread is None:
            return
        self._grace = grace
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:
                pass
        self._thread.join()
        self._thread = None
        if self._own_store and self.store is not None:
            self.store.dispose()

    def agent(self, bot_id: str, **kwargs: Any) -> Any:
        """A :class:`~arena.remote.agent.RemoteAgent` for ``bot_id`` on this gateway."""
        from arena.remote.agent import RemoteAgent

        if self.router is None:
            raise RuntimeError("the gateway is not started")
        return RemoteAgent(bot_id, self.router, **kwargs)

    def is_connected(self, bot_id: str) -> bool:
        return self.hub is not None and self.hub.is_connected(bot_id)

    def wait_connected(self, bot_id: str, timeout: float = 10.0) -> bool:
        """Poll until ``bot_id`` has a session (for tests and scripts)."""
        import time

        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.is_connected(bot_id):
                return True
            time.sleep(0.01)
        return False

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
