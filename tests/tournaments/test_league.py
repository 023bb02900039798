"""Leagues (arena.tournaments.league, arena league): file errors, seasons played
end to end with promotion and relegation, errors that change nothing, the table,
and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.tournaments import league
from arena.tournaments.config import ConfigError
from arena.tournaments.league import LeagueError, parse_league

NOISE = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0]


def league_doc(n_div: int = 3, size: int = 4, *, fmt: str = "swiss", move: int = 1) -> dict[str, Any]:
    """Divisions seeded weakest first, so the strong must rise."""
    ents = [{"id": f"n{int(p * 100):03d}", "bot": "heuristic", "options": {"noise": p}}
            for p in sorted(NOISE[:n_div * size], reverse=True)]
    divs = []
    for i in range(n_div):
        d: dict[str, Any] = {"name": f"d{i}", "size": size, "format": fmt if i else "round_robin"}
        if i:
            d["promote"] = move
        if i < n_div - 1:
            d["relegate"] = move
        if d["format"] == "swiss":
            d["rounds"] = 2
        divs.append(d)
    return {"league": {"id": "lg", "game": "bridge", "preset": "duplicate", "deals": 2, "seed": 3,
                       "deadline_ms": 5000}, "divisions": divs, "entrants": ents}


def write(path: Path, doc: dict[str, Any]) -> Path:
    def val(v: Any) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {val(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)

    lines = ["[league]"] + [f"{k} = {val(v)}" for k, v in doc["league"].items()]
    for d in doc["divisions"]:
        lines += ["[[divisions]]"] + [f"{k} = {val(v)}" for k, v in d.items()]
    for e in doc["entrants"]:
        lines += ["[[entrants]]"] + [f"{k} = {val(v)}" for k, v in e.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Any:
    from arena.store import Store

    s = Store(f"sqlite:///{tmp_path / 'league.db'}")
    s.migrate()
    return s


def test_file_errors_name_the_field() -> None:
    doc = league_doc()
    doc["league"]["colour"] = "red"
    with pytest.raises(ConfigError, match=r"^league\.colour: unknown key"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][2]["size"] = 6
    with pytest.raises(ConfigError, match=r"^divisions\[2\]\.size: 6 is larger than the 4 entrants left"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][0]["relegate"] = 5
    with pytest.raises(ConfigError, match=r"^divisions\[0\]\.relegate: 5 is larger than the division's size 4"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][1]["promote"] = 2
    with pytest.raises(ConfigError, match=r"^divisions\[1\]\.promote: must equal divisions\[0\]\.relegate"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][0]["promote"] = 1
    with pytest.raises(ConfigError, match=r"^divisions\[0\]\.promote: the top division promotes nobody"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][1]["format"] = "ladder"
    with pytest.raises(ConfigError, match=r"^divisions\[1\]\.format: must be round_robin or swiss"):
        parse_league(doc)
    doc = league_doc()
    doc["divisions"][1]["surprise"] = 1
    with pytest.raises(ConfigError, match=r"^divisions\[1\]\.surprise: unknown key"):
        parse_league(doc)
    doc = league_doc()
    doc["league"]["preset"] = "rubber"
    with pytest.raises(ConfigError, match=r"^league\.options: "):
        parse_league(doc)


def test_two_seasons_promotion_relegation_and_the_strong_rise(tmp_path: Path, store: Any) -> None:
    cfg = league.create(write(tmp_path / "lg.toml", league_doc()), store)
    assert league.create(tmp_path / "lg.toml", store) == cfg  # idempotent
    strength = {e["id"]: -e["options"]["noise"] for e in cfg.entrants}
    top_mean = []
    for season in (1, 2):
        start = league.season_start(store, "lg")
        assert start["season"] == season and len(start["divisions"]) == 3
        before = {d["division"]: d["entrants"] for d in start["divisions"]}
        top_mean.append(sum(strength[e] for e in before["d0"]) / 4)
        rounds = 0
        while True:
            try:
                league.play_round(store, "lg")
            except LeagueError as exc:
                assert "played out" in str(exc)
                break
            rounds += 1
        assert rounds == 2  # the Swiss divisions play 2 rounds, the round robin 1
        end = league.season_end(store, "lg")
        tables = {t["division"]: t["ranking"] for t in league.league_info(store, "lg")["history"]["seasons"][-1]
                  ["divisions"]}
        # bottom 1 down, top 1 up, between each pair of divisions
        down0, up1 = tables["d0"][-1], tables["d1"][0]
        after = {d["name"]: d["entrants"] for d in end["divisions"]}
        assert down0 in after["d1"] and up1 in after["d0"]
        assert tables["d1"][-1] in after["d2"] and tables["d2"][0] in after["d1"]
        assert all(len(v) == 4 for v in after.values())
        assert sorted(sum(after.values(), [])) == sorted(strength)
        assert len(end["moves"]) == 4
    final = {d["name"]: d["entrants"] for d in league.league_info(store, "lg")["divisions"]["divisions"]}
    top_mean.append(sum(strength[e] for e in final["d0"]) / 4)
    assert top_mean[2] > top_mean[0], top_mean  # the stronger bots rise
    t = league.table(store, "lg", season=1)
    assert [r["zone"] for r in t["divisions"][0]["rows"]] == ["", "", "", "down"]
    assert [r["zone"] for r in t["divisions"][1]["rows"]] == ["up", "", "", "down"]
    assert {a["entrant"] for a in t["all_time"]} == set(strength)
    assert all(a["seasons"] == 2 for a in t["all_time"])
    # ranked by best finish: the highest division reached, then the best place in it
    best = [(int(a["best_division"][1:]), a["best_place"]) for a in t["all_time"]]
    assert best == sorted(best) and t["all_time"][0]["best_place"] == 1
    for a in t["all_time"]:
        assert (a["best_division"], a["best_place"]) == min(
            ((h["division"], h["place"]) for h in a["history"]), key=lambda x: (int(x[0][1:]), x[1]))
    assert t["ratings"] and "rating" in t["ratings"][0]  # one fit over both seasons
    json.dumps(t, default=str, allow_nan=False)


def test_commands_at_the_wrong_time_change_nothing(tmp_path: Path, store: Any) -> None:
    league.create(write(tmp_path / "lg.toml", league_doc(2, 4)), store)
    before = league.league_info(store, "lg")
    with pytest.raises(LeagueError, match="between seasons"):
        league.play_round(store, "lg")
    with pytest.raises(LeagueError, match="between seasons"):
        league.season_end(store, "lg")
    assert league.league_info(store, "lg") == before
    league.season_start(store, "lg")
    running = league.league_info(store, "lg")
    with pytest.raises(LeagueError, match="is running: end it first"):
        league.season_start(store, "lg")
    with pytest.raises(LeagueError, match="is not finished"):
        league.season_end(store, "lg")
    assert league.league_info(store, "lg") == running
    league.play_round(store, "lg", all_rounds=True)
    league.season_end(store, "lg")
    ended = league.league_info(store, "lg")
    with pytest.raises(LeagueError, match="season 1 has ended"):
        league.season_end(store, "lg")
    assert league.league_info(store, "lg") == ended
    other = league_doc(2, 4)
    other["league"]["deals"] = 3
    with pytest.raises(LeagueError, match="exists with another file"):
        league.create(write(tmp_path / "other.toml", other), store)


def test_cli(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    file = write(tmp_path / "lg.toml", league_doc(2, 4))
    run = CliRunner()
    r = run.invoke(app, ["league", "create", str(file), "--store", url, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["league"] == "lg"
    r = run.invoke(app, ["league", "round", "lg", "--store", url])
    assert r.exit_code == 2 and "arena league round: error: " in r.output and "between seasons" in r.output
    assert run.invoke(app, ["league", "season", "start", "lg", "--store", url]).exit_code == 0
    r = run.invoke(app, ["league", "round", "lg", "--all", "--store", url, "--json"])
    assert r.exit_code == 0, r.output
    assert all(p["finished"] == "done" for p in json.loads(r.output)["played"])
    assert run.invoke(app, ["league", "season", "end", "lg", "--store", url]).exit_code == 0
    r = run.invoke(app, ["league", "table", "lg", "--store", url, "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["season"] == 1 and data["divisions"][1]["rows"][0]["zone"] == "up"
    r = run.invoke(app, ["league", "table", "lg", "--store", url, "--season", "1"])
    assert r.exit_code == 0 and "d0" in r.output and "all time" in r.output
    r = run.invoke(app, ["league", "table", "lg", "--store", url, "--season", "4"])
    assert r.exit_code == 2 and "seasons 1..1" in r.output
    bad = league_doc(2, 4)
    bad["divisions"][0]["relegate"] = 9
    r = run.invoke(app, ["league", "create", str(write(tmp_path / "bad.toml", bad)), "--store", url])
    assert r.exit_code == 2 and "divisions[0].relegate: 9 is larger than the division's size 4" in r.output


def test_example_league_plays_a_season(store: Any) -> None:
    from arena.tournaments.config import example_paths

    path = Path(league.__file__).with_name("examples") / "leagues" / "calypso.toml"
    cfg = league.load_league(path)
    assert sum(d.size for d in cfg.divisions) == len(cfg.entrants) == 8
    assert path not in example_paths()  # not a tournament file: `arena tournament run --examples` skips it
    league.create(path, store)
    start = league.season_start(store, cfg.id)
    assert sum(d["matches"] for d in start["divisions"]) <= 40, "examples stay small"
    league.play_round(store, cfg.id, all_rounds=True)
    end = league.season_end(store, cfg.id)
    assert len(end["moves"]) == 2


def calypso_doc(ids: list[str], sizes: list[int], move: int = 1) -> dict[str, Any]:
    """A calypso league of round robin divisions (fast), entrants in file order."""
    divs = []
    for i, size in enumerate(sizes):
        d: dict[str, Any] = {"name": f"d{i}", "size": size, "format": "round_robin"}
        if i:
            d["promote"] = move
        if i < len(sizes) - 1:
            d["relegate"] = move
        divs.append(d)
    return {"league": {"id": "cl", "game": "calypso", "deals": 1, "seed": 2, "deadline_ms": 5000},
            "divisions": divs, "entrants": [{"id": e, "bot": "random"} for e in ids]}


def members(store: Any, league_id: str = "cl") -> list[list[str]]:
    return [d["entrants"] for d in league.league_info(store, league_id)["divisions"]["divisions"]]


def test_entrants_join_and_leave_between_seasons(tmp_path: Path, store: Any) -> None:
    ids = [f"e{i}" for i in range(8)]
    league.create(write(tmp_path / "cl.toml", calypso_doc(ids, [4, 4])), store)
    # before the first season: e1 leaves, x joins at the bottom; the same file again changes nothing
    doc = calypso_doc([e for e in ids if e != "e1"] + ["x"], [4, 4])
    out = league.update(write(tmp_path / "cl2.toml", doc), store)
    assert (out["joined"], out["left"], out["changed"], out["season"]) == (["x"], ["e1"], True, 0)
    assert members(store) == [["e0", "e2", "e3", "e4"], ["e5", "e6", "e7", "x"]]
    assert not league.update(tmp_path / "cl2.toml", store)["changed"]
    # a season: its end moves the last of d0 down and the first of d1 up
    league.season_start(store, "cl")
    running = league.league_info(store, "cl")
    with pytest.raises(LeagueError, match="between seasons"):
        league.update(write(tmp_path / "cl3.toml", calypso_doc(ids, [4, 4])), store)
    assert league.league_info(store, "cl") == running  # nothing changed
    league.play_round(store, "cl", all_rounds=True)
    end = league.season_end(store, "cl")
    down = next(m["entrant"] for m in end["moves"] if m["move"] == "down")
    after = members(store)
    assert after[1][0] == down  # the relegated lead the division below
    # a premier entrant leaves and d0 grows to 5: the relegated one is reprieved, then the
    # next best of d1; two join at the bottom, which keeps 4
    leaver = after[0][0]
    rest = [e for e in sum(after, []) if e != leaver]
    doc = calypso_doc(rest + ["y", "z"], [5, 4])
    out = league.update(write(tmp_path / "cl4.toml", doc), store)
    assert (out["joined"], out["left"], out["season"]) == (["y", "z"], [leaver], 1)
    flat = [e for e in sum(after, []) if e != leaver] + ["y", "z"]
    assert members(store) == [flat[:5], flat[5:]]
    assert members(store)[0][-2:] == after[1][:2] and down in members(store)[0]
    info = league.league_info(store, "cl")
    assert [(u["after_season"], u["joined"], u["left"]) for u in info["history"]["updates"]] == [
        (0, ["x"], ["e1"]), (1, ["y", "z"], [leaver])]
    # season 2 plays the new divisions; season 1's table still reads (old sizes)
    start = league.season_start(store, "cl")
    assert [d["entrants"] for d in start["divisions"]] == [flat[:5], flat[5:]]
    t1 = league.table(store, "cl", season=1)
    assert [len(d["rows"]) for d in t1["divisions"]] == [4, 4]
    assert sorted(r["zone"] for d in t1["divisions"] for r in d["rows"] if r["zone"]) == ["down", "up"]
    assert [(u["after_season"], u["joined"]) for u in t1["updates"]] == [(0, ["x"]), (1, ["y", "z"])]


def test_update_errors_name_the_field_and_change_nothing(tmp_path: Path, store: Any) -> None:
    ids = [f"e{i}" for i in range(8)]
    league.create(write(tmp_path / "cl.toml", calypso_doc(ids, [4, 4])), store)
    before = league.league_info(store, "cl")
    doc = calypso_doc(ids, [4, 4])
    doc["league"]["game"] = "auction"
    with pytest.raises(ConfigError, match=r"^league\.game: cannot change between seasons"):
        league.update(write(tmp_path / "g.toml", doc), store)
    doc = calypso_doc(ids, [4, 4])
    doc["entrants"][2]["bot"] = "heuristic"
    with pytest.raises(ConfigError, match=r"^entrants\[2\]: entrant 'e2' keeps its id but changes its bot"):
        league.update(write(tmp_path / "b.toml", doc), store)
    with pytest.raises(ConfigError, match=r"^entrants: 1 entrants have no division"):
        league.update(write(tmp_path / "s.toml", calypso_doc(ids + ["x"], [4, 4])), store)
    doc = calypso_doc(ids, [4, 4])
    doc["league"]["id"] = "other"
    with pytest.raises(league.LeagueNotFoundError, match="no league 'other'"):
        league.update(write(tmp_path / "o.toml", doc), store)
    assert league.league_info(store, "cl") == before


def test_cli_update(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli import app

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    ids = [f"e{i}" for i in range(8)]
    run = CliRunner()
    assert run.invoke(app, ["league", "create", str(write(tmp_path / "a.toml", calypso_doc(ids, [4, 4]))),
                            "--store", url]).exit_code == 0
    file = write(tmp_path / "b.toml", calypso_doc(ids[1:] + ["new"], [4, 4]))
    r = run.invoke(app, ["league", "update", str(file), "--store", url, "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert (data["joined"], data["left"]) == (["new"], ["e0"])
    assert [d["entrants"] for d in data["divisions"]] == [ids[1:5], ids[5:] + ["new"]]
    r = run.invoke(app, ["league", "update", str(file), "--store", url])
    assert r.exit_code == 0 and "unchanged" in r.output
    bad = calypso_doc(ids[1:] + ["new"], [4, 4])
    bad["entrants"][0]["bot"] = "heuristic"
    r = run.invoke(app, ["league", "update", str(write(tmp_path / "c.toml", bad)), "--store", url])
    assert r.exit_code == 2 and r.stderr.startswith("arena league update: error: entrants[0]: ")


def test_a_schedule_in_the_file_plays_rounds_when_due(tmp_path: Path, store: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.tournaments.conductor import Conductor
    from arena.tournaments.swiss import SwissFormat

    doc = calypso_doc([f"e{i}" for i in range(8)], [4, 4])
    doc["divisions"][1].update(format="swiss", rounds=2)
    doc["league"]["round_every"] = 3600
    league.create(write(tmp_path / "s.toml", doc), store)
    start = league.season_start(store, "cl")
    tid = start["divisions"][1]["tournament"]
    swiss = store.tournament(tid).config["swiss"]
    assert swiss["round_every"] == 3600 and abs(swiss["start_at"] - __import__("time").time()) < 60
    league.play_round(store, "cl")  # round 0 of both divisions: due at the season's start
    assert store.tournament(tid).round == 0
    played = league.play_round(store, "cl")["played"]  # round 1 is not due: nothing to play
    assert [(p["tournament"], p["matches"]) for p in played] == [(tid, 0)]
    assert store.tournament(tid).round == 0 and store.tournament(tid).status != "done"
    assert not Conductor(store).reconcile(tid)[0].finished  # the conductor keeps it open
    monkeypatch.setattr(SwissFormat, "clock", staticmethod(lambda: swiss["start_at"] + 3600))
    played = league.play_round(store, "cl")["played"]
    assert store.tournament(tid).round == 1 and played[0]["matches"] > 0
    assert store.tournament(tid).status == "done"
    league.season_end(store, "cl")
    bad = calypso_doc([f"e{i}" for i in range(8)], [4, 4])
    bad["league"]["round_every"] = "daily"
    with pytest.raises(ConfigError, match=r"^league\.round_every: must be a positive number of seconds"):
        parse_league(bad)
