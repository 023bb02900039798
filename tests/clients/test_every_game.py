"""One match of every game through the gateway: a Python SDK bot process, a Node.js
bot process and a built-in bot at one table; every DecisionRequest sent is checked
to hold exactly the acting seat's observation (the engine's own, no more).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from arena.bot.v1 import bot_pb2
from arena.remote import convert
from arena.bots.base import RandomAgent
from arena.core.state import Game
from arena.games import get_game, list_games
from arena.gateway import Gateway, GatewayConfig
from arena.remote import RemoteAgent
from arena.remote.router import DecisionRouter
from arena.match.referee import run_match

from gateway.helpers import ROOT, sdk_process  # noqa: I001

NODE_DIR = ROOT / "clients" / "node"
SHORT = {"rummy": {"deals": 1}, "canasta": {"deals": 1}, "auction": {"games": 1}}
"""Options that keep a match short (the point is the protocol, not the game)."""


def _games() -> list[str]:
    return list_games()


def _make(name: str) -> Game:
    return get_game(name, **SHORT.get(name, {}))


class RecordingRouter(DecisionRouter):
    """Passes everything on, keeping the serialized bytes of every request sent."""

    def __init__(self, inner: DecisionRouter) -> None:
        self.inner = inner
        self.sent: list[bytes] = []

    def decide(self, bot_id: str, request: bot_pb2.DecisionRequest, timeout: float) -> bot_pb2.Decision:
        decision = self.inner.decide(bot_id, request, timeout)
        self.sent.append(request.SerializeToString())  # as written to the stream (ids filled in)
        return decision

    def notify(self, bot_id: str, message: bot_pb2.ArenaMessage) -> None:
        self.inner.notify(bot_id, message)

    def is_connected(self, bot_id: str) -> bool:
        return self.inner.is_connected(bot_id)


class CheckedAgent(RemoteAgent):
    """Keeps the observation handed over by the referee for each request."""

    def __init__(self, bot_id: str, router: RecordingRouter) -> None:
        super().__init__(bot_id, router)
        self.recorder = router
        self.seen: list[Any] = []

    def act(self, observation: Any, legal_actions: Any) -> Any:
        self.seen.append(observation)
        return super().act(observation, legal_actions)


@pytest.fixture(scope="module")
def table() -> Iterator[tuple[Gateway, str, str]]:
    gw = Gateway("127.0.0.1:0", config=GatewayConfig(ping_interval=2.0))
    gw.start()
    _, py_token = gw.registry.register("py")
    _, node_token = gw.registry.register("node")
    procs = [sdk_process(gw.target, py_token, "--max-concurrent", "4")]
    node = shutil.which("node") is not None and (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir()
    if node:
        procs.append(subprocess.Popen(["node", str(NODE_DIR / "random_bot.js"), "--target", gw.target,
                                       "--token", node_token, "--max-concurrent", "4"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        assert gw.wait_connected("py", 20)
        if node:
            assert gw.wait_connected("node", 20)
        yield gw, "py", "node" if node else "py"
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        gw.stop(0.5)


@pytest.mark.parametrize("game_name", _games())
def test_full_match_of_every_game(table: tuple[Gateway, str, str], game_name: str) -> None:
    gw, py, node = table
    assert gw.router is not None
    game = _make(game_name)
    recorder = RecordingRouter(gw.router)
    bots = [py, node]
    # seats: Python SDK, Node.js, built-in, ... (one agent object per seat)
    agents: list[Any] = [RandomAgent(seat) if seat % 3 == 2 else CheckedAgent(bots[seat % 2], recorder)
                         for seat in range(game.num_players)]
    result = run_match(game, agents, seed=11, match_id=f"every-{game_name}", deadline_ms=10_000)
    record = result.record
    assert record.terminal and record.faults == [], record.faults[:3]
    seen = [obs for a in agents if isinstance(a, CheckedAgent) for obs in a.seen]
    assert len(recorder.sent) == len(seen) > 0
    by_id = {}
    for raw in recorder.sent:
        request = bot_pb2.DecisionRequest.FromString(raw)
        by_id[request.request_id] = request
        assert request.game == game_name and request.WhichOneof("observation") == game_name
        assert len(request.legal_actions) > 0 and request.deadline_ms > 0
    # every request carries exactly the observation the referee handed to that seat's agent
    observations = sorted((convert.get_observation(r) for r in by_id.values()), key=repr)
    assert observations == sorted(seen, key=repr)
