"""The store as the tournament service sees it: a typed interface.

:class:`StoreProtocol` lists the methods that :mod:`arena.tournaments.service`
calls (tournaments, their specs and states, the records, leases of a round
played in-process, the bot registry). :class:`arena.store.Store` satisfies it
structurally (``tests/store/test_store_protocol.py`` checks this with
``isinstance`` and mypy checks every call of the service against it), and a test
double or another backend can stand in for it without subclassing.

>>> from arena.store import Store
>>> isinstance(Store("sqlite://"), StoreProtocol)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from arena.records.record import MatchRecord
    from arena.records.spec import MatchSpec
    from arena.store.registry import BotRegistry
    from arena.store.store import SpecState, TournamentInfo

__all__ = ["StoreProtocol"]


@runtime_checkable
class StoreProtocol(Protocol):
    """What the tournament service needs of a store (see :class:`arena.store.Store`
    for the meaning of each method)."""

    url: str
    """The store's URL: executors and workers open their own connection with it."""

    # -- tournaments
    def add_tournament(self, tournament_id: str, name: str, game: str, config: dict[str, Any],
                       specs: Iterable[MatchSpec]) -> int: ...

    def tournament(self, tournament_id: str) -> TournamentInfo: ...

    def tournaments(self) -> list[TournamentInfo]: ...

    def set_tournament_status(self, tournament_id: str, status: str) -> None: ...

    def reopen_tournament(self, tournament_id: str) -> None: ...

    # -- specs and their states
    def specs(self, tournament_id: str) -> list[MatchSpec]: ...

    def spec_states(self, tournament_id: str) -> list[SpecState]: ...

    def progress(self, tournament_id: str) -> tuple[int, int]: ...

    def status_counts(self, tournament_id: str) -> dict[str, int]: ...

    def leasable_count(self, tournament_id: str) -> int: ...

    def lease_next(self, tournament_id: str, owner: str, seconds: float,
                   limit: int = 1) -> list[MatchSpec]: ...

    def mark_failed(self, match_id: str, owner: str, error: str = "") -> bool: ...

    def retry_failed(self, tournament_id: str) -> int: ...

    # -- records
    def record_result(self, record: MatchRecord) -> bool: ...

    def records(self, tournament_id: str, *, batch: int = 500,
                actions: bool = True) -> Iterator[MatchRecord]: ...

    # -- bots
    def bot_registry(self) -> BotRegistry: ...
