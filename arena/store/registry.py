"""Registered bots and their tokens (stored as SHA-256 hashes only).

A :class:`BotRegistry` issues a token once, when a bot is registered, and keeps
only ``sha256(token)``; :meth:`BotRegistry.authenticate` hashes what a bot sends
and looks it up. Implementations: :class:`InMemoryRegistry` (tests, embedded
runs), :class:`arena.store.StoreBotRegistry` (the store's ``bots`` table: what
``arena serve`` and ``arena bots`` use) and :class:`SqliteRegistry` (the separate
SQLite file older versions of ``arena serve --db`` kept; read now only to import
it into the store with ``arena bots import FILE``, see :func:`copy_bots`).

>>> reg = InMemoryRegistry()
>>> bot, token = reg.register('alice-bot', owner='alice')
>>> reg.authenticate(token).bot_id, reg.authenticate('nope')
('alice-bot', None)
>>> reg.revoke('alice-bot').revoked, reg.authenticate(token)
(True, None)
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

__all__ = ["BotEntry", "BotRegistry", "InMemoryRegistry", "SqliteRegistry", "hash_token",
           "BotExistsError", "BotNotFoundError", "copy_bots"]

_BOT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
TOKEN_PREFIX = "arena_bot_"


def hash_token(token: str) -> str:
    """Hex SHA-256 of a token (what is stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class BotExistsError(ValueError):
    """The bot id is already registered."""


class BotNotFoundError(KeyError):
    """No bot with that id."""


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A registered bot (never its token)."""

    bot_id: str
    owner: str
    created_unix_ms: int
    revoked: bool
    token_sha256: str


class BotRegistry(ABC):
    """Where bots and their hashed tokens live. Thread-safe."""

    def register(self, bot_id: str, owner: str = "") -> tuple[BotEntry, str]:
        """Register a bot; returns the entry and its token (the only time it is seen).

        :raises ValueError: for a malformed id or owner.
        :raises BotExistsError: if the id is taken.
        """
        if not _BOT_ID.match(bot_id):
            raise ValueError(f"bot id {bot_id!r} must be 1-64 characters from A-Z a-z 0-9 _ . -")
        if len(owner) > 200:
            raise ValueError("owner must be at most 200 characters")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        entry = BotEntry(bot_id, owner, int(time.time() * 1000), False, hash_token(token))
        self._insert(entry)
        return entry, token

    def add(self, entry: BotEntry) -> None:
        """Add an existing entry as it is (its hash, owner, creation time and
        revocation kept), e.g. one read from another registry: the bot's token
        stays valid.

        :raises ValueError: for a malformed id.
        :raises BotExistsError: if the id (or the token hash) is taken.
        """
        if not _BOT_ID.match(entry.bot_id):
            raise ValueError(f"bot id {entry.bot_id!r} must be 1-64 characters from A-Z a-z 0-9 _ . -")
        if not re.fullmatch(r"[0-9a-f]{64}", entry.token_sha256):
            raise ValueError(f"bot {entry.bot_id!r}: token_sha256 must be 64 lowercase hex digits")
        self._insert(entry)

    def authenticate(self, token: str) -> BotEntry | None:
        """The non-revoked bot whose token this is, or None."""
        if not token:
            return None
        digest = hash_token(token)
        entry = self._by_hash(digest)
        if entry is None or entry.revoked or not hmac.compare_digest(entry.token_sha256, digest):
            return None
        return entry

    @abstractmethod
    def _insert(self, entry: BotEntry) -> None: ...

    @abstractmethod
    def _by_hash(self, digest: str) -> BotEntry | None: ...

    @abstractmethod
    def get(self, bot_id: str) -> BotEntry:
        """The bot's entry.

        :raises BotNotFoundError: for an unknown id.
        """

    @abstractmethod
    def revoke(self, bot_id: str) -> BotEntry:
        """Revoke the bot's token; returns the updated entry.

        :raises BotNotFoundError: for an unknown id.
        """

    @abstractmethod
    def list(self) -> list[BotEntry]:
        """Every bot, sorted by id."""


class InMemoryRegistry(BotRegistry):
    """A registry in a dict (lost at exit)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bots: dict[str, BotEntry] = {}

    def _insert(self, entry: BotEntry) -> None:
        with self._lock:
            if entry.bot_id in self._bots:
                raise BotExistsError(f"bot {entry.bot_id!r} is already registered")
            self._bots[entry.bot_id] = entry

    def _by_hash(self, digest: str) -> BotEntry | None:
        with self._lock:
            return next((b for b in self._bots.values() if b.token_sha256 == digest), None)

    def get(self, bot_id: str) -> BotEntry:
        with self._lock:
            try:
                return self._bots[bot_id]
            except KeyError:
                raise BotNotFoundError(bot_id) from None

    def revoke(self, bot_id: str) -> BotEntry:
        with self._lock:
            if bot_id not in self._bots:
                raise BotNotFoundError(bot_id)
            entry = self._bots[bot_id] = replace(self._bots[bot_id], revoked=True)
            return entry

    def list(self) -> list[BotEntry]:
        with self._lock:
            return sorted(self._bots.values(), key=lambda b: b.bot_id)


class SqliteRegistry(BotRegistry):
    """A registry in one SQLite table ``bots`` (stdlib ``sqlite3``).

    The format of the separate bot file (``arena-bots.sqlite3``) that ``arena
    serve --db`` used before bots moved into the store; kept so that such a
    file can be imported (:func:`copy_bots`, ``arena bots import FILE``).
    """

    def __init__(self, path: str = ":memory:") -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False)
        with self._db:
            self._db.execute("""CREATE TABLE IF NOT EXISTS bots (
                bot_id TEXT PRIMARY KEY, owner TEXT NOT NULL, created_unix_ms INTEGER NOT NULL,
                revoked INTEGER NOT NULL DEFAULT 0, token_sha256 TEXT NOT NULL UNIQUE)""")

    @staticmethod
    def _entry(row: tuple[str, str, int, int, str] | None) -> BotEntry | None:
        return None if row is None else BotEntry(row[0], row[1], row[2], bool(row[3]), row[4])

    _COLS = "bot_id, owner, created_unix_ms, revoked, token_sha256"

    def _insert(self, entry: BotEntry) -> None:
        with self._lock:
            try:
                with self._db:
                    self._db.execute(f"INSERT INTO bots ({self._COLS}) VALUES (?, ?, ?, ?, ?)",
                                     (entry.bot_id, entry.owner, entry.created_unix_ms,
                                      int(entry.revoked), entry.token_sha256))
            except sqlite3.IntegrityError:
                raise BotExistsError(f"bot {entry.bot_id!r} is already registered") from None

    def _by_hash(self, digest: str) -> BotEntry | None:
        with self._lock:
            row = self._db.execute(f"SELECT {self._COLS} FROM bots WHERE token_sha256 = ?",
                                   (digest,)).fetchone()
        return self._entry(row)

    def get(self, bot_id: str) -> BotEntry:
        with self._lock:
            row = self._db.execute(f"SELECT {self._COLS} FROM bots WHERE bot_id = ?", (bot_id,)).fetchone()
        entry = self._entry(row)
        if entry is None:
            raise BotNotFoundError(bot_id)
        return entry

    def revoke(self, bot_id: str) -> BotEntry:
        with self._lock:
            with self._db:
                cur = self._db.execute("UPDATE bots SET revoked = 1 WHERE bot_id = ?", (bot_id,))
        if cur.rowcount == 0:
            raise BotNotFoundError(bot_id)
        return self.get(bot_id)

    def list(self) -> list[BotEntry]:
        with self._lock:
            rows = self._db.execute(f"SELECT {self._COLS} FROM bots ORDER BY bot_id").fetchall()
        return [e for e in map(self._entry, rows) if e is not None]

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


def copy_bots(source: BotRegistry, target: BotRegistry) -> tuple[list[str], list[str]]:
    """Copy every bot of ``source`` into ``target`` unchanged (hashed token,
    owner, creation time, revocation), so their tokens keep working there.
    Ids that ``target`` has already are left alone.

    :returns: ``(copied ids, skipped ids)``.

    >>> old, new = InMemoryRegistry(), InMemoryRegistry()
    >>> _, token = old.register('kept')
    >>> _ = new.register('taken'); _ = old.register('taken')
    >>> copy_bots(old, new), new.authenticate(token).bot_id
    ((['kept'], ['taken']), 'kept')
    """
    copied: list[str] = []
    skipped: list[str] = []
    for entry in source.list():
        try:
            target.add(entry)
        except BotExistsError:
            skipped.append(entry.bot_id)
        else:
            copied.append(entry.bot_id)
    return copied, skipped
