"""End to end: every shipped example expands, plays in process with built-in bots, and stands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots import make_bot
from arena.core.dealing import derive_seed
from arena.games import get_game
from arena.match import run_match
from arena.records.record import MatchRecord, dumps, loads
from arena.tournaments.config import example_paths, load_config
from arena.tournaments.formats import expand
from arena.records.spec import MatchSpec, parse_bot_ref
from arena.tournaments.standings import format_standings, standings

from tests.tournaments.helpers import tags_of
from tests.tournaments.rounds_driver import drive

ONE_ROUND = ("round_robin", "duplicate", "gauntlet")


def play_all(cfg: object) -> tuple[list[MatchSpec], list[MatchRecord]]:
    """Every match of an example: the whole schedule, or round by round as the conductor asks."""
    if cfg.format in ONE_ROUND:  # type: ignore[attr-defined]
        specs = expand(cfg)  # type: ignore[arg-type]
        return specs, [play(s) for s in specs]
    return drive(cfg, play)  # type: ignore[arg-type]


def play(spec: MatchSpec) -> MatchRecord:
    game = get_game(spec.game, **({"preset": spec.preset} if spec.preset else {}), **spec.options)
    agents = []
    for seat, ref in enumerate(spec.bots):
        kind, name = parse_bot_ref(ref)
        assert kind == "builtin"
        agents.append(make_bot(spec.game, name, seed=derive_seed(spec.match_id, seat)))
    result = run_match(game, agents, seed=spec.seed, init=dict(spec.init), match_id=spec.match_id,
                       bot_names=list(spec.entrants), deadline_ms=spec.deadline_ms, tags=tags_of(spec))
    return loads(dumps(result.record))  # through JSON, as a store would keep it


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_example_tournament_end_to_end(path: Path) -> None:
    cfg = load_config(path)
    specs, recs = play_all(cfg)
    assert 0 < len(specs) <= 40, "examples stay small"
    st = standings(cfg, recs)
    assert st.complete and st.recorded == len(specs) and st.unfinished == 0
    json.dumps(st.to_dict(), allow_nan=False)
    text = format_standings(st)
    assert cfg.name in text
    if cfg.format == "gauntlet":
        assert {r["opponent"] for r in st.rows} == set(cfg.entrant_ids) - {cfg.gauntlet.candidate}  # type: ignore[union-attr]
        assert sum(r["matches"] for r in st.rows) == len(specs)
    else:
        assert sorted(r["entrant"] for r in st.rows) == sorted(cfg.entrant_ids)
        assert [r["rank"] for r in st.rows] == list(range(1, len(cfg.entrants) + 1))
    # the same tournament again gives the same results (deterministic built-in bots)
    again = standings(cfg, play_all(cfg)[1])
    assert again.rows == st.rows
