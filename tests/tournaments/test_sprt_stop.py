"""A gauntlet with ``[gauntlet.sprt]`` stops by itself when the SPRT decides."""

from __future__ import annotations

from pathlib import Path

from arena.tournaments import service
from arena.tournaments.executors import open_store
from arena.tournaments.rounds import SprtCheck

GAUNTLET = """
[tournament]
id = "sprt-{name}"
name = "SPRT gauntlet"
game = "calypso"
format = "gauntlet"
deals = 60
seed = 3
deadline_ms = 2000

[gauntlet]
candidate = "heuristic"

[gauntlet.sprt]
elo0 = {elo0}
elo1 = {elo1}
alpha = 0.05
beta = 0.05
pentanomial = {penta}

[[entrants]]
id = "heuristic"
bot = "heuristic"

[[entrants]]
id = "random"
bot = "random"
"""


def _run(tmp_path: Path, name: str, elo0: float, elo1: float, penta: bool) -> tuple[int, int, object]:
    file = tmp_path / f"{name}.toml"
    file.write_text(GAUNTLET.format(name=name, elo0=elo0, elo1=elo1, penta=str(penta).lower()))
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = open_store(url)
    config, _ = service.register(file, store)
    service.run_embedded(url, config.id, jobs=1)
    done, total = store.progress(f"sprt-{name}")
    return done, total, store.tournament(f"sprt-{name}").status


def test_strong_candidate_accepts_h1_early(tmp_path: Path) -> None:
    # heuristic beats random in ~95% of calypso games: H1 (elo >= 100) is accepted fast
    done, total, status = _run(tmp_path, "h1", 0, 100, False)
    assert total == 120 and 0 < done < total and status == "stopped"
    store = open_store(f"sqlite:///{tmp_path / 'arena.db'}")
    config, _ = service.register(tmp_path / "h1.toml", store)
    check = SprtCheck.of(config)
    assert check is not None and check(store.records(config.id)) == "H1"
    # a stopped tournament's results are in the rating history too
    ruleset = next(iter(store.records("sprt-h1"))).ruleset
    assert {p.match_id for p in store.rating_history(ruleset, rater="elo")} == \
        {r.match_id for r in store.records("sprt-h1")}
    # running again does not play on: the test has decided
    again, _, _ = _run(tmp_path, "h1", 0, 100, False)
    assert again == done


def test_pentanomial_pairs_the_two_seatings(tmp_path: Path) -> None:
    done, total, status = _run(tmp_path, "penta", 0, 100, True)
    assert 0 < done < total and status == "stopped"
    store = open_store(f"sqlite:///{tmp_path / 'arena.db'}")
    config, _ = service.register(tmp_path / "penta.toml", store)
    check = SprtCheck.of(config)
    assert check is not None and check(store.records(config.id)) == "H1"


def test_undecided_test_plays_everything(tmp_path: Path) -> None:
    # an absurd H1 (elo >= 3000) against H0 (elo <= 2900) cannot decide on 6 games
    file_deals = GAUNTLET.replace("deals = 60", "deals = 3")
    file = tmp_path / "u.toml"
    file.write_text(file_deals.format(name="u", elo0=2900, elo1=3000, penta="false"))
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = open_store(url)
    service.register(file, store)
    service.run_embedded(url, "sprt-u", jobs=1)
    assert store.progress("sprt-u") == (6, 6) and store.tournament("sprt-u").status == "done"
