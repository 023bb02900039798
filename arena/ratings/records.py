"""Match records to rating inputs.

A :class:`~arena.records.record.MatchRecord` becomes a :class:`MatchResult` with
the game's partnerships as teams and, for duplicate play, the deal group as
``deal_id``: records that share it held the same cards, so bots are compared
seat by seat with each other, not with the luck of the deal. The group is the
record's ``tags["group"]`` when present (``arena play`` sets it); for a tournament's
records ``"<tournament_id>:<deal>:<table>"``: one table's seatings of the deal (the
duplicate set proper: the same opponents with the cards exchanged), never the
other tables of that deal, whose results come against other opponents (comparing
those would mix the opponents' strength into every comparison, which flattens the
ladder, and count one deal's play many times over, which narrows the intervals);
except in a field movement (``tags["movement"] == "field"``: duplicate pairs, one
seating per table), where the deal's whole field is the group; else none.

Players: a record names its seats by entrant (``heuristic-1``, ``heuristic-2``).
With ``by_bot``, entrants that are the same bot (the record's ``tags["bots"]``,
e.g. ``builtin:heuristic`` behind both) are rated as one player named by the bot
(a bot is never compared with itself); an entrant whose bot is its own keeps its
name. Ratings per game do this by default (``arena ratings`` unless
``--by-entrant``, the dashboard's ratings page); :func:`rate_records` and
:func:`results_from_records` themselves rate entrants unless given ``by_bot=True``
(a tournament's own table, the stored rating history).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.games import get_game
from arena.ratings.result import MatchResult
from arena.records.record import MatchRecord

__all__ = ["RulesetRating", "deal_group", "rate_records", "results_from_records", "seat_players"]


def deal_group(record: MatchRecord) -> str | None:
    """The duplicate group of a record, or ``None`` if it was not replayed."""
    tags = record.tags
    if "group" in tags:
        return str(tags["group"])
    if "tournament_id" in tags and "deal" in tags:
        if "table" in tags and tags.get("movement") != "field":
            return f"{tags['tournament_id']}:{tags['deal']}:{tags['table']}"
        return f"{tags['tournament_id']}:{tags['deal']}"
    return None


def _seat_bots(record: MatchRecord) -> list[str] | None:
    bots = record.tags.get("bots")
    if isinstance(bots, list) and len(bots) == len(record.seats) and all(isinstance(b, str) and b for b in bots):
        return list(bots)
    return None


def seat_players(records: Iterable[MatchRecord], *, by_bot: bool = True) -> list[list[str]]:
    """Who is rated at each seat of each record (a list per record, in order).

    A seat is rated as its entrant, except that with ``by_bot`` a bot behind two or
    more entrants of a ruleset (``tags["bots"]``) is rated as one player named by
    its bot reference; entrants with a bot of their own keep their names.

    >>> from arena.records.record import MatchRecord
    >>> r = MatchRecord("m", "g", "g@1", None, {}, {}, 1, [], ["h-1", "h-2", "r"],
    ...                 tags={"bots": ["builtin:h", "builtin:h", "builtin:r"]})
    >>> seat_players([r]), seat_players([r], by_bot=False)
    ([['builtin:h', 'builtin:h', 'r']], [['h-1', 'h-2', 'r']])
    """
    records = list(records)
    out = [list(r.seats) for r in records]
    if not by_bot:
        return out
    entrants: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in records:
        for seat, bot in zip(r.seats, _seat_bots(r) or []):
            entrants[(r.ruleset, bot)].add(seat)
    for i, r in enumerate(records):
        bots = _seat_bots(r)
        if bots is not None:
            out[i] = [bot if len(entrants[(r.ruleset, bot)]) > 1 else seat
                               for seat, bot in zip(r.seats, bots)]
    return out


def results_from_records(records: Iterable[MatchRecord], *, game: str | None = None,
                         duplicate: bool = True, by_bot: bool = False) -> list[MatchResult]:
    """Rating inputs for every finished record (of ``game``, if given).

    :param duplicate: use deal groups (seat-by-seat comparison) where records have them.
    :param by_bot: rate entrants that are the same bot as one player (:func:`seat_players`).
    """
    teams_of: dict[tuple[str, str | None, str], list[list[int]]] = {}
    out = []
    finished = [r for r in records if r.terminal and (game is None or r.game == game)]
    players = seat_players(finished, by_bot=by_bot)
    for r, names in zip(finished, players):
        key = (r.game, r.preset, repr(sorted(r.options.items())))
        if key not in teams_of:
            g = get_game(r.game, **({"preset": r.preset} if r.preset else {}), **r.options)
            teams_of[key] = g.teams()
        teams = teams_of[key]
        solo = all(len(t) == 1 for t in teams)
        out.append(MatchResult(r.ruleset, names, r.returns,
                               teams=None if solo else teams,
                               deal_id=deal_group(r) if duplicate else None, match_id=r.match_id))
    return out


@dataclass
class RulesetRating:
    """One ruleset rated by :func:`rate_records`."""

    ruleset: str
    game: str
    rater: Any
    """The online rater (:class:`arena.ratings.Rater`) fed every result in order."""
    results: list[MatchResult]
    """What it was fed (without deal groups if ``notes`` says so)."""
    fit: Any = None
    """The batch Bradley-Terry fit (:class:`arena.ratings.BTFit`), or ``None``."""
    records: int = 0
    """Finished records of the ruleset."""
    notes: list[str] = field(default_factory=list)
    """What could not be done as usual: ``duplicate deals not used: ...`` (the deal
    groups are inconsistent, so every table is rated on its own), ``no batch fit: ...``."""


def rate_records(records: Iterable[MatchRecord], *, system: str = "elo", game: str | None = None,
                 ruleset: str | None = None, fit: bool = True,
                 by_bot: bool = False) -> dict[str, RulesetRating]:
    """Rate finished records per ruleset: the one way ``arena ratings``, the
    dashboard, ``AdminService.GetRatings`` and the store's rating history do it.

    Per ruleset (in the records' order): :func:`results_from_records`, a fresh
    :func:`arena.ratings.make_rater` of ``system`` fed every result in order and,
    with ``fit``, :func:`arena.ratings.fit_bradley_terry` for 95% intervals. A
    ruleset whose duplicate deal groups cannot be rated (:class:`RatingError`) is
    rated without them, said in ``notes``.

    :param by_bot: rate entrants that are the same bot as one player (what ratings
        per game want: ``arena ratings`` and the dashboard pass it); the default rates
        every entrant on its own (a tournament's table, the stored rating history).
    :raises RatingError: for an unknown ``system``.
    """
    from arena.ratings.bradley_terry import fit_bradley_terry
    from arena.ratings.errors import RatingError
    from arena.ratings.factory import make_rater

    make_rater(system)  # an unknown system raises here, before any work
    by_ruleset: dict[str, list[MatchRecord]] = defaultdict(list)
    for r in records:
        if r.terminal and (game is None or r.game == game) and (ruleset is None or r.ruleset == ruleset):
            by_ruleset[r.ruleset].append(r)
    out: dict[str, RulesetRating] = {}
    for label in sorted(by_ruleset):
        recs = by_ruleset[label]
        notes: list[str] = []
        results = results_from_records(recs, by_bot=by_bot)
        rater = make_rater(system)
        try:
            rater.record_all(results)
        except RatingError as exc:
            results = results_from_records(recs, duplicate=False, by_bot=by_bot)
            rater = make_rater(system)
            rater.record_all(results)
            notes.append(f"duplicate deals not used: {exc}")
        fitted = None
        if fit:
            try:
                fitted = fit_bradley_terry(results, ruleset=label)
            except (RatingError, ValueError) as exc:
                notes.append(f"no batch fit: {exc}")
        out[label] = RulesetRating(label, recs[0].game, rater, results, fitted, len(recs), notes)
    return out
