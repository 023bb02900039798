"""Report helpers: rows, CSV, JSON, table text."""

from __future__ import annotations

import csv
import io
import json

import pytest

from arena.ratings.bradley_terry import fit_bradley_terry
from arena.ratings.book import RatingBook
from arena.ratings.glicko2 import Glicko2Rater
from arena.ratings.report import COLUMNS, format_table, history_rows, ratings_table, to_csv, to_json
from arena.ratings.result import MatchResult

RESULTS = [
    MatchResult("g@1", ["a", "b"], [1, 0]),
    MatchResult("g@1", ["b", "c"], [1, 0]),
    MatchResult("g@1", ["a", "c"], [0.5, 0.5]),
    MatchResult("g@1", ["c", "a"], [1, 0]),
]


def test_rows_from_elo_with_fit_intervals() -> None:
    book = RatingBook.from_results(RESULTS)
    fit = fit_bradley_terry(RESULTS)
    rows = ratings_table(book, "g@1", fit=fit)
    assert [tuple(r) for r in rows] == [COLUMNS] * 3
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert rows == sorted(rows, key=lambda r: -r["rating"])
    assert all(r["error"] == pytest.approx(fit.error(r["bot"]), abs=0.01) for r in rows)
    assert sum(r["games"] for r in rows) == 8
    assert all(r["error"] is None for r in ratings_table(book, "g@1"))


def test_rows_from_fit_and_glicko() -> None:
    rows = ratings_table(fit_bradley_terry(RESULTS, offset=1500))
    assert all(r["last_change"] is None and r["error"] > 0 for r in rows)
    g = Glicko2Rater()
    g.record_all(RESULTS)
    rows = ratings_table(g, "g@1")
    assert all(r["error"] is not None for r in rows)
    rows2 = ratings_table(g.standings("g@1"))
    assert rows2 == rows


def test_rater_needs_ruleset() -> None:
    with pytest.raises(ValueError):
        ratings_table(RatingBook())


def test_csv_json_roundtrip() -> None:
    rows = ratings_table(RatingBook.from_results(RESULTS), "g@1")
    back = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert [r["bot"] for r in back] == [r["bot"] for r in rows]
    assert back[0]["error"] == ""
    assert json.loads(to_json(rows)) == rows


def test_format_table_lines() -> None:
    rows = ratings_table(RatingBook.from_results(RESULTS), "g@1")
    text = format_table(rows)
    lines = text.splitlines()
    assert len(lines) == 4 and lines[0].split() == ["rank", "bot", "rating", "+/-", "games", "last"]
    assert not text.endswith("\n")


def test_history_rows() -> None:
    book = RatingBook.from_results(RESULTS)
    rows = history_rows(book.history("g@1"))
    assert len(rows) == 8
    assert rows[0] == {"bot": "a", "step": 1, "rating": 1516.0, "error": None}
