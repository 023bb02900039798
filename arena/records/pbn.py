"""Portable Bridge Notation (PBN 2.1) for bridge boards: read, write, rebuild states.

Records live outside the engine: this module reads :class:`PbnGame` values from text
and writes them back, converts a PBN ``Deal`` tag into a deck the engine can deal,
and exports played :class:`~arena.games.bridge.BridgeState` deals.

* :func:`loads` / :func:`load` -- text -> list of :class:`PbnGame` (tags in file order,
  Auction and Play sections with their notes); errors raise :class:`DecodeError` with
  the line and its number.
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

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from arena.core.cards import STANDARD_TOKENS, card_index, parse_card
from arena.core.errors import ArenaError, DecodeError
from arena.games.bridge.calls import FIRST_BID, PASS, call_to_string, string_to_call
from arena.games.bridge.cardmasks import pbn_hand
from arena.games.bridge.scoring import board_dealer, board_vulnerability, parse_contract

__all__ = ["PbnGame", "MANDATORY_TAGS", "loads", "load", "dumps", "dump", "parse_deal",
           "format_deal", "deal_from_pbn", "to_state", "from_state", "pbn_card"]

MANDATORY_TAGS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer",
                  "Vulnerable", "Deal", "Scoring", "Declarer", "Contract", "Result")
"""The PBN Mandatory Tag Set, in export order."""

_SEATS = "NESW"
_VUL_NAMES = {"NONE": (False, False), "LOVE": (False, False), "-": (False, False),
              "NS": (True, False), "EW": (False, True), "ALL": (True, True), "BOTH": (True, True)}
_TAG_RE = re.compile(r'^\[(\w+)\s+"(.*)"\]\s*$')


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

def loads(text: str) -> list[PbnGame]:
    """Parse PBN text into games (``%`` comment lines and ``{...}`` comments skipped).

    :raises DecodeError: with the offending line and its number.
    """
    games: list[PbnGame] = []
    cur: PbnGame | None = None
    section = ""
    in_comment = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if in_comment:
            if "}" in line:
                in_comment = False
                line = line[line.index("}") + 1:].strip()
            else:
                continue
        if line.startswith("%") or line.startswith(";"):
            continue
        if line.startswith("{"):
            if "}" not in line:
                in_comment = True
            continue
        if not line:
            if cur is not None and cur.tags:
                games.append(cur)
                cur = None
            section = ""
            continue
        if cur is None:
            cur = PbnGame()
        if line.startswith("["):
            m = _TAG_RE.match(line)
            if not m:
                raise DecodeError("malformed tag line", raw, lineno)
            name, value = m.group(1), m.group(2)
            if name == "Note":
                (cur.play_notes if section == "Play" else cur.auction_notes).append(value)
                continue
            if name in cur.tags:
                raise DecodeError(f"tag {name} repeated in one game", raw, lineno)
            cur.tags[name] = value
            section = name if name in ("Auction", "Play") else ""
            continue
        tokens = line.split()
        if section == "Auction":
            cur.auction.extend(tokens)
        elif section == "Play":
            if "*" in tokens:
                cur.play_end = True
                tokens = [t for t in tokens if t != "*"]
            if tokens:
                n = sum(1 for t in tokens if not _is_note(t))
                if n != 4:
                    raise DecodeError(f"a Play line must hold four cards, got {n}", raw, lineno)
                cur.play.append(tokens)
        else:
            raise DecodeError("text outside a tag or section", raw, lineno)
    if cur is not None and cur.tags:
        games.append(cur)
    return games


def load(fp: IO[str]) -> list[PbnGame]:
    """Read every game of an open text file."""
    return loads(fp.read())


# -- writing ------------------------------------------------------------------------

def _game_lines(g: PbnGame) -> list[str]:
    lines = []
    for name in MANDATORY_TAGS:
        lines.append(f'[{name} "{g.tags.get(name, "?")}"]')
    rest = sorted(k for k in g.tags if k not in MANDATORY_TAGS)
    for name in rest:
        lines.append(f'[{name} "{g.tags[name]}"]')
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
            best, bi = cards[0], 0
            for i in (1, 2, 3):
                c = cards[i]
                if c // 13 == best // 13:
                    if c > best:
                        best, bi = c, i
                elif c // 13 == trump:
                    best, bi = c, i
            leader = (leader + bi) % 4
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
