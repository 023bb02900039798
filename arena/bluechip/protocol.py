"""Blue Chip Table Manager protocol v18: the exact lines we send, lenient parsers.

Pure text functions shared by the host (:mod:`arena.bluechip.host`) and the client
adapter (:mod:`arena.bluechip.client`); no I/O. Cards and calls are arena tokens
(``AS``, ``TH``; ``P``, ``X``, ``XX``, ``1C`` .. ``7N``), seats 0..3 (N, E, S, W).

Sending follows the reference's section 6: Title-case seats, single spaces, no
trailing space; the caller appends CR LF. Reading folds case, trims, collapses runs
of spaces, accepts a trailing full stop on control lines, lower-case cards, ``10``
for the ten, suit-then-rank cards and ``NT`` or ``N``.

>>> format_hand(["AS", "KS", "JS", "4S", "3S", "6D", "5D", "4D", "3D", "QC", "JC", "TC", "9C"])
'S A K J 4 3. H -. D 6 5 4 3. C Q J T 9.'
>>> format_call(0, "1N"), format_call(3, "X"), format_call(2, "P")
('North bids 1NT', 'West doubles', 'South passes')
>>> parse_call("EAST bids 4C Alert. Asking for aces.")
CallLine(seat=1, token='4C', alert='Asking for aces.', raw='EAST bids 4C Alert. Asking for aces.')
>>> parse_play("west plays ts")
PlayLine(seat=3, token='TS', dummy=False)
>>> parse_ready("WEST ready for  NORTH's bid.")
Ready(seat=3, what='bid', who=0, trick=0)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "SEAT_NAMES", "VERSIONS", "normalize", "seat_name", "parse_seat", "format_hand", "parse_hand",
    "format_call", "parse_call", "CallLine", "format_play", "parse_play", "PlayLine", "Ready",
    "parse_ready", "Connect", "parse_connect", "format_connect", "format_seated", "format_teams",
    "format_board", "parse_board", "BoardLine", "format_timing", "vulnerability_name",
    "parse_cards_line", "is_received_dummy",
]

SEAT_NAMES = ("North", "East", "South", "West")
"""Seat names as sent (Title case)."""
VERSIONS = (18, 19)
"""Protocol versions accepted on ``Connecting`` (19 is served as 18)."""

_SEAT = r"(north|east|south|west)"
_SUITS = "SHDC"
_RANKS = "AKQJT98765432"
_VUL_NAMES = ("Neither", "N/S", "E/W", "Both")


def normalize(line: str) -> str:
    """Drop CR/LF, trim, collapse runs of whitespace to one space."""
    return " ".join(line.replace("\r", " ").replace("\n", " ").split())


def _control(line: str) -> str:
    """Normalized, case-folded, without one trailing full stop."""
    text = normalize(line).casefold()
    return text[:-1].rstrip() if text.endswith(".") else text


def seat_name(seat: int) -> str:
    """``North`` .. ``West`` for 0..3."""
    return SEAT_NAMES[seat]


def parse_seat(word: str) -> int | None:
    """Seat index of a name in any case (``NORTH``, ``north``), or ``None``."""
    try:
        return ("north", "east", "south", "west").index(word.casefold())
    except ValueError:
        return None


# -- hands ------------------------------------------------------------------------
def format_hand(cards: Iterable[str]) -> str:
    """``S A K J 4 3. H -. D 6 5 4 3. C Q J T 9.`` (S, H, D, C; ranks descending; ``-`` void)."""
    by_suit: dict[str, list[str]] = {s: [] for s in _SUITS}
    for card in cards:
        by_suit[card[1]].append(card[0])
    groups = []
    for suit in _SUITS:
        ranks = sorted(by_suit[suit], key=_RANKS.index)
        groups.append(f"{suit} {' '.join(ranks) if ranks else '-'}.")
    return " ".join(groups)


def parse_hand(text: str) -> list[str]:
    """Cards of a hand text in any suit order and spacing (``S A K.H -.D 6.C Q``, ``H.``).

    :raises ValueError: if a character is neither a suit letter, a rank, ``-``, ``.``
        nor a space.
    """
    cards: list[str] = []
    suit = ""
    body = text.upper().replace("10", "T")
    for ch in body:
        if ch in " .-\t":
            continue
        if ch in _SUITS:  # suit letters are never ranks
            suit = ch
        elif ch in _RANKS and suit:
            cards.append(ch + suit)
        else:
            raise ValueError(f"unexpected {ch!r} in hand {text!r}")
    return cards


# -- calls ------------------------------------------------------------------------
@dataclass(frozen=True)
class CallLine:
    """A call message: the seat, the arena call token and an optional alert text."""

    seat: int
    token: str
    alert: str | None
    raw: str


_CALL_RE = re.compile(
    rf"^{_SEAT} (?:(passes)|(doubles)|(redoubles)|bids ([1-7]) ?(nt|n|s|h|d|c))\b\.?\s*(.*)$", re.I)


def format_call(seat: int, token: str, alert: str | None = None) -> str:
    """``North passes`` / ``doubles`` / ``redoubles`` / ``bids 3NT``, plus `` Alert. text``."""
    if token == "P":
        text = "passes"
    elif token == "X":
        text = "doubles"
    elif token == "XX":
        text = "redoubles"
    else:
        text = f"bids {token[0]}{'NT' if token[1] == 'N' else token[1]}"
    line = f"{SEAT_NAMES[seat]} {text}"
    if alert is not None:
        line += f" Alert. {alert}".rstrip()
    return line


def parse_call(line: str) -> CallLine | None:
    """A call line, or ``None`` if the line is not one (alert text kept, ``Infos.`` ignored)."""
    text = normalize(line)
    m = _CALL_RE.match(text)
    if m is None:
        return None
    seat = parse_seat(m.group(1))
    assert seat is not None
    if m.group(2):
        token = "P"
    elif m.group(3):
        token = "X"
    elif m.group(4):
        token = "XX"
    else:
        strain = m.group(6).upper()
        token = m.group(5) + ("N" if strain in ("N", "NT") else strain)
    tail = m.group(7).strip()
    alert = None
    am = re.match(r"^alert\.?\s*(.*)$", tail, re.I)
    if am:
        alert = re.split(r"\s*\binfos\.", am.group(1), flags=re.I)[0].strip()
    return CallLine(seat, token, alert, text)


# -- cards --------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayLine:
    """A card message: the seat named (``dummy`` maps to ``dummy=True``, seat -1)."""

    seat: int
    token: str
    dummy: bool


_PLAY_RE = re.compile(
    rf"^({_SEAT[1:-1]}|dummy) plays (?:(10|[2-9tjqka])([shdc])|([shdc])(10|[2-9tjqka]))\b(?:\.\s*.*)?\.?$",
    re.I)


def format_play(seat: int, token: str) -> str:
    """``West plays TD`` (dummy's cards under dummy's seat name)."""
    return f"{SEAT_NAMES[seat]} plays {token}"


def parse_play(line: str) -> PlayLine | None:
    """A card line (``North plays 4S. Forced`` keeps the card), or ``None``."""
    m = _PLAY_RE.match(normalize(line))
    if m is None:
        return None
    rank = (m.group(2) or m.group(5)).upper()
    suit = (m.group(3) or m.group(4)).upper()
    token = ("T" if rank == "10" else rank) + suit
    who = m.group(1).casefold()
    if who == "dummy":
        return PlayLine(-1, token, True)
    seat = parse_seat(who)
    assert seat is not None
    return PlayLine(seat, token, False)


def is_received_dummy(line: str) -> bool:
    """The obsolete ``[Seat] received dummy`` (a TM ignores it)."""
    return re.match(rf"^{_SEAT} received dummy$", _control(line)) is not None


# -- ready lines -------------------------------------------------------------------
@dataclass(frozen=True)
class Ready:
    """A ``ready`` line: ``what`` is teams, start, deal, cards, dummy, bid or card.

    ``who`` is the seat whose bid or card is awaited (-1 for ``dummy's``); ``trick``
    the 1-based trick of a card (0 otherwise).
    """

    seat: int
    what: str
    who: int = -1
    trick: int = 0


_READY_RE = re.compile(rf"^{_SEAT} ready (for teams|to start|for deal|for cards|for dummy)$")
_READY_BID_RE = re.compile(rf"^{_SEAT} ready for {_SEAT}'s bid$")
_READY_CARD_RE = re.compile(rf"^{_SEAT} ready for ({_SEAT[1:-1]}|dummy)'s card to trick (\d+)$")
_READY_WHAT = {"for teams": "teams", "to start": "start", "for deal": "deal", "for cards": "cards",
               "for dummy": "dummy"}


def parse_ready(line: str) -> Ready | None:
    """A ``ready`` line in any case and spacing, or ``None``."""
    text = _control(line)
    m = _READY_RE.match(text)
    if m:
        return Ready(_seat(m.group(1)), _READY_WHAT[m.group(2)])
    m = _READY_BID_RE.match(text)
    if m:
        return Ready(_seat(m.group(1)), "bid", _seat(m.group(2)))
    m = _READY_CARD_RE.match(text)
    if m:
        who = -1 if m.group(2) == "dummy" else _seat(m.group(2))
        return Ready(_seat(m.group(1)), "card", who, int(m.group(3)))
    return None


def _seat(word: str) -> int:
    seat = parse_seat(word)
    assert seat is not None
    return seat


# -- connection ---------------------------------------------------------------------
@dataclass(frozen=True)
class Connect:
    """A ``Connecting`` line: team, seat (``None`` for ``ANYPL``), version, extra text."""

    team: str
    seat: int | None
    version: int
    info: str


_CONNECT_RE = re.compile(
    r'^connecting\s+"([^"]*)"\s+as\s+(north|east|south|west|anypl)\s+using\s+protocol\s+version'
    r"\s+(\d+)(.*)$", re.I)


def parse_connect(line: str) -> Connect | None:
    """The first line of a connection, or ``None`` if it is not one."""
    m = _CONNECT_RE.match(normalize(line))
    if m is None:
        return None
    seat = None if m.group(2).casefold() == "anypl" else parse_seat(m.group(2))
    return Connect(m.group(1), seat, int(m.group(3)), m.group(4).strip())


def format_connect(team: str, seat: int | None, version: int = 18) -> str:
    """``Connecting "team" as North using protocol version 18`` (``ANYPL`` for ``None``)."""
    who = "ANYPL" if seat is None else SEAT_NAMES[seat]
    return f'Connecting "{team}" as {who} using protocol version {version}'


def format_seated(seat: int, team: str) -> str:
    """``North ("team") seated``."""
    return f'{SEAT_NAMES[seat]} ("{team}") seated'


def format_teams(ns: str, ew: str, playing: str | None = None) -> str:
    """``Teams : N/S : "ns" E/W : "ew"`` (no full stop after the N/S name; BEN needs that)."""
    line = f'Teams : N/S : "{ns}" E/W : "{ew}"'
    return line + (f". Playing {playing}" if playing else "")


# -- board line ----------------------------------------------------------------------
def vulnerability_name(vulnerable: tuple[bool, bool]) -> str:
    """``Neither``, ``N/S``, ``E/W`` or ``Both`` for (N-S, E-W) vulnerability."""
    return _VUL_NAMES[vulnerable[0] + 2 * vulnerable[1]]


def format_board(board: int, dealer: int, vulnerable: tuple[bool, bool]) -> str:
    """``Board number 3. Dealer South. E/W vulnerable.``"""
    return f"Board number {board}. Dealer {SEAT_NAMES[dealer]}. {vulnerability_name(vulnerable)} vulnerable."


@dataclass(frozen=True)
class BoardLine:
    """A parsed board line."""

    board: int
    dealer: int
    vulnerable: tuple[bool, bool]


_BOARD_RE = re.compile(rf"^board number (\d+)\. ?dealer {_SEAT}\. ?(neither|none|n/s|e/w|both|all) vulnerable",
                       re.I)


def parse_board(line: str) -> BoardLine | None:
    """``Board number 3. Dealer SOUTH. E/W vulnerable`` (any case, final stop optional)."""
    m = _BOARD_RE.match(normalize(line))
    if m is None:
        return None
    vul = m.group(3).casefold()
    flags = {"neither": (False, False), "none": (False, False), "n/s": (True, False),
             "e/w": (False, True), "both": (True, True), "all": (True, True)}[vul]
    return BoardLine(int(m.group(1)), _seat(m.group(2).casefold()), flags)


def parse_cards_line(line: str) -> tuple[int, list[str]] | None:
    """``North's cards : S A K. H -. ...`` -> (seat, cards); ``Dummy's cards`` -> (-1, cards)."""
    m = re.match(rf"^({_SEAT[1:-1]}|dummy)'s cards ?: ?(.*)$", normalize(line), re.I)
    if m is None:
        return None
    who = m.group(1).casefold()
    seat = -1 if who == "dummy" else _seat(who)
    try:
        return seat, parse_hand(m.group(2))
    except ValueError:
        return None


# -- timing -------------------------------------------------------------------------
def _mmss(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def _hmmss(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def format_timing(ns_board: float, ns_total: float, ew_board: float, ew_total: float) -> str:
    """The SPEC Timing line (double spaces, no final full stop), times in seconds.

    >>> format_timing(75, 75, 78, 78)
    'Timing - N/S : this board  01:15,  total  0:01:15.  E/W : this board  01:18,  total  0:01:18'
    """
    return (f"Timing - N/S : this board  {_mmss(ns_board)},  total  {_hmmss(ns_total)}.  "
            f"E/W : this board  {_mmss(ew_board)},  total  {_hmmss(ew_total)}")
