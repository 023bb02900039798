"""The Table Manager host: an asyncio TCP server that seats Blue Chip robots.

:class:`BlueChipHost` runs its own event loop in a daemon thread, so the referee
(synchronous) and any number of matches can use it from other threads. A robot
connects, says ``Connecting "TEAM" as SEAT using protocol version 18`` (or
``as ANYPL``) and is seated in the slot ``(TEAM, SEAT)``; a
:class:`~arena.bluechip.seat.BlueChipAgent` for that team and seat leases the
connection for one board at a time (:mod:`arena.bluechip.seat`).

Reading never assumes one ``recv`` is one message: lines are split on LF (a CR
before it is dropped) by the stream reader and queued per connection, so a robot
may send its ``ready`` lines as early as it likes. The obsolete ``received dummy``
is dropped on arrival.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import functools
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from arena.bluechip import protocol as P

__all__ = ["HostConfig", "BlueChipHost", "Connection", "Broken", "parse_address"]

log = logging.getLogger("arena.bluechip")
T = TypeVar("T")


class Broken(Exception):
    """The conversation with one robot cannot go on (disconnected, desynchronised)."""


@dataclass(frozen=True)
class HostConfig:
    """Options of the Table Manager host (times in seconds)."""

    lead_pause: float = 1.0
    """SPEC's pause at the end of each trick before ``... to lead`` (tricks 2-13)."""
    send_gap: float = 0.2
    """Minimum gap between two lines sent on one connection (GIB, Q-Plus)."""
    end_pause: float = 0.5
    """Pause between ``End of session`` and closing the connection."""
    relay_alerts: bool = True
    """Relay a robot's ``Alert. text`` to the caller's opponents (SPEC); off: never."""
    playing: str | None = None
    """``IMP`` or ``MP`` adds ``. Playing IMP`` to the Teams line (off by default: v18)."""
    opponents: str = "arena"
    """Name of the other pair in the Teams line when the agent is given none."""
    handshake_timeout: float = 30.0
    """Time for a new connection to send its ``Connecting`` line."""
    connect_timeout: float = 10.0
    """How long a board waits for its robot to be seated and idle (``arena bluechip
    host --seat-wait``; :func:`~arena.bluechip.match.team_match` ends the session
    when a seat stays empty that long)."""
    teams: tuple[str, ...] = ()
    """Team names seated (exact); a robot connecting with another one is refused with
    ``ERROR: Team name mismatch ...`` and closed, and listed in ``refused``. Empty:
    any name is seated (its slot is used only if an agent asks for that team)."""
    seat_ports: dict[int, int] = field(default_factory=dict)
    """Extra listening ports bound to a seat (port -> 0..3) for ``ANYPL`` robots."""
    transcripts: bool = False
    """Keep every line of every connection (tests, debugging)."""

    def without_pauses(self) -> HostConfig:
        """The same options with every protocol pause off (benchmarks, tests)."""
        return replace(self, lead_pause=0.0, send_gap=0.0, end_pause=0.0)


def parse_address(address: str, default_port: int = 2000) -> tuple[str, int]:
    """``HOST:PORT`` (or ``HOST``, or ``:PORT``) as a (host, port) pair.

    >>> parse_address("127.0.0.1:2000"), parse_address(":0"), parse_address("localhost")
    (('127.0.0.1', 2000), ('127.0.0.1', 0), ('localhost', 2000))
    """
    host, sep, port = address.rpartition(":")
    if not sep:
        return address or "127.0.0.1", default_port
    return host or "127.0.0.1", int(port)


def _who(seat: int | None) -> str:
    return "ANYPL" if seat is None else P.seat_name(seat)


class Connection:
    """One robot's TCP connection (used on the host's loop only)."""

    def __init__(self, host: BlueChipHost, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, port_seat: int | None) -> None:
        self.host = host
        self.reader = reader
        self.writer = writer
        self.port_seat = port_seat
        self.team = ""
        self.seat = -1
        self.version = 0
        self.info = ""
        self.inbox: collections.deque[str] = collections.deque()
        self.eof = False
        self.closed = False
        self.busy = False
        self.teams_sent = False
        self.ready = False
        """Seated and past ``ready for teams``: boards may lease it."""
        self.totals = [0.0, 0.0]
        self.transcript: list[tuple[str, str]] = []
        self.sent_at: list[float] = []
        """``time.monotonic()`` of every line sent (``transcripts`` on)."""
        self._last_send = 0.0
        self._wake = asyncio.Event()

    # -- waking -----------------------------------------------------------------
    def notify(self) -> None:
        """Wake every coroutine waiting on this connection's state."""
        self._wake.set()
        self._wake = asyncio.Event()

    async def until(self, pred: Callable[[], bool]) -> None:
        """Wait until ``pred()`` holds; re-checked after every :meth:`notify`."""
        while not pred():
            await self._wake.wait()

    # -- lines --------------------------------------------------------------------
    async def read_loop(self) -> None:
        """Queue every line the robot sends until it disconnects."""
        try:
            while True:
                raw = await self.reader.readline()
                if not raw:
                    break
                line = raw.decode("ascii", "replace").rstrip("\r\n")
                if self.host.config.transcripts:
                    self.transcript.append(("in", line))
                if P.is_received_dummy(line):
                    continue
                self.inbox.append(line)
                self.notify()
        except (ConnectionError, ValueError, asyncio.LimitOverrunError, asyncio.IncompleteReadError):
            pass
        finally:
            self.eof = True
            self.notify()

    async def next_line(self, timeout: float | None = None) -> str:
        """The next queued line.

        :raises Broken: at end of stream, or after ``timeout`` seconds.
        """
        async def wait() -> None:
            await self.until(lambda: bool(self.inbox) or self.eof)
        if timeout is None:
            await wait()
        else:
            try:
                await asyncio.wait_for(wait(), timeout)
            except asyncio.TimeoutError:
                raise Broken(f"no line within {timeout:g} s") from None
        if not self.inbox:
            raise Broken("the robot disconnected")
        return self.inbox.popleft()

    async def send(self, line: str) -> None:
        """Send one line (CR LF appended), keeping the configured gap after the last one.

        :raises Broken: if the connection is closed.
        """
        if self.closed or self.eof:
            raise Broken("the robot disconnected")
        gap = self.host.config.send_gap
        if gap > 0:
            wait = self._last_send + gap - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        if self.host.config.transcripts:
            self.transcript.append(("out", line))
        try:
            self.writer.write(line.encode("ascii", "replace") + b"\r\n")
            await self.writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise Broken(f"cannot send: {exc}") from None
        self._last_send = time.monotonic()
        if self.host.config.transcripts:
            self.sent_at.append(self._last_send)

    def close(self, reason: str = "") -> None:
        """Close the connection (the slot is freed for a reconnection)."""
        if self.closed:
            return
        if reason:
            log.warning("closing %s %s: %s", self.team, P.seat_name(self.seat) if self.seat >= 0 else "?",
                        reason)
        self.closed = True
        self.writer.close()
        self.notify()

    @property
    def alive(self) -> bool:
        return not (self.closed or self.eof)


class BlueChipHost:
    """The Table Manager: listens, seats robots, serves boards to agents.

    Use as a context manager, or :meth:`start` / :meth:`stop`.
    """

    def __init__(self, address: str = "127.0.0.1:2000", config: HostConfig | None = None) -> None:
        self.host_name, self.requested_port = parse_address(address)
        self.config = config or HostConfig()
        self.port = 0
        self.ports: dict[int, int] = {}
        self.loop = asyncio.new_event_loop()
        self.slots: dict[tuple[str, int], Connection] = {}
        self.history: list[Connection] = []
        self.alerts: dict[tuple[str, int], str] = {}
        self.refused: list[str] = []
        """One text per refused connection: ``"TEAM" as North (reason)``."""
        self._servers: list[asyncio.Server] = []
        self._thread: threading.Thread | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> BlueChipHost:
        """Bind the listening sockets and run the loop in a daemon thread."""
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, args=(ready,), name="bluechip-host", daemon=True)
        self._thread.start()
        ready.result(timeout=10)
        return self

    def _run(self, ready: concurrent.futures.Future[None]) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._bind())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            ready.set_exception(exc)
            return
        ready.set_result(None)
        self.loop.run_forever()

    async def _bind(self) -> None:
        server = await asyncio.start_server(lambda r, w: self._accept(r, w, None),
                                            self.host_name, self.requested_port)
        self._servers.append(server)
        self.port = server.sockets[0].getsockname()[1]
        for port, seat in self.config.seat_ports.items():
            extra = await asyncio.start_server(functools.partial(self._accept, port_seat=seat),
                                               self.host_name, port)
            self._servers.append(extra)
            self.ports[extra.sockets[0].getsockname()[1]] = seat

    def stop(self, *, end_session: bool = True, timeout: float = 10.0) -> None:
        """Send ``End of session`` to every seated robot (after its current board), then close."""
        if self._thread is None:
            return
        try:
            self.call(self._shutdown(end_session), timeout=timeout)
        except (concurrent.futures.TimeoutError, Broken):
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        self._thread = None

    async def _shutdown(self, end_session: bool) -> None:
        for server in self._servers:
            server.close()
        conns = [c for c in self.slots.values() if c.alive]
        if end_session:
            await asyncio.gather(*(self._end_session(c) for c in conns), return_exceptions=True)
        for conn in conns:
            conn.close()
        for task in list(self._tasks):
            task.cancel()

    async def _end_session(self, conn: Connection) -> None:
        try:
            await asyncio.wait_for(conn.until(lambda: not conn.busy or not conn.alive), 5.0)
        except asyncio.TimeoutError:
            return
        if conn.alive and conn.teams_sent:
            await conn.send("End of session")
            await asyncio.sleep(self.config.end_pause)

    def __enter__(self) -> BlueChipHost:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- calls from other threads -------------------------------------------------------
    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the host's loop and wait for its result (from another thread)."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coro`` on the host's loop; its future."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        """Start a task on the loop (from the loop), kept until it ends."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def seated(self) -> list[tuple[str, int]]:
        """(team, seat) of every live connection."""
        return sorted(k for k, c in list(self.slots.items()) if c.alive)

    def wait_seated(self, slots: list[tuple[str, int]], timeout: float) -> bool:
        """Wait until every (team, seat) in ``slots`` has a live robot."""
        end = time.monotonic() + timeout
        while not set(slots) <= set(self.seated()):
            if time.monotonic() >= end:
                return False
            time.sleep(0.02)
        return True

    def transcript(self, team: str, seat: int) -> list[tuple[str, str]]:
        """Every line of the current connection of (team, seat) (``transcripts`` on)."""
        conn = self.slots.get((team, seat))
        return list(conn.transcript) if conn else []

    # -- seating -------------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      port_seat: int | None) -> None:
        conn = Connection(self, reader, writer, port_seat)
        self.history.append(conn)
        self.spawn(conn.read_loop())
        try:
            await self._seat(conn)
        except Broken as exc:
            conn.close(str(exc))

    async def _seat(self, conn: Connection) -> None:
        line = await conn.next_line(self.config.handshake_timeout)
        hello = P.parse_connect(line)
        if hello is None:
            await self._refuse(conn, "Expected 'Connecting ....'")
            return
        if hello.version not in P.VERSIONS:
            await self._refuse(conn, f"ERROR: Protocol version is not 18 but {hello.version}.",
                               f'"{hello.team}" as {_who(hello.seat)} (protocol version {hello.version})')
            return
        if not hello.team:
            await self._refuse(conn, "Expected team name")
            return
        teams = self.config.teams
        if teams and hello.team not in teams:
            expected = " or ".join(f'"{t}"' for t in teams)
            await self._refuse(conn, f'ERROR: Team name mismatch. Expected {expected}, not "{hello.team}".',
                               f'"{hello.team}" as {_who(hello.seat)} (team name is not {expected})')
            return
        seat = hello.seat
        if seat is None:
            seat = conn.port_seat if conn.port_seat is not None else self._free_seat(hello.team)
        if seat is None:
            await self._refuse(conn, "No seat is free for this team",
                               f'"{hello.team}" as ANYPL (no seat is free for this team)')
            return
        old = self.slots.get((hello.team, seat))
        if old is not None and old.alive:
            await self._refuse(conn, "Seat already has been taken",
                               f'"{hello.team}" as {_who(seat)} (the seat is taken)')
            return
        conn.team, conn.seat, conn.version, conn.info = hello.team, seat, hello.version, hello.info
        if old is not None:
            conn.totals = old.totals
        self.slots[(hello.team, seat)] = conn
        await conn.send(P.format_seated(seat, hello.team))
        line = await conn.next_line(self.config.handshake_timeout)
        ready = P.parse_ready(line)
        if ready is None or ready.what != "teams":
            log.info("%s %s: expected 'ready for teams', got %r", conn.team, P.seat_name(seat), line)
        conn.ready = True
        conn.notify()

    def _free_seat(self, team: str) -> int | None:
        for seat in range(4):
            conn = self.slots.get((team, seat))
            if conn is None or not conn.alive:
                return seat
        return None

    async def _refuse(self, conn: Connection, text: str, who: str | None = None) -> None:
        """Send the error line, close the connection, keep ``who`` in :attr:`refused`."""
        if who is not None:
            self.refused.append(who)
        try:
            await conn.send(text)
        except Broken:
            pass
        log.warning("refused a robot: %s", text)
        conn.close()

    async def lease(self, team: str, seat: int, timeout: float) -> Connection:
        """The idle live connection of (team, seat), marked busy.

        :raises Broken: if none is seated and idle within ``timeout`` seconds.
        """
        end = self.loop.time() + timeout
        while True:
            conn = self.slots.get((team, seat))
            if conn is not None and conn.alive and not conn.busy and conn.ready:
                conn.busy = True
                return conn
            left = end - self.loop.time()
            if left <= 0:
                if conn is not None and conn.alive and conn.busy:
                    conn.close("still busy with its previous board")
                raise Broken(f"no robot of team {team!r} seated {P.seat_name(seat)} "
                             f"within {timeout:g} s")
            await asyncio.sleep(min(0.01, left))
