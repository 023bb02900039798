"""A store for the dashboard tests: every example tournament played to the end, plus
a bridge tournament in progress (some matches recorded, one running, the rest
pending; one record that ended without finishing; one synthetic fault); the
example Swiss event and ladder played to the end, a ladder in progress, a bridge
pairs event scored in matchpoints, and the example league with two seasons ended
and a third started (one round played).

Run ``python tests/dashboard/store_fixture.py PATH.db`` to build one by hand (e.g.
to look at the dashboard: ``python -m arena.dashboard --store sqlite:///PATH.db``).
"""

from __future__ import annotations

import dataclasses
import sys
import tomllib
from pathlib import Path
from typing import Any

from arena.records.record import Fault
from arena.store import Store
from arena.tournaments import league
from arena.tournaments.conductor import Conductor, ConductorSettings
from arena.tournaments.config import example_path, parse_config
from arena.tournaments.formats import expand
from arena.tournaments.rounds import make_format
from arena.tournaments.runner import play_spec

GAMES = ("bridge", "canasta", "calypso", "rummy", "auction")
LIVE = "live-bridge"
EXAMPLES = Path(example_path("bridge")).parent
PAIRS: dict[str, Any] = {
    "tournament": {"id": "pairs-bridge", "name": "Bridge pairs (matchpoints)", "game": "bridge",
                   "preset": "duplicate", "format": "duplicate", "boards": 2, "seed": 3, "deadline_ms": 2000},
    "duplicate": {"mode": "pairs", "scoring": "matchpoints"},
    "entrants": [{"id": e, "bot": b} for e, b in (("north-star", "heuristic"), ("noisy", "heuristic?noise=0.3"),
                                                  ("dice", "random"), ("steady", "heuristic?noise=0.1"),
                                                  ("wild", "heuristic?noise=0.7"), ("coin", "random"))]}


def _register(store: Store, raw: dict[str, Any]) -> list[Any]:
    config = parse_config(raw)
    specs = expand(config)
    store.add_tournament(config.id, config.name, config.game, raw, specs)
    return specs


def _register_rounds(store: Store, raw: dict[str, Any]) -> str:
    """A round-based tournament (Swiss, ladder) stored with its first round."""
    config = parse_config(raw)
    store.add_tournament(config.id, config.name, config.game, raw,
                         make_format(config).first_round(config.entrants))
    return config.id


def play_rounds(store: Store, tid: str, rounds: int | None = None) -> int:
    """Play a stored tournament in this process round by round, as the conductor
    runs it (at most ``rounds`` rounds); returns the matches played."""
    conductor = Conductor(store, None, ConductorSettings())
    played = done_rounds = 0
    while rounds is None or done_rounds < rounds:
        conductor.reconcile(tid)
        if store.tournament(tid).status in ("done", "stopped"):
            break
        specs = store.lease_next(tid, "fixture", 600, limit=10**6)
        if not specs:
            break
        for spec in specs:
            store.record_result(play_spec(spec))
        played += len(specs)
        done_rounds += 1
    conductor.reconcile(tid)
    return played


def build_events(store: Store, facts: dict[str, Any]) -> None:
    """The Swiss, ladder, pairs and league parts of the store (see the module docstring)."""
    swiss = _register_rounds(store, tomllib.loads((EXAMPLES / "swiss.toml").read_text(encoding="utf-8")))
    play_rounds(store, swiss)
    ladder_raw = tomllib.loads((EXAMPLES / "ladder.toml").read_text(encoding="utf-8"))
    ladder = _register_rounds(store, ladder_raw)
    play_rounds(store, ladder)
    live = dict(ladder_raw, tournament={**ladder_raw["tournament"], "id": "live-ladder",
                                        "name": "Ladder (in progress)"},
                ladder={k: v for k, v in ladder_raw["ladder"].items() if k != "stop_after"})
    live_ladder = _register_rounds(store, live)
    play_rounds(store, live_ladder, rounds=2)
    for spec in _register(store, PAIRS):
        store.record_result(play_spec(spec))
    store.set_tournament_status("pairs-bridge", "done")
    lg = league.create(EXAMPLES / "leagues" / "calypso.toml", store)
    for _ in range(2):
        league.season_start(store, lg.id)
        for div in [d.name for d in lg.divisions]:
            play_rounds(store, league.division_tournament_id(lg.id, store_season(store, lg.id), div))
        league.season_end(store, lg.id)
    league.season_start(store, lg.id)
    for div in [d.name for d in lg.divisions]:
        play_rounds(store, league.division_tournament_id(lg.id, 3, div), rounds=1)
    facts.update(swiss=swiss, ladder=ladder, live_ladder=live_ladder, pairs="pairs-bridge", league=lg.id,
                 league_divisions=[d.name for d in lg.divisions])


def store_season(store: Store, league_id: str) -> int:
    return int(league.league_info(store, league_id)["season"])


def build_store(path: str | Path) -> dict[str, Any]:
    """Fill a new SQLite store at ``path``; returns facts the tests check against."""
    url = f"sqlite:///{path}"
    store = Store(url)
    store.migrate()
    facts: dict[str, Any] = {"url": url, "finished": {}, "live": LIVE}
    for game in GAMES:
        raw = tomllib.loads(example_path(game).read_text(encoding="utf-8"))
        specs = _register(store, raw)
        for spec in specs:
            store.record_result(play_spec(spec))
        store.set_tournament_status(raw["tournament"]["id"], "done")
        facts["finished"][game] = (raw["tournament"]["id"], specs[0].match_id)

    raw = tomllib.loads(example_path("bridge").read_text(encoding="utf-8"))
    raw["tournament"]["id"] = LIVE
    raw["tournament"]["name"] = "Bridge teams (in progress)"
    specs = _register(store, raw)
    first = play_spec(specs[0])
    first.faults.append(Fault(seat=1, step=3, kind="timeout", reason="no answer within 2000 ms (synthetic)"))
    store.record_result(first)
    store.record_result(play_spec(specs[1]))
    cut = play_spec(specs[2])  # a record that ended without finishing (e.g. aborted)
    cut = dataclasses.replace(cut, actions=cut.actions[:20], returns=[], terminal=False)
    store.record_result(cut)
    store.lease(specs[3].match_id, "worker-1", 600)  # leased: no record yet
    store.set_tournament_status(LIVE, "running")
    facts.update(live_fault=specs[0].match_id, live_unfinished=specs[2].match_id,
                 live_running=specs[3].match_id, live_pending=specs[4].match_id,
                 live_total=len(specs))
    build_events(store, facts)
    store.dispose()
    return facts


if __name__ == "__main__":
    print(build_store(sys.argv[1]))
