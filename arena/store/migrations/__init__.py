"""Alembic migrations of the store, shipped inside the package.

Run them with :func:`arena.store.migrate.upgrade` (no ``alembic.ini`` needed).
To write a new revision during development::

    python -m arena.store.migrate revision -m "what changed" --url sqlite:///dev.db
"""
