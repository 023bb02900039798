"""Benchmark: matches per minute of one fixed tournament, embedded and on Celery.

The tournament: a round robin of ``--game`` (default calypso, about 25 ms a match;
bridge matches take 3 ms, about what the store's writes cost, which then dominate),
heuristic vs random, ``--deals`` deals (two seatings each), built-in bots only. Measured in the same run:

* embedded with 1 process (played inline: the baseline for Celery's own cost) and
  with 2 processes (spawned pool);
* Celery with 1 and with 2 workers (``arena worker -c 1`` each: a Celery worker
  and its conductor loop), from submit (one conductor pass offering the work) until
  the tournament is finished by itself in the store.

Celery's own cost is estimated as ``wall(Celery, 1 worker) / wall(embedded, 1 process) - 1``
(both write every record to the store, so the difference is queueing, task
dispatch and result handling).

Run: ``python tests/benchmarks/bench_tournament.py [--game calypso] [--deals 150] [--repeat 3] [--redis-url
redis://127.0.0.1:6379/9] [--json out.json]``. Uses (and flushes) the Redis
database given, default db 9 of the local Redis. Not a test: figures vary with load.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOML = """
[tournament]
id = "bench"
game = "{game}"
format = "round_robin"
deals = {deals}
seed = 5
deadline_ms = 10000

[[entrants]]
id = "heuristic"
bot = "heuristic"

[[entrants]]
id = "random"
bot = "random"
"""


def start_workers(n: int, redis_url: str, store_url: str, logdir: Path) -> list[subprocess.Popen[bytes]]:
    env = dict(os.environ, ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=store_url)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    procs = []
    for i in range(n):
        log = logdir / f"w{n}-{i}.log"
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "arena", "worker", "-P", "prefork", "-c", "1",
             "-n", f"bench{n}-{i}@%h", "-l", "info", "--without-gossip", "--without-mingle",
             "--without-heartbeat"], env=env, cwd=str(ROOT), stdout=open(log, "wb"),  # noqa: SIM115
            stderr=subprocess.STDOUT, start_new_session=True))
    for i, proc in enumerate(procs):
        log = logdir / f"w{n}-{i}.log"
        end = time.monotonic() + 60
        while b" ready." not in log.read_bytes():
            if time.monotonic() > end or proc.poll() is not None:
                raise RuntimeError(log.read_text(errors="replace")[-2000:])
            time.sleep(0.05)
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One round of the four variants; returns their wall times in seconds."""
    import redis

    from arena.tournaments import service
    from arena.tournaments.executors import EmbeddedExecutor, open_store
    from workers.celery import make_app
    from workers.dispatch import CeleryDispatcher

    walls: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tdir = Path(tmp)
        toml = tdir / "bench.toml"
        toml.write_text(TOML.format(deals=args.deals, game=args.game))

        def fresh(name: str) -> tuple[str, Any, int]:
            url = f"sqlite:///{tdir / name}.db"
            store = open_store(url)
            config, _ = service.register(toml, store)
            return url, store, store.progress(config.id)[1]

        for jobs in (1, 2):
            url, store, total = fresh(f"embedded{jobs}")
            t = time.perf_counter()
            done, _ = EmbeddedExecutor(url, jobs).run("bench")
            walls[f"embedded_{jobs}"] = time.perf_counter() - t
            assert done == total
        client = redis.Redis.from_url(args.redis_url)
        for n in (1, 2):
            client.flushdb()
            url = f"sqlite:///{tdir / f'celery{n}'}.db"
            open_store(url)  # an empty, migrated store: the workers' conductors find nothing yet
            procs = start_workers(n, args.redis_url, url, tdir)
            try:
                # registered only now, so that no worker plays before the clock starts
                # (their conductor loops would pick up a tournament already stored)
                _, store, total = fresh(f"celery{n}")
                t = time.perf_counter()
                app = make_app(args.redis_url, url)
                service.submit(store, "bench", CeleryDispatcher(app, store_url=url))
                end = time.monotonic() + 600
                while store.tournament("bench").status != "done":
                    assert time.monotonic() < end, store.status_counts("bench")
                    time.sleep(0.05)
                walls[f"celery_{n}"] = time.perf_counter() - t
                done = store.progress("bench")[0]
                assert done == total, (done, total)
                records = list(store.records("bench"))
                assert len({r.match_id for r in records}) == total
            finally:
                stop_workers(procs)
        client.flushdb()
    walls["matches"] = total
    return walls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="calypso")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the four variants; the figures are the medians of the rounds")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    rounds = []
    for i in range(args.repeat):
        r = measure(args)
        rounds.append(r)
        if args.repeat > 1:
            print(f"round {i + 1}: " + "  ".join(f"{k} {v:.2f} s" for k, v in r.items() if k != "matches")
                  + f"  celery 2/1 {r['celery_1'] / r['celery_2']:.2f}x"
                  + f"  cost {(r['celery_1'] / r['embedded_1'] - 1) * 100:.1f}%", flush=True)
    total = int(rounds[0]["matches"])
    med = {k: statistics.median(r[k] for r in rounds) for k in ("embedded_1", "embedded_2", "celery_1", "celery_2")}
    figures: dict[str, Any] = {"matches": total, "cpus": os.cpu_count(), "game": args.game,
                               "rounds": len(rounds)}
    for key, wall in med.items():
        figures[key] = {"seconds": round(wall, 3), "matches_per_minute": round(total / wall * 60, 1)}
    ratio = [r["celery_1"] / r["celery_2"] for r in rounds]
    cost = [r["celery_1"] / r["embedded_1"] - 1 for r in rounds]
    figures["celery_2_over_1"] = round(statistics.median(ratio), 3)
    figures["embedded_2_over_1"] = round(statistics.median(r["embedded_1"] / r["embedded_2"] for r in rounds), 3)
    figures["celery_cost_fraction"] = round(statistics.median(cost), 4)
    print(f"tournament: {total} {args.game} matches (heuristic vs random), {os.cpu_count()} CPUs"
          + (f"; medians of {len(rounds)} rounds" if len(rounds) > 1 else ""))
    for key in ("embedded_1", "embedded_2", "celery_1", "celery_2"):
        f = figures[key]
        print(f"  {key:<11} {f['seconds']:7.2f} s  {f['matches_per_minute']:9.1f} matches/min")
    print(f"  Celery 2 workers / 1 worker: {figures['celery_2_over_1']:.2f}x "
          f"(embedded 2/1: {figures['embedded_2_over_1']:.2f}x)")
    print(f"  Celery's own cost vs inline play: {figures['celery_cost_fraction'] * 100:.1f}%")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
