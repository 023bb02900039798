"""The online Elo history, one tournament at a time (pure: no store).

The store's rating history (:mod:`arena.tournaments.history`) is the online Elo
(:class:`~arena.ratings.book.RatingBook`, rating entrants: ``by_bot=False``) fed the
records of each finished tournament of a ruleset, tournament after tournament in the
order they finished, each tournament's records by match id. :func:`extend` adds one
tournament to that history from a small state, what the next tournament needs of the
ones before it:

* every bot's rating and games so far (:class:`BotState`, only the bots the tournament
  seats are read);
* the *open* duplicate deals: the tables remembered by the
  :class:`~arena.ratings.comparisons.DealLedger` of deals a later tournament may play
  again. A tournament's own deal groups (``"<tournament_id>:<deal>[:<table>]"``, see
  :func:`arena.ratings.records.deal_group`) are closed when it ends; only explicit
  ``tags["group"]`` groups can span tournaments, so the ledger is usually empty.

Fallback: a tournament whose deal groups cannot be rated (:class:`RatingError`: a deal
with tables of different sizes) is rated without its deal groups, every table on its
own, and only that tournament: the decision is the tournament's, so adding it to the
end of the history is exactly what a recomputation in the same order gives.
:func:`replay` is that recomputation: :func:`extend` folded over tournaments from an
empty state.

>>> from arena.records.record import MatchRecord
>>> r = MatchRecord("t:000000", "rummy", "rummy@v1", None, {}, {}, 1, [], ["a", "b"],
...                 returns=[1.0, -1.0], terminal=True, tags={"tournament_id": "t"})
>>> ext = extend("rummy@v1", "t", [r], bots={}, deals={})
>>> [(p.bot, p.rating, p.games) for p in ext.points], ext.bots
([('a', 1516.0, 1), ('b', 1484.0, 1)], {'a': BotState(rating=1516.0, games=1), 'b': BotState(rating=1484.0, games=1)})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.book import RatingBook
from arena.ratings.errors import RatingError
from arena.ratings.records import results_from_records
from arena.ratings.result import MatchResult
from arena.records.record import MatchRecord

__all__ = ["BotState", "Extension", "HistoryEntry", "extend", "open_deal", "replay", "tournament_of"]


@dataclass(frozen=True, slots=True)
class BotState:
    """A bot's Elo and results so far in a ruleset."""

    rating: float
    games: int


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One point of the history: ``bot``'s Elo after the result of ``match_id``."""

    bot: str
    rating: float
    games: int
    """The bot's results so far (this one included if it sat at the table)."""
    match_id: str | None
    record: int
    """Index of the record in the tournament's records given to :func:`extend`."""


@dataclass
class Extension:
    """What one tournament adds to a ruleset's history (:func:`extend`)."""

    points: list[HistoryEntry]
    """In history order: by result, then bot."""
    bots: dict[str, BotState]
    """The new state of every bot the tournament touched."""
    deals: dict[str, list[dict[str, Any]]]
    """The open deals it played, with all their tables so far (to keep)."""
    grouped: bool = True
    """False if its deal groups were not used (the fallback)."""
    note: str | None = None


def tournament_of(record: MatchRecord) -> str | None:
    """The tournament of a record (its ``tournament_id`` tag), if any."""
    tid = record.tags.get("tournament_id") or record.tags.get("tournament")
    return tid if isinstance(tid, str) else None


def open_deal(deal_id: str | None, tournament_id: str | None) -> bool:
    """Whether a deal group may get tables in a later tournament: every group but a
    tournament's own (``"<tournament_id>:..."``)."""
    return deal_id is not None and (tournament_id is None or not deal_id.startswith(f"{tournament_id}:"))


def _rate(ruleset: str, results: Sequence[MatchResult], bots: Mapping[str, BotState],
          deals: Mapping[str, list[dict[str, Any]]]) -> RatingBook:
    book = RatingBook(seeds={(ruleset, b): s.rating for b, s in bots.items()})
    for deal_id, tables in deals.items():
        book.ledger.restore(ruleset, deal_id, tables)
    book.record_all(results)
    return book


def extend(ruleset: str, tournament_id: str | None, records: Sequence[MatchRecord], *,
           bots: Mapping[str, BotState], deals: Mapping[str, list[dict[str, Any]]]) -> Extension:
    """The history points of one tournament's ``records`` of ``ruleset`` (finished ones
    are rated, in the order given) after a history whose state is ``bots`` (at least
    every bot these records seat or whose open deals they play) and ``deals`` (at
    least the open deals they play; see the module docstring)."""
    recs = [r for r in records if r.terminal and r.ruleset == ruleset]
    results = results_from_records(recs)
    note = None
    try:
        book = _rate(ruleset, results, bots, deals)
        grouped = True
    except RatingError as exc:
        results = results_from_records(recs, duplicate=False)
        book = _rate(ruleset, results, bots, {})
        grouped, note = False, f"duplicate deals not used: {exc}"
    games = {b: s.games for b, s in bots.items()}
    seen: dict[tuple[int, str], int] = {}
    for step, result in enumerate(results, 1):
        for bot in dict.fromkeys(result.seats):
            games[bot] = games.get(bot, 0) + 1
            seen[(step, bot)] = games[bot]
    points = []
    for bot, history in book.history(ruleset).items():
        last = bots[bot].games if bot in bots else 0
        for p in history:
            last = seen.get((p.step, bot), last)
            points.append(HistoryEntry(bot, float(p.rating), last, results[p.step - 1].match_id, p.step - 1))
    points.sort(key=lambda e: (e.record, e.bot))
    touched = {e.bot for e in points}
    state = {b: BotState(book.rating(ruleset, b), games.get(b, 0)) for b in sorted(touched)}
    kept = {d: book.ledger.export(ruleset, d) for d in book.ledger.deals(ruleset)
            if open_deal(d, tournament_id)} if grouped else {}
    return Extension(points, state, kept, grouped, note)


@dataclass
class Replay:
    """:func:`replay`'s result: each tournament's extension and the final state."""

    extensions: list[tuple[str | None, Extension]] = field(default_factory=list)
    bots: dict[str, BotState] = field(default_factory=dict)
    deals: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def replay(ruleset: str, tournaments: Iterable[tuple[str | None, Sequence[MatchRecord]]]) -> Replay:
    """The whole history of ``ruleset``: :func:`extend` for each ``(tournament_id,
    records)`` in order, from an empty state."""
    out = Replay()
    for tid, records in tournaments:
        ext = extend(ruleset, tid, records, bots=out.bots, deals=out.deals)
        out.extensions.append((tid, ext))
        out.bots.update(ext.bots)
        out.deals.update(ext.deals)
    return out
