"""Fault drills: a tournament finishes by itself after any single fault.

Real processes: a private ``redis-server``, two ``arena worker`` processes (Celery
+ conductor loop), a SQLite or PostgreSQL store. For each fault, a calypso
tournament is submitted, the fault is injected once about a third of the matches
are recorded, and the drill waits, doing nothing else, until the tournament's
status is final. It then checks that every match is recorded exactly once and
that the records equal an embedded run of the same file (actions, returns, decks),
and reports the time from the fault to the finish.

Faults (``--faults``, default all):

``kill9-main``     SIGKILL of one worker's Celery main process
``kill9-child``    SIGKILL of one worker's pool process while it plays
``redis-volatile`` Redis restarted without persistence (queued offers lost)
``redis-aof``      Redis restarted with AOF (what compose/k8s run)
``store-down``     the store unreachable for 10 s (PostgreSQL: its TCP proxy cut;
                   SQLite: an exclusive lock held for 10 s)
``lock-1s``        an exclusive lock on the store for 1 s during record writes
``embedded-kill9`` ``arena tournament run`` killed with its whole process group,
                   then run again
``embedded-store`` a store outage of 10 s during an embedded run

Usage::

    python tests/drills/drill_conductor.py                      # defaults: lease 30 s
    python tests/drills/drill_conductor.py --store postgresql --faults kill9-main
    python tests/drills/drill_conductor.py --short              # CI: short leases

With the documented default settings (lease 30 s, heartbeat 5 s, conductor every
5 s) the worst recovery must stay under 2 minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
for _p in (str(ROOT), str(ROOT / "tests")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

FAULTS = ("kill9-main", "kill9-child", "redis-volatile", "redis-aof", "store-down", "lock-1s",
          "embedded-kill9", "embedded-store")
SHORT = {"ARENA_LEASE_SECONDS": "3", "ARENA_HEARTBEAT_SECONDS": "0.5", "ARENA_CONDUCTOR_INTERVAL": "0.5",
         "ARENA_RETRY_BACKOFF_SECONDS": "0.2"}
PG_URL = os.environ.get("ARENA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Redis:
    def __init__(self, directory: Path, aof: bool) -> None:
        self.port, self.dir, self.aof = free_port(), directory, aof
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes" if self.aof else "no", "--appendfsync", "always", "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 10
        while not port_open(self.port):
            assert time.monotonic() < end and self.proc.poll() is None, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


class Proxy:
    """A TCP proxy (asyncio, on a thread) in front of PostgreSQL that can be cut."""

    def __init__(self, target_port: int) -> None:
        self.port, self.target = free_port(), target_port
        self.loop = asyncio.new_event_loop()
        self.down = False
        self.writers: set[asyncio.StreamWriter] = set()
        threading.Thread(target=self._run, daemon=True).start()
        end = time.monotonic() + 5
        while not port_open(self.port):
            assert time.monotonic() < end
            time.sleep(0.02)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                w.close()

        async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            if self.down:
                w.close()
                return
            try:
                ur, uw = await asyncio.open_connection("127.0.0.1", self.target)
            except OSError:
                w.close()
                return
            self.writers |= {w, uw}
            await asyncio.gather(pipe(r, uw), pipe(ur, w))

        async def main() -> None:
            server = await asyncio.start_server(handle, "127.0.0.1", self.port)
            async with server:
                await asyncio.Event().wait()

        self.loop.run_until_complete(main())

    def cut(self, seconds: float) -> None:
        def close_all() -> None:
            self.down = True
            for w in list(self.writers):
                w.close()
            self.writers.clear()
        self.loop.call_soon_threadsafe(close_all)
        time.sleep(seconds)
        self.down = False


class Worker:
    def __init__(self, name: str, env: dict[str, str], log: Path) -> None:
        self.name, self.log = name, log
        self._fp = open(log, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "worker", "-c", "1", "-l", "info", "-n", f"{name}@%h",
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            env=env, cwd=str(ROOT), stdout=self._fp, stderr=subprocess.STDOUT, start_new_session=True)
        end = time.monotonic() + 60
        while b" ready." not in log.read_bytes():
            assert time.monotonic() < end and self.proc.poll() is None, log.read_text(errors="replace")[-2000:]
            time.sleep(0.05)

    def celery_pid(self) -> int:
        from tournaments_exec.conftest import children

        return sorted(children(self.proc.pid))[0]

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(10)
        self._fp.close()


def tournament(path: Path, tid: str, deals: int) -> Path:
    path.write_text(f"""
[tournament]
id = "{tid}"
game = "calypso"
format = "round_robin"
deals = {deals}
seed = 11
deadline_ms = 5000

[[entrants]]
id = "h"
bot = "heuristic"

[[entrants]]
id = "r"
bot = "random"
""", encoding="utf-8")
    return path


def summary(store: Any, tid: str) -> dict[str, Any]:
    return {r.match_id: (r.returns, [(a.seat, a.action) for a in r.actions], r.decks, r.seats)
            for r in store.records(tid)}


@dataclass
class Outcome:
    fault: str
    store: str
    matches: int
    recovery_s: float
    total_s: float
    ok: bool
    note: str = ""


def wait_progress(store: Any, tid: str, fraction: float, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while True:
        done, total = store.progress(tid)
        if total and done >= fraction * total:
            return
        assert time.monotonic() < end, f"no progress: {done}/{total}"
        time.sleep(0.05)


def wait_final(store: Any, tid: str, timeout: float) -> float:
    start = time.monotonic()
    while True:
        try:
            if store.tournament(tid).status in ("done", "stopped"):
                return time.monotonic() - start
        except Exception:  # noqa: BLE001 - the store may be down during the fault
            pass
        assert time.monotonic() - start < timeout, f"not finished by itself after {timeout} s"
        time.sleep(0.2)


def hold_sqlite_lock(path: str, seconds: float) -> None:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    time.sleep(seconds)
    conn.execute("ROLLBACK")
    conn.close()


def hold_pg_lock(url: str, seconds: float) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.connect() as conn:
        with conn.begin():
            conn.execute(text("LOCK TABLE match_records IN ACCESS EXCLUSIVE MODE"))
            time.sleep(seconds)
    engine.dispose()


class Drill:
    def __init__(self, kind: str, deals: int, short: bool, work: Path, timeout: float) -> None:
        self.kind, self.deals, self.short, self.work, self.timeout = kind, deals, short, work, timeout
        self.settings = SHORT if short else {}
        self.proxy: Proxy | None = None

    # -- stores -----------------------------------------------------------------
    def new_store(self, name: str) -> tuple[str, Callable[[], None]]:
        if self.kind == "sqlite":
            return f"sqlite:///{self.work / (name + '.db')}", lambda: None
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        schema = f"arena_drill_{uuid.uuid4().hex[:10]}"
        admin = create_engine(PG_URL)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        if self.proxy is None:
            self.proxy = Proxy(make_url(PG_URL).port or 5432)
        url = make_url(PG_URL).set(host="127.0.0.1", port=self.proxy.port).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)

        def drop() -> None:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
        return url, drop

    def reference(self, file: Path, tid: str) -> dict[str, Any]:
        """The records of a fault-free embedded run of the same file (same id:
        built-in bots are seeded from the match ids)."""
        from arena.tournaments import service
        from arena.tournaments.executors import open_store

        url = f"sqlite:///{self.work / (tid + '-reference.db')}"
        store = open_store(url)
        config, _ = service.register(file, store)
        service.run_embedded(url, config.id, 2)
        return summary(store, config.id)

    def env(self, redis_url: str, store_url: str) -> dict[str, str]:
        env = dict(os.environ, ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=store_url, **self.settings)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        return env

    # -- one drill ----------------------------------------------------------------
    def run(self, fault: str) -> Outcome:
        from arena.tournaments import service
        from arena.tournaments.executors import open_store

        tid = f"drill-{fault}"
        file = tournament(self.work / f"{tid}.toml", tid, self.deals)
        ref = self.reference(file, tid)
        url, drop = self.new_store(tid)
        redis = Redis(Path(tempfile.mkdtemp(dir=self.work)), aof=(fault != "redis-volatile"))
        redis.start()
        workers: list[Worker] = []
        start = time.monotonic()
        note = ""
        try:
            store = open_store(url)
            config, _ = service.register(file, store)
            if fault.startswith("embedded"):
                recovery = self._embedded(fault, file, url, store, tid)
            else:
                env = self.env(redis.url, url)
                workers = [Worker(f"w{i}", env, self.work / f"{tid}-w{i}.log") for i in range(2)]
                from workers.celery import make_app
                from workers.dispatch import CeleryDispatcher

                service.submit(store, tid, CeleryDispatcher(make_app(redis.url, url), store_url=url))
                wait_progress(store, tid, 0.33)
                t0 = time.monotonic()
                note = self._inject(fault, workers, redis, url)
                wait_final(store, tid, self.timeout)
                recovery = time.monotonic() - t0
            got = summary(store, tid)
            states = store.spec_states(tid)
            ok = (got == ref and all(s.status == "done" for s in states)
                  and len(list(store.records(tid))) == len(states))
            if not ok:
                note += f" MISMATCH: {len(got)} records vs {len(ref)}; " \
                        f"{sum(got.get(k) != v for k, v in ref.items())} differ"
            return Outcome(fault, self.kind, len(states), recovery, time.monotonic() - start, ok, note.strip())
        finally:
            for w in workers:
                w.stop()
            redis.stop()
            try:
                drop()
            except Exception:  # noqa: BLE001
                pass

    def _inject(self, fault: str, workers: list[Worker], redis: Redis, url: str) -> str:
        if fault == "kill9-main":
            os.kill(workers[0].celery_pid(), signal.SIGKILL)
            return f"killed {workers[0].name}'s celery main"
        if fault == "kill9-child":
            from tournaments_exec.conftest import children

            kids = children(workers[0].celery_pid())
            os.kill(sorted(kids)[0], signal.SIGKILL)
            return f"killed a pool process of {workers[0].name}"
        if fault in ("redis-volatile", "redis-aof"):
            redis.stop()
            time.sleep(1.0)
            redis.start()
            return "redis restarted " + ("without persistence" if fault == "redis-volatile" else "with AOF")
        seconds = 10.0 if fault == "store-down" else 1.0
        if self.kind == "sqlite":
            hold_sqlite_lock(url.removeprefix("sqlite:///"), seconds)
            return f"exclusive SQLite lock for {seconds:.0f} s"
        if fault == "store-down":
            assert self.proxy is not None
            self.proxy.cut(seconds)
            return "PostgreSQL unreachable for 10 s"
        hold_pg_lock(url, seconds)
        return "ACCESS EXCLUSIVE lock on match_records for 1 s"

    def _embedded(self, fault: str, file: Path, url: str, store: Any, tid: str) -> float:
        env = dict(os.environ, **self.settings)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        cmd = [sys.executable, "-m", "arena", "tournament", "run", str(file), "--store", url, "-j", "2"]
        proc = subprocess.Popen(cmd, env=env, cwd=str(self.work), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        wait_progress(store, tid, 0.33)
        t0 = time.monotonic()
        if fault == "embedded-kill9":
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            rerun = subprocess.run(cmd, env=env, cwd=str(self.work), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, timeout=self.timeout)
            assert rerun.returncode == 0, rerun.returncode
        else:
            if self.kind == "sqlite":
                hold_sqlite_lock(url.removeprefix("sqlite:///"), 10.0)
            else:
                assert self.proxy is not None
                self.proxy.cut(10.0)
            assert proc.wait(self.timeout) == 0
        wait_final(store, tid, self.timeout)
        return time.monotonic() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--faults", default=",".join(FAULTS), help="comma-separated, from: " + ", ".join(FAULTS))
    ap.add_argument("--deals", type=int, default=150, help="deals (x2 seatings = matches)")
    ap.add_argument("--short", action="store_true", help="short leases (3 s) and passes, for CI")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a drill may take to finish")
    args = ap.parse_args(argv)
    if shutil.which("redis-server") is None:
        print("redis-server is not installed", file=sys.stderr)
        return 2
    faults = [f for f in args.faults.split(",") if f]
    unknown = set(faults) - set(FAULTS)
    if unknown:
        ap.error(f"unknown faults: {sorted(unknown)}")
    kinds = ["sqlite", "postgresql"] if args.store == "both" else [args.store]
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="arena-drill-") as tmp:
        for kind in kinds:
            drill = Drill(kind, args.deals, args.short, Path(tmp), args.timeout)
            for fault in faults:
                try:
                    out = drill.run(fault)
                except AssertionError as exc:
                    out = Outcome(fault, kind, 0, float("nan"), float("nan"), False, f"FAILED: {exc}")
                outcomes.append(out)
                print(f"{out.store:10} {out.fault:15} {out.matches:4} matches  fault->finish "
                      f"{out.recovery_s:6.1f} s  {'OK' if out.ok else 'FAIL'}  {out.note}", flush=True)
    worst = max((o.recovery_s for o in outcomes if o.ok), default=float("nan"))
    failed = [o for o in outcomes if not o.ok]
    print(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed; worst fault->finish {worst:.1f} s"
          f" ({'short' if args.short else 'default'} settings)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
