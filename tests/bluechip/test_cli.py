"""``arena bluechip host`` and ``arena bluechip client`` (typer sub-app), over loopback."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

from typer.testing import CliRunner

from arena.bluechip import BlueChipAgent, BlueChipHost, run_match
from arena.bluechip.cli import app
from arena.bots import make_bot
from arena.games import get_game
from arena.records.record import load

from bluechip.robot import SEATS, Robot  # noqa: I001


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_host_command_plays_a_team_match_against_four_robots(tmp_path: Path) -> None:
    port = _free_port()
    out = tmp_path / "records.jsonl"
    result: dict[str, object] = {}

    def run() -> None:
        result["r"] = CliRunner().invoke(app, ["host", "--team", "BOTS", "--against", "heuristic", "--boards", "2",
                                               "--address", f"127.0.0.1:{port}", "--no-pauses", "--wait", "10",
                                               "--records", str(out)])
    thread = threading.Thread(target=run)
    thread.start()
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()  # the host ignores it
            break
        except OSError:
            time.sleep(0.025)
    else:
        raise AssertionError("host not listening")
    robots = [Robot(port, "BOTS", SEATS[seat]).start() for seat in range(4)]
    thread.join(30)
    for r in robots:
        r.join(5)
        assert r.ended and len(r.boards) == 2  # each robot sits in one room per board
    res = result["r"]
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert "BOTS" in res.output and "IMPs over 2 boards" in res.output  # type: ignore[attr-defined]
    with out.open() as fp:
        records = load(fp)
    assert len(records) == 4 and all(r.terminal for r in records)


def test_client_command_plays_a_seat(host: BlueChipHost) -> None:
    result: dict[str, object] = {}

    def run() -> None:
        result["r"] = CliRunner().invoke(app, ["client", "--tm", f"127.0.0.1:{host.port}", "--seat", "E",
                                               "--bot", "heuristic", "--team", "CLI"])
    thread = threading.Thread(target=run)
    thread.start()
    assert host.wait_seated([("CLI", 1)], 5)
    for board in (1, 2):
        agents = [make_bot("bridge", "heuristic") for _ in range(4)]
        agents[1] = BlueChipAgent(host, "CLI", 1)
        record = run_match(get_game("bridge"), agents, seed=board, init={"board": board}).record
        assert record.faults == []
        agents[1].wait_board(5)
    host.stop()
    thread.join(10)
    res = result["r"]
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert "session over: 2 boards" in res.output  # type: ignore[attr-defined]


def test_client_command_reports_a_refusal(host: BlueChipHost) -> None:
    Robot(host.port, "CLI", "North").start()
    assert host.wait_seated([("CLI", 0)], 5)
    res = CliRunner().invoke(app, ["client", "--tm", f"127.0.0.1:{host.port}", "--seat", "N", "--team", "CLI"])
    assert res.exit_code == 1 and "Seat already has been taken" in res.output


def test_host_command_refuses_records_in_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "records.jsonl"
    res = CliRunner().invoke(app, ["host", "--team", "T", "--address", "127.0.0.1:0", "--wait", "0",
                                   "--records", str(target)])
    assert res.exit_code == 2 and "--records" in res.output
    assert not target.parent.exists()  # nothing created, nothing listened on
