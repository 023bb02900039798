"""Executors with real processes: embedded processes, ``arena worker`` processes
(Celery + conductor) on a private Redis, a gateway and an SDK bot process.

* the same tournament gives the same records embedded and on 2 Celery workers,
  and it finishes by itself (status ``done``, rating history written);
* kill -9 of a whole worker mid-tournament: it finishes by itself, each match once;
* Redis restarted mid-tournament: it finishes by itself, each match once;
* a remote bot disconnecting mid-match: the match completes by the referee's policy
  with the fault in its record;
* an embedded run stopped with Ctrl-C (SIGINT to its process group) resumes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.records.spec import MatchSpec, make_match_id
from arena.tournaments import service
from arena.tournaments.conductor import ConductorSettings
from arena.tournaments.executors import EmbeddedExecutor, open_store
from workers.celery import make_app
from workers.dispatch import CeleryDispatcher

from .conftest import (ROOT, SDK, TEST_SETTINGS, VISIBILITY_TIMEOUT, RedisServer, Worker, start_workers, tournament_file)

SETTINGS = ConductorSettings.from_env(TEST_SETTINGS)


def register(file: Path, url: str) -> tuple[Any, Any, int]:
    store = open_store(url)
    config, added = service.register(file, store)
    return config, store, added


def submit(store: Any, tid: str, redis_url: str) -> None:
    app = make_app(redis_url, store.url, VISIBILITY_TIMEOUT)
    service.submit(store, tid, CeleryDispatcher(app, store_url=store.url), SETTINGS)


def wait_finished(store: Any, tid: str, timeout: float) -> tuple[int, int]:
    """Wait until the tournament finishes by itself (nobody but its workers acts)."""
    end = time.monotonic() + timeout
    while store.tournament(tid).status not in ("done", "stopped"):
        assert time.monotonic() < end, (f"not finished after {timeout} s: "
                                        f"{store.status_counts(tid)} {store.tournament(tid).status}")
        time.sleep(0.1)
    return store.progress(tid)

pytestmark = pytest.mark.timeout(90)


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _summary(store: Any, tid: str) -> dict[str, Any]:
    return {r.match_id: (r.returns, [(a.seat, a.action, a.default, a.forced) for a in r.actions],
                         [(f.seat, f.step, f.kind) for f in r.faults], r.decks, r.seats)
            for r in store.records(tid)}


def _exactly_once(store: Any, tid: str) -> None:
    ids = [r.match_id for r in store.records(tid)]
    specs = [s.match_id for s in store.specs(tid)]
    assert len(ids) == len(set(ids)), "a match was recorded twice"
    assert sorted(ids) == sorted(specs), "a match is missing"
    assert all(st.status == "done" for st in store.spec_states(tid))


def _wait_progress(store: Any, tid: str, fraction: float, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, total = store.progress(tid)
        if done >= fraction * total:
            return
        time.sleep(0.02)
    raise AssertionError(f"no progress: {store.progress(tid)}")


def _wait_status(store: Any, tid: str, status: str, timeout: float = 15) -> None:
    end = time.monotonic() + timeout
    while store.tournament(tid).status != status:
        assert time.monotonic() < end, f"tournament status stays {store.tournament(tid).status}"
        time.sleep(0.05)


def test_same_records_embedded_and_celery(tmp_path: Path, redis_server: RedisServer,
                                          workers: list[Worker]) -> None:
    file = tournament_file(tmp_path / "same.toml", "same", "bridge", deals=20)
    emb, cel = _url(tmp_path / "emb.db"), _url(tmp_path / "cel.db")
    config, store_e, _ = register(file, emb)
    assert EmbeddedExecutor(emb, 2).run(config.id) == (40, 40)
    assert store_e.tournament(config.id).status == "done"
    start_workers(workers, 2, redis_server.url, cel, tmp_path)
    _, store_c, _ = register(file, cel)
    submit(store_c, config.id, redis_server.url)
    assert wait_finished(store_c, config.id, 60) == (40, 40)
    assert _summary(store_e, config.id) == _summary(store_c, config.id)
    _exactly_once(store_c, config.id)
    played_by = {st.claimed_by for st in store_c.spec_states(config.id)}
    assert len(played_by) == 2, played_by  # both workers played
    # finalizing wrote the rating history; the same records give the same history
    ruleset = next(iter(store_c.records(config.id))).ruleset

    def history(store: Any) -> list[tuple[str, float, int, str | None]]:
        return [(p.bot, round(p.rating, 9), p.games, p.match_id)
                for p in store.rating_history(ruleset, rater="elo")]

    end = time.monotonic() + 15
    while not history(store_c):
        assert time.monotonic() < end, "no rating history written"
        time.sleep(0.05)
    assert history(store_c) == history(store_e) and len(history(store_e)) >= 40


def test_kill9_worker_mid_tournament(tmp_path: Path, redis_server: RedisServer,
                                     workers: list[Worker]) -> None:
    url = _url(tmp_path / "kill.db")
    config, store, _ = register(tournament_file(tmp_path / "k.toml", "kill", "calypso", deals=50), url)
    w0, _w1 = start_workers(workers, 2, redis_server.url, url, tmp_path)
    submit(store, config.id, redis_server.url)
    _wait_progress(store, config.id, 0.25)
    # kill while w0's pool process holds a match
    victim: str | None = None
    end = time.monotonic() + 10
    while victim is None and time.monotonic() < end:
        pids = w0.pool_pids()
        for st in store.spec_states(config.id):
            if st.status == "leased" and st.claimed_by and int(st.claimed_by.rsplit(":", 1)[1]) in pids:
                victim = st.match_id
                break
    assert victim is not None, "worker 0 never held a match"
    killed = w0.pool_pids() | {w0.celery_pid()}
    w0.kill9()
    done, total = wait_finished(store, config.id, 40)
    assert done == total, (done, total)
    _exactly_once(store, config.id)
    state = {st.match_id: st for st in store.spec_states(config.id)}[victim]
    # Taken over after the kill, unless worker 0 finished it in the instant between
    # the test seeing it running and the kill landing.
    finished_by_victim = state.attempts == 1 and int(str(state.claimed_by).rsplit(":", 1)[1]) in killed
    assert state.attempts >= 2 or finished_by_victim, state


def test_redis_restart_mid_tournament(tmp_path: Path, redis_server: RedisServer,
                                      workers: list[Worker]) -> None:
    url = _url(tmp_path / "redis.db")
    config, store, _ = register(tournament_file(tmp_path / "r.toml", "rr", "calypso", deals=50), url)
    start_workers(workers, 2, redis_server.url, url, tmp_path)
    submit(store, config.id, redis_server.url)
    _wait_progress(store, config.id, 0.25)
    before = store.progress(config.id)[0]
    redis_server.restart(down=1.0)
    done, total = wait_finished(store, config.id, 45)
    assert done == total, (done, total, before)
    assert before < total
    _exactly_once(store, config.id)


def test_remote_bot_disconnects_mid_match(tmp_path: Path, redis_server: RedisServer,
                                          workers: list[Worker]) -> None:
    from arena.gateway import Gateway, GatewayConfig
    from arena.remote.redis_router import RedisRouter

    url = _url(tmp_path / "remote.db")
    tid = "remote"
    spec = MatchSpec(make_match_id(tid, 0), tid, 0, "calypso", None, {}, 11,
                     ("py", "r1", "r2", "r3"),
                     ("remote:py-bot", "builtin:random", "builtin:random", "builtin:random"),
                     deadline_ms=3000)
    store = open_store(url)
    store.add_tournament(tid, tid, "calypso", {}, [spec])
    gw = Gateway("127.0.0.1:0", config=GatewayConfig(redis_url=redis_server.url, ping_interval=0.5))
    gw.start()
    bot: subprocess.Popen[bytes] | None = None
    try:
        _, token = gw.registry.register("py-bot")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(SDK), str(ROOT / "tests"), str(ROOT),
                                             env.get("PYTHONPATH", "")])
        bot = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", gw.target, "--token", token,
                                "--bot", "tournaments_exec.slow_bot:SlowRandomBot", "--no-reconnect"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        router = RedisRouter(redis_server.url)
        assert router.wait_connected("py-bot", 20)
        start_workers(workers, 1, redis_server.url, url, tmp_path)
        submit(store, tid, redis_server.url)
        end = time.monotonic() + 20
        while store.spec_states(tid)[0].status != "leased":
            assert time.monotonic() < end
            time.sleep(0.02)
        time.sleep(0.6)  # ~25 of the bot's 52 decisions (20 ms each + routing)
        assert store.progress(tid)[0] == 0, "the match ended before the disconnect"
        bot.kill()
        bot.wait(10)
        done, total = wait_finished(store, tid, 30)
        assert (done, total) == (1, 1)
        record = store.record(spec.match_id)
        assert record is not None and record.terminal
        kinds = [f.kind for f in record.faults]
        assert kinds and kinds[0] == "crash", record.faults
        assert "connected" in record.faults[0].reason, record.faults  # "disconnected" / "not connected"
        assert set(kinds[1:]) <= {"absent"}
        assert all(f.seat == 0 for f in record.faults)
        answered = [a for a in record.actions if a.seat == 0 and not a.default and not a.forced]
        assert answered, "the bot answered nothing before it left"
        assert all(a.default for a in record.actions[record.faults[0].step:] if a.seat == 0 and not a.forced)
        router.close()
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait(10)
        gw.stop(grace=0.5)


def test_embedded_stop_and_resume(tmp_path: Path) -> None:
    url = _url(tmp_path / "stop.db")
    file = tournament_file(tmp_path / "s.toml", "stop", "calypso", deals=60)
    config, store, _ = register(file, url)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", str(file), "--store", url,
                             "-j", "2"], env=env, cwd=str(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_progress(store, config.id, 0.2, timeout=40)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole process group
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stopped, total = store.progress(config.id)
    assert b"stopped" in out, out[-2000:]
    assert 0 < stopped < total
    assert EmbeddedExecutor(url, 2).run(config.id) == (total, total)
    _exactly_once(store, config.id)
    # the resumed tournament equals one played straight through
    other = _url(tmp_path / "straight.db")
    _, store2, _ = register(file, other)
    EmbeddedExecutor(other, 2).run(config.id)
    assert _summary(store, config.id) == _summary(store2, config.id)


def test_celery_gauntlet_stops_when_the_sprt_decides(tmp_path: Path, redis_server: RedisServer,
                                                     workers: list[Worker]) -> None:
    from arena.tournaments.rounds import SprtCheck

    file = tmp_path / "g.toml"
    file.write_text("""
[tournament]
id = "g"
game = "calypso"
format = "gauntlet"
deals = 60
seed = 3
deadline_ms = 5000

[gauntlet]
candidate = "h"

[gauntlet.sprt]
elo0 = 0
elo1 = 100

[[entrants]]
id = "h"
bot = "heuristic"

[[entrants]]
id = "r"
bot = "random"
""", encoding="utf-8")
    url = _url(tmp_path / "g.db")
    config, store, _ = register(file, url)
    start_workers(workers, 2, redis_server.url, url, tmp_path)
    submit(store, config.id, redis_server.url)
    _wait_status(store, config.id, "stopped", timeout=60)
    done, total = store.progress(config.id)
    assert total == 120 and 0 < done < total
    check = SprtCheck.of(config)
    assert check is not None and check(store.records(config.id)) == "H1"
    ids = [r.match_id for r in store.records(config.id)]
    assert len(ids) == len(set(ids))  # still exactly once
