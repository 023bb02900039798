"""Faults the protocol never handled: a robot that hangs, disconnects or sends garbage.

Each time the board goes on under the referee's policy (default actions, faults
recorded), the connection of the robot that broke the conversation is closed, and
the robot, reconnecting, is seated again at the next board.
"""

from __future__ import annotations

from typing import Any

from arena.bluechip import BlueChipAgent, BlueChipHost, run_match
from arena.games import get_game

from bluechip.robot import SEATS, Fault, Robot  # noqa: I001

GAME = get_game("bridge")
TEAMS = ("NS", "EW", "NS", "EW")


def _table(host: BlueChipHost, fault: Fault | None, reconnect: bool = True) -> list[Robot]:
    robots = [Robot(host.port, TEAMS[s], SEATS[s], fault=fault if s == 0 else None,
                    reconnect=reconnect and s == 0).start() for s in range(4)]
    assert host.wait_seated([(TEAMS[s], s) for s in range(4)], 5)
    return robots


def _board(host: BlueChipHost, board: int, deadline_ms: float = 400,
           connect_timeout: float = 3.0) -> Any:
    agents = [BlueChipAgent(host, TEAMS[s], s, connect_timeout=connect_timeout) for s in range(4)]
    result = run_match(GAME, agents, seed=board, init={"board": board}, deadline_ms=deadline_ms)
    assert result.state.is_terminal()
    for agent in agents:
        agent.wait_board(3)
    return result.record


def _finish(host: BlueChipHost, robots: list[Robot]) -> None:
    host.stop()
    for r in robots:
        r.join(5)


def test_robot_that_hangs_mid_board(host: BlueChipHost) -> None:
    robots = _table(host, Fault("hang", at=3))
    first = _board(host, 1)
    kinds = [f.kind for f in first.faults]
    assert all(f.seat == 0 for f in first.faults)
    assert kinds[:2] == ["timeout", "crash"] and set(kinds[2:]) == {"absent"}, kinds
    assert len(first.actions) > 40  # played to the end on defaults
    second = _board(host, 2, deadline_ms=5000)
    assert second.faults == []  # reconnected and seated again
    _finish(host, robots)
    assert robots[0].connections == 2
    assert [b["board"] for b in robots[1].boards] == [1, 2]


def test_robot_that_disconnects_and_reconnects(host: BlueChipHost) -> None:
    robots = _table(host, Fault("disconnect", at=2))
    first = _board(host, 1, deadline_ms=5000)
    assert first.faults and first.faults[0].kind == "crash" and first.faults[0].seat == 0
    assert "disconnected" in first.faults[0].reason
    assert {f.kind for f in first.faults[1:]} <= {"absent"}
    second = _board(host, 2, deadline_ms=5000)
    assert second.faults == []
    _finish(host, robots)
    assert robots[0].connections == 2 and robots[0].ended


def test_robot_that_disconnects_for_good(host: BlueChipHost) -> None:
    robots = _table(host, Fault("disconnect", at=1), reconnect=False)
    _board(host, 1, deadline_ms=5000)
    second = _board(host, 2, deadline_ms=5000, connect_timeout=0.3)
    assert second.faults[0].kind == "crash" and "no robot" in second.faults[0].reason
    assert all(f.seat == 0 for f in second.faults) and len(second.faults) > 5
    _finish(host, robots)
    assert [b["board"] for b in robots[2].boards] == [1, 2]


def test_robot_that_bids_garbage_once(host: BlueChipHost) -> None:
    robots = _table(host, Fault("garbage_once", at=0))
    first = _board(host, 1, deadline_ms=5000)
    assert [(f.seat, f.kind) for f in first.faults] == [(0, "invalid")]
    assert "9Q" in first.faults[0].answer
    assert first.actions[0].action == "1H" and not first.actions[0].default  # its retry stood
    _finish(host, robots)
    assert robots[0].connections == 1 and robots[0].ended


def test_robot_that_only_bids_garbage(host: BlueChipHost) -> None:
    robots = _table(host, Fault("garbage", at=0))
    first = _board(host, 1, deadline_ms=5000)
    kinds = [(f.seat, f.kind) for f in first.faults]
    assert kinds[:3] == [(0, "invalid"), (0, "invalid"), (0, "invalid")]
    assert first.actions[0].default and first.actions[0].action == "P"
    second = _board(host, 2, deadline_ms=5000)
    assert second.faults == []
    _finish(host, robots)
    assert robots[0].connections == 2
