"""Rating history in the store: each bot's online Elo after every stored result.

The store's ``rating_history`` table holds, per ruleset, the points of the online Elo
(:class:`arena.ratings.RatingBook` through :func:`arena.ratings.make_rater`) fed every
finished record of that ruleset in store order (tournaments oldest first, records by
match id within a tournament, as the dashboard reads them): one
:class:`~arena.store.store.RatingPoint` per bot touched by each result, with the
result's match id, finish time and the bot's games so far. Users' own tools (SQL,
notebooks, league pages) can read a bot's rating over time from there without the
rating code.

The points are derived data: :func:`refresh_rating_history` recomputes a ruleset's
whole history from the records and replaces it in one transaction, so it always
equals a recomputation from the records (the invariant the platform keeps for ratings).
The executors call it when a tournament ends (``done`` or ``stopped``); the cost is one
read of the ruleset's records (their results only: the actions are not built).

Duplicate deals are compared seat by seat with the other tables of the same deal; if a
ruleset's deal groups are inconsistent (:class:`arena.ratings.RatingError`) the
history is computed without the grouping, as the dashboard does.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any, Final

from arena.records.record import MatchRecord

__all__ = ["RATER", "elo_history", "refresh_rating_history", "tournament_rulesets"]

log = logging.getLogger("arena.tournaments")

RATER: Final = "elo"
"""The ``rater`` column of the points written here."""


def _finished(record: MatchRecord) -> datetime:
    try:
        at = datetime.fromisoformat(record.finished_at)
    except (TypeError, ValueError):
        return datetime.now(timezone.utc)
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def elo_history(records: Sequence[MatchRecord]) -> dict[str, list[Any]]:
    """Rating points per ruleset of the online Elo fed ``records`` in order
    (finished records only); see the module docstring."""
    from arena.ratings.records import rate_records
    from arena.store.store import RatingPoint

    out: dict[str, list[Any]] = {}
    for ruleset, rated in rate_records(records, system=RATER, fit=False).items():
        if rated.notes:
            log.info("rating history of %s: %s", ruleset, "; ".join(rated.notes))
        finished = {r.match_id: _finished(r) for r in records if r.ruleset == ruleset}
        first_finished = next(iter(finished.values()))
        results, elo = rated.results, rated.rater
        games: dict[tuple[int, str], int] = {}
        count: dict[str, int] = defaultdict(int)
        for step, result in enumerate(results, 1):
            for bot in dict.fromkeys(result.seats):
                count[bot] += 1
                games[(step, bot)] = count[bot]
        points = []
        for bot, history in elo.history(ruleset).items():
            seen = 0
            for p in history:
                result = results[p.step - 1]
                seen = games.get((p.step, bot), seen)
                points.append((p.step, bot, RatingPoint(
                    ruleset=ruleset, bot=bot, rating=float(p.rating), interval=p.error, games=seen,
                    at=finished.get(result.match_id or "", first_finished),
                    match_id=result.match_id, rater=RATER)))
        out[ruleset] = [pt for _, _, pt in sorted(points, key=lambda x: (x[0], x[1]))]
    return out


def tournament_rulesets(store: Any, tournament_id: str) -> set[str]:
    """The rulesets of a tournament's stored results (read from the results table,
    without decoding the records)."""
    return set(store.rulesets(tournament_id))


def refresh_rating_history(store: Any, rulesets: Iterable[str] | None = None) -> dict[str, int]:
    """Recompute the rating history of ``rulesets`` (default: every ruleset with
    records) from the store's records and replace it; returns points per ruleset."""
    wanted = None if rulesets is None else set(rulesets)
    records = [r for t in store.tournaments() for r in store.records(t.id, actions=False)
               if wanted is None or r.ruleset in wanted]  # results only: no actions built
    history = elo_history(records)
    written = {}
    for ruleset in sorted(history if wanted is None else wanted):
        written[ruleset] = store.replace_ratings(ruleset, history.get(ruleset, []), rater=RATER)
    return written


def refresh_after(store: Any, tournament_id: str) -> None:
    """:func:`refresh_rating_history` for a tournament that just ended; never raises
    (the tournament's results are recorded; its history can be refreshed later)."""
    try:
        refresh_rating_history(store, tournament_rulesets(store, tournament_id))
    except Exception:  # noqa: BLE001 - derived data must not fail a finished tournament
        log.exception("rating history of tournament %s not refreshed", tournament_id)
