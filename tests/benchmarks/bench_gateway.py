"""Benchmark: remote decisions through the whole embedded path, against plain gRPC.

Full path: referee (``run_match``) -> :class:`~arena.gateway.RemoteAgent` ->
:class:`~arena.gateway.LocalRouter` -> gateway session -> gRPC stream -> Python SDK
bot process (``python -m arenabot --bot random``) -> back. Measured with 1 and
with 8 concurrent matches (referee threads in the gateway's process, the embedded
default), as decisions per second and per-decision p50/p99 (time of
``RemoteAgent.act``).

With Redis (unless ``--no-redis``), the same referee threads also go the
distributed way without Celery: :class:`~arena.remote.redis_router.RedisRouter` ->
Redis -> the same gateway's Redis bridge -> the bot. The Redis is a redis-server of
the bench's own on a free port (stopped at the end), or ``--redis-url``: then only
the run's own keys (its own bot name), deleted at the end; it never flushes a
database (:mod:`benchkit`).

Baseline in the same run: a plain grpc.aio bidirectional-stream ping-pong of the
same message size (the serialized size of a typical DecisionRequest) between this
process and a child echo server.

Run: ``python tests/benchmarks/bench_gateway.py [--game highcard|bridge|...]
[--seconds 5] [--port 0] [--redis-url URL | --no-redis] [--json out.json]``.
Not a test: figures vary with machine load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python"
HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from benchkit import BenchError, RedisTarget, check_port, redis_target  # noqa: E402

ECHO_SERVER = r"""
import asyncio, sys, grpc
async def echo(request_iterator, context):
    async for message in request_iterator:
        yield message
async def main():
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.Echo", {
        "Chat": grpc.stream_stream_rpc_method_handler(echo)})
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()
asyncio.run(main())
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def plain_ping_pong(size: int, seconds: float) -> dict[str, float]:
    """Sequential round trips of ``size``-byte messages on one grpc.aio stream."""
    import grpc

    proc = subprocess.Popen([sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    payload = b"x" * size

    async def run() -> list[float]:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            chat = channel.stream_stream("/bench.Echo/Chat", request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)
            call = chat()
            times: list[float] = []
            for _ in range(200):  # warm-up
                await call.write(payload)
                await call.read()
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                t = time.perf_counter()
                await call.write(payload)
                await call.read()
                times.append(time.perf_counter() - t)
            await call.done_writing()
            return times

    try:
        times = asyncio.run(run())
    finally:
        proc.terminate()
        proc.wait()
    return {"rate": len(times) / sum(times), "p50_ms": percentile(times, 0.5) * 1e3,
            "p99_ms": percentile(times, 0.99) * 1e3, "n": len(times)}


def make_game(name: str) -> Any:
    if name == "highcard":
        from arena.testing.toy import HighcardGame
        return HighcardGame()
    from arena.games import get_game
    try:
        return get_game(name)
    except ValueError:
        return importlib.import_module(f"arena.games.{name}").GAME()


def full_path(game_name: str, concurrency: list[int], seconds: float, port: int = 0,
              target: RedisTarget | None = None
              ) -> tuple[dict[str, dict[int, dict[str, float]]], int]:
    """Per route (``local``; ``redis`` with a ``target``) and match count: the rate
    and the p50/p99 of ``RemoteAgent.act``; and the median request size."""
    from arena.bot.v1 import bot_pb2
    from arena.gateway import Gateway, GatewayConfig
    from arena.remote import RemoteAgent
    from arena.match.referee import run_match

    class TimedAgent(RemoteAgent):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.times: list[float] = []

        def act(self, observation: Any, legal_actions: Any) -> Any:
            t = time.perf_counter()
            answer = super().act(observation, legal_actions)
            self.times.append(time.perf_counter() - t)
            return answer

    results: dict[str, dict[int, dict[str, float]]] = {}
    sizes: list[int] = []
    bot_id = target.bot_id if target is not None else "bench-bot"
    config = GatewayConfig(redis_url=target.url) if target is not None else None
    with Gateway(f"127.0.0.1:{port}", config=config) as gw:
        _, token = gw.registry.register(bot_id)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SDK), str(ROOT), os.environ.get("PYTHONPATH", "")]))
        bot = subprocess.Popen([sys.executable, "-m", "arenabot", "--target", gw.target, "--token", token,
                                "--bot", "random", "--max-concurrent", "64"], env=env)
        try:
            if not gw.wait_connected(bot_id, 30):
                raise SystemExit("the bot did not connect")
            assert gw.router is not None
            local = router = gw.router
            # RemoteAgent calls decide_timed (decide before it had one)
            name = "decide_timed" if hasattr(router, "decide_timed") else "decide"
            orig = getattr(router, name)

            def sized(bot_id: str, request: bot_pb2.DecisionRequest, timeout: float) -> Any:
                if len(sizes) < 2000:
                    sizes.append(request.ByteSize() + 12)  # + request_id, deadline_ms, envelope
                return orig(bot_id, request, timeout)

            setattr(router, name, sized)
            game = make_game(game_name)
            routes: list[tuple[str, Any]] = [("local", local)]
            if target is not None:
                from arena.remote.redis_router import RedisRouter

                redis_router = RedisRouter(target.url)
                if not redis_router.wait_connected(bot_id, 30):
                    raise SystemExit("the bot is not announced in Redis")
                routes.append(("redis", redis_router))
            for (route, router), n in ((r, n) for r in routes for n in concurrency):
                stop = time.perf_counter() + seconds
                agents_by_thread: list[list[TimedAgent]] = []
                counts = [0] * n

                def play(k: int) -> None:
                    agents = [TimedAgent(bot_id, router) for _ in range(game.num_players)]
                    agents_by_thread.append(agents)
                    seed = 0
                    while time.perf_counter() < stop:
                        result = run_match(game, agents, seed=seed, match_id=f"b{k}-{seed}",
                                           deadline_ms=10_000)
                        if result.record.faults:
                            raise RuntimeError(f"faults in a benchmark match: {result.record.faults[:2]}")
                        counts[k] += len(result.record.actions)
                        seed += 1

                # warm-up
                run_match(game, [TimedAgent(bot_id, router) for _ in range(game.num_players)], seed=99)
                threads = [threading.Thread(target=play, args=(k,)) for k in range(n)]
                t0 = time.perf_counter()
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                elapsed = time.perf_counter() - t0
                times = [x for agents in agents_by_thread for a in agents for x in a.times]
                results.setdefault(route, {})[n] = {"rate": sum(counts) / elapsed, "p50_ms": percentile(times, 0.5) * 1e3,
                              "p99_ms": percentile(times, 0.99) * 1e3, "n": len(times)}
            if target is not None:
                redis_router.close()
        finally:
            bot.terminate()
            bot.wait()
    return results, int(statistics.median(sizes)) if sizes else 64


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="highcard")
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--concurrency", default="1,8", help="comma-separated match counts")
    parser.add_argument("--port", type=int, default=0, help="the gateway's port (default: a free one)")
    parser.add_argument("--redis-url", default=None,
                        help="a Redis for the Redis route (only the run's own keys, deleted at the end; "
                             "never flushed); default: a redis-server of the bench's own on a free port")
    parser.add_argument("--no-redis", action="store_true", help="leave out the Redis route")
    parser.add_argument("--json", default=None, help="write the figures here too")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(SDK), str(ROOT)]
    with contextlib.ExitStack() as stack:
        try:
            try:
                concurrency = [int(x) for x in args.concurrency.split(",")]
            except ValueError:
                raise BenchError(f"--concurrency {args.concurrency}: comma-separated integers") from None
            if args.no_redis and args.redis_url:
                raise BenchError("--no-redis and --redis-url: choose one")
            if args.json and not Path(args.json).resolve().parent.is_dir():
                raise BenchError(f"--json {args.json}: no such directory")
            port = check_port(args.port) if args.port else 0
            target = None if args.no_redis else stack.enter_context(redis_target(args.redis_url))
        except BenchError as exc:
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 2
        full, size = full_path(args.game, concurrency, args.seconds, port, target)
    plain = plain_ping_pong(size, args.seconds)
    print(f"game {args.game}; median DecisionRequest ~{size} bytes; {os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'path':<58} {'decisions/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'p50 ratio':>9}")
    print(f"{'plain grpc.aio bidi ping-pong, 1 stream (baseline)':<58} {plain['rate']:>12,.0f} "
          f"{plain['p50_ms']:>8.3f} {plain['p99_ms']:>8.3f} {1.0:>9.2f}")
    for route, rows in full.items():
        via = "->Redis" if route == "redis" else ""
        for n, r in rows.items():
            label = f"referee->RemoteAgent{via}->gateway->SDK bot, {n} match{'es' if n > 1 else ''}"
            print(f"{label:<58} {r['rate']:>12,.0f} {r['p50_ms']:>8.3f} {r['p99_ms']:>8.3f} "
                  f"{r['p50_ms'] / plain['p50_ms']:>9.2f}")
    if args.json:
        figures: dict[str, Any] = {"game": args.game, "message_bytes": size, "plain": plain,
                                   "full": full["local"]}
        if "redis" in full:
            figures["redis"] = full["redis"]
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
