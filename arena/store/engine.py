"""Engines for the store: SQLite tuned for several writer processes, or PostgreSQL.

SQLite connections get ``journal_mode=WAL`` (readers never block the writer), a
busy timeout (a writer waits for the lock instead of failing) and foreign keys.
The driver's own transaction handling is switched off and this module emits
``BEGIN`` itself, so a connection run with the execution option
``sqlite_begin="IMMEDIATE"`` takes the write lock at the start of its
transaction: a transaction that reads and then writes can then never fail with
"database is locked" on the lock upgrade.

URLs
    ``sqlite:///path.db`` (relative) or ``sqlite:////abs/path.db``, ``sqlite://``
    (in memory), ``postgresql+psycopg://user:password@host:port/db``;
    ``postgres://`` and ``postgresql://`` mean the psycopg driver too (the one the
    ``postgres`` extra installs). Anything else is a :class:`StoreURLError` with a
    one-line message saying what a store URL looks like.

Read-only engines (``readonly=True``)
    What commands that only read use (standings, status, export): nothing is
    created, migrated or written. A SQLite file is opened with ``mode=ro`` and no
    journal-mode change; a file the process may not write beside (a read-only
    folder, so SQLite cannot make its ``-shm`` file) is read as ``immutable``. A
    missing file is a :class:`StoreNotFoundError` (no empty ``arena.db`` appears).
    PostgreSQL sessions get ``default_transaction_read_only``.
"""

from __future__ import annotations

import importlib.util
import os
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError

__all__ = ["BUSY_TIMEOUT_MS", "StoreURLError", "StoreNotFoundError", "create_store_engine", "is_sqlite",
           "parse_store_url", "sqlite_path"]

BUSY_TIMEOUT_MS = 60_000
"""How long a SQLite writer waits for the lock before failing."""

URL_HELP = ("a store URL is sqlite:///FILE (e.g. sqlite:///arena.db; sqlite:////abs/path.db) "
            "or postgresql+psycopg://USER@HOST/DB")


class StoreURLError(ValueError):
    """A store URL that cannot be used (its message is one line)."""


class StoreNotFoundError(StoreURLError):
    """A read-only open of a SQLite store that does not exist."""


def is_sqlite(engine: Engine | Connection) -> bool:
    return engine.dialect.name == "sqlite"


def parse_store_url(url: str) -> URL:
    """The SQLAlchemy URL of a store URL (``postgres://`` and ``postgresql://`` get
    the psycopg driver).

    >>> parse_store_url("postgres://u@h/db").render_as_string()
    'postgresql+psycopg://u@h/db'
    >>> parse_store_url("arena.db")
    Traceback (most recent call last):
    ...
    arena.store.engine.StoreURLError: 'arena.db' is not a store URL: a store URL is sqlite:///FILE (e.g. sqlite:///arena.db; sqlite:////abs/path.db) or postgresql+psycopg://USER@HOST/DB
    """
    text = url.strip()
    if "://" not in text:
        raise StoreURLError(f"{url!r} is not a store URL: {URL_HELP}")
    try:
        u = make_url(text)
    except (ArgumentError, ValueError) as exc:
        raise StoreURLError(f"{url!r} is not a store URL ({exc}): {URL_HELP}") from None
    backend, _, driver = u.drivername.partition("+")
    if backend in ("postgres", "postgresql") and not driver:
        u = u.set(drivername="postgresql+psycopg")
        backend, driver = "postgresql", "psycopg"
    if backend not in ("sqlite", "postgresql"):
        raise StoreURLError(f"{_safe(u)}: the store runs on SQLite or PostgreSQL, not {backend!r}: {URL_HELP}")
    if backend == "postgresql" and driver == "psycopg" and importlib.util.find_spec("psycopg") is None:
        raise StoreURLError(f"{_safe(u)}: a PostgreSQL store needs psycopg: pip install 'arena[postgres]'")
    return u


def _safe(u: URL) -> str:
    return u.render_as_string(hide_password=True)


def sqlite_path(u: URL) -> Path | None:
    """The file of a SQLite URL (``None`` for an in-memory database or another backend)."""
    if u.get_backend_name() != "sqlite":
        return None
    if u.database in (None, "", ":memory:") or str(u.database).startswith("file:"):
        return None
    return Path(str(u.database)).expanduser()


def create_store_engine(url: str, *, readonly: bool = False, **kwargs: Any) -> Engine:
    """An engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    :param readonly: open for reading only (see the module docstring).
    :raises StoreURLError: for a URL that is not a store URL, a missing driver, or
        a SQLite folder that cannot be created.
    :raises StoreNotFoundError: ``readonly`` and the SQLite file does not exist.
    """
    u = parse_store_url(url)
    if u.get_backend_name() == "sqlite":
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args.setdefault("timeout", BUSY_TIMEOUT_MS / 1000)
        connect_args.setdefault("check_same_thread", False)
        path = sqlite_path(u)
        memory = path is None
        if readonly and path is not None:
            if not path.is_file():
                raise StoreNotFoundError(f"no store at {path} ({_safe(u)}): nothing has been stored there "
                                         "yet (arena tournament run FILE.toml makes one), or give --store URL")
            ro_path = path
            timeout = connect_args["timeout"]
            engine = create_engine(u, creator=lambda: _connect_readonly(ro_path, timeout), **kwargs)
        else:
            engine = create_engine(u, connect_args=connect_args, **kwargs)
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreURLError(f"{_safe(u)}: cannot create the folder {path.parent}: "
                                        f"{exc.strerror or exc}") from None

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # BEGIN is emitted by _on_begin
            cur = dbapi_conn.cursor()
            try:
                cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                if not memory and not readonly:
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
    if readonly:
        connect_args = dict(kwargs.pop("connect_args", {}))
        connect_args["options"] = (connect_args.get("options", "") + " -c default_transaction_read_only=on").strip()
        kwargs["connect_args"] = connect_args
    return create_engine(u, **kwargs)


def _connect_readonly(path: Path, timeout: float) -> sqlite3.Connection:
    """A read-only SQLite connection to ``path``: ``mode=ro``, or ``immutable`` when
    SQLite cannot read the file that way (a WAL file in a folder this process may
    not write: its shared-memory file cannot be made)."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError:
        conn.close()
        conn = sqlite3.connect(uri + "&immutable=1", uri=True, timeout=timeout, check_same_thread=False)
    return conn
