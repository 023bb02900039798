"""Remote entrants in ``arena tournament run``: real processes (the CLI hosting its
own gateway, an SDK bot process over gRPC on loopback).

* an unregistered bot, or one that never connects: a one-line refusal naming it,
  nothing stored;
* a connected bot: the tournament is played and finishes by itself, 0 faults;
* the bot killed for 5 s in the middle: its matches wait for it (deferred, not
  forfeited) and the tournament finishes with the same records as a run without
  the outage (a deterministic bot);
* the bot gone for good: once the absence limit has passed, its remaining matches
  are recorded as forfeits (no deal, no score, not rated) and the tournament
  finishes by itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.tournaments.executors import open_store

from .conftest import ROOT, SDK

pytestmark = pytest.mark.timeout(180)

TOML = """
[tournament]
id = "{tid}"
game = "calypso"
format = "round_robin"
deals = {deals}
seed = 3
deadline_ms = 5000

[[entrants]]
id = "mine"
remote = "{bot}"

[[entrants]]
id = "r"
bot = "random"
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(absence_limit: str = "60") -> dict[str, str]:
    env = dict(os.environ, ARENA_HEARTBEAT_SECONDS="0.3", ARENA_LEASE_SECONDS="3",
               ARENA_ABSENCE_LIMIT_SECONDS=absence_limit)
    env["PYTHONPATH"] = os.pathsep.join([str(SDK), str(ROOT), str(ROOT / "tests"), env.get("PYTHONPATH", "")])
    return env


def _run(args: list[str], cwd: Path, *, absence_limit: str = "60", **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=str(cwd), env=_env(absence_limit),
                            text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def _bot(target: str, token: str) -> subprocess.Popen[bytes]:
    # deterministic: the same decisions whatever the timing (the first legal action)
    return subprocess.Popen([sys.executable, "-m", "arenabot", "--target", target, "--token", token,
                             "--bot", "tournaments_exec.first_bot:FirstActionBot", "--max-concurrent", "4"], env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _register(url: str, bot: str) -> str:
    store = open_store(url)
    _, token = store.bot_registry().register(bot)
    return token


def _file(tmp_path: Path, tid: str, bot: str, deals: int) -> Path:
    path = tmp_path / f"{tid}.toml"
    path.write_text(TOML.format(tid=tid, bot=bot, deals=deals), encoding="utf-8")
    return path


def _summary(url: str, tid: str) -> dict[str, Any]:
    return {r.match_id: (r.returns, [(a.seat, a.action, a.default) for a in r.actions],
                         [(f.seat, f.kind) for f in r.faults]) for r in open_store(url).records(tid)}


def test_unregistered_or_absent_bots_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    port = _free_port()
    proc = _run(["tournament", "run", str(_file(tmp_path, "t-unreg", "ghost", 2)), "--store", url,
                 "--gateway", f"127.0.0.1:{port}"], tmp_path)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2, out
    assert "entrants[0].remote: bot 'ghost' is not registered" in out and "Traceback" not in out
    _register(url, "sleepy")
    proc = _run(["tournament", "run", str(_file(tmp_path, "t-absent", "sleepy", 2)), "--store", url,
                 "--gateway", f"127.0.0.1:{port}", "--wait-for-bots", "1"], tmp_path)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2, out
    assert "not connected after 1 s: sleepy" in out and "nothing was played" in out
    assert open_store(url).tournaments() == []  # nothing "running" left behind


def test_a_remote_bot_plays_and_an_outage_of_5_s_forfeits_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.db'}"
    ref_url = f"sqlite:///{tmp_path / 'ref.db'}"
    token = _register(url, "mine-bot")
    ref_token = _register(ref_url, "mine-bot")
    file = _file(tmp_path, "t-remote", "mine-bot", 60)

    # the reference: no outage
    port = _free_port()
    bot = _bot(f"127.0.0.1:{port}", ref_token)
    try:
        proc = _run(["tournament", "run", str(file), "--store", ref_url, "--gateway", f"127.0.0.1:{port}",
                     "-j", "1"], tmp_path)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    finally:
        bot.kill()
        bot.wait(10)
    reference = _summary(ref_url, "t-remote")
    assert len(reference) == 120 and all(not faults for _, _, faults in reference.values())

    # the same, with the bot killed for 5 s once a third of the matches are recorded
    port = _free_port()
    target = f"127.0.0.1:{port}"
    bot = _bot(target, token)
    proc = _run(["tournament", "run", str(file), "--store", url, "--gateway", target, "-j", "1"], tmp_path)
    try:
        store = open_store(url)
        end = time.monotonic() + 90
        while True:
            try:
                if store.progress("t-remote")[0] >= 10:
                    break
            except Exception:  # noqa: BLE001 - not stored yet
                pass
            assert time.monotonic() < end and proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.05)
        bot.kill()
        bot.wait(10)
        killed_wall = time.time()
        killed_at = store.progress("t-remote")[0]
        time.sleep(5.0)
        bot = _bot(target, token)
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            proc.kill()
        bot.kill()
        bot.wait(10)
    from datetime import datetime

    assert killed_at < 120
    records = {r.match_id: r for r in open_store(url).records("t-remote")}
    assert len(records) == 120
    got = _summary(url, "t-remote")
    # matches in flight when the bot died carry its faults (its own: it died
    # mid-decision); every match started after the kill waited for the bot and
    # equals the reference: no match was played out against the absent bot
    in_flight = {m for m, r in records.items() if datetime.fromisoformat(r.started_at).timestamp() < killed_wall}
    later = set(records) - in_flight
    assert len(later) >= 120 - killed_at - 40, (len(later), killed_at)  # 32 remote threads at once
    assert {m: got[m] for m in later} == {m: reference[m] for m in later}
    forfeited = [m for m in later if got[m][2]]
    assert forfeited == []


def test_a_bot_gone_beyond_the_absence_limit_forfeits_its_matches_unscored(tmp_path: Path) -> None:
    from arena.tournaments import service

    url = f"sqlite:///{tmp_path / 'f.db'}"
    token = _register(url, "gone-bot")
    target = f"127.0.0.1:{_free_port()}"
    bot = _bot(target, token)
    proc = _run(["tournament", "run", str(_file(tmp_path, "t-gone", "gone-bot", 40)), "--store", url,
                 "--gateway", target, "-j", "1"], tmp_path, absence_limit="1")
    try:
        store = open_store(url)
        end = time.monotonic() + 90
        while True:
            try:
                if store.progress("t-gone")[0] >= 2:
                    break
            except Exception:  # noqa: BLE001 - not stored yet
                pass
            assert time.monotonic() < end and proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            time.sleep(0.02)
        bot.kill()
        bot.wait(10)
        killed_wall = time.time()
        killed_at = store.progress("t-gone")[0]
        out, _ = proc.communicate(timeout=120)  # finishes by itself, the bot never returns
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            proc.kill()
        bot.kill()
        bot.wait(10)
    from datetime import datetime

    store = open_store(url)
    records = {r.match_id: r for r in store.records("t-gone")}
    assert len(records) == 80 and store.tournament("t-gone").status == "done"
    forfeits = {m: r for m, r in records.items() if "forfeit" in r.tags}
    played = set(records) - set(forfeits)
    # only matches in flight at the kill (up to the 32 remote threads) were played out.
    # A match whose presence check passed just before the kill (or before the gateway
    # saw the stream end) may stamp its start a moment after it: such a match met a
    # dead bot, so the record carries the bot's own faults. No clean record starts
    # after the kill, and every forfeit was decided after it.
    late = [m for m in played if datetime.fromisoformat(records[m].started_at).timestamp() >= killed_wall]
    for m in late:
        seats = {i for i, e in enumerate(records[m].tags["entrants"]) if e == "mine"}
        assert {f.seat for f in records[m].faults} & seats, (m, records[m].faults)
    assert all(datetime.fromisoformat(r.started_at).timestamp() > killed_wall for r in forfeits.values())
    assert len(forfeits) >= 80 - killed_at - 40, (len(forfeits), killed_at)  # 32 remote threads at once
    for r in forfeits.values():
        assert (r.terminal, r.actions, r.returns, r.decks) == (False, [], [], [])
        assert r.tags["forfeit"]["absent"] == ["mine"] and r.tags["forfeit"]["bots"] == ["gone-bot"]
        seats = [i for i, e in enumerate(r.tags["entrants"]) if e == "mine"]  # calypso: partners
        assert [(f.seat, f.kind) for f in r.faults] == [(i, "absent") for i in seats]
        assert "absence limit (1 s)" in r.faults[0].reason
    # nothing scored: no results rows for forfeits, and the standings list them
    assert {x.match_id for x in store.results("t-gone")} == played
    st = service.standings(store, "t-gone")
    assert st.recorded == len(played) and sorted(f["match_id"] for f in st.details["forfeits"]) == sorted(forfeits)
    assert st.details["missing"] == []
    assert f"{len(forfeits)} matches forfeited, not scored: mine absent in {len(forfeits)}" in " ".join(out.split())
