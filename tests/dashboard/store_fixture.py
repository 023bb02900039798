"""A store for the dashboard tests: every example tournament played to the end, plus
a bridge tournament in progress (some matches recorded, one running, the rest
pending; one record that ended without finishing; one synthetic fault).

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
from arena.tournaments.config import example_path, parse_config
from arena.tournaments.formats import expand
from arena.tournaments.runner import play_spec

GAMES = ("bridge", "canasta", "calypso", "rummy", "auction")
LIVE = "live-bridge"


def _register(store: Store, raw: dict[str, Any]) -> list[Any]:
    config = parse_config(raw)
    specs = expand(config)
    store.add_tournament(config.id, config.name, config.game, raw, specs)
    return specs


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
    store.dispose()
    return facts


if __name__ == "__main__":
    print(build_store(sys.argv[1]))
