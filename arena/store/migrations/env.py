"""Alembic environment of the store.

Run by :func:`arena.store.migrate.upgrade`, which passes an open connection in
``config.attributes["connection"]`` (already inside a transaction holding the
migration lock). With only ``sqlalchemy.url`` set, a connection is opened here.
Importing this module outside Alembic (e.g. pytest's doctest collection) does
nothing.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from arena.store.models import Base

VERSION_TABLE = "arena_alembic_version"

target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        version_table=VERSION_TABLE,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    config = context.config
    if context.is_offline_mode():
        context.configure(url=config.get_main_option("sqlalchemy.url"),
                          target_metadata=target_metadata, literal_binds=True,
                          version_table=VERSION_TABLE)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no connection and no sqlalchemy.url for the store migrations")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


def _in_alembic() -> bool:
    try:
        context.config
    except (AttributeError, NameError):  # imported outside an Alembic run
        return False
    return True


if _in_alembic():
    run_migrations()
