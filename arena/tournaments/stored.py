"""A tournament as the store keeps it: its configuration, its standings, its work
offered to the workers.

The reads and the one offer that both :mod:`arena.tournaments.service` (the
door for the CLI, the gateway, the dashboard and the workers) and
:mod:`arena.tournaments.league` (a league's divisions are stored tournaments)
need; the service hands them on under the same names, so callers above it never
import this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from arena.tournaments.conductor import Conductor, ConductorSettings, Dispatcher
from arena.tournaments.routes import route

if TYPE_CHECKING:
    from arena.records.record import MatchRecord
    from arena.store.protocol import StoreProtocol
    from arena.tournaments.config import TournamentConfig
    from arena.tournaments.presence import Presence
    from arena.tournaments.standings import Standings

__all__ = ["stored_config", "standings", "submit"]


def stored_config(store: StoreProtocol, tournament_id: str) -> TournamentConfig:
    """The :class:`~arena.tournaments.config.TournamentConfig` kept with a tournament."""
    from arena.tournaments.config import parse_config

    return parse_config(dict(store.tournament(tournament_id).config), source=f"store:{tournament_id}")


def standings(store: StoreProtocol, tournament_id: str) -> Standings:
    """The :class:`~arena.tournaments.standings.Standings` from the stored records;
    ``details["missing"]`` lists the matches without a record and why,
    ``details["forfeits"]`` the matches recorded as forfeits (remote bots absent
    beyond the absence limit: not scored, not rated)."""
    from arena.tournaments.rounds import make_format

    config = stored_config(store, tournament_id)
    forfeits: list[dict[str, Any]] = []

    def records() -> Iterator[MatchRecord]:
        for r in store.records(tournament_id):
            f = r.tags.get("forfeit")
            if f:
                forfeits.append({"match_id": r.match_id, "absent": list(f.get("absent", [])),
                                 "reason": str(f.get("reason", ""))})
            yield r

    st: Standings = make_format(config).standings(records())
    st.details["forfeits"] = forfeits
    missing = [{"match_id": s.match_id, "status": s.status, "reason": s.error or s.status}
               for s in store.spec_states(tournament_id) if s.status != "done"]
    st.details["missing"] = missing
    st.expected = max(st.expected, len(store.spec_states(tournament_id)))
    return st


def submit(store: StoreProtocol, tournament_id: str, dispatcher: Dispatcher,
           settings: ConductorSettings | None = None, *, presence: Presence | None = None) -> int:
    """Offer a stored tournament's playable matches to the workers: one conductor
    pass with ``dispatcher`` (the workers' conductors carry on from there; a
    ladder's next round seats the remote entrants ``presence`` says are connected).
    Returns the number of offers sent.

    :raises ValueError: for a tournament with Blue Chip entrants (their robots are
        connected to one process: ``arena tournament run --bluechip ADDRESS``).
    """
    robots = sorted({e for spec in store.specs(tournament_id)
                     for e, ref in zip(spec.entrants, spec.bots) if route(ref).pinned})
    if robots:
        raise ValueError(f"entrants {', '.join(robots)} are Blue Chip robots: they play in the process "
                         "that hosts their Table Manager (arena tournament run FILE --bluechip "
                         "HOST:PORT), not on Celery workers")
    reports = Conductor(store, dispatcher, settings, presence=presence).reconcile(tournament_id)
    return sum(r.offered for r in reports)
