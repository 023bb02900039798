"""A local cluster for trying the distributed mode without containers: Redis, the
gateway (``arena serve``) and Celery workers as plain processes on this machine.

``python -m arena.cluster up|status|down|env`` (the CLI wires the same functions as
``arena cluster ...``)::

    python -m arena.cluster up                  # private redis-server, gateway, 2 workers
    eval "$(python -m arena.cluster env)"       # ARENA_REDIS_URL, ARENA_STORE_URL, ...
    arena tournament submit arena/tournaments/examples/<file>.toml
    python -m arena.cluster status
    python -m arena.cluster down

Everything lives in the run directory (default ``./.arena-cluster/``):
``state.json`` (pids, commands, URLs), ``<name>.pid``, ``logs/<name>.log`` and the
SQLite store ``arena.db`` (tournaments, records and the registered bots: after
``eval "$(arena cluster env)"``, ``arena bots register NAME`` writes where the
gateway looks).
Redis is a private ``redis-server`` on a free port (or ``--redis-port``) unless
``--redis-url`` names one that runs already. Every process gets its own session
(process group), so a Ctrl-C in the terminal that ran ``up`` does not reach them.

``down`` stops the workers first (SIGTERM: Celery's warm shutdown finishes the
running batch), then the gateway, then Redis; a process still alive after the
timeout gets SIGKILL, with its whole process group (Celery's pool children).
Pids are checked against their start time, so a reused pid is never signalled.

The configuration passed to the processes is :class:`arena.config.Settings`
(``ARENA_*`` variables).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from arena.config import Settings

__all__ = ["DEFAULT_RUN_DIR", "ClusterError", "Proc", "ClusterState", "up", "down", "status", "main"]

DEFAULT_RUN_DIR = Path(".arena-cluster")
STATE_FILE = "state.json"
REPO_ROOT = Path(__file__).resolve().parents[1]
"""Where ``workers/`` lives (it is not part of the installed package)."""


class ClusterError(RuntimeError):
    """The cluster could not be started or is in an unexpected state."""


@dataclass
class Proc:
    """One process of the cluster."""

    name: str
    pid: int
    cmd: list[str]
    log: str
    start_ticks: int | None = None
    """``/proc/<pid>/stat`` start time, to tell our process from a reused pid."""

    def alive(self) -> bool:
        return _alive(self.pid, self.start_ticks)


@dataclass
class ClusterState:
    """What ``up`` started (``state.json``)."""

    run_dir: str
    settings: dict[str, Any]
    procs: list[Proc] = field(default_factory=list)
    own_redis: bool = True
    started: float = 0.0

    @property
    def env(self) -> dict[str, str]:
        """``ARENA_*`` variables for clients of this cluster (no secrets)."""
        # a state file of an older version may name settings that are gone (gateway_db)
        known = {f.name for f in fields(Settings)}
        s = Settings(**{k: v for k, v in self.settings.items() if k in known})
        return {k: v for k, v in s.to_env().items() if k != "ARENA_OPERATOR_TOKEN"}

    def save(self) -> None:
        path = Path(self.run_dir) / STATE_FILE
        tmp = path.with_suffix(".tmp")
        data = {"run_dir": self.run_dir, "settings": self.settings, "own_redis": self.own_redis,
                "started": self.started, "procs": [vars(p) for p in self.procs]}
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.chmod(tmp, 0o600)  # holds the operator token
        tmp.replace(path)

    @classmethod
    def load(cls, run_dir: str | Path) -> ClusterState | None:
        path = Path(run_dir) / STATE_FILE
        if not path.exists():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        procs = [Proc(**p) for p in data.pop("procs")]
        return cls(procs=procs, **data)


# -- processes -------------------------------------------------------------------------

def _start_ticks(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def _alive(pid: int, start_ticks: int | None = None) -> bool:
    """Whether ``pid`` runs (not a zombie) and is the process started at ``start_ticks``."""
    try:  # reap it if it is our child (up and down in one process)
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return not Path("/proc").is_dir()  # no procfs: trust kill(0)
    tail = stat.rsplit(")", 1)[1].split()
    if tail[0] == "Z":
        return False
    return start_ticks is None or int(tail[19]) == start_ticks


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # zombies still count for killpg(0); look for a live member
    proc = Path("/proc")
    if not proc.is_dir():
        return True
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            tail = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(tail[2]) == pgid and tail[0] != "Z":
            return True
    return False


def _launch(name: str, cmd: list[str], run_dir: Path, env: dict[str, str]) -> Proc:
    log = run_dir / "logs" / f"{name}.log"
    with open(log, "ab") as out:
        popen = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=env, cwd=str(run_dir), start_new_session=True)
    (run_dir / f"{name}.pid").write_text(f"{popen.pid}\n")
    return Proc(name, popen.pid, cmd, str(log), _start_ticks(popen.pid))


def _stop(proc: Proc, timeout: float) -> bool:
    """SIGTERM ``proc``, wait up to ``timeout``, then SIGKILL its process group.
    Returns whether it had to be killed."""
    killed = False
    if proc.alive():
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        end = time.monotonic() + timeout
        while proc.alive() and time.monotonic() < end:
            time.sleep(0.05)
        if proc.alive():
            killed = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    # our own session: leftovers (pool children) share the pid as group id
    if _start_ticks(proc.pid) in (None, proc.start_ticks) and _group_alive(proc.pid):
        end = time.monotonic() + min(timeout, 5.0)
        while _group_alive(proc.pid) and time.monotonic() < end:
            time.sleep(0.05)
        if _group_alive(proc.pid):
            killed = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    end = time.monotonic() + 5.0
    while proc.alive() and time.monotonic() < end:
        time.sleep(0.02)
    return killed


# -- readiness -------------------------------------------------------------------------

def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _redis_ok(url: str) -> bool:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - not up yet
        return False


def _workers_pong(redis_url: str, names: list[str], timeout: float = 1.0) -> set[str]:
    """Which of the worker node names answer a Celery ping."""
    from celery import Celery

    app = Celery("arena-cluster-probe", broker=redis_url, backend=redis_url)
    app.conf.broker_connection_retry_on_startup = False
    try:
        replies = app.control.ping(destination=names, timeout=timeout) or []
    except Exception:  # noqa: BLE001 - broker not ready
        return set()
    finally:
        app.close()
    return {name for reply in replies for name in reply}


def _tail(path: str, lines: int = 15) -> str:
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _wait(what: str, check: Any, procs: list[Proc], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        for p in procs:
            if not p.alive():
                raise ClusterError(f"{p.name} exited while waiting for {what}; log {p.log}:\n{_tail(p.log)}")
        time.sleep(0.1)
    raise ClusterError(f"timed out after {timeout:g}s waiting for {what}; logs in "
                       + ", ".join(p.log for p in procs))


# -- commands --------------------------------------------------------------------------

def _worker_name(i: int) -> str:
    return f"arena-{i}@{socket.gethostname()}"


def up(run_dir: str | Path = DEFAULT_RUN_DIR, *, redis_url: str | None = None,
       redis_port: int | None = None, gateway_address: str | None = None, workers: int = 2,
       concurrency: int = 1, store_url: str | None = None, operator_token: str | None = None,
       timeout: float = 30.0) -> ClusterState:
    """Start Redis (unless ``redis_url``), the gateway and ``workers`` Celery workers;
    return when all answer (Redis ping, the gateway's port, a Celery ping per worker).

    :param gateway_address: default ``127.0.0.1:50051`` (``ARENA_GATEWAY_ADDRESS``);
        port ``0`` picks a free port.
    :param store_url: default a SQLite file in the run directory.
    :raises ClusterError: if a cluster runs already in ``run_dir``, ``redis-server`` is
        missing, or a process does not come up within ``timeout`` (everything started
        is stopped again).
    """
    run = Path(run_dir).resolve()
    old = ClusterState.load(run)
    if old is not None and any(p.alive() for p in old.procs):
        raise ClusterError(f"a cluster runs already in {run} (arena cluster down first)")
    (run / "logs").mkdir(parents=True, exist_ok=True)
    base = Settings.from_env()
    own_redis = redis_url is None
    if own_redis:
        if shutil.which("redis-server") is None:
            raise ClusterError("redis-server not found: install it (apt-get install redis-server) "
                               "or pass --redis-url")
        redis_port = redis_port or _free_port()
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
    assert redis_url is not None
    gateway_address = gateway_address or base.gateway_address
    if gateway_address.endswith(":0"):  # a free port, known before the gateway starts
        host = gateway_address.rsplit(":", 1)[0]
        gateway_address = f"{host}:{_free_port(host)}"
    gw_host, gw_port = gateway_address.rsplit(":", 1)
    if not _port_free(gw_host.strip("[]") or "0.0.0.0", int(gw_port)):
        raise ClusterError(f"the gateway address {gateway_address} is in use (--gateway-address)")
    if own_redis and not _port_free("127.0.0.1", int(redis_port or 0)):
        raise ClusterError(f"the Redis port {redis_port} is in use (--redis-port)")
    settings = replace(
        base,
        redis_url=redis_url,
        store_url=store_url or f"sqlite:///{run / 'arena.db'}",
        gateway_address=gateway_address,
        operator_token=operator_token or base.operator_token or secrets.token_urlsafe(24),
    )
    env = dict(os.environ)
    env.update(settings.to_env())
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    state = ClusterState(str(run), vars(settings).copy(), [], own_redis, time.time())
    try:
        if own_redis:
            proc = _launch("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                                     "--save", "", "--appendonly", "no", "--dir", str(run)], run, env)
            state.procs.append(proc)
            state.save()
        _wait(f"Redis at {redis_url}", lambda: _redis_ok(redis_url), state.procs, timeout)
        # the store URL (maybe with a password) reaches the gateway as ARENA_STORE_URL, not argv
        gw = _launch("gateway", [sys.executable, "-m", "arena.cli", "serve",
                                 "--address", settings.gateway_address, "--grace", "2"], run, env)
        state.procs.append(gw)
        names = [_worker_name(i + 1) for i in range(workers)]
        for i, name in enumerate(names):
            state.procs.append(_launch(f"worker-{i + 1}", [
                sys.executable, "-m", "arena", "worker", "-l", "info",
                "-c", str(concurrency), "-n", name, "--without-mingle", "--without-gossip"], run, env))
        state.save()
        host = settings.gateway_host
        host = "127.0.0.1" if host in ("0.0.0.0", "", "[::]") else host
        _wait(f"the gateway on {settings.gateway_address}",
              lambda: _port_open(host, settings.gateway_port), state.procs, timeout)
        if names:
            _wait("the Celery workers", lambda: set(names) <= _workers_pong(redis_url, names),
                  state.procs, timeout)
    except BaseException:
        _down_state(state, timeout=5.0)
        raise
    return state


def _down_state(state: ClusterState, timeout: float) -> dict[str, bool]:
    order = sorted(state.procs, key=lambda p: (p.name == "redis", p.name == "gateway"))
    result = {p.name: _stop(p, timeout) for p in order}
    run = Path(state.run_dir)
    for p in state.procs:
        (run / f"{p.name}.pid").unlink(missing_ok=True)
    (run / STATE_FILE).unlink(missing_ok=True)
    return result


def down(run_dir: str | Path = DEFAULT_RUN_DIR, *, timeout: float = 15.0) -> dict[str, bool]:
    """Stop the cluster in ``run_dir``: SIGTERM, wait ``timeout`` s, then SIGKILL.

    :returns: process name -> whether it had to be killed; ``{}`` if nothing ran.
    """
    state = ClusterState.load(Path(run_dir).resolve())
    if state is None:
        return {}
    return _down_state(state, timeout)


def status(run_dir: str | Path = DEFAULT_RUN_DIR) -> dict[str, Any]:
    """``{"running": bool, "procs": [{name, pid, alive, log}], "env": {...}}``."""
    state = ClusterState.load(Path(run_dir).resolve())
    if state is None:
        return {"running": False, "procs": [], "env": {}}
    procs = [{"name": p.name, "pid": p.pid, "alive": p.alive(), "log": p.log} for p in state.procs]
    return {"running": all(p["alive"] for p in procs), "procs": procs, "env": state.env,
            "run_dir": state.run_dir}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", default=str(DEFAULT_RUN_DIR), help="pids, logs, SQLite files")
    sub = parser.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up", help="start Redis, the gateway and the workers")
    p_up.add_argument("--redis-url", help="use this Redis instead of starting a private one")
    p_up.add_argument("--redis-port", type=int, help="port of the private redis-server (default: free)")
    p_up.add_argument("--gateway-address", help="default $ARENA_GATEWAY_ADDRESS or 127.0.0.1:50051")
    p_up.add_argument("--workers", type=int, default=2)
    p_up.add_argument("--concurrency", type=int, default=1, help="prefork processes per worker")
    p_up.add_argument("--store-url", help="default sqlite:///RUN_DIR/arena.db")
    p_up.add_argument("--timeout", type=float, default=30.0)
    p_down = sub.add_parser("down", help="stop everything (SIGTERM, then SIGKILL)")
    p_down.add_argument("--timeout", type=float, default=15.0)
    p_status = sub.add_parser("status", help="the processes and whether they run")
    p_status.add_argument("--json", action="store_true")
    sub.add_parser("env", help="export lines for clients (eval them in a shell)")
    args = parser.parse_args(argv)

    if args.command == "up":
        try:
            state = up(args.run_dir, redis_url=args.redis_url, redis_port=args.redis_port,
                       gateway_address=args.gateway_address, workers=args.workers,
                       concurrency=args.concurrency, store_url=args.store_url, timeout=args.timeout)
        except ClusterError as exc:
            print(f"arena cluster up: {exc}", file=sys.stderr)
            return 1
        for p in state.procs:
            print(f"{p.name:10} pid {p.pid:<8} log {p.log}")
        print(f"operator token in {Path(state.run_dir) / STATE_FILE}; for clients:")
        for k, v in state.env.items():
            print(f"export {k}={v}")
        return 0
    if args.command == "down":
        result = down(args.run_dir, timeout=args.timeout)
        if not result:
            print("no cluster in", args.run_dir)
        for name, killed in result.items():
            print(f"{name:10} {'killed (SIGKILL)' if killed else 'stopped'}")
        return 0
    st = status(args.run_dir)
    if args.command == "env":
        for k, v in st["env"].items():
            print(f"export {k}={v}")
        return 0 if st["procs"] else 1
    if args.json:
        print(json.dumps(st, indent=2))
    elif not st["procs"]:
        print("no cluster in", args.run_dir)
    else:
        for p in st["procs"]:
            print(f"{p['name']:10} pid {p['pid']:<8} {'running' if p['alive'] else 'DEAD':8} {p['log']}")
    return 0 if st["running"] else 1


if __name__ == "__main__":
    sys.exit(main())
