"""A Celery worker process plays several remote matches at once, on threads
(``arena worker --remote-matches N`` / ``ARENA_REMOTE_MATCHES``): a real gateway
(``arena serve``), a real SDK bot process that takes 20 ms per decision, one
``arena worker -c 1`` on a private Redis. The matches overlap up to the limit and
never beyond it, the local matches of the same tournament are played beside them,
and the records equal an embedded run's."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from arena.tournaments import service
from arena.tournaments.executors import open_store
from workers.celery import make_app
from workers.dispatch import CeleryDispatcher
from workers.tasks import REMOTE_MATCHES, remote_matches

from .conftest import VISIBILITY_TIMEOUT, RedisServer, Worker, worker_env
from .test_platform_faults import _env, _free_port, _gateway, _summary, embedded_summary

pytestmark = pytest.mark.timeout(240)

LIMIT = 3

TOML = """
[tournament]
id = "rt"
game = "bridge"
format = "round_robin"
deals = 4
seed = 5
deadline_ms = 5000

[[entrants]]
id = "mine"
remote = "rt-bot"

[[entrants]]
id = "r"
bot = "random"

[[entrants]]
id = "h"
bot = "heuristic"
"""


def _bot(port: int, token: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "arenabot", "--target", f"127.0.0.1:{port}", "--token", token,
                             "--bot", "tournaments_exec.first_bot:SlowFirstActionBot", "--max-concurrent", "8"],
                            env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _most_at_once(intervals: list[tuple[float, float]]) -> int:
    """The largest number of intervals that overlap at one instant."""
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def test_remote_matches_setting() -> None:
    assert remote_matches({}) == REMOTE_MATCHES
    assert remote_matches({"ARENA_REMOTE_MATCHES": "3"}) == 3
    for bad in ("0", "-2", "many", "1.5"):
        with pytest.raises(ValueError, match="ARENA_REMOTE_MATCHES"):
            remote_matches({"ARENA_REMOTE_MATCHES": bad})


def test_one_worker_process_plays_remote_matches_on_threads(tmp_path: Path, redis_server: RedisServer) -> None:
    file = tmp_path / "rt.toml"
    file.write_text(TOML, encoding="utf-8")

    reference = embedded_summary(file, "rt", "rt-bot", _bot)  # the same tournament, embedded

    url = f"sqlite:///{tmp_path / 'rt.db'}"
    store = open_store(url)
    _, token = store.bot_registry().register("rt-bot")
    port = _free_port()
    gateway = _gateway(port, url, redis_server.url, tmp_path / "gateway.log")
    bot = _bot(port, token)
    worker = Worker("rt", dict(worker_env(redis_server.url, url), ARENA_REMOTE_MATCHES=str(LIMIT)),
                    tmp_path / "worker.log", concurrency=1)
    try:
        worker.wait_ready()
        from arena.remote.redis_router import RedisRouter

        router = RedisRouter(redis_server.url)
        assert router.wait_connected("rt-bot", 30)
        router.close()
        service.register(file, store)
        service.submit(store, "rt", CeleryDispatcher(make_app(redis_server.url, url, VISIBILITY_TIMEOUT),
                                                     store_url=url))
        end = time.monotonic() + 180
        while store.tournament("rt").status != "done":
            assert time.monotonic() < end, store.status_counts("rt")
            time.sleep(0.1)
        pool = worker.pool_pids()
    finally:
        worker.stop()
        bot.kill()
        bot.wait(10)
        gateway.kill()
        gateway.wait(10)

    records = list(store.records("rt"))
    assert len(reference) == 24
    assert _summary(store, "rt") == reference
    assert not any(r.faults for r in records)
    assert len(pool) == 1  # one pool process played everything

    def span(r: Any) -> tuple[float, float]:
        return datetime.fromisoformat(r.started_at).timestamp(), datetime.fromisoformat(r.finished_at).timestamp()

    remote = [span(r) for r in records if any(b.startswith("remote:") for b in r.tags["bots"])]
    local = [span(r) for r in records if not any(b.startswith("remote:") for b in r.tags["bots"])]
    assert len(remote) == 16 and len(local) == 8
    # each remote match (the bot holds two seats of a bridge board) takes ~30 x 20 ms:
    # in one process they overlap up to the limit, never beyond it
    assert _most_at_once(remote) == LIMIT, sorted(remote)
    # the local matches (random vs heuristic) are played while remote ones are in flight
    assert any(a < la and lb < b for la, lb in local for a, b in remote), (local, remote)
