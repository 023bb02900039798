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


# -- the honest table -----------------------------------------------------------------

from arena.ratings.bradley_terry import BTFit  # noqa: E402
from arena.ratings.openskill_backend import OpenSkillRater  # noqa: E402
from arena.ratings.report import (  # noqa: E402
    REPORT_COLUMNS,
    format_report,
    report_csv,
    report_json,
    report_rows,
    report_title,
    tournament_ratings_text,
)


def _even(n: int) -> list[MatchResult]:
    """Two equal bots, ``n`` games each way, one more win for ``a``."""
    out = [MatchResult("g@1", ["a", "b"], [1, 0]) if i % 2 == 0 else MatchResult("g@1", ["b", "a"], [1, 0])
           for i in range(2 * n)]
    return out + [MatchResult("g@1", ["a", "b"], [1, 0])]


def test_report_rows_are_the_batch_fit_with_its_own_interval_and_los() -> None:
    results = _even(75)  # 76-75: the online Elo swings, the fit says "equal"
    book = RatingBook.from_results(results)
    fit = fit_bradley_terry(results)
    rows = report_rows(book, "g@1", fit=fit)
    assert [tuple(r) for r in rows] == [REPORT_COLUMNS] * 2
    a, b = rows
    assert a["bot"] == "a" and a["rating"] == pytest.approx(fit.rating("a"), abs=0.01)
    assert a["interval"] == pytest.approx(fit.error("a"), abs=0.01)
    assert abs(a["rating"]) < 5 < a["interval"]  # the fit: equal within its interval
    assert a["los_next"] == pytest.approx(fit.los("a", "b"), abs=1e-4) and b["los_next"] is None
    assert a["online"] == pytest.approx(book.summary("g@1", "a").rating, abs=0.01)
    assert a["online_interval"] is None  # Elo has none; the fit's is not lent to it
    assert a["score"] == pytest.approx(76 / 151, abs=1e-4)


def test_report_ranks_by_the_fit_not_the_online_rating() -> None:
    # b wins the early games, a the later ones: online Elo (recency) puts a first,
    # the fit (all games alike) puts b first.
    results = [MatchResult("g@1", ["b", "a"], [1, 0])] * 12 + [MatchResult("g@1", ["a", "b"], [1, 0])] * 8
    book = RatingBook.from_results(results)
    assert book.standings("g@1")[0].bot == "a"
    rows = report_rows(book, "g@1", fit=fit_bradley_terry(results))
    assert [r["bot"] for r in rows] == ["b", "a"] and rows[0]["online"] < rows[1]["online"]


def test_report_without_fit_shows_online_only() -> None:
    rows = report_rows(RatingBook.from_results(RESULTS), "g@1")
    assert all(r["rating"] is None and r["interval"] is None and r["los_next"] is None for r in rows)
    assert [r["online"] for r in rows] == sorted((r["online"] for r in rows), reverse=True)
    text = format_report(rows)
    assert text.splitlines()[1].split()[2:5] == ["-", "-", "-"]
    assert "no batch fit" in report_title("g@1", "elo", fitted=False)


@pytest.mark.parametrize("system, rater, label, own", [
    ("glicko2", Glicko2Rater(), "Glicko-2 r", "± 1.96 RD"),
    ("openskill", OpenSkillRater(), "OpenSkill mu", "± 1.96 sigma"),
])
def test_glicko2_and_openskill_show_their_own_uncertainty(system: str, rater: object, label: str,
                                                           own: str) -> None:
    assert isinstance(rater, (Glicko2Rater, OpenSkillRater))
    rater.record_all(RESULTS)
    fit = fit_bradley_terry(RESULTS)
    rows = report_rows(rater, "g@1", fit=fit)
    for r in rows:
        summary = rater.summary("g@1", r["bot"])
        assert r["online"] == pytest.approx(summary.rating, abs=0.01)
        assert summary.error is not None and r["online_interval"] == pytest.approx(summary.error, abs=0.01)
        assert r["interval"] == pytest.approx(fit.error(r["bot"]), abs=0.01)
        assert r["online_interval"] != r["interval"]
    head = format_report(rows, system).splitlines()[0]
    assert label in head and own in head
    title = report_title("g@1", system)
    assert f"{label}, {own}: the online rater's own" in title
    assert "+/- from the batch fit" not in title + head


def test_elo_title_and_header_do_not_lend_the_fit_interval() -> None:
    title = report_title("g@1", "elo", matches=4)
    assert "Elo (online): the online rater, no interval of its own" in title
    assert "batch Bradley-Terry fit" in title and "LOS next" in title
    head = format_report(report_rows(RatingBook.from_results(RESULTS), "g@1"), "elo").splitlines()[0]
    assert head.split() == ["rank", "bot", "rating", "95%", "LOS", "next", "games", "score", "Elo",
                            "(online)", "last"]


def test_report_csv_and_strict_json() -> None:
    rows = report_rows(RatingBook.from_results(RESULTS), "g@1", fit=fit_bradley_terry(RESULTS))
    back = list(csv.DictReader(io.StringIO(report_csv(rows, ruleset="g@1"))))
    assert list(back[0]) == ["ruleset", *REPORT_COLUMNS] and back[-1]["los_next"] == ""
    rows[0]["online"] = float("nan")  # never written as NaN
    with pytest.raises(ValueError):
        json.dumps(rows, allow_nan=False)
    from arena.ratings.report import _num

    assert _num(float("nan")) is None and _num(float("inf")) is None
    text = report_json({"g@1": {"rows": report_rows(RatingBook.from_results(RESULTS), "g@1"),
                                "matches": 4, "notes": ["x"]}}, system="elo")
    data = json.loads(text)
    assert data["schema_version"] == 1 and data["system"] == "elo"
    assert data["rulesets"]["g@1"]["fitted"] is False and data["rulesets"]["g@1"]["notes"] == ["x"]


def test_tournament_ratings_text_rates_entrants_from_records() -> None:
    from arena.records.record import MatchRecord

    def rec(i: int, seats: list[str], returns: list[float]) -> MatchRecord:
        return MatchRecord(f"m{i}", "calypso", "calypso@v1", None, {}, {}, i, [], seats, returns=returns,
                           terminal=True, tags={"bots": ["builtin:" + s.split("-")[0] for s in seats]})

    recs = [rec(i, ["heuristic-1", "random-1", "heuristic-2", "random-2"], [1, -1, 1, -1]) for i in range(6)]
    # by entrant: the two heuristic entrants are always partners, so the fit cannot
    # tell them apart and says so; the online ratings still show, labelled
    text = tournament_ratings_text(recs)
    assert "calypso@v1 (6 matches)" in text and "no batch fit" in text and "cannot be told apart" in text
    assert "heuristic-1" in text and "Elo (online)" in text and "batch Bradley-Terry fit" not in text
    # the same bot behind both entrants: one player, and the fit exists
    merged = tournament_ratings_text(recs, by_bot=True)
    assert "builtin:heuristic" in merged and "heuristic-1" not in merged
    assert "batch Bradley-Terry fit" in merged and "no batch fit" not in merged
    assert tournament_ratings_text([]) == ""
    assert isinstance(fit_bradley_terry(_even(3)), BTFit)
