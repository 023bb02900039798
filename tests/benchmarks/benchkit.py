"""Shared parts of the benchmarks that start servers: ports, Redis, plain gRPC baselines.

What this module decides:

* **A benchmark never flushes a Redis** (no ``FLUSHDB``/``FLUSHALL``). Without
  ``--redis-url`` it starts a ``redis-server`` of its own on a free loopback port
  (no persistence, its files in a temporary directory) and stops it at the end
  (:func:`redis_target`). Given ``--redis-url`` (a Redis that others may use), it
  writes only keys of its own run: every key it names starts with the run's prefix
  (``bench:<random hex>:``), the Celery broker's keys get that prefix too (kombu's
  ``global_keyprefix``, :func:`celery_app`), and its bot has a name of its own
  (``bench-<random hex>``) so that the route's keys (``arena:bot:<bot>:*``) are its
  own. At the end it deletes the keys that match those patterns and nothing else
  (:meth:`RedisTarget.cleanup`); the route's reply keys (``arena:reply:<uuid>:<n>``)
  are popped by the worker that waits on them, and the rare one left by a worker
  that gave up expires by itself (``REPLY_TTL``).
* **Ports**: ``--port 0`` (the default) picks a free loopback port; a given port
  that is in use is a user error (one line on stderr, exit 2), checked before
  anything starts.
* **Plain gRPC with N in flight** (:func:`plain_grpc`): one grpc.aio
  bidirectional stream between this process and a child server on loopback (as a
  bot's one stream carries all its decisions), the request the size of a
  DecisionRequest envelope, the reply the size of a Decision envelope, and
  ``in_flight`` requests outstanding (a writer task waits for a free place in the
  window, a reader task frees one with each reply, as the gateway's and the bot's
  own streams do). Plain asyncio, as a user's own gRPC code would be. Its rate is
  the bound that a route through the same kind of stream is compared with.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BenchError", "RedisTarget", "celery_app", "check_port", "cpu_seconds", "free_port",
           "percentile", "plain_grpc", "redis_target", "run_prefix"]

PREFIX_ENV = "ARENA_BENCH_KEYPREFIX"
"""Environment variable that names the Celery key prefix of a bench's worker
(``celery -A benchkit:app``, see :func:`__getattr__`)."""


class BenchError(Exception):
    """A user error of a benchmark's options: printed as one line, exit code 2."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_port(port: int) -> int:
    """``port``, or a free one for 0; :class:`BenchError` when it is taken or invalid.

    >>> check_port(0) > 0
    True
    """
    if port == 0:
        return free_port()
    if not 0 < port < 65536:
        raise BenchError(f"--port {port}: not a port number")
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            raise BenchError(f"--port {port}: in use on 127.0.0.1") from None
    return port


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``.

    >>> percentile([3.0, 1.0, 2.0], 0.5)
    2.0
    """
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads, ended ones too; not
    its children), from ``/proc/<pid>/stat``; 0.0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_prefix() -> str:
    """A key prefix of one run: ``bench:<12 hex>:``."""
    return f"bench:{secrets.token_hex(6)}:"


@dataclass
class RedisTarget:
    """The Redis a benchmark uses: its URL, whether the bench started it (then
    ``pid`` is its server's), the run's key prefix and bot name, and the patterns of
    the keys the run may leave (deleted by :meth:`cleanup` on a Redis not its own)."""

    url: str
    own: bool
    prefix: str
    bot_id: str
    pid: int | None = None
    patterns: list[str] = field(default_factory=list)

    def cleanup(self) -> int:
        """Delete this run's keys (only those matching its patterns); the count."""
        import redis

        client = redis.Redis.from_url(self.url)
        deleted = 0
        try:
            for pattern in self.patterns:
                batch: list[bytes] = []
                for key in client.scan_iter(match=pattern, count=500):
                    batch.append(key)
                    if len(batch) >= 500:
                        deleted += int(client.delete(*batch))
                        batch = []
                if batch:
                    deleted += int(client.delete(*batch))
        finally:
            client.close()
        return deleted


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def redis_target(url: str | None) -> Iterator[RedisTarget]:
    """The Redis of one run (see the module docstring): ``url``, checked to answer,
    or a private redis-server started here and stopped on exit.

    :raises BenchError: ``url`` does not answer a PING, or no ``redis-server`` is
        installed and no ``url`` given.
    """
    import redis

    prefix = run_prefix()
    bot_id = "bench-" + prefix.split(":")[1]
    patterns = [f"{prefix}*", f"arena:bot:{bot_id}:*"]
    if url is not None:
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=3)
        except ValueError as exc:
            raise BenchError(f"--redis-url {url}: {exc}") from None
        try:
            client.ping()
        except redis.RedisError as exc:
            raise BenchError(f"--redis-url {url}: {exc}") from None
        finally:
            client.close()
        target = RedisTarget(url, False, prefix, bot_id, None, patterns)
        try:
            yield target
        finally:
            target.cleanup()
        return
    if shutil.which("redis-server") is None:
        raise BenchError("redis-server not found: install it or pass --redis-url")
    with tempfile.TemporaryDirectory(prefix="bench-redis-") as tmp:
        port = free_port()
        proc = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", tmp, "--save", "",
             "--appendonly", "no", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            end = time.monotonic() + 10
            while not _port_open(port):
                if time.monotonic() > end or proc.poll() is not None:
                    raise RuntimeError(f"redis-server on port {port} did not start")
                time.sleep(0.05)
            yield RedisTarget(f"redis://127.0.0.1:{port}/0", True, prefix, bot_id, proc.pid, patterns)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def celery_app(redis_url: str, store_url: str, prefix: str) -> Any:
    """The arena Celery app (:func:`workers.celery.make_app`) with every broker and
    result key under ``prefix`` (kombu's and Celery's ``global_keyprefix``)."""
    from workers.celery import make_app

    app = make_app(redis_url, store_url)
    app.conf.broker_transport_options = {**app.conf.broker_transport_options, "global_keyprefix": prefix}
    app.conf.result_backend_transport_options = {**app.conf.result_backend_transport_options,
                                                 "global_keyprefix": prefix}
    return app


def __getattr__(name: str) -> Any:
    """``app``: the Celery app of a bench's worker process (``celery -A benchkit:app``),
    from ``ARENA_REDIS_URL``, ``ARENA_STORE_URL`` and :data:`PREFIX_ENV`."""
    if name == "app":
        from workers.celery import REDIS_URL, STORE_URL

        value = celery_app(REDIS_URL, STORE_URL, os.environ[PREFIX_ENV])
        globals()["app"] = value
        return value
    raise AttributeError(name)


PING_PONG_SERVER = r"""
import asyncio, sys, grpc
REPLY = b"y" * int(sys.argv[1])
async def chat(request_iterator, context):
    async for _ in request_iterator:
        yield REPLY
async def main():
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler("bench.PingPong", {
        "Chat": grpc.stream_stream_rpc_method_handler(chat)})
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()
asyncio.run(main())
"""


def plain_grpc(request_bytes: int, reply_bytes: int, in_flight: int, seconds: float) -> dict[str, Any]:
    """Plain grpc.aio ping-pong with ``in_flight`` requests outstanding on one
    bidirectional stream (see the module docstring): replies per second over
    ``seconds`` after a warm-up, the p50/p99 of each request's round trip, and the
    CPU milliseconds per reply of each side over the whole exchange, warm-up
    included (``cpu_ms_per_reply``: ``client``, this process; ``server``, the child)."""
    import grpc

    proc = subprocess.Popen([sys.executable, "-c", PING_PONG_SERVER, str(reply_bytes)],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    payload = b"x" * request_bytes

    async def run() -> tuple[list[float], float]:  # round trips, replies per second
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            chat = channel.stream_stream("/bench.PingPong/Chat", request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)
            call: Any = chat()
            window = asyncio.Semaphore(in_flight)
            sent: collections.deque[float] = collections.deque()  # outstanding, oldest first
            times: list[float] = []
            t0 = time.perf_counter() + min(1.0, seconds / 4)  # after the warm-up
            end = t0 + seconds
            received = 0
            nonlocal replies

            async def writer() -> None:
                while time.perf_counter() < end:
                    await window.acquire()
                    sent.append(time.perf_counter())
                    await call.write(payload)
                await call.done_writing()

            async def reader() -> None:
                nonlocal received, replies
                async for _ in call:
                    replies += 1
                    now = time.perf_counter()
                    began = sent.popleft()
                    window.release()
                    if t0 <= now < end:
                        received += 1
                        if began >= t0:
                            times.append(now - began)

            await asyncio.gather(writer(), reader())
            return times, received / seconds

    replies = 0
    server_cpu, client_cpu = cpu_seconds(proc.pid), time.process_time()
    try:
        times, rate = asyncio.run(run())
        client_cpu = time.process_time() - client_cpu
        server_cpu = cpu_seconds(proc.pid) - server_cpu
    finally:
        proc.terminate()
        proc.wait()
    per = 1e3 / max(1, replies)
    return {"rate": rate, "p50_ms": percentile(times, 0.5) * 1e3,
            "p99_ms": percentile(times, 0.99) * 1e3, "n": len(times), "in_flight": in_flight,
            "request_bytes": request_bytes, "reply_bytes": reply_bytes,
            "cpu_ms_per_reply": {"client": client_cpu * per, "server": server_cpu * per}}
