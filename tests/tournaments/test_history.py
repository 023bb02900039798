"""The store's rating history: written when a tournament ends, always equal to the
online Elo recomputed from the stored records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.ratings import make_rater
from arena.ratings.records import results_from_records
from arena.tournaments import service
from arena.tournaments.executors import open_store
from arena.tournaments.history import elo_history, refresh_rating_history

ROUND_ROBIN = """
[tournament]
id = "{tid}"
name = "history"
game = "calypso"
format = "round_robin"
deals = {deals}
seed = {seed}
deadline_ms = 2000

[[entrants]]
id = "heuristic"
bot = "heuristic"

[[entrants]]
id = "random"
bot = "random"

[[entrants]]
id = "random-2"
bot = "random"
"""


def _run(tmp_path: Path, url: str, tid: str, deals: int, seed: int) -> None:
    file = tmp_path / f"{tid}.toml"
    file.write_text(ROUND_ROBIN.format(tid=tid, deals=deals, seed=seed))
    config, _ = service.register(file, open_store(url))
    service.run_embedded(url, config.id, jobs=1)


def _key(points: list[Any]) -> list[tuple[str, float, int, str | None]]:
    return [(p.bot, round(p.rating, 9), p.games, p.match_id) for p in points]


def test_history_is_written_when_a_tournament_ends_and_spans_tournaments(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    _run(tmp_path, url, "first", 2, 1)
    store = open_store(url)
    records = list(store.records("first"))
    ruleset = records[0].ruleset
    first = store.rating_history(ruleset, rater="elo")
    assert first, "no rating history after the tournament"
    assert _key(first) == _key(elo_history(records)[ruleset])
    assert {p.match_id for p in first} == {r.match_id for r in records}

    _run(tmp_path, url, "second", 2, 2)
    both = list(store.records("first")) + list(store.records("second"))
    history = store.rating_history(ruleset, rater="elo")
    assert len(history) > len(first)
    assert _key(history) == _key(elo_history(both)[ruleset])
    # the last point of each bot is its rating after every result, online
    elo = make_rater("elo")
    elo.record_all(results_from_records(both))
    last = {p.bot: p for p in history}
    for bot, point in last.items():
        summary = elo.summary(ruleset, bot)
        assert abs(point.rating - summary.rating) < 1e-9
        assert point.games == summary.games


def test_refresh_replaces_and_rejects_foreign_points(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    _run(tmp_path, url, "only", 1, 3)
    store = open_store(url)
    ruleset = next(iter(store.records("only"))).ruleset
    n = len(store.rating_history(ruleset, rater="elo"))
    assert refresh_rating_history(store) == {ruleset: n}
    assert refresh_rating_history(store, [ruleset]) == {ruleset: n}
    assert len(store.rating_history(ruleset, rater="elo")) == n  # replaced, not appended
    points = store.rating_history(ruleset, rater="elo")
    import pytest

    with pytest.raises(ValueError, match="ruleset"):
        store.replace_ratings("other@v1", points, rater="elo")
    assert len(store.rating_history(ruleset, rater="elo")) == n


def test_records_without_actions_carry_everything_else(tmp_path: Path, db_url: str) -> None:
    """The database strips actions and decks (SQLite's json_remove, PostgreSQL's
    jsonb -): everything else comes back as stored."""
    url = db_url
    _run(tmp_path, url, "light", 1, 2)
    store = open_store(url)
    full, light = list(store.records("light")), list(store.records("light", actions=False))
    assert len(full) == len(light) > 0 and all(r.actions for r in full)
    for a, b in zip(full, light):
        assert b.actions == [] and b.decks == []
        assert {**a.to_dict(), "actions": [], "decks": []} == b.to_dict()
    assert _key(elo_history(light)[full[0].ruleset]) == _key(elo_history(full)[full[0].ruleset])
