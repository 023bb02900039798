"""The rating history appended at each tournament's end (issue 28 item 4): equal to a
full recomputation in the order the tournaments ended (duplicate deals, an open deal
across tournaments, the per-tournament fallback, a tournament that ends again), and
its work on a store of 50 tournaments the same as on a store of one: the same SQL
statements, the same rows read and written (counted, not timed), on SQLite and
PostgreSQL (``db_url``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, select
from sqlalchemy.engine.cursor import CursorResult

from arena.ratings.history import extend
from arena.ratings.records import rate_records
from arena.records.record import MatchRecord
from arena.records.spec import make_match_id
from arena.store import Store
from arena.store.models import RatingBotRow, RatingDealRow, RatingTournamentRow
from arena.tournaments.history import elo_history, refresh_after, refresh_rating_history

RUMMY, CALYPSO = "rummy@v1", "calypso@v1"


def _rec(tid: str, i: int, seats: list[str], returns: list[float], *, game: str = "rummy",
         **tags: Any) -> MatchRecord:
    return MatchRecord(make_match_id(tid, i), game, f"{game}@v1", None, {}, {}, i, [], list(seats),
                       returns=[float(x) for x in returns], terminal=True,
                       finished_at=f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00",
                       tags={"tournament_id": tid, "tournament": tid, **tags})


def _add(store: Store, tid: str, records: list[MatchRecord], game: str = "rummy") -> None:
    store.add_tournament(tid, tid, game, {}, [])
    assert all(store.record_results(records))


def _end(store: Store, tid: str, status: str = "done") -> None:
    """What the conductor's finalize does: the history first, then the status."""
    refresh_after(store, tid)
    assert store.finish_tournament(tid, status)


def _plain(tid: str, n: int, bots: list[str], start: int = 0) -> list[MatchRecord]:
    out = []
    for i in range(start, start + n):
        seats = [bots[(i + k) % len(bots)] for k in range(4)]
        out.append(_rec(tid, i, seats, [(i * 7 + 3 * k) % 5 - 2 for k in range(4)]))
    return out


def _duplicate(tid: str, deals: int, bots: list[str], *, game: str = "rummy", **extra: Any) -> list[MatchRecord]:
    """Each deal at one table, in every cyclic seating (a duplicate set)."""
    out, i = [], 0
    for deal in range(deals):
        for rot in range(4):
            seats = [bots[(k + rot) % 4] for k in range(4)]
            ret = [((deal + 1) * (k + 2) * 13 + rot) % 11 - 5 for k in range(4)]
            out.append(_rec(tid, i, seats, ret, game=game, deal=deal, table=0, **extra))
            i += 1
    return out


def _state(store: Store, ruleset: str) -> dict[str, Any]:
    with store.engine.connect() as conn:
        return {m.__tablename__: sorted(tuple(r) for r in conn.execute(select(m).where(m.ruleset == ruleset)
                                                                      .with_only_columns(*m.__table__.c)))
                for m in (RatingBotRow, RatingDealRow, RatingTournamentRow)}


def _key(points: list[Any]) -> list[tuple[str, float, int, str | None]]:
    return [(p.bot, p.rating, p.games, p.match_id) for p in points]


def test_appending_each_end_equals_the_recomputation(db_url: str) -> None:
    store = Store(db_url)
    store.migrate()
    bots = ["ann", "bob", "cid", "dee", "eve"]
    ended: list[list[MatchRecord]] = []  # every tournament's records, in the order they end

    def run(tid: str, records: list[MatchRecord], game: str = "rummy", status: str = "done") -> None:
        _add(store, tid, records, game)
        _end(store, tid, status)
        ended.append(records)

    run("plain", _plain("plain", 12, bots))
    run("dup", _duplicate("dup", 3, bots[:4]))
    # a deal played at a four-seat table and at a three-seat one: no grouping for this
    # tournament (RatingError), and only for it
    bad = _duplicate("bad", 1, bots[1:5]) + [_rec("bad", 9, ["ann", "bob", "cid"], [1, 0, -1], deal=0, table=0)]
    run("bad", bad, status="stopped")
    # an explicit group played in two tournaments: its first tables are kept for the second
    run("open-1", _duplicate("open-1", 1, bots[:4], group="shared")[:2])
    assert _state(store, RUMMY)["rating_deals"], "the open deal is kept"
    run("open-2", [_rec("open-2", i, r.seats, r.returns, group="shared")
                   for i, r in enumerate(_duplicate("open-2", 1, bots[:4])[2:])])
    run("cal", _duplicate("cal", 2, ["n1", "e1", "n2", "e2"], game="calypso"), game="calypso")
    # a tournament that is not over is not in the history
    _add(store, "running", _plain("running", 4, bots))

    appended = {rs: store.rating_history(rs, rater="elo") for rs in (RUMMY, CALYPSO)}
    state = {rs: _state(store, rs) for rs in (RUMMY, CALYPSO)}
    assert all(appended.values())
    assert "running:000000" not in {p.match_id for p in appended[RUMMY]}

    # the fallback was this tournament's: the others kept their deal groups
    assert not extend(RUMMY, "bad", bad, bots={}, deals={}).grouped
    assert extend(RUMMY, "dup", ended[1], bots={}, deals={}).grouped
    every = [r for recs in ended for r in recs]
    assert rate_records(every, fit=False)[RUMMY].notes, "a per-ruleset fallback would drop every group"
    # and the reference without the store gives the same points
    assert _key(appended[RUMMY]) == _key(elo_history(every)[RUMMY])
    assert _key(appended[CALYPSO]) == _key(elo_history(every)[CALYPSO])

    assert refresh_rating_history(store) == {rs: len(pts) for rs, pts in appended.items()}
    for rs in (RUMMY, CALYPSO):
        assert store.rating_history(rs, rater="elo") == appended[rs]  # every field, ratings exactly
        assert _state(store, rs) == state[rs]

    # ending twice with the same records adds nothing (two conductors finalizing)
    refresh_after(store, "dup")
    assert store.rating_history(RUMMY, rater="elo") == appended[RUMMY]

    # retried after its end: "plain" ends again with one more record and moves to the end
    store.reopen_tournament("plain")
    assert all(store.record_results([_rec("plain", 40, ["eve", "ann", "bob", "cid"], [3, 1, 0, -2])]))
    _end(store, "plain")
    moved = store.rating_history(RUMMY, rater="elo")
    plain = list(store.records("plain", actions=False))
    order = ended[1:5] + [plain]
    assert _key(moved) == _key(elo_history([r for recs in order for r in recs])[RUMMY])
    assert moved[-1].match_id == "plain:000040"
    state = _state(store, RUMMY)
    refresh_rating_history(store, [RUMMY])
    assert store.rating_history(RUMMY, rater="elo") == moved and _state(store, RUMMY) == state
    store.dispose()


class _Counter:
    """SQL statements run, rows fetched and rows written through one engine."""

    def __init__(self) -> None:
        self.statements: list[str] = []
        self.read = 0
        self.written = 0


@contextmanager
def _counting(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counter]:
    c = _Counter()
    engine = store.engine

    def before(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        c.statements.append(statement.split(None, 1)[0].upper())
        if many and statement.lstrip().upper().startswith("INSERT"):
            c.written += len(params)

    def after(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        head = statement.lstrip().upper()
        if not many and head.startswith(("INSERT", "UPDATE", "DELETE")) and cursor.rowcount > 0:
            c.written += cursor.rowcount

    def counted(name: str) -> None:
        real = getattr(CursorResult, name)

        def fetch(self: Any, *a: Any, **k: Any) -> Any:
            out = real(self, *a, **k)
            if name == "_fetchiter_impl":
                def rows() -> Iterator[Any]:
                    for row in out:
                        c.read += 1
                        yield row
                return rows()
            if name == "_fetchone_impl":
                c.read += out is not None
            else:
                c.read += len(out)
            return out
        monkeypatch.setattr(CursorResult, name, fetch)

    for name in ("_fetchall_impl", "_fetchiter_impl", "_fetchmany_impl", "_fetchone_impl"):
        counted(name)
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        yield c
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        monkeypatch.undo()


def test_the_end_of_a_tournament_reads_only_its_own_rows(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One store, 51 tournaments of one ruleset (each: 3 duplicate deals, every one at a
    table of 4 entrants in its four seatings): the end of the 2nd (1 before it) and of
    the 51st (50 before it), alike (the same 4 entrants, all rated before), run the same
    statements and read and write the same rows, all of them the tournament's own."""
    store = Store(db_url)
    store.migrate()
    field = [f"bot-{k:02d}" for k in range(12)]
    same = field[:4]
    seen: dict[int, tuple[list[str], int, int, int]] = {}
    for n in range(51):
        tid = f"season-{n:02d}"
        four = same if n in (0, 1, 50) else [field[(n * 5 + k) % 12] for k in range(4)]
        records = _duplicate(tid, 3, four)
        _add(store, tid, records)
        if n not in (1, 50):
            _end(store, tid)
            continue
        before = len(store.rating_history(RUMMY, rater="elo"))
        with _counting(store, monkeypatch) as c:
            refresh_after(store, tid)
        assert store.finish_tournament(tid, "done")
        points = len(store.rating_history(RUMMY, rater="elo")) - before
        assert points == 4 * len(records)  # every result moved its four seats
        # read: its 12 records, its 4 entrants' state, the ruleset's last end
        assert c.read == len(records) + 4 + 1, (c.read, c.statements)
        # written: its points, its 4 entrants' state (deleted and inserted), its end
        assert c.written == points + 4 + 4 + 1, (c.written, c.statements)
        seen[n] = (c.statements, c.read, c.written, points)
        print(f"\n{db_url.split(':', 1)[0]}: end of a tournament with {n} before it: "
              f"{len(c.statements)} statements {c.statements}, {c.read} rows read, {c.written} rows written")
    assert seen[1] == seen[50]
    # and the appended history is the recomputed one
    appended = store.rating_history(RUMMY, rater="elo")
    assert len({p.match_id for p in appended}) == 51 * 12
    refresh_rating_history(store, [RUMMY])
    assert store.rating_history(RUMMY, rater="elo") == appended
    store.dispose()
