"""``arena worker``: a Celery worker process with a conductor loop beside it.

The command starts ``celery -A workers.celery worker`` as a child process and, in
its own process (never forked by Celery's pool, so the loop's thread and
connections cannot leak into pool processes), runs a
:class:`~arena.tournaments.conductor.Conductor` every ``ARENA_CONDUCTOR_INTERVAL``
seconds on the same store and Redis. Every deployment that runs its workers with
``arena worker`` therefore has conductors: several at once are safe (each pass is
idempotent), and the tournament finishes as long as one worker lives.

Signals: SIGTERM, SIGINT and SIGQUIT are forwarded to the Celery worker (SIGTERM:
Celery's warm shutdown; matches that do not finish in time keep their leases,
which expire and are offered again). On Linux the child also gets SIGKILL if
this process dies without a chance to forward anything (``PR_SET_PDEATHSIG``),
so no worker is left behind as an orphan. The exit code is Celery's.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

__all__ = ["run_worker", "celery_command"]

log = logging.getLogger("arena.workers")


def celery_command(concurrency: int | None, loglevel: str, hostname: str | None = None,
                   extra: Sequence[str] = ()) -> list[str]:
    """The ``celery worker`` command line."""
    cmd = [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-l", loglevel]
    if concurrency:
        cmd += ["-c", str(concurrency)]
    if hostname:
        cmd += ["-n", hostname]
    return cmd + list(extra)


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the parent dies (Linux only)."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _conductor_loop(store_url: str, redis_url: str, stop: threading.Event) -> None:
    from arena.ratings import records  # noqa: F401 - numpy/scipy: the rating history at finalize
    from arena.tournaments import service
    from workers.celery import make_app
    from workers.dispatch import CeleryDispatcher

    # loaded now, not in the first pass that finds a tournament (a second of CPU
    # taken from the matches then)
    service.preload()
    store: Any = None
    while store is None and not stop.is_set():
        try:
            store = service.open_store(store_url)
        except Exception as exc:  # noqa: BLE001 - the store may come up after the worker
            log.warning("conductor: store %s not reachable yet: %s", store_url, exc)
            stop.wait(5.0)
    if store is None:
        return
    app = make_app(redis_url, store_url)
    service.conductor(store, CeleryDispatcher(app, store_url=store_url)).run_forever(stop)


def run_worker(concurrency: int | None = None, loglevel: str = "info", *, redis_url: str | None = None,
               store_url: str | None = None, hostname: str | None = None, conductor: bool = True,
               remote_matches: int | None = None, extra: Sequence[str] = ()) -> int:
    """Run a Celery worker (and a conductor loop) in the foreground; returns
    Celery's exit code (see the module docstring).

    :param remote_matches: remote matches each pool process plays at once
        (``ARENA_REMOTE_MATCHES`` for the worker; :func:`workers.tasks.remote_matches`).
    """
    env = dict(os.environ)
    if redis_url:
        env["ARENA_REDIS_URL"] = redis_url
    if store_url:
        env["ARENA_STORE_URL"] = store_url
    if remote_matches is not None:
        if remote_matches < 1:
            raise ValueError(f"remote_matches must be at least 1; got {remote_matches}")
        env["ARENA_REMOTE_MATCHES"] = str(remote_matches)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.Popen(celery_command(concurrency, loglevel, hostname, extra), env=env,
                            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)

    def forward(signum: int, frame: FrameType | None) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT):
        signal.signal(sig, forward)
    stop = threading.Event()
    thread = None
    if conductor:
        logging.basicConfig(level=getattr(logging, loglevel.upper(), logging.INFO),
                            format="[%(asctime)s: %(levelname)s/conductor] %(message)s")
        thread = threading.Thread(target=_conductor_loop,
                                  args=(env["ARENA_STORE_URL"] if "ARENA_STORE_URL" in env else
                                        "sqlite:///arena.db",
                                        env.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0"), stop),
                                  name="conductor", daemon=True)
        thread.start()
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # the handler forwarded it; wait for celery
                continue
    finally:
        stop.set()
        if thread is not None:
            thread.join(timeout=5)
