"""Bridge travellers: per board, what every table did with it.

A *traveller* is the slip that travels with a duplicate board: one line per table
that played it (N-S and E-W, contract, declarer, opening lead, tricks, result, the
N-S and E-W scores) and the comparison the event scores by:

* team formats (a duplicate team match, a Swiss or a ladder: each encounter plays
  the board in both seatings, open and closed room): per table, the IMPs the
  room-0 N-S entrant wins, ``imps(NS score open - NS score closed)``, i.e. the
  margin of :mod:`arena.tournaments.standings` converted by ``Game.margin_points``;
* pair and seat fields (``[duplicate] mode = "pairs"`` or ``"seats"``): per line,
  the N-S and E-W matchpoints against every other line of the board (Law 78A,
  :func:`~arena.tournaments.standings.matchpoints`, top ``2 (n - 1)``), or with
  ``butler`` / ``cross_imps`` scoring the IMPs of the standings' own functions.

A board is one tournament deal (the same cards at every table): a Swiss or ladder
plays new deals every round, so its boards are numbered by deal too. Records are
replayed with the engine to find their contract and play (each finished record
once: :class:`BoardResults` keeps what it found by match id).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

__all__ = ["BoardResults", "board_results", "travellers", "TRAVELLER_LIMIT", "result_text"]

TRAVELLER_LIMIT = 60
"""Boards shown on a page (the rest: the PBN download)."""
_SEATS = "NESW"


def result_text(level: int, tricks: int) -> str:
    """``=`` (made exactly), ``+2`` (overtricks) or ``-1`` (down).

    >>> result_text(4, 10), result_text(3, 11), result_text(6, 9)
    ('=', '+2', '-3')
    """
    over = tricks - (level + 6)
    return "=" if over == 0 else f"{over:+d}"


def board_results(record: Any) -> list[dict[str, Any]]:
    """Every finished deal of a bridge record, replayed: ``board, dealer, vulnerable,
    contract, declarer, lead, tricks, result, ns_score`` (declarer, lead and result
    ``None`` when passed out).

    :raises ValueError: for a record that does not replay.
    """
    from arena.core.cards import STANDARD_TOKENS
    from arena.core.errors import ArenaError
    from arena.records.replay import replay_record

    try:
        state: Any = replay_record(record)
    except ArenaError as exc:
        raise ValueError(f"{record.match_id}: does not replay: {exc}") from None
    out = []
    for rec in getattr(state, "records", []):
        declarer = int(rec["declarer"])
        vul = rec["vulnerable"]
        played = declarer >= 0
        plays = rec.get("plays") or ()
        out.append({
            "board": int(rec["board"] or rec["deal"]), "dealer": _SEATS[int(rec["dealer"])],
            "vulnerable": ("None", "N-S", "E-W", "Both")[int(vul[0]) + 2 * int(vul[1])],
            "contract": str(rec["contract"]) if played else "Pass",
            "declarer": _SEATS[declarer] if played else None,
            "lead": STANDARD_TOKENS[int(plays[0])] if played and plays else None,
            "tricks": int(rec["tricks"]) if played else None,
            "result": result_text(int(rec["level"]), int(rec["tricks"])) if played else None,
            "ns_score": int(rec["ns_score"]),
        })
    return out


class BoardResults:
    """:func:`board_results` of finished records, kept by match id (least recently
    used out: a finished record never changes)."""

    def __init__(self, size: int = 20_000) -> None:
        self.size = size
        self._d: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, record: Any) -> list[dict[str, Any]]:
        key = record.match_id
        with self._lock:
            if key in self._d:
                self._d.move_to_end(key)
                return self._d[key]
        try:
            value = board_results(record)
        except ValueError:
            value = []
        with self._lock:
            self._d[key] = value
            while len(self._d) > self.size:
                self._d.popitem(last=False)
        return value


def _scoring(config: Any) -> str:
    """``teams`` (IMPs per table of two rooms) or the field's scoring."""
    dup = getattr(config, "duplicate", None)
    if config.format == "duplicate" and dup is not None and dup.mode != "teams":
        return str(dup.scoring)
    return "teams"


def travellers(config: Any, records: Iterable[Any], cache: BoardResults | None = None,
               limit: int = TRAVELLER_LIMIT, newest: bool = False) -> dict[str, Any]:
    """The travellers of a bridge tournament's finished records (see the module
    docstring): ``{"scoring", "boards": [...], "more": boards not shown}``; each board
    ``{"deal", "board", "round", "encounter", "dealer", "vulnerable", "tables": [...]}``
    (``newest``: the last ``limit`` boards, newest first, as a ladder wants), each table
    ``{"table", "rows": [line, ...], "imps"}`` (``imps``: to the room-0 N-S entrant,
    team scoring only) and each line ``{"match_id", "rotation", "room", "ns", "ew",
    "contract", "declarer", "lead", "tricks", "result", "ns_score", "ew_score",
    "ns_points", "ew_points"}`` (points: matchpoints or IMPs in field scoring)."""
    from arena.tournaments.service import butler_scores, cross_imps, matchpoints

    cache = cache or BoardResults()
    game = config.make_game()
    scoring = _scoring(config)
    by_deal: dict[int, list[Any]] = {}
    seen: set[str] = set()
    for rec in records:
        tags = getattr(rec, "tags", None) or {}
        if not rec.terminal or rec.match_id in seen or tags.get("tournament_id") != config.id:
            continue
        seen.add(rec.match_id)
        by_deal.setdefault(int(tags.get("deal", 0)), []).append(rec)
    order = sorted(by_deal, reverse=newest)[:limit]  # only the boards shown are replayed
    deals: dict[int, dict[str, Any]] = {}
    for rec in (r for d in order for r in by_deal[d]):
        tags = rec.tags or {}
        results = cache.get(rec)
        if len(results) != 1:  # rubber records are not boards
            continue
        res = results[0]
        deal = int(tags.get("deal", 0))
        ents = list(tags.get("entrants") or rec.seats)
        rot = int(tags.get("rotation", 0))
        b = deals.setdefault(deal, {"deal": deal, "board": res["board"], "dealer": res["dealer"],
                                    "vulnerable": res["vulnerable"], "round": tags.get("swiss_round"),
                                    "encounter": tags.get("encounter"), "tables": {}})
        table = b["tables"].setdefault(int(tags.get("table", 0)), {"table": int(tags.get("table", 0)),
                                                                    "rows": [], "imps": None})
        ns = res["ns_score"]
        table["rows"].append({
            "match_id": rec.match_id, "rotation": rot,
            "room": ("open", "closed")[rot] if scoring == "teams" and rot in (0, 1) else "",
            "ns": ents[0] if ents else "", "ew": ents[1] if len(ents) > 1 else "",
            "contract": res["contract"], "declarer": res["declarer"], "lead": res["lead"],
            "tricks": res["tricks"], "result": res["result"],
            "ns_score": ns if ns > 0 else None, "ew_score": -ns if ns < 0 else None, "score": ns,
            "ns_points": None, "ew_points": None})
    boards = []
    for deal in order:
        if deal not in deals:
            continue
        b = deals[deal]
        tables = [b["tables"][t] for t in sorted(b["tables"])]
        for t in tables:
            t["rows"].sort(key=lambda r: r["rotation"])
        lines = [r for t in tables for r in t["rows"]]
        if scoring == "teams":
            for t in tables:
                rooms = {r["rotation"]: r for r in t["rows"]}
                if 0 in rooms and 1 in rooms:
                    t["imps"] = float(game.margin_points(rooms[0]["score"] - rooms[1]["score"]))
                    t["team"] = rooms[0]["ns"]
                    t["other"] = rooms[0]["ew"]
        elif len(lines) >= 2:
            scores = [float(r["score"]) for r in lines]
            if scoring == "matchpoints":
                ns_pts = matchpoints(scores)
                top = 2.0 * (len(lines) - 1)
                ew_pts = [top - p for p in ns_pts]
                b["top"] = top
            else:
                ns_pts = butler_scores(scores, game) if scoring == "butler" else cross_imps(scores, game)
                ew_pts = [-p for p in ns_pts]
            for r, p, q in zip(lines, ns_pts, ew_pts):
                r["ns_points"], r["ew_points"] = p, q
        b["tables"] = tables
        boards.append(b)
    return {"scoring": scoring, "boards": boards, "more": len(by_deal) - len(order)}
