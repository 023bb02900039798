"""Ratings output: pure, text in, text out.

The honest table (``arena ratings``, the block after ``arena tournament run``)
----------------------------------------------------------------------------
:func:`report_rows` ranks the bots by the **batch Bradley-Terry fit** and gives
each its fitted rating (Elo scale, pool mean 0), the half-width of its 95%
interval and its likelihood of superiority over the next row; the online rater's
rating comes in its own column, with its own uncertainty where the system has
one (Glicko-2: ``1.96 RD``; OpenSkill: ``1.96 sigma``; Elo has none), never the
batch fit's interval next to it. :func:`format_report` renders one ruleset as
text, :func:`report_csv` and :func:`report_json` as CSV and strict JSON;
:func:`ratings_report_text` and :func:`tournament_ratings_text` rate records
and print every ruleset.

>>> from arena.ratings.book import RatingBook
>>> from arena.ratings.bradley_terry import fit_bradley_terry
>>> from arena.ratings.result import MatchResult
>>> rs = [MatchResult("g@1", ["a", "b"], [1, 0])] * 3 + [MatchResult("g@1", ["b", "a"], [1, 0])]
>>> rows = report_rows(RatingBook.from_results(rs), "g@1", fit=fit_bradley_terry(rs))
>>> [(r["bot"], r["rating"], r["interval"], r["los_next"], r["online"]) for r in rows]
[('a', 44.37, 124.33, 0.7579, 1523.8), ('b', -44.37, 124.33, None, 1476.2)]
>>> print(format_report(rows, "elo"))
rank  bot  rating      95%  LOS next  games  score  Elo (online)   last
   1  a     +44.4  ± 124.3       76%      4   0.75        1523.8  -19.9
   2  b     -44.4  ± 124.3         -      4   0.25        1476.2  +19.9

Legacy rows (the dashboard and ``GetRatings``)
----------------------------------------------
:func:`ratings_table` turns a rater's standings (or a batch fit) into rows
``rank, bot, rating, error, games, last_change``; :func:`format_table`,
:func:`to_csv` and :func:`to_json` render them. ``error`` is the half-width of
a 95% interval (``None`` when unknown: online Elo has no interval of its own;
``fit=`` takes it from the batch fit of the same results, which is the fit's
interval, not the online rating's: prefer :func:`report_rows`).

>>> book = RatingBook()
>>> _ = book.record(MatchResult("g@1", ["a", "b"], [1, 0]))
>>> rows = ratings_table(book, "g@1")
>>> rows[0]
{'rank': 1, 'bot': 'a', 'rating': 1516.0, 'error': None, 'games': 1, 'last_change': 16.0}
>>> print(to_csv(rows), end="")
rank,bot,rating,error,games,last_change
1,a,1516.0,,1,16.0
2,b,1484.0,,1,-16.0
>>> print(format_table(rows))
rank  bot  rating  +/-  games   last
   1  a    1516.0    -      1  +16.0
   2  b    1484.0    -      1  -16.0
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from arena.ratings.bradley_terry import BTFit
from arena.ratings.errors import RatingError
from arena.ratings.factory import RATERS, rater_class
from arena.ratings.rater import HistoryPoint, Rater, RatingSummary

__all__ = ["COLUMNS", "REPORT_COLUMNS", "REPORT_SCHEMA_VERSION", "ONLINE_LABELS", "online_labels", "report_rows",
           "format_report", "report_csv", "report_json", "report_title", "ratings_report_text",
           "tournament_ratings_text", "ratings_table", "format_table", "to_csv", "to_json", "history_rows"]

COLUMNS = ("rank", "bot", "rating", "error", "games", "last_change")
"""Keys of every row, in output order."""


def ratings_table(
    source: Rater | BTFit | Sequence[RatingSummary],
    ruleset: str | None = None,
    *,
    fit: BTFit | None = None,
) -> list[dict[str, Any]]:
    """Leaderboard rows, best rating first (ties by bot name).

    :param source: a rater (then ``ruleset`` is required), a batch fit, or summaries.
    :param fit: optional batch fit whose intervals fill ``error`` where the source has none.
    :raises ValueError: if ``source`` is a rater and ``ruleset`` is missing.
    """
    if isinstance(source, BTFit):
        items: list[tuple[str, float, float | None, float, float | None]] = [
            (r["bot"], r["rating"], r["error"], r["games"], None) for r in source.table()
        ]
    else:
        if isinstance(source, Rater):
            if ruleset is None:
                raise ValueError("ruleset is required for a rater")
            summaries = source.standings(ruleset)
        else:
            summaries = list(source)
        items = [(s.bot, s.rating, s.error, s.games, s.last_change) for s in summaries]
    if fit is not None:
        known = set(fit.players)
        items = [
            (b, r, e if e is not None or b not in known else fit.error(b), g, c) for b, r, e, g, c in items
        ]
    items.sort(key=lambda t: (-t[1], t[0]))
    return [
        {
            "rank": i,
            "bot": b,
            "rating": round(r, 2),
            "error": None if e is None else round(e, 2),
            "games": int(g) if float(g).is_integer() else round(g, 2),
            "last_change": None if c is None else round(c, 2),
        }
        for i, (b, r, e, g, c) in enumerate(items, 1)
    ]


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """A plain-text aligned table (no trailing newline)."""
    head = ["rank", "bot", "rating", "+/-", "games", "last"]
    body = [
        [
            str(r["rank"]),
            str(r["bot"]),
            f"{r['rating']:.1f}",
            "-" if r["error"] is None else f"{r['error']:.1f}",
            str(r["games"]),
            "-" if r["last_change"] is None else f"{r['last_change']:+.1f}",
        ]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    left = {1}
    lines = []
    for cells in [head, *body]:
        parts = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def to_csv(rows: Sequence[dict[str, Any]]) -> str:
    """CSV with a header row; ``None`` becomes an empty cell."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: "" if r.get(k) is None else r.get(k) for k in COLUMNS})
    return buf.getvalue()


def to_json(rows: Sequence[dict[str, Any]]) -> str:
    """A JSON array of the rows (``None`` as ``null``)."""
    return json.dumps([dict(r) for r in rows], indent=2)


def history_rows(history: dict[str, list[HistoryPoint]]) -> list[dict[str, Any]]:
    """Flatten a rater's history into rows ``bot, step, rating, error`` (for CSV/JSON export)."""
    return [
        {"bot": b, "step": p.step, "rating": p.rating, "error": p.error}
        for b in sorted(history)
        for p in history[b]
    ]


# -- the honest table ---------------------------------------------------------------

REPORT_COLUMNS = ("rank", "bot", "rating", "interval", "los_next", "games", "score", "online",
                  "online_interval", "last_change")
"""Keys of every :func:`report_rows` row, in output order: ``rating``, ``interval``
(95% half-width), ``los_next`` (probability of being stronger than the next row),
``games`` and ``score`` (fraction) are the batch fit's; ``online`` and
``online_interval`` (the system's own 95% half-width, ``None`` for Elo) and
``last_change`` the online rater's."""

REPORT_SCHEMA_VERSION = 1
"""Version of :func:`report_json`'s layout."""

ONLINE_LABELS: dict[str, tuple[str, str | None]] = {r.name: (r.label, r.interval_label) for r in RATERS}
"""Column labels of each online system (:data:`arena.ratings.factory.RATERS`): its
rating and its own uncertainty (:func:`online_labels` of each)."""


def online_labels(system: str) -> tuple[str, str | None]:
    """The column labels of ``system``'s rating and of its own uncertainty (``None``
    when it has none); an unknown name labels its own column."""
    try:
        cls = rater_class(system)
    except RatingError:
        return system, None
    return cls.label, cls.interval_label


def _num(x: float | None, digits: int = 2) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


def report_rows(rater: Rater, ruleset: str, *, fit: BTFit | None = None) -> list[dict[str, Any]]:
    """Rows of the honest table (:data:`REPORT_COLUMNS`), best first.

    Ranked by the batch fit (ties by bot name), bots outside the fit after them by
    online rating; without a fit, by online rating with the batch columns ``None``.
    """
    online = {s.bot: s for s in rater.standings(ruleset)}
    bots = list(online)
    if fit is not None:
        bots += [b for b in fit.players if b not in online]
        in_fit = [b for b in bots if b in fit.players]
        in_fit.sort(key=lambda b: (-fit.rating(b), b))
        rest = [b for b in bots if b not in fit.players]
        rest.sort(key=lambda b: (-online[b].rating, b))
        order = in_fit + rest
        table = {r["bot"]: r for r in fit.table()}
    else:
        order = sorted(bots, key=lambda b: (-online[b].rating, b))
        table = {}
    rows = []
    for i, bot in enumerate(order):
        fitted = table.get(bot)
        nxt = order[i + 1] if i + 1 < len(order) else None
        los_next = None
        if fit is not None and fitted is not None and nxt is not None and nxt in table:
            los_next = _num(fit.los(bot, nxt), 4)
        o = online.get(bot)
        games = fitted["games"] if fitted is not None else (o.games if o is not None else 0)
        rows.append({
            "rank": i + 1,
            "bot": bot,
            "rating": None if fitted is None else _num(fitted["rating"]),
            "interval": None if fitted is None else _num(fitted["error"]),
            "los_next": los_next,
            "games": int(round(games)) if abs(games - round(games)) < 1e-9 else round(games, 2),
            "score": None if fitted is None or not fitted["games"] else _num(fitted["score"], 4),
            "online": None if o is None else _num(o.rating),
            "online_interval": None if o is None else _num(o.error),
            "last_change": None if o is None else _num(o.last_change),
        })
    return rows


def report_title(ruleset: str, system: str, *, matches: int | None = None, fitted: bool = True) -> str:
    """The lines above a ruleset's table: the ruleset and what its columns are."""
    label, own = online_labels(system)
    lines = [ruleset + ("" if matches is None else f" ({matches} matches)")]
    if fitted:
        lines.append("  rating, 95%: batch Bradley-Terry fit (Elo scale, pool mean 0)")
        lines.append("  LOS next: chance to be stronger than the next row")
    else:
        lines.append("  no batch fit: rating, 95% and LOS are not available")
    lines.append(f"  {label}{', ' + own if own else ''}: the online rater"
                 + ("'s own rating and uncertainty" if own else ", no interval of its own"))
    return "\n".join(lines)


def format_report(rows: Sequence[dict[str, Any]], system: str = "elo") -> str:
    """One ruleset's :func:`report_rows` as aligned text (no trailing newline)."""
    label, own = online_labels(system)
    head = ["rank", "bot", "rating", "95%", "LOS next", "games", "score", label]
    if own:
        head.append(own)
    head.append("last")

    def f(x: Any, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    body = []
    for r in rows:
        cells = [str(r["rank"]), str(r["bot"]), f(r["rating"], "+.1f"),
                 "-" if r["interval"] is None else f"± {r['interval']:.1f}",
                 "-" if r["los_next"] is None else f"{100 * r['los_next']:.0f}%",
                 str(r["games"]), f(r["score"], ".2f"), f(r["online"], ".1f")]
        if own:
            cells.append("-" if r["online_interval"] is None else f"± {r['online_interval']:.1f}")
        cells.append(f(r["last_change"], "+.1f"))
        body.append(cells)
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = []
    for cells in [head, *body]:
        parts = [c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def report_csv(rows: Sequence[dict[str, Any]], *, ruleset: str | None = None, header: bool = True) -> str:
    """CSV of :func:`report_rows` (a ``ruleset`` column first when given); ``None`` is empty."""
    cols = (["ruleset"] if ruleset is not None else []) + list(REPORT_COLUMNS)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    if header:
        writer.writeheader()
    for r in rows:
        row = {k: "" if r.get(k) is None else r.get(k) for k in REPORT_COLUMNS}
        if ruleset is not None:
            row["ruleset"] = ruleset
        writer.writerow(row)
    return buf.getvalue()


def report_json(rulesets: dict[str, dict[str, Any]], *, system: str) -> str:
    """Strict JSON (no NaN or Infinity; ``null`` where undefined) of several rulesets:
    ``{"schema_version", "system", "rulesets": {ruleset: {"matches", "fitted", "notes", "rows"}}}``.

    :param rulesets: ruleset -> ``{"rows": report_rows(...), "matches": n, "notes": [...]}``.
    """
    body = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "system": system,
        "rulesets": {
            rs: {"matches": v.get("matches"), "fitted": any(r["rating"] is not None for r in v["rows"]),
                 "notes": list(v.get("notes", [])), "rows": [dict(r) for r in v["rows"]]}
            for rs, v in rulesets.items()
        },
    }
    return json.dumps(body, indent=2, allow_nan=False)


def ratings_report_text(rated: dict[str, Any], system: str = "elo") -> str:
    """Every ruleset of :func:`arena.ratings.records.rate_records`'s result as text:
    a title line, the notes (why there is no batch fit, ...) and the table."""
    blocks = []
    for ruleset, r in rated.items():
        rows = report_rows(r.rater, ruleset, fit=r.fit)
        lines = [report_title(ruleset, system, matches=r.records, fitted=r.fit is not None)]
        lines += [f"  note: {n}" for n in r.notes]
        lines.append(format_report(rows, system))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def tournament_ratings_text(records: Iterable[Any], *, game: str | None = None, system: str = "elo",
                            by_bot: bool = False) -> str:
    """The ratings block printed after ``arena tournament run``: the records of one
    tournament (:class:`~arena.records.record.MatchRecord`) rated per ruleset by
    :func:`arena.ratings.records.rate_records` (its entrants, unless ``by_bot``) and
    shown as :func:`ratings_report_text`; ``""`` when nothing finished.

    :raises RatingError: for an unknown ``system``.
    """
    from arena.ratings.records import rate_records

    rated = rate_records(records, system=system, game=game, by_bot=by_bot)
    return ratings_report_text(rated, system)
