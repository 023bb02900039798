"""The arena's database: SQLAlchemy 2 models with Alembic migrations shipped in
the package; SQLite by default, PostgreSQL by URL.

>>> from arena.store import Store
>>> store = Store("sqlite://")       # default: Store() -> sqlite:///arena.db
>>> store.migrate() is not None      # runs the packaged Alembic migrations
True
"""

from arena.store.bots import StoreBotRegistry
from arena.store.migrate import downgrade, upgrade
from arena.store.store import (
    DEFAULT_URL,
    RatingPoint,
    SeatResult,
    SpecConflictError,
    SpecState,
    Store,
    TournamentInfo,
    TournamentNotFoundError,
)

__all__ = [
    "DEFAULT_URL",
    "RatingPoint",
    "SeatResult",
    "SpecConflictError",
    "SpecState",
    "Store",
    "StoreBotRegistry",
    "TournamentInfo",
    "TournamentNotFoundError",
    "downgrade",
    "upgrade",
]
