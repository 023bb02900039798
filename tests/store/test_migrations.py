"""Migrations: from empty to head, idempotent, down to base and up again, concurrent."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect

from arena.store import Store, downgrade, upgrade
from arena.store.migrate import current, head
from arena.store.models import Base

from .helpers import SpawnPool, migrate_once

TABLES = {"bots", "tournaments", "match_specs", "match_records", "results", "rating_history", "leagues",
          "rating_tournaments", "rating_bots", "rating_deals"}


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_empty_to_head_and_back(db_url: str) -> None:
    assert current(db_url) is None
    assert _tables(db_url) == set()
    assert upgrade(db_url) == head() == "0005"
    assert _tables(db_url) == TABLES | {"arena_alembic_version"}
    assert upgrade(db_url) == head()  # idempotent
    assert downgrade(db_url, "base") is None
    assert _tables(db_url) <= {"arena_alembic_version"}
    assert Store(db_url).migrate() == head()


def test_migrated_schema_matches_models(db_url: str) -> None:
    """Autogenerate finds nothing to do: the migrations produce exactly the models."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    upgrade(db_url)
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()
    diff = [d for d in diff if not (d[0] == "remove_table" and d[1].name == "arena_alembic_version")]
    assert diff == []


def test_concurrent_migrate(db_url: str, spawn_pool: SpawnPool) -> None:
    """Several workers starting at once on an empty database all end at head."""
    assert spawn_pool.run(migrate_once, lambda i, start: (db_url, start)) == [head()] * 4
    assert _tables(db_url) == TABLES | {"arena_alembic_version"}
