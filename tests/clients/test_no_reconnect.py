"""``python -m arenabot --no-reconnect`` that never gets in (issue 27) says why in one
line on stderr and exits 1, against real gateways on loopback: a TLS gateway whose
self-signed certificate the bot does not trust (``--tls``), the same gateway spoken
to in plaintext, a plaintext gateway spoken to over TLS, and a port nobody listens
on. A bot that was accepted still exits 0 when its stream ends; the library raises
:class:`arenabot.NotConnected` for the same cases (``reconnect=False`` or
``max_connects`` spent without a Welcome).

Every process started here is stopped by its test; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.gateway import Gateway, GatewayConfig

from gateway.helpers import ROOT, SDK_PATH  # noqa: I001

pytestmark = pytest.mark.timeout(180)


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


@pytest.fixture(scope="module")
def tls_gateway(certificate: tuple[Path, Path]) -> Iterator[Gateway]:
    cert, key = certificate
    gw = Gateway("127.0.0.1:0", config=GatewayConfig(tls_cert=str(cert), tls_key=str(key))).start()
    try:
        yield gw
    finally:
        gw.stop(grace=0.5)


@pytest.fixture(scope="module")
def plain_gateway() -> Iterator[Gateway]:
    gw = Gateway("127.0.0.1:0", config=GatewayConfig(hello_timeout=5.0)).start()
    try:
        yield gw
    finally:
        gw.stop(grace=0.5)


def _arenabot(target: str, token: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "GRPC_VERBOSITY"))}
    env["PYTHONPATH"] = os.pathsep.join([str(SDK_PATH), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "arenabot", "--target", target, "--token", token,
                           "--bot", "random", "--no-reconnect", *args],
                          env=env, capture_output=True, text=True, timeout=timeout)


def _one_line(out: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert out.returncode == 1, (out.returncode, out.stderr)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("arenabot: could not connect to "), lines[0]
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert "Traceback" not in out.stderr
    return lines[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_untrusted_certificate(tls_gateway: Gateway) -> None:
    _, token = tls_gateway.registry.register("untrusting")
    out = _arenabot(f"localhost:{tls_gateway.port}", token, "--tls")  # the system's roots only
    _one_line(out, "CERTIFICATE_VERIFY_FAILED", "--ca-file")
    assert not tls_gateway.is_connected("untrusting")


def test_plaintext_against_a_tls_gateway(tls_gateway: Gateway) -> None:
    _, token = tls_gateway.registry.register("plain-speaker")
    _one_line(_arenabot(f"127.0.0.1:{tls_gateway.port}", token), "UNAVAILABLE", "--tls")


def test_tls_against_a_plaintext_gateway(plain_gateway: Gateway, certificate: tuple[Path, Path]) -> None:
    cert, _ = certificate
    _, token = plain_gateway.registry.register("tls-speaker")
    _one_line(_arenabot(f"localhost:{plain_gateway.port}", token, "--ca-file", str(cert)),
              "does not serve TLS")


def test_nobody_listening() -> None:
    _one_line(_arenabot(f"127.0.0.1:{_free_port()}", "arena_bot_x"), "UNAVAILABLE", "is the gateway running there? check --target")


def test_an_accepted_bot_still_exits_0_when_its_stream_ends() -> None:
    gw = Gateway("127.0.0.1:0").start()
    proc: subprocess.Popen[str] | None = None
    try:
        _, token = gw.registry.register("accepted")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SDK_PATH), str(ROOT)]))
        proc = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", gw.target, "--token", token,
                                 "--bot", "random", "--no-reconnect"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert gw.wait_connected("accepted", 30)
    finally:
        gw.stop(grace=0.5)  # the stream ends: the bot goes, as --no-reconnect asks
    assert proc is not None
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0 and "could not connect" not in err, (proc.returncode, err)


def test_the_library_raises_not_connected(tls_gateway: Gateway) -> None:
    from arenabot import NotConnected, RandomBot

    _, token = tls_gateway.registry.register("lib")
    for kwargs in ({"reconnect": False}, {"max_connects": 2, "initial_backoff": 0.01}):
        with pytest.raises(NotConnected) as exc:
            asyncio.run(RandomBot().run_async(f"127.0.0.1:{tls_gateway.port}", token, **kwargs))
        assert exc.value.target == f"127.0.0.1:{tls_gateway.port}" and "\n" not in str(exc.value)
