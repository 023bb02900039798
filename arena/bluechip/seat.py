"""One seat of the Table Manager: the board conversation and the referee's agent.

:class:`BlueChipAgent` is the :class:`~arena.bots.base.Agent` of a seat played by
a Blue Chip robot. Its board conversation (:class:`BoardTalk`, on the host's loop)
walks the board position by position as the reference orders it (section 3),
using nothing but the observations of its own seat: the referee's ``act``
observation and the ones :func:`arena.bluechip.observe.observed` delivers after
every action (``observe``). At a position where another seat acts it waits for
the robot's ``ready for X's bid/card`` and relays the action once the observation
shows it; at its own position it reads the robot's call or card, which the
referee's ``act`` returns as text. See :mod:`arena.bluechip` for the decisions.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Sequence
from typing import Any

from arena.bluechip import protocol as P
from arena.bluechip.events import (Step, action_at, dealt_hand, dummy_dealt_hand, forced_at, position,
                                   step_at)
from arena.bluechip.host import BlueChipHost, Broken, Connection
from arena.match.agent import Agent, AgentFailure, DecisionTimeout, MatchInfo
from arena.core.state import Action, SeatIndex

__all__ = ["BoardTalk", "BlueChipAgent", "UNREADABLE"]

log = logging.getLogger("arena.bluechip")

UNREADABLE = "bluechip: "
"""Prefix of an answer the robot sent that is not a call or card of its seat; the
engine cannot read it, so the referee refuses it as ``invalid``."""


class BoardTalk:
    """The TM's conversation with one robot for one board (runs on the host's loop)."""

    def __init__(self, host: BlueChipHost, conn: Connection, seat: int, match_id: str,
                 opponents: str, forced_wait: float = 10.0) -> None:
        self.host = host
        self.forced_wait = forced_wait
        self.conn = conn
        self.seat = seat
        self.match_id = match_id
        self.opponents = opponents
        self.latest: Any = None
        self.failed: str | None = None
        self.finished = False
        self._answer: tuple[int, str] | None = None
        self._refusal: tuple[int, bool] | None = None
        self._advanced = time.monotonic()
        self._last_action_t: float | None = None
        self.side_time = [0.0, 0.0]

    # -- inputs (on the loop) ---------------------------------------------------------------
    def update(self, obs: Any) -> None:
        """A newer observation of this seat (older or equal ones are ignored)."""
        old = self.latest
        if old is not None and (position(obs) < position(old)
                                or (position(obs) == position(old) and obs.phase == old.phase)):
            return
        now = time.monotonic()
        if old is not None and position(obs) > position(old):
            step = step_at(obs, position(obs) - 1)
            if step is not None and self._last_action_t is not None:
                self.side_time[step.controller % 2] += now - self._last_action_t
            self._advanced = now
        self._last_action_t = now
        self.latest = obs
        self.conn.notify()

    def refuse(self, p: int, retry: bool) -> None:
        """The referee refused the robot's answer at position ``p``."""
        self._refusal = (p, retry)
        self.conn.notify()

    async def answer(self, p: int) -> str:
        """The robot's answer for position ``p``, as soon as it has one.

        :raises Broken: if the conversation broke (the agent reports a failure).
        """
        def ready() -> bool:
            if self._answer is not None and self._answer[0] < p:
                self._answer = None
            return self.failed is not None or (self._answer is not None and self._answer[0] == p)
        await self.conn.until(ready)
        if self.failed is not None or self._answer is None:
            raise Broken(self.failed or "no answer")
        text = self._answer[1]
        self._answer = None
        return text

    # -- helpers -----------------------------------------------------------------------------
    async def _until(self, pred: Any) -> None:
        conn = self.conn

        def check() -> bool:
            return pred() or not conn.alive
        await conn.until(check)
        if not pred():
            raise Broken("the robot disconnected")

    async def _at_least(self, p: int) -> Any:
        await self._until(lambda: self.latest is not None and position(self.latest) >= p)
        return self.latest

    async def _beyond(self, p: int) -> Any:
        await self._until(lambda: self.latest is not None and position(self.latest) > p)
        return self.latest

    async def _expect(self, what: str, who: int = -2, trick: int = 0, dummy: int = -1) -> None:
        """Read lines until the robot's ``ready`` line of kind ``what`` (others are ignored)."""
        me = self.seat
        while True:
            await self._until(lambda: bool(self.conn.inbox))
            line = self.conn.inbox.popleft()
            ready = P.parse_ready(line)
            if ready is None or ready.seat != me or ready.what != what:
                log.info("%s %s: ignored %r (waiting for 'ready %s')", self.conn.team,
                         P.seat_name(me), line, what)
                continue
            if what in ("bid", "card"):
                named = ready.who if ready.who >= 0 else dummy
                if named != who or (trick and ready.trick != trick):
                    log.info("%s %s: %r names another %s than expected", self.conn.team,
                             P.seat_name(me), line, what)
            return

    async def _send(self, line: str) -> None:
        await self.conn.send(line)

    # -- the board -------------------------------------------------------------------------
    async def run(self) -> None:
        """Play the board with the robot; on failure close the connection."""
        try:
            await self._board()
        except Broken as exc:
            self.failed = str(exc)
            self.conn.close(self.failed)
        except asyncio.CancelledError:
            self.failed = "the host stopped"
            raise
        finally:
            self.finished = True
            self.conn.busy = False
            self.conn.notify()

    async def _board(self) -> None:
        conn, me = self.conn, self.seat
        obs = await self._at_least(0)
        if not conn.teams_sent:
            own, other = conn.team, self.opponents
            ns, ew = (own, other) if me % 2 == 0 else (other, own)
            await self._send(P.format_teams(ns, ew, self.host.config.playing))
            await self._expect("start")
            conn.teams_sent = True
        await self._send("Start of board")
        await self._expect("deal")
        await self._send(P.format_board(obs.board, obs.dealer, tuple(obs.vulnerable)))
        await self._expect("cards")
        await self._send(f"{P.seat_name(me)}'s cards : {P.format_hand(dealt_hand(self.latest))}")
        p = 0
        while True:
            obs = await self._at_least(p)
            step = step_at(obs, p)
            if step is None:
                break
            if step.controller == me:
                await self._decide(p, step)
            else:
                if step.kind == "call":
                    await self._expect("bid", step.player)
                else:
                    await self._expect("card", step.player, step.trick, obs.dummy)
                obs = await self._beyond(p)
                await self._send(self._relay(obs, p, step))
            if step.kind == "card" and step.trick == 1 and step.index == 0 and me != obs.dummy:
                await self._expect("dummy")
                obs = await self._beyond(p)
                await self._send(f"Dummy's cards : {P.format_hand(dummy_dealt_hand(obs))}")
            p += 1
        board = self.side_time
        conn.totals[0] += board[0]
        conn.totals[1] += board[1]
        await self._send(P.format_timing(board[0], conn.totals[0], board[1], conn.totals[1]))

    def _relay(self, obs: Any, p: int, step: Step) -> str:
        token = action_at(obs, p)
        if step.kind == "card":
            return P.format_play(step.player, token)
        alert = None
        if self.host.config.relay_alerts and (step.player - self.seat) % 2:
            alert = self.host.alerts.get((self.match_id, p))
        return P.format_call(step.player, token, alert)

    async def _decide(self, p: int, step: Step) -> None:
        me = self.seat
        if step.kind == "card" and step.index == 0:
            if step.trick > 1:
                pause = self.host.config.lead_pause - (time.monotonic() - self._advanced)
                if pause > 0:
                    await asyncio.sleep(pause)
            dummy = self.latest.dummy
            await self._send("Dummy to lead" if step.player == dummy else f"{P.seat_name(me)} to lead")
        while True:
            await self._until(lambda: bool(self.conn.inbox) or position(self.latest) > p)
            if not self.conn.inbox and forced_at(self.latest, p, step):
                # The referee plays a sole legal card without asking; the robot still sends it.
                try:
                    await asyncio.wait_for(self._until(lambda: bool(self.conn.inbox)), self.forced_wait)
                except asyncio.TimeoutError:
                    pass
            if not self.conn.inbox:
                raise Broken(f"no answer from the robot before the referee decided position {p}")
            line = self.conn.inbox.popleft()
            token = self._read(line, p, step)
            self._answer = (p, token)
            self.conn.notify()
            await self._until(lambda: position(self.latest) > p
                              or (self._refusal is not None and self._refusal[0] == p))
            if position(self.latest) > p:
                applied = action_at(self.latest, p)
                if applied != token:
                    raise Broken(f"the robot's {token!r} at position {p} was replaced by {applied!r}")
                self._refusal = None
                return
            assert self._refusal is not None
            retry = self._refusal[1]
            self._refusal = None
            if not retry:
                raise Broken(f"the robot's {token!r} at position {p} was refused with no retry left")
            await self._send("Illegal bid" if step.kind == "call" else "Illegal card")

    def _read(self, line: str, p: int, step: Step) -> str:
        """The robot's call or card as an engine token (or an unreadable text)."""
        if step.kind == "call":
            call = P.parse_call(line)
            if call is None or call.seat != step.player:
                return UNREADABLE + P.normalize(line)
            if call.alert is not None:
                self.host.alerts[(self.match_id, p)] = call.alert
            return call.token
        play = P.parse_play(line)
        if play is None or not (play.seat == step.player or play.dummy and step.player != self.seat):
            return UNREADABLE + P.normalize(line)
        return play.token


class BlueChipAgent(Agent):
    """The referee's agent for the seat of a Blue Chip robot of team ``team``.

    :param host: the running :class:`~arena.bluechip.host.BlueChipHost`.
    :param seat: the seat (0..3) this agent may play, or ``None`` for whatever seat
        ``start_match`` gives (the robot of (team, that seat) is used).
    :param opponents: the other pair's name in the Teams line.
    :param connect_timeout: how long ``start_match`` waits for the robot (default:
        the host's ``connect_timeout``).
    """

    def __init__(self, host: BlueChipHost, team: str, seat: int | None = None, *,
                 opponents: str | None = None, connect_timeout: float | None = None,
                 name: str | None = None) -> None:
        self.host = host
        self.team = team
        self.seat = seat
        self.name = name or f"bluechip:{team}"
        self.opponents = opponents or host.config.opponents
        self.connect_timeout = host.config.connect_timeout if connect_timeout is None else connect_timeout
        self.board: BoardTalk | None = None
        self.failure: str | None = None
        self.absent = False
        """The last ``start_match`` found no robot seated and idle in time."""
        self._over = True
        self._pending: Any = None
        self._deadline_s = 10.0
        self._retrying = False
        self._start = 0.0
        self._p = -1

    def start_match(self, info: MatchInfo) -> None:
        """Lease the robot's connection and start the board conversation.

        :raises AgentFailure: if the game is not duplicate bridge or no robot is seated.
        """
        if info.get("game") != "bridge" or info.get("options", {}).get("scoring", "duplicate") != "duplicate":
            raise AgentFailure("Blue Chip robots play duplicate bridge only")
        seat = int(info.get("seat", 0))
        if self.seat is not None and seat != self.seat:
            raise AgentFailure(f"this agent plays seat {self.seat}, not {seat}")
        self._deadline_s = float(info.get("deadline_ms", 10_000.0)) / 1000.0
        self._retrying = False
        self.board = None
        self.failure = None
        self.absent = False
        try:
            conn = self.host.call(self.host.lease(self.team, seat, self.connect_timeout),
                                  timeout=self.connect_timeout + 5)
        except (Broken, concurrent.futures.TimeoutError) as exc:
            self.failure = str(exc) or "no robot seated"
            self.absent = True
            raise AgentFailure(self.failure) from None
        board = BoardTalk(self.host, conn, seat, str(info.get("match_id", "")), self.opponents,
                          forced_wait=self._deadline_s)
        self.board = board
        self._over = False
        pending, self._pending = self._pending, None

        def begin() -> None:
            if pending is not None:
                board.update(pending)
            self.host.spawn(board.run())
        self.host.loop.call_soon_threadsafe(begin)

    def observe(self, observation: Any) -> None:
        """An observation of this seat after an action (see :func:`~arena.bluechip.observe.observed`)."""
        board = self.board
        if board is None or self._over:
            self._pending = observation
            return
        if observation.phase == "over":
            self._over = True
        self.host.loop.call_soon_threadsafe(board.update, observation)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        board = self.board
        if board is None:
            raise AgentFailure(self.failure or "no robot seated")
        self.host.loop.call_soon_threadsafe(board.update, observation)
        now = time.monotonic()
        p = position(observation)
        if not (self._retrying and p == self._p):
            self._start = now
        self._retrying = False
        self._p = p
        remaining = self._deadline_s - (now - self._start)
        if remaining <= 0:
            raise DecisionTimeout("no time left for this decision")
        future = self.host.submit(board.answer(p))
        try:
            return future.result(timeout=remaining)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise DecisionTimeout(f"the robot sent no answer within {remaining * 1000:.0f} ms") from None
        except Broken as exc:
            raise AgentFailure(f"robot {self.team} {P.seat_name(board.seat)}: {exc}") from None

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        board = self.board
        self._retrying = retry_allowed
        if board is not None:
            log.info("%s %s: refused (%s): %s", self.team, P.seat_name(board.seat), kind, reason)
            self.host.loop.call_soon_threadsafe(board.refuse, self._p, retry_allowed)

    def end_match(self, seat: SeatIndex, returns: Sequence[float]) -> None:
        """Nothing to send: the final observation reached the board through ``observe``."""

    def wait_board(self, timeout: float = 10.0) -> bool:
        """Wait until the robot's board conversation has ended (tests, sessions)."""
        board = self.board
        if board is None:
            return True
        end = time.monotonic() + timeout
        while not board.finished and time.monotonic() < end:
            time.sleep(0.005)
        return board.finished
