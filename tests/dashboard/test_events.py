"""The event pages and their JSON: Swiss rounds, ladders (live), leagues, bridge
travellers, and strict JSON everywhere (no NaN; ``null`` where undefined). Each view
is checked against what the tournament modules themselves compute."""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.store import Store
from arena.tournaments import league, service

from .store_fixture import EXAMPLES, _register_rounds, play_rounds


def strict_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and ``-Infinity``."""
    def bad(token: str) -> Any:
        raise ValueError(f"not strict JSON: {token}")
    return json.loads(text, parse_constant=bad)


@pytest.fixture(scope="module")
def store(dashboard_store: dict[str, Any]) -> Any:
    s = Store(dashboard_store["url"])
    yield s
    s.dispose()


# -- strict JSON -------------------------------------------------------------------------------

def test_every_json_endpoint_is_strict(client: Any, dashboard_store: dict[str, Any]) -> None:
    f = dashboard_store
    urls = ["/api/tournaments", "/api/ratings", "/api/leagues", f"/api/leagues/{f['league']}",
            f"/api/leagues/{f['league']}?season=1", f"/api/tournaments/{f['swiss']}/swiss",
            f"/api/tournaments/{f['ladder']}/ladder", f"/api/tournaments/{f['live_ladder']}/ladder",
            "/api/tournaments/example-bridge/travellers", f"/api/tournaments/{f['pairs']}/travellers"]
    urls += [f"/api/tournaments/{t['id']}" for t in client.get("/api/tournaments").json()]
    urls += [f"/api/matches/{m}/replay" for _, m in f["finished"].values()]
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.headers["content-type"].startswith("application/json"), url
        strict_json(r.text)


def test_undefined_numbers_are_null() -> None:
    from arena.dashboard.app import StrictJSONResponse

    body = StrictJSONResponse({"a": math.nan, "b": [1.5, math.inf, -math.inf], "c": {"d": None}}).body
    assert strict_json(body.decode()) == {"a": None, "b": [1.5, None, None], "c": {"d": None}}


# -- Swiss ---------------------------------------------------------------------------------------

def test_swiss_rounds_match_the_format(client: Any, store: Any, dashboard_store: dict[str, Any]) -> None:
    tid = dashboard_store["swiss"]
    view = client.get(f"/api/tournaments/{tid}/swiss").json()
    st = service.standings(store, tid)
    assert [r["round"] for r in view["rounds"]] == [1, 2, 3] == [r["round"] + 1 for r in st.details["rounds"]]
    for mine, theirs, after in zip(view["rounds"], st.details["rounds"], st.details["after_round"]):
        assert [e["sides"] for e in mine["encounters"]] == [e["sides"] for e in theirs["encounters"]]
        assert [e["results"] for e in mine["encounters"]] == [e["results"] for e in theirs["encounters"]]
        assert mine["byes"] == theirs["byes"] and len(mine["byes"]) == 1  # 5 entrants: one bye a round
        assert [(r["entrant"], r["points"]) for r in mine["standings"]] == \
            [(r["entrant"], r["points"]) for r in after]
        assert all(e["status"] == "done" for e in mine["encounters"]) and mine["complete"]
    final = view["rounds"][-1]["standings"]
    keys = [k for k, _ in view["tiebreaks"]]
    assert keys == ["buchholz", "median_buchholz", "sonneborn_berger", "head_to_head"]
    assert [[r["entrant"], r["points"], *[r[k] for k in keys]] for r in final] == \
        [[r["entrant"], r["points"], *[r[k] for k in keys]] for r in st.rows]
    page = client.get(f"/tournaments/{tid}").text
    assert page.count('class="swiss-round"') == 3 and "Standings after round 2" in page
    for name in ("Buchholz", "median Buchholz", "Sonneborn-Berger", "head to head"):
        assert name in page
    assert "has a bye" in page
    assert client.get("/api/tournaments/example-bridge/swiss").status_code == 404


def test_swiss_round_in_play_shows_its_pairings(tmp_path: Path) -> None:
    """A round whose matches are not recorded yet lists its pairings, marked pending."""
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app

    url = f"sqlite:///{tmp_path / 'swiss.db'}"
    s = Store(url)
    s.migrate()
    tid = _register_rounds(s, tomllib.loads((EXAMPLES / "swiss.toml").read_text(encoding="utf-8")))
    with TestClient(create_app(url)) as c:
        view = c.get(f"/api/tournaments/{tid}/swiss").json()
        assert len(view["rounds"]) == 1 and not view["rounds"][0]["complete"]
        assert {e["status"] for e in view["rounds"][0]["encounters"]} == {"pending"}
        assert all(e["results"] == {} for e in view["rounds"][0]["encounters"])
        play_rounds(s, tid, rounds=1)
        view = c.get(f"/api/tournaments/{tid}/swiss").json()
        assert view["rounds"][0]["complete"] and len(view["rounds"]) == 2  # round 2 paired, not played
        assert {e["status"] for e in view["rounds"][1]["encounters"]} == {"pending"}
    s.dispose()


# -- ladder --------------------------------------------------------------------------------------

def test_ladder_leaderboard_is_the_ladders_fit(client: Any, store: Any, dashboard_store: dict[str, Any]) -> None:
    tid = dashboard_store["ladder"]
    view = client.get(f"/api/tournaments/{tid}/ladder").json()
    st = service.standings(store, tid)
    assert [r["entrant"] for r in view["rows"]] == [r["entrant"] for r in st.rows]
    for mine, theirs in zip(view["rows"], st.rows):
        for key in ("rating", "error", "low", "high", "games", "encounters"):
            assert mine[key] == pytest.approx(theirs[key]), key
    assert view["encounters"] == view["played"] == 12 and view["finished"]
    assert len(view["recent"]) == 12 and view["recent"][0]["encounter"] == 12
    assert all(e["status"] == "done" and e["deals"] == 1 for e in view["recent"])
    assert all(e["result"]["unit"] == "IMPs" for e in view["recent"])
    page = client.get(f"/tournaments/{tid}").text
    assert 'id="leaderboard"' in page and page.count('class="interval"') == 6
    assert "/static/ladder.js" in page and 'id="recent"' in page


def test_ladder_page_is_live(tmp_path: Path) -> None:
    """Its JSON follows the store: no games yet (ratings null), then after each batch."""
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app

    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    s = Store(url)
    s.migrate()
    raw = tomllib.loads((EXAMPLES / "ladder.toml").read_text(encoding="utf-8"))
    raw["tournament"]["id"] = "ladder-followed"  # the ladder module keeps state per tournament id
    tid = _register_rounds(s, raw)
    with TestClient(create_app(url)) as c:
        r = c.get(f"/api/tournaments/{tid}/ladder")
        assert '"rating":null' in r.text and "NaN" not in r.text
        first = strict_json(r.text)
        assert first["played"] == 0 and all(row["rating"] is None for row in first["rows"])
        assert not first["finished"] and first["scale"] is None
        assert "no games yet" in c.get(f"/tournaments/{tid}").text
        play_rounds(s, tid, rounds=1)
        second = c.get(f"/api/tournaments/{tid}/ladder").json()
        assert second["played"] == 3 and all(row["rating"] is not None for row in second["rows"])
        play_rounds(s, tid)
        third = c.get(f"/api/tournaments/{tid}/ladder").json()
        assert third["played"] == 12 and third["finished"]
        assert [row["games"] for row in third["rows"]] != [row["games"] for row in second["rows"]]
    s.dispose()


# -- travellers ----------------------------------------------------------------------------------

def test_team_travellers_agree_with_standings_and_pbn(client: Any, store: Any) -> None:
    from arena.records.pbn import record_games

    trav = client.get("/api/tournaments/example-bridge/travellers").json()
    assert trav["scoring"] == "teams" and len(trav["boards"]) == 4 and trav["more"] == 0
    st = service.standings(store, "example-bridge")
    imps = {(b["table"], b["deal"]): b["imps"] for b in st.details["boards"]}
    for b in trav["boards"]:
        assert b["board"] == b["deal"] + 1 and b["dealer"] in "NESW"
        assert b["vulnerable"] in ("None", "N-S", "E-W", "Both")
        for t in b["tables"]:
            assert [r["room"] for r in t["rows"]] == ["open", "closed"]
            assert t["imps"] == imps[(t["table"], b["deal"])]
            for r in t["rows"]:
                record = store.record(r["match_id"])
                tags = record_games(record)[0].tags
                assert (r["contract"], r["declarer"] or "") == (tags["Contract"], tags["Declarer"])
                assert str(r["tricks"]) == tags["Result"] and f"NS {r['score']}" == tags["Score"]
                assert r["ns"] == record.seats[0] and r["ew"] == record.seats[1]
    page = client.get("/tournaments/example-bridge").text
    assert page.count('class="traveller"') == 4 and "IMPs per table" in page


def test_pairs_travellers_matchpoints_add_up_to_the_standings(client: Any, store: Any,
                                                              dashboard_store: dict[str, Any]) -> None:
    tid = dashboard_store["pairs"]
    trav = client.get(f"/api/tournaments/{tid}/travellers").json()
    assert trav["scoring"] == "matchpoints"
    total: dict[str, float] = {}
    for b in trav["boards"]:
        lines = [r for t in b["tables"] for r in t["rows"]]
        assert len(lines) == 3 and b["top"] == 4.0
        for r in lines:
            assert r["ns_points"] + r["ew_points"] == b["top"]
            total[r["ns"]] = total.get(r["ns"], 0.0) + r["ns_points"]
            total[r["ew"]] = total.get(r["ew"], 0.0) + r["ew_points"]
    st = service.standings(store, tid)
    assert {r["entrant"]: r["matchpoints"] for r in st.rows} == total
    page = client.get(f"/tournaments/{tid}").text
    assert "N-S MP" in page and "matchpoints across the field" in page


def test_ladder_travellers_are_newest_first(client: Any, dashboard_store: dict[str, Any]) -> None:
    trav = client.get(f"/api/tournaments/{dashboard_store['ladder']}/travellers?limit=5").json()
    assert [b["encounter"] for b in trav["boards"]] == [11, 10, 9, 8, 7] and trav["more"] == 7
    assert all(t["imps"] is not None for b in trav["boards"] for t in b["tables"])


# -- leagues -------------------------------------------------------------------------------------

def test_leagues_list(client: Any, dashboard_store: dict[str, Any]) -> None:
    lid = dashboard_store["league"]
    rows = client.get("/api/leagues").json()
    assert [r["id"] for r in rows] == [lid] and rows[0]["season"] == 3 and rows[0]["state"] == "running"
    assert rows[0]["divisions"] == dashboard_store["league_divisions"]
    page = client.get("/leagues")
    assert page.status_code == 200 and f'href="/leagues/{lid}"' in page.text
    assert 'href="/leagues"' in client.get("/").text  # in the navigation


def test_league_season_tables_zones_and_moves(client: Any, store: Any, dashboard_store: dict[str, Any]) -> None:
    lid = dashboard_store["league"]
    view = client.get(f"/api/leagues/{lid}?season=1").json()
    theirs = league.table(store, lid, 1)
    assert view["season"] == 1 and view["seasons"] == [1, 2, 3] and view["season_ended"]
    assert [d["division"] for d in view["divisions"]] == ["premier", "championship"]
    for mine, t in zip(view["divisions"], theirs["divisions"]):
        assert [(r["entrant"], r["zone"]) for r in mine["rows"]] == [(r["entrant"], r["zone"]) for r in t["rows"]]
    premier, champ = view["divisions"]
    assert [r["zone"] for r in premier["rows"]] == ["", "", "", "down"] and premier["relegate"] == 1
    assert [r["zone"] for r in champ["rows"]] == ["up", "", "", ""] and champ["promote"] == 1
    assert view["moves"] == theirs["moves"] and {m["move"] for m in view["moves"]} == {"up", "down"}
    history = league.league_info(store, lid)["history"]["seasons"]
    assert [m["entrant"] for m in view["moves"]] == [m["entrant"] for m in history[0]["moves"]]
    # the all-time table: every entrant, its division and place in each ended season
    assert {a["entrant"] for a in view["all_time"]} == {r["entrant"] for r in premier["rows"] + champ["rows"]}
    for a in view["all_time"]:
        assert [h["season"] for h in a["by_season"] if h] == [1, 2] and a["by_season"][2] is None
    assert view["ratings"] and all(math.isfinite(r["rating"]) for r in view["ratings"])
    page = client.get(f"/leagues/{lid}?season=1").text
    assert page.count('class="zone-up"') == 1 and page.count('class="zone-down"') == 1
    assert 'id="moves"' in page and 'id="all-time"' in page and "promotion zone: the top 1" in page
    assert page.count('data-season="') == 3


def test_league_running_season_and_errors(client: Any, dashboard_store: dict[str, Any]) -> None:
    lid = dashboard_store["league"]
    view = client.get(f"/api/leagues/{lid}").json()
    assert view["season"] == 3 and not view["season_ended"] and view["moves"] == []
    assert [d["status"] for d in view["divisions"]] == ["done", "pending"]  # round robin: one round
    page = client.get(f"/leagues/{lid}").text
    assert "in play" in page and "Divisions of the running season" in page
    assert client.get("/leagues/nope").status_code == 404
    assert client.get("/api/leagues/nope").status_code == 404
    assert client.get(f"/api/leagues/{lid}?season=9").status_code == 404
    division = client.get(f"/tournaments/{lid}.s1.premier").text
    assert 'id="league-crumb"' in division and f"/leagues/{lid}?season=1" in division


def test_league_without_a_season(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app

    url = f"sqlite:///{tmp_path / 'lg.db'}"
    s = Store(url)
    s.migrate()
    cfg = league.create(EXAMPLES / "leagues" / "calypso.toml", s)
    with TestClient(create_app(url)) as c:
        view = c.get(f"/api/leagues/{cfg.id}").json()
        assert view["season"] is None and view["seasons"] == [] and len(view["members"]) == 2
        assert 'id="no-season"' in c.get(f"/leagues/{cfg.id}").text
    s.dispose()


# -- names -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["canasta", "rummy", "auction"])
def test_seats_are_named_by_entrants(client: Any, dashboard_store: dict[str, Any], game: str) -> None:
    _, match_id = dashboard_store["finished"][game]
    data = client.get(f"/api/matches/{match_id}/replay").json()
    labels = data["seat_labels"]
    assert len(set(labels)) == len(labels)
    for label, entrant in zip(labels, data["seats"]):
        assert label == entrant or label.startswith(entrant + " #")
    for step in data["steps"]:
        assert not re.search(r"(?<![#\w])[0-3](?:\+[0-3])?:", step["status"]), step["status"]  # "0+2: 550"
        assert "seat " not in step["status"]
        for line in step["public"].get("log", []):
            if isinstance(line, str):
                assert not re.match(r"^\d+ ", line) and not re.search(r"(dealer|: )\d+ (deals|turns)", line), line
    page = client.get(f"/matches/{match_id}").text
    for label in labels:
        assert f">{label}</a>" in page
    if game == "canasta":
        assert data["side_labels"] == ["heuristic", "random"]


def test_bridge_replay_shows_the_deal_at_the_end(client: Any, dashboard_store: dict[str, Any]) -> None:
    _, match_id = dashboard_store["finished"]["bridge"]
    data = client.get(f"/api/matches/{match_id}/replay").json()
    deal = [s["hand"] for s in data["steps"][0]["seats"]]
    end = data["steps"][-1]
    assert end["public"]["phase"] == "over" and end["dealt"] == deal
    assert sorted(c for h in end["dealt"] for c in h) == sorted(c for h in deal for c in h)
    assert all("dealt" not in s for s in data["steps"][:-1])
    unfinished = client.get(f"/api/matches/{dashboard_store['live_unfinished']}/replay").json()
    assert all("dealt" not in s for s in unfinished["steps"])
