"""Every dashboard route through FastAPI's TestClient: status codes, content and the
hidden-cards rule (no hand of a match is shown before its record ended)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from arena.dashboard.replay import public_private, replay_views
from arena.records.record import MatchRecord
from arena.records.record import loads as load_record

GAMES = ("bridge", "canasta", "calypso", "rummy", "auction")


def test_health(client: Any) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.text == "ok"


def test_tournaments_list(client: Any, dashboard_store: dict[str, Any]) -> None:
    r = client.get("/")
    assert r.status_code == 200
    for game in GAMES:
        assert f'data-id="example-{game}"' in r.text
    assert 'data-id="live-bridge"' in r.text
    assert "/static/progress.js" in r.text and "https://" not in r.text  # local assets only


def test_api_tournaments_progress(client: Any, dashboard_store: dict[str, Any]) -> None:
    rows = {t["id"]: t for t in client.get("/api/tournaments").json()}
    assert rows["example-bridge"]["done"] == rows["example-bridge"]["total"] == 8
    assert rows["example-bridge"]["status"] == "done"
    live = rows["live-bridge"]
    assert (live["done"], live["total"], live["status"]) == (3, 8, "running")
    assert live["counts"]["leased"] == 1 and live["counts"]["pending"] == 4


@pytest.mark.parametrize("game", GAMES)
def test_tournament_page(client: Any, game: str) -> None:
    r = client.get(f"/tournaments/example-{game}")
    assert r.status_code == 200
    assert 'id="standings"' in r.text and 'id="matches"' in r.text
    assert r.text.count('class="match-link"') >= 6
    assert "records.jsonl" in r.text
    assert ("records.pbn" in r.text) == (game == "bridge")


def test_standings_per_format(client: Any) -> None:
    bridge = client.get("/api/tournaments/example-bridge").json()["standings"]
    assert bridge["kind"] == "duplicate_teams" and ["net_imps", "net IMPs"] in bridge["columns"]
    assert "IMPs" in client.get("/tournaments/example-bridge").text
    calypso = client.get("/api/tournaments/example-calypso").json()["standings"]
    assert calypso["kind"] == "duplicate_seats"
    assert client.get("/api/tournaments/example-canasta").json()["standings"]["kind"] == "round_robin"
    assert client.get("/api/tournaments/example-rummy").json()["standings"]["kind"] == "gauntlet"
    live = client.get("/tournaments/live-bridge").text
    assert "provisional" in live and "badge running" in live


def test_unknown_tournament(client: Any) -> None:
    r = client.get("/tournaments/nope")
    assert r.status_code == 404 and "no tournament" in r.text
    assert client.get("/api/tournaments/nope").status_code == 404
    assert client.get("/tournaments/nope/records.jsonl").status_code == 404


def test_tournament_downloads(client: Any) -> None:
    r = client.get("/tournaments/example-bridge/records.jsonl")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    records = [load_record(line) for line in r.text.splitlines()]
    assert len(records) == 8 and all(rec.terminal and rec.game == "bridge" for rec in records)
    pbn = client.get("/tournaments/example-bridge/records.pbn")
    assert pbn.status_code == 200
    assert pbn.text.count('[Deal "') == 8 and '[Event "Bridge teams"]' in pbn.text
    assert client.get("/tournaments/example-rummy/records.pbn").status_code == 404
    # downloads hold finished records only: the live tournament has 2 of its 3 stored
    live = client.get("/tournaments/live-bridge/records.jsonl").text.splitlines()
    assert len(live) == 2


def test_ratings(client: Any) -> None:
    r = client.get("/ratings")
    assert r.status_code == 200
    assert r.text.count('class="ruleset"') == 5 and "±" in r.text
    api = client.get("/api/ratings").json()
    assert set(v["game"] for v in api.values()) == set(GAMES)
    for ruleset, v in api.items():
        assert all(row.get("bt_error") for row in v["rows"]), ruleset
        for chart in ("history", "errors"):
            svg = client.get(f"/ratings/{ruleset}/{chart}.svg")
            assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
            assert svg.text.lstrip().startswith("<?xml") and "<svg" in svg.text
    assert client.get("/ratings?game=bridge").text.count('class="ruleset"') == 1
    assert client.get("/ratings/nope@v1/history.svg").status_code == 404


def test_bots(client: Any, dashboard_store: dict[str, Any]) -> None:
    r = client.get("/bots")
    assert r.status_code == 200 and "/bots/heuristic" in r.text
    page = client.get("/bots/random")
    assert page.status_code == 200
    assert 'id="bot-faults"' in page.text and "timeout" in page.text  # the synthetic fault
    assert dashboard_store["live_fault"] in page.text
    assert 'id="no-faults"' in client.get("/bots/heuristic").text
    assert client.get("/bots/nobody").status_code == 404


@pytest.mark.parametrize("game", GAMES)
def test_finished_match_replay_reveals_every_hand(client: Any, dashboard_store: dict[str, Any],
                                                  game: str) -> None:
    _, match_id = dashboard_store["finished"][game]
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200 and 'id="replay"' in page.text and "/static/replay.js" in page.text
    data = client.get(f"/api/matches/{match_id}/replay").json()
    assert data["error"] is None and data["revealed"] is True and data["terminal"] is True
    record = MatchRecord.from_dict(json.loads(client.get(f"/matches/{match_id}/record.jsonl").text))
    assert len(data["steps"]) == len(record.actions) + 1
    assert data["steps"][-1]["terminal"] is True
    deal = data["steps"][0]
    hands = [seat["hand"] for seat in deal["seats"]]
    assert all(hands) and deal["hand_counts"] == [len(h) for h in hands]
    assert [s["action"]["text"] for s in data["steps"][1:]] == [a.action for a in record.actions]


def test_match_pbn(client: Any, dashboard_store: dict[str, Any]) -> None:
    _, bridge = dashboard_store["finished"]["bridge"]
    r = client.get(f"/matches/{bridge}/record.pbn")
    assert r.status_code == 200 and '[Deal "' in r.text and '[North "heuristic"]' in r.text
    _, rummy = dashboard_store["finished"]["rummy"]
    assert client.get(f"/matches/{rummy}/record.pbn").status_code == 404


CARD = re.compile(r'class="card')


def test_running_match_shows_no_hands(client: Any, dashboard_store: dict[str, Any]) -> None:
    """A match without a stored record (running or pending) has no replay and no cards."""
    for key in ("live_running", "live_pending"):
        match_id = dashboard_store[key]
        page = client.get(f"/matches/{match_id}")
        assert page.status_code == 200
        assert 'id="no-record"' in page.text and 'id="replay"' not in page.text
        assert not CARD.search(page.text)
        assert client.get(f"/api/matches/{match_id}/replay").status_code == 404
        assert client.get(f"/matches/{match_id}/record.jsonl").status_code == 404
        assert client.get(f"/matches/{match_id}/record.pbn").status_code == 404


def _cards_in(obj: Any) -> set[str]:
    text = json.dumps(obj)
    return set(re.findall(r'"((?:10|[2-9TJQKA])[CDHS])"', text))


def test_unfinished_record_shows_public_play_only(client: Any, dashboard_store: dict[str, Any]) -> None:
    match_id = dashboard_store["live_unfinished"]
    page = client.get(f"/matches/{match_id}")
    assert page.status_code == 200 and 'id="hidden-note"' in page.text and "dl-record" not in page.text
    data = client.get(f"/api/matches/{match_id}/replay").json()
    assert data["revealed"] is False and data["returns"] is None
    assert all("seats" not in step for step in data["steps"])
    # at the deal nothing is public, so no card at all is in the view
    assert _cards_in(data["steps"][0]) == set()
    assert client.get(f"/matches/{match_id}/record.jsonl").status_code == 404


def test_hidden_cards_never_in_unrevealed_views(dashboard_store: dict[str, Any]) -> None:
    """Unrevealed views of a whole bridge match never contain a card still in a
    non-dummy hand."""
    from arena.store import Store

    store = Store(dashboard_store["url"])
    record = store.record(dashboard_store["finished"]["bridge"][1])
    assert record is not None
    full = replay_views(record)
    hidden = replay_views(MatchRecord.from_dict({**record.to_dict(), "terminal": False}))
    assert hidden["revealed"] is False
    for shown, step in zip(full["steps"], hidden["steps"]):
        dummy = step["public"].get("dummy")
        held = set()
        for seat, priv in enumerate(shown["seats"]):
            if seat != dummy or not step["public"].get("dummy_hand"):
                held |= set(priv.get("hand", []))
        public = {k: v for k, v in step["public"].items() if k != "auction"}  # calls look like cards
        assert not (held & _cards_in(public)), step["step"]
        assert "seats" not in step
    store.dispose()


def test_public_private_split() -> None:
    pub, priv = public_private([{"seat": 0, "hand": ["AS"], "pile": ["2C"]},
                                {"seat": 1, "hand": ["KH"], "pile": ["2C"]}])
    assert pub == {"pile": ["2C"]} and priv == [{"hand": ["AS"]}, {"hand": ["KH"]}]


def test_static_assets(client: Any) -> None:
    for name, kind in (("style.css", "text/css"), ("replay.js", "javascript"), ("progress.js", "javascript")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    assert client.get("/matches/nope").status_code == 404
