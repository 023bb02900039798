"""Bots over the internet: ``arena serve`` with TLS from the command line and from the
environment, the Python and Node SDKs over TLS with a CA file (a self-signed
certificate made here with the openssl CLI), and the gateway's operations log
(connects, disconnects, failed authentications, with bot id and peer).

Every process started here is stopped by its test; every wait is bounded.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from arena.gateway import Gateway, GatewayConfig
from arena.match.referee import run_match
from arena.testing.toy import HighcardGame

from gateway.helpers import ROOT, SDK_PATH  # noqa: I001

pytestmark = pytest.mark.timeout(240)

NODE_DIR = ROOT / "clients" / "node"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1: (cert, key)."""
    if shutil.which("openssl") is None:
        pytest.fail("the openssl CLI is needed to make a certificate (.ci/run installs it)")
    d = tmp_path_factory.mktemp("tls")
    key, cert = d / "key.pem", d / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    return cert, key


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["PYTHONPATH"] = os.pathsep.join([str(SDK_PATH), str(ROOT), os.environ.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def _sdk_bot(target: str, token: str, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "arenabot", "--target", target, "--token", token,
                             "--bot", "random", *args], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _stop(proc: subprocess.Popen[bytes]) -> str:
    if proc.poll() is None:
        proc.terminate()
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return (err or b"").decode(errors="replace")


def _health(target: str, cert: Path | None) -> int:
    """grpc.health.v1 Check status over TLS (trusting ``cert``) or plaintext (None)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    channel = (grpc.secure_channel(target, grpc.ssl_channel_credentials(cert.read_bytes()))
               if cert is not None else grpc.insecure_channel(target))
    try:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        return int(reply.status)
    finally:
        channel.close()


class Served:
    """``arena serve`` in a child process, its stderr in a file."""

    def __init__(self, tmp: Path, args: list[str], env: dict[str, str]) -> None:
        self.port = _free_port()
        self.target = f"localhost:{self.port}"
        self.store = f"sqlite:///{tmp / 'arena.db'}"
        self.log = tmp / "serve.log"
        self._fp = open(self.log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--address", f"127.0.0.1:{self.port}",
             "--store", self.store, *args],
            env=_env(ARENA_OPERATOR_TOKEN="op", **env), cwd=tmp, stdout=self._fp, stderr=subprocess.STDOUT)

    def wait_log(self, text: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            out = self.log.read_text(errors="replace")
            if text in out:
                return out
            assert self.proc.poll() is None, f"arena serve exited:\n{out[-3000:]}"
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not in the log of arena serve:\n{self.log.read_text()[-3000:]}")

    def register(self, bot_id: str) -> str:
        out = subprocess.run([sys.executable, "-m", "arena", "bots", "register", bot_id, "--store", self.store],
                             env=_env(), capture_output=True, text=True, timeout=60, check=True)
        return out.stdout.strip().splitlines()[-1]

    def stop(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._fp.close()
        return self.log.read_text(errors="replace")


@pytest.fixture
def served_from_env(tmp_path: Path, certificate: tuple[Path, Path]) -> Iterator[Served]:
    cert, key = certificate
    served = Served(tmp_path, [],
                    {"ARENA_GATEWAY_TLS_CERT": str(cert), "ARENA_GATEWAY_TLS_KEY": str(key)})
    try:
        served.wait_log("listening")
        yield served
    finally:
        served.stop()


def test_arena_serve_tls_from_the_environment_and_its_log(served_from_env: Served,
                                                          certificate: tuple[Path, Path]) -> None:
    served = served_from_env
    cert, _ = certificate
    assert "TLS" in served.wait_log("listening")
    assert _health(served.target, cert) == 1  # SERVING, over TLS
    with pytest.raises(grpc.RpcError):
        _health(f"127.0.0.1:{served.port}", None)  # a plaintext client cannot talk to it
    token = served.register("tls-py")
    bot = _sdk_bot(served.target, token, "--ca-file", str(cert))
    try:
        out = served.wait_log("bot tls-py connected from ")
        line = next(line for line in out.splitlines() if "bot tls-py connected from " in line)
        assert "127.0.0.1" in line and "session" in line
    finally:
        err = _stop(bot)
    assert "Traceback" not in err, err
    served.wait_log("bot tls-py session ")  # its disconnect, with the peer
    closed = next(line for line in served.log.read_text().splitlines() if "bot tls-py session" in line)
    assert "closed" in closed and "127.0.0.1" in closed
    bad = _sdk_bot(served.target, "arena_bot_wrong", "--ca-file", str(cert))
    try:
        bad.wait(30)
    finally:
        err = _stop(bad)
    assert bad.returncode == 2 and "UNAUTHENTICATED" in err
    out = served.wait_log("authentication failed")
    line = next(line for line in out.splitlines() if "authentication failed" in line)
    assert "127.0.0.1" in line and "arena_bot_wrong" not in line  # the peer, never the token
    # a bot without TLS flags against a TLS gateway never gets in
    plain = _sdk_bot(f"127.0.0.1:{served.port}", token, "--no-reconnect")
    try:
        plain.wait(30)
    finally:
        _stop(plain)
    assert "bot tls-py connected" not in served.log.read_text().split("authentication failed")[-1]


def test_arena_serve_tls_from_the_command_line(tmp_path: Path, certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    served = Served(tmp_path, ["--tls-cert", str(cert), "--tls-key", str(key)], {})
    try:
        assert "TLS" in served.wait_log("listening")
        assert _health(served.target, cert) == 1
    finally:
        served.stop()
    half = subprocess.run([sys.executable, "-m", "arena", "serve", "--tls-cert", str(cert),
                           "--store", f"sqlite:///{tmp_path / 'x.db'}"],
                          env=_env(), capture_output=True, text=True, timeout=60)
    assert half.returncode != 0 and "--tls-key" in half.stderr


@pytest.fixture(scope="module")
def tls_gateway(certificate: tuple[Path, Path]) -> Iterator[Gateway]:
    cert, key = certificate
    gw = Gateway("127.0.0.1:0", config=GatewayConfig(tls_cert=str(cert), tls_key=str(key),
                                                     ping_interval=0.5)).start()
    try:
        yield gw
    finally:
        gw.stop(grace=0.5)


def _play(gw: Gateway, bot_id: str) -> None:
    for seed in range(3):
        result = run_match(HighcardGame(), [gw.agent(bot_id)] * 2, seed=seed, deadline_ms=5000)
        assert result.record.faults == [] and result.record.terminal


def test_python_sdk_process_over_tls(tls_gateway: Gateway, certificate: tuple[Path, Path]) -> None:
    cert, _ = certificate
    _, token = tls_gateway.registry.register("py-tls")
    bot = _sdk_bot(f"localhost:{tls_gateway.port}", token, "--ca-file", str(cert))
    try:
        assert tls_gateway.wait_connected("py-tls", 30), _stop(bot)
        _play(tls_gateway, "py-tls")
    finally:
        _stop(bot)


def test_node_sdk_process_over_tls(tls_gateway: Gateway, certificate: tuple[Path, Path]) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node/npm are not installed (.ci/run installs them)")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True,
                       timeout=300, capture_output=True)
    cert, _ = certificate
    _, token = tls_gateway.registry.register("node-tls")
    bot = subprocess.Popen(["node", str(NODE_DIR / "random_bot.js"), "--target",
                            f"localhost:{tls_gateway.port}", "--token", token, "--ca-file", str(cert)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert tls_gateway.wait_connected("node-tls", 30), _stop(bot)
        _play(tls_gateway, "node-tls")
    finally:
        _stop(bot)
