"""Migration 0005 (the rating history by tournament end): an existing store's history,
written in the old order (tournaments by creation), is rebuilt in the order the
tournaments ended, with the state that the next tournament's end appends from."""

from __future__ import annotations

from arena.records.record import MatchRecord
from arena.records.spec import make_match_id
from arena.store import Store, upgrade
from arena.store.migrate import current
from arena.tournaments.history import add_tournament, elo_history, refresh_rating_history


def _rec(tid: str, i: int, seats: list[str], returns: list[float]) -> MatchRecord:
    return MatchRecord(make_match_id(tid, i), "rummy", "rummy@v1", None, {}, {}, i, [], seats,
                       returns=returns, terminal=True, finished_at="2026-01-01T00:00:00+00:00",
                       tags={"tournament_id": tid, "tournament": tid, "deal": i // 2, "table": 0})


def _records(tid: str, bots: list[str]) -> list[MatchRecord]:
    out = []
    for i in range(8):
        seats = bots if i % 2 == 0 else bots[1:] + bots[:1]
        out.append(_rec(tid, i, seats, [float((i * 5 + 3 * k) % 7 - 3) for k in range(4)]))
    return out


def _key(points: list[object]) -> list[tuple[object, ...]]:
    return [(p.bot, p.rating, p.games, p.match_id) for p in points]  # type: ignore[attr-defined]


def test_0005_rebuilds_the_history_in_the_order_of_the_ends(db_url: str) -> None:
    assert upgrade(db_url, "0004") == "0004"
    store = Store(db_url)  # used at 0004: not migrated further
    a, b, c = (_records("a", ["w", "x", "y", "z"]), _records("b", ["x", "y", "z", "w"]),
               _records("c", ["w", "y", "x", "z"]))
    for tid, recs in (("a", a), ("b", b), ("c", c)):  # created a, b, c
        store.add_tournament(tid, tid, "rummy", {}, [])
        assert all(store.record_results(recs))
    assert store.finish_tournament("b", "done") and store.finish_tournament("a", "stopped")  # ended b, a
    # c is still running; the old history: every record, tournaments by creation
    store.replace_ratings("rummy@v1", elo_history(a + b + c)["rummy@v1"], rater="elo")

    assert upgrade(db_url) == current(db_url) == "0005"
    migrated = store.rating_history("rummy@v1", rater="elo")
    assert _key(migrated) == _key(elo_history(b + a)["rummy@v1"])
    assert _key(migrated) != _key(elo_history(a + b)["rummy@v1"])  # the order changed something
    assert refresh_rating_history(store) == {"rummy@v1": len(migrated)}
    assert store.rating_history("rummy@v1", rater="elo") == migrated
    # the next end appends from the migrated state
    assert store.finish_tournament("c", "done")
    add_tournament(store, "c")
    assert _key(store.rating_history("rummy@v1", rater="elo")) == _key(elo_history(b + a + c)["rummy@v1"])
    store.dispose()
