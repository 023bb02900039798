"""Issue 28's change test for a new tournament format with settings, run for real: a
format module written in a temporary folder (its class, its ``[heads_up]`` table and
the table's parser) and one line in ``registry.BUILTIN_MODULES``, no other file
touched, is read from a tournament file (its settings reach ``config.settings``, a
bad value is the usual one-line error naming the field, its table under another
format is refused), stored, played to the end by the embedded conductor and ranked
by the default table."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournaments import registry, service
from arena.tournaments.config import ConfigError, loads_config
from arena.tournaments.executors import open_store

MODULE = '''
"""heads_up: one entrant (the hero) against each of the others, every deal."""
from typing import Any

from arena.records.spec import MatchSpec, make_match_id
from arena.tournaments.config import ConfigError, SettingsContext, table_of
from arena.tournaments.formats import deal_seed
from arena.tournaments.rounds import Format, register_format


@register_format("heads_up")
class HeadsUp(Format):
    section = "heads_up"

    @classmethod
    def parse_settings(cls, table: Any, context: SettingsContext) -> dict[str, str]:
        t = table_of(table, "heads_up", {"hero"}, required=True)
        ids = [e.id for e in context.entrants]
        if t.get("hero") not in ids:
            raise ConfigError("heads_up.hero", f"{t.get('hero')!r} is not an entrant id; entrants: {', '.join(ids)}")
        return {"hero": t["hero"]}

    def first_round(self, entrants: Any) -> list[MatchSpec]:
        cfg = self.config
        hero = cfg.entrant(cfg.settings["hero"])
        units = cfg.make_game().teams()
        specs = []
        for deal in range(cfg.deals):
            for table, other in enumerate(e for e in entrants if e.id != hero.id):
                seats = [hero] * sum(len(u) for u in units)
                for seat in units[1]:
                    seats[seat] = other
                i = len(specs)
                specs.append(MatchSpec(
                    match_id=make_match_id(cfg.id, i), tournament_id=cfg.id, index=i, game=cfg.game,
                    preset=cfg.preset, options=dict(cfg.options), seed=deal_seed(cfg.seed, deal),
                    entrants=tuple(e.id for e in seats), bots=tuple(e.bot for e in seats), deal=deal,
                    table=table, deadline_ms=cfg.deadline_ms,
                    tags={"tournament_id": cfg.id, "format": "heads_up", "deal": deal, "rotation": 0,
                          "table": table, "entrants": [e.id for e in seats]}))
        return specs
'''

FILE = """
[tournament]
id = "hu"
game = "calypso"
format = "{fmt}"
deals = 2
seed = 5
deadline_ms = 5000

[heads_up]
hero = "{hero}"

[[entrants]]
id = "h"
bot = "heuristic"

[[entrants]]
id = "r1"
bot = "random"

[[entrants]]
id = "r2"
bot = "random"
"""


@pytest.fixture()
def heads_up(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "heads_up_format.py").write_text(MODULE)
    sys.path.insert(0, str(tmp_path))
    before = registry.BUILTIN_MODULES
    registry.BUILTIN_MODULES = (*before, "heads_up_format")  # the one line a new format adds
    try:
        yield "heads_up"
    finally:
        registry.BUILTIN_MODULES = before
        registry.unregister("heads_up")
        sys.path.remove(str(tmp_path))
        sys.modules.pop("heads_up_format", None)


def test_a_new_format_with_settings_is_its_module_and_one_registry_line(heads_up: str, tmp_path: Path) -> None:
    config = loads_config(FILE.format(fmt=heads_up, hero="h"))
    assert config.format == heads_up and config.settings == {"hero": "h"}
    assert config.swiss is None and config.rotations == "cyclic"

    with pytest.raises(ConfigError, match=r"^heads_up\.hero: 'nobody' is not an entrant id; entrants: h, r1, r2$"):
        loads_config(FILE.format(fmt=heads_up, hero="nobody"))
    with pytest.raises(ConfigError, match=r"^heads_up: section given but tournament.format is 'round_robin'$"):
        loads_config(FILE.format(fmt="round_robin", hero="h"))

    file = tmp_path / "hu.toml"
    file.write_text(FILE.format(fmt=heads_up, hero="h"))
    url = f"sqlite:///{tmp_path / 'hu.db'}"
    store = open_store(url)
    config, added = service.register(file, store)
    assert added == 4  # 2 deals x (h against r1, h against r2)
    service.run_embedded(url, "hu", jobs=1)
    assert store.tournament("hu").status == "done" and store.progress("hu") == (4, 4)
    st = service.standings(store, "hu")
    assert st.recorded == st.expected == 4
    rows = {row["entrant"]: row for row in st.rows}
    assert set(rows) == {"h", "r1", "r2"} and st.rows[0]["entrant"] == "h"  # heuristic over random
    assert rows["h"]["matches"] == 4 and rows["r1"]["matches"] == rows["r2"]["matches"] == 2


def test_without_the_registry_line_the_format_and_its_table_are_unknown() -> None:
    with pytest.raises(ConfigError, match=r"^heads_up: unknown key; expected one of duplicate, entrants, "):
        loads_config(FILE.format(fmt="heads_up", hero="h"))
    with pytest.raises(ConfigError, match=r"^tournament.format: "):
        loads_config(FILE.format(fmt="heads_up", hero="h").replace("[heads_up]", "[other]")
                     .replace('hero = "h"', "").replace("[other]", ""))
