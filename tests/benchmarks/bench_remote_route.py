"""Benchmark: the remote route of the distributed mode, beside its two plain parts.

Route: a match in a Celery worker (``arena.tournament.work``) ->
:class:`~arena.remote.agent.RemoteAgent` -> :class:`~arena.remote.redis_router.RedisRouter`
(one pipelined round trip: Lua push + BLPOP on the reply key) -> Redis -> the
gateway's :class:`~arena.gateway.redis_bridge.RedisBridge` -> session -> gRPC stream
-> Python SDK random bot process -> back the same way.

Measured with 1 concurrent match and with 8: a worker of ``--processes`` pool
processes (default 2: one per core, as deployed), each playing its share of the concurrent remote matches on
threads (``ARENA_REMOTE_MATCHES`` = concurrent matches / processes; a worker plays
remote matches on threads, :mod:`workers.tasks`). Every seat of each
bridge match is the remote bot, so every decision asked is remote; the per-decision
time is the referee's measure (``ActionEntry.ms``: ``RemoteAgent.act``), the rate is
decisions asked / wall time of the phase (first match start to last match end). The
first match of every batch is left out (connection setup). Per process (the worker's
pool counted as one), CPU ms and wake-ups (voluntary context switches, all threads)
per decision asked, from the phase's start until its tournament is done; the
workers' wake-ups are left out (their remote matches run on threads that end with
each task, and an ended thread's switches are no longer readable).

Baselines in the same run: plain grpc.aio bidirectional-stream ping-pong (the
request's size) between this process and a child echo server, and plain Redis
request/reply (RPUSH + BLPOP each way) between this process and a child process.
Both are measured before and after the route phases (their p50s drift by 10-20 %
between runs on a shared machine); the ratio uses the mean of the two sums.

The gateway is ``arena serve`` in its own process, as deployed (``--event-loop``:
``auto`` is uvloop when installed); the bot is the SDK's ``python -m arenabot``
with its default loop (also uvloop when installed). The baselines use plain
asyncio, as a user's own gRPC or Redis code would.

Run: ``python tests/benchmarks/bench_remote_route.py [--matches 40] [--repeat 3]
[--processes 2] [--event-loop auto] [--redis-url redis://127.0.0.1:6379/9] [--json out.json]`` (uses and
flushes that Redis database). On a shared machine single runs scatter (the ratio by
about +-0.1, the rate by +-15 %): ``--repeat`` prints the medians.
Not a test: figures vary with machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python"
for _p in (str(ROOT), str(SDK), str(Path(__file__).resolve().parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

REDIS_ECHO = r"""
import sys, redis
r = redis.Redis.from_url(sys.argv[1])
print("ready", flush=True)
while True:
    item = r.blpop(["bench:req"], timeout=30)
    if item is None or item[1] == b"stop":
        break
    r.rpush("bench:rep", item[1])
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def plain_redis(url: str, size: int, seconds: float) -> dict[str, float]:
    """Sequential request/reply through Redis lists between two processes."""
    import redis

    client = redis.Redis.from_url(url)
    client.delete("bench:req", "bench:rep")
    proc = subprocess.Popen([sys.executable, "-c", REDIS_ECHO, url], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    payload = b"x" * size
    times: list[float] = []
    try:
        for _ in range(200):
            client.rpush("bench:req", payload)
            client.blpop(["bench:rep"], timeout=5)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t = time.perf_counter()
            client.rpush("bench:req", payload)
            client.blpop(["bench:rep"], timeout=5)
            times.append(time.perf_counter() - t)
    finally:
        client.rpush("bench:req", b"stop")
        proc.wait(10)
    return {"rate": len(times) / sum(times), "p50_ms": percentile(times, 0.5) * 1e3,
            "p99_ms": percentile(times, 0.99) * 1e3, "n": len(times)}


def request_size() -> int:
    """Serialized size of a typical bridge DecisionRequest (mid-auction)."""
    from arena.bot.v1 import bot_pb2
    from arena.remote import convert
    from arena.games import get_game

    state = get_game("bridge").new_initial_state(seed=1)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    legal = state.legal_actions()
    req = bot_pb2.DecisionRequest(match_id="bench:000000", game="bridge", seat=seat, attempt=1,
                                  legal_actions=convert.legal_actions_to_proto(
                                      legal, [state.action_to_string(a) for a in legal]))
    convert.set_observation(req, "bridge", state.observation(seat))
    return len(req.SerializeToString())


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (its own, not its children's)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid: int) -> int:
    """Voluntary context switches of all a process's threads (each is a wake-up after
    a wait: a syscall that blocked). Steadier than CPU time on a shared machine, and
    most of a decision's cost on this route is its wake-ups and syscalls."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches"):
                    total += int(line.split()[1])
    except OSError:
        pass
    return total


def process_tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            todo += [int(x) for x in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except OSError:
            pass
    return out


def _ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def route_phase(redis_url: str, tdir: Path, tid: str, concurrency: int, matches: int,
                others: dict[str, int], processes: int = 1) -> dict[str, Any]:
    from arena.records.spec import MatchSpec, make_match_id
    from arena.tournaments.conductor import Conductor
    from arena.tournaments.executors import open_store
    from workers.celery import make_app
    from workers.dispatch import CeleryDispatcher

    url = f"sqlite:///{tdir / tid}.db"
    specs = [MatchSpec(make_match_id(tid, i), tid, i, "bridge", None, {}, 1000 + i,
                       ("bot",) * 4, ("remote:bench-bot",) * 4, init={"board": i % 16 + 1},
                       deadline_ms=5000) for i in range(matches * concurrency)]
    store = open_store(url)
    store.add_tournament(tid, tid, "bridge", {}, specs)
    processes = max(1, min(processes, concurrency))
    env = dict(os.environ, ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=url,
               ARENA_REMOTE_MATCHES=str(max(1, concurrency // processes)))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    log = tdir / f"{tid}.log"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-P", "prefork",
         "-c", str(processes), "-n", f"{tid}@%h", "-l", "info", "--without-gossip",
         "--without-mingle", "--without-heartbeat"], env=env, cwd=str(ROOT),
        stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)  # noqa: SIM115
    try:
        end = time.monotonic() + 60
        while b" ready." not in log.read_bytes():
            if time.monotonic() > end or worker.poll() is not None:
                raise RuntimeError(log.read_text(errors="replace")[-2000:])
            time.sleep(0.05)
        time.sleep(0.5)  # let the pool processes settle
        conductor = Conductor(store, CeleryDispatcher(make_app(redis_url, url), store_url=url))
        pids = {"workers": process_tree(worker.pid), **{k: [v] for k, v in others.items()}}
        cpu0 = {k: sum(cpu_seconds(p) for p in v) for k, v in pids.items()}
        wake0 = {k: sum(wakeups(p) for p in v) for k, v in pids.items()}
        conductor.reconcile(tid)  # offers work; the worker's tasks finish the tournament
        end = time.monotonic() + 600
        while store.tournament(tid).status != "done" and time.monotonic() < end:
            time.sleep(0.05)
        done, total = store.progress(tid)
        cpu = {k: sum(cpu_seconds(p) for p in v) - cpu0[k] for k, v in pids.items()}
        wake = {k: sum(wakeups(p) for p in v) - wake0[k] for k, v in pids.items()}
        assert done == total, (done, total)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(20)
    records = [r for r in store.records(tid) if r.tags["index"] % matches != 0]
    faults = sum(len(r.faults) for r in records)
    times = [a.ms for r in records for a in r.actions if not a.forced and not a.default]
    start = min(_ts(r.started_at) for r in records)
    stop = max(_ts(r.finished_at) for r in records)
    asked = sum(1 for r in store.records(tid) for a in r.actions if not a.forced)
    return {"cpu_ms_per_decision": {k: round(v * 1000 / asked, 3) for k, v in cpu.items()},
            "wakeups_per_decision": {k: round(v / asked, 2) for k, v in wake.items() if k != "workers"},
            "concurrent_matches": concurrency, "processes": processes, "decisions": len(times),
            "rate": len(times) / (stop - start), "p50_ms": percentile(times, 0.5),
            "p99_ms": percentile(times, 0.99), "faults": faults}


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One full measurement: baselines, the two route phases, baselines again."""
    import redis

    from arena.remote.redis_router import RedisRouter
    from bench_gateway import plain_ping_pong

    size = request_size()
    client = redis.Redis.from_url(args.redis_url)
    client.flushdb()
    figures: dict[str, Any] = {"request_bytes": size, "load_before": os.getloadavg()[0]}
    figures["plain_grpc"] = plain_ping_pong(size, args.seconds)
    figures["plain_redis"] = plain_redis(args.redis_url, size, args.seconds)
    with tempfile.TemporaryDirectory() as tmp:
        store_url = f"sqlite:///{Path(tmp) / 'gateway.db'}"
        from arena.store import Store

        store = Store(store_url)
        store.migrate()
        _, token = store.bot_registry().register("bench-bot")
        store.dispose()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(SDK), str(ROOT), env.get("PYTHONPATH", "")])
        address = f"127.0.0.1:{free_port()}"
        # the gateway as deployed: its own process (arena serve), loop in its main thread
        gateway = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--address", address,
                                    "--store", store_url, "--redis-url", args.redis_url,
                                    "--operator-token", "bench", "--event-loop", args.event_loop],
                                   env=env, stderr=subprocess.DEVNULL)
        bot = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", address, "--token", token,
                                "--bot", "random", "--max-concurrent", "64"], env=env,
                               stderr=subprocess.DEVNULL)
        try:
            if not RedisRouter(args.redis_url).wait_connected("bench-bot", 60):
                raise RuntimeError("the bot did not connect")
            others = {"gateway": gateway.pid, "bot": bot.pid,
                      "redis": int(client.info("server")["process_id"])}
            figures["route_1"] = route_phase(args.redis_url, Path(tmp), "route1", 1, args.matches, others)
            figures["route_8"] = route_phase(args.redis_url, Path(tmp), "route8", 8, args.matches, others,
                                             args.processes)
        finally:
            for proc in (bot, gateway):
                proc.terminate()
                proc.wait(20)
    client.flushdb()
    figures["plain_grpc_after"] = plain_ping_pong(size, args.seconds)
    figures["plain_redis_after"] = plain_redis(args.redis_url, size, args.seconds)
    figures["event_loop"] = args.event_loop
    base = sum(figures[k]["p50_ms"] for k in ("plain_grpc", "plain_redis", "plain_grpc_after",
                                               "plain_redis_after")) / 2
    figures["plain_sum_p50_ms"] = base
    figures["route_1_p50_over_plain_sum"] = figures["route_1"]["p50_ms"] / base
    return figures


def report(figures: dict[str, Any]) -> None:
    base = figures["plain_sum_p50_ms"]
    print(f"DecisionRequest ~{figures['request_bytes']} bytes; load average before: "
          f"{figures['load_before']:.2f}; gateway event loop: {figures['event_loop']}")
    for key, label in (("plain_grpc", "plain gRPC ping-pong"), ("plain_redis", "plain Redis req/reply"),
                       ("plain_grpc_after", "plain gRPC, after the route"),
                       ("plain_redis_after", "plain Redis, after the route")):
        f = figures[key]
        print(f"  {label:<28} p50 {f['p50_ms']:.3f} ms  p99 {f['p99_ms']:.3f} ms  {f['rate']:8.0f}/s")
    for key in ("route_1", "route_8"):
        f = figures[key]
        print(f"  route, {f['concurrent_matches']} concurrent match(es) in {f.get('processes', 1)} "
              f"process(es)   p50 {f['p50_ms']:.3f} ms  "
              f"p99 {f['p99_ms']:.3f} ms  {f['rate']:8.0f} decisions/s  ({f['decisions']} decisions, "
              f"{f['faults']} faults)")
        print("      CPU ms per decision: " + ", ".join(f"{k} {v:.3f}" for k, v in f["cpu_ms_per_decision"].items()))
        print("      wake-ups per decision: " + ", ".join(f"{k} {v:.2f}" for k, v in f["wakeups_per_decision"].items()))
    print(f"  route p50 / (gRPC p50 + Redis p50, mean of before and after: {base:.3f} ms) = "
          f"{figures['route_1_p50_over_plain_sum']:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per concurrent stream")
    parser.add_argument("--seconds", type=float, default=4.0, help="per plain baseline")
    parser.add_argument("--repeat", type=int, default=1,
                        help="whole measurements in a row; with more than one, the medians are printed")
    parser.add_argument("--processes", type=int, default=2,
                        help="worker pool processes sharing the 8 concurrent matches (on threads)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--event-loop", default="auto", choices=("auto", "asyncio", "uvloop"),
                        help="the gateway's event loop (as arena serve --event-loop)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    runs = []
    for i in range(max(1, args.repeat)):
        if args.repeat > 1:
            print(f"run {i + 1}/{args.repeat}")
        runs.append(measure(args))
        report(runs[-1])
    if len(runs) > 1:
        ratios = [r["route_1_p50_over_plain_sum"] for r in runs]
        rates = [r["route_8"]["rate"] for r in runs]
        print(f"over {len(runs)} runs: route p50 / plain sum median {statistics.median(ratios):.2f} "
              f"(runs: {', '.join(f'{x:.2f}' for x in ratios)}); 8 matches median "
              f"{statistics.median(rates):.0f} decisions/s (runs: {', '.join(f'{x:.0f}' for x in rates)})")
    if args.json:
        Path(args.json).write_text(json.dumps(runs if len(runs) > 1 else runs[0], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
