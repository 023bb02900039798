"""CreateTournament on a gateway with Redis: the matches go to a real Celery worker
(``celery -A workers.celery worker`` in its own process, a private redis-server),
which writes to the gateway's store and reaches the remote bot connected to this
gateway through Redis."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.admin.v1 import admin_pb2 as S
from arena.admin.v1 import admin_pb2_grpc
from arena.gateway import Gateway, GatewayConfig
from gateway.conftest import AUTH, OPERATOR_TOKEN
from gateway.helpers import ROOT, SDK_PATH, BotThread
from gateway.tournament_helpers import CountingBot, calypso, wait_done


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(what: str, ok: object, proc: subprocess.Popen[bytes], log: Path | None,
              timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not ok():  # type: ignore[operator]
        if proc.poll() is not None or time.monotonic() > end:
            detail = log.read_text(errors="replace")[-3000:] if log is not None else ""
            pytest.fail(f"{what} did not start\n{detail}")
        time.sleep(0.05)


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A private redis-server on a free port (never the shared one)."""
    if shutil.which("redis-server") is None:  # .ci/run installs it: a missing one is a failure
        pytest.fail("redis-server is not installed (apt-get install redis-server)")
    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up() -> bool:
        with socket.socket() as s:
            s.settimeout(0.2)
            return s.connect_ex(("127.0.0.1", port)) == 0

    try:
        _wait_for("redis-server", up, proc, None, 10)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def worker(redis_url: str, store_url: str, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """One Celery worker (one prefork child) on that Redis and the test's store."""
    log = tmp_path / "worker.log"
    env = dict(os.environ, ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=store_url,
               PYTHONPATH=os.pathsep.join([str(ROOT), str(SDK_PATH), os.environ.get("PYTHONPATH", "")]))
    with open(log, "wb") as fp:
        proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-c", "1",
                                 "-n", f"gw-test-{os.getpid()}@%h", "-l", "info", "--without-gossip",
                                 "--without-mingle", "--without-heartbeat"],
                                env=env, cwd=str(ROOT), stdout=fp, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_for("the Celery worker", lambda: b" ready." in log.read_bytes(), proc, log)
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


@pytest.mark.timeout(90)
def test_create_tournament_submits_to_the_workers(store_url: str, redis_url: str,
                                                   worker: subprocess.Popen[bytes]) -> None:
    config = GatewayConfig(ping_interval=0.5, hello_timeout=2.0, redis_url=redis_url)
    with Gateway(store=store_url, operator_token=OPERATOR_TOKEN, config=config) as gw, \
            grpc.insecure_channel(gw.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        token = admin.RegisterBot(S.RegisterBotRequest(bot_id="far-bot"), metadata=AUTH).token
        bot = CountingBot()
        thread = BotThread(bot, gw.target, token).start()
        try:
            assert gw.wait_connected("far-bot", 10)
            reply = admin.CreateTournament(S.CreateTournamentRequest(
                config_toml=calypso("gw-dist", deals=1, remote="far-bot")), metadata=AUTH)
            assert reply.created and reply.execution == S.EXECUTION_DISTRIBUTED  # Redis: the workers
            assert reply.matches_started == 2 and not reply.tournament.running_on_gateway
            done, _ = wait_done(admin, "gw-dist", timeout=60)
        finally:
            thread.stop()
        assert done.matches_done == 2 and not done.running_on_gateway
        assert bot.decisions > 0  # the worker reached the bot through this gateway
        standings = admin.GetStandings(S.GetStandingsRequest(tournament_id="gw-dist"), metadata=AUTH)
        assert standings.complete and {r.entrant_id for r in standings.rows} == {"mine", "rnd"}
        # a second request for the same file submits nothing more
        again = admin.CreateTournament(S.CreateTournamentRequest(
            config_toml=calypso("gw-dist", deals=1, remote="far-bot")), metadata=AUTH)
        assert not again.created and again.matches_started == 0
    assert worker.poll() is None


@pytest.mark.timeout(60)
def test_unreachable_redis_is_unavailable_and_the_file_can_be_sent_again(store_url: str) -> None:
    closed = _free_port()  # nothing listens there
    config = GatewayConfig(ping_interval=0.5, hello_timeout=2.0, redis_url=f"redis://127.0.0.1:{closed}/0")
    with Gateway(store=store_url, operator_token=OPERATOR_TOKEN, config=config) as gw, \
            grpc.insecure_channel(gw.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as exc:
            admin.CreateTournament(S.CreateTournamentRequest(config_toml=calypso("gw-nobroker")),
                                   metadata=AUTH, timeout=30)
        assert exc.value.code() == grpc.StatusCode.UNAVAILABLE, exc.value.details()
        assert "Redis" in exc.value.details() and time.monotonic() - started < 20
        t = admin.GetTournament(S.GetTournamentRequest(tournament_id="gw-nobroker"), metadata=AUTH).tournament
        assert t.status == S.TOURNAMENT_STATUS_PENDING and t.matches_pending == t.matches_total == 4
        # the same file, played here instead
        reply = admin.CreateTournament(S.CreateTournamentRequest(
            config_toml=calypso("gw-nobroker"), execution=S.EXECUTION_EMBEDDED), metadata=AUTH)
        assert not reply.created and reply.matches_started == 4
        wait_done(admin, "gw-nobroker")
