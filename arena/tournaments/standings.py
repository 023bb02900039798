"""Standings computed from match records: :func:`standings`.

Records are plain objects with ``match_id``, ``returns`` (per seat), ``terminal``
and ``tags`` (a :class:`~arena.records.record.MatchRecord`, or anything shaped like
one). Standings are always recomputed from the records, never kept incrementally.

Tag contract (what an executor must put in ``record.tags``)
----------------------------------------------------------
Everything in ``spec.tags`` plus the spec's placement, exactly as
``arena.tournaments.runner.spec_tags`` builds them:

=================  ==========================================================
``tournament_id``  ``spec.tournament_id`` (records of other tournaments are ignored)
``index``          ``spec.index``
``deal``           ``spec.deal`` (0-based; bridge board = deal + 1)
``rotation``       ``spec.rotation``
``table``          ``spec.table``
``entrants``       ``list(spec.entrants)``: the entrant id at each seat
``bots``           ``list(spec.bots)`` (optional here)
``format``         from ``spec.tags``; also ``mode``/``movement`` (duplicate),
                   ``candidate``/``opponent``/``pair_deal`` (gauntlet), ``board`` (bridge)
=================  ==========================================================

``record.match_id`` must be ``spec.match_id``; a match id seen twice counts once
(the first record wins). Records that are not terminal are counted as unfinished
and left out.

Scores
------
A unit's (partnership's or seat's) score in a match is the mean of its seats'
returns (bridge: the N-S or E-W duplicate score). An entrant holding several units
at one table scores the mean of its units.

Games whose returns are a ranking and whose players count points
(``Game.own_points``: canasta) are compared in their points wherever a margin or a
comparison of results is made: the record's ``points`` (``Game.match_points``, the
points each side made; records written before the field existed are replayed
once), for the duplicate formats' margins and comparisons and the gauntlet's
margin; the round robin ranks by win rate (from the returns) and then points per
match. When a record's points cannot be had, the returns are used for the whole
table (``details["unit"]`` says which: ``"points"`` or ``"returns"``).

Round robin
    Per match the unit(s) with the highest score share one win. Per entrant:
    matches, win points, win rate (win points / matches), mean and total score.
    Rank: win rate, then mean score, then entrant id.
Duplicate teams (bridge team matches of clones; any two-unit game)
    Per board of a match between A and B (A N-S in rotation 0, the open room):
    ``margin = (A's score in both rooms - B's score in both rooms) / 2``, i.e. for
    bridge ``NS_open - NS_closed``, converted by ``Game.margin_points`` (bridge:
    IMPs, Law 78B). A board counts only when both rooms are recorded. Per match:
    IMPs won by each side and, with ``vp = true``, WBF victory points over the
    boards compared (:func:`arena.ratings.vp.wbf_vp`). Rank: VPs (when on), then net
    IMPs, then IMP quotient (won / lost), then entrant id.
Duplicate pairs / seats (comparison among everyone who held the same unit of the same deal)
    ``matchpoints``: 2 per result beaten, 1 per tie (Law 78A); with ``A`` results
    where the schedule has ``E`` (a missing or unfinished match), Neuberg:
    ``M' = (M + 1) E / A - 1`` out of ``2(E - 1)``. Score: percentage
    ``100 * sum(M') / sum(tops)``.
    ``butler``: each result against the datum (the mean of the results, dropping one
    highest and one lowest when there are 5 or more; bridge: rounded to 10),
    converted by ``Game.margin_points``; score: mean per result.
    ``cross_imps``: each result against every other one, converted, averaged over
    the comparisons (PBN ``Cross2``); score: mean per result.
    Rank: score, then mean raw margin (result minus the mean of the others), then id.
Gauntlet
    One row per field entrant, in file order (no ranking): matches, the candidate's
    score (win 1, draw 1/2 per match, comparing the candidate's units with the
    opponent's), and the mean per-deal margin (over the deal's rotations) in points
    and in ``Game.margin_points``. The summary holds the same over the whole field.
    :func:`sprt_results` turns the records into :class:`arena.ratings.MatchResult`
    for :class:`arena.ratings.SprtFeeder`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.core.state import Game
from arena.tournaments.config import TournamentConfig
from arena.tournaments.formats import expand

__all__ = ["Standings", "standings", "table_standings", "format_standings", "neuberg", "matchpoints", "butler_datum",
           "butler_scores", "cross_imps", "sprt_results", "REQUIRED_TAGS"]

REQUIRED_TAGS = ("tournament_id", "deal", "rotation", "table", "entrants")
"""Tags every record must carry (see the module docstring)."""


@dataclass
class Standings:
    """Standings of one tournament.

    ``rows`` are plain dicts (already ranked), ``columns`` the ``(key, label)`` pairs a
    formatter shows in order; ``details`` holds format-specific extras (team matches,
    gauntlet summary); the counts say how complete the records are.
    """

    tournament_id: str
    kind: str
    """``round_robin``, ``duplicate_teams``, ``duplicate_pairs``, ``duplicate_seats`` or ``gauntlet``."""
    title: str
    columns: list[tuple[str, str]]
    rows: list[dict[str, Any]]
    tie_breaks: str
    details: dict[str, Any] = field(default_factory=dict)
    expected: int = 0
    """Matches in the schedule."""
    recorded: int = 0
    """Finished matches of this tournament among the records (duplicates once)."""
    unfinished: int = 0
    ignored: int = 0
    """Records of other tournaments."""

    @property
    def complete(self) -> bool:
        """Whether every scheduled match is recorded."""
        return self.recorded >= self.expected

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"tournament_id": self.tournament_id, "kind": self.kind, "title": self.title,
                "columns": [list(c) for c in self.columns], "rows": self.rows,
                "tie_breaks": self.tie_breaks, "details": self.details, "expected": self.expected,
                "recorded": self.recorded, "unfinished": self.unfinished, "ignored": self.ignored}

    def table(self) -> list[list[str]]:
        """Header plus one list of cells per row, numbers formatted."""
        out = [[label for _, label in self.columns]]
        for row in self.rows:
            out.append([_cell(row.get(key)) for key, _ in self.columns])
        return out


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.2f}"
    return str(v)


def format_standings(st: Standings) -> str:
    """Plain-text table of the standings (for logs and tests; the CLI may use rich)."""
    rows = st.table()
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [st.title]
    for j, r in enumerate(rows):
        lines.append("  ".join(c.rjust(w) if j and i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    lines.append(f"({st.recorded}/{st.expected} matches recorded; tie-breaks: {st.tie_breaks})")
    return "\n".join(lines)


# -- scoring helpers (pure numbers) ----------------------------------------------------------

def matchpoints(scores: Sequence[float]) -> list[float]:
    """2 per score beaten, 1 per tie (Law 78A).

    >>> matchpoints([620, 620, 650, 170, -100, 620, 140])
    [8.0, 8.0, 12.0, 4.0, 0.0, 8.0, 2.0]
    """
    return [float(sum(2 if s > o else 1 if s == o else 0 for o in scores) - 1) for s in scores]


def neuberg(mp: float, actual: int, expected: int) -> float:
    """Neuberg: ``mp`` out of ``2(actual-1)`` scaled to ``2(expected-1)``.

    >>> round(neuberg(4, 6, 7), 4), round(neuberg(9, 6, 7), 4), round(neuberg(18, 10, 11), 1)
    (4.8333, 10.6667, 19.9)
    """
    if actual < 1 or expected < 1:
        raise ValueError("result counts must be positive")
    return (mp + 1) * expected / actual - 1


def butler_datum(scores: Sequence[float], *, round_to: float = 0) -> float:
    """Mean of the scores, dropping one highest and one lowest when there are 5 or more.

    >>> butler_datum([620] * 4 + [170] * 3, round_to=10)
    440.0
    """
    s = sorted(scores)
    if len(s) >= 5:
        s = s[1:-1]
    m = sum(s) / len(s)
    if round_to:
        m = round_to * math.floor(abs(m) / round_to + 0.5) * (1 if m >= 0 else -1)
    return float(m)


def butler_scores(scores: Sequence[float], game: Game) -> list[float]:
    """Each score against the Butler datum, converted by ``game.margin_points``."""
    datum = butler_datum(scores, round_to=10 if game.name == "bridge" else 0)
    return [float(game.margin_points(s - datum)) for s in scores]


def cross_imps(scores: Sequence[float], game: Game) -> list[float]:
    """Each score against every other, converted by ``game.margin_points``, averaged."""
    n = len(scores)
    if n < 2:
        return [0.0] * n
    return [sum(float(game.margin_points(s - o)) for j, o in enumerate(scores) if j != i) / (n - 1)
            for i, s in enumerate(scores)]


# -- record access ----------------------------------------------------------------------------

@dataclass
class _Rec:
    match_id: str
    deal: int
    rotation: int
    table: int
    entrants: list[str]
    returns: list[float]
    tags: dict[str, Any]
    ruleset: str
    points: list[float] | None = None
    """Per-seat points in the game's own unit (``Game.match_points``) for games whose
    returns are not points (canasta); ``None`` otherwise."""


_POINTS: dict[tuple[Any, ...], list[float]] = {}
_POINTS_CACHE = 200_000


def record_points(record: Any) -> list[float] | None:
    """``Game.match_points`` of a finished record: its ``points``, or for a record
    written before the field existed its replay (once, then cached: records never
    change once stored); ``None`` for such a record that does not replay."""
    from arena.core.errors import ArenaError

    stored = getattr(record, "points", None)
    if stored:
        return [float(x) for x in stored]

    key = (record.match_id, str(getattr(record, "seed", "")), getattr(record, "started_at", ""),
           getattr(record, "finished_at", ""), len(getattr(record, "actions", ())), tuple(record.returns))
    pts = _POINTS.get(key)
    if pts is None:
        from arena.records.replay import replay_record

        try:
            state = replay_record(record)
        except (ArenaError, ValueError, TypeError, AttributeError, KeyError):
            return None
        pts = [float(x) for x in state.game.match_points(state)]
        if len(_POINTS) >= _POINTS_CACHE:
            _POINTS.clear()
        _POINTS[key] = pts
    return pts


def _collect(config: TournamentConfig, records: Iterable[Any], game: Game | None = None
             ) -> tuple[list[_Rec], int, int]:
    seen: set[str] = set()
    out: list[_Rec] = []
    unfinished = ignored = 0
    for r in records:
        tags = dict(getattr(r, "tags", None) or {})
        if tags.get("tournament_id") != config.id:
            ignored += 1
            continue
        missing = [t for t in REQUIRED_TAGS if t not in tags]
        if missing:
            raise ValueError(f"record {r.match_id}: missing tag(s) {', '.join(missing)} "
                             f"(see arena.tournaments.standings)")
        if r.match_id in seen:
            continue
        seen.add(r.match_id)
        if not getattr(r, "terminal", True):
            if "forfeit" not in tags:
                unfinished += 1
            continue
        out.append(_Rec(r.match_id, int(tags["deal"]), int(tags["rotation"]), int(tags["table"]),
                        list(tags["entrants"]), [float(x) for x in r.returns], tags,
                        str(getattr(r, "ruleset", config.game)),
                        record_points(r) if game is not None and game.own_points() else None))
    return out, unfinished, ignored


def _in_points(game: Game, recs: list[_Rec]) -> tuple[list[_Rec], str]:
    """The records scored in the game's own points (``Game.own_points``: returns
    replaced by the points), when every record has them; else unchanged."""
    if game.own_points() and recs and all(rec.points is not None for rec in recs):
        return [replace(rec, returns=list(rec.points or [])) for rec in recs], "points"
    return recs, "returns"


def _unit_scores(rec: _Rec, units: list[list[int]]) -> list[tuple[str, float]]:
    """(entrant, score) per unit."""
    return [(rec.entrants[u[0]], sum(rec.returns[s] for s in u) / len(u)) for u in units]


def _entrant_scores(rec: _Rec, units: list[list[int]]) -> dict[str, float]:
    acc: dict[str, list[float]] = {}
    for e, v in _unit_scores(rec, units):
        acc.setdefault(e, []).append(v)
    return {e: sum(v) / len(v) for e, v in acc.items()}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _key(x: float) -> float:
    return -math.inf if math.isnan(x) else x


def _ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Number the (sorted) rows and replace NaN/infinite numbers by ``None`` (strict JSON)."""
    for i, r in enumerate(rows, 1):
        r["rank"] = i
        for k, v in r.items():
            if isinstance(v, float) and not math.isfinite(v):
                r[k] = None
    return rows


# -- formats ----------------------------------------------------------------------------------

def standings(config: TournamentConfig, records: Iterable[Any]) -> Standings:
    """Standings of ``config`` from its records (see the module docstring).

    :raises ValueError: if a record of this tournament lacks a required tag.
    """
    if config.format not in ("round_robin", "duplicate", "gauntlet"):  # round-based: the format's own
        from arena.tournaments.registry import build

        st: Standings = build(config).standings(records)
        return st
    game = config.make_game()
    units = [list(u) for u in game.teams()]
    specs = expand(config)
    recs, unfinished, ignored = _collect(config, records, game)
    if config.format == "round_robin":
        st = _round_robin(config, game, units, recs)
    elif config.format == "gauntlet":
        st = _gauntlet(config, game, units, recs, specs)
    else:
        assert config.duplicate is not None
        if config.duplicate.mode == "teams":
            st = _teams(config, game, units, recs)
        else:
            st = _field(config, game, units, recs, specs)
    st.expected, st.recorded, st.unfinished, st.ignored = len(specs), len(recs), unfinished, ignored
    return st


def table_standings(config: TournamentConfig, records: Iterable[Any]) -> Standings:
    """Every entrant's matches, wins and points over ``records``, ranked as a round
    robin's table: the standings of a format that brings no table of its own
    (``expected`` counts the records given, finished or not)."""
    game = config.make_game()
    recs, unfinished, ignored = _collect(config, records, game)
    st = _round_robin(config, game, [list(u) for u in game.teams()], recs)
    st.expected, st.recorded, st.unfinished, st.ignored = len(recs) + unfinished, len(recs), unfinished, ignored
    return st


def _round_robin(config: TournamentConfig, game: Game, units: list[list[int]], recs: list[_Rec]) -> Standings:
    acc = {e: {"matches": 0, "wins": 0.0, "total": 0.0, "points": 0.0} for e in config.entrant_ids}
    for rec in recs:
        us = _unit_scores(rec, units)
        best = max(v for _, v in us)
        winners = [e for e, v in us if v == best]
        pts = (_entrant_scores(_Rec(**{**rec.__dict__, "returns": rec.points}), units)
               if rec.points is not None else {})
        for e, v in _entrant_scores(rec, units).items():
            a = acc[e]
            a["matches"] += 1
            a["total"] += v
            a["wins"] += winners.count(e) / len(winners)
            a["points"] += pts.get(e, 0.0)
    points = game.own_points() and all(rec.points is not None for rec in recs)
    rows: list[dict[str, Any]] = []
    for e, a in acc.items():
        m = a["matches"]
        row = {"entrant": e, "bot": config.entrant(e).bot, "matches": m, "wins": a["wins"],
               "win_rate": a["wins"] / m if m else math.nan,
               "mean_score": a["total"] / m if m else math.nan, "total_score": a["total"]}
        if points:  # the game's own points (canasta): what its players count
            row.update(mean_points=a["points"] / m if m else math.nan, total_points=a["points"])
        rows.append(row)
    second = "mean_points" if points else "mean_score"
    rows.sort(key=lambda r: (-_key(r["win_rate"]), -_key(r[second]), r["entrant"]))
    _ranked(rows)
    cols = [("rank", "#"), ("entrant", "entrant"), ("bot", "bot"), ("matches", "matches"),
            ("wins", "wins"), ("win_rate", "win rate")]
    if points:
        cols += [("mean_points", "points / match"), ("total_points", "points")]
    else:
        cols += [("mean_score", "mean score"), ("total_score", "total")]
    return Standings(config.id, "round_robin", f"{config.name}: round robin ({game.ruleset})", cols, rows,
                     "win rate, then " + ("points per match" if points else "mean score") + ", then entrant id")


def _teams(config: TournamentConfig, game: Game, units: list[list[int]], recs: list[_Rec]) -> Standings:
    assert config.duplicate is not None
    recs, unit_kind = _in_points(game, recs)
    rooms: dict[tuple[int, int], dict[int, _Rec]] = {}
    for rec in recs:
        rooms.setdefault((rec.table, rec.deal), {})[rec.rotation] = rec
    per_match: dict[int, dict[str, Any]] = {}
    boards: list[dict[str, Any]] = []
    for (table, deal), rs in sorted(rooms.items()):
        if 0 not in rs or 1 not in rs:
            continue
        (a, sa0), (b, sb0) = _unit_scores(rs[0], units)
        s1 = dict((e, v) for e, v in _unit_scores(rs[1], units))
        margin = (sa0 + s1[a] - sb0 - s1[b]) / 2
        pts = float(game.margin_points(margin))
        boards.append({"table": table, "deal": deal, "board": rs[0].tags.get("board", deal + 1),
                       "a": a, "b": b, "margin": margin, "imps": pts})
        m = per_match.setdefault(table, {"table": table, "a": a, "b": b, "boards": 0,
                                         "imps_a": 0.0, "imps_b": 0.0})
        m["boards"] += 1
        m["imps_a"] += max(pts, 0.0)
        m["imps_b"] += max(-pts, 0.0)
    acc: dict[str, dict[str, float]] = {
        e: {"matches": 0, "won": 0, "drawn": 0, "lost": 0, "imps_for": 0.0, "imps_against": 0.0,
            "vp": 0.0, "boards": 0} for e in config.entrant_ids}
    from arena.ratings.vp import wbf_vp

    for m in per_match.values():
        if config.duplicate.vp and m["boards"]:
            m["vp_a"], m["vp_b"] = wbf_vp(m["imps_a"], m["imps_b"], m["boards"])
        for side, other in (("a", "b"), ("b", "a")):
            t = acc[m[side]]
            t["matches"] += 1
            t["boards"] += m["boards"]
            t["imps_for"] += m[f"imps_{side}"]
            t["imps_against"] += m[f"imps_{other}"]
            t["vp"] += m.get(f"vp_{side}", 0.0)
            diff = m[f"imps_{side}"] - m[f"imps_{other}"]
            t["won" if diff > 0 else "lost" if diff < 0 else "drawn"] += 1
    rows: list[dict[str, Any]] = []
    for e, tot in acc.items():
        quotient = tot["imps_for"] / tot["imps_against"] if tot["imps_against"] else (
            math.inf if tot["imps_for"] else math.nan)
        row = {"entrant": e, "bot": config.entrant(e).bot, **tot,
               "net_imps": tot["imps_for"] - tot["imps_against"], "quotient": quotient}
        if not config.duplicate.vp:
            row.pop("vp")
        rows.append(row)
    use_vp = config.duplicate.vp
    rows.sort(key=lambda r: (-(r["vp"] if use_vp else 0.0), -r["net_imps"], -_key(r["quotient"]), r["entrant"]))
    _ranked(rows)
    unit = "IMPs" if game.name == "bridge" else "points"
    cols = [("rank", "#"), ("entrant", "team"), ("bot", "bot"), ("matches", "matches"), ("won", "W"),
            ("drawn", "D"), ("lost", "L"), ("boards", "boards"), ("imps_for", f"{unit} +"),
            ("imps_against", f"{unit} -"), ("net_imps", f"net {unit}")]
    if use_vp:
        cols.append(("vp", "VP"))
    tb = ("VPs, then " if use_vp else "") + "net IMPs, then IMP quotient, then entrant id"
    return Standings(config.id, "duplicate_teams", f"{config.name}: team matches ({game.ruleset})", cols,
                     rows, tb, details={"matches": [per_match[t] for t in sorted(per_match)], "boards": boards,
                                        "unit": unit_kind})


def _field(config: TournamentConfig, game: Game, units: list[list[int]], recs: list[_Rec],
           specs: Sequence[Any]) -> Standings:
    assert config.duplicate is not None
    scoring = config.duplicate.scoring
    recs, unit_kind = _in_points(game, recs)
    expected: dict[int, int] = {}
    for s in specs:
        expected[s.deal] = expected.get(s.deal, 0) + 1
    groups: dict[tuple[int, int], list[tuple[str, float]]] = {}
    for rec in recs:
        for u, (e, v) in enumerate(_unit_scores(rec, units)):
            groups.setdefault((rec.deal, u), []).append((e, v))
    acc = {e: {"results": 0, "points": 0.0, "top": 0.0, "margin": 0.0} for e in config.entrant_ids}
    for (deal, _u), results in groups.items():
        scores = [v for _, v in results]
        a, big_e = len(scores), max(expected.get(deal, len(scores)), len(scores))
        if a < 2:
            continue  # nothing to compare with
        total = sum(scores)
        if scoring == "matchpoints":
            pts = [neuberg(m, a, big_e) if a < big_e else m for m in matchpoints(scores)]
            top = 2.0 * (big_e - 1)
        elif scoring == "butler":
            pts, top = butler_scores(scores, game), 0.0
        else:
            pts, top = cross_imps(scores, game), 0.0
        for (e, v), p in zip(results, pts):
            x = acc[e]
            x["results"] += 1
            x["points"] += p
            x["top"] += top
            x["margin"] += v - (total - v) / (a - 1)
    rows = []
    for e, x in acc.items():
        n = x["results"]
        row: dict[str, Any] = {"entrant": e, "bot": config.entrant(e).bot, "results": n,
                               "margin": x["margin"] / n if n else math.nan}
        if scoring == "matchpoints":
            row["matchpoints"] = x["points"]
            row["score"] = 100.0 * x["points"] / x["top"] if x["top"] else math.nan
        else:
            row["total"] = x["points"]
            row["score"] = x["points"] / n if n else math.nan
        rows.append(row)
    rows.sort(key=lambda r: (-_key(r["score"]), -_key(r["margin"]), r["entrant"]))
    _ranked(rows)
    unit = "IMPs" if game.name == "bridge" else "points"
    if scoring == "matchpoints":
        main = [("matchpoints", "MP"), ("score", "MP %")]
    else:
        main = [("total", f"{unit}"), ("score", f"{unit}/result")]
    cols = [("rank", "#"), ("entrant", "entrant"), ("bot", "bot"), ("results", "results"), *main,
            ("margin", "margin")]
    kind = "duplicate_pairs" if config.duplicate.mode == "pairs" else "duplicate_seats"
    title = f"{config.name}: duplicate {config.duplicate.mode}, {scoring} ({game.ruleset})"
    return Standings(config.id, kind, title, cols, rows,
                     "score, then mean margin over the others in the same seat, then entrant id",
                     details={"scoring": scoring, "unit": unit_kind})


def _gauntlet(config: TournamentConfig, game: Game, units: list[list[int]], recs: list[_Rec],
              specs: Sequence[Any]) -> Standings:
    assert config.gauntlet is not None
    cand = config.gauntlet.candidate
    field_ids = [e for e in config.entrant_ids if e != cand]
    per: dict[str, dict[str, Any]] = {f: {"matches": 0, "won": 0, "drawn": 0, "lost": 0, "deals": {}}
                                      for f in field_ids}
    scored, unit_kind = _in_points(game, recs)
    for rec, pts in zip(recs, scored):
        es = _entrant_scores(rec, units)  # won / drawn / lost: the returns
        opp = rec.tags.get("opponent") or next(e for e in es if e != cand)
        c, f = es[cand], es[opp]
        p = per[opp]
        p["matches"] += 1
        p["won" if c > f else "lost" if c < f else "drawn"] += 1
        ps = _entrant_scores(pts, units)  # the margin: the game's own points where it has them
        p["deals"].setdefault(rec.deal, []).append(ps[cand] - ps[opp])

    def summary(ps: list[dict[str, Any]]) -> dict[str, Any]:
        m = sum(p["matches"] for p in ps)
        won, drawn = sum(p["won"] for p in ps), sum(p["drawn"] for p in ps)
        margins = [_mean(v) for p in ps for v in p["deals"].values()]
        return {"matches": m, "won": won, "drawn": drawn, "lost": sum(p["lost"] for p in ps),
                "score": (won + drawn / 2) / m if m else math.nan, "deals": len(margins),
                "margin": _mean(margins),
                "points": _mean([float(game.margin_points(x)) for x in margins])}

    rows = [{"opponent": f, "bot": config.entrant(f).bot, **summary([per[f]])} for f in field_ids]
    _ranked(rows)
    for r in rows:
        del r["rank"]
    cols = [("opponent", "opponent"), ("bot", "bot"), ("deals", "deals"), ("matches", "matches"),
            ("won", "W"), ("drawn", "D"), ("lost", "L"), ("score", "score"), ("margin", "margin"),
            ("points", "IMPs" if game.name == "bridge" else "points")]
    total = _ranked([summary(list(per.values()))])[0]
    del total["rank"]
    return Standings(config.id, "gauntlet", f"{config.name}: gauntlet of {cand} ({game.ruleset})", cols,
                     rows, "none: one row per field entrant in file order",
                     details={"candidate": cand, "summary": total, "sprt": dict(config.gauntlet.sprt),
                              "unit": unit_kind})


def sprt_results(config: TournamentConfig, records: Iterable[Any]) -> list[Any]:
    """Gauntlet records as :class:`arena.ratings.MatchResult` for :class:`arena.ratings.SprtFeeder`.

    Sides are the entrants (seats grouped by entrant id; the entrant id is the bot
    id). ``deal_id`` is the spec's ``pair_deal`` (``"<opponent>/<deal>"``) when a
    deal has exactly two seatings (two-unit games, or an even number of units), so
    a pentanomial SPRT pairs the two tables of one duplicate set; otherwise
    ``None`` (use a trinomial SPRT).
    """
    from arena.ratings import MatchResult

    game = config.make_game()
    two = len(game.teams()) % 2 == 0
    recs, _, _ = _collect(config, records)
    out = []
    for rec in recs:
        sides: dict[str, list[int]] = {}
        for s, e in enumerate(rec.entrants):
            sides.setdefault(e, []).append(s)
        out.append(MatchResult(rec.ruleset, rec.entrants, rec.returns,
                               teams=[tuple(v) for v in sides.values()],
                               deal_id=rec.tags.get("pair_deal") if two else None, match_id=rec.match_id))
    return out
