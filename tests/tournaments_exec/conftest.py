"""Fixtures of the executor fault tests: a private redis-server (a free port by
default, ``ARENA_TEST_REDIS_PORT``), real ``celery worker`` processes and
tournament files. Every process started here is stopped by its fixture."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python"
for _p in (str(ROOT), str(SDK)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

REDIS_PORT = int(os.environ.get("ARENA_TEST_REDIS_PORT", "0"))
"""Port of the tests' private redis-server; 0 (default) picks a free one per test."""
VISIBILITY_TIMEOUT = 60
"""Seconds before Redis redelivers an unacknowledged offer (liveness comes from
the store's leases, not from redelivery)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class RedisServer:
    """A redis-server of our own (AOF on, in a temp dir) that a test may restart."""

    def __init__(self, port: int, directory: Path) -> None:
        self.port = port
        self.dir = directory
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--daemonize", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while not _port_open(self.port):
            if time.monotonic() > end or self.proc.poll() is not None:
                raise RuntimeError(f"redis-server on port {self.port} did not start")
            time.sleep(0.05)
        import redis

        client = redis.Redis.from_url(self.url)
        while True:  # AOF loading
            try:
                client.ping()
                break
            except redis.exceptions.BusyLoadingError:
                time.sleep(0.05)
        client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self, down: float = 0.0) -> None:
        self.stop()
        time.sleep(down)
        self.start()


@pytest.fixture
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (.ci/run installs it)")
    port = REDIS_PORT or _free_port()
    if _port_open(port):
        pytest.fail(f"port {port} is busy: set ARENA_TEST_REDIS_PORT to a free port")
    server = RedisServer(port, tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Worker:
    """One ``arena worker`` process (a Celery worker and its conductor loop), in its
    own session, so the whole worker (wrapper, Celery parent and pool children)
    can be killed at once."""

    def __init__(self, name: str, env: dict[str, str], log: Path, concurrency: int = 1) -> None:
        self.name = name
        self.log = log
        self._fp = open(log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "worker", "-c", str(concurrency), "-l", "info",
             "-P", "prefork", "-n", f"{name}@%h", "--without-gossip", "--without-mingle",
             "--without-heartbeat"],
            env=env, cwd=str(ROOT), stdout=self._fp, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if b" ready." in self.log.read_bytes():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"worker {self.name} not ready:\n{self.log.read_text(errors='replace')[-3000:]}")

    def celery_pid(self) -> int:
        """The Celery worker's main process (the child of ``arena worker``)."""
        kids = sorted(children(self.proc.pid))
        assert kids, f"worker {self.name} has no celery process"
        return kids[0]

    def pool_pids(self) -> set[int]:
        """The Celery pool processes."""
        return children(self.celery_pid())

    def kill9(self) -> None:
        """SIGKILL the whole worker: wrapper, parent and pool processes."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(10)
        self._fp.close()


def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux ``/proc``)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(x) for x in text.split()}


TEST_SETTINGS = {"ARENA_LEASE_SECONDS": "3", "ARENA_HEARTBEAT_SECONDS": "0.5",
                 "ARENA_CONDUCTOR_INTERVAL": "0.5", "ARENA_RETRY_BACKOFF_SECONDS": "0.2",
                 "ARENA_REMOTE_MATCHES": "2"}
"""Short leases and passes for the fault tests (the drills use the defaults); two
remote matches in flight per worker process (on threads), so that a fault in
mid-tournament still finds matches left to start."""


def worker_env(redis_url: str, store_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=store_url,
               ARENA_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT), ARENA_UNACKED_RESTORE_INTERVAL="1",
               ARENA_UNACKED_RESTORE_THROTTLE="1", **TEST_SETTINGS)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(SDK),
                                         env.get("PYTHONPATH", "")])
    return env


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[Worker]]:
    """A list to append started workers to; all are stopped at the end."""
    started: list[Worker] = []
    try:
        yield started
    finally:
        for w in started:
            w.stop()


def start_workers(started: list[Worker], n: int, redis_url: str, store_url: str, log_dir: Path,
                  prefix: str = "w") -> list[Worker]:
    env = worker_env(redis_url, store_url)
    new = [Worker(f"{prefix}{i}", env, log_dir / f"{prefix}{i}.log") for i in range(n)]
    started.extend(new)
    for w in new:
        w.wait_ready()
    return new


def tournament_file(path: Path, tid: str, game: str = "bridge", deals: int = 10,
                    bots: tuple[str, str] = ("heuristic", "random"), seed: int = 7) -> Path:
    path.write_text(f"""
[tournament]
id = "{tid}"
game = "{game}"
format = "round_robin"
deals = {deals}
seed = {seed}
deadline_ms = 5000

[[entrants]]
id = "a"
bot = "{bots[0]}"

[[entrants]]
id = "b"
bot = "{bots[1]}"
""", encoding="utf-8")
    return path
