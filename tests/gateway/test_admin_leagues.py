"""AdminService league calls over real gRPC on loopback, against a real
:class:`Gateway` on a real store (SQLite file and PostgreSQL): a league created
through the RPCs plays two seasons (one round at a time, then every round), with
entrants joining and leaving between them, and what the RPCs report equals what
``arena league table`` computes from the same store. Wrong-time commands and bad
files are refused with the status codes the proto documents, changing nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.admin.v1 import admin_pb2 as S
from arena.admin.v1 import admin_pb2_grpc
from arena.gateway import Gateway
from arena.tournaments import league
from arena.tournaments.executors import open_store
from gateway.conftest import AUTH

ENTRANTS = [("sharp", "heuristic"), ("keen", "heuristic?noise=0.1"), ("steady", "heuristic?noise=0.2"),
            ("shaky", "heuristic?noise=0.5"), ("loose", "heuristic?noise=0.6"), ("wild", "heuristic?noise=0.8"),
            ("dice", "random"), ("lucky", "random")]


def league_toml(entrants: list[tuple[str, str]] = ENTRANTS, sizes: tuple[int, int] = (4, 4), *,
                deals: int = 1) -> str:
    """A calypso league: a round robin premier over a 2-round Swiss championship,
    one up and one down."""
    lines = ['[league]', 'id = "gl"', 'name = "gRPC league"', 'game = "calypso"', f'deals = {deals}',
             'seed = 5', 'deadline_ms = 5000',
             '[[divisions]]', 'name = "premier"', f'size = {sizes[0]}', 'format = "round_robin"', 'relegate = 1',
             '[[divisions]]', 'name = "championship"', f'size = {sizes[1]}', 'format = "swiss"', 'rounds = 2',
             'promote = 1']
    for eid, bot in entrants:
        lines += ['[[entrants]]', f'id = "{eid}"', f'bot = "{bot}"']
    return "\n".join(lines) + "\n"


@pytest.fixture
def store_url(tmp_path: Any) -> str:
    """SQLite only here (the league rows are the store's own tests' business; this
    keeps the gRPC test's time down)."""
    return f"sqlite:///{tmp_path / 'leagues.db'}"


@pytest.fixture
def admin(store_gateway: Gateway) -> Iterator[Any]:
    with grpc.insecure_channel(store_gateway.target) as channel:
        yield admin_pb2_grpc.AdminServiceStub(channel)


def refused(call: Any, request: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as exc:
        call(request, metadata=AUTH)
    return exc.value


def wait_idle(admin: Any, tids: list[str], timeout: float = 120.0) -> list[Any]:
    """Poll GetTournament until this gateway plays none of ``tids``."""
    end = time.monotonic() + timeout
    while True:
        ts = [admin.GetTournament(S.GetTournamentRequest(tournament_id=t), metadata=AUTH).tournament
              for t in tids]
        for t in ts:
            assert not t.errors, t.errors
        if not any(t.running_on_gateway for t in ts):
            return ts
        assert time.monotonic() < end, f"still playing after {timeout} s: {ts}"
        time.sleep(0.1)


def same_table(reply: Any, expected: dict[str, Any]) -> None:
    """GetLeagueTable's reply carries what ``league.table`` (``arena league table --json``) says."""
    assert (reply.league_id, reply.name, reply.season, reply.current_season) == (
        expected["league"], expected["name"], expected["season"], expected["current_season"])
    assert reply.state == {"between": S.LEAGUE_STATE_BETWEEN, "running": S.LEAGUE_STATE_RUNNING}[expected["state"]]
    assert [d.division for d in reply.divisions] == [d["division"] for d in expected["divisions"]]
    for div, exp in zip(reply.divisions, expected["divisions"]):
        assert div.tournament_id == exp["tournament"] and div.title == exp["title"]
        assert [(c.key, c.label) for c in div.columns] == [tuple(c) for c in exp["columns"]]
        assert [(r.row.entrant_id, r.row.rank, r.zone) for r in div.rows] == [
            (r["entrant"], r["rank"], r["zone"]) for r in exp["rows"]]
    assert [(m.entrant_id, m.from_division, m.to_division, m.move) for m in reply.moves] == [
        (m["entrant"], m["from"], m["to"], m["move"]) for m in expected["moves"]]
    assert [(a.entrant_id, a.seasons, a.best_division, [(h.season, h.division, h.place) for h in a.history])
            for a in reply.all_time] == [
        (a["entrant"], a["seasons"], a["best_division"], [(h["season"], h["division"], h["place"])
                                                          for h in a["history"]]) for a in expected["all_time"]]
    if expected["ratings"] and "rating" not in expected["ratings"][0]:  # no fit (divisions never met)
        assert not reply.ratings and reply.ratings_note == expected["ratings"][0]["error"]
    else:
        assert not reply.ratings_note
        assert [(r.entrant_id, round(r.rating, 6), round(r.interval, 6), r.games) for r in reply.ratings] == [
            (r["bot"], round(r["rating"], 6), round(r["error"], 6), r["games"]) for r in expected["ratings"]]
    assert [(u.after_season, list(u.joined), list(u.left)) for u in reply.updates] == [
        (u["after_season"], u["joined"], u["left"]) for u in expected["updates"]]


def test_league_seasons_over_grpc(admin: Any, store_url: str) -> None:
    store = open_store(store_url)
    # -- create: idempotent; bad files name the field
    created = admin.CreateLeague(S.CreateLeagueRequest(config_toml=league_toml()), metadata=AUTH)
    assert created.created
    lg = created.league
    assert (lg.league_id, lg.name, lg.game, lg.season, lg.state) == ("gl", "gRPC league", "calypso", 0,
                                                                      S.LEAGUE_STATE_BETWEEN)
    assert [(d.name, d.size, d.format, d.rounds, d.promote, d.relegate, list(d.entrant_ids), d.tournament_id)
            for d in lg.divisions] == [
        ("premier", 4, "round_robin", 0, 0, 1, [e for e, _ in ENTRANTS[:4]], ""),
        ("championship", 4, "swiss", 2, 1, 0, [e for e, _ in ENTRANTS[4:]], "")]
    again = admin.CreateLeague(S.CreateLeagueRequest(config_toml=league_toml()), metadata=AUTH)
    assert not again.created and again.league == lg
    err = refused(admin.CreateLeague, S.CreateLeagueRequest(config_toml=league_toml(deals=2)))
    assert err.code() == grpc.StatusCode.ALREADY_EXISTS and "arena league update" in err.details()
    err = refused(admin.CreateLeague, S.CreateLeagueRequest(config_toml=league_toml(sizes=(4, 5))))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert err.details().startswith("divisions[1].size: 5 is larger than the 4 entrants left for it")
    err = refused(admin.CreateLeague, S.CreateLeagueRequest(config_toml="[league\n"))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and err.details().startswith("config_toml: invalid TOML")
    err = refused(admin.CreateLeague, S.CreateLeagueRequest(config_toml=" "))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [x.league_id for x in admin.ListLeagues(S.ListLeaguesRequest(), metadata=AUTH).leagues] == ["gl"]
    assert admin.GetLeague(S.GetLeagueRequest(league_id="gl"), metadata=AUTH).league == lg
    for call, request in ((admin.GetLeague, S.GetLeagueRequest(league_id="nope")),
                          (admin.StartSeason, S.StartSeasonRequest(league_id="nope")),
                          (admin.GetLeagueTable, S.GetLeagueTableRequest(league_id="nope"))):
        assert refused(call, request).code() == grpc.StatusCode.NOT_FOUND
    assert refused(admin.GetLeague, S.GetLeagueRequest()).code() == grpc.StatusCode.INVALID_ARGUMENT

    # -- wrong time: refused, nothing changed
    before = league.league_info(store, "gl")
    for call, request, text in (
            (admin.PlayLeagueRound, S.PlayLeagueRoundRequest(league_id="gl"), "between seasons"),
            (admin.EndSeason, S.EndSeasonRequest(league_id="gl"), "between seasons")):
        err = refused(call, request)
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and text in err.details()
    err = refused(admin.GetLeagueTable, S.GetLeagueTableRequest(league_id="gl"))
    assert err.code() == grpc.StatusCode.NOT_FOUND and "no season yet" in err.details()
    assert league.league_info(store, "gl") == before

    # -- season 1, one round at a time
    start = admin.StartSeason(S.StartSeasonRequest(league_id="gl"), metadata=AUTH)
    assert start.season == 1 and start.league.state == S.LEAGUE_STATE_RUNNING
    tids = [d.tournament_id for d in start.league.divisions]
    assert tids == ["gl.s1.premier", "gl.s1.championship"]
    assert list(start.first_round_matches) == [
        store.progress(t)[1] for t in tids]  # stored with their first round, nothing played
    assert all(store.progress(t)[0] == 0 for t in tids)
    err = refused(admin.StartSeason, S.StartSeasonRequest(league_id="gl"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "is running" in err.details()
    err = refused(admin.UpdateLeague, S.UpdateLeagueRequest(config_toml=league_toml()))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "between seasons" in err.details()
    err = refused(admin.EndSeason, S.EndSeasonRequest(league_id="gl"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "not finished" in err.details()
    err = refused(admin.PlayLeagueRound, S.PlayLeagueRoundRequest(league_id="gl",
                                                                 execution=S.EXECUTION_DISTRIBUTED))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "all_rounds" in err.details()

    first = admin.PlayLeagueRound(S.PlayLeagueRoundRequest(league_id="gl"), metadata=AUTH)
    assert first.execution == S.EXECUTION_EMBEDDED and first.season == 1
    assert [(d.tournament_id, d.round) for d in first.divisions] == [(tids[0], 0), (tids[1], 0)]
    assert [d.matches_started for d in first.divisions] == list(start.first_round_matches)
    premier, swiss = wait_idle(admin, tids)
    assert premier.status == S.TOURNAMENT_STATUS_DONE  # a round robin is one round
    # the Swiss played round 0 only; round 1 is paired and waits for the next call
    assert store.tournament(tids[1]).round == 1 and swiss.matches_done == start.first_round_matches[1]
    assert swiss.matches_pending == swiss.matches_total - swiss.matches_done > 0
    same_table(admin.GetLeagueTable(S.GetLeagueTableRequest(league_id="gl"), metadata=AUTH),
               league.table(store, "gl"))
    second = admin.PlayLeagueRound(S.PlayLeagueRoundRequest(league_id="gl"), metadata=AUTH)
    assert [(d.tournament_id, d.round) for d in second.divisions] == [(tids[1], 1)]  # premier is done
    wait_idle(admin, tids)
    assert store.tournament(tids[1]).status == "done"
    err = refused(admin.PlayLeagueRound, S.PlayLeagueRoundRequest(league_id="gl"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "played out" in err.details()
    table1 = admin.GetLeagueTable(S.GetLeagueTableRequest(league_id="gl"), metadata=AUTH)
    zones = [[r.zone for r in d.rows] for d in table1.divisions]
    assert zones == [["", "", "", "down"], ["up", "", "", ""]]  # the running season: zones its end applies
    same_table(table1, league.table(store, "gl"))
    ended = admin.EndSeason(S.EndSeasonRequest(league_id="gl"), metadata=AUTH)
    assert ended.season == 1 and ended.league.state == S.LEAGUE_STATE_BETWEEN
    down = table1.divisions[0].rows[-1].row.entrant_id
    up = table1.divisions[1].rows[0].row.entrant_id
    assert [(m.entrant_id, m.from_division, m.to_division, m.move) for m in ended.moves] == [
        (down, "premier", "championship", "down"), (up, "championship", "premier", "up")]
    assert up in ended.league.divisions[0].entrant_ids and down in ended.league.divisions[1].entrant_ids

    # -- between seasons: "steady" leaves, "fresh" joins (and starts at the bottom)
    changed = [e for e in ENTRANTS if e[0] != "steady"] + [("fresh", "heuristic?noise=0.3")]
    upd = admin.UpdateLeague(S.UpdateLeagueRequest(config_toml=league_toml(changed)), metadata=AUTH)
    assert upd.changed and list(upd.joined) == ["fresh"] and list(upd.left) == ["steady"]
    nxt = [list(d.entrant_ids) for d in upd.league.divisions]
    assert "steady" not in sum(nxt, []) and nxt[1][-1] == "fresh" and [len(x) for x in nxt] == [4, 4]
    assert nxt == [d["entrants"] for d in league.league_info(store, "gl")["divisions"]["divisions"]]
    again_upd = admin.UpdateLeague(S.UpdateLeagueRequest(config_toml=league_toml(changed)), metadata=AUTH)
    assert not again_upd.changed and again_upd.league == upd.league
    swapped = [(e, "random" if e == "sharp" else b) for e, b in changed]
    err = refused(admin.UpdateLeague, S.UpdateLeagueRequest(config_toml=league_toml(swapped)))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and err.details().startswith("entrants[0]: ")

    # -- season 2, every round at once
    start2 = admin.StartSeason(S.StartSeasonRequest(league_id="gl"), metadata=AUTH)
    assert start2.season == 2 and [list(d.entrant_ids) for d in start2.league.divisions] == nxt
    tids2 = [d.tournament_id for d in start2.league.divisions]
    played = admin.PlayLeagueRound(S.PlayLeagueRoundRequest(league_id="gl", all_rounds=True), metadata=AUTH)
    assert played.execution == S.EXECUTION_EMBEDDED  # no Redis: on the gateway's machine
    assert all(t.status == S.TOURNAMENT_STATUS_DONE for t in wait_idle(admin, tids2))
    admin.EndSeason(S.EndSeasonRequest(league_id="gl"), metadata=AUTH)
    for season in (0, 1, 2):
        reply = admin.GetLeagueTable(S.GetLeagueTableRequest(league_id="gl", season=season), metadata=AUTH)
        same_table(reply, league.table(store, "gl", season or None))
    last = admin.GetLeagueTable(S.GetLeagueTableRequest(league_id="gl"), metadata=AUTH)
    assert last.season == 2 and {a.entrant_id for a in last.all_time} == {e for e, _ in ENTRANTS} | {"fresh"}
    assert {r.entrant_id for r in last.ratings} == {e for e, _ in ENTRANTS} | {"fresh"}  # over both seasons
    assert [(u.after_season, list(u.joined), list(u.left)) for u in last.updates] == [(1, ["fresh"], ["steady"])]
    err = refused(admin.GetLeagueTable, S.GetLeagueTableRequest(league_id="gl", season=3))
    assert err.code() == grpc.StatusCode.NOT_FOUND and "seasons 1..2" in err.details()


def test_league_calls_need_a_store_and_the_token(gateway: Gateway) -> None:
    with grpc.insecure_channel(gateway.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        with pytest.raises(grpc.RpcError) as exc:
            admin.ListLeagues(S.ListLeaguesRequest(), metadata=(("authorization", "Bearer nope"),))
        assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
        err = refused(admin.CreateLeague, S.CreateLeagueRequest(config_toml=league_toml()))
        assert err.code() == grpc.StatusCode.FAILED_PRECONDITION and "no store" in err.details()
