"""Per-stream message rate limit, and TLS with a self-signed certificate."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.bot.v1 import bot_pb2
from arena.gateway import Gateway, GatewayConfig
from arena.match.referee import run_match
from arena.testing.toy import HighcardGame

from gateway.helpers import BotThread  # noqa: I001
from gateway.test_gateway import RawStream
from arenabot import RandomBot


def test_message_rate_limit() -> None:
    with Gateway(config=GatewayConfig(max_messages_per_second=50, ping_interval=5)) as gw:
        _, token = gw.registry.register("chatty")
        raw = RawStream(gw.target)
        raw.send(hello=bot_pb2.Hello(token=token))
        assert raw.receive().WhichOneof("kind") == "welcome"
        for nonce in range(80):
            raw.send(pong=bot_pb2.Pong(nonce=nonce))
        end = raw.receive(timeout=5)
        while isinstance(end, bot_pb2.ArenaMessage):
            end = raw.receive(timeout=5)
        assert isinstance(end, grpc.RpcError) and end.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        raw.close()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is needed to make a certificate")
def test_tls_with_self_signed_certificate(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    config = GatewayConfig(tls_cert=str(cert), tls_key=str(key))
    with Gateway("127.0.0.1:0", config=config) as gw:
        _, token = gw.registry.register("tls-bot")
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        thread = BotThread(RandomBot(), f"localhost:{gw.port}", token, credentials=creds).start()
        assert gw.wait_connected("tls-bot", 10)
        result = run_match(HighcardGame(), [gw.agent("tls-bot")] * 2, seed=1, deadline_ms=3000)
        assert result.record.faults == []
        thread.stop()
        # a plaintext client cannot talk to it
        plain = BotThread(RandomBot(), gw.target, token, max_connects=1).start()
        plain.join(10)
        assert plain.bot.session_id == ""  # never welcomed
