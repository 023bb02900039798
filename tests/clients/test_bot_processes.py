"""Bots in their own processes through a real gateway: the Python SDK and Node.js.

The Node.js test needs ``node`` and ``npm``; it installs ``clients/node`` with
``npm ci`` when ``node_modules`` is missing (CI runs that step beforehand).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.base import RandomAgent
from arena.gateway import Gateway
from arena.match.referee import run_match
from arena.testing.toy import HighcardGame

from gateway.helpers import ROOT, sdk_process  # noqa: I001

NODE_DIR = ROOT / "clients" / "node"


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.terminate()
    try:
        _, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return err.decode(errors="replace")


def _play(gateway: Gateway, bot_id: str, matches: int) -> None:
    for seed in range(matches):
        # the remote bot against itself and against a built-in bot, both seats
        lineups = [[gateway.agent(bot_id), gateway.agent(bot_id)],
                   [gateway.agent(bot_id), RandomAgent(seed)],
                   [RandomAgent(seed), gateway.agent(bot_id)]]
        for agents in lineups:
            result = run_match(HighcardGame(), agents, seed=seed, match_id=f"{bot_id}-{seed}",
                               deadline_ms=5000)
            assert result.record.faults == [], result.record.faults
            assert result.record.terminal and sum(result.record.returns) == 0


@pytest.mark.parametrize("event_loop", ["asyncio", "uvloop"])
def test_python_sdk_bot_process(gateway: Gateway, event_loop: str) -> None:
    bot_id = f"py-proc-{event_loop}"
    _, token = gateway.registry.register(bot_id)
    proc = sdk_process(gateway.target, token, "--bot", "random", "--max-concurrent", "4",
                       "--event-loop", event_loop)
    try:
        assert gateway.wait_connected(bot_id, 20), _stop(proc)
        _play(gateway, bot_id, 3)
    finally:
        _stop(proc)


def test_python_sdk_bad_token_exits(gateway: Gateway) -> None:
    proc = sdk_process(gateway.target, "arena_bot_not-a-token")
    try:
        code = proc.wait(timeout=20)
    finally:
        err = _stop(proc)
    assert code == 2 and "UNAUTHENTICATED" in err


@pytest.fixture(scope="module")
def node_bot() -> Iterator[Path]:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm are not installed: the Node.js client cannot be tested here")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True,
                       timeout=300, capture_output=True)
    yield NODE_DIR / "random_bot.js"


def test_node_bot_process(gateway: Gateway, node_bot: Path) -> None:
    _, token = gateway.registry.register("node-proc")
    proc = subprocess.Popen(["node", str(node_bot), "--target", gateway.target, "--token", token,
                             "--max-concurrent", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert gateway.wait_connected("node-proc", 20), _stop(proc)
        _play(gateway, "node-proc", 3)
    finally:
        _stop(proc)


def test_node_bot_bad_token_exits(gateway: Gateway, node_bot: Path) -> None:
    proc = subprocess.run(["node", str(node_bot), "--target", gateway.target, "--token", "bad", "-v"],
                          capture_output=True, timeout=20)
    assert proc.returncode == 2 and b"refused" in proc.stderr


def test_python_and_node_bots_in_one_match(gateway: Gateway, node_bot: Path) -> None:
    _, py_token = gateway.registry.register("py-mix")
    _, node_token = gateway.registry.register("node-mix")
    py = sdk_process(gateway.target, py_token)
    node = subprocess.Popen(["node", str(node_bot), "--target", gateway.target, "--token", node_token],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert gateway.wait_connected("py-mix", 20) and gateway.wait_connected("node-mix", 20)
        start = time.monotonic()
        for seed in range(5):
            result = run_match(HighcardGame(), [gateway.agent("py-mix"), gateway.agent("node-mix")],
                               seed=seed, deadline_ms=5000)
            assert result.record.faults == []
        assert time.monotonic() - start < 20
    finally:
        _stop(py)
        _stop(node)
