"""Drive a round-based format in process, as the conductor does, without a store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.records.spec import MatchSpec
from arena.tournaments.config import TournamentConfig
from arena.tournaments.rounds import TournamentView, make_format


def drive(config: TournamentConfig, play: Callable[[MatchSpec], Any], *,
          max_rounds: int = 1000) -> tuple[list[MatchSpec], list[Any]]:
    """Every round until ``next_round`` returns ``None``: ``(specs, records)``."""
    fmt = make_format(config)
    specs = list(fmt.first_round(config.entrants))
    records = [play(s) for s in specs]
    rnd = 0
    for _ in range(max_rounds):
        nxt = fmt.next_round(TournamentView(config.id, config, rnd, list(specs)), list(records))
        if not nxt:
            break
        assert [s.index for s in nxt] == list(range(len(specs), len(specs) + len(nxt)))
        rnd = max(s.round for s in nxt)
        specs += nxt
        records += [play(s) for s in nxt]
    return specs, records
