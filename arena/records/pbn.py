"""Portable Bridge Notation (PBN 2.1) for bridge boards: read, write, rebuild states.

Records live outside the engine: this module reads :class:`PbnGame` values from text
and writes them back, converts a PBN ``Deal`` tag into a deck the engine can deal,
and exports played :class:`~arena.games.bridge.BridgeState` deals.

* :func:`loads` / :func:`load` -- text -> list of :class:`PbnGame` (tags in file order,
  Auction and Play sections with their notes, supplemental sections' rows); tolerant
  of comments anywhere, CRLF and inherited tags; a game that cannot be read is a
  :class:`DecodeError` naming the game, its board and the line, and with
  ``errors=[]`` the other games are still read.
* :func:`dumps_records` / :func:`dump_records` -- bridge match records -> PBN (the one
  writer behind ``arena play bridge --pbn``, ``arena export --format pbn`` and the
  dashboard's download): every board with its number, the bots as players, and the
  ``Room`` (``Open``/``Closed``) of a two-room team match (:func:`record_room`).
* :func:`dumps` / :func:`dump` -- :class:`PbnGame` values or bridge states -> export
  text: the 15 mandatory tags in order, then ``Auction``, ``Play`` and the other tags
  alphabetically (``Score`` is among them); one game per blank-line-separated block.
  Lines end in ``\\n`` (pass ``newline="\\r\\n"`` for strict export format).
* :func:`deal_from_pbn` -- a ``Deal`` value -> the 52-token deck whose dealing
  (card ``j`` to seat ``(dealer + 1 + j) mod 4``) gives those hands for a dealer, so
  ``game.new_initial_state(deck=deal_from_pbn(deal), board=n)`` builds the board.
  Within each hand the cards are taken in canonical order (an arbitrary but fixed choice).
* :func:`to_state` -- replay a :class:`PbnGame` (deal, auction, play) into a state.
* :func:`from_state` -- the :class:`PbnGame` values of a state's deals (one per deal;
  a rubber gives one per deal with ``Board`` = deal number and ``Scoring "Rubber"``).

Conventions: ``Score`` is written ``"NS <points>"`` from N-S's side (PBN also allows
``"EW <points>"`` and a bare number, which are read). ``Result`` is the declarer's
tricks; a passed-out board has ``Contract "Pass"`` and empty Declarer and Result.
The Play section lists one trick per line with the cards in seat order starting at
the opening leader's seat (not in play order), ``-`` for an unknown card, ``*`` at the
end when the play is incomplete.

>>> deck = deal_from_pbn("N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85")
>>> len(deck), deck[:4]
(52, ['6C', '4C', '5C', '2C'])
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from arena.core.cards import STANDARD_TOKENS, card_index, parse_card
from arena.core.errors import ArenaError, DecodeError
from arena.games.bridge.actions import FIRST_BID, PASS, call_to_string, string_to_call, trick_winner
from arena.games.bridge.cardmasks import pbn_hand
from arena.games.bridge.scoring import board_dealer, board_vulnerability, parse_contract
from arena.records.replay import replay_record

__all__ = ["PbnGame", "Board", "read_boards", "MANDATORY_TAGS", "SEAT_TAGS", "INHERITED_WITH_BOARD", "INHERITED_ALWAYS", "loads",
           "load", "dumps", "dump", "dumps_records", "dump_records", "record_games", "record_room", "parse_deal",
           "format_deal", "deal_from_pbn", "to_state", "from_state", "pbn_card"]

MANDATORY_TAGS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer",
                  "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result")
"""The PBN Mandatory Tag Set, in export order."""

_SEATS = "NESW"
_VUL_NAMES = {"NONE": (False, False), "LOVE": (False, False), "-": (False, False),
              "NS": (True, False), "EW": (False, True), "ALL": (True, True), "BOTH": (True, True)}


@dataclass
class PbnGame:
    """One PBN game: tags and the optional Auction and Play sections."""

    tags: dict[str, str] = field(default_factory=dict)
    """Tag name -> value, in file order (Auction and Play values included)."""
    auction: list[str] = field(default_factory=list)
    """Auction section tokens as written (calls, ``AP``, ``=n=`` note references, ``*``)."""
    play: list[list[str]] = field(default_factory=list)
    """Play section lines as written: four card tokens per trick (suit first, ``SK``, or
    ``-``) in seat order from the Play seat, plus any ``=n=`` note references."""
    play_end: bool = False
    """Whether the Play section ended with ``*`` (play incomplete)."""
    auction_notes: list[str] = field(default_factory=list)
    """``Note`` values following the Auction section."""
    play_notes: list[str] = field(default_factory=list)
    """``Note`` values following the Play section."""
    sections: dict[str, list[str]] = field(default_factory=dict)
    """Data rows of supplemental sections by tag name (e.g. ``OptimumResultTable``),
    whitespace-normalized; written back after their tag."""
    inherited: list[str] = field(default_factory=list, compare=False)
    """Tags whose values came from the previous game (``#`` or absent)."""
    line: int = field(default=0, compare=False)
    """Line number of the game's first line in the text it was read from."""

    def tricks(self) -> list[list[str]]:
        """The Play section's four card tokens per line (note references dropped)."""
        return [[t for t in line if not _is_note(t)] for line in self.play]

    def calls(self) -> list[int]:
        """Call ids of the auction (notes skipped; ``AP`` expanded to the closing passes)."""
        out: list[int] = []
        for tok in self.auction:
            if _is_note(tok) or tok in ("*", "+"):
                continue
            if tok.upper() == "AP":
                bid = any(c >= FIRST_BID for c in out)
                need = 3 if bid else 4
                trailing = 0
                for c in reversed(out):
                    if c != PASS:
                        break
                    trailing += 1
                out.extend([PASS] * max(0, need - trailing))
                continue
            out.append(string_to_call(tok))
        return out


def _is_note(tok: str) -> bool:
    return tok.startswith("=") or tok.startswith("$")


# -- Deal tag -----------------------------------------------------------------------

def parse_deal(text: str) -> list[list[str]]:
    """Hands of a ``Deal`` value, indexed by seat (N, E, S, W); card tokens.

    Unknown hands (``-``) are returned empty.

    :raises ValueError: for malformed text, a hand of a count other than 13, or a
        card held twice.
    """
    t = text.strip()
    if len(t) < 2 or t[1] != ":" or t[0].upper() not in _SEATS:
        raise ValueError(f"Deal {text!r} must start with N:, E:, S: or W:")
    first = _SEATS.index(t[0].upper())
    parts = t[2:].split()
    if len(parts) != 4:
        raise ValueError(f"Deal {text!r} must list four hands")
    hands: list[list[str]] = [[], [], [], []]
    seen: set[str] = set()
    for i, part in enumerate(parts):
        seat = (first + i) % 4
        if part == "-":
            continue
        suits = part.split(".")
        if len(suits) != 4:
            raise ValueError(f"hand {part!r} must have four suits separated by dots")
        for suit_char, ranks in zip("SHDC", suits):
            for r in ranks.upper():
                tok = parse_card(r + suit_char)
                if tok in seen:
                    raise ValueError(f"{tok} appears twice in Deal {text!r}")
                seen.add(tok)
                hands[seat].append(tok)
        if len(hands[seat]) != 13:
            raise ValueError(f"{_SEATS[seat]} has {len(hands[seat])} cards, not 13, in Deal {text!r}")
    return hands


def format_deal(hands: list[int] | list[list[str]], first: int) -> str:
    """A ``Deal`` value from four hands (masks or token lists, by seat), starting at ``first``."""
    out = []
    for i in range(4):
        h = hands[(first + i) % 4]
        mask = h if isinstance(h, int) else sum(1 << card_index(c) for c in h)
        out.append(pbn_hand(mask))
    return f"{_SEATS[first]}:" + " ".join(out)


def deal_from_pbn(text: str, dealer: int | str | None = None) -> list[str]:
    """The deck whose dealing from ``dealer`` gives the hands of a ``Deal`` value.

    :param dealer: seat or ``N``/``E``/``S``/``W``; default: the Deal's first seat (in
        PBN export format that is the dealer). Use the board's dealer
        (:func:`~arena.games.bridge.scoring.board_dealer`) with ``board=``.
    :raises ValueError: if a hand is unknown or the deal is malformed.
    """
    hands = parse_deal(text)
    if any(len(h) != 13 for h in hands):
        raise ValueError("every hand of the Deal must be known to build a deck")
    if dealer is None:
        d = _SEATS.index(text.strip()[0].upper())
    elif isinstance(dealer, str):
        d = _SEATS.index(dealer.strip().upper()[0])
    else:
        d = int(dealer)
    ordered = [sorted(h, key=card_index) for h in hands]
    deck = []
    for j in range(52):
        deck.append(ordered[(d + 1 + j) % 4][j // 4])
    return deck


# -- reading ------------------------------------------------------------------------

_TAG_FIND = re.compile(r'\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_SUPPLEMENTAL = ("Auction", "Play")

INHERITED_WITH_BOARD = ("Deal", "Dealer", "Vulnerable")
"""Tags a game without them takes from the previous game when its board is the same
(or it has no Board): the other tables of a board, as results files list them."""
INHERITED_ALWAYS = ("Event", "Site", "Date", "Scoring")
"""Event-wide tags a game without them takes from the previous game."""


def _strip_comments(line: str, in_brace: bool) -> tuple[str, bool]:
    """``line`` without ``;`` and ``{...}`` comments (quotes respected); whether a
    ``{`` comment is still open at its end."""
    out: list[str] = []
    i, n = 0, len(line)
    quoted = False
    while i < n:
        ch = line[i]
        if in_brace:
            if ch == "}":
                in_brace = False
            i += 1
            continue
        if quoted:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(line[i + 1])
                i += 2
                continue
            if ch == '"':
                quoted = False
            i += 1
            continue
        if ch == '"':
            quoted = True
        elif ch == ";":
            break
        elif ch == "{":
            in_brace = True
            out.append(" ")
            i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), in_brace


def _blocks(text: str) -> list[list[tuple[int, str]]]:
    """The games' lines: (line number, text without comments), split at blank lines
    (a blank line inside a ``{...}`` comment splits nothing); ``%`` lines dropped."""
    blocks: list[list[tuple[int, str]]] = []
    cur: list[tuple[int, str]] = []
    in_brace = False
    if text.startswith("\ufeff"):
        text = text[1:]
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not in_brace and raw.startswith("%"):
            continue
        if not in_brace and not raw.strip():
            if cur:
                blocks.append(cur)
                cur = []
            continue
        line, in_brace = _strip_comments(raw, in_brace)
        if line.strip():
            cur.append((lineno, line.strip()))
    if cur:
        blocks.append(cur)
    return blocks


def _parse_block(lines: list[tuple[int, str]]) -> PbnGame:
    g = PbnGame(line=lines[0][0])
    section = ""
    play_tokens: list[tuple[int, str]] = []
    for lineno, line in lines:
        pos = 0
        rest: list[str] = []
        for m in _TAG_FIND.finditer(line):
            rest.append(line[pos:m.start()])
            pos = m.end()
            _data(g, section, " ".join(rest), lineno, play_tokens)
            rest = []
            name, value = m.group(1), m.group(2).replace('\\"', '"')
            if name == "Note":
                (g.play_notes if section == "Play" else g.auction_notes).append(value)
                continue
            if name in g.tags:  # PBN: a tag pair that already occurred is ignored
                section = ""
                continue
            g.tags[name] = value
            section = name
        tail = line[pos:]
        if "[" in tail and not _TAG_FIND.search(tail):
            raise DecodeError("malformed tag line", line, lineno)
        _data(g, section, tail, lineno, play_tokens)
    _group_play(g, play_tokens)
    return g


def _data(g: PbnGame, section: str, text: str, lineno: int, play: list[tuple[int, str]]) -> None:
    """Text after a tag: the Auction or Play section's tokens, or a supplemental
    section's data rows (kept as written, e.g. the rows of an ``OptimumResultTable``)."""
    text = text.strip()
    if not text:
        return
    if section == "Auction":
        g.auction.extend(text.split())
    elif section == "Play":
        play.extend((lineno, t) for t in text.split())
    elif section:
        g.sections.setdefault(section, []).append(" ".join(text.split()))
    else:
        raise DecodeError("text outside a tag or section", text, lineno)


def _group_play(g: PbnGame, tokens: list[tuple[int, str]]) -> None:
    """The Play section's tokens as tricks of four cards (notes kept with their card)."""
    row: list[str] = []
    count = 0
    last = 0
    for lineno, tok in tokens:
        last = lineno
        if tok == "*":
            g.play_end = True
            continue
        if not _is_note(tok) and count == 4:
            g.play.append(row)
            row, count = [], 0
        row.append(tok)
        count += 0 if _is_note(tok) else 1
    if row:
        if count != 4:
            raise DecodeError(f"a trick must hold four cards (- for an unknown one), got {count}",
                              " ".join(row), last)
        g.play.append(row)


def _inherit(g: PbnGame, prev: PbnGame | None, lineno: int) -> None:
    """Resolve ``#`` values and the tags taken from the previous game (see
    :data:`INHERITED_WITH_BOARD` and :data:`INHERITED_ALWAYS`)."""
    for name, value in list(g.tags.items()):
        if value == "#":
            if prev is None or name not in prev.tags:
                raise DecodeError(f'tag {name} "#" but the previous game has no {name}', name, lineno)
            g.tags[name] = prev.tags[name]
            g.inherited.append(name)
    if prev is None:
        return
    same_board = g.tags.get("Board", prev.tags.get("Board")) == prev.tags.get("Board")
    for name in INHERITED_ALWAYS + (INHERITED_WITH_BOARD if same_board else ()):
        if name not in g.tags and name in prev.tags:
            g.tags[name] = prev.tags[name]
            g.inherited.append(name)
    if "Board" not in g.tags and "Board" in prev.tags and "Deal" in g.inherited:
        g.tags["Board"] = prev.tags["Board"]
        g.inherited.append("Board")


def loads(text: str, *, errors: list[DecodeError] | None = None) -> list[PbnGame]:
    """Parse PBN text into games.

    Tolerant of what real files hold: ``%`` lines, ``;`` and ``{...}`` comments
    anywhere (also after a tag on the same line, or across lines), CRLF line
    ends, several tags on one line, a repeated tag in one game (ignored, as PBN
    says), supplemental sections and their data rows (kept in
    :attr:`PbnGame.sections`), tricks spread over lines, and inherited tags: a
    ``"#"`` value is the previous game's, and a game without a Deal (Dealer,
    Vulnerable) takes the previous game's when its board is the same.

    :param errors: if given, a game that cannot be read is left out and its
        :class:`DecodeError` (naming the game, its board and the line) appended
        here, and reading goes on with the next game; otherwise the first error is raised.
    :raises DecodeError: without ``errors``, for the first game that cannot be read.
    """
    games: list[PbnGame] = []
    prev: PbnGame | None = None
    for index, block in enumerate(_blocks(text), 1):
        try:
            g = _parse_block(block)
            _inherit(g, prev, block[0][0])
        except DecodeError as exc:
            board = _board_near(block)
            where = f"game {index}" + (f" (Board {board})" if board else "")
            reason = str(exc.args[0]).removeprefix(f"line {exc.lineno}: ")
            failure = DecodeError(f"{where}: {reason}", exc.line, exc.lineno)
            if errors is None:
                raise failure from None
            errors.append(failure)
            continue
        if g.tags:
            games.append(g)
            prev = g
    return games


@dataclass(frozen=True)
class Board:
    """A board of a board set (:func:`read_boards`): its number and its hands."""

    number: int
    hands: tuple[tuple[str, ...], ...]
    """Four hands, N, E, S, W: card tokens (what ``new_initial_state(hands=...)`` takes)."""

    @property
    def deal(self) -> str:
        """The ``Deal`` value, N first."""
        return format_deal([list(h) for h in self.hands], 0)


def read_boards(text: str, *, source: str = "PBN") -> list[Board]:
    """The board set of a PBN file: each board number once, in file order.

    Every game must give its full deal (directly or inherited as PBN allows); the
    other tables of a board (a results file lists one game per table) must repeat
    its deal. Arena deals board ``n`` with the standard rotation (dealer and
    vulnerability follow the number), so the Dealer and Vulnerable tags of a
    numbered game, when present, must be those of its number. A game without a
    board number (no ``Board`` tag, or ``"?"``, as double-dummy test sets and deal
    generators write them) is numbered in file order: the first number after the
    previous board's (1 for the first) that no board of the file has taken and,
    when the game has Dealer or Vulnerable tags of its own, whose dealer and
    vulnerability are those (so ``Dealer "S"``, ``Vulnerable "EW"`` first in a
    file is board 3); an unnumbered game with the previous game's deal is another
    table of that board.

    >>> boards = read_boards('[Board "7"]\\n[Deal "N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 '
    ...                      'J973.J98742.3.K4 KQT2.AT.J6542.85"]\\n')
    >>> boards[0].number, boards[0].deal
    (7, 'N:.63.AKQ987.A9732 A8654.KQ5.T.QJT6 J973.J98742.3.K4 KQT2.AT.J6542.85')

    :raises ValueError: naming ``source``, the game, its board and its line, for the
        first game that cannot be read or used, or a file without boards.
    """
    errors: list[DecodeError] = []
    games = loads(text, errors=errors)
    if errors:
        e = errors[0]
        raise ValueError(f"{source}: {e.args[0]}")
    out: list[Board] = []
    seen: dict[int, Board] = {}
    taken = {int(g.tags["Board"].strip()) for g in games if g.tags.get("Board", "").strip().isdigit()}
    prev: Board | None = None
    for index, g in enumerate(games, 1):
        where = f"{source}: line {g.line}: game {index}"
        raw = g.tags.get("Board", "").strip()
        unnumbered = raw in ("", "?")
        if not unnumbered and (not raw.isdigit() or int(raw) < 1):
            raise ValueError(f"{where}: Board {raw!r} is not a board number (1, 2, ...)")
        deal = g.tags.get("Deal", "")
        named = where if unnumbered else f"{where} (Board {raw})"
        try:
            hands = parse_deal(deal)
        except ValueError as exc:
            raise ValueError(f"{named}: {exc}") from None
        if any(len(h) != 13 for h in hands):
            raise ValueError(f"{named}: the Deal must give all four hands")
        sorted_hands = tuple(tuple(sorted(h, key=card_index)) for h in hands)
        if unnumbered:
            if prev is not None and prev.hands == sorted_hands:
                continue  # another table of the previous game's board
            number = _next_number(g, prev.number if prev is not None else 0, taken, where)
            taken.add(number)
        else:
            number = int(raw)
        where += f" (Board {number})"
        dealer, vul = board_dealer(number), board_vulnerability(number)
        # an unnumbered game's number was chosen after its own tags (see _next_number)
        d = "" if unnumbered else g.tags.get("Dealer", "").strip().upper()
        if d not in ("", "?") and d != _SEATS[dealer]:
            raise ValueError(f"{where}: Dealer {g.tags['Dealer']}, but board {number} is dealt by "
                             f"{_SEATS[dealer]} (dealer and vulnerability follow the board number)")
        v = "" if unnumbered else g.tags.get("Vulnerable", "").strip().upper()
        if v not in ("", "?") and _VUL_NAMES.get(v) != vul:
            raise ValueError(f"{where}: Vulnerable {g.tags['Vulnerable']}, but board {number} is "
                             f"{_VUL_WORDS[vul]} (dealer and vulnerability follow the board number)")
        board = Board(number, sorted_hands)
        prev = board
        if number in seen:
            if seen[number] != board:
                raise ValueError(f"{where}: another deal than the first game of board {number}")
            continue
        seen[number] = board
        out.append(board)
    if not out:
        raise ValueError(f"{source}: no boards (PBN games with a Deal tag)")
    return out


_VUL_WORDS = {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}


def _next_number(g: PbnGame, last: int, taken: set[int], where: str) -> int:
    """The number of a game without one (see :func:`read_boards`): the first after
    ``last`` not ``taken`` whose dealer and vulnerability are the game's own Dealer
    and Vulnerable tags (inherited values are not the game's own)."""
    want_dealer = want_vul = None
    d = g.tags.get("Dealer", "").strip().upper() if "Dealer" not in g.inherited else ""
    if d not in ("", "?"):
        if d[:1] not in _SEATS or len(d) != 1:
            raise ValueError(f"{where}: Dealer {g.tags['Dealer']!r} is not N, E, S or W")
        want_dealer = _SEATS.index(d)
    v = g.tags.get("Vulnerable", "").strip().upper() if "Vulnerable" not in g.inherited else ""
    if v not in ("", "?"):
        if v not in _VUL_NAMES:
            raise ValueError(f"{where}: Vulnerable {g.tags['Vulnerable']!r} is not None, NS, EW or All")
        want_vul = _VUL_NAMES[v]
    n = last + 1
    while n in taken or (want_dealer is not None and board_dealer(n) != want_dealer) \
            or (want_vul is not None and board_vulnerability(n) != want_vul):
        n += 1
    return n


def _board_near(block: list[tuple[int, str]]) -> str:
    for _, line in block:
        m = re.search(r'\[\s*Board\s+"([^"]*)"', line)
        if m:
            return m.group(1)
    return ""


def load(fp: IO[str], *, errors: list[DecodeError] | None = None) -> list[PbnGame]:
    """Read every game of an open text file (see :func:`loads`)."""
    return loads(fp.read(), errors=errors)


# -- writing ------------------------------------------------------------------------

def _tag_line(name: str, value: str) -> str:
    return f'[{name} "{value.replace(chr(34), chr(92) + chr(34))}"]'


def _game_lines(g: PbnGame) -> list[str]:
    lines = []
    for name in MANDATORY_TAGS:
        lines.append(_tag_line(name, g.tags.get(name, "?")))
        lines.extend(g.sections.get(name, []))
    rest = sorted(k for k in g.tags if k not in MANDATORY_TAGS)
    for name in rest:
        lines.append(_tag_line(name, g.tags[name]))
        lines.extend(g.sections.get(name, []))
        if name == "Auction":
            row: list[str] = []
            count = 0
            for tok in g.auction:
                note = tok.startswith("=") or tok.startswith("$")
                if not note and count == 4:
                    lines.append(" ".join(row))
                    row, count = [], 0
                row.append(tok)
                count += 0 if note else 1
            if row:
                lines.append(" ".join(row))
            lines.extend(f'[Note "{n}"]' for n in g.auction_notes)
        elif name == "Play":
            lines.extend(" ".join(trick) for trick in g.play)
            if g.play_end:
                lines.append("*")
            lines.extend(f'[Note "{n}"]' for n in g.play_notes)
    return lines


def dumps(items: Iterable[Any], *, newline: str = "\n", **tags: str) -> str:
    """Export games: :class:`PbnGame` values and/or bridge states (each deal of a state).

    :param tags: tag values for exported states (``Event``, ``Site``, ``Date``,
        ``North`` ...); ignored for :class:`PbnGame` items.
    """
    if isinstance(items, PbnGame) or hasattr(items, "game"):
        items = [items]
    blocks: list[str] = []
    for item in items:
        games = [item] if isinstance(item, PbnGame) else from_state(item, **tags)
        blocks.extend(newline.join(_game_lines(g)) for g in games)
    return (newline + newline).join(blocks) + newline if blocks else ""


def dump(items: Iterable[Any], fp: IO[str], **kwargs: Any) -> None:
    """Write :func:`dumps` output to an open text file."""
    fp.write(dumps(items, **kwargs))


# -- records ------------------------------------------------------------------------

SEAT_TAGS = ("North", "East", "South", "West")
"""The player tags, by seat (a record's ``seats[i]`` sits at ``SEAT_TAGS[i]``)."""


def record_games(record: Any, *, id_tag: str | None = None, **tags: str) -> list[PbnGame]:
    """The PBN games of one bridge match record, replayed through the engine: its
    board's number, dealer and vulnerability, the bots' names as the players
    (``seats[i]`` at North, East, South, West), then ``tags``.

    :param id_tag: also write the record's ``match_id`` in this tag (e.g. ``"Round"``).
    :raises ValueError: for a record of another game, or one that does not replay.
    """
    if record.game != "bridge":
        raise ValueError(f"{record.match_id}: PBN is for bridge, not {record.game}")
    try:
        state = replay_record(record)
    except ArenaError as exc:
        raise ValueError(f"{record.match_id}: does not replay: {exc}") from None
    names = {SEAT_TAGS[i]: str(name) for i, name in enumerate(record.seats[:4])}
    extra = dict(names, **tags)
    room = record_room(record)
    if room:
        extra.setdefault("Room", room)
    if id_tag:
        extra[id_tag] = str(record.match_id)
    return from_state(state, **extra)


def record_room(record: Any) -> str:
    """``Open`` or ``Closed``: the room of a board of a two-room team match (the
    rotation 0 and 1 of a board, as ``arena play bridge``, round robins and team
    duplicate play them; rotation 0, the first entrant N-S, is the open room);
    ``""`` for a rubber, a pairs or field movement, or a record without a rotation.

    >>> from types import SimpleNamespace as R
    >>> record_room(R(init={"board": 3}, tags={"rotation": 1}))
    'Closed'
    >>> record_room(R(init={"board": 3}, tags={"rotation": 0, "mode": "pairs"}))
    ''
    """
    tags = getattr(record, "tags", None) or {}
    init = getattr(record, "init", None) or {}
    rotation = tags.get("rotation")
    if "board" not in init or rotation not in (0, 1) or isinstance(rotation, bool):
        return ""
    if tags.get("mode", "teams") != "teams" or tags.get("movement") == "field":
        return ""
    return ("Open", "Closed")[int(rotation)]


def dumps_records(records: Iterable[Any], *, newline: str = "\n", id_tag: str | None = None,
                  **tags: str) -> str:
    """PBN text of bridge match records (:func:`record_games`), a blank line between games.

    >>> dumps_records([])
    ''
    """
    buf = io.StringIO()
    dump_records(records, buf, newline=newline, id_tag=id_tag, **tags)
    return buf.getvalue()


def dump_records(records: Iterable[Any], fp: IO[str], *, newline: str = "\n", id_tag: str | None = None,
                 **tags: str) -> int:
    """Write bridge match records as PBN to an open text file, game by game (a blank
    line between games, every line ending in ``newline``); returns the games written.

    The one PBN writer for records: ``arena play bridge --pbn``, ``arena export
    --format pbn`` and the dashboard's download.

    :raises ValueError: as :func:`record_games`.
    """
    n = 0
    for record in records:
        for g in record_games(record, id_tag=id_tag, **tags):
            if n:
                fp.write(newline)
            fp.write(newline.join(_game_lines(g)) + newline)
            n += 1
    return n


# -- states -------------------------------------------------------------------------

def from_state(state: Any, **tags: str) -> list[PbnGame]:
    """PBN games of a bridge state: every finished deal, then the deal in progress."""
    deals: list[Mapping[str, Any]] = list(state.records)
    rubber = state.game.options["scoring"] == "rubber"
    if not state.is_terminal():
        deals.append(_live_deal(state))
    out = []
    for rec in deals:
        out.append(_deal_to_pbn(state, rec, rubber, tags))
    return out


def _live_deal(state: Any) -> dict[str, Any]:
    return {"deal": len(state.records) + 1, "board": state.board,
            "deck_index": len(state.dealer.realized) - 1, "dealer": state.deal_dealer,
            "vulnerable": state.vulnerable, "calls": tuple(state.calls),
            "plays": tuple(state.plays), "declarer": state.declarer, "tricks": -1,
            "contract": state.contract, "live": True}


def _deal_to_pbn(state: Any, rec: Mapping[str, Any], rubber: bool, extra: Mapping[str, str]) -> PbnGame:
    from arena.games.bridge.cardmasks import deal_masks

    dealer = rec["dealer"]
    deck = state.dealer.realized[rec["deck_index"]]
    hands = deal_masks(list(deck), dealer)
    vul = rec["vulnerable"]
    tags: dict[str, str] = {
        "Event": extra.get("Event", "?"), "Site": extra.get("Site", "?"),
        "Date": extra.get("Date", "????.??.??"),
        "Board": str(rec["deal"] if rubber else rec["board"]),
        "West": extra.get("West", "?"), "North": extra.get("North", "?"),
        "East": extra.get("East", "?"), "South": extra.get("South", "?"),
        "Dealer": _SEATS[dealer], "Vulnerable": ("None", "NS", "EW", "All")[vul[0] + 2 * vul[1]],
        "Deal": format_deal(hands, dealer),
        "Scoring": extra.get("Scoring", "Rubber" if rubber else "IMP"),
    }
    declarer = rec["declarer"]
    contract = rec["contract"]
    live = rec.get("live", False)
    finished = not live
    if declarer >= 0:
        tags["Declarer"] = _SEATS[declarer]
        tags["Contract"] = contract
        tags["Result"] = str(rec["tricks"]) if finished else ""
    else:
        tags["Declarer"] = ""
        tags["Contract"] = "Pass" if contract == "Pass" else ""
        tags["Result"] = ""
    for k, v in extra.items():
        if k not in tags:
            tags[k] = v
    g = PbnGame(tags=tags)
    calls = rec["calls"]
    if calls:
        tags["Auction"] = _SEATS[dealer]
        g.auction = [_pbn_call(c) for c in calls]
    plays = rec["plays"]
    if plays:
        first = (declarer + 1) & 3
        tags["Play"] = _SEATS[first]
        g.play = _play_lines(plays, first, _trump_of(contract))
        g.play_end = len(plays) < 52
    if finished:
        ns = rec["ns_score"]
        tags["Score"] = f"NS {ns}"
    return g


def pbn_card(text: str) -> str:
    """Our card token of a PBN card (suit first, ``SK``); ``KS`` is accepted too.

    >>> pbn_card("SK"), pbn_card("hT"), pbn_card("KS")
    ('KS', 'TH', 'KS')
    """
    t = text.strip().upper()
    if len(t) == 2 and t[0] in "SHDC" and t[1] not in "SHDC":
        t = t[1] + t[0]
    return parse_card(t)


def _pbn_call(c: int) -> str:
    if c == PASS:
        return "Pass"
    t = call_to_string(c)
    return t + "T" if t.endswith("N") else t


def _trump_of(contract: str) -> int:
    level, strain, _ = parse_contract(contract)
    return strain if 0 <= strain < 4 else -1


def _play_lines(plays: tuple[int, ...] | list[int], first: int, trump: int) -> list[list[str]]:
    lines = []
    leader = first
    for t in range(0, len(plays), 4):
        cards = list(plays[t:t + 4])
        row = ["-"] * 4
        for i, c in enumerate(cards):
            tok = STANDARD_TOKENS[c]
            row[(leader + i - first) % 4] = tok[1] + tok[0]
        lines.append(row)
        if len(cards) == 4:
            leader = trick_winner(trump, cards, leader)
    return lines


def to_state(g: PbnGame, game: Any = None) -> Any:
    """Replay a PBN game into a duplicate bridge state (as far as it is known).

    The board number gives the dealer and vulnerability; the ``Dealer`` tag, when
    present, must agree. Play stops at the first unknown (``-``) card.

    :raises DecodeError: if the deal, auction or play does not replay.
    """
    from arena.games import get_game

    game = game or get_game("bridge")
    try:
        board = int(g.tags.get("Board", "1") or "1")
        dealer = board_dealer(board)
        if g.tags.get("Dealer") and g.tags["Dealer"] not in ("?", ""):
            if g.tags["Dealer"].upper() != _SEATS[dealer]:
                raise DecodeError(f"Dealer {g.tags['Dealer']} does not match board {board} "
                                  f"(dealer {_SEATS[dealer]})")
        vul = g.tags.get("Vulnerable")
        if vul and vul not in ("?", "") and _VUL_NAMES.get(vul.upper()) != board_vulnerability(board):
            raise DecodeError(f"Vulnerable {vul} does not match board {board}")
        deck = deal_from_pbn(g.tags["Deal"], dealer)
        state = game.new_initial_state(deck=deck, board=board)
        for c in g.calls():
            if state.is_terminal() or state.phase != 0:
                break
            state.apply_action(c)
        if g.play and state.phase == 1:
            first = _SEATS.index(g.tags.get("Play", _SEATS[(state.declarer + 1) & 3]).upper())
            leader = first
            for row in g.tricks():
                done = False
                for i in range(4):
                    seat = (leader + i) % 4
                    tok = row[(seat - first) % 4]
                    if tok == "-":
                        done = True
                        break
                    state.apply_action(card_index(pbn_card(tok)))
                if done or state.is_terminal():
                    break
                leader = _hand_to_play(state)
        return state
    except DecodeError:
        raise
    except (ArenaError, ValueError, KeyError) as exc:
        raise DecodeError(f"game does not replay: {exc}") from exc


def _hand_to_play(state: Any) -> int:
    """The seat whose card is played next (after a completed trick: the leader)."""
    obs = state.observation(state.declarer)
    return obs.playing_hand if obs.playing_hand >= 0 else 0
