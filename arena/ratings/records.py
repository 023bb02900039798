"""Match records to rating inputs.

A :class:`~arena.records.record.MatchRecord` becomes a :class:`MatchResult` with
the game's partnerships as teams and, for duplicate play, the deal group as
``deal_id``: records that share it held the same cards, so bots are compared
seat by seat with each other, not with the luck of the deal. The group is the
record's ``tags["group"]`` when present (``arena play`` and tournaments set it),
else ``"<tournament_id>:<deal>"`` from the tags, else none.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.games import get_game
from arena.ratings.result import MatchResult
from arena.records.record import MatchRecord

__all__ = ["deal_group", "results_from_records"]


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
