"""The gateway in its own process (``arena.gateway.serve`` and ``arena serve``) on a
real store: admin + bot on it, bots registered with the CLI authenticate, clean
exit on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
from typer.testing import CliRunner

from arena.admin.v1 import admin_pb2, admin_pb2_grpc
from arena.cli import app

from gateway.helpers import ROOT, BotThread  # noqa: I001
from arenabot import BotStopped, RandomBot

AUTH = (("authorization", "Bearer op-token"),)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def gateway_process(argv: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    """Start a gateway process, wait until it answers, SIGTERM it at the end (and
    check that it stopped cleanly and quickly)."""
    env = dict(os.environ, ARENA_OPERATOR_TOKEN="op-token", PYTHONPATH=str(ROOT))
    env.pop("ARENA_STORE_URL", None)
    env.pop("ARENA_REDIS_URL", None)
    proc = subprocess.Popen(argv, env=env, cwd=str(ROOT), stderr=subprocess.PIPE)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            try:
                grpc.channel_ready_future(channel).result(timeout=20)
            except grpc.FutureTimeoutError:
                proc.kill()
                pytest.fail(f"the gateway did not start: {proc.communicate()[1].decode()[-2000:]}")
        yield proc
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert time.monotonic() - start < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_process_admin_and_clean_shutdown(store_url: str) -> None:
    port = _free_port()
    code = f"from arena.gateway import serve; serve('127.0.0.1:{port}', store_url={store_url!r})"
    with gateway_process([sys.executable, "-c", code], port), \
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        reply = admin.RegisterBot(admin_pb2.RegisterBotRequest(bot_id="served"), metadata=AUTH)
        assert reply.token
        assert [b.bot_id for b in admin.ListBots(admin_pb2.ListBotsRequest(), metadata=AUTH).bots] == ["served"]
    # the bot is in the store's bots table, hashed only
    from sqlalchemy import select

    from arena.store import Store, StoreBotRegistry
    from arena.store.models import BotRow

    with Store(store_url) as store:
        assert StoreBotRegistry(store).authenticate(reply.token).bot_id == "served"  # type: ignore[union-attr]
        with store.engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(select(BotRow.__table__))]
    assert rows and reply.token not in repr(rows)


def test_cli_registered_bot_authenticates_on_arena_serve(store_url: str) -> None:
    """``arena bots register`` and ``arena serve`` share the store: the token printed by
    the one is accepted by the other; a token revoked with the CLI is refused."""
    runner = CliRunner()
    res = runner.invoke(app, ["bots", "register", "cli-bot", "--owner", "ops", "--store", store_url])
    assert res.exit_code == 0, res.output
    token = res.output.strip().splitlines()[-1]
    port = _free_port()
    argv = [sys.executable, "-m", "arena.cli", "serve", "--address", f"127.0.0.1:{port}",
            "--store", store_url, "--grace", "1"]
    with gateway_process(argv, port):
        bot = BotThread(RandomBot(), f"127.0.0.1:{port}", token).start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                admin = admin_pb2_grpc.AdminServiceStub(channel)
                end = time.monotonic() + 10
                while True:
                    bots = admin.ListBots(admin_pb2.ListBotsRequest(), metadata=AUTH).bots
                    if [(b.bot_id, b.owner, b.connected) for b in bots] == [("cli-bot", "ops", True)]:
                        break
                    assert time.monotonic() < end, bots
                    time.sleep(0.05)
        finally:
            bot.stop()
        assert bot.error is None
        # a wrong token is refused
        wrong = BotThread(RandomBot(), f"127.0.0.1:{port}", token + "x", max_connects=1).start()
        wrong.join(10)
        assert isinstance(wrong.error, BotStopped) and wrong.error.code == grpc.StatusCode.UNAUTHENTICATED
        # revoked with the CLI (another process): the gateway refuses the next session
        assert runner.invoke(app, ["bots", "revoke", "cli-bot", "--store", store_url]).exit_code == 0
        again = BotThread(RandomBot(), f"127.0.0.1:{port}", token, max_connects=1).start()
        again.join(10)
        assert isinstance(again.error, BotStopped) and again.error.code == grpc.StatusCode.UNAUTHENTICATED
