"""The :class:`Bot` base class: one stream to the arena, reconnection, concurrency.

Implement :meth:`Bot.decide`; it gets the ``arena.bot.v1.DecisionRequest`` and
returns an action id (``int``) or an action's text (``str``). It may be a plain
method (run on the event loop; keep it quick) or ``async def``. Everything else
(Hello, Ping/Pong, matching answers to request ids, reconnecting with
exponential backoff after a lost connection) is done here.

The wire code is ``bot_pb2`` / ``bot_pb2_grpc`` of ``arena.bot.v1``, generated from
the repository's ``proto/``; :mod:`arenabot.wire` says which copy is used.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

import grpc

from arenabot.wire import bot_pb2, bot_pb2_grpc

__all__ = ["Bot", "BotStopped", "EVENT_LOOPS", "NotConnected", "backoff_delays", "event_loop_factory", "legal_choices",
           "observation_of", "tls_credentials"]

log = logging.getLogger("arenabot")

EVENT_LOOPS = ("auto", "asyncio", "uvloop")
"""Event loops :meth:`Bot.run` can use (``--event-loop`` of ``python -m arenabot``)."""


def event_loop_factory(kind: str = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """What creates the loop a bot runs on.

    ``uvloop`` (``pip install 'arenabot[uvloop]'``) takes less CPU per message than
    asyncio's own loop; ``auto`` uses it when it is installed, else asyncio's.

    :raises ValueError: for an unknown kind.
    :raises RuntimeError: for ``uvloop`` when it is not installed.
    """
    if kind not in EVENT_LOOPS:
        raise ValueError(f"event loop must be one of {', '.join(EVENT_LOOPS)}; got {kind!r}")
    if kind != "asyncio":
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                raise RuntimeError("uvloop is not installed: pip install 'arenabot[uvloop]'") from None
        else:
            return uvloop.new_event_loop  # type: ignore[no-any-return]
    return asyncio.new_event_loop


def tls_credentials(ca_file: str | None = None) -> grpc.ChannelCredentials:
    """Credentials for a gateway that serves TLS (``arena serve --tls-cert ... --tls-key ...``).

    :param ca_file: PEM file of the certificate authority (or the self-signed
        certificate) to trust; ``None``: the system's root certificates.
    """
    roots = None
    if ca_file:
        with open(ca_file, "rb") as f:
            roots = f.read()
    return grpc.ssl_channel_credentials(root_certificates=roots)


_FATAL = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT,
          grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNIMPLEMENTED)


class BotStopped(Exception):
    """The arena refused the bot for good (bad token, protocol violation)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class NotConnected(Exception):
    """The bot gave up (no reconnection, or ``max_connects`` spent) without the arena
    ever accepting a stream: the gateway was not reachable, the TLS handshake failed
    (an untrusted certificate, plaintext against a TLS gateway or the reverse), or
    the stream closed before the Welcome. The message is one line with the reason."""

    def __init__(self, target: str, reason: str, *, tls: bool, code: grpc.StatusCode | None = None) -> None:
        self.target, self.reason, self.code = target, " ".join(reason.split()).removesuffix(": OK"), code
        super().__init__(f"could not connect to {target}: {self.reason}{_hint(self.reason, tls)}")


def _hint(reason: str, tls: bool) -> str:
    """What to try for a connection that failed for ``reason``."""
    low = reason.lower()
    if "connection refused" in low or "failed to connect to remote host" in low or "dns resolution" in low:
        return " (is the gateway running there? check --target HOST:PORT)"
    if tls and "wrong_version_number" in low:
        return " (the gateway does not serve TLS: connect without --tls/--ca-file)"
    if tls and "certificate_verify_failed" in low:
        return (" (the gateway's TLS certificate is not trusted: --ca-file CERT.pem trusts a "
                "self-signed one or its CA)")
    if tls:
        return " (does the gateway serve TLS with a certificate for this host name?)"
    return (" (is the gateway running there? a gateway that serves TLS needs --tls, or --ca-file "
            "for a self-signed certificate)")


def backoff_delays(initial: float = 0.1, maximum: float = 30.0, factor: float = 2.0,
                   jitter: float = 0.2, rng: random.Random | None = None) -> Iterator[float]:
    """Exponential backoff with +-``jitter`` relative noise, capped at ``maximum``.

    >>> [d for _, d in zip(range(5), backoff_delays(1, 8, jitter=0))]
    [1.0, 2.0, 4.0, 8.0, 8.0]
    """
    rng = rng or random.Random()
    delay = initial
    while True:
        yield delay * (1 + rng.uniform(-jitter, jitter))
        delay = min(maximum, delay * factor)


def legal_choices(request: bot_pb2.DecisionRequest) -> list[int | str]:
    """Each legal action as the value to return from ``decide`` (id, else text)."""
    return [la.id if la.HasField("id") else la.text for la in request.legal_actions]


def observation_of(request: bot_pb2.DecisionRequest) -> Any:
    """The typed observation message of the request (e.g. a ``BridgeObservation``)."""
    field = request.WhichOneof("observation")
    return None if field is None else getattr(request, field)


class Bot:
    """Base class of SDK bots. Subclass and implement :meth:`decide`.

    :param max_concurrent: decisions this bot handles at once (sent in Hello;
        the arena grants at most that many outstanding requests).
    """

    name: str = "bot"
    """Bot program name sent in Hello."""
    version: str = "0.1.0"
    """Bot program version sent in Hello."""
    games: Sequence[str | tuple[str, Sequence[str]]] = ()
    """Games played (optionally with presets); empty means any game."""

    def __init__(self, *, max_concurrent: int = 1) -> None:
        self.max_concurrent = max(1, max_concurrent)
        self.granted = 1
        self.decisions = 0
        self.errors: list[bot_pb2.DecisionError] = []
        self.session_id = ""
        self._stop: asyncio.Event | None = None
        self._welcomes = 0  # Welcomes received in this run_async

    # -- what a bot writes -------------------------------------------------
    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        """Choose an action: an id from ``request.legal_actions`` or an action text.

        ``request.attempt`` > 1 means an earlier answer was refused (see
        :meth:`on_decision_error`). Returning ``None`` sends no answer (the arena's
        deadline then applies). An exception is logged and sends no answer.
        """
        raise NotImplementedError

    def on_connected(self, welcome: bot_pb2.Welcome) -> None:
        """The arena accepted the stream."""

    def on_match_started(self, message: bot_pb2.MatchStarted) -> None:
        """A match starts with this bot in ``message.seat``."""

    def on_match_ended(self, message: bot_pb2.MatchEnded) -> None:
        """A match is over; ``message.result`` is this seat's result."""

    def on_decision_error(self, error: bot_pb2.DecisionError) -> None:
        """A decision was refused (the arena re-asks if ``retry_allowed``)."""
        log.warning("decision %d refused (%s): %s", error.request_id,
                    bot_pb2.DecisionErrorCode.Name(error.code), error.reason)

    # -- running ---------------------------------------------------------
    def hello(self, token: str) -> bot_pb2.Hello:
        """The Hello this bot sends."""
        games = []
        for g in self.games:
            name, presets = (g, ()) if isinstance(g, str) else g
            games.append(bot_pb2.GameSupport(game=name, presets=list(presets)))
        return bot_pb2.Hello(token=token, bot_name=self.name, bot_version=self.version,
                             games=games, max_concurrent_decisions=self.max_concurrent)

    def stop(self) -> None:
        """Ask :meth:`run_async` to return (from the bot's own loop)."""
        if self._stop is not None:
            self._stop.set()

    def run(self, target: str, token: str, *, event_loop: str = "auto", **kwargs: Any) -> None:
        """Blocking :meth:`run_async` in a fresh event loop (see :func:`event_loop_factory`)."""
        with asyncio.Runner(loop_factory=event_loop_factory(event_loop)) as runner:
            runner.run(self.run_async(target, token, **kwargs))

    async def run_async(self, target: str, token: str, *, reconnect: bool = True,
                        initial_backoff: float = 0.1, max_backoff: float = 30.0,
                        max_connects: int | None = None,
                        credentials: grpc.ChannelCredentials | None = None) -> None:
        """Connect and play until :meth:`stop`, or until the arena refuses the bot.

        After a lost connection it reconnects with exponential backoff (reset
        after each accepted session), unless ``reconnect`` is false.

        :param max_connects: give up after this many connection attempts (None: never).
        :param credentials: channel credentials, e.g. :func:`tls_credentials` for a
            gateway that serves TLS; ``None``: plaintext.
        :raises BotStopped: on UNAUTHENTICATED, INVALID_ARGUMENT and the like.
        :raises NotConnected: when it gives up (``reconnect`` false, or
            ``max_connects`` spent) and the arena never accepted a stream.
        """
        self._stop = asyncio.Event()
        delays = backoff_delays(initial_backoff, max_backoff)
        attempts = 0
        self._welcomes = 0
        while not self._stop.is_set():
            attempts += 1
            before = self._welcomes
            failure: tuple[str, grpc.StatusCode | None] = ("the stream closed before the arena's Welcome", None)
            try:
                await self._session(target, token, credentials)
            except grpc.aio.AioRpcError as exc:
                if exc.code() in _FATAL:
                    raise BotStopped(exc.code(), exc.details() or "") from None
                log.info("connection to %s lost: %s %s", target, exc.code().name, exc.details())
                failure = (f"{exc.code().name}: {exc.details() or ''}", exc.code())
            welcomed = self._welcomes > before  # also when the accepted stream then failed
            ever_welcomed = self._welcomes > 0
            if self._stop.is_set():
                return
            if not reconnect or (max_connects and attempts >= max_connects):
                if not ever_welcomed:
                    raise NotConnected(target, failure[0], tls=credentials is not None, code=failure[1])
                return
            if welcomed:
                delays = backoff_delays(initial_backoff, max_backoff)
            delay = next(delays)
            try:
                await asyncio.wait_for(self._stop.wait(), delay)
            except asyncio.TimeoutError:
                pass

    async def _session(self, target: str, token: str,
                       credentials: grpc.ChannelCredentials | None) -> bool:
        """One stream, until it ends; returns whether it was accepted."""
        welcomed = False
        tasks: set[asyncio.Task[None]] = set()
        channel = (grpc.aio.secure_channel(target, credentials) if credentials is not None
                   else grpc.aio.insecure_channel(target))
        async with channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect()
            write_lock = asyncio.Lock()

            async def send(message: bot_pb2.BotMessage) -> None:
                async with write_lock:
                    try:
                        await call.write(message)
                    except (grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
                        pass  # the call is over; read() reports why

            stopped = False

            async def watch_stop() -> None:
                nonlocal stopped
                if self._stop is not None:
                    await self._stop.wait()
                    stopped = True
                    call.cancel()

            watcher = asyncio.create_task(watch_stop())
            try:
                await send(bot_pb2.BotMessage(hello=self.hello(token)))
                semaphore = asyncio.Semaphore(self.max_concurrent)
                is_async = inspect.iscoroutinefunction(self.decide)
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        break
                    kind = message.WhichOneof("kind")
                    if kind == "decision_request":
                        request = message.decision_request
                        if is_async:
                            await semaphore.acquire()
                            task = asyncio.create_task(self._answer_async(request, send, semaphore))
                            tasks.add(task)
                            task.add_done_callback(tasks.discard)
                        else:
                            reply = self._answer(request)
                            if reply is not None:
                                await send(reply)
                    elif kind == "ping":
                        await send(bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=message.ping.nonce)))
                    elif kind == "welcome":
                        welcomed = True
                        self._welcomes += 1
                        self.granted = message.welcome.max_concurrent_decisions or 1
                        self.session_id = message.welcome.session_id
                        self.on_connected(message.welcome)
                    elif kind == "decision_error":
                        self.errors.append(message.decision_error)
                        self.on_decision_error(message.decision_error)
                    elif kind == "match_started":
                        self.on_match_started(message.match_started)
                    elif kind == "match_ended":
                        self.on_match_ended(message.match_ended)
            except asyncio.CancelledError:
                if not stopped:
                    raise
            except grpc.aio.AioRpcError as exc:
                if not (stopped and exc.code() == grpc.StatusCode.CANCELLED):
                    raise
            finally:
                watcher.cancel()
                for task in tasks:
                    task.cancel()
        return welcomed

    def _reply(self, request: bot_pb2.DecisionRequest, action: int | str) -> bot_pb2.BotMessage:
        message = bot_pb2.BotMessage()
        decision = message.decision  # filled in place: no Decision built and copied in
        decision.request_id = request.request_id
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            action = str(action)
        if isinstance(action, int):
            decision.action_id = action
        else:
            decision.action_text = action
        self.decisions += 1
        return message

    def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.BotMessage | None:
        try:
            action = self.decide(request)
        except Exception:  # noqa: BLE001 - a crashing decide must not kill the stream
            log.exception("decide failed for request %d", request.request_id)
            return None
        return None if action is None else self._reply(request, action)

    async def _answer_async(self, request: bot_pb2.DecisionRequest,
                            send: Callable[[bot_pb2.BotMessage], Awaitable[None]],
                            semaphore: asyncio.Semaphore) -> None:
        try:
            action = await self.decide(request)  # type: ignore[misc]
            if action is not None:
                await send(self._reply(request, action))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001
            log.exception("decide failed for request %d", request.request_id)
        finally:
            semaphore.release()
