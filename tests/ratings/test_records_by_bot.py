"""Entrants that are the same bot rated as one player (rate_records(by_bot=True)),
what the ratings per game (the dashboard's page, ``arena ratings``) do."""

from __future__ import annotations

from arena.ratings.records import rate_records, results_from_records
from arena.records.record import MatchRecord


def _auction_like() -> list[MatchRecord]:
    """Four entrants, two of them the heuristic bot, at a partnership table where the
    two heuristic entrants are always partners: their ratings cannot be told apart."""
    def rec(i: int) -> MatchRecord:
        seats = ["heuristic-1", "random-1", "heuristic-2", "random-2"]
        return MatchRecord(f"t:{i:06d}", "calypso", "calypso@v1", None, {}, {}, i, [], seats,
                           returns=[1, -1, 1, -1] if i % 4 else [-1, 1, -1, 1], terminal=True,
                           tags={"bots": ["builtin:heuristic", "builtin:random"] * 2})
    return [rec(i) for i in range(8)]


def test_by_bot_gives_the_fit_that_entrants_cannot() -> None:
    records = _auction_like()
    by_entrant = rate_records(records)["calypso@v1"]
    assert by_entrant.fit is None and any("no batch fit" in n for n in by_entrant.notes)
    merged = rate_records(records, by_bot=True)["calypso@v1"]
    assert merged.fit is not None and merged.notes == []
    assert merged.fit.players == ("builtin:heuristic", "builtin:random")
    assert merged.fit.rating("builtin:heuristic") > merged.fit.rating("builtin:random")
    assert merged.fit.games.tolist() == [8.0, 8.0]


def test_entrants_with_a_bot_of_their_own_keep_their_names() -> None:
    records = _auction_like()
    for r in records:
        r.tags["bots"] = ["builtin:heuristic", "builtin:random", "builtin:heuristic", "remote:other"]
    [first, *_] = results_from_records(records, by_bot=True)
    assert first.seats == ("builtin:heuristic", "random-1", "builtin:heuristic", "random-2")
    assert results_from_records(records)[0].seats == tuple(records[0].seats)


def test_the_dashboard_ratings_page_rates_bots() -> None:
    from arena.dashboard.data import compute_ratings

    page = compute_ratings(_auction_like())["calypso@v1"]
    assert {row["bot"] for row in page.rows} == {"builtin:heuristic", "builtin:random"}
    assert all(row.get("bt") is not None for row in page.rows)
