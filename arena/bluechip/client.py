"""Arena bots as Blue Chip clients: play a seat at an external Table Manager.

:class:`BlueChipClient` connects to a TM (Bridge Moniteur, Blue Chip's own, or
:class:`~arena.bluechip.host.BlueChipHost`), takes a seat and plays every board
it is dealt with an arena :class:`~arena.bots.base.Agent` until ``End of session``.
The agent sees the observation and legal actions the engine would give it
(:class:`~arena.bluechip.view.SeatView`), so a deterministic bot plays exactly as
it does natively. Like the referee, the client plays a sole legal card without
asking the bot; an answer the bot gives that is not legal is refused
(``action_refused``) and asked again twice, then Pass or the lowest legal card is
sent (the engine's default). It sends SPEC forms and reads the variants the
reference lists (upper-case seats and calls, ``Start of Board``, seated lines
without quotes, any hand spelling). A ``Start of board`` in the middle of a board
abandons it (BEN's restart convention).

For dummy's cards it sends ``[Seat] ready for dummy's card to trick [n]`` from
every seat, dummy's and the defenders' (SPEC has the defenders name dummy's seat,
but the robots that play at championships, BEN among them, say ``dummy's``
everywhere, and Table Managers built for them, bridge_env's and BEN's own, refuse
the seat name with ``ERROR: Unexpected message received.``).

A session succeeds only with ``End of session``: a line from the TM starting with
``ERROR``, a line the client cannot follow, a closed connection or a socket error
before it raise :class:`SessionError` (which holds the boards played so far); a
refused or failed connection raises :class:`ProtocolError`.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.bluechip import protocol as P
from arena.bluechip.view import SeatView
from arena.match.agent import Agent, LegalActions, MatchInfo
from arena.core.cards import STANDARD_TOKENS, card_index, parse_card
from arena.core.errors import InvalidActionError
from arena.games.bridge.actions import call_to_string, string_to_call

__all__ = ["BlueChipClient", "ClientBoard", "ProtocolError", "SessionError"]

log = logging.getLogger("arena.bluechip.client")
MAX_RETRIES = 2


class ProtocolError(Exception):
    """The TM sent something this client cannot follow (or refused the connection)."""


class SessionError(ProtocolError):
    """The session broke before ``End of session``; ``boards`` are those completed."""

    def __init__(self, message: str, boards: list[ClientBoard]) -> None:
        super().__init__(message)
        self.boards = boards


class _Restart(Exception):
    """``Start of board`` arrived in the middle of a board."""


@dataclass
class ClientBoard:
    """What the client saw of one board."""

    board: int
    seat: int
    calls: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)
    ns_score: int = 0
    completed: bool = False
    observations: list[Any] = field(default_factory=list)
    """The observation of every decision the bot was asked (``keep_observations``)."""


class BlueChipClient:
    """One seat of an external TM played by ``agent``.

    :param address: ``(host, port)`` of the TM.
    :param seat: 0..3, or ``None`` to connect as ``ANYPL`` and take the seat the TM gives.
    :param send_delay: seconds to wait before each line sent (Bridge Moniteur needs ~0.6).
    :param timeout: socket timeout in seconds (``None``: wait as long as the TM does).
    """

    def __init__(self, agent: Agent, address: tuple[str, int], *, team: str, seat: int | None,
                 send_delay: float = 0.0, timeout: float | None = None, deadline_ms: float = 10_000.0,
                 keep_observations: bool = False,
                 on_board: Callable[[ClientBoard], None] | None = None) -> None:
        self.agent = agent
        self.address = address
        self.team = team
        self.seat = seat
        self.send_delay = send_delay
        self.timeout = timeout
        self.deadline_ms = deadline_ms
        self.keep_observations = keep_observations
        self.on_board = on_board
        self.boards: list[ClientBoard] = []
        self.teams_line = ""
        self._sock: socket.socket | None = None
        self._file: Any = None
        self._current: int | None = None
        """The number of the board in play (for messages), ``None`` between boards."""

    # -- lines -------------------------------------------------------------------------
    def _send(self, line: str) -> None:
        if self.send_delay:
            time.sleep(self.send_delay)
        assert self._sock is not None
        self._sock.sendall(line.encode("ascii") + b"\r\n")

    def _read(self, in_board: bool = True) -> str:
        while True:
            raw = self._file.readline()
            if not raw:
                raise ProtocolError("the Table Manager closed the connection")
            line = P.normalize(raw.decode("ascii", "replace"))
            if not line:
                continue
            if line.casefold().startswith("error"):
                raise ProtocolError(f"the Table Manager sent {line!r}")
            if in_board and line.casefold().rstrip(".") == "start of board":
                raise _Restart()
            return line

    @property
    def me(self) -> str:
        assert self.seat is not None
        return P.seat_name(self.seat)

    # -- session ---------------------------------------------------------------------------
    def run(self) -> list[ClientBoard]:
        """Connect, play until ``End of session``, return the boards.

        :raises ProtocolError: if the connection fails or the TM refuses it.
        :raises SessionError: if the session breaks before ``End of session`` (an
            ``ERROR`` line, a line this client cannot follow, a closed connection).
        """
        host, port = self.address
        try:
            self._sock = socket.create_connection(self.address, timeout=self.timeout)
        except OSError as exc:
            raise ProtocolError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._file = self._sock.makefile("rb")
        try:
            self._session()
        except (ProtocolError, OSError) as exc:
            reason = str(exc) if isinstance(exc, ProtocolError) else f"connection failed: {exc.strerror or exc}"
            if not self.teams_line:
                raise ProtocolError(reason) from None
            where = f" during board {self._current}" if self._current is not None else ""
            played = len(self.boards)
            raise SessionError(f"{reason}{where}; {played} board{'' if played == 1 else 's'} played, "
                               "no End of session", self.boards) from None
        finally:
            self.close()
        return self.boards

    def close(self) -> None:
        """Close the connection."""
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None

    def _session(self) -> None:
        self._send(P.format_connect(self.team, self.seat))
        line = self._read(False)
        words = line.split()
        if len(words) < 2 or words[-1].casefold() != "seated" or P.parse_seat(words[0]) is None:
            raise ProtocolError(f"the Table Manager refused the connection: {line}")
        self.seat = P.parse_seat(words[0])
        self._send(f"{self.me} ready for teams")
        self.teams_line = self._read(False)
        self._send(f"{self.me} ready to start")
        line = self._read(False)
        while True:
            key = line.casefold().rstrip(".")
            if key == "end of session":
                return
            if key == "start of board":
                try:
                    self._board()
                except _Restart:
                    line = "Start of board"
                    continue
            line = self._read(False)

    # -- one board ---------------------------------------------------------------------------
    def _board(self) -> None:
        me = self.seat
        assert me is not None
        self._current = None
        self._send(f"{self.me} ready for deal")
        line = self._read()
        board = P.parse_board(line)
        if board is None:
            raise ProtocolError(f"expected the board line, got {line!r}")
        self._current = board.board
        self._send(f"{self.me} ready for cards")
        line = self._read()
        cards = P.parse_cards_line(line)
        if cards is None or cards[0] != me:
            raise ProtocolError(f"expected {self.me}'s cards, got {line!r}")
        view = SeatView(me, board.board, board.dealer, board.vulnerable, cards[1])
        record = ClientBoard(board.board, me)
        self.agent.start_match(MatchInfo(game="bridge", ruleset="bridge@v1", seat=me, num_players=4,
                                         match_id=f"bluechip-board-{board.board}",
                                         options={"scoring": "duplicate", "honours": False,
                                                  "rubbers": 1, "deal_cap": 30},
                                         deadline_ms=self.deadline_ms))
        while view.phase == "auction":
            actor = view.to_act
            if actor == me:
                token = call_to_string(self._decide(view, record))
                self._send(P.format_call(me, token))
            else:
                self._send(f"{self.me} ready for {P.seat_name(actor)}'s bid")
                line = self._read()
                call = P.parse_call(line)
                if call is None or call.seat != actor:
                    raise ProtocolError(f"expected {P.seat_name(actor)}'s call, got {line!r}")
                token = call.token
            view.add_call(token)
            record.calls.append(token)
        while view.phase == "play":
            player, first = view.player, not view.plays
            controller = view.declarer if player == view.dummy else player
            if controller == me:
                if view.index == 0:
                    prompt = self._read()
                    if "to lead" not in prompt.casefold():
                        log.info("expected '... to lead', got %r", prompt)
                token = STANDARD_TOKENS[self._decide(view, record)]
                self._send(P.format_play(player, token))
            else:
                who = "dummy" if player == view.dummy else P.seat_name(player)  # every seat: dummy's
                self._send(f"{self.me} ready for {who}'s card to trick {view.trick}")
                line = self._read()
                play = P.parse_play(line)
                if play is None or not (play.seat == player or play.dummy and player == view.dummy):
                    raise ProtocolError(f"expected {P.seat_name(player)}'s card, got {line!r}")
                token = play.token
            view.add_card(player, token)
            record.cards.append(token)
            if first and me != view.dummy:
                self._send(f"{self.me} ready for dummy")
                line = self._read()
                dummy = P.parse_cards_line(line)
                if dummy is None:
                    raise ProtocolError(f"expected dummy's cards, got {line!r}")
                view.set_dummy(dummy[1])
        record.ns_score = view.ns_score()
        record.completed = True
        self.boards.append(record)
        self._current = None
        ns = float(record.ns_score)
        self.agent.end_match(me, [ns, -ns, ns, -ns])
        if self.on_board is not None:
            self.on_board(record)

    def _decide(self, view: SeatView, record: ClientBoard) -> int:
        legal = view.legal()
        if len(legal) == 1:
            return legal[0]
        obs = view.observation()
        if self.keep_observations:
            record.observations.append(obs)
        actions = LegalActions(legal, _text)
        for attempt in range(MAX_RETRIES + 1):
            try:
                answer = self.agent.act(obs, actions)
                action = _resolve(answer, view.phase)
            except Exception as exc:  # noqa: BLE001 - a failing bot gets the default
                log.warning("bot failed: %s", exc)
                break
            if action in legal:
                return action
            retry = attempt < MAX_RETRIES
            try:
                self.agent.action_refused(f"{answer!r} is not legal now", retry, "illegal")
            except Exception:  # noqa: BLE001
                break
        return legal[0]


def _text(action: Any) -> str:
    a = int(action)
    return STANDARD_TOKENS[a] if a < 52 else call_to_string(a)


def _resolve(answer: Any, phase: str) -> int:
    if isinstance(answer, str):
        text = answer.strip().upper()
        try:
            return card_index(parse_card(text)) if phase == "play" else string_to_call(text)
        except (InvalidActionError, ValueError):
            return -1
    return int(answer)
