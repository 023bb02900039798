"""Match records to rating inputs.

A :class:`~arena.records.record.MatchRecord` becomes a :class:`MatchResult` with
the game's partnerships as teams and, for duplicate play, the deal group as
``deal_id``: records that share it held the same cards, so bots are compared
seat by seat with each other, not with the luck of the deal. The group is the
record's ``tags["group"]`` when present (``arena play`` and tournaments set it),
else ``"<tournament_id>:<deal>"`` from the tags, else none.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.games import get_game
from arena.ratings.result import MatchResult
from arena.records.record import MatchRecord

__all__ = ["RulesetRating", "deal_group", "rate_records", "results_from_records"]


def deal_group(record: MatchRecord) -> str | None:
    """The duplicate group of a record, or ``None`` if it was not replayed."""
    tags = record.tags
    if "group" in tags:
        return str(tags["group"])
    if "tournament_id" in tags and "deal" in tags:
        return f"{tags['tournament_id']}:{tags['deal']}"
    return None


def results_from_records(records: Iterable[MatchRecord], *, game: str | None = None,
                         duplicate: bool = True) -> list[MatchResult]:
    """Rating inputs for every finished record (of ``game``, if given).

    :param duplicate: use deal groups (seat-by-seat comparison) where records have them.
    """
    teams_of: dict[tuple[str, str | None, str], list[list[int]]] = {}
    out = []
    for r in records:
        if not r.terminal or (game is not None and r.game != game):
            continue
        key = (r.game, r.preset, repr(sorted(r.options.items())))
        if key not in teams_of:
            g = get_game(r.game, **({"preset": r.preset} if r.preset else {}), **r.options)
            teams_of[key] = g.teams()
        teams = teams_of[key]
        solo = all(len(t) == 1 for t in teams)
        out.append(MatchResult.from_record(r, teams=None if solo else teams,
                                           deal_id=deal_group(r) if duplicate else None))
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
                 ruleset: str | None = None, fit: bool = True) -> dict[str, RulesetRating]:
    """Rate finished records per ruleset: the one way ``arena ratings``, the
    dashboard, ``AdminService.GetRatings`` and the store's rating history do it.

    Per ruleset (in the records' order): :func:`results_from_records`, a fresh
    :func:`arena.ratings.make_rater` of ``system`` fed every result in order and,
    with ``fit``, :func:`arena.ratings.fit_bradley_terry` for 95% intervals. A
    ruleset whose duplicate deal groups cannot be rated (:class:`RatingError`) is
    rated without them, said in ``notes``.

    :raises RatingError: for an unknown ``system``.
    """
    from arena.ratings.bradley_terry import fit_bradley_terry
    from arena.ratings.errors import RatingError
    from arena.ratings.factory import make_rater

    kind: Any = system  # make_rater checks it (a Literal in its signature)
    make_rater(kind)  # an unknown system raises here, before any work
    by_ruleset: dict[str, list[MatchRecord]] = defaultdict(list)
    for r in records:
        if r.terminal and (game is None or r.game == game) and (ruleset is None or r.ruleset == ruleset):
            by_ruleset[r.ruleset].append(r)
    out: dict[str, RulesetRating] = {}
    for label in sorted(by_ruleset):
        recs = by_ruleset[label]
        notes: list[str] = []
        results = results_from_records(recs)
        rater = make_rater(kind)
        try:
            rater.record_all(results)
        except RatingError as exc:
            results = results_from_records(recs, duplicate=False)
            rater = make_rater(kind)
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
