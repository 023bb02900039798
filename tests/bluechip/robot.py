"""A Blue Chip robot written for the tests from the reference alone.

It shares no code with :mod:`arena.bluechip` (its own parsing, its own bridge
bookkeeping), so it checks the host against the reference, not against itself.
It follows the message order of reference section 3 for one seat and plays either
a script (the board's whole action list; it sends the action of the current
position when it is the controller) or a simple rule: open the longest suit at
the one level with 12+ points if nobody has bid yet, otherwise pass; play the
lowest legal card.

Style switches reproduce the implementation variants of reference section 4
(upper-case seats and calls, trailing full stops, double spaces, lower-case cards,
``dummy's`` from every seat, ``received dummy``, ``Dummy plays``). Faults: hang
(stop reading and writing) or disconnect at a given own decision, or send garbage
instead of a call.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from dataclasses import dataclass, field

SEATS = ["North", "East", "South", "West"]
RANKS = "23456789TJQKA"
STRAINS = ["C", "D", "H", "S", "NT"]


@dataclass
class Style:
    upper: bool = False            # "NORTH PASSES", "EAST ready for NORTH's bid"
    trailing_dot: bool = False     # "North ready for deal."
    double_space: bool = False     # "North ready for  East's bid"
    lower_cards: bool = False      # "plays 7s"
    dummy_word_everywhere: bool = False   # BEN: "ready for dummy's card" from every seat
    received_dummy: bool = False   # GIB: "North received dummy" after dummy's cards
    literal_dummy_plays: bool = False     # declarer sends "Dummy plays 3S"
    alert: dict[int, str] = field(default_factory=dict)   # own call number -> alert text
    connect_suffix: str = ""       # " BEN-21GF 0.8.8.6"
    lower_connect: bool = False    # "connecting ..."
    version: int = 18


@dataclass
class Fault:
    kind: str                      # "hang", "disconnect", "garbage", "garbage_once"
    at: int                        # own decision number (0-based, counted over the session)
    board: int = 1


def rank_value(card: str) -> int:
    return RANKS.index(card[0])


def parse_hand(text: str) -> list[str]:
    cards, suit = [], None
    for ch in text.upper():
        if ch in "SHDC":
            suit = ch
        elif ch in RANKS and suit:
            cards.append(ch + suit)
    return cards


class Robot:
    """One seat's robot; ``run`` in a thread (``start``)."""

    def __init__(self, port: int, team: str, seat: str, *, script: list[str] | None = None,
                 style: Style | None = None, fault: Fault | None = None, reconnect: bool = False,
                 timeout: float = 20.0) -> None:
        self.port, self.team, self.seat_word = port, team, seat
        self.script = script
        self.style = style or Style()
        self.fault = fault
        self.reconnect = reconnect
        self.timeout = timeout
        self.transcript: list[tuple[str, str, float]] = []
        self.boards: list[dict[str, object]] = []
        self.ended = False
        self.error: str | None = None
        self.decisions = 0
        self.seat = -1
        self.thread: threading.Thread | None = None
        self._buf = b""
        self._sock: socket.socket | None = None
        self.connections = 0

    # -- plumbing ------------------------------------------------------------------
    def start(self) -> Robot:
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()
        return self

    def join(self, timeout: float = 20.0) -> None:
        assert self.thread is not None
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"robot {self.seat_word} still running"

    def _main(self) -> None:
        while True:
            try:
                self.run()
                return
            except _Reconnect:
                continue
            except Exception as exc:  # noqa: BLE001 - reported to the test
                self.error = f"{type(exc).__name__}: {exc}"
                if self.reconnect and not self.ended:
                    time.sleep(0.05)
                    self.fault = None
                    continue
                return

    def send(self, text: str) -> None:
        if self.style.double_space:
            text = text.replace(" ready for ", " ready for  ")
        if self.style.trailing_dot and " ready " in text:
            text += "."
        self.transcript.append(("out", text, time.monotonic()))
        assert self._sock is not None
        self._sock.sendall(text.encode("ascii") + b"\r\n")

    def recv(self) -> str:
        assert self._sock is not None
        while b"\n" not in self._buf:
            chunk = self._sock.recv(4096)
            if not chunk:
                raise ConnectionError("TM closed the connection")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\n", 1)
        line = raw.decode("ascii").rstrip("\r")
        self.transcript.append(("in", line, time.monotonic()))
        return line

    def name(self, seat: int) -> str:
        return SEATS[seat].upper() if self.style.upper else SEATS[seat]

    # -- session ---------------------------------------------------------------------
    def run(self) -> None:
        self._buf = b""
        self._sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.connections += 1
        word = "connecting" if self.style.lower_connect else "Connecting"
        self.send(f'{word} "{self.team}" as {self.seat_word} using protocol version '
                  f"{self.style.version}{self.style.connect_suffix}")
        seated = self.recv()
        m = re.match(r'^(\w+) \("(.*)"\) seated$', seated)
        if not m:
            raise ConnectionError(f"not seated: {seated}")
        self.seat = SEATS.index(m.group(1))
        me = self.name(self.seat)
        self.send(f"{me} ready for teams")
        self.teams = self.recv()
        self.send(f"{me} ready to start")
        while True:
            line = self.recv()
            if line == "End of session":
                self.ended = True
                self._sock.close()
                return
            if line == "Start of board":
                self.board()

    def board(self) -> None:
        me_i = self.seat
        me = self.name(me_i)
        self.send(f"{me} ready for deal")
        m = re.match(r"^Board number (\d+)\. Dealer (\w+)\. (Neither|N/S|E/W|Both) vulnerable\.$", self.recv())
        assert m, "board line"
        board_no, dealer = int(m.group(1)), SEATS.index(m.group(2))
        self.send(f"{me} ready for cards")
        m = re.match(rf"^{SEATS[me_i]}'s cards : (S [^.]+\. H [^.]+\. D [^.]+\. C [^.]+\.)$", self.recv())
        assert m, "cards line"
        hand = parse_hand(m.group(1))
        assert len(hand) == 13
        rec: dict[str, object] = {"board": board_no, "hand": list(hand), "calls": [], "cards": []}
        calls: list[str] = []
        # -- auction
        seat = dealer
        last_bid, last_bidder, first_namer = None, -1, {}
        passes = 0
        while True:
            if seat == me_i:
                token = self.choose_call(hand, calls, board_no)
                text = {"P": "passes", "X": "doubles", "XX": "redoubles"}.get(token, f"bids {token}")
                if self.style.upper:
                    text = text.upper() if token in ("P", "X", "XX") else text
                line = f"{me} {text}"
                n_own = sum(1 for i, _ in enumerate(calls) if (dealer + i) % 4 == me_i)
                if n_own in self.style.alert:
                    line += f" Alert. {self.style.alert[n_own]}".rstrip()
                self.send(line)
            else:
                self.send(f"{me} ready for {self.name(seat)}'s bid")
                line = self.recv()
                m = re.match(rf"^{SEATS[seat]} (passes|doubles|redoubles|bids ([1-7])(C|D|H|S|NT))( Alert\..*)?$",
                             line)
                assert m, f"relayed call {line!r}"
                token = {"passes": "P", "doubles": "X", "redoubles": "XX"}.get(m.group(1), "") or \
                    m.group(2) + m.group(3)
            calls.append(token)
            if token == "P":
                passes += 1
            else:
                passes = 0
                if token not in ("X", "XX"):
                    last_bid, last_bidder = token, seat
                    strain = token[1:]
                    first_namer.setdefault((seat % 2, strain), seat)
            seat = (seat + 1) % 4
            if (last_bid is None and passes == 4) or (last_bid is not None and passes == 3):
                break
        rec["calls"] = calls
        if last_bid is None:
            self.recv_timing()
            self.boards.append(rec)
            return
        strain = last_bid[1:]
        declarer = first_namer[(last_bidder % 2, strain)]
        dummy = (declarer + 2) % 4
        trump = None if strain == "NT" else strain
        leader = (declarer + 1) % 4
        dummy_hand: list[str] = list(hand) if me_i == dummy else []
        played: list[str] = []
        for trick_no in range(1, 14):
            trick: list[str] = []
            for k in range(4):
                player = (leader + k) % 4
                controller = declarer if player == dummy else player
                if controller == me_i:
                    if k == 0:
                        prompt = self.recv()
                        want = "Dummy to lead" if player == dummy else f"{SEATS[me_i]} to lead"
                        assert prompt == want, f"{prompt!r} != {want!r}"
                    source = dummy_hand if player == dummy else hand
                    card = self.choose_card(source, trick, len(played) + len(calls), board_no)
                    shown = card.lower() if self.style.lower_cards else card
                    who = "Dummy" if player == dummy and self.style.literal_dummy_plays else self.name(player)
                    self.send(f"{who} plays {shown}")
                else:
                    if player == dummy and (me_i == dummy or self.style.dummy_word_everywhere):
                        who = "dummy"
                    else:
                        who = self.name(player)
                    self.send(f"{me} ready for {who}'s card to trick {trick_no}")
                    line = self.recv()
                    m = re.match(rf"^{SEATS[player]} plays ([2-9TJQKA][SHDC])$", line)
                    assert m, f"relayed card {line!r} (expected {SEATS[player]})"
                    card = m.group(1)
                if player == me_i and card in hand:
                    hand.remove(card)
                if player == dummy and card in dummy_hand:
                    dummy_hand.remove(card)
                trick.append(card)
                played.append(card)
                if trick_no == 1 and k == 0 and me_i != dummy:
                    self.send(f"{me} ready for dummy")
                    m = re.match(r"^Dummy's cards : (S [^.]+\. H [^.]+\. D [^.]+\. C [^.]+\.)$", self.recv())
                    assert m, "dummy's cards"
                    dummy_hand = parse_hand(m.group(1))
                    assert len(dummy_hand) == 13
                    if self.style.received_dummy:
                        self.send(f"{me} received dummy")
            leader = (leader + self.winner(trick, trump)) % 4
        rec["cards"] = played
        rec["declarer"] = declarer
        self.recv_timing()
        self.boards.append(rec)

    def recv_timing(self) -> None:
        line = self.recv()
        assert re.match(r"^Timing - N/S : this board  \d\d:\d\d,  total  \d+:\d\d:\d\d\.  "
                        r"E/W : this board  \d\d:\d\d,  total  \d+:\d\d:\d\d$", line), line

    @staticmethod
    def winner(trick: list[str], trump: str | None) -> int:
        best = 0
        for i in range(1, 4):
            c, b = trick[i], trick[best]
            if c[1] == b[1]:
                if rank_value(c) > rank_value(b):
                    best = i
            elif c[1] == trump:
                best = i
        return best

    # -- decisions -----------------------------------------------------------------------
    def _fault_now(self) -> str | None:
        n = self.decisions
        self.decisions += 1
        if self.fault is not None and self.fault.at == n:
            return self.fault.kind
        return None

    def _apply_fault(self, kind: str) -> None:
        if kind == "hang":
            self._hang_until_closed()
        if kind == "disconnect":
            assert self._sock is not None
            self._sock.close()
            raise _Reconnect() if self.reconnect else ConnectionError("robot disconnected on purpose")

    def _hang_until_closed(self) -> None:
        assert self._sock is not None
        self._sock.settimeout(30)
        while self._sock.recv(4096):  # ignore everything until the TM closes us
            pass
        if self.reconnect:
            raise _Reconnect()
        raise ConnectionError("hung robot closed by the TM")

    def choose_call(self, hand: list[str], calls: list[str], board: int) -> str:
        kind = self._fault_now()
        if kind in ("hang", "disconnect"):
            self._apply_fault(kind)
        if kind in ("garbage", "garbage_once"):
            self.send(f"{self.name(self.seat)} bids 9Q")
            reply = self.recv()
            assert reply == "Illegal bid", reply
            if kind == "garbage":
                self.send("!!garbage!!")
                assert self.recv() == "Illegal bid"
                self.send(f"{self.name(self.seat)} plays AS")
                # no retry left: the TM closes the connection
                self.recv()
                raise ConnectionError("unreachable: the TM should have closed the connection")
        if self.script is not None and board == 1:
            return self.script[len(calls)]
        if any(c not in ("P",) for c in calls):
            return "P"
        points = sum({"A": 4, "K": 3, "Q": 2, "J": 1}.get(c[0], 0) for c in hand)
        if points < 12:
            return "P"
        suit = max("SHDC", key=lambda s: (sum(1 for c in hand if c[1] == s), "CDHS".index(s)))
        return f"1{suit}"

    def choose_card(self, source: list[str], trick: list[str], position: int, board: int = 1) -> str:
        kind = self._fault_now()
        if kind in ("hang", "disconnect"):
            self._apply_fault(kind)
        if self.script is not None and board == 1:
            return self.script[position]
        if trick:
            follow = [c for c in source if c[1] == trick[0][1]]
            if follow:
                return min(follow, key=rank_value)
        return min(source, key=lambda c: (rank_value(c), "CDHS".index(c[1])))


class _Reconnect(Exception):
    pass
