"""Rating history in the store: each bot's online Elo after every stored result.

The store's ``rating_history`` table holds, per ruleset, the points of the online Elo
(:class:`arena.ratings.RatingBook`, every entrant rated on its own) fed the records of
every finished tournament of that ruleset, **tournament after tournament in the order
they finished** (the time each one's end was added to the history; ties by id), each
tournament's records by match id: one :class:`~arena.store.store.RatingPoint` per bot
touched by each result, with the result's match id, finish time and the bot's games
so far. Users' own tools (SQL, notebooks, league pages) can read a bot's rating over
time from there without the rating code.

Because the order is the order of the ends, a tournament that ends adds its own points
at the end of the history: :func:`refresh_after` (the conductor calls it when it
finalizes a tournament, ``done`` or ``stopped``, before setting the status) reads that
tournament's records (their results only) and the state the store keeps per ruleset
(each bot's rating and games, the open duplicate deals: :mod:`arena.ratings.history`),
so its cost is the tournament's, not the store's. :func:`refresh_rating_history`
recomputes a ruleset's whole history from the records in the same order and replaces
it (migrations, repairs); it gives the same points (the invariant the platform keeps
for ratings).

Duplicate deals are compared seat by seat with the other tables of the same deal. If a
tournament's deal groups are inconsistent (:class:`arena.ratings.RatingError`), that
tournament's results are rated without the grouping (decided per tournament, so that
appending it equals the recomputation; the dashboard's ratings decide per ruleset).
Records stored after their tournament's end was added (a ``stopped`` tournament's
matches still in flight) come in at the next recomputation, or when the tournament
ends again (``arena tournament retry``): then it moves to the end of the history and
its ruleset is recomputed (:mod:`arena.store.history`).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import Any, Final

from arena.records.record import MatchRecord

__all__ = ["RATER", "add_tournament", "elo_history", "refresh_after", "refresh_rating_history",
           "tournament_rulesets"]

log = logging.getLogger("arena.tournaments")

RATER: Final = "elo"
"""The ``rater`` column of the points written here."""


def elo_history(records: Sequence[MatchRecord]) -> dict[str, list[Any]]:
    """Rating points per ruleset of the online Elo fed ``records`` in order (finished
    records only), each run of consecutive records of one tournament added as
    :func:`refresh_after` adds a tournament (the fallback decided per run): what the
    store's history holds when ``records`` are its tournaments' records in the order
    they ended. A reference without the store; see the module docstring."""
    from arena.ratings.history import BotState, extend, tournament_of
    from arena.store.store import RatingPoint

    runs: dict[str, list[tuple[str | None, list[MatchRecord]]]] = defaultdict(list)
    for r in records:
        if not r.terminal:
            continue
        tid, batch = tournament_of(r), runs[r.ruleset]
        if not batch or batch[-1][0] != tid:
            batch.append((tid, []))
        batch[-1][1].append(r)
    out: dict[str, list[Any]] = {}
    for ruleset in sorted(runs):
        bots: dict[str, BotState] = {}
        deals: dict[str, list[dict[str, Any]]] = {}
        points = []
        for tid, recs in runs[ruleset]:
            ext = extend(ruleset, tid, recs, bots=bots, deals=deals)
            bots.update(ext.bots)
            deals.update(ext.deals)
            points += [RatingPoint(ruleset=ruleset, bot=p.bot, rating=p.rating, interval=None, games=p.games,
                                   at=_finished(recs[p.record]), match_id=p.match_id, rater=RATER)
                       for p in ext.points]
        out[ruleset] = points
    return out


def _finished(record: MatchRecord) -> datetime:
    try:
        at = datetime.fromisoformat(record.finished_at)
    except (TypeError, ValueError):
        return datetime.fromtimestamp(0, timezone.utc)
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def tournament_rulesets(store: Any, tournament_id: str) -> set[str]:
    """The rulesets of a tournament's stored results (read from the results table,
    without decoding the records)."""
    return set(store.rulesets(tournament_id))


def refresh_rating_history(store: Any, rulesets: Iterable[str] | None = None) -> dict[str, int]:
    """Recompute the rating history of ``rulesets`` (default: every ruleset with
    tournament records or a history) from the store's records, in the order the
    tournaments ended, and replace it with the state appends start from; returns
    points per ruleset. For migrations and repairs: a tournament's end adds its own
    points (:func:`refresh_after`)."""
    return dict(store.rebuild_ratings(rulesets, rater=RATER))


def add_tournament(store: Any, tournament_id: str) -> dict[str, int]:
    """Add a tournament that ended to the rating history of each of its rulesets:
    reads its records (results only) and the rulesets' state, writes its points;
    returns points written per ruleset (0: it was added already)."""
    records = list(store.records(tournament_id, actions=False))  # results only: no actions built
    return dict(store.add_tournament_ratings(tournament_id, records, rater=RATER))


def refresh_after(store: Any, tournament_id: str) -> None:
    """:func:`add_tournament` for a tournament that just ended; never raises (the
    tournament's results are recorded; its history can be recomputed later)."""
    try:
        add_tournament(store, tournament_id)
    except Exception:  # noqa: BLE001 - derived data must not fail a finished tournament
        log.exception("rating history of tournament %s not added", tournament_id)
