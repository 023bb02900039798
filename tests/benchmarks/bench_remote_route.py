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
first match of every batch is left out (connection setup). Per process (gateway, bot,
the worker's parent and each of its pool processes, and Redis when the bench started
it), CPU ms per decision asked (``/proc/<pid>/stat`` utime + stime, all threads, before
and after) and wake-ups (voluntary context switches, all threads), from the phase's
start until its tournament is done; the workers' wake-ups are left out (their remote
matches run on threads that end with each task, and an ended thread's switches are
no longer readable).

Baselines in the same run, measured before and after the route phases (they drift
by 10-20 % between runs on a shared machine; each figure uses the mean of the two):

* plain grpc.aio bidirectional-stream ping-pong with 1 request in flight (the
  request's size, echoed) and plain Redis request/reply (RPUSH + BLPOP each way),
  between this process and a child process: the 1-match figure is the route's p50
  over the sum of their p50s;
* plain grpc.aio ping-pong with 8 requests in flight on one stream (request and
  reply the sizes of a DecisionRequest and a Decision envelope, :func:`benchkit.plain_grpc`):
  the 8-match figure is the route's decisions/s over its rate, goal
  :data:`GOAL_8` (a ratio, not an absolute rate: absolute rates follow the day of a
  shared machine; a baseline measured in the same run cancels part of that). Its
  CPU per exchange (client and server) is printed beside the route's CPU per
  decision (every process together), and the ratio the route could reach if every
  core were busy at that cost (cores / route CPU per decision / plain rate): the
  ceiling that only less CPU per decision raises.

Redis: without ``--redis-url`` a redis-server of the bench's own on a free port,
stopped at the end; with it, only keys under the run's prefix, the Celery broker's
keys under that prefix too, a bot name of the run's own, and only those keys deleted
at the end (:mod:`benchkit`): it never flushes a database.

The gateway is ``arena serve`` in its own process, as deployed (``--event-loop``:
``auto`` is uvloop when installed; ``--port``, default a free one); the bot is the
SDK's ``python -m arenabot`` with its default loop (also uvloop when installed).
The baselines use plain asyncio, as a user's own gRPC or Redis code would.

Run: ``python tests/benchmarks/bench_remote_route.py [--matches 40] [--repeat 3]
[--processes 2] [--event-loop auto] [--port 0] [--redis-url redis://host:6379/9]
[--json out.json]``. On a shared machine single runs scatter (the ratios by about
+-0.1): ``--repeat`` prints the medians.
Not a test: figures vary with machine load.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
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
HERE = Path(__file__).resolve().parent
for _p in (str(ROOT), str(SDK), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchkit import (PREFIX_ENV, BenchError, RedisTarget, celery_app, check_port,  # noqa: E402
                      cpu_seconds, percentile, plain_grpc, redis_target)

GOAL_8 = 0.55
"""Goal of the 8-match figure: route decisions/s over plain grpc.aio with 8 in flight."""
CONCURRENT = 8
"""Matches in flight in the second phase, and requests in flight in its baseline."""

REDIS_ECHO = r"""
import sys, redis
r = redis.Redis.from_url(sys.argv[1])
req, rep = sys.argv[2], sys.argv[3]
print("ready", flush=True)
while True:
    item = r.blpop([req], timeout=30)
    if item is None or item[1] == b"stop":
        break
    r.rpush(rep, item[1])
"""


def plain_redis(target: RedisTarget, size: int, seconds: float) -> dict[str, float]:
    """Sequential request/reply through Redis lists (the run's own keys) between two processes."""
    import redis

    req, rep = target.prefix + "plain:req", target.prefix + "plain:rep"
    client = redis.Redis.from_url(target.url)
    client.delete(req, rep)
    proc = subprocess.Popen([sys.executable, "-c", REDIS_ECHO, target.url, req, rep], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    payload = b"x" * size
    times: list[float] = []
    try:
        for _ in range(200):
            client.rpush(req, payload)
            client.blpop([rep], timeout=5)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            t = time.perf_counter()
            client.rpush(req, payload)
            client.blpop([rep], timeout=5)
            times.append(time.perf_counter() - t)
    finally:
        client.rpush(req, b"stop")
        proc.wait(10)
        client.delete(req, rep)
        client.close()
    return {"rate": len(times) / sum(times), "p50_ms": percentile(times, 0.5) * 1e3,
            "p99_ms": percentile(times, 0.99) * 1e3, "n": len(times)}


def message_sizes() -> dict[str, int]:
    """Serialized sizes of a typical bridge decision (mid-auction): the
    DecisionRequest itself (``request``), and the stream's envelopes of the request
    and of its answer (``request_envelope``: ArenaMessage with the request id and
    deadline set; ``reply_envelope``: BotMessage with a Decision)."""
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
    size = len(req.SerializeToString())
    req.request_id, req.deadline_ms = 123_456, 5000
    envelope = bot_pb2.ArenaMessage(decision_request=req)
    reply = bot_pb2.BotMessage(decision=bot_pb2.Decision(request_id=123_456, action_id=legal[-1]))
    return {"request": size, "request_envelope": envelope.ByteSize(), "reply_envelope": reply.ByteSize()}


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


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (its threads' children, for the pool processes)."""
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(x) for x in (task / "children").read_text().split()]
    except OSError:
        pass
    return sorted(set(out))


def _ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def route_phase(target: RedisTarget, tdir: Path, tid: str, concurrency: int, matches: int,
                others: dict[str, int], processes: int = 1) -> dict[str, Any]:
    from arena.records.spec import MatchSpec, make_match_id
    from arena.tournaments.conductor import Conductor
    from arena.tournaments.executors import open_store
    from workers.dispatch import CeleryDispatcher

    url = f"sqlite:///{tdir / tid}.db"
    specs = [MatchSpec(make_match_id(tid, i), tid, i, "bridge", None, {}, 1000 + i,
                       ("bot",) * 4, (f"remote:{target.bot_id}",) * 4, init={"board": i % 16 + 1},
                       deadline_ms=5000) for i in range(matches * concurrency)]
    store = open_store(url)
    store.add_tournament(tid, tid, "bridge", {}, specs)
    processes = max(1, min(processes, concurrency))
    env = dict(os.environ, ARENA_REDIS_URL=target.url, ARENA_STORE_URL=url,
               ARENA_REMOTE_MATCHES=str(max(1, concurrency // processes)))
    env[PREFIX_ENV] = target.prefix
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE), env.get("PYTHONPATH", "")])
    log = tdir / f"{tid}.log"
    # the arena worker's app with its broker keys under the run's prefix (benchkit)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "benchkit:app", "worker", "-P", "prefork",
         "-c", str(processes), "-n", f"{tid}-{target.prefix.split(':')[1]}@%h", "-l", "info",
         "--without-gossip", "--without-mingle", "--without-heartbeat"], env=env, cwd=str(ROOT),
        stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)  # noqa: SIM115
    app = celery_app(target.url, url, target.prefix)
    try:
        end = time.monotonic() + 60
        while b" ready." not in log.read_bytes():
            if time.monotonic() > end or worker.poll() is not None:
                raise RuntimeError(log.read_text(errors="replace")[-2000:])
            time.sleep(0.05)
        time.sleep(0.5)  # let the pool processes settle
        conductor = Conductor(store, CeleryDispatcher(app, store_url=url))
        pool = children(worker.pid)
        pids = {"worker": [worker.pid], **{f"pool {i + 1}": [p] for i, p in enumerate(pool)},
                **{k: [v] for k, v in others.items()}}
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
        if children(worker.pid) != pool:
            raise RuntimeError(f"the worker's pool processes changed during the phase: {pool} -> "
                               f"{children(worker.pid)}")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(20)
        app.close()
    records = [r for r in store.records(tid) if r.tags["index"] % matches != 0]
    faults = sum(len(r.faults) for r in records)
    times = [a.ms for r in records for a in r.actions if not a.forced and not a.default]
    start = min(_ts(r.started_at) for r in records)
    stop = max(_ts(r.finished_at) for r in records)
    asked = sum(1 for r in store.records(tid) for a in r.actions if not a.forced)
    store.dispose()
    workers = ["worker"] + [k for k in cpu if k.startswith("pool ")]
    cpu["workers"] = sum(cpu[k] for k in workers)
    return {"cpu_ms_per_decision": {k: round(v * 1000 / asked, 3) for k, v in cpu.items()},
            "wakeups_per_decision": {k: round(v / asked, 2) for k, v in wake.items() if k not in workers},
            "concurrent_matches": concurrency, "processes": processes, "decisions": len(times),
            "rate": len(times) / (stop - start), "p50_ms": percentile(times, 0.5),
            "p99_ms": percentile(times, 0.99), "faults": faults}


def measure(args: argparse.Namespace, target: RedisTarget) -> dict[str, Any]:
    """One full measurement: baselines, the two route phases, baselines again."""
    from arena.remote.redis_router import RedisRouter
    from bench_gateway import plain_ping_pong

    sizes = message_sizes()
    size = sizes["request"]
    figures: dict[str, Any] = {"request_bytes": size, "message_bytes": sizes,
                               "load_before": os.getloadavg()[0], "own_redis": target.own}

    def baselines(suffix: str) -> None:
        figures["plain_grpc" + suffix] = plain_ping_pong(size, args.seconds)
        figures[f"plain_grpc_{CONCURRENT}" + suffix] = plain_grpc(
            sizes["request_envelope"], sizes["reply_envelope"], CONCURRENT, args.seconds)
        figures["plain_redis" + suffix] = plain_redis(target, size, args.seconds)

    baselines("")
    with tempfile.TemporaryDirectory() as tmp:
        store_url = f"sqlite:///{Path(tmp) / 'gateway.db'}"
        from arena.store import Store

        store = Store(store_url)
        store.migrate()
        _, token = store.bot_registry().register(target.bot_id)
        store.dispose()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(SDK), str(ROOT), env.get("PYTHONPATH", "")])
        address = f"127.0.0.1:{args.port}"
        # the gateway as deployed: its own process (arena serve), loop in its main thread
        gateway = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--address", address,
                                    "--store", store_url, "--redis-url", target.url,
                                    "--operator-token", "bench", "--event-loop", args.event_loop],
                                   env=env, stderr=subprocess.DEVNULL)
        bot = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", address, "--token", token,
                                "--bot", "random", "--max-concurrent", "64"], env=env,
                               stderr=subprocess.DEVNULL)
        router = RedisRouter(target.url)
        try:
            if not router.wait_connected(target.bot_id, 60):
                raise RuntimeError("the bot did not connect")
            others = {"gateway": gateway.pid, "bot": bot.pid}
            if target.own and target.pid is not None:  # a shared Redis's CPU is not ours alone
                others["redis"] = target.pid
            figures["route_1"] = route_phase(target, Path(tmp), "route1", 1, args.matches, others)
            figures[f"route_{CONCURRENT}"] = route_phase(target, Path(tmp), f"route{CONCURRENT}",
                                                         CONCURRENT, args.matches, others, args.processes)
        finally:
            router.close()
            for proc in (bot, gateway):
                proc.terminate()
                proc.wait(20)
    baselines("_after")
    figures["event_loop"] = args.event_loop
    figures["load_after"] = os.getloadavg()[0]
    base = sum(figures[k]["p50_ms"] for k in ("plain_grpc", "plain_redis", "plain_grpc_after",
                                               "plain_redis_after")) / 2
    figures["plain_sum_p50_ms"] = base
    figures["route_1_p50_over_plain_sum"] = figures["route_1"]["p50_ms"] / base
    plain8 = (figures[f"plain_grpc_{CONCURRENT}"]["rate"] + figures[f"plain_grpc_{CONCURRENT}_after"]["rate"]) / 2
    figures[f"plain_grpc_{CONCURRENT}_rate"] = plain8
    ratio = figures[f"route_{CONCURRENT}"]["rate"] / plain8
    figures[f"route_{CONCURRENT}_rate_over_plain_grpc_{CONCURRENT}"] = ratio
    figures["goal"] = GOAL_8
    figures["goal_met"] = ratio >= GOAL_8
    # what the two sides of the plain exchange cost, beside what a routed decision
    # costs every process together; and the most decisions/s the machine's cores
    # could give at that cost, over the plain rate: the highest ratio this route
    # could reach here with every core busy
    plain_cpu = {side: sum(figures[f"plain_grpc_{CONCURRENT}{s}"]["cpu_ms_per_reply"][side]
                           for s in ("", "_after")) / 2 for side in ("client", "server")}
    figures[f"plain_grpc_{CONCURRENT}_cpu_ms"] = plain_cpu
    route_cpu = sum(v for k, v in figures[f"route_{CONCURRENT}"]["cpu_ms_per_decision"].items() if k != "workers")
    figures[f"route_{CONCURRENT}_cpu_ms"] = route_cpu
    figures["cores"] = os.cpu_count() or 1
    figures[f"route_{CONCURRENT}_ceiling"] = figures["cores"] * 1000 / route_cpu / plain8
    return figures


def _cpu_line(cpu: dict[str, float]) -> str:
    workers = [k for k in cpu if k == "worker" or k.startswith("pool ")]
    main = [f"{k} {v:.3f}" for k, v in cpu.items() if k not in workers and k != "workers"]
    inner = ", ".join(f"{'parent' if k == 'worker' else k} {cpu[k]:.3f}" for k in workers)
    total = sum(v for k, v in cpu.items() if k != "workers")
    return ", ".join(main + [f"worker {cpu['workers']:.3f} ({inner})"]) + f"; all {total:.3f}"


def report(figures: dict[str, Any]) -> None:
    base = figures["plain_sum_p50_ms"]
    sizes = figures["message_bytes"]
    print(f"DecisionRequest ~{figures['request_bytes']} bytes (stream envelopes: request "
          f"{sizes['request_envelope']}, reply {sizes['reply_envelope']}); load average before: "
          f"{figures['load_before']:.2f}, after: {figures['load_after']:.2f}; gateway event loop: "
          f"{figures['event_loop']}; Redis: {'own redis-server' if figures['own_redis'] else 'given URL'}")
    n = CONCURRENT
    for key, label in (("plain_grpc", "plain gRPC ping-pong"), (f"plain_grpc_{n}", f"plain gRPC, {n} in flight"),
                       ("plain_redis", "plain Redis req/reply"),
                       ("plain_grpc_after", "plain gRPC, after the route"),
                       (f"plain_grpc_{n}_after", f"plain gRPC, {n} in flight, after"),
                       ("plain_redis_after", "plain Redis, after the route")):
        f = figures[key]
        print(f"  {label:<32} p50 {f['p50_ms']:.3f} ms  p99 {f['p99_ms']:.3f} ms  {f['rate']:8.0f}/s")
    for key in ("route_1", f"route_{n}"):
        f = figures[key]
        print(f"  route, {f['concurrent_matches']} concurrent match(es) in {f.get('processes', 1)} "
              f"process(es)   p50 {f['p50_ms']:.3f} ms  "
              f"p99 {f['p99_ms']:.3f} ms  {f['rate']:8.0f} decisions/s  ({f['decisions']} decisions, "
              f"{f['faults']} faults)")
        print("      CPU ms per decision: " + _cpu_line(f["cpu_ms_per_decision"]))
        print("      wake-ups per decision: " + ", ".join(f"{k} {v:.2f}" for k, v in f["wakeups_per_decision"].items()))
    print(f"  1 match: route p50 / (gRPC p50 + Redis p50, mean of before and after: {base:.3f} ms) = "
          f"{figures['route_1_p50_over_plain_sum']:.2f}")
    ratio = figures[f"route_{n}_rate_over_plain_grpc_{n}"]
    print(f"  {n} matches: route decisions/s / plain gRPC with {n} in flight (mean of before and after: "
          f"{figures[f'plain_grpc_{n}_rate']:.0f}/s) = {ratio:.2f}  (goal >= {figures['goal']:.2f}: "
          f"{'met' if figures['goal_met'] else 'NOT met'})")
    plain_cpu = figures[f"plain_grpc_{n}_cpu_ms"]
    print(f"  CPU ms per exchange of plain gRPC with {n} in flight: client {plain_cpu['client']:.3f}, server "
          f"{plain_cpu['server']:.3f}; a routed decision, every process: {figures[f'route_{n}_cpu_ms']:.3f}; "
          f"with all {figures['cores']} cores busy at that cost the {n}-match ratio could reach "
          f"{figures[f'route_{n}_ceiling']:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per concurrent stream")
    parser.add_argument("--seconds", type=float, default=4.0, help="per plain baseline")
    parser.add_argument("--repeat", type=int, default=1,
                        help="whole measurements in a row; with more than one, the medians are printed")
    parser.add_argument("--processes", type=int, default=2,
                        help=f"worker pool processes sharing the {CONCURRENT} concurrent matches (on threads)")
    parser.add_argument("--port", type=int, default=0, help="the gateway's port (default: a free one)")
    parser.add_argument("--redis-url", default=None,
                        help="a Redis to use (only the run's own keys, deleted at the end; never "
                             "flushed); default: a redis-server of the bench's own on a free port")
    parser.add_argument("--event-loop", default="auto", choices=("auto", "asyncio", "uvloop"),
                        help="the gateway's event loop (as arena serve --event-loop)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    prog = parser.prog
    runs: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        try:
            if args.matches < 2:
                raise BenchError(f"--matches {args.matches}: at least 2 (the first of each batch is left out)")
            if args.json and not Path(args.json).resolve().parent.is_dir():
                raise BenchError(f"--json {args.json}: no such directory")
            args.port = check_port(args.port)
            target = stack.enter_context(redis_target(args.redis_url))
        except BenchError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
        for i in range(max(1, args.repeat)):
            if args.repeat > 1:
                print(f"run {i + 1}/{args.repeat}")
            runs.append(measure(args, target))
            report(runs[-1])
    key = f"route_{CONCURRENT}_rate_over_plain_grpc_{CONCURRENT}"
    if len(runs) > 1:
        ratios = [r["route_1_p50_over_plain_sum"] for r in runs]
        ratios8 = [r[key] for r in runs]
        print(f"over {len(runs)} runs: 1 match, route p50 / plain sum median {statistics.median(ratios):.2f} "
              f"(runs: {', '.join(f'{x:.2f}' for x in ratios)}); {CONCURRENT} matches, route / plain gRPC "
              f"median {statistics.median(ratios8):.2f} (runs: {', '.join(f'{x:.2f}' for x in ratios8)}; "
              f"goal >= {GOAL_8:.2f}: {'met' if statistics.median(ratios8) >= GOAL_8 else 'NOT met'})")
    if args.json:
        Path(args.json).write_text(json.dumps(runs if len(runs) > 1 else runs[0], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
