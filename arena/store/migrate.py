"""Run the store's Alembic migrations programmatically (no ``alembic.ini``).

>>> upgrade("sqlite://")  # an in-memory database, from empty to head
'0005'

Concurrent callers are serialized: on PostgreSQL by a transaction-level
advisory lock, on SQLite by ``BEGIN IMMEDIATE``; the whole upgrade runs in
that one transaction (both databases have transactional DDL), so several
workers starting at once on an empty database is safe.

For development, ``python -m arena.store.migrate revision -m "msg" --url URL``
autogenerates a new revision from :mod:`arena.store.models`.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.engine import Connection

from arena.store.engine import create_store_engine, is_sqlite

__all__ = ["MIGRATIONS_DIR", "VERSION_TABLE", "alembic_config", "current", "downgrade", "head",
           "upgrade"]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
VERSION_TABLE = "arena_alembic_version"
_PG_LOCK_KEY = 0x4152454E41  # "ARENA"


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at the packaged migrations."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


@functools.cache
def head() -> str:
    """The head revision id of the packaged migrations."""
    rev = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert rev is not None
    return rev


def _locked(engine: Engine, revision: str, up: bool) -> None:
    with engine.connect() as conn:
        if is_sqlite(conn):
            conn.execution_options(sqlite_begin="IMMEDIATE")
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK_KEY})
            cfg = alembic_config()
            cfg.attributes["connection"] = conn
            if up:
                command.upgrade(cfg, revision)
            else:
                command.downgrade(cfg, revision)


def _with_engine(target: str | Engine, revision: str, up: bool) -> str | None:
    engine = create_store_engine(target) if isinstance(target, str) else target
    try:
        _locked(engine, revision, up)
        return current(engine)
    finally:
        if isinstance(target, str):
            engine.dispose()


def upgrade(target: str | Engine, revision: str = "head") -> str | None:
    """Migrate the database at ``target`` (URL or engine) up to ``revision``; returns
    the revision it is at afterwards.

    A database already at head is left alone after one read of its version (no
    lock, no Alembic environment): every worker process opens the store this way.
    """
    if revision == "head" and not isinstance(target, str):
        try:
            if current(target) == head():
                return head()
        except Exception:  # noqa: BLE001 - e.g. no version table yet: the full path decides
            pass
    return _with_engine(target, revision, True)


def downgrade(target: str | Engine, revision: str = "base") -> str | None:
    """Migrate down to ``revision`` (``"base"``: drop every table of the store)."""
    return _with_engine(target, revision, False)


def _current(conn: Connection) -> str | None:
    ctx = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
    return ctx.get_current_revision()


def current(target: str | Engine) -> str | None:
    """The database's current revision (None for an empty database)."""
    if isinstance(target, str):
        engine = create_store_engine(target)
        try:
            with engine.connect() as conn:
                return _current(conn)
        finally:
            engine.dispose()
    with target.connect() as conn:
        return _current(conn)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m arena.store.migrate")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("upgrade", "downgrade", "current"):
        s = sub.add_parser(name)
        s.add_argument("--url", default="sqlite:///arena.db")
        if name != "current":
            s.add_argument("revision", nargs="?", default="head" if name == "upgrade" else "-1")
    r = sub.add_parser("revision", help="autogenerate a revision (database must be at head)")
    r.add_argument("--url", required=True)
    r.add_argument("-m", "--message", required=True)
    args = p.parse_args(argv)
    if args.cmd == "upgrade":
        print(upgrade(args.url, args.revision))
    elif args.cmd == "downgrade":
        print(downgrade(args.url, args.revision))
    elif args.cmd == "current":
        print(current(args.url))
    else:
        command.revision(alembic_config(args.url), message=args.message, autogenerate=True)


if __name__ == "__main__":
    main()
