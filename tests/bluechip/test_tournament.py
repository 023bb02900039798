"""A Blue Chip team in a tournament file: ``bluechip = "TEAM"`` entrants play a
duplicate team match through ``arena tournament run --bluechip HOST:PORT`` (the
CLI in its own process hosting the Table Manager; four robots — arena's heuristic
bot behind the client adapter — connecting over loopback), the tournament
finishes by itself with no fault, and Celery submission is refused."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.bluechip import BlueChipClient
from arena.bots import make_bot
from arena.tournaments import service
from arena.tournaments.config import ConfigError, loads_config
from arena.tournaments.executors import open_store

ROOT = Path(__file__).resolve().parents[2]

TOML = """
[tournament]
id = "bc-teams"
game = "bridge"
preset = "duplicate"
format = "duplicate"
boards = 2
seed = 4
deadline_ms = 10000

[duplicate]
mode = "teams"

[[entrants]]
id = "robots"
bluechip = "HEUR"

[[entrants]]
id = "native"
bot = "heuristic"
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def test_bluechip_entrants_in_a_tournament_file(tmp_path: Path) -> None:
    config = loads_config(TOML)
    assert [e.bot for e in config.entrants] == ["bluechip:HEUR", "builtin:heuristic"]
    with pytest.raises(ConfigError, match=r"entrants\[0\].bluechip: Blue Chip robots play bridge"):
        loads_config(TOML.replace('game = "bridge"\npreset = "duplicate"', 'game = "calypso"')
                     .replace("boards = 2", "deals = 2"))
    with pytest.raises(ConfigError, match=r"entrants\[0\]: give exactly one of"):
        loads_config(TOML.replace('bluechip = "HEUR"', 'bluechip = "HEUR"\nbot = "random"'))

    file = tmp_path / "bc.toml"
    file.write_text(TOML, encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'bc.db'}"
    port = _free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(file), "--store", url,
                             "--bluechip", f"127.0.0.1:{port}", "--bluechip-no-pauses"], env=env,
                            cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    clients = []
    try:
        _wait_port(port, 60)
        for seat in range(4):
            client = BlueChipClient(make_bot("bridge", "heuristic"), ("127.0.0.1", port), team="HEUR",
                                    seat=seat, timeout=30)
            thread = threading.Thread(target=client.run, daemon=True)
            thread.start()
            clients.append((client, thread))
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    for _, thread in clients:
        thread.join(10)
    store = open_store(url)
    assert store.tournament("bc-teams").status == "done"
    records = list(store.records("bc-teams"))
    assert len(records) == 4 and all(r.terminal and r.faults == [] for r in records)
    robots_seats = [[i for i, e in enumerate(r.tags["entrants"]) if e == "robots"] for r in records]
    assert {tuple(s) for s in robots_seats} == {(0, 2), (1, 3)}  # both rooms: N-S and E-W
    with pytest.raises(ValueError, match="Blue Chip robots"):
        service.submit(store, "bc-teams", dispatcher=None)  # type: ignore[arg-type]


GRPC_TOML = """
[tournament]
id = "bc-grpc"
game = "bridge"
preset = "duplicate"
format = "duplicate"
boards = 2
seed = 6
deadline_ms = 10000

[duplicate]
mode = "teams"

[[entrants]]
id = "robots"
{robots}

[[entrants]]
id = "wire"
remote = "grpc-first"
"""


def _sdk_bot(port: int, token: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "clients" / "python"), str(ROOT), str(ROOT / "tests"),
                                         env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "arenabot", "--target", f"127.0.0.1:{port}", "--token", token,
                             "--bot", "tournaments_exec.first_bot:FirstActionBot"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _run_against_grpc(tmp_path: Path, name: str, robots: str, *, bluechip: bool) -> list[object]:
    file = tmp_path / f"{name}.toml"
    file.write_text(GRPC_TOML.format(robots=robots), encoding="utf-8")
    url = f"sqlite:///{tmp_path / (name + '.db')}"
    _, token = open_store(url).bot_registry().register("grpc-first")
    gw_port, tm_port = _free_port(), _free_port()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "arena", "tournament", "run", str(file), "--store", url,
            "--gateway", f"127.0.0.1:{gw_port}"]
    if bluechip:
        args += ["--bluechip", f"127.0.0.1:{tm_port}", "--bluechip-no-pauses"]
    bot = _sdk_bot(gw_port, token)
    proc = subprocess.Popen(args, env=env, cwd=str(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    threads = []
    try:
        if bluechip:
            _wait_port(tm_port, 60)
            for seat in range(4):
                client = BlueChipClient(make_bot("bridge", "heuristic"), ("127.0.0.1", tm_port), team="HEUR",
                                        seat=seat, timeout=30)
                thread = threading.Thread(target=client.run, daemon=True)
                thread.start()
                threads.append(thread)
        out, _ = proc.communicate(timeout=150)
    finally:
        if proc.poll() is None:
            proc.kill()
        bot.kill()
        bot.wait(10)
    assert proc.returncode == 0, out
    for thread in threads:
        thread.join(10)
    records = list(open_store(url).records("bc-grpc"))
    assert len(records) == 4 and all(r.terminal and r.faults == [] for r in records)
    return [([(a.seat, a.action, a.forced) for a in r.actions], r.returns, r.decks) for r in records]


def test_bluechip_robots_against_a_grpc_bot_play_as_natively(tmp_path: Path) -> None:
    """Blue Chip robots (the heuristic behind the client adapter) against a gRPC
    bot process give the same records as the heuristic played natively against
    the same gRPC bot."""
    wire = _run_against_grpc(tmp_path, "robots", 'bluechip = "HEUR"', bluechip=True)
    native = _run_against_grpc(tmp_path, "native", 'bot = "heuristic"', bluechip=False)
    assert wire == native
