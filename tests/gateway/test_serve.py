"""``arena.gateway.serve`` in its own process: admin + bot on it, clean exit on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import grpc

from arena.admin.v1 import admin_pb2, admin_pb2_grpc

from gateway.helpers import ROOT  # noqa: I001


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_process_admin_and_clean_shutdown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    port = _free_port()
    db = tmp_path / "bots.sqlite3"
    env = dict(os.environ, ARENA_OPERATOR_TOKEN="op-token", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c",
                             f"from arena.gateway import serve; serve('127.0.0.1:{port}', db_path={str(db)!r})"],
                            env=env, stderr=subprocess.PIPE)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=20)
            admin = admin_pb2_grpc.AdminServiceStub(channel)
            auth = (("authorization", "Bearer op-token"),)
            reply = admin.RegisterBot(admin_pb2.RegisterBotRequest(bot_id="served"), metadata=auth)
            assert reply.token
            assert [b.bot_id for b in admin.ListBots(admin_pb2.ListBotsRequest(), metadata=auth).bots] == ["served"]
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        assert time.monotonic() - start < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert db.exists()  # the registry persisted (hashed tokens only)
    assert reply.token.encode() not in db.read_bytes()
