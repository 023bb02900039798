"""A ladder's remote entrant joins when it is registered and connected (issue 15):
``arena tournament run`` of a ladder naming a bot nobody has registered yet starts
at once (no refusal, no wait), plays the built-in entrants, and once the bot is
registered and its SDK process connected, the bot gets encounters of its own,
with no fault; the ladder ends by itself at ``stop_after``. Real processes: the
CLI hosting its gateway, an SDK bot over gRPC on loopback.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournaments.executors import open_store

from .conftest import ROOT, SDK, _free_port

pytestmark = pytest.mark.timeout(180)

TOML = """
[tournament]
id = "lj"
game = "calypso"
format = "ladder"
deals = 1
seed = 8
deadline_ms = 5000

[ladder]
concurrency = 2
stop_after = {stop_after}

[[entrants]]
id = "h"
bot = "heuristic"

[[entrants]]
id = "r"
bot = "random"

[[entrants]]
id = "n"
bot = "heuristic?noise=0.5"

[[entrants]]
id = "late"
remote = "late-bot"
"""


def _env() -> dict[str, str]:
    env = dict(os.environ, ARENA_HEARTBEAT_SECONDS="0.3", ARENA_LEASE_SECONDS="3")
    env["PYTHONPATH"] = os.pathsep.join([str(SDK), str(ROOT), str(ROOT / "tests"), env.get("PYTHONPATH", "")])
    return env


def test_a_ladder_starts_without_its_remote_bot_and_the_bot_joins_once_registered(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    file = tmp_path / "lj.toml"
    file.write_text(TOML.format(stop_after=30), encoding="utf-8")
    port = _free_port()
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(file), "--store", url,
                            "--gateway", f"127.0.0.1:{port}", "-j", "1"], cwd=str(tmp_path), env=_env(),
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    bot = None
    try:
        store = open_store(url)
        end = time.monotonic() + 60
        while not any(t.id == "lj" for t in store.tournaments()) or store.progress("lj")[0] < 10:
            assert run.poll() is None, run.communicate()[0]
            assert time.monotonic() < end, "the ladder did not start without its remote bot"
            time.sleep(0.1)
        before = {r.match_id for r in store.records("lj")}
        _, token = store.bot_registry().register("late-bot")
        bot = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", f"127.0.0.1:{port}",
                                "--token", token, "--bot", "tournaments_exec.first_bot:FirstActionBot",
                                "--max-concurrent", "4"], env=_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out, _ = run.communicate(timeout=150)
    finally:
        for proc in (run, bot):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    assert run.returncode == 0, out
    assert "not registered yet: late-bot" in out and "Traceback" not in out
    records = list(open_store(url).records("lj"))
    first = [r for r in records if r.match_id in before]
    assert first and all("late" not in r.tags["entrants"] for r in first)
    assert all(r.tags.get("offline") == ["late"] for r in first), [r.tags for r in first]  # skipped
    joined = [r for r in records if "late" in r.tags["entrants"]]
    assert len(joined) >= 10, len(joined)  # a new entrant's wide interval gets it games at once
    assert all(r.terminal and not r.faults and "forfeit" not in r.tags for r in joined), \
        [(r.faults, r.tags) for r in joined if r.faults or not r.terminal]
    assert all(r.tags["bots"][r.tags["entrants"].index("late")] == "remote:late-bot" for r in joined), \
        joined[0].tags
    st = open_store(url).tournament("lj")
    assert st.status == "done" and len(records) == 2 * 30  # stop_after encounters, two seatings each
