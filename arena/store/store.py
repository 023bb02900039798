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

Leases
    :meth:`Store.lease` is a single conditional ``UPDATE``: a spec can be leased
    when it is ``pending`` (and its retry backoff is over), or ``leased`` with an
    expired lease (its holder stopped renewing it: presumably dead). The holder
    renews its leases by heartbeat (:meth:`Store.renew`). The conductor
    (:mod:`arena.tournaments.conductor`) reopens expired leases and failed specs with
    attempts left. A lease keeps two workers from playing the same match; the
    guarantee is the exactly-once record.

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
>>> store.lease(spec.match_id, "w1", 30), store.lease(spec.match_id, "w2", 30)
(True, False)
>>> store.progress("t1")
(0, 1)
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, cast

from sqlalchemy import (JSON, Engine, Table, and_, bindparam, exists, func, literal, literal_column, or_,
                        select, update)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from arena.records.record import MatchRecord
from arena.store import history as _history
from arena.store import migrate as _migrate
from arena.store.bots import StoreBotRegistry
from arena.store.engine import StoreURLError, create_store_engine, is_sqlite
from arena.store.models import (
    MatchRecordRow,
    MatchSpecRow,
    RatingHistoryRow,
    ResultRow,
    TournamentRow,
    UTCDateTime,
    utcnow,
)
from arena.records.spec import MatchSpec

log = logging.getLogger("arena.store")

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
SPEC_STATUSES = ("pending", "leased", "done", "failed")
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
    round: int = 0
    finished: datetime | None = None
    voids_in_row: int = 0
    """Matches voided by platform faults since the tournament's last record."""
    paused_until: datetime | None = None
    """Nothing is leased before this time (route failures piled up; :meth:`Store.void`)."""
    pause_reason: str | None = None


@dataclass(frozen=True, slots=True)
class SpecState:
    """The execution state of one spec."""

    match_id: str
    tournament_id: str
    index: int
    status: str
    """``pending``, ``leased``, ``done`` or ``failed``."""
    attempts: int
    """How many times it was leased."""
    claimed_by: str | None
    """The lease's owner (``kind:host:pid``)."""
    claimed_at: datetime | None
    """When the lease was granted."""
    error: str | None
    updated: datetime
    lease_expires: datetime | None = None
    not_before: datetime | None = None
    round: int = 0


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


class _Hot:
    """The statements of the hot path (lease, renew, record), built once per
    dialect and reused: building a statement costs several times more than
    running it on SQLite (SQLAlchemy constructs and keys the expression on every
    call), and workers run these for every match."""

    def __init__(self, dialect: str) -> None:
        t = _table(MatchSpecRow).c
        now = bindparam("p_now", type_=UTCDateTime())
        tid: Any = bindparam("p_tid")
        lim: Any = bindparam("p_limit")
        pg = dialect == "postgresql"

        def candidates(*cond: Any) -> Any:
            stmt = (select(t.match_id, t.match_index).where(t.tournament_id == tid, *cond)
                    .order_by(t.match_index).limit(lim))
            return stmt.with_for_update(skip_locked=True) if pg else stmt

        self.pending = candidates(t.status == "pending", or_(t.not_before.is_(None), t.not_before <= now))
        self.expired = candidates(t.status == "leased", t.lease_expires < now)
        leasable = or_(and_(t.status == "pending", or_(t.not_before.is_(None), t.not_before <= now)),
                       and_(t.status == "leased", t.lease_expires < now))
        self.lease = (update(_table(MatchSpecRow))
                      .where(t.match_id.in_(bindparam("p_ids", expanding=True)), leasable)
                      .values(status="leased", claimed_by=bindparam("p_owner"), claimed_at=now,
                              lease_expires=bindparam("p_expires", type_=UTCDateTime()),
                              attempts=t.attempts + 1, not_before=None, updated=now)
                      .returning(t.match_index, t.spec))
        self.renew = (update(_table(MatchSpecRow))
                      .where(t.status == "leased", t.claimed_by == bindparam("p_owner"))
                      .values(lease_expires=bindparam("p_expires", type_=UTCDateTime())))
        self.spec_of = select(t.tournament_id, t.spec).where(t.match_id == bindparam("p_mid"))
        records = _table(MatchRecordRow)
        ins: Any = postgresql.insert(records) if pg else sqlite.insert(records)
        self.insert_record = ins.on_conflict_do_nothing().returning(literal_column("1"))
        self.insert_results = _table(ResultRow).insert()
        self.done = (update(_table(MatchSpecRow)).where(t.match_id == bindparam("p_mid"))
                     .values(status="done", error=None, lease_expires=None, not_before=None,
                             deferred_since=None, updated=now))
        tc = _table(TournamentRow).c
        self.route_ok = (update(_table(TournamentRow))
                         .where(tc.id.in_(bindparam("p_tids", expanding=True)), tc.voids_in_row > 0)
                         .values(voids_in_row=0, voids_since=None, pauses=0, paused_until=None,
                                 pause_reason=None))


_HOT: dict[str, _Hot] = {}


def _hot(conn: Connection) -> _Hot:
    """The prebuilt statements for ``conn``'s dialect (the store runs on SQLite and
    PostgreSQL; both have ``ON CONFLICT`` and ``UPDATE ... RETURNING``)."""
    name = conn.dialect.name
    if name not in ("sqlite", "postgresql"):
        raise ValueError(f"the store runs on SQLite or PostgreSQL, not {name}")
    hot = _HOT.get(name)
    if hot is None:
        hot = _HOT[name] = _Hot(name)
    return hot



_without_actions = _history.without_actions


class Store:
    """The arena's database; see the module docstring.

    :param url: SQLAlchemy URL: ``sqlite:///path.db`` (default ``sqlite:///arena.db``)
        or ``postgresql+psycopg://user@host:port/db``.
    :param readonly: for commands that only read: nothing is created, migrated or
        written (:mod:`arena.store.engine`); :meth:`migrate` then only checks that
        the schema is the one this version reads.
    :raises arena.store.engine.StoreURLError: for a URL that is not a store's
        (:class:`~arena.store.engine.StoreNotFoundError`: read-only, no such file).
    """

    def __init__(self, url: str = DEFAULT_URL, *, readonly: bool = False) -> None:
        self.url = url
        self.readonly = readonly
        self._lock = threading.Lock()
        self._engine_obj: Engine = create_store_engine(url, readonly=readonly)
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
        several processes at once); returns the revision.

        Read-only: only checks the schema's revision.

        :raises arena.store.engine.StoreURLError: read-only, and the database is not
            an arena store or is at another revision than this version's.
        """
        if self.readonly:
            rev, want = _migrate.current(self.engine), _migrate.head()
            url = self._engine_obj.url.render_as_string(hide_password=True)
            if rev is None:
                raise StoreURLError(f"{url} is not an arena store (it has no arena tables)")
            if rev != want:
                raise StoreURLError(f"{url} has schema {rev}, this version of arena reads {want}: "
                                    "a command that writes (e.g. arena tournament run) upgrades it")
            return rev
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
                     status="pending", attempts=0, updated=now, round=s.round)
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

    def finish_tournament(self, tournament_id: str, status: str, *, idle: bool = False) -> bool:
        """Set a tournament's final status (``done`` or ``stopped``) and finish time,
        unless it is final already; True if this call did it (conductors racing to
        finalize: one wins). ``idle``: only if none of its matches is pending or
        leased (a pass whose view is stale, while another added a round, finalizes
        nothing)."""
        t, m = TournamentRow, MatchSpecRow
        cond = [t.id == tournament_id, t.status.not_in(("done", "stopped"))]
        if idle:
            cond.append(~exists().where(m.tournament_id == tournament_id,
                                        m.status.in_(("pending", "leased"))))
        with self._write() as conn:
            res = conn.execute(update(t).where(*cond).values(status=status, finished=utcnow()))
            return res.rowcount == 1

    def reopen_tournament(self, tournament_id: str) -> None:
        """A finished tournament becomes ``running`` again (failed matches re-opened
        by hand): conductors pick it up."""
        t = TournamentRow
        with self._write() as conn:
            conn.execute(update(t).where(t.id == tournament_id).values(status="running", finished=None))

    def add_round(self, tournament_id: str, specs: Iterable[MatchSpec], *, after: int) -> int | None:
        """Add a format's next round, in one write transaction, only if the tournament
        is still at round ``after`` and none of its matches is pending or leased; the
        round becomes the specs' highest. Returns the specs added, or ``None`` when
        another pass advanced the tournament first (conductors racing, or one whose
        view of the store is stale: nothing is added).

        :raises TournamentNotFoundError: for an unknown tournament.
        :raises SpecConflictError: as :meth:`add_tournament`.
        """
        specs = list(specs)
        t, m = TournamentRow, MatchSpecRow
        with self._write() as conn:
            row = conn.execute(select(t.round).where(t.id == tournament_id).with_for_update()).first()
            if row is None:
                raise TournamentNotFoundError(tournament_id)
            if row.round != after:
                return None
            busy = conn.execute(select(func.count()).select_from(m).where(
                m.tournament_id == tournament_id, m.status.in_(("pending", "leased")))).scalar_one()
            if busy:
                return None
            added = self._add_specs(conn, tournament_id, specs, utcnow())
            rnd = max((s.round for s in specs), default=after)
            conn.execute(update(t).where(t.id == tournament_id, t.round < rnd).values(round=rnd))
            return added

    def set_round(self, tournament_id: str, round: int) -> None:
        """Record that the format has added round ``round`` (never lowers it)."""
        t = TournamentRow
        with self._write() as conn:
            conn.execute(update(t).where(t.id == tournament_id, t.round < round).values(round=round))

    def active_tournaments(self) -> list[TournamentInfo]:
        """Tournaments not finalized (status other than ``done`` and ``stopped``)."""
        return [t for t in self.tournaments() if t.status not in ("done", "stopped")]

    @staticmethod
    def _tournament(row: Any) -> TournamentInfo:
        return TournamentInfo(row.id, row.name, row.game, row.config, row.created, row.status,
                              row.round, row.finished, row.voids_in_row, row.paused_until, row.pause_reason)

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament, oldest first."""
        t = TournamentRow
        with self._read() as conn:
            rows = conn.execute(select(t.id, t.name, t.game, t.config, t.created, t.status, t.round, t.finished,
                                       t.voids_in_row, t.paused_until, t.pause_reason)
                                .order_by(t.created, t.id)).all()
        return [self._tournament(r) for r in rows]

    def tournament(self, tournament_id: str) -> TournamentInfo:
        """One tournament.

        :raises TournamentNotFoundError: for an unknown id.
        """
        t = TournamentRow
        with self._read() as conn:
            row = conn.execute(select(t.id, t.name, t.game, t.config, t.created, t.status, t.round, t.finished,
                                       t.voids_in_row, t.paused_until, t.pause_reason)
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
                                       m.claimed_by, m.claimed_at, m.error, m.updated,
                                       m.lease_expires, m.not_before, m.round)
                                .where(m.tournament_id == tournament_id).order_by(m.index)).all()
        return [SpecState(*r) for r in rows]

    # -- leases ---------------------------------------------------------------
    @staticmethod
    def _leasable(now: datetime) -> Any:
        """Pending and ready (its retry backoff over), or leased with an expired lease."""
        m = MatchSpecRow
        return or_(and_(m.status == "pending", or_(m.not_before.is_(None), m.not_before <= now)),
                   and_(m.status == "leased", m.lease_expires < now))

    def leasable_specs(self, tournament_id: str, limit: int | None = None) -> list[MatchSpec]:
        """Specs that :meth:`lease` would grant now, by index."""
        m = MatchSpecRow
        stmt = (select(m.spec).where(m.tournament_id == tournament_id, self._leasable(utcnow()))
                .order_by(m.index))
        if limit is not None:
            stmt = stmt.limit(limit)
        with self._read() as conn:
            rows = conn.execute(stmt).scalars().all()
        return [MatchSpec.from_dict(d) for d in rows]

    def leasable_count(self, tournament_id: str) -> int:
        """How many specs :meth:`lease` would grant now."""
        m = MatchSpecRow
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(m).where(
                m.tournament_id == tournament_id, self._leasable(utcnow()))).scalar_one())

    def lease(self, match_id: str, owner: str, seconds: float) -> bool:
        """Atomically lease a spec to ``owner`` for ``seconds``; True if this call got it.

        Granted when the spec is ``pending`` and ready, or ``leased`` with an expired
        lease (its holder stopped renewing: presumably dead). Never for ``done`` or
        ``failed`` specs. Increments ``attempts``.
        """
        now = utcnow()
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, self._leasable(now))
                               .values(status="leased", claimed_by=owner, claimed_at=now,
                                       lease_expires=now + timedelta(seconds=seconds),
                                       attempts=m.attempts + 1, not_before=None, updated=now))
            return res.rowcount == 1

    def lease_next(self, tournament_id: str, owner: str, seconds: float,
                   limit: int = 1) -> list[MatchSpec]:
        """Lease up to ``limit`` leasable specs of a tournament, lowest index first;
        returns the specs this owner got (empty when nothing is leasable).

        One write transaction: the candidates are read from the status index
        (pending and ready, then expired leases) and leased by one conditional
        ``UPDATE ... RETURNING``. On SQLite the transaction holds the write lock
        from its start (``BEGIN IMMEDIATE``), so concurrent callers are served one
        after the other and never race for the same spec; on PostgreSQL the
        candidates are locked ``FOR UPDATE SKIP LOCKED``, so concurrent callers take
        different specs without waiting for each other. Each lease counts an attempt.
        """
        if limit < 1:
            return []
        now = utcnow()
        with self._write() as conn:
            hot = _hot(conn)
            params = {"p_tid": tournament_id, "p_now": now, "p_limit": limit}
            candidates = [*conn.execute(hot.pending, params).all(), *conn.execute(hot.expired, params).all()]
            ids = [r.match_id for r in sorted(candidates, key=lambda r: r.match_index)[:limit]]
            if not ids:
                return []
            rows = conn.execute(hot.lease, {"p_ids": ids, "p_now": now, "p_owner": owner,
                                            "p_expires": now + timedelta(seconds=seconds)}).all()
        return [MatchSpec.from_dict(r.spec) for r in sorted(rows, key=lambda r: r.match_index)]

    def renew(self, owner: str, seconds: float, match_ids: Sequence[str] | None = None) -> int:
        """Extend ``owner``'s leases (all of them, or those of ``match_ids``) to
        ``seconds`` from now: the heartbeat. Returns how many it still holds."""
        now = utcnow()
        m = MatchSpecRow
        cond = [m.status == "leased", m.claimed_by == owner]
        n = 0
        with self._write() as conn:
            if match_ids is None:
                return int(conn.execute(_hot(conn).renew, {
                    "p_owner": owner, "p_expires": now + timedelta(seconds=seconds)}).rowcount)
            for chunk in _chunks(list(match_ids)):
                n += int(conn.execute(update(m).where(*cond, m.match_id.in_(chunk)).values(
                    lease_expires=now + timedelta(seconds=seconds))).rowcount)
        return n

    @staticmethod
    def _given_back(now: datetime, **extra: Any) -> dict[str, Any]:
        """The values of a lease given back unplayed: ``pending`` again, the attempt
        not counted (release, defer, void)."""
        m = MatchSpecRow
        return dict(status="pending", claimed_by=None, claimed_at=None, lease_expires=None,
                    attempts=m.attempts - 1, updated=now, **extra)

    def _give_back(self, owner: str, match_id: str | None, **extra: Any) -> int:
        """Give back ``owner``'s lease of ``match_id`` (or all its leases); returns how many."""
        now = utcnow()
        m = MatchSpecRow
        cond = [m.status == "leased", m.claimed_by == owner]
        if match_id is not None:
            cond.append(m.match_id == match_id)
        values = {k: (v(now) if callable(v) else v) for k, v in extra.items()}
        with self._write() as conn:
            return int(conn.execute(update(m).where(*cond).values(self._given_back(now, **values))).rowcount)

    def release(self, match_id: str, owner: str) -> bool:
        """Give a lease back unplayed (the spec becomes ``pending``, the attempt is
        not counted); False if ``owner`` does not hold it."""
        return self._give_back(owner, match_id) == 1

    def release_owner(self, owner: str) -> int:
        """:meth:`release` every lease of ``owner`` (a run that stops cleanly)."""
        return self._give_back(owner, None)

    def defer(self, match_id: str, owner: str, seconds: float, reason: str) -> datetime | None:
        """Give a lease back unplayed because a bot is offline: the spec is
        ``pending`` again, playable after ``seconds``, the attempt not counted, and
        ``deferred_since`` keeps when the first deferral began. Returns that time
        (``None`` if ``owner`` does not hold the lease)."""
        m = MatchSpecRow
        if not self._give_back(owner, match_id, error=reason[:2000],
                               not_before=lambda now: now + timedelta(seconds=seconds),
                               deferred_since=lambda now: func.coalesce(
                                   m.deferred_since, literal(now, UTCDateTime()))):
            return None
        return self.deferred_since(match_id)

    def void(self, match_id: str, owner: str, seconds: float, reason: str, *,
             pause_after: int = 0, pause_seconds: float = 30.0, max_pause: float = 600.0) -> bool:
        """Give back a lease whose match was voided by a platform fault (the gateway
        or the route to a bot failed): ``pending`` again after ``seconds``, the
        attempt not counted (the match replays from its seed), and its deferral, if
        any, forgotten (the bot was there: absence is counted afresh). False if
        ``owner`` does not hold the lease.

        The tournament counts its voids since its last record (``voids_in_row``).
        With ``pause_after``, once that many pile up over at least ``pause_seconds``
        (a single fault voids every match in flight at once: such a burst is replayed
        at once, not paused) the tournament **pauses**: nothing of it is leased for
        ``pause_seconds``, with the reason kept for
        ``arena tournament status``; then it is tried again, and a void after that
        pauses it at once for twice as long as the pause before (at most
        ``max_pause``). Its next record ends the pause and resets the counts. So a route that keeps failing costs a few
        matches' tries per pause instead of a loop of voids."""
        now = utcnow()
        m, t = MatchSpecRow, TournamentRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, m.status == "leased",
                                               m.claimed_by == owner).values(self._given_back(
                now, error=("void: " + reason)[:2000], not_before=now + timedelta(seconds=seconds),
                deferred_since=None)).returning(m.tournament_id)).first()
            if res is None:
                return False
            tid = res.tournament_id
            row = conn.execute(update(t).where(t.id == tid).values(
                voids_in_row=t.voids_in_row + 1,
                voids_since=func.coalesce(t.voids_since, literal(now, UTCDateTime())))
                .returning(t.voids_in_row, t.voids_since, t.pauses, t.paused_until)).first()
            if row is None or not pause_after or row.voids_in_row < pause_after:
                return True
            if row.paused_until is not None and row.paused_until > now:
                return True  # paused already
            if not row.pauses and row.voids_since is not None \
                    and (now - row.voids_since).total_seconds() < pause_seconds:
                return True  # a burst (one fault voids every match in flight at once), not a failing route
            length = min(max_pause, pause_seconds * 2 ** min(row.pauses, 20))
            until = now + timedelta(seconds=length)
            why = (f"paused until {until.isoformat(timespec='seconds')} ({length:.0f} s): "
                   f"{row.voids_in_row} matches in a row voided by platform faults; last: {reason}")
            conn.execute(update(t).where(t.id == tid).values(paused_until=until, pauses=t.pauses + 1,
                                                             pause_reason=why[:2000]))
            conn.execute(update(m).where(m.tournament_id == tid, m.status == "pending",
                                         or_(m.not_before.is_(None), m.not_before < until))
                         .values(not_before=until))
        log.warning("tournament %s %s", tid, why)
        return True

    def deferred_since(self, match_id: str) -> datetime | None:
        """When the deferral of a spec began (``None``: never deferred)."""
        m = MatchSpecRow
        with self._read() as conn:
            since: datetime | None = conn.execute(select(m.deferred_since)
                                                  .where(m.match_id == match_id)).scalar_one_or_none()
            return since

    def mark_failed(self, match_id: str, owner: str, error: str = "") -> bool:
        """Mark a spec leased by ``owner`` as ``failed`` with a reason; False if it
        does not hold it (e.g. the match was recorded meanwhile)."""
        now = utcnow()
        m = MatchSpecRow
        with self._write() as conn:
            res = conn.execute(update(m).where(m.match_id == match_id, m.status == "leased",
                                               m.claimed_by == owner)
                               .values(status="failed", error=error[:2000], lease_expires=None,
                                       updated=now))
            return res.rowcount == 1

    def expire_leases(self, tournament_id: str, max_attempts: int, *,
                      owners: Sequence[str] | None = None) -> tuple[int, int]:
        """Leases that expired (or, with ``owners``, every lease of those owners: a
        local run whose process is known to be dead) go back to ``pending``, or to
        ``failed`` once the spec has had ``max_attempts`` leases. Returns
        ``(reopened, failed)``."""
        now = utcnow()
        m = MatchSpecRow
        cond = [m.tournament_id == tournament_id, m.status == "leased"]
        cond.append(m.claimed_by.in_(list(owners)) if owners is not None else m.lease_expires < now)
        with self._write() as conn:
            failed = conn.execute(update(m).where(*cond, m.attempts >= max_attempts).values(
                status="failed", lease_expires=None, updated=now,
                error=f"lease expired on the last of {max_attempts} attempts: its worker stopped "
                      "renewing it (killed or lost)")).rowcount
            reopened = conn.execute(update(m).where(*cond).values(
                status="pending", claimed_by=None, claimed_at=None, lease_expires=None,
                updated=now)).rowcount
        return int(reopened), int(failed)

    def leased_owners(self, tournament_id: str) -> list[str]:
        """The distinct owners holding leases of a tournament."""
        m = MatchSpecRow
        with self._read() as conn:
            return [str(o) for o in conn.execute(select(m.claimed_by).distinct().where(
                m.tournament_id == tournament_id, m.status == "leased")).scalars() if o]

    def reopen_failed(self, tournament_id: str, max_attempts: int, backoff: float) -> int:
        """Failed specs with attempts left go back to ``pending``, playable after
        ``backoff * 2**(attempts-1)`` seconds from their failure. Returns how many."""
        m = MatchSpecRow
        now = utcnow()
        with self._write() as conn:
            rows = conn.execute(select(m.match_id, m.attempts, m.updated).where(
                m.tournament_id == tournament_id, m.status == "failed",
                m.attempts < max_attempts)).all()
            for r in rows:
                wait = backoff * (2 ** max(0, int(r.attempts) - 1))
                conn.execute(update(m).where(m.match_id == r.match_id, m.status == "failed").values(
                    status="pending", claimed_by=None, claimed_at=None,
                    not_before=(r.updated or now) + timedelta(seconds=wait), updated=now))
        return len(rows)

    def retry_failed(self, tournament_id: str) -> int:
        """Re-open every ``failed`` spec by hand (attempts start again from 0):
        ``arena tournament retry``. Returns how many."""
        m = MatchSpecRow
        with self._write() as conn:
            return int(conn.execute(update(m).where(m.tournament_id == tournament_id,
                                                    m.status == "failed").values(
                status="pending", attempts=0, claimed_by=None, claimed_at=None, not_before=None,
                lease_expires=None, updated=utcnow())).rowcount)

    def next_ready(self, tournament_id: str) -> datetime | None:
        """The earliest ``not_before`` of a pending spec still waiting out its backoff."""
        m = MatchSpecRow
        with self._read() as conn:
            ready: datetime | None = conn.execute(select(func.min(m.not_before)).where(
                m.tournament_id == tournament_id, m.status == "pending",
                m.not_before.is_not(None))).scalar_one()
            return ready

    # -- records and results ------------------------------------------------
    def record_result(self, record: MatchRecord) -> bool:
        """Store a finished match exactly once, keyed by ``record.match_id``.

        In one transaction: the record, one results row per seat (for a finished
        match: a forfeit scores nothing), and the spec's status ``done``. Returns
        True if this call wrote it, False if a record with this match id was already
        stored (then nothing is written). Safe under concurrent writers in several
        processes, on SQLite and PostgreSQL.
        """
        return self.record_results([record])[0]

    def record_results(self, records: Sequence[MatchRecord]) -> list[bool]:
        """:meth:`record_result` for several records in one transaction (one lock
        and one commit for a worker's batch); per record, whether this call wrote it."""
        if not records:
            return []
        now = utcnow()
        with self._write() as conn:
            hot = _hot(conn)
            written = [self._record(conn, hot, r, now) for r in records]
            self._route_ok(conn, hot, records)
            return written

    @staticmethod
    def _route_ok(conn: Connection, hot: _Hot, records: Sequence[MatchRecord]) -> None:
        """A record ends its tournament's run of voids and any pause they caused (a
        prebuilt statement: building it per batch was a tenth of a worker's CPU)."""
        tids = sorted({str(tid) for r in records
                       if (tid := r.tags.get("tournament_id") or r.tags.get("tournament"))})
        if tids:
            conn.execute(hot.route_ok, {"p_tids": tids})

    @staticmethod
    def _record(conn: Connection, hot: _Hot, record: MatchRecord, now: datetime) -> bool:
        data = record.to_dict()
        finished = _parse_time(record.finished_at) or now
        spec_row = conn.execute(hot.spec_of, {"p_mid": record.match_id}).first()
        if spec_row is not None:
            tournament_id: str | None = spec_row.tournament_id
            entrants = list(spec_row.spec.get("entrants", []))
        else:
            tag = record.tags.get("tournament")
            tournament_id = tag if isinstance(tag, str) else None
            entrants = []
        inserted = conn.execute(hot.insert_record, dict(
            match_id=record.match_id, tournament_id=tournament_id, record=data,
            finished_at=finished)).first()
        if inserted is None:  # a record of this match id exists: write nothing
            return False
        seats = []  # per-seat results of a finished match only (a forfeit scores nothing)
        for i, bot in enumerate(record.seats if record.terminal else ()):
            seats.append(dict(
                match_id=record.match_id, tournament_id=tournament_id, ruleset=record.ruleset,
                seat=i, entrant=entrants[i] if i < len(entrants) else bot, bot=bot,
                returns=float(record.returns[i]) if i < len(record.returns) else 0.0))
        if seats:
            conn.execute(hot.insert_results, seats)
        if spec_row is not None:
            conn.execute(hot.done, {"p_mid": record.match_id, "p_now": now})
        return True

    def record(self, match_id: str) -> MatchRecord | None:
        """The stored record of a match, or None."""
        with self._read() as conn:
            d = conn.execute(select(MatchRecordRow.record)
                             .where(MatchRecordRow.match_id == match_id)).scalar_one_or_none()
        return None if d is None else MatchRecord.from_dict(d)

    def records(self, tournament_id: str, *, batch: int = 500, actions: bool = True) -> Iterator[MatchRecord]:
        """The stored records of a tournament, by match id (= spec index order for
        stable ids), read in batches (no transaction stays open between them).

        :param actions: ``False`` for readers of results only (the rating history):
            the records come without their actions and decks (``[]``), which are
            most of the cost of building them; everything else is as stored.
        """
        r = MatchRecordRow
        last = ""
        while True:
            with self._read() as conn:
                column = r.record if actions else _without_actions(conn, r.record)
                rows = conn.execute(select(r.match_id, column)
                                    .where(r.tournament_id == tournament_id, r.match_id > last)
                                    .order_by(r.match_id).limit(batch)).all()
            for row in rows:
                data = row[1] if actions else {**row[1], "actions": [], "decks": []}
                yield MatchRecord.from_dict(data)
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

    def rulesets(self, tournament_id: str | None = None) -> list[str]:
        """The distinct rulesets of the stored results (of one tournament), sorted."""
        x = ResultRow
        stmt = select(x.ruleset).distinct()
        if tournament_id is not None:
            stmt = stmt.where(x.tournament_id == tournament_id)
        with self._read() as conn:
            return sorted(conn.execute(stmt).scalars())

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

    def add_tournament_ratings(self, tournament_id: str, records: Sequence[MatchRecord], *,
                               rater: str) -> dict[str, int]:
        """Add a tournament that ended to the rating history of each ruleset of its
        ``records`` (results only is enough), one write transaction per ruleset; points
        written per ruleset. Its cost is the tournament's (:mod:`arena.store.history`)."""
        out = {}
        for ruleset in sorted({r.ruleset for r in records if r.terminal}):
            with self._write() as conn:
                out[ruleset] = _history.append(conn, rater, ruleset, tournament_id, records, utcnow())
        return out

    def rebuild_ratings(self, rulesets: Iterable[str] | None = None, *, rater: str) -> dict[str, int]:
        """Recompute the rating history of ``rulesets`` (default: every ruleset with
        tournament results or a history) from the records and replace it with its
        state, one write transaction per ruleset; points per ruleset."""
        if rulesets is None:
            with self._read() as conn:
                rulesets = _history.rulesets(conn, rater)
        out = {}
        for ruleset in sorted(set(rulesets)):
            with self._write() as conn:
                out[ruleset] = _history.rebuild(conn, rater, ruleset)
        return out

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

