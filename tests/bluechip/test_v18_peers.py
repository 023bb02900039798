"""Issue 27: arena's Blue Chip client and host against peers written here from the v18 text.

Neither peer uses :mod:`arena.bluechip` (no parser, no formatter, no bridge rules of
arena's): every line they send or expect is spelled out below as protocol v18 gives
it (``shared/reference/bluechip-tm.md`` sections 2 and 3), with their own dealing,
auction and trick bookkeeping.

* :class:`SpecTM`, a Table Manager for four seat connections. Like the Table
  Managers of BEN's and bridge_env's worlds, it requires
  ``[Seat] ready for dummy's card to trick [n]`` **from every seat** for dummy's
  cards, and answers any other line where it waits for a ``ready`` with
  ``ERROR: Unexpected message received.`` and closes every connection.
* :class:`SpecRobot`, a robot that says ``dummy's`` from every seat (BEN), or with
  ``seat_names=True`` the dummy's seat name from the defenders (SPEC's own text).

Everything runs over real TCP on 127.0.0.1 (free ports), every read has a timeout.
"""

from __future__ import annotations

import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.bluechip import BlueChipAgent, BlueChipClient, BlueChipHost, run_match
from arena.bluechip.cli import app
from arena.bots import make_bot
from arena.games import get_game
from arena.records.record import load

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 20.0

SEATS = ("North", "East", "South", "West")
RANKS = "23456789TJQKA"
STRAINS = ("C", "D", "H", "S", "NT")
VUL_NAMES = ("Neither", "N/S", "E/W", "Both")
BOARD_VUL = (0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2)  # boards 1..16: None, N/S, E/W, Both, ...
TIMING = ("Timing - N/S : this board  00:01,  total  0:00:01.  "
          "E/W : this board  00:01,  total  0:00:01")
UNEXPECTED = "ERROR: Unexpected message received."


# -- the peers' own bridge bookkeeping ----------------------------------------------------
def hand_line(cards: list[str]) -> str:
    """``S A K J 4 3. H -. D 6 5 4 3. C Q J T 9.``"""
    groups = []
    for suit in "SHDC":
        ranks = sorted((c[0] for c in cards if c[1] == suit), key=RANKS.index, reverse=True)
        groups.append(f"{suit} {' '.join(ranks) if ranks else '-'}.")
    return " ".join(groups)


def read_hand(text: str) -> list[str]:
    cards, suit = [], ""
    for token in text.replace(".", " ").split():
        if token in ("S", "H", "D", "C"):
            suit = token
        elif token != "-":
            cards.append(("T" if token == "10" else token) + suit)
    return cards


def call_text(call: str) -> str:
    return {"P": "passes", "X": "doubles", "XX": "redoubles"}.get(call, f"bids {call}")


def read_call(words: str) -> str:
    """``passes`` / ``doubles`` / ``redoubles`` / ``bids 1NT`` (any case) -> P, X, XX, 1NT."""
    w = words.casefold()
    if w in ("passes", "doubles", "redoubles"):
        return {"passes": "P", "doubles": "X", "redoubles": "XX"}[w]
    return w.split()[1].upper()


def auction_over(calls: list[str]) -> bool:
    if len(calls) < 4:
        return False
    return all(c == "P" for c in calls) or (calls[-3:] == ["P", "P", "P"]
                                            and any(c != "P" for c in calls[:-3]))


def bid_rank(call: str) -> int:
    return (int(call[0]) - 1) * 5 + STRAINS.index(call[1:])


def call_legal(calls: list[str], dealer: int, call: str) -> bool:
    seat = (dealer + len(calls)) % 4
    actions = [(i, c) for i, c in enumerate(calls) if c != "P"]
    bids = [c for c in calls if c not in ("P", "X", "XX")]
    if call == "P":
        return True
    if call == "X":
        return bool(actions) and actions[-1][1] not in ("X", "XX") and (dealer + actions[-1][0] - seat) % 2 == 1
    if call == "XX":
        return bool(actions) and actions[-1][1] == "X" and (dealer + actions[-1][0] - seat) % 2 == 1
    return not bids or bid_rank(call) > bid_rank(bids[-1])


def contract_of(calls: list[str], dealer: int) -> tuple[str, int] | None:
    """(strain, declarer) of a finished auction, ``None`` when passed out."""
    last = [(i, c) for i, c in enumerate(calls) if c not in ("P", "X", "XX")]
    if not last:
        return None
    i, bid = last[-1]
    side, strain = (dealer + i) % 2, bid[1:]
    for j, c in enumerate(calls):
        if c not in ("P", "X", "XX") and c[1:] == strain and (dealer + j) % 2 == side:
            return strain, (dealer + j) % 4
    raise AssertionError("unreachable")


def trick_winner(trick: list[tuple[int, str]], trump: str | None) -> int:
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if card[1] == best[1]:
            if RANKS.index(card[0]) > RANKS.index(best[0]):
                best_seat, best = seat, card
        elif card[1] == trump:
            best_seat, best = seat, card
    return best_seat


def same(line: str, wanted: str) -> bool:
    """SPEC: not case-sensitive, leading and trailing spaces trimmed."""
    return line.strip().casefold() == wanted.casefold()


class Lines:
    """One connection's lines (split on LF, a CR before it dropped), reads time out."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.settimeout(TIMEOUT)
        self.buf = b""
        self.sent: list[str] = []
        self.got: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)
        self.sock.sendall(text.encode("ascii") + b"\r\n")

    def read(self) -> str:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("the other side closed the connection")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\n", 1)
        line = raw.decode("ascii").rstrip("\r")
        self.got.append(line)
        return line

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


# -- the Table Manager ------------------------------------------------------------------------
class _Stop(Exception):
    pass


class SpecTM:
    """A v18 Table Manager for four connections, strict about ``dummy's``.

    :param fail_at_board: answer that board's ``ready for deal`` lines with
        ``ERROR: Unexpected message received.`` and close.
    :param close_at_board: close every connection instead of that board's
        ``Start of board`` (no ``End of session``).
    """

    def __init__(self, boards: int, *, seed: int = 0, fail_at_board: int | None = None,
                 close_at_board: int | None = None) -> None:
        self.boards = boards
        self.seed = seed
        self.fail_at_board = fail_at_board
        self.close_at_board = close_at_board
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(TIMEOUT)
        self.port = int(self.server.getsockname()[1])
        self.conns: dict[int, Lines] = {}
        self.refused: list[str] = []
        """Every line this TM answered with an error (seat, line, what it wanted)."""
        self.played: list[dict[str, Any]] = []
        self.dummy_asks: list[tuple[int, str]] = []
        """(seat, role) of every ``ready for dummy's card`` received."""
        self.crash: str | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def start(self) -> SpecTM:
        self.thread.start()
        return self

    def join(self) -> None:
        self.thread.join(TIMEOUT * 3)
        assert not self.thread.is_alive(), "the TM is still running"

    def _main(self) -> None:
        try:
            self._session()
        except _Stop:
            pass
        except Exception as exc:  # noqa: BLE001 - reported to the test
            self.crash = f"{type(exc).__name__}: {exc}"
        finally:
            for conn in self.conns.values():
                conn.close()
            self.server.close()

    # -- lines ------------------------------------------------------------------------------
    def expect(self, seat: int, wanted: str) -> None:
        line = self.conns[seat].read()
        if not same(line, wanted):
            self.refuse(seat, line, wanted)

    def refuse(self, seat: int, line: str, wanted: str) -> None:
        self.refused.append(f"{SEATS[seat]}: {line!r} (wanted {wanted!r})")
        self.conns[seat].send(UNEXPECTED)
        raise _Stop()

    def to_all(self, text: str) -> None:
        for seat in range(4):
            self.conns[seat].send(text)

    # -- session ----------------------------------------------------------------------------
    def _session(self) -> None:
        teams: dict[int, str] = {}
        while len(self.conns) < 4:
            sock, _ = self.server.accept()
            conn = Lines(sock)
            m = re.match(r'^connecting "([^"]+)" as (north|east|south|west) using protocol version 18\b',
                         conn.read().strip(), re.I)
            if m is None or SEATS.index(m.group(2).title()) in self.conns:
                conn.send("ERROR: Expected 'Connecting ....'")
                conn.close()
                continue
            seat = SEATS.index(m.group(2).title())
            self.conns[seat], teams[seat] = conn, m.group(1)
            conn.send(f'{SEATS[seat]} ("{m.group(1)}") seated')
            self.expect(seat, f"{SEATS[seat]} ready for teams")
        self.to_all(f'Teams : N/S : "{teams[0]}" E/W : "{teams[1]}"')
        for seat in range(4):
            self.expect(seat, f"{SEATS[seat]} ready to start")
        for board in range(1, self.boards + 1):
            if board == self.close_at_board:
                return
            self._board(board)
        self.to_all("End of session")
        time.sleep(0.2)

    def _board(self, number: int) -> None:
        self.to_all("Start of board")
        for seat in range(4):
            self.expect(seat, f"{SEATS[seat]} ready for deal")
        if number == self.fail_at_board:
            self.to_all(UNEXPECTED)
            raise _Stop()
        deck = [r + s for s in "SHDC" for r in RANKS]
        random.Random(self.seed * 1000 + number).shuffle(deck)
        hands = {s: deck[13 * s:13 * s + 13] for s in range(4)}
        dealer = (number - 1) % 4
        vul = VUL_NAMES[BOARD_VUL[(number - 1) % 16]]
        self.to_all(f"Board number {number}. Dealer {SEATS[dealer]}. {vul} vulnerable.")
        for seat in range(4):
            self.expect(seat, f"{SEATS[seat]} ready for cards")
            self.conns[seat].send(f"{SEATS[seat]}'s cards : {hand_line(hands[seat])}")
        calls: list[str] = []
        while not auction_over(calls):
            bidder = (dealer + len(calls)) % 4
            line = self.conns[bidder].read()
            m = re.match(rf"^{SEATS[bidder]} (passes|doubles|redoubles|bids [1-7](?:C|D|H|S|NT))(?: Alert\..*)?$",
                         " ".join(line.split()), re.I)
            if m is None or not call_legal(calls, dealer, read_call(m.group(1))):
                self.refuse(bidder, line, f"{SEATS[bidder]}'s legal call")
            assert m is not None
            call = read_call(m.group(1))
            calls.append(call)
            for seat in range(4):
                if seat != bidder:
                    self.expect(seat, f"{SEATS[seat]} ready for {SEATS[bidder]}'s bid")
                    self.conns[seat].send(f"{SEATS[bidder]} {call_text(call)}")
        record: dict[str, Any] = {"board": number, "calls": calls, "contract": None, "cards": []}
        self.played.append(record)
        contract = contract_of(calls, dealer)
        if contract is None:
            self.to_all(TIMING)
            return
        strain, declarer = contract
        record["contract"], record["declarer"] = strain, declarer
        trump = None if strain == "NT" else strain
        dummy = (declarer + 2) % 4
        leader = (declarer + 1) % 4
        for trick_no in range(1, 14):
            trick: list[tuple[int, str]] = []
            for k in range(4):
                player = (leader + k) % 4
                controller = declarer if player == dummy else player
                if k == 0:
                    self.conns[controller].send("Dummy to lead" if player == dummy else f"{SEATS[player]} to lead")
                line = self.conns[controller].read()
                m = re.match(rf"^{SEATS[player]} plays ([2-9TJQKA][SHDC])$", line.strip(), re.I)
                card = m.group(1).upper() if m else ""
                held = hands[player]
                if m is None or card not in held or (trick and card[1] != trick[0][1][1]
                                                     and any(c[1] == trick[0][1][1] for c in held)):
                    self.refuse(controller, line, f"{SEATS[player]}'s legal card")
                held.remove(card)
                trick.append((player, card))
                record["cards"].append(card)
                for seat in range(4):
                    if seat == controller:
                        continue
                    if player == dummy:  # the word BEN and bridge_env want from every seat
                        self.expect(seat, f"{SEATS[seat]} ready for dummy's card to trick {trick_no}")
                        self.dummy_asks.append((seat, "dummy" if seat == dummy else "defender"))
                    else:
                        self.expect(seat, f"{SEATS[seat]} ready for {SEATS[player]}'s card to trick {trick_no}")
                    self.conns[seat].send(f"{SEATS[player]} plays {card}")
                if trick_no == 1 and k == 0:
                    for seat in range(4):
                        if seat != dummy:
                            self.expect(seat, f"{SEATS[seat]} ready for dummy")
                            self.conns[seat].send(f"Dummy's cards : {hand_line(hands[dummy])}")
            leader = trick_winner(trick, trump)
        self.to_all(TIMING)


# -- the robot -----------------------------------------------------------------------------------
class SpecRobot:
    """A v18 robot for one seat: opens one of its longest suit with 12+ points when
    nobody has bid, passes otherwise, plays the lowest card that follows suit.

    :param seat_names: defenders name the dummy's seat (SPEC) instead of ``dummy's``.
    :param leave_after: close the connection after this many boards.
    :param hang_at: on its n-th ``Start of board``, send nothing more (until closed).
    """

    def __init__(self, port: int, team: str, seat: int, *, seat_names: bool = False,
                 leave_after: int | None = None, hang_at: int | None = None) -> None:
        self.port, self.team, self.seat = port, team, seat
        self.seat_names = seat_names
        self.leave_after = leave_after
        self.hang_at = hang_at
        self.boards: list[dict[str, Any]] = []
        self.refusal: str | None = None
        self.closed_by_tm = False
        self.ended = False
        self.error: str | None = None
        self.lines: Lines | None = None
        self.thread = threading.Thread(target=self._main, daemon=True)

    def start(self) -> SpecRobot:
        self.thread.start()
        return self

    def join(self) -> None:
        self.thread.join(TIMEOUT * 2)
        assert not self.thread.is_alive(), f"robot {SEATS[self.seat]} still running"

    def _main(self) -> None:
        try:
            self._session()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.lines is not None:
                self.lines.close()

    def _session(self) -> None:
        me = SEATS[self.seat]
        self.lines = io = Lines(socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT))
        io.send(f'Connecting "{self.team}" as {me} using protocol version 18')
        reply = io.read()
        if not same(reply, f'{me} ("{self.team}") seated'):
            self.refusal = reply
            try:
                io.read()
            except EOFError:
                self.closed_by_tm = True
            return
        io.send(f"{me} ready for teams")
        io.read()
        io.send(f"{me} ready to start")
        starts = 0
        while True:
            line = io.read()
            if same(line, "End of session"):
                self.ended = True
                return
            if same(line, "Start of board"):
                starts += 1
                if starts == self.hang_at:
                    while io.sock.recv(4096):
                        pass
                    return
                self._board(io)
                if self.leave_after is not None and len(self.boards) >= self.leave_after:
                    return

    def _board(self, io: Lines) -> None:
        me_i = self.seat
        me = SEATS[me_i]
        io.send(f"{me} ready for deal")
        m = re.match(r"^Board number (\d+)\. Dealer (North|East|South|West)\. (Neither|N/S|E/W|Both) vulnerable\.?$",
                     io.read().strip())
        assert m, "board line"
        number, dealer = int(m.group(1)), SEATS.index(m.group(2))
        io.send(f"{me} ready for cards")
        m = re.match(rf"^{me}'s cards : (.*)$", io.read().strip())
        assert m, "own cards"
        hand = read_hand(m.group(1))
        assert len(hand) == 13
        calls: list[str] = []
        while not auction_over(calls):
            bidder = (dealer + len(calls)) % 4
            if bidder == me_i:
                points = sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[0], 0) for c in hand)
                call = "P"
                if points >= 12 and all(c == "P" for c in calls):
                    call = "1" + max("CDHS", key=lambda s: (sum(c[1] == s for c in hand), s == "S", s == "H"))
                io.send(f"{me} {call_text(call)}")
            else:
                io.send(f"{me} ready for {SEATS[bidder]}'s bid")
                m = re.match(rf"^{SEATS[bidder]} (passes|doubles|redoubles|bids [1-7](?:C|D|H|S|NT))(?: Alert\..*)?$",
                             io.read().strip())
                assert m, "relayed call"
                call = read_call(m.group(1))
            calls.append(call)
        contract = contract_of(calls, dealer)
        record: dict[str, Any] = {"board": number, "calls": calls, "contract": contract}
        if contract is None:
            assert io.read().startswith("Timing - ")
            self.boards.append(record)
            return
        strain, declarer = contract
        trump = None if strain == "NT" else strain
        dummy = (declarer + 2) % 4
        dummy_hand = list(hand) if me_i == dummy else []
        leader = (declarer + 1) % 4
        for trick_no in range(1, 14):
            trick: list[tuple[int, str]] = []
            for k in range(4):
                player = (leader + k) % 4
                controller = declarer if player == dummy else player
                if controller == me_i:
                    if k == 0:
                        prompt = io.read()
                        assert same(prompt, "Dummy to lead" if player == dummy else f"{me} to lead"), prompt
                    source = dummy_hand if player == dummy else hand
                    follow = [c for c in source if trick and c[1] == trick[0][1][1]]
                    card = min(follow or source, key=lambda c: (RANKS.index(c[0]), c[1]))
                    io.send(f"{SEATS[player]} plays {card}")
                else:
                    dummys = player == dummy and (me_i == dummy or not self.seat_names)
                    who = "dummy" if dummys else SEATS[player]
                    io.send(f"{me} ready for {who}'s card to trick {trick_no}")
                    m = re.match(rf"^{SEATS[player]} plays ([2-9TJQKA][SHDC])$", io.read().strip())
                    assert m, "relayed card"
                    card = m.group(1)
                if player == me_i and card in hand:
                    hand.remove(card)
                if player == dummy and card in dummy_hand:
                    dummy_hand.remove(card)
                trick.append((player, card))
                if trick_no == 1 and k == 0 and me_i != dummy:
                    io.send(f"{me} ready for dummy")
                    m = re.match(r"^Dummy's cards : (.*)$", io.read().strip())
                    assert m, "dummy's cards"
                    dummy_hand = read_hand(m.group(1))
            leader = trick_winner(trick, trump)
        assert io.read().startswith("Timing - ")
        self.boards.append(record)


# -- helpers ------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _clients(port: int, seats: list[int], team: str = "ARENA") -> list[tuple[BlueChipClient, list[Exception],
                                                                            threading.Thread]]:
    out = []
    for seat in seats:
        client = BlueChipClient(make_bot("bridge", "heuristic"), ("127.0.0.1", port), team=team, seat=seat,
                                timeout=TIMEOUT)
        errors: list[Exception] = []

        def run(c: BlueChipClient = client, e: list[Exception] = errors) -> None:
            try:
                c.run()
            except Exception as exc:  # noqa: BLE001 - reported to the test
                e.append(exc)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        out.append((client, errors, thread))
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _cli_client(port: int, seat: str = "N") -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena", "bluechip", "client", "--tm", f"127.0.0.1:{port}",
                             "--seat", seat, "--bot", "heuristic", "--team", "ARENA"], env=_env(), cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_port(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return  # the host ignores a connection that never says Connecting
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


# -- the client at a third-party TM -------------------------------------------------------------
def test_client_plays_at_a_tm_that_requires_dummys_from_every_seat() -> None:
    tm = SpecTM(3, seed=2).start()
    clients = _clients(tm.port, [0, 1, 2, 3])
    tm.join()
    for client, errors, thread in clients:
        thread.join(TIMEOUT)
        assert errors == [], errors
    assert tm.crash is None and tm.refused == [], tm.refused
    assert len(tm.played) == 3 and any(b["contract"] for b in tm.played)
    assert {role for _, role in tm.dummy_asks} == {"dummy", "defender"}  # both defenders and dummy said it
    for client, _, _ in clients:
        assert [b.board for b in client.boards] == [1, 2, 3]
        assert all(b.completed for b in client.boards)
    assert [b.cards for b in clients[0][0].boards] == [b["cards"] for b in tm.played]


def test_client_command_plays_at_that_tm() -> None:
    tm = SpecTM(2, seed=5).start()
    proc = _cli_client(tm.port, "N")
    clients = _clients(tm.port, [1, 2, 3])
    try:
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    tm.join()
    assert tm.refused == [] and tm.crash is None, tm.refused
    assert proc.returncode == 0, err
    assert "session over: 2 boards" in out
    for _, errors, thread in clients:
        thread.join(TIMEOUT)
        assert errors == []


@pytest.mark.parametrize("fault", ["error", "close"])
def test_client_command_fails_when_the_session_breaks(fault: str) -> None:
    tm = SpecTM(3, seed=5, **({"fail_at_board": 2} if fault == "error" else {"close_at_board": 2})).start()
    proc = _cli_client(tm.port, "E")
    clients = _clients(tm.port, [0, 2, 3])
    try:
        out, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    tm.join()
    for _, _, thread in clients:
        thread.join(TIMEOUT)
    assert proc.returncode == 1, (out, err)
    assert "session over" not in out and "board 1:" in out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("arena bluechip client: error: ")
    assert (UNEXPECTED if fault == "error" else "closed the connection") in lines[0]
    assert "1 board played" in lines[0]
    for client, errors, _ in clients:  # the library reports it too, with the boards played
        assert len(errors) == 1 and [b.board for b in errors[0].boards] == [1]  # type: ignore[attr-defined]


def test_client_command_cannot_connect() -> None:
    res = CliRunner().invoke(app, ["client", "--tm", f"127.0.0.1:{_free_port()}", "--seat", "N"])
    assert res.exit_code == 1
    assert res.stderr.strip().startswith("arena bluechip client: error: cannot connect to 127.0.0.1:")
    assert len(res.stderr.strip().splitlines()) == 1


# -- the host and robots written here ------------------------------------------------------------
@pytest.mark.parametrize("seat_names", [False, True], ids=["dummys-everywhere", "defenders-name-the-seat"])
def test_host_accepts_both_forms_for_dummys_card(host: BlueChipHost, seat_names: bool) -> None:
    teams = ("NS", "EW", "NS", "EW")
    robots = [SpecRobot(host.port, teams[s], s, seat_names=seat_names).start() for s in range(4)]
    assert host.wait_seated([(teams[s], s) for s in range(4)], 5)
    game = get_game("bridge")
    for board in (1, 2, 3):
        agents = [BlueChipAgent(host, teams[s], s) for s in range(4)]
        record = run_match(game, agents, seed=40 + board, init={"board": board}, deadline_ms=5000).record
        assert record.faults == [] and record.terminal
        for agent in agents:
            assert agent.wait_board(5)
    host.stop()
    for r in robots:
        r.join()
        assert r.error is None and r.ended and len(r.boards) == 3
    sent = [line for r in robots for line in (r.lines.sent if r.lines else [])]
    assert any("ready for dummy's card" in line for line in sent)
    defenders_named = [line for line in sent if re.search(r"ready for (North|East|South|West)'s card", line)]
    assert defenders_named


def _host(args: list[str]) -> tuple[dict[str, Any], threading.Thread]:
    result: dict[str, Any] = {}

    def run() -> None:
        result["r"] = CliRunner().invoke(app, ["host", *args])
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return result, thread


def test_host_refuses_a_wrong_team_name_and_names_it() -> None:
    port = _free_port()
    result, thread = _host(["--team", "TEAM", "--against", "heuristic", "--boards", "1",
                            "--address", f"127.0.0.1:{port}", "--no-pauses", "--wait", "3"])
    _wait_port(port)
    robots = [SpecRobot(port, "WRONG" if s == 0 else "TEAM", s).start() for s in range(4)]
    robots[0].join()
    assert robots[0].refusal is not None and robots[0].refusal.upper().startswith("ERROR")
    assert "team name" in robots[0].refusal.casefold() and robots[0].closed_by_tm
    thread.join(30)
    res = result["r"]
    assert res.exit_code == 1, res.output
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("arena bluechip host: error: ") and "TEAM North" in last and '"WRONG"' in last
    for r in robots[1:]:
        r.join()


def test_host_stops_a_session_whose_robots_are_gone(tmp_path: Path) -> None:
    port = _free_port()
    out = tmp_path / "records.jsonl"
    result, thread = _host(["--team", "TEAM", "--against", "heuristic", "--boards", "4",
                            "--address", f"127.0.0.1:{port}", "--no-pauses", "--wait", "10",
                            "--seat-wait", "1", "--records", str(out)])
    _wait_port(port)
    robots = [SpecRobot(port, "TEAM", s, leave_after=1 if s == 0 else None).start() for s in range(4)]
    t0 = time.monotonic()
    thread.join(40)
    assert not thread.is_alive()
    res = result["r"]
    assert res.exit_code == 1, res.output
    assert time.monotonic() - t0 < 20
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("arena bluechip host: error: ") and "TEAM North" in last and "board 2" in last
    assert "board 1:" in res.stdout and "board 2:" not in res.stdout
    with out.open() as fp:
        records = load(fp)
    assert len(records) == 2 and all(r.terminal for r in records)  # board 1, both rooms
    for r in robots:
        r.join()
    assert len(robots[0].boards) == 1 and all(r.ended for r in robots[1:])


def test_host_records_survive_a_killed_session(tmp_path: Path) -> None:
    port = _free_port()
    out = tmp_path / "records.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "arena", "bluechip", "host", "--team", "TEAM", "--against",
                             "heuristic", "--boards", "6", "--address", f"127.0.0.1:{port}", "--no-pauses",
                             "--wait", "30", "--deadline-ms", "60000", "--records", str(out)],
                            env=_env(), cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    robots: list[SpecRobot] = []
    try:
        _wait_port(port)
        robots = [SpecRobot(port, "TEAM", s, hang_at=2).start() for s in range(4)]  # board 2 never ends
        end = time.monotonic() + 30
        while time.monotonic() < end and not (out.exists() and len(out.read_text().splitlines()) >= 2):
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    with out.open() as fp:
        records = load(fp)
    assert len(records) == 2 and all(r.terminal for r in records)
    assert [r.init["board"] for r in records] == [1, 1]  # both rooms of board 1
    for r in robots:
        r.join()


def test_package_docstring_says_how_the_tournament_hook_is_wired() -> None:
    import importlib

    import arena.bluechip as bc

    doc = bc.__doc__ or ""
    assert "not wired" not in doc
    hook = doc[doc.index("Tournament hook"):]
    refs = re.findall(r":(?:func|mod|class):`~?([\w.]+)`", hook)
    assert "arena.tournaments.runner.play_spec" in refs and "arena.tournaments.runner.build_agents" in refs
    for ref in refs:  # every entry point the docstring names exists
        if ref.startswith("arena."):
            module, _, name = ref.rpartition(".")
            try:
                importlib.import_module(ref)
            except ImportError:
                assert hasattr(importlib.import_module(module), name), ref
    assert "arena tournament run" in hook and "--bluechip" in hook


def test_the_tournament_host_refuses_a_robot_of_another_team() -> None:
    """``arena tournament run --bluechip`` hosts the Table Manager for the file's
    Blue Chip teams: a robot connecting with another team name is refused with the
    protocol's error (before, it was seated and then heard nothing for ever)."""
    from arena.bluechip import current_host, stop_host
    from arena.cli import _start_bluechip

    _start_bluechip("127.0.0.1:0", True, ["TEAM-A", "TEAM-B"])
    try:
        host = current_host()
        assert host is not None
        stranger = SpecRobot(host.port, "STRANGER", 0).start()
        stranger.join()
        assert stranger.refusal is not None and "team name" in stranger.refusal.casefold()
        assert stranger.closed_by_tm
        member = SpecRobot(host.port, "TEAM-A", 1)
        member.start()
        assert host.wait_seated([("TEAM-A", 1)], 5)
    finally:
        stop_host()
