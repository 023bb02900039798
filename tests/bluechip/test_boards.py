"""Complete boards between the host and the tests' own robot (tests/bluechip/robot.py)."""

from __future__ import annotations

from arena.bluechip import BlueChipAgent, BlueChipHost, run_match
from arena.bots import make_bot
from arena.games import get_game

from bluechip.robot import SEATS, Robot  # noqa: I001

GAME = get_game("bridge")


def test_four_robots_play_complete_boards(host: BlueChipHost) -> None:
    robots = [Robot(host.port, "NS" if s % 2 == 0 else "EW", SEATS[s]).start() for s in range(4)]
    assert host.wait_seated([("NS", 0), ("EW", 1), ("NS", 2), ("EW", 3)], 5)
    played = 0
    for board in range(1, 7):
        agents = [BlueChipAgent(host, "NS" if s % 2 == 0 else "EW", s) for s in range(4)]
        result = run_match(GAME, agents, seed=100 + board, init={"board": board}, deadline_ms=5000)
        assert result.record.faults == [], result.record.faults
        assert result.state.is_terminal()
        played += len(result.record.actions) > 4
    host.stop()
    for r in robots:
        r.join(5)
        assert r.error is None and r.ended
        assert [b["board"] for b in r.boards] == [1, 2, 3, 4, 5, 6]
    assert played >= 3  # most of these boards are played out, not passed out
    # every robot saw the same calls and cards as the engine recorded
    for b in range(6):
        assert len({tuple(r.boards[b]["calls"]) for r in robots}) == 1  # type: ignore[arg-type]
        assert len({tuple(r.boards[b]["cards"]) for r in robots}) == 1  # type: ignore[arg-type]


def test_one_robot_at_a_table_of_built_in_bots(host: BlueChipHost) -> None:
    robot = Robot(host.port, "SOLO", "South").start()
    assert host.wait_seated([("SOLO", 2)], 5)
    for board in (1, 2, 3, 4):
        agents = [make_bot("bridge", "heuristic") for _ in range(4)]
        agents[2] = BlueChipAgent(host, "SOLO", 2)
        result = run_match(GAME, agents, seed=7 + board, init={"board": board}, deadline_ms=5000)
        assert result.record.faults == []
        seen = robot.boards[-1] if robot.boards and robot.boards[-1]["board"] == board else None
        assert agents[2].wait_board(5)
        seen = robot.boards[-1]
        assert seen["board"] == board
        tokens = [a.action for a in result.record.actions]
        n_calls = len(seen["calls"])  # type: ignore[arg-type]
        calls = [("1N" if c == "1NT" else c.replace("NT", "N")) for c in seen["calls"]]  # type: ignore[union-attr]
        assert calls == tokens[:n_calls]
        assert seen["cards"] == tokens[n_calls:]
    host.stop()
    robot.join(5)
    assert robot.error is None and robot.ended


def test_tournament_hook_make_agent_on_the_process_host() -> None:
    import pytest

    import arena.bluechip as bc
    from arena.bluechip.match import make_entrant

    with pytest.raises(RuntimeError):
        bc.make_agent("HOOK", 0)
    host = bc.start_host("127.0.0.1:0", bc.HostConfig(connect_timeout=3).without_pauses())
    try:
        assert bc.current_host() is host
        robot = Robot(host.port, "HOOK", "West").start()
        agents = [make_entrant("random", s, host=None, seed=s) for s in range(4)]
        agents[3] = bc.make_agent(bc.bluechip_team("bluechip:HOOK") or "", 3, opponents="random")
        record = bc.run_match(GAME, agents, seed=9, init={"board": 4}, deadline_ms=5000).record
        assert record.faults == [] and record.terminal
    finally:
        bc.stop_host()
    robot.join(5)
    assert robot.ended and robot.teams == 'Teams : N/S : "random" E/W : "HOOK"'
