"""AdminService tournaments, standings and ratings over real gRPC on loopback,
against a real :class:`Gateway` on a real store (SQLite file and PostgreSQL):
a tournament created through the RPC is played embedded to its end, and what
the RPCs report equals what the CLI (``arena standings``, ``arena ratings``) and
the dashboard compute from the same store."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from typer.testing import CliRunner

from arena.admin.v1 import admin_pb2, admin_pb2_grpc
from arena.cli import app
from arena.gateway import Gateway
from arena.gateway.admin import tournament_status
from arena.tournaments import service
from arena.tournaments.executors import open_store
from gateway.conftest import AUTH
from gateway.helpers import BotThread
from gateway.tournament_helpers import CountingBot, calypso, wait_done

S = admin_pb2

@pytest.fixture
def admin(store_gateway: Gateway) -> Iterator[Any]:
    with grpc.insecure_channel(store_gateway.target) as channel:
        yield admin_pb2_grpc.AdminServiceStub(channel)


def _cli_ratings(store_url: str, tid: str, tmp_path: Path, system: str) -> dict[str, Any]:
    records = tmp_path / f"{tid}.jsonl"
    with open(records, "w", encoding="utf-8") as fp:
        service.export(open_store(store_url), tid, fp)
    res = CliRunner().invoke(app, ["ratings", "calypso", "--records", str(records), "--format", "json",
                                   "--system", system])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.output))


def _row(r: Any) -> dict[str, Any]:
    return {"rank": r.rank, "bot": r.bot, "rating": r.rating,
            "error": r.interval if r.HasField("interval") else None, "games": r.games,
            "last_change": r.last_change if r.HasField("last_change") else None}


def _same_value(value: Any, expected: Any) -> bool:
    kind = value.WhichOneof("value")
    if expected is None or (isinstance(expected, float) and math.isnan(expected)):
        return kind is None
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        return kind == "number" and value.number == pytest.approx(float(expected), abs=1e-12)
    return kind == "text" and value.text == str(expected)


def test_create_play_standings_ratings(admin: Any, store_gateway: Gateway, store_url: str,
                                       tmp_path: Path) -> None:
    reply = admin.CreateTournament(S.CreateTournamentRequest(config_toml=calypso("gw-calypso")),
                                   metadata=AUTH)
    assert reply.created and reply.execution == S.EXECUTION_EMBEDDED  # no Redis: played here
    t = reply.tournament
    assert (t.tournament_id, t.name, t.game, t.ruleset, t.format) == (
        "gw-calypso", "Calypso over gRPC", "calypso", "calypso@v1", "duplicate")
    assert [(e.entrant_id, e.bot) for e in t.entrants] == [("heur", "builtin:heuristic"),
                                                           ("rnd", "builtin:random")]
    assert t.matches_total == 4 and reply.matches_started == 4  # 2 deals x 2 seatings
    assert t.created_unix_ms > 0

    done, seen = wait_done(admin, "gw-calypso")
    assert seen == sorted(seen) and seen[-1] == 4  # progress only grows
    assert (done.matches_done, done.matches_pending, done.matches_running, done.matches_failed) == (4, 0, 0, 0)
    end = time.monotonic() + 10  # the run's thread ends just after the last record
    while admin.GetTournament(S.GetTournamentRequest(tournament_id="gw-calypso"),
                              metadata=AUTH).tournament.running_on_gateway:
        assert time.monotonic() < end
        time.sleep(0.02)
    # the store agrees (what `arena tournament status` reads)
    status = service.status(open_store(store_url), "gw-calypso")
    assert (status.done, status.total, status.status) == (4, 4, "done")

    # standings: exactly `arena standings ID`
    st = service.standings(open_store(store_url), "gw-calypso")
    got = admin.GetStandings(S.GetStandingsRequest(tournament_id="gw-calypso"), metadata=AUTH)
    assert (got.tournament_id, got.kind, got.title, got.tie_breaks) == (
        "gw-calypso", st.kind, st.title, st.tie_breaks) == ("gw-calypso", "duplicate_seats", st.title,
                                                            st.tie_breaks)
    assert (got.matches_expected, got.matches_recorded, got.matches_unfinished, got.complete) == (
        st.expected, st.recorded, st.unfinished, True) == (4, 4, 0, True)
    assert [(c.key, c.label) for c in got.columns] == st.columns
    assert [list(r.cells) for r in got.rows] == st.table()[1:]
    assert [(r.rank, r.entrant_id) for r in got.rows] == [(row["rank"], row["entrant"]) for row in st.rows]
    for r, row in zip(got.rows, st.rows):
        for v, (key, _) in zip(r.values, st.columns):
            assert _same_value(v, row.get(key)), (key, v, row.get(key))
    assert got.details["scoring"] == "matchpoints"

    # ratings: exactly `arena ratings calypso --records <the export>`, for two systems
    for system, enum in (("elo", S.RATING_SYSTEM_UNSPECIFIED), ("glicko2", S.RATING_SYSTEM_GLICKO2)):
        cli = _cli_ratings(store_url, "gw-calypso", tmp_path, system)
        got_r = admin.GetRatings(S.GetRatingsRequest(game="calypso", system=enum), metadata=AUTH)
        assert got_r.system == (enum or S.RATING_SYSTEM_ELO)
        assert [rs.ruleset for rs in got_r.rulesets] == list(cli["rulesets"]) == ["calypso@v1"]
        (rs,) = got_r.rulesets
        assert rs.matches == 4 and not rs.note
        # the same figures as the CLI's table: its online column is GetRatings' rating,
        # its (batch fit) rating is GetRatings' batch_rating
        by_bot = {row["bot"]: row for row in cli["rulesets"]["calypso@v1"]["rows"]}
        assert {r.bot for r in rs.rows} == set(by_bot)
        for r in rs.rows:
            row = by_bot[r.bot]
            assert r.rating == pytest.approx(row["online"], abs=0.01)
            assert r.batch_rating == pytest.approx(row["rating"], abs=0.01)
        assert {r.bot for r in rs.rows} == {"heur", "rnd"}
        assert all(r.HasField("interval") and r.HasField("batch_rating") for r in rs.rows)
    # ... and the dashboard's (Elo with the fit's error bars)
    from arena.dashboard.data import compute_ratings
    from arena.store import Store

    with Store(store_url) as store:
        dash = compute_ratings(store.records("gw-calypso"))["calypso@v1"]
    by_ruleset = admin.GetRatings(S.GetRatingsRequest(ruleset="calypso@v1", tournament_id="gw-calypso"),
                                  metadata=AUTH)
    assert [_row(r) for r in by_ruleset.rulesets[0].rows] == [
        {k: row[k] for k in ("rank", "bot", "rating", "error", "games", "last_change")} for row in dash.rows]
    assert [round(r.batch_rating, 1) for r in by_ruleset.rulesets[0].rows] == [row["bt"] for row in dash.rows]
    # a game without records: no rulesets, not an error
    assert not admin.GetRatings(S.GetRatingsRequest(game="bridge"), metadata=AUTH).rulesets

    # the same file again: stored already, nothing left to play
    again = admin.CreateTournament(S.CreateTournamentRequest(config_toml=calypso("gw-calypso")),
                                   metadata=AUTH)
    assert not again.created and again.matches_started == 0
    assert again.tournament.status == S.TOURNAMENT_STATUS_DONE


def test_remote_bot_plays_an_embedded_tournament(admin: Any, store_gateway: Gateway) -> None:
    """A bot registered over AdminService and connected to this gateway plays the
    tournament created over AdminService (embedded: through the gateway's sessions)."""
    reg = admin.RegisterBot(S.RegisterBotRequest(bot_id="remote-rnd"), metadata=AUTH)
    assert store_gateway.store is not None and store_gateway.registry.get("remote-rnd")  # in the store
    bot = CountingBot()
    thread = BotThread(bot, store_gateway.target, reg.token).start()
    try:
        assert store_gateway.wait_connected("remote-rnd", 10)
        reply = admin.CreateTournament(S.CreateTournamentRequest(
            config_toml=calypso("gw-remote", deals=1, remote="remote-rnd"),
            execution=S.EXECUTION_EMBEDDED), metadata=AUTH)
        assert reply.execution == S.EXECUTION_EMBEDDED and reply.matches_started == 2
        done, _ = wait_done(admin, "gw-remote")
        assert done.matches_done == 2
    finally:
        thread.stop()
    assert bot.decisions > 0
    records = list(store_gateway.store.records("gw-remote"))
    assert len(records) == 2
    for r in records:
        remote_seats = [i for i, e in enumerate(r.tags["entrants"]) if e == "mine"]
        assert remote_seats and not [f for f in r.faults if f.seat in remote_seats], r.faults
    got = admin.GetStandings(S.GetStandingsRequest(tournament_id="gw-remote"), metadata=AUTH)
    assert {r.entrant_id for r in got.rows} == {"mine", "rnd"} and got.complete


def _code(call: Any, request: Any, metadata: Any = AUTH) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as exc:
        call(request, metadata=metadata)
    return exc.value.code(), exc.value.details()


def test_error_codes(admin: Any, store_gateway: Gateway) -> None:
    C = grpc.StatusCode
    calls = [(admin.CreateTournament, S.CreateTournamentRequest(config_toml=calypso("x"))),
             (admin.GetTournament, S.GetTournamentRequest(tournament_id="x")),
             (admin.GetStandings, S.GetStandingsRequest(tournament_id="x")),
             (admin.GetRatings, S.GetRatingsRequest(game="calypso"))]
    for call, request in calls:
        assert _code(call, request, metadata=())[0] == C.UNAUTHENTICATED
        assert _code(call, request, metadata=(("authorization", "Bearer nope"),))[0] == C.UNAUTHENTICATED
    assert store_gateway.store is not None and store_gateway.store.tournaments() == []  # nothing created

    assert _code(admin.GetTournament, S.GetTournamentRequest(tournament_id="ghost")) == (
        C.NOT_FOUND, "no tournament 'ghost'")
    assert _code(admin.GetStandings, S.GetStandingsRequest(tournament_id="ghost"))[0] == C.NOT_FOUND
    assert _code(admin.GetTournament, S.GetTournamentRequest())[0] == C.INVALID_ARGUMENT
    assert _code(admin.GetRatings, S.GetRatingsRequest(game="calypso", tournament_id="ghost"))[0] == C.NOT_FOUND

    # invalid tournament files: INVALID_ARGUMENT naming the field
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(
        config_toml=calypso("bad").replace("deals = 2", "deals = -3")))
    assert code == C.INVALID_ARGUMENT and msg.startswith("tournament.deals: ") and "-3" in msg
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(
        config_toml=calypso("bad").replace('bot = "random"', 'bot = "nosuch"')))
    assert code == C.INVALID_ARGUMENT and msg.startswith("entrants[1].bot: ")
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(
        config_toml=calypso("bad").replace('game = "calypso"', 'game = "chess"')))
    assert code == C.INVALID_ARGUMENT and msg.startswith("tournament.game: ")
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(config_toml="[tournament\nid = 1"))
    assert code == C.INVALID_ARGUMENT and msg.startswith("config_toml: invalid TOML")
    assert _code(admin.CreateTournament, S.CreateTournamentRequest())[0] == C.INVALID_ARGUMENT

    # a remote entrant must be a registered, unrevoked bot
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(
        config_toml=calypso("rem", remote="nobody")))
    assert code == C.FAILED_PRECONDITION and msg.startswith("entrants[0].remote: ") and "nobody" in msg
    admin.RegisterBot(S.RegisterBotRequest(bot_id="old"), metadata=AUTH)
    admin.RevokeBot(S.RevokeBotRequest(bot_id="old"), metadata=AUTH)
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(config_toml=calypso("rem", remote="old")))
    assert code == C.FAILED_PRECONDITION and "revoked" in msg
    # distributed play needs Redis
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(
        config_toml=calypso("dist"), execution=S.EXECUTION_DISTRIBUTED))
    assert code == C.FAILED_PRECONDITION and "Redis" in msg
    assert store_gateway.store.tournaments() == []  # none of the refused ones was stored

    # the same id with another configuration
    admin.CreateTournament(S.CreateTournamentRequest(config_toml=calypso("same", deals=1)), metadata=AUTH)
    code, msg = _code(admin.CreateTournament, S.CreateTournamentRequest(config_toml=calypso("same", deals=2)))
    assert code == C.ALREADY_EXISTS and msg.startswith("tournament.id: ")
    wait_done(admin, "same")

    # ratings requests
    for request, field in [(S.GetRatingsRequest(), "game"), (S.GetRatingsRequest(game="chess"), "game"),
                           (S.GetRatingsRequest(ruleset="calypso"), "ruleset"),
                           (S.GetRatingsRequest(game="bridge", ruleset="calypso@v1"), "ruleset"),
                           (S.GetRatingsRequest(game="calypso", system=99), "system")]:
        code, msg = _code(admin.GetRatings, request)
        assert code == C.INVALID_ARGUMENT and msg.startswith(f"{field}: "), (request, msg)


def test_a_gateway_without_a_store_says_so(gateway: Gateway) -> None:
    with grpc.insecure_channel(gateway.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        for call, request in [(admin.CreateTournament, S.CreateTournamentRequest(config_toml=calypso("x"))),
                              (admin.GetTournament, S.GetTournamentRequest(tournament_id="x")),
                              (admin.GetStandings, S.GetStandingsRequest(tournament_id="x")),
                              (admin.GetRatings, S.GetRatingsRequest(game="calypso"))]:
            code, msg = _code(call, request)
            assert code == grpc.StatusCode.FAILED_PRECONDITION and "no store" in msg


def test_a_slow_store_does_not_stall_the_event_loop(admin: Any, store_gateway: Gateway) -> None:
    """Store calls run off the event loop: while one takes 1.5 s, the gateway keeps
    answering calls served on the loop (health checks here; bot decisions alike)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    store = store_gateway.store
    assert store is not None
    real = store.tournament
    started = threading.Event()

    def slow(tournament_id: str) -> Any:
        started.set()
        time.sleep(1.5)
        return real(tournament_id)

    store.tournament = slow  # type: ignore[method-assign]
    errors: list[Any] = []

    def call() -> None:
        try:
            admin.GetTournament(S.GetTournamentRequest(tournament_id="ghost"), metadata=AUTH)
        except grpc.RpcError as exc:
            errors.append(exc.code())

    t = threading.Thread(target=call)
    t.start()
    try:
        assert started.wait(5)
        with grpc.insecure_channel(store_gateway.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            t0 = time.monotonic()
            for _ in range(5):
                assert health.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
                    health_pb2.HealthCheckResponse.SERVING
            assert time.monotonic() - t0 < 0.75
        assert t.is_alive()  # the slow call was still running meanwhile
    finally:
        t.join(10)
        store.tournament = real  # type: ignore[method-assign]
    assert errors == [grpc.StatusCode.NOT_FOUND]


def test_status_mapping() -> None:
    P, R, D, X, F = (S.TOURNAMENT_STATUS_PENDING, S.TOURNAMENT_STATUS_RUNNING, S.TOURNAMENT_STATUS_DONE,
                     S.TOURNAMENT_STATUS_STOPPED, S.TOURNAMENT_STATUS_FAILED)
    assert tournament_status("pending", 0, 4, {"pending": 4}) == P
    assert tournament_status("running", 0, 4, {"pending": 4}) == R
    assert tournament_status("running", 1, 4, {"pending": 3}) == R
    assert tournament_status("pending", 0, 4, {"pending": 3, "leased": 1}) == R
    assert tournament_status("running", 4, 4, {"done": 4}) == D
    assert tournament_status("stopped", 2, 4, {"pending": 2}) == X
    assert tournament_status("stopped", 4, 4, {"done": 4}) == D
    assert tournament_status("running", 3, 4, {"failed": 1}) == F
    assert tournament_status("running", 2, 4, {"failed": 1, "pending": 1}) == R
    assert tournament_status("running", 2, 4, {"pending": 2}, run_failed=True) == F
    assert tournament_status("stopped", 2, 4, {"pending": 2}, running_here=True) == R


def test_shutdown_stops_an_embedded_run_and_the_same_file_resumes_it(store_url: str) -> None:
    from arena.gateway import GatewayConfig
    from gateway.conftest import OPERATOR_TOKEN

    toml = calypso("gw-resume", deals=30)
    config = GatewayConfig(ping_interval=0.5, hello_timeout=2.0, tournament_jobs=2)
    with Gateway(store=store_url, operator_token=OPERATOR_TOKEN, config=config) as gw, \
            grpc.insecure_channel(gw.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        reply = admin.CreateTournament(S.CreateTournamentRequest(config_toml=toml), metadata=AUTH)
        assert reply.matches_started == 60
        end = time.monotonic() + 30
        while admin.GetTournament(S.GetTournamentRequest(tournament_id="gw-resume"),
                                  metadata=AUTH).tournament.matches_done == 0:
            assert time.monotonic() < end
            time.sleep(0.02)
        # the same file while it runs here: nothing more is started
        assert admin.CreateTournament(S.CreateTournamentRequest(config_toml=toml),
                                      metadata=AUTH).matches_started == 0
    # the gateway stopped (Gateway.__exit__) in the middle: recorded matches stay
    with Gateway(store=store_url, operator_token=OPERATOR_TOKEN, config=config) as gw, \
            grpc.insecure_channel(gw.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        t = admin.GetTournament(S.GetTournamentRequest(tournament_id="gw-resume"), metadata=AUTH).tournament
        assert t.status == S.TOURNAMENT_STATUS_STOPPED and 0 < t.matches_done < 60, t
        assert t.matches_pending == 60 - t.matches_done and not t.running_on_gateway
        again = admin.CreateTournament(S.CreateTournamentRequest(config_toml=toml), metadata=AUTH)
        assert not again.created and again.matches_started == 60 - t.matches_done
        done, _ = wait_done(admin, "gw-resume")
        assert done.matches_done == 60
