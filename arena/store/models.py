"""SQLAlchemy 2 ORM models of the store (typed, ``Mapped[...]``).

The schema is created and changed only by the Alembic migrations in
:mod:`arena.store.migrations` (see :func:`arena.store.migrate.upgrade`); these
models are the source of truth for the current head and for autogenerate.

Times are stored as naive UTC (``TIMESTAMP WITHOUT TIME ZONE`` / SQLite text)
through :class:`UTCDateTime`, and read back as aware UTC datetimes.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "Base",
    "BotRow",
    "LeagueRow",
    "MatchRecordRow",
    "MatchSpecRow",
    "RatingBotRow",
    "RatingDealRow",
    "RatingHistoryRow",
    "RatingTournamentRow",
    "ResultRow",
    "TournamentRow",
    "UTCDateTime",
    "utcnow",
]

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time, aware UTC."""
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """Stores naive UTC, returns aware UTC; naive inputs are taken as UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JSON()}


class BotRow(Base):
    """A registered bot; only the SHA-256 of its token is kept."""

    __tablename__ = "bots"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200), default="")
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime]
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class TournamentRow(Base):
    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(100))
    config: Mapped[dict[str, Any]]
    created: Mapped[datetime]
    status: Mapped[str] = mapped_column(String(20), default="pending")
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The newest round the tournament's format has added (0: the first)."""
    finished: Mapped[datetime | None]
    """When the conductor finalized it (``done`` or ``stopped``)."""
    voids_in_row: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Matches voided by platform faults (the route to a bot failed) since its last
    record: the tournament pauses when they pile up (:meth:`Store.void`)."""
    voids_since: Mapped[datetime | None]
    """When the first of those voids came."""
    pauses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """Pauses since its last record (each one twice as long as the one before)."""
    paused_until: Mapped[datetime | None]
    """While set and in the future, nothing of the tournament is leased (its pending
    matches wait until then); cleared by the next record."""
    pause_reason: Mapped[str | None] = mapped_column(Text)
    """Why it is paused (shown by ``arena tournament status``)."""


class MatchSpecRow(Base):
    """One scheduled match and its execution state.

    ``status`` is ``pending`` (playable from ``not_before``, if set), ``leased``
    (held by ``claimed_by`` since ``claimed_at`` until ``lease_expires``, renewed by
    the holder's heartbeat), ``done`` (its record is stored) or ``failed`` (after
    ``attempts`` leases; ``error`` says why).
    """

    __tablename__ = "match_specs"
    __table_args__ = (
        UniqueConstraint("tournament_id", "match_index"),
        Index("ix_match_specs_tournament_status", "tournament_id", "status", "match_index"),
    )

    match_id: Mapped[str] = mapped_column(String(220), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(
        String(200), ForeignKey("tournaments.id", ondelete="CASCADE")
    )
    index: Mapped[int] = mapped_column("match_index", Integer)
    spec: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(20), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    claimed_by: Mapped[str | None] = mapped_column(String(200))
    claimed_at: Mapped[datetime | None]
    error: Mapped[str | None] = mapped_column(Text)
    updated: Mapped[datetime]
    lease_expires: Mapped[datetime | None]
    not_before: Mapped[datetime | None]
    round: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    deferred_since: Mapped[datetime | None]


class MatchRecordRow(Base):
    """The stored :class:`~arena.records.record.MatchRecord`, exactly one per match id."""

    __tablename__ = "match_records"

    match_id: Mapped[str] = mapped_column(String(220), primary_key=True)
    tournament_id: Mapped[str | None] = mapped_column(String(200), index=True)
    record: Mapped[dict[str, Any]]
    finished_at: Mapped[datetime]


class ResultRow(Base):
    """One seat of one stored match (for standings and ratings queries)."""

    __tablename__ = "results"
    __table_args__ = (UniqueConstraint("match_id", "seat"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    match_id: Mapped[str] = mapped_column(
        String(220), ForeignKey("match_records.match_id", ondelete="CASCADE")
    )
    tournament_id: Mapped[str | None] = mapped_column(String(200), index=True)
    ruleset: Mapped[str] = mapped_column(String(100), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    entrant: Mapped[str] = mapped_column(String(200))
    bot: Mapped[str] = mapped_column(String(200), index=True)
    returns: Mapped[float] = mapped_column(Float)


class RatingHistoryRow(Base):
    """A bot's rating after a result (appended by the ratings layer)."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_ruleset_bot", "ruleset", "bot", "id"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    rater: Mapped[str] = mapped_column(String(50), default="")
    ruleset: Mapped[str] = mapped_column(String(100))
    bot: Mapped[str] = mapped_column(String(200))
    rating: Mapped[float] = mapped_column(Float)
    interval: Mapped[float | None] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime]
    match_id: Mapped[str | None] = mapped_column(String(220))


class RatingTournamentRow(Base):
    """A tournament in a ruleset's rating history (:mod:`arena.store.history`): when
    its end was added (the history's order) and how many records it added."""

    __tablename__ = "rating_tournaments"
    __table_args__ = (Index("ix_rating_tournaments_order", "rater", "ruleset", "ended", "tournament_id"),)

    rater: Mapped[str] = mapped_column(String(50), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(100), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    ended: Mapped[datetime]
    records: Mapped[int] = mapped_column(Integer)


class RatingBotRow(Base):
    """A bot's rating and results so far in a ruleset's history (the state the next
    tournament's points start from)."""

    __tablename__ = "rating_bots"

    rater: Mapped[str] = mapped_column(String(50), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(100), primary_key=True)
    bot: Mapped[str] = mapped_column(String(200), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)


class RatingDealRow(Base):
    """An open duplicate deal of a ruleset's history (one a later tournament may play
    again): its tables so far, as :meth:`arena.ratings.comparisons.DealLedger.export`
    gives them (``{"tables": [...]}``)."""

    __tablename__ = "rating_deals"

    rater: Mapped[str] = mapped_column(String(50), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(100), primary_key=True)
    deal_id: Mapped[str] = mapped_column(String(300), primary_key=True)
    tables: Mapped[dict[str, Any]]


class LeagueRow(Base):
    """A league (:mod:`arena.tournaments.league`): its file, where it stands and its
    seasons. Each season's divisions are tournaments in ``tournaments``."""

    __tablename__ = "leagues"

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    game: Mapped[str] = mapped_column(String(100))
    config: Mapped[dict[str, Any]]
    """The league file as parsed TOML."""
    created: Mapped[datetime]
    updated: Mapped[datetime]
    season: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    """The newest season started (0: none yet)."""
    state: Mapped[str] = mapped_column(String(20), default="between", server_default="between")
    """``between`` (seasons) or ``running`` (a season is being played)."""
    divisions: Mapped[dict[str, Any]]
    """``{"divisions": [{"name", "entrants"}...]}``: the membership of the next (or running) season."""
    history: Mapped[dict[str, Any]]
    """``{"seasons": [...]}``: every season's divisions, tournaments, tables and moves."""
