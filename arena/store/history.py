"""The rating history's tables, on one connection: append a finished tournament, or
rebuild a ruleset from its records (the store's methods and migration 0005 call these).

Per rater and ruleset the store keeps:

``rating_history``
    the points (:class:`~arena.store.store.RatingPoint`), in append order;
``rating_tournaments``
    the tournaments in the history, with the time their end was added (``ended``: the
    history's order) and how many records they added;
``rating_bots``
    each bot's rating and results so far, and ``rating_deals`` the open duplicate
    deals (:mod:`arena.ratings.history`): what the next tournament starts from.

Order: tournaments by ``(ended, tournament_id)``, each one's records by match id.
``ended`` is taken when the tournament's end is added, in the write transaction that
adds it, after every earlier one of the ruleset (``now``, or a microsecond after the
last one if a clock runs behind), so appending is always at the end. :func:`append`
reads the tournament's records (given), the ruleset's last ``ended`` (one indexed
row), the rows of the bots those records seat and of the open deals they play, and
writes their points and new state: its cost is the tournament's, whatever the
store's size. :func:`rebuild` recomputes a ruleset from every tournament in the
history or finalized (``done``/``stopped``), ordered by ``ended``, or by the
tournament's ``finished`` time for one not yet in the history (a store from before
the history tables, a tournament whose end failed to add), and gives the same points
as the appends did.

A tournament added again (two conductors finalizing it, a round added by another
pass after the first finalized it, ``arena tournament retry`` after it ended) adds
nothing if its records are the ones it added; with other records it moves to the end
(a new ``ended``) and the ruleset is rebuilt: the one case whose cost is the ruleset's.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import JSON, Table, delete, func, select, text, update
from sqlalchemy import cast as sa_cast
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from arena.records.record import MatchRecord
from arena.store.models import (
    MatchRecordRow,
    RatingBotRow,
    RatingDealRow,
    RatingHistoryRow,
    RatingTournamentRow,
    ResultRow,
    TournamentRow,
)

if TYPE_CHECKING:
    from arena.ratings.history import BotState, Extension

__all__ = ["FINAL", "append", "rebuild", "rebuild_all", "rulesets", "without_actions"]

log = logging.getLogger("arena.store")

FINAL = ("done", "stopped")
"""A finalized tournament's statuses."""

_CHUNK = 500
_LOCK_SPACE = 0x4152  # pg_advisory_xact_lock(space, hashtext(rater/ruleset))


def _t(model: type[Any]) -> Table:
    return cast(Table, model.__table__)


def without_actions(conn: Connection, column: Any) -> Any:
    """``column`` (a stored record) without its ``actions`` and ``decks``, removed
    by the database where it can (SQLite's ``json_remove``, PostgreSQL's ``jsonb -``):
    they are most of a record's bytes, and decoding them most of the cost of reading
    results only."""
    name = conn.dialect.name
    if name == "sqlite":
        return func.json_remove(column, "$.actions", "$.decks", type_=JSON)
    if name == "postgresql":
        stripped = sa_cast(column, postgresql.JSONB).op("-")("actions").op("-")("decks")
        return sa_cast(stripped, JSON)
    return column


def _finished(record: MatchRecord, default: datetime) -> datetime:
    try:
        at = datetime.fromisoformat(record.finished_at)
    except (TypeError, ValueError):
        return default
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def _lock(conn: Connection, rater: str, ruleset: str) -> None:
    """Serialize the history writers of one ruleset (SQLite: the write transaction's
    ``BEGIN IMMEDIATE`` already does)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:s, hashtext(:k))"),
                     {"s": _LOCK_SPACE, "k": f"{rater}/{ruleset}"})


def _points_rows(rater: str, ruleset: str, ext: Extension, records: Sequence[MatchRecord],
                 ended: datetime) -> list[dict[str, Any]]:
    at = [_finished(r, ended) for r in records]
    return [dict(rater=rater, ruleset=ruleset, bot=p.bot, rating=p.rating, interval=None, games=p.games,
                 at=at[p.record], match_id=p.match_id) for p in ext.points]


def _insert(conn: Connection, model: type[Any], rows: list[dict[str, Any]]) -> None:
    for i in range(0, len(rows), _CHUNK):
        conn.execute(_t(model).insert(), rows[i:i + _CHUNK])


def _rated(records: Iterable[MatchRecord], ruleset: str) -> list[MatchRecord]:
    return [r for r in records if r.terminal and r.ruleset == ruleset]


def _write(conn: Connection, rater: str, ruleset: str, tournament_id: str | None, ended: datetime,
           records: Sequence[MatchRecord], ext: Extension) -> int:
    rows = _points_rows(rater, ruleset, ext, records, ended)
    _insert(conn, RatingHistoryRow, rows)
    b, d = RatingBotRow, RatingDealRow
    if ext.bots:
        names = sorted(ext.bots)
        for i in range(0, len(names), _CHUNK):
            conn.execute(delete(b).where(b.rater == rater, b.ruleset == ruleset, b.bot.in_(names[i:i + _CHUNK])))
        _insert(conn, b, [dict(rater=rater, ruleset=ruleset, bot=n, rating=s.rating, games=s.games)
                          for n, s in sorted(ext.bots.items())])
    if ext.deals:
        ids = sorted(ext.deals)
        conn.execute(delete(d).where(d.rater == rater, d.ruleset == ruleset, d.deal_id.in_(ids)))
        _insert(conn, d, [dict(rater=rater, ruleset=ruleset, deal_id=i, tables={"tables": ext.deals[i]})
                          for i in ids])
    if tournament_id is not None:
        _insert(conn, RatingTournamentRow, [dict(rater=rater, ruleset=ruleset, tournament_id=tournament_id,
                                                 ended=ended, records=len(records))])
    if ext.note:
        log.info("rating history of %s, tournament %s: %s", ruleset, tournament_id, ext.note)
    return len(rows)


def _next(conn: Connection, rater: str, ruleset: str, now: datetime) -> datetime:
    """``now``, or just after the ruleset's last ``ended`` if that is not earlier."""
    x = RatingTournamentRow
    last = conn.execute(select(x.ended).where(x.rater == rater, x.ruleset == ruleset)
                        .order_by(x.ended.desc(), x.tournament_id.desc()).limit(1)).scalar_one_or_none()
    if last is not None and now <= last:
        return last + timedelta(microseconds=1)
    return now


def append(conn: Connection, rater: str, ruleset: str, tournament_id: str,
           records: Sequence[MatchRecord], now: datetime) -> int:
    """Add a tournament that ended to the history of ``ruleset`` (``records``: its
    records, of any ruleset; results only is enough); returns the points written. In
    the caller's write transaction; see the module docstring."""
    from arena.ratings.history import BotState, extend, open_deal
    from arena.ratings.records import deal_group

    recs = _rated(records, ruleset)
    if not recs:
        return 0
    _lock(conn, rater, ruleset)
    x, b, d = RatingTournamentRow, RatingBotRow, RatingDealRow
    have = conn.execute(select(x.records).where(x.rater == rater, x.ruleset == ruleset,
                                                x.tournament_id == tournament_id)).scalar_one_or_none()
    if have is not None:
        if have == len(recs):
            return 0
        log.info("tournament %s ended again with %d records of %s (it had added %d): rebuilding the "
                 "ruleset's rating history", tournament_id, len(recs), ruleset, have)
        ended = _next(conn, rater, ruleset, now)
        conn.execute(update(x).where(x.rater == rater, x.ruleset == ruleset, x.tournament_id == tournament_id)
                     .values(ended=ended, records=len(recs)))
        return rebuild(conn, rater, ruleset)
    ended = _next(conn, rater, ruleset, now)
    deal_ids = sorted({g for r in recs if open_deal(g := deal_group(r), tournament_id) and g is not None})
    deals: dict[str, list[dict[str, Any]]] = {}
    if deal_ids:
        for i in range(0, len(deal_ids), _CHUNK):
            for deal_id, tables in conn.execute(select(d.deal_id, d.tables).where(
                    d.rater == rater, d.ruleset == ruleset, d.deal_id.in_(deal_ids[i:i + _CHUNK]))):
                deals[deal_id] = list(tables["tables"])
    names = sorted({s for r in recs for s in r.seats}
                   | {str(bot) for tables in deals.values() for t in tables for _, bots, _ in t["sides"]
                      for bot in bots})
    bots: dict[str, BotState] = {}
    for i in range(0, len(names), _CHUNK):
        for bot, rating, games in conn.execute(select(b.bot, b.rating, b.games).where(
                b.rater == rater, b.ruleset == ruleset, b.bot.in_(names[i:i + _CHUNK]))):
            bots[bot] = BotState(float(rating), int(games))
    ext = extend(ruleset, tournament_id, recs, bots=bots, deals=deals)
    return _write(conn, rater, ruleset, tournament_id, ended, recs, ext)


def _records(conn: Connection, tournament_id: str) -> list[MatchRecord]:
    """A tournament's records without their actions, by match id."""
    r = MatchRecordRow
    rows = conn.execute(select(without_actions(conn, r.record)).where(r.tournament_id == tournament_id)
                        .order_by(r.match_id)).scalars()
    return [MatchRecord.from_dict({**data, "actions": [], "decks": []}) for data in rows]


def order(conn: Connection, rater: str, ruleset: str) -> list[tuple[str, datetime]]:
    """The tournaments of ``ruleset``'s history, in order, with their ``ended``: those
    already in it and every finalized one with results of the ruleset (see the module
    docstring)."""
    x, t, res = RatingTournamentRow, TournamentRow, ResultRow
    stamped = dict(conn.execute(select(x.tournament_id, x.ended)
                                .where(x.rater == rater, x.ruleset == ruleset)).all())
    played = select(res.tournament_id).where(res.ruleset == ruleset).distinct().subquery()
    rows = conn.execute(select(t.id, t.status, t.finished, t.created)
                        .where(t.id.in_(select(played.c.tournament_id)))).all()
    out = []
    for tid, status, finished, created in rows:
        if tid in stamped:
            out.append((tid, stamped[tid]))
        elif status in FINAL:
            out.append((tid, finished or created))
    return sorted(out, key=lambda e: (e[1], e[0]))


def rebuild(conn: Connection, rater: str, ruleset: str) -> int:
    """Recompute ``ruleset``'s whole history from the records and replace it (points
    and state), in the caller's write transaction; returns the points written."""
    from arena.ratings.history import replay

    _lock(conn, rater, ruleset)
    ordered = order(conn, rater, ruleset)
    batches = [(tid, ended, _rated(_records(conn, tid), ruleset)) for tid, ended in ordered]
    result = replay(ruleset, [(tid, recs) for tid, _, recs in batches])
    for model in (RatingHistoryRow, RatingTournamentRow, RatingBotRow, RatingDealRow):
        conn.execute(delete(model).where(model.rater == rater, model.ruleset == ruleset))
    written = 0
    for (tid, ended, recs), (_, ext) in zip(batches, result.extensions):
        written += _write(conn, rater, ruleset, tid, ended, recs, _points_only(ext))
    _write_state(conn, rater, ruleset, result.bots, result.deals)
    return written


def _points_only(ext: Extension) -> Extension:
    from arena.ratings.history import Extension

    return Extension(ext.points, {}, {}, ext.grouped, ext.note)


def _write_state(conn: Connection, rater: str, ruleset: str, bots: dict[str, BotState],
                 deals: dict[str, list[dict[str, Any]]]) -> None:
    _insert(conn, RatingBotRow, [dict(rater=rater, ruleset=ruleset, bot=n, rating=s.rating, games=s.games)
                                 for n, s in sorted(bots.items())])
    _insert(conn, RatingDealRow, [dict(rater=rater, ruleset=ruleset, deal_id=i, tables={"tables": t})
                                  for i, t in sorted(deals.items())])


def rulesets(conn: Connection, rater: str) -> list[str]:
    """Every ruleset with results in a tournament or with a history of ``rater``."""
    res, x = ResultRow, RatingTournamentRow
    have = set(conn.execute(select(res.ruleset).where(res.tournament_id.is_not(None)).distinct()).scalars())
    have |= set(conn.execute(select(x.ruleset).where(x.rater == rater).distinct()).scalars())
    return sorted(have)


def rebuild_all(conn: Connection, rater: str, wanted: Iterable[str] | None = None) -> dict[str, int]:
    """:func:`rebuild` for ``wanted`` (default: every ruleset); points per ruleset."""
    names = rulesets(conn, rater) if wanted is None else sorted(set(wanted))
    return {rs: rebuild(conn, rater, rs) for rs in names}

