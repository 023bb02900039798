"""The store: tournaments, match specs and their claims, match records, results,
rating history and bots, in SQLite (default) or PostgreSQL.

Exactly once
    :meth:`Store.record_result` writes a match's record, its per-seat results and
    the spec's ``done`` status in one transaction, with ``INSERT ... ON CONFLICT
    DO NOTHING`` on the record's primary key (the match id). Whoever inserts the
    row gets ``True``; every later (or concurrent) writer of the same match id gets
    ``False`` and writes nothing. This holds across processes on both databases,
    so a redelivered Celery task or a match re-run after a crash cannot write a
    second record.

Claims
    :meth:`Store.claim` is a single conditional ``UPDATE``: a spec can be claimed
    when it is ``pending``, or ``running`` with a claim older than the claim
    timeout (its worker presumably died). A claim is an optimization (it keeps two
    workers from playing the same match), not the guarantee: the guarantee is the
    exactly-once record.

Processes
    A :class:`Store` may be used from several threads. After ``fork`` the child
    reopens its connections (the pool is discarded on first use), but prefer
    creating the store in the process that uses it.

>>> from arena.records.spec import MatchSpec, make_match_id
>>> store = Store("sqlite://"); _ = store.migrate()
>>> spec = MatchSpec(make_match_id("t1", 0), "t1", 0, "highcard", None, {}, 7,
...                  ("a", "b"), ("builtin:random", "builtin:random"))
>>> store.add_tournament("t1", "demo", "highcard", {}, [spec])
1
>>> store.claim(spec.match_id, "w1"), store.claim(spec.match_id, "w2")
(True, False)
>>> store.progress("t1")
(0, 1)
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from sqlalchemy import Engine, Table, and_, func, literal_column, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from arena.records.record import MatchRecord
from arena.store import migrate as _migrate
from arena.store.engine import create_store_engine, is_sqlite
from arena.store.models import (
    MatchRecordRow,
    MatchSpecRow,
    RatingHistoryRow,
    ResultRow,
    TournamentRow,
    utcnow,
)
from arena.records.spec import MatchSpec

__all__ = [
    "DEFAULT_URL",
    "RatingPoint",
    "SeatResult",
    "SpecConflictError",
    "SpecState",
    "Store",
    "TournamentInfo",
    "TournamentNotFoundError",
]

DEFAULT_URL = "sqlite:///arena.db"
SPEC_STATUSES = ("pending", "running", "done", "failed")
_CHUNK = 400


class SpecConflictError(ValueError):
    """A tournament or spec with this id exists with different contents."""


class TournamentNotFoundError(KeyError):
    """No tournament with that id."""


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    id: str
    name: str
    game: str
    config: dict[str, Any]
    created: datetime
    status: str


@dataclass(frozen=True, slots=True)
class SpecState:
    """The execution state of one spec."""

    match_id: str
    tournament_id: str
    index: int
    status: str
    """``pending``, ``running``, ``done`` or ``failed``."""
    attempts: int
    """How many times it was claimed."""
    claimed_by: str | None
    claimed_at: datetime | None
    error: str | None
    updated: datetime


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of one stored match."""

    match_id: str
    tournament_id: str | None
    ruleset: str
    seat: int
    entrant: str
    """The tournament entrant at this seat (the spec's ``entrants``; the bot name
    for a record without a spec)."""
    bot: str
    """The bot name at this seat, as in the record's ``seats``."""
    returns: float


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating in a ruleset after a result."""

    ruleset: str
    bot: str
    rating: float
    interval: float | None = None
    """Half-width of the 95% interval, if the rater has one."""
    games: int = 0
    at: datetime = field(default_factory=utcnow)
    match_id: str | None = None
    rater: str = ""
    """Which rating system (``elo``, ``glicko2`` ...); ``""`` if unspecified."""


def _table(model: type[Any]) -> Table:
    return cast(Table, model.__table__)


def _norm(data: Any) -> Any:
    """``data`` as it comes back from a JSON column (tuples -> lists, keys -> str)."""
    return json.loads(json.dumps(data, sort_keys=True))


def _chunks(seq: Sequence[Any], n: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(seq), n):
        yield seq[i:i + n]


def _parse_time(text: str) -> datetime | None:
    if not text:
        return None
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=timezone.utc)


class Store:
    """The arena's database; see the module docstring.

    :param url: SQLAlchemy URL: ``sqlite:///path.db`` (default ``sqlite:///arena.db``)
        or ``postgresql+psycopg://user@host:port/db``.
    :param claim_timeout: seconds after which a ``running`` claim may be taken over.
    """

    def __init__(self, url: str = DEFAULT_URL, *, claim_timeout: float = 600.0) -> None:
        self.url = url
        self.claim_timeout = float(claim_timeout)
        self._lock = threading.Lock()
        self._engine_obj: Engine = create_store_engine(url)
        self._pid = os.getpid()

    def __repr__(self) -> str:
        return f"Store({self._engine_obj.url.render_as_string(hide_password=True)!r})"

    # -- plumbing -----------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine (its pool is replaced after a fork)."""
        if os.getpid() != self._pid:
            with self._lock:
                if os.getpid() != self._pid:
                    self._engine_obj.dispose(close=False)
                    self._pid = os.getpid()
        return self._engine_obj

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """A connection in a write transaction (SQLite: ``BEGIN IMMEDIATE``)."""
        with self.engine.connect() as conn:
            if is_sqlite(conn):
                conn.execution_options(sqlite_begin="IMMEDIATE")
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    def _insert_ignore(self, conn: Connection, table: Table, rows: list[dict[str, Any]]) -> int:
        """Insert rows, skipping those that violate a unique constraint; returns the
        number inserted (exact only for a single row)."""
        if not rows:
            return 0
        name = conn.dialect.name
        if name in ("sqlite", "postgresql"):
            ins: Any = (sqlite.insert(table) if name == "sqlite" else postgresql.insert(table))
            ins = ins.on_conflict_do_nothing()
            if len(rows) == 1:  # exact: RETURNING yields a row only if it was inserted
                returning = ins.returning(literal_column("1"))
                return 0 if conn.execute(returning, rows[0]).first() is None else 1
            res = conn.execute(ins, rows)
            return max(res.rowcount, 0)  # executemany: may be -1 / approximate
        n = 0
        for row in rows:  # other databases: one savepoint per row
            try:
                with conn.begin_nested():
                    conn.execute(table.insert(), row)
                n += 1
            except IntegrityError:
                pass
        return n

    def migrate(self) -> str | None:
        """Create or upgrade the schema to the newest migration (safe to call from
        several processes at once); returns the revision."""
        return _migrate.upgrade(self.engine)

    def dispose(self) -> None:
        """Close the pooled connections."""
        self._engine_obj.dispose()

    close = dispose

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.dispose()

    # -- tournaments and specs ----------------------------------------------
    def add_tournament(self, tournament_id: str, name: str, game: str, config: dict[str, Any],
                       specs: Iterable[MatchSpec]) -> int:
        """Create a tournament with its specs, idempotently.

        Re-adding the same tournament and specs changes nothing; new specs (e.g. the
        next Swiss round) are added. Returns the number of specs added.

        :raises SpecConflictError: if the tournament exists with another name, game
            or config, or a spec's id (or index) exists with other contents, or a
            spec belongs to another tournament. Nothing is written then.
        """
        now = utcnow()
        cfg = _norm(config)
        with self._write() as conn:
            t = _table(TournamentRow)
            self._insert_ignore(conn, t, [dict(id=tournament_id, name=name, game=game, config=cfg,
                                               created=now, status="pending")])
            row = conn.execute(select(TournamentRow.name, TournamentRow.game, TournamentRow.config)
                               .where(TournamentRow.id == tournament_id)).one()
            if (row.name, row.game, _norm(row.config)) != (name, game, cfg):
                raise SpecConflictError(
                    f"tournament {tournament_id!r} exists as ({row.name!r}, {row.game!r}, "
                    f"{row.config!r}), not ({name!r}, {game!r}, {cfg!r})")
            return self._add_specs(conn, tournament_id, list(specs), now)

    def add_specs(self, tournament_id: str, specs: Iterable[MatchSpec]) -> int:
        """Add specs to an existing tournament (idempotent as :meth:`add_tournament`).

        :raises TournamentNotFoundError: for an unknown tournament.
        :raises SpecConflictError: as :meth:`add_tournament`.
        """
        with self._write() as conn:
            if conn.execute(select(TournamentRow.id).where(TournamentRow.id == tournament_id)
                            ).first() is None:
                raise TournamentNotFoundError(tournament_id)
            return self._add_specs(conn, tournament_id, list(specs), utcnow())

    def _add_specs(self, conn: Connection, tournament_id: str, specs: list[MatchSpec],
                   now: datetime) -> int:
        want: dict[str, tuple[MatchSpec, Any]] = {}
        for s in specs:
            if s.tournament_id != tournament_id:
                raise SpecConflictError(
                    f"spec {s.match_id!r} belongs to tournament {s.tournament_id!r}, not {tournament_id!r}")
            d = _norm(s.to_dict())
            if s.match_id in want and want[s.match_id][1] != d:
                raise SpecConflictError(f"two different specs with id {s.match_id!r}")
            want[s.match_id] = (s, d)
        ids = list(want)
        existing: set[str] = set()
        for chunk in _chunks(ids):
            existing.update(conn.execute(select(MatchSpecRow.match_id)
                                         .where(MatchSpecRow.match_id.in_(chunk))).scalars())
        rows = [dict(match_id=mid, tournament_id=tournament_id, match_index=s.index, spec=d,
                     status="pending", attempts=0, updated=now)
                for mid, (s, d) in want.items() if mid not in existing]
        table = _table(MatchSpecRow)
        for chunk in _chunks(rows):
            self._insert_ignore(conn, table, list(chunk))
        found: dict[str, tuple[str, int, Any]] = {}
        for chunk in _chunks(ids):
            for r in conn.execute(select(MatchSpecRow.match_id, MatchSpecRow.tournament_id,
                                         MatchSpecRow.index.label("match_index"), MatchSpecRow.spec)
                                  .where(MatchSpecRow.match_id.in_(chunk))):
                found[r.match_id] = (r.tournament_id, r.match_index, r.spec)
        for mid, (s, d) in want.items():
            if mid not in found:
                raise SpecConflictError(
                    f"spec {mid!r}: index {s.index} of tournament {tournament_id!r} is taken by another match id")
            tid, index, stored = found[mid]
            if tid != tournament_id or index != s.index or _norm(stored) != d:
                raise SpecConflictError(f"spec {mid!r} already exists with different contents")
        return len(rows)

    def set_tournament_status(self, tournament_id: str, status: str) -> None:
        """Set a tournament's free-form status (``pending``, ``running``, ``done`` ...).

        :raises TournamentNotFoundError: for an unknown tournament.
        """
        with self._write() as conn:
            res = conn.execute(update(TournamentRow).where(TournamentRow.id == tournament_id)
                               .values(status=status))
            if res.rowcount == 0:
                raise TournamentNotFoundError(tournament_id)

    @staticmethod
    def _tournament(row: Any) -> TournamentInfo:
        return TournamentInfo(row.id, row.name, row.game, row.config, row.created, row.status)

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament, oldest first."""
        t = TournamentRow
        with self._read() as conn:
            rows = conn.execute(select(t.id, t.name, t.game, t.config, t.created, t.status)
                                .order_by(t.created, t.id)).all()
        return [self._tournament(r) for r in rows]

    def tournament(self, tournament_id: str) -> TournamentInfo:
        """One tournament.

        :raises TournamentNotFoundError: for an unknown id.
        """
        t = TournamentRow
        with self._read() as conn:
            row = conn.execute(select(t.id, t.name, t.game, t.config, t.created, t.status)
                               .where(t.id == tournament_id)).first()
        if row is None:
            raise TournamentNotFoundError(tournament_id)
        return self._tournament(row)

    def specs(self, tournament_id: str) -> list[MatchSpec]:
        """Every spec of a tournament, by index."""
        with self._read() as conn:
            rows = conn.execute(select(MatchSpecRow.spec)
                                .where(MatchSpecRow.tournament_id == tournament_id)
                                .order_by(MatchSpecRow.index)).scalars().all()
        return [MatchSpec.from_dict(d) for d in rows]

    def spec(self, match_id: str) -> MatchSpec:
        """One spec.

        :raises KeyError: for an unknown match id.
        """
        with self._read() as conn:
            d = conn.execute(select(MatchSpecRow.spec)
                             .where(MatchSpecRow.match_id == match_id)).scalar_one_or_none()
        if d is None:
            raise KeyError(match_id)
        return MatchSpec.from_dict(d)

    def spec_states(self, tournament_id: str) -> list[SpecState]:
        """The execution state of every spec of a tournament, by index."""
        m = MatchSpecRow
        with self._read() as conn:
            rows = conn.execute(select(m.match_id, m.tournament_id, m.index, m.status, m.attempts,
                                       m.claimed_by, m.claimed_at, m.error, m.updated)
                                .where(m.tournament_id == tournament_id).order_by(m.index)).all()
        return [SpecState(*r) for r in rows]

    def _claimable(self, now: datetime, timeout: float | None) -> Any:
        cutoff = now - timedelta(seconds=self.claim_timeout if timeout is None else timeout)
        m = MatchSpecRow
        return or_(m.status == "pending",
                   and_(m.status == "running", m.claimed_at < cutoff))

    def pending_specs(self, tournament_id: str, limit: int | None = None, *,
                      include_stale: bool = True) -> list[MatchSpec]:
        """Specs that :meth:`claim` would grant now, by index: ``pending`` ones and
        (unless ``include_stale=False``) ``running`` ones whose claim timed out."""
        m = MatchSpecRow
        cond = self._claimable(utcnow(), None) if include_stale else (m.status == "pending")
        stmt = (select(m.spec).where(m.tournament_id == tournament_id, cond).order_by(m.index))
        if limit is not None:
            stmt = stmt.limit(limit)
        with self._read() as conn:
            rows = conn.execute(stmt).scalars().all()
        return [MatchSpec.from_dict(d) for d in rows]

    def claim(self, match_id: str, worker: str, *, timeout: float | None = None) -> bool:
        """Atomically mark a spec ``running`` for ``worker``; True if this call got it.

        Granted when the spec is ``pending``, or ``running`` with a claim older than
        ``timeout`` seconds (default: the store's ``claim_timeout``), so a crashed
        worker's match is taken over. Never granted for ``done`` or ``failed``
        specs (see :meth:`requeue`), nor to the same worker twice within the timeout.
        Increments ``attempts``.
        """
        now = utcnow()
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, self._claimable(now, timeout))
                               .values(status="running", claimed_by=worker, claimed_at=now,
                                       attempts=m.attempts + 1, updated=now))
            return res.rowcount == 1

    def claim_next(self, tournament_id: str, worker: str, limit: int = 1, *,
                   timeout: float | None = None) -> list[MatchSpec]:
        """Claim up to ``limit`` claimable specs of a tournament, lowest index first;
        returns the specs this worker got (empty when nothing is left to claim).

        Each is claimed with :meth:`claim`, so concurrent callers never get the same
        spec; a caller that loses a race moves on to the next candidate.
        """
        got: list[MatchSpec] = []
        m = MatchSpecRow
        tried: set[str] = set()
        while len(got) < limit:
            want = limit - len(got)
            stmt = (select(m.match_id, m.spec)
                    .where(m.tournament_id == tournament_id,
                           self._claimable(utcnow(), timeout))
                    .order_by(m.index).limit(want + len(tried) + 8))
            with self._read() as conn:
                rows = [r for r in conn.execute(stmt).all() if r.match_id not in tried]
            if not rows:
                break
            for r in rows:
                tried.add(r.match_id)
                if self.claim(r.match_id, worker, timeout=timeout):
                    got.append(MatchSpec.from_dict(r.spec))
                    if len(got) == limit:
                        break
        return got

    def release(self, match_id: str, worker: str) -> bool:
        """Give a claim back (the spec becomes ``pending``); False if ``worker`` does
        not hold it."""
        now = utcnow()
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, m.status == "running",
                                               m.claimed_by == worker)
                               .values(status="pending", claimed_by=None, claimed_at=None, updated=now))
            return res.rowcount == 1

    def mark_failed(self, match_id: str, worker: str, error: str = "") -> bool:
        """Mark a spec held by ``worker`` as ``failed`` with a reason; False if it
        does not hold it (e.g. the match was recorded meanwhile)."""
        now = utcnow()
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, m.status == "running",
                                               m.claimed_by == worker)
                               .values(status="failed", error=error[:2000], updated=now))
            return res.rowcount == 1

    def requeue(self, tournament_id: str, *, running: bool = True, failed: bool = True) -> int:
        """Put ``running`` and/or ``failed`` specs of a tournament back to ``pending``
        (e.g. resuming an embedded run after Ctrl-C, when no other worker is alive);
        returns how many."""
        statuses = [s for s, on in (("running", running), ("failed", failed)) if on]
        if not statuses:
            return 0
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.tournament_id == tournament_id, m.status.in_(statuses))
                               .values(status="pending", claimed_by=None, claimed_at=None,
                                       updated=utcnow()))
            return int(res.rowcount)

    # -- records and results ------------------------------------------------
    def record_result(self, record: MatchRecord) -> bool:
        """Store a finished match exactly once, keyed by ``record.match_id``.

        In one transaction: the record, one results row per seat, and the spec's
        status ``done``. Returns True if this call wrote it, False if a record with
        this match id was already stored (then nothing is written). Safe under
        concurrent writers in several processes, on SQLite and PostgreSQL.
        """
        data = record.to_dict()
        now = utcnow()
        finished = _parse_time(record.finished_at) or now
        m = MatchSpecRow
        with self._write() as conn:
            spec_row = conn.execute(select(m.tournament_id, m.spec)
                                    .where(m.match_id == record.match_id)).first()
            if spec_row is not None:
                tournament_id: str | None = spec_row.tournament_id
                entrants = list(spec_row.spec.get("entrants", []))
            else:
                tag = record.tags.get("tournament")
                tournament_id = tag if isinstance(tag, str) else None
                entrants = []
            inserted = self._insert_ignore(conn, _table(MatchRecordRow), [dict(
                match_id=record.match_id, tournament_id=tournament_id, record=data,
                finished_at=finished)])
            if inserted != 1:
                return False
            seats = []
            for i, bot in enumerate(record.seats):
                seats.append(dict(
                    match_id=record.match_id, tournament_id=tournament_id, ruleset=record.ruleset,
                    seat=i, entrant=entrants[i] if i < len(entrants) else bot, bot=bot,
                    returns=float(record.returns[i]) if i < len(record.returns) else 0.0))
            if seats:
                conn.execute(_table(ResultRow).insert(), seats)
            if spec_row is not None:
                conn.execute(update(m).where(m.match_id == record.match_id)
                             .values(status="done", error=None, updated=now))
            return True

    def record(self, match_id: str) -> MatchRecord | None:
        """The stored record of a match, or None."""
        with self._read() as conn:
            d = conn.execute(select(MatchRecordRow.record)
                             .where(MatchRecordRow.match_id == match_id)).scalar_one_or_none()
        return None if d is None else MatchRecord.from_dict(d)

    def records(self, tournament_id: str, *, batch: int = 500) -> Iterator[MatchRecord]:
        """The stored records of a tournament, by match id (= spec index order for
        stable ids), read in batches (no transaction stays open between them)."""
        r = MatchRecordRow
        last = ""
        while True:
            with self._read() as conn:
                rows = conn.execute(select(r.match_id, r.record)
                                    .where(r.tournament_id == tournament_id, r.match_id > last)
                                    .order_by(r.match_id).limit(batch)).all()
            for row in rows:
                yield MatchRecord.from_dict(row.record)
            if len(rows) < batch:
                return
            last = rows[-1].match_id

    def progress(self, tournament_id: str) -> tuple[int, int]:
        """``(recorded specs, total specs)`` of a tournament."""
        m, r = MatchSpecRow, MatchRecordRow
        with self._read() as conn:
            total = conn.execute(select(func.count()).select_from(m)
                                 .where(m.tournament_id == tournament_id)).scalar_one()
            done = conn.execute(select(func.count()).select_from(r)
                                .join(m, m.match_id == r.match_id)
                                .where(m.tournament_id == tournament_id)).scalar_one()
        return int(done), int(total)

    def status_counts(self, tournament_id: str) -> dict[str, int]:
        """Number of specs in each status (every status present as a key)."""
        m = MatchSpecRow
        with self._read() as conn:
            rows = conn.execute(select(m.status, func.count()).where(m.tournament_id == tournament_id)
                                .group_by(m.status)).all()
        counts = dict.fromkeys(SPEC_STATUSES, 0)
        counts.update({s: int(n) for s, n in rows})
        return counts

    def results(self, tournament_id: str | None = None, *, ruleset: str | None = None,
                bot: str | None = None) -> list[SeatResult]:
        """Per-seat results, filtered, by match id then seat."""
        x = ResultRow
        stmt = select(x.match_id, x.tournament_id, x.ruleset, x.seat, x.entrant, x.bot, x.returns)
        if tournament_id is not None:
            stmt = stmt.where(x.tournament_id == tournament_id)
        if ruleset is not None:
            stmt = stmt.where(x.ruleset == ruleset)
        if bot is not None:
            stmt = stmt.where(x.bot == bot)
        with self._read() as conn:
            rows = conn.execute(stmt.order_by(x.match_id, x.seat)).all()
        return [SeatResult(*r) for r in rows]

    # -- ratings --------------------------------------------------------------
    def append_ratings(self, points: Iterable[RatingPoint]) -> int:
        """Append rating history points (in order); returns how many."""
        rows = [dict(rater=p.rater, ruleset=p.ruleset, bot=p.bot, rating=float(p.rating),
                     interval=None if p.interval is None else float(p.interval), games=int(p.games),
                     at=p.at, match_id=p.match_id) for p in points]
        if not rows:
            return 0
        with self._write() as conn:
            for chunk in _chunks(rows):
                conn.execute(_table(RatingHistoryRow).insert(), list(chunk))
        return len(rows)

    def replace_ratings(self, ruleset: str, points: Iterable[RatingPoint], *, rater: str) -> int:
        """Replace the rating history of one ruleset and rater with ``points`` (in
        order), in one transaction: readers see the old history or the new one."""
        h = RatingHistoryRow
        rows = [dict(rater=rater, ruleset=p.ruleset, bot=p.bot, rating=float(p.rating),
                     interval=None if p.interval is None else float(p.interval), games=int(p.games),
                     at=p.at, match_id=p.match_id) for p in points]
        if any(r["ruleset"] != ruleset for r in rows):
            raise ValueError(f"every point must be of ruleset {ruleset!r}")
        with self._write() as conn:
            conn.execute(_table(h).delete().where(h.ruleset == ruleset, h.rater == rater))
            for chunk in _chunks(rows):
                conn.execute(_table(h).insert(), list(chunk))
        return len(rows)

    def rating_history(self, ruleset: str, bot: str | None = None, *,
                       rater: str | None = None) -> list[RatingPoint]:
        """Rating points of a ruleset (optionally one bot / one rater), in append order."""
        h = RatingHistoryRow
        stmt = select(h.ruleset, h.bot, h.rating, h.interval, h.games, h.at, h.match_id,
                      h.rater).where(h.ruleset == ruleset)
        if bot is not None:
            stmt = stmt.where(h.bot == bot)
        if rater is not None:
            stmt = stmt.where(h.rater == rater)
        with self._read() as conn:
            rows = conn.execute(stmt.order_by(h.id)).all()
        return [RatingPoint(*r) for r in rows]

    def clear_ratings(self, ruleset: str | None = None, *, rater: str | None = None) -> int:
        """Delete rating history (before a refit from all records); returns rows deleted."""
        h = RatingHistoryRow
        stmt = _table(h).delete()
        if ruleset is not None:
            stmt = stmt.where(h.ruleset == ruleset)
        if rater is not None:
            stmt = stmt.where(h.rater == rater)
        with self._write() as conn:
            return int(conn.execute(stmt).rowcount)

    # -- bots -----------------------------------------------------------------
    def bot_registry(self) -> StoreBotRegistry:
        """The bot registry on this store."""
        return StoreBotRegistry(self)


from arena.store.bots import StoreBotRegistry  # noqa: E402  (circular: bots uses Store)
