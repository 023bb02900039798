"""The bot registry on the store (table ``bots``): only SHA-256 token hashes are kept."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol, cast

from sqlalchemy import Connection, Table, select, update
from sqlalchemy.exc import IntegrityError

from arena.store.registry import BotEntry, BotExistsError, BotNotFoundError, BotRegistry
from arena.store.models import BotRow


class Transactions(Protocol):
    """What the registry needs of its store (:class:`arena.store.Store` has both): a
    connection in a read transaction, and one in a write transaction."""

    def _read(self) -> AbstractContextManager[Connection]: ...

    def _write(self) -> AbstractContextManager[Connection]: ...

__all__ = ["StoreBotRegistry"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _to_dt(ms: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=ms)


def _to_ms(dt: datetime) -> int:
    return (dt - _EPOCH) // timedelta(milliseconds=1)


class StoreBotRegistry(BotRegistry):
    """:class:`~arena.store.registry.BotRegistry` on a :class:`~arena.store.Store`.

    >>> from arena.store import Store
    >>> store = Store("sqlite://"); _ = store.migrate()
    >>> reg = StoreBotRegistry(store)
    >>> entry, token = reg.register("alice-bot", owner="alice")
    >>> reg.authenticate(token).bot_id, reg.revoke("alice-bot").revoked, reg.authenticate(token)
    ('alice-bot', True, None)
    """

    def __init__(self, store: Transactions) -> None:
        self.store = store

    _COLS = (BotRow.id, BotRow.owner, BotRow.created, BotRow.revoked, BotRow.token_sha256)

    @staticmethod
    def _entry(row: Any) -> BotEntry:
        return BotEntry(row.id, row.owner, _to_ms(row.created), bool(row.revoked), row.token_sha256)

    def _insert(self, entry: BotEntry) -> None:
        try:
            with self.store._write() as conn:
                conn.execute(cast(Table, BotRow.__table__).insert(), [dict(
                    id=entry.bot_id, owner=entry.owner, created=_to_dt(entry.created_unix_ms),
                    revoked=entry.revoked, token_sha256=entry.token_sha256)])
        except IntegrityError:
            raise BotExistsError(f"bot {entry.bot_id!r} is already registered") from None

    def _by_hash(self, digest: str) -> BotEntry | None:
        with self.store._read() as conn:
            row = conn.execute(select(*self._COLS).where(BotRow.token_sha256 == digest)).first()
        return None if row is None else self._entry(row)

    def get(self, bot_id: str) -> BotEntry:
        with self.store._read() as conn:
            row = conn.execute(select(*self._COLS).where(BotRow.id == bot_id)).first()
        if row is None:
            raise BotNotFoundError(bot_id)
        return self._entry(row)

    def revoke(self, bot_id: str) -> BotEntry:
        with self.store._write() as conn:
            res = conn.execute(update(BotRow).where(BotRow.id == bot_id).values(revoked=True))
        if res.rowcount == 0:
            raise BotNotFoundError(bot_id)
        return self.get(bot_id)

    def list(self) -> list[BotEntry]:
        with self.store._read() as conn:
            rows = conn.execute(select(*self._COLS).order_by(BotRow.id)).all()
        return [self._entry(r) for r in rows]
