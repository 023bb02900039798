"""Output helpers for ``arena ratings GAME [--format table|csv|json]``: pure, text in, text out.

:func:`ratings_table` turns a rater's standings (or a batch fit) into rows
``rank, bot, rating, error, games, last_change``; :func:`format_table`,
:func:`to_csv` and :func:`to_json` render them. ``error`` is the half-width of
a 95% interval (``None`` when unknown: online Elo has no interval of its own;
pass ``fit=`` to take it from the batch fit of the same results).

>>> from arena.ratings.book import RatingBook
>>> from arena.ratings.result import MatchResult
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
from collections.abc import Sequence
from typing import Any

from arena.ratings.bradley_terry import BTFit
from arena.ratings.rater import HistoryPoint, Rater, RatingSummary

__all__ = ["COLUMNS", "ratings_table", "format_table", "to_csv", "to_json", "history_rows"]

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
