"""Engines for the store: SQLite tuned for several writer processes, or PostgreSQL.

SQLite connections get ``journal_mode=WAL`` (readers never block the writer), a
busy timeout (a writer waits for the lock instead of failing) and foreign keys.
The driver's own transaction handling is switched off and this module emits
``BEGIN`` itself, so a connection run with the execution option
``sqlite_begin="IMMEDIATE"`` takes the write lock at the start of its
transaction: a transaction that reads and then writes can then never fail with
"database is locked" on the lock upgrade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection, make_url

__all__ = ["BUSY_TIMEOUT_MS", "create_store_engine", "is_sqlite"]

BUSY_TIMEOUT_MS = 60_000
"""How long a SQLite writer waits for the lock before failing."""


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


def create_store_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``)."""
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("timeout", BUSY_TIMEOUT_MS / 1000)
        connect_args.setdefault("check_same_thread", False)
        engine = create_engine(u, connect_args=connect_args, **kwargs)
        memory = u.database in (None, "", ":memory:") or str(u.database).startswith("file:")
        if not memory:
            Path(str(u.database)).expanduser().parent.mkdir(parents=True, exist_ok=True)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # BEGIN is emitted by _on_begin
            cur = dbapi_conn.cursor()
            try:
                cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                if not memory:
                    cur.execute("PRAGMA journal_mode = WAL")
                    cur.execute("PRAGMA synchronous = NORMAL")
                cur.execute("PRAGMA foreign_keys = ON")
            finally:
                cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:
            mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
            if mode not in ("DEFERRED", "IMMEDIATE", "EXCLUSIVE"):
                raise ValueError(f"bad sqlite_begin {mode!r}")
            conn.exec_driver_sql(f"BEGIN {mode}")

        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(u, **kwargs)
