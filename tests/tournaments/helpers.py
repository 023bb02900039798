"""Shared helpers: configs from dicts and synthetic records shaped like MatchRecord."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.tournaments.config import TournamentConfig, parse_config
from arena.records.spec import MatchSpec


def make_config(game: str, fmt: str, entrants: Sequence[str | tuple[str, str]], *, deals: int = 2,
                seed: int = 7, preset: str | None = None, options: dict[str, Any] | None = None,
                tid: str = "t1", **sections: dict[str, Any]) -> TournamentConfig:
    """A config; entrants are ids (bot = the id's prefix before '-') or (id, bot)."""
    t: dict[str, Any] = {"id": tid, "game": game, "format": fmt, "deals": deals, "seed": seed}
    if preset:
        t["preset"] = preset
    if options:
        t["options"] = options
    ents = []
    for e in entrants:
        eid, bot = (e, e.split("-")[0]) if isinstance(e, str) else e
        ents.append({"id": eid, "bot": bot})
    return parse_config({"tournament": t, "entrants": ents, **sections})


def tags_of(spec: MatchSpec) -> dict[str, Any]:
    """The tag contract of arena.tournaments.standings."""
    tags = dict(spec.tags)
    tags.update(tournament_id=spec.tournament_id, index=spec.index, deal=spec.deal,
                rotation=spec.rotation, table=spec.table, entrants=list(spec.entrants),
                bots=list(spec.bots))
    return tags


@dataclass
class FakeRecord:
    match_id: str
    returns: list[float]
    tags: dict[str, Any] = field(default_factory=dict)
    terminal: bool = True
    ruleset: str = "x@v1"
    points: list[float] | None = None


def records(specs: Sequence[MatchSpec], returns: Callable[[MatchSpec], Sequence[float]]) -> list[FakeRecord]:
    return [FakeRecord(s.match_id, [float(x) for x in returns(s)], tags_of(s)) for s in specs]
