"""Soak drill: thousands of remote matches on Celery, and nothing grows.

Real processes, as an operator runs them: a ``redis-server`` of the drill's own (a
free port; stopped at the end; the drill never touches a Redis it did not start),
``arena serve --redis-url`` (the gateway), two ``arena worker`` processes (``-c``
pool processes each, default 2), and two bot processes connected to the gateway:
the SDK bot :class:`drills.sdk_bot.SoakSdkBot` (``python -m arenabot``) and
:mod:`drills.stub_bot`, written against the generated stubs of
``proto/arena/bot/v1/`` only. Both bots choose deterministically (a hash of each
request's timing-free contents), so that their matches can be compared.

The tournaments are the five files of ``tests/drills/soak/`` (bridge, canasta,
calypso, rummy, auction: a round robin of the two remote bots and the built-in
random bot, so every match has a remote bot; short presets, one deal per match),
their ``deals`` scaled so that together they hold at least ``--matches`` matches
(default 5,040: the files as written). The bots are registered with ``arena bots
register`` and the files submitted with ``arena tournament submit`` while the
workers start; play starts once every process is up and every file submitted, and
the drill then waits, doing nothing else, until every tournament is final.
Meanwhile it samples, every ``--interval`` seconds (default 2):

* Redis ``INFO clients`` ``connected_clients``;
* each worker's open file descriptors: ``/proc/<pid>/fd`` counted over every
  process of its tree (``arena worker``, the Celery main process, its pool
  processes);
* the RSS of the gateway's and of each worker's process tree (and, reported, not
  asserted, the CPU seconds of every process tree).

The same files are also played embedded (``arena tournament run FILES --gateway``,
which hosts its own gateway, in a store of its own, with new processes of the same
two bots), alongside the distributed run (it shares no process, port or store with
it; ``--sequential``: after it). The records are compared per match id: actions
(seat, text, whether the referee's default), returns and faults (seat, kind);
timings are ignored.

It asserts, and exits 1 with a one-line reason on stderr at the first that fails:

* every tournament final, every match recorded once, none ``failed``;
* 0 faults (any fault of any seat), 0 forfeits (``absent``);
* the records identical to the embedded run's (which must have no faults either);
* flat resources, judged on the samples taken during play. The *baseline* ends at
  the first minute of play or when half the run's matches are recorded, whichever
  comes first (the full drill: the first minute, about an eighth of its matches; the
  short form, ~20 s of play: its first half), and holds at least 3 samples. A leak
  grows with the matches played, so the half the baseline leaves out shows it; the
  pools are high-water marks of concurrent calls, which in a 20-s run under CI load
  are still rising a third of the way in (a run of 504 matches: 91 clients in the
  first 7 s, 111 at 8 s, 113 at most). ``connected_clients``: max over the run
  <= baseline max + 12 (:data:`CLIENTS_SLACK`: the workers' and the gateway's pools
  grow with the peak of concurrent calls, which a later moment of the run may pass
  by a few, +5 in the runs measured; a connection per remote-match thread, issue
  26, passes 12 within seconds). Each worker's fds: max <= baseline max + 16
  (:data:`FD_SLACK`: each Redis connection is also a descriptor, plus SQLite's
  journals). Each RSS (the gateway's tree, each worker's): max <= baseline max x
  1.15 + 32 MiB (:data:`RSS_FACTOR`, :data:`RSS_SLACK_MB`: engine modules and
  caches load as the games first come up; measured here: the workers' trees grow
  about 10 % over the 5,040 matches, the gateway's not at all).

Voids (matches given back after a platform fault and replayed) are counted from the
workers' logs and reported; they fail the drill only through what they cause
(nothing recorded for ``--stall`` seconds, the timeout, a record that differs).

Every wait is bounded: the distributed run fails when nothing is recorded for
``--stall`` seconds (default 90) or after ``--timeout`` seconds of play (default
120 + 0.4 s per match); the embedded run has the same timeout, process starts and
CLI calls bounds of their own. Everything the drill started is stopped on exit, on
Ctrl-C, SIGTERM or a failure too (and the long-lived processes get SIGTERM if the
drill itself is killed: ``PR_SET_PDEATHSIG``).

``--short`` is the CI form (:mod:`drills.test_soak`): 500 matches, one pool process
per worker, up to 48 remote matches in flight per process (see
:data:`SHORT_REMOTE_MATCHES`).

Usage::

    python tests/drills/drill_soak.py                 # 5,040 matches: ~11 min on 2 loaded cores
    python tests/drills/drill_soak.py --short         # ~500 matches, what CI runs: ~2 min
    python tests/drills/drill_soak.py --matches 2000 --json soak.json --workdir /tmp/soak

``--json FILE`` writes the figures and every sample; ``--workdir DIR`` keeps the
stores and logs there (default: a temporary directory, removed).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python"
for _p in (str(ROOT), str(ROOT / "tests"), str(SDK)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from drills.drill_conductor import free_port, port_open  # noqa: E402

SOAK = Path(__file__).resolve().parent / "soak"
GAMES = ("bridge", "canasta", "calypso", "rummy", "auction")
BOTS = {"soak-sdk": "sdk", "soak-stub": "stub"}
"""Registered bot id -> which program plays it."""
FULL_MATCHES = 5040
SHORT_MATCHES = 500
SHORT_CONCURRENCY = 1
SHORT_REMOTE_MATCHES = 48
"""The short form (``--short``, CI): one pool process per worker, each playing up to 48
remote matches at once on threads. A work task starts its threads anew, so each pool
process starts well over a hundred remote-match threads in a minute of play: the
per-thread Redis connections of issue 26 (never given back; redis-py's pool makes at
most 100) run out within it. With the worker's default of 16 they ran out only after
a few minutes of play, past the short form's end."""
CLIENTS_SLACK = 12
FD_SLACK = 16
RSS_FACTOR = 1.15
RSS_SLACK_MB = 32
BASELINE_SECONDS = 60.0
MIN_BASELINE_SAMPLES = 3
DEALS_LINE = re.compile(r"^deals = (\d+)  # scaled$", re.MULTILINE)


class DrillFailure(Exception):
    """The drill failed; the message is the one-line reason."""


# ---------------------------------------------------------------- processes
try:
    _LIBC: Any = ctypes.CDLL(None, use_errno=True)  # loaded here: no dlopen between fork and exec
except OSError:
    _LIBC = None


def _pdeathsig() -> None:
    """In the child: SIGTERM when the drill dies (Linux), so nothing outlives a SIGKILL."""
    if _LIBC is not None:
        _LIBC.prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, chars: int = 1500) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


class Processes:
    """Every long-lived process the drill starts, each in its own session (so that
    a whole tree, a worker's pool included, is signalled at once)."""

    def __init__(self) -> None:
        self.procs: list[Proc] = []

    def start(self, name: str, cmd: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT) -> Proc:
        with open(log, "ab") as fp:
            popen = subprocess.Popen(cmd, env=env, cwd=str(cwd), stdout=fp, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=_pdeathsig)
        proc = Proc(name, popen, log)
        self.procs.append(proc)
        return proc

    def stop(self, procs: list[Proc] | None = None, grace: float = 8.0) -> None:
        """SIGTERM to each process group, SIGKILL to what is left after ``grace`` s."""
        chosen = list(self.procs if procs is None else procs)
        for p in chosen:
            _signal_group(p.popen, signal.SIGTERM)
        end = time.monotonic() + grace
        for p in chosen:
            try:
                p.popen.wait(max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _signal_group(p.popen, signal.SIGKILL)  # the group: pool processes left behind too
            try:
                p.popen.wait(5)
            except subprocess.TimeoutExpired:
                pass
            if p in self.procs:
                self.procs.remove(p)


def _signal_group(popen: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(popen.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (children of any of their threads), from /proc."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p in seen or not Path(f"/proc/{p}").exists():
            continue
        seen.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                todo += [int(x) for x in Path(f"/proc/{p}/task/{t}/children").read_text().split()]
            except OSError:
                pass
    return seen


def fd_count(pids: list[int]) -> int:
    total = 0
    for p in pids:
        try:
            total += len(os.listdir(f"/proc/{p}/fd"))
        except OSError:
            pass
    return total


PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes (and of their children already reaped)."""
    total = 0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, IndexError, ValueError):
            pass
    return total / TICK


def rss_mb(pids: list[int]) -> float:
    total = 0
    for p in pids:
        try:
            total += int(Path(f"/proc/{p}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    return total / 2**20


# ---------------------------------------------------------------- files
def scaled_files(matches: int, out: Path) -> dict[str, Path]:
    """The soak files with their ``deals`` scaled (at least ``matches`` together)."""
    factor = matches / FULL_MATCHES
    files = {}
    for game in GAMES:
        text = (SOAK / f"{game}.toml").read_text(encoding="utf-8")
        m = DEALS_LINE.search(text)
        assert m, f"{game}.toml has no 'deals = N  # scaled' line"
        deals = max(1, math.ceil(int(m.group(1)) * factor))
        files[game] = out / f"{game}.toml"
        files[game].write_text(DEALS_LINE.sub(f"deals = {deals}", text, count=1), encoding="utf-8")
    return files


def tournament_id(file: Path) -> str:
    import tomllib

    return str(tomllib.loads(file.read_text(encoding="utf-8"))["tournament"]["id"])


def summary(store: Any, tid: str) -> dict[str, Any]:
    """What must be equal between two runs, per match id (no timings)."""
    return {r.match_id: (r.returns, [(a.seat, a.action, a.default) for a in r.actions],
                         [(f.seat, f.kind) for f in r.faults]) for r in store.records(tid)}


# ---------------------------------------------------------------- sampling
@dataclass
class Sample:
    t: float
    done: int
    clients: int
    fds: dict[str, int]
    rss: dict[str, float]
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds so far of each process tree the drill started (not asserted)."""
    rss_each: dict[str, dict[int, float]] = field(default_factory=dict)
    """Each worker's processes' RSS in MiB, by pid (reported in ``--json``, not asserted)."""


class Sampler:
    """Samples on a thread every ``interval`` s until stopped."""

    def __init__(self, redis_url: str, store_url: str, tids: list[str], workers: list[Proc], gateway: Proc,
                 interval: float, others: list[Proc]) -> None:
        import redis

        from arena.tournaments.executors import open_store

        self.client = redis.Redis.from_url(redis_url, socket_timeout=5)
        self.store = open_store(store_url)
        self.tids, self.workers, self.gateway, self.interval = tids, workers, gateway, interval
        self.others = others
        self.samples: list[Sample] = []
        self.errors: list[str] = []
        self.play_t: float | None = None
        """When play started (every process up, every file submitted), in sample time."""
        self.t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="soak-sampler", daemon=True)

    def start(self) -> None:
        self.t0 = time.monotonic()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.client.close()

    def sample(self) -> Sample:
        clients = int(self.client.info("clients")["connected_clients"])
        fds, rss = {}, {"gateway": rss_mb(tree(self.gateway.popen.pid))}
        each: dict[str, dict[int, float]] = {}
        for w in self.workers:
            pids = tree(w.popen.pid)
            fds[w.name], rss[w.name] = fd_count(pids), rss_mb(pids)
            each[w.name] = {p: round(rss_mb([p]), 1) for p in sorted(pids)}
        cpu = {p.name: round(cpu_seconds(tree(p.popen.pid)), 2) for p in [self.gateway, *self.workers, *self.others]}
        done = 0
        for tid in self.tids:
            try:
                done += self.store.progress(tid)[0]
            except Exception:  # noqa: BLE001 - not registered yet, or the store busy
                pass
        return Sample(round(time.monotonic() - self.t0, 2), done, clients, fds, rss, cpu, each)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append(self.sample())
            except Exception as exc:  # noqa: BLE001 - Redis busy for a moment: the next one
                self.errors.append(f"{type(exc).__name__}: {exc}")
            self._stop.wait(self.interval)


@dataclass
class Check:
    name: str
    base_max: float
    run_min: float
    run_max: float
    limit: float

    @property
    def ok(self) -> bool:
        return self.run_max <= self.limit


def flat_checks(samples: list[Sample], matches: int) -> tuple[float, list[Check]]:
    """The baseline window (s) and every flatness check of the samples taken during
    play of a run of ``matches`` matches (see the module docstring)."""
    base = [s for s in samples if s.t - samples[0].t <= BASELINE_SECONDS and 2 * s.done <= matches]
    if len(base) < MIN_BASELINE_SAMPLES:
        base = samples[:MIN_BASELINE_SAMPLES]
    window = base[-1].t - samples[0].t

    def series(name: str, get: Callable[[Sample], float], limit: Callable[[float], float]) -> Check:
        b, a = [get(s) for s in base], [get(s) for s in samples]
        return Check(name, max(b), min(a), max(a), limit(max(b)))

    checks = [series("redis connected_clients", lambda s: s.clients, lambda m: m + CLIENTS_SLACK)]
    for w in samples[0].fds:
        checks.append(series(f"{w} open fds", lambda s, w=w: s.fds.get(w, 0), lambda m: m + FD_SLACK))
    for p in samples[0].rss:
        checks.append(series(f"{p} RSS MiB", lambda s, p=p: s.rss.get(p, 0.0),
                             lambda m: m * RSS_FACTOR + RSS_SLACK_MB))
    return window, checks


# ---------------------------------------------------------------- the drill
@dataclass
class Report:
    matches: int = 0
    recorded: int = 0
    wall_s: float = 0.0
    embedded_s: float = 0.0
    faults: int = 0
    forfeits: int = 0
    failed: int = 0
    voids: int = 0
    differ: int = 0
    baseline_s: float = 0.0
    play_t: float | None = None
    checks: list[Check] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    sampler_errors: list[str] = field(default_factory=list)
    failure: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"ok": not self.failure, "failure": self.failure, "matches": self.matches,
                "recorded": self.recorded, "wall_s": round(self.wall_s, 1),
                "embedded_s": round(self.embedded_s, 1), "faults": self.faults, "forfeits": self.forfeits,
                "failed": self.failed, "voids": self.voids, "records_differ": self.differ,
                "baseline_s": round(self.baseline_s, 1), "play_started_at_sample_t": self.play_t,
                "checks": [{"name": c.name, "baseline_max": c.base_max, "min": c.run_min, "max": c.run_max,
                            "limit": round(c.limit, 1), "ok": c.ok} for c in self.checks],
                "sampler_errors": self.sampler_errors[:20],
                "samples": [s.__dict__ for s in self.samples]}


class SoakDrill:
    def __init__(self, work: Path, matches: int, concurrency: int, interval: float, timeout: float,
                 stall: float, echo: Callable[[str], None] = print, alongside: bool = True,
                 remote_matches: int | None = None) -> None:
        self.work, self.matches, self.concurrency, self.alongside = work, matches, concurrency, alongside
        self.remote_matches = remote_matches
        self.interval, self.timeout, self.stall, self.echo = interval, timeout, stall, echo
        self.procs = Processes()
        self.report = Report()
        self.store_url = self.embedded_url = ""
        self.tokens: dict[str, str] = {}
        self.embedded_tokens: dict[str, str] = {}
        self.embedded: tuple[Proc, list[Proc], float] | None = None

    # -- helpers ----------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ, **extra)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(SDK), env.get("PYTHONPATH", "")])
        env.setdefault("PYTHONUNBUFFERED", "1")
        return env

    def cli_start(self, *calls: list[str]) -> list[tuple[list[str], subprocess.Popen[str]]]:
        """Start ``arena`` commands, one process each (see :meth:`cli_wait`)."""
        return [(args, subprocess.Popen([sys.executable, "-m", "arena", *args], env=self.env(), cwd=str(self.work),
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        stdin=subprocess.DEVNULL, start_new_session=True)) for args in calls]

    def cli_wait(self, procs: list[tuple[list[str], subprocess.Popen[str]]], timeout: float = 180) -> list[str]:
        """The stdouts of commands :meth:`cli_start` started, all within ``timeout`` s
        (killed after it); a failure of any is a :class:`DrillFailure`."""
        end, outs, failure = time.monotonic() + timeout, [], ""
        for args, proc in procs:
            try:
                out, err = proc.communicate(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                failure = failure or f"arena {' '.join(args[:2])} took more than {timeout:.0f} s"
            if proc.returncode != 0 and not failure:
                last = (err.strip() or out.strip()).splitlines()[-1:] or ["(no output)"]
                failure = f"arena {' '.join(args[:2])} exited {proc.returncode}: {last[0]}"
            outs.append(out)
        if failure:
            raise DrillFailure(failure)
        return outs

    def cli(self, *calls: list[str], timeout: float = 180) -> list[str]:
        """Run ``arena`` commands at once; their stdouts."""
        procs = self.cli_start(*calls)
        try:
            return self.cli_wait(procs, timeout)
        finally:
            for _, proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()

    def register_bots(self, *store_urls: str) -> list[dict[str, str]]:
        """Register both bots in each store (``arena bots register``); their tokens, per store."""
        outs = iter(self.cli(*[["bots", "register", bot, "--store", url] for url in store_urls for bot in BOTS]))
        return [{bot: next(outs).strip().splitlines()[-1].strip() for bot in BOTS} for _ in store_urls]

    def start_bots(self, port: int, tokens: dict[str, str], tag: str) -> list[Proc]:
        target = f"127.0.0.1:{port}"
        sdk = self.procs.start(f"{tag}-sdk-bot", [
            sys.executable, "-m", "arenabot", "--target", target, "--token", tokens["soak-sdk"],
            "--bot", "drills.sdk_bot:SoakSdkBot", "--max-concurrent", "64"],
            self.env(), self.work / f"{tag}-sdk-bot.log")
        stub = self.procs.start(f"{tag}-stub-bot", [
            sys.executable, str(ROOT / "tests" / "drills" / "stub_bot.py"), "--target", target,
            "--token", tokens["soak-stub"], "--max-concurrent", "64", "--give-up-after", "600"],
            self.env(), self.work / f"{tag}-stub-bot.log")
        return [sdk, stub]

    def wait_for(self, what: str, ready: Callable[[], bool], procs: list[Proc], timeout: float) -> None:
        end = time.monotonic() + timeout
        while not ready():
            for p in procs:
                if p.popen.poll() is not None:
                    raise DrillFailure(f"{p.name} exited {p.popen.returncode} before {what}: "
                                       + " | ".join(p.tail(600).strip().splitlines()[-3:]))
            if time.monotonic() > end:
                raise DrillFailure(f"no {what} within {timeout:.0f} s")
            time.sleep(0.1)

    @staticmethod
    def log_has(proc: Proc, *needles: str) -> Callable[[], bool]:
        def check() -> bool:
            text = proc.tail(10**7)
            return all(n in text for n in needles)
        return check

    # -- the drill ----------------------------------------------------------------
    def run(self) -> Report:
        try:
            self._run()
        except DrillFailure as exc:
            self.report.failure = str(exc)
        finally:
            self.procs.stop()
        return self.report

    def _run(self) -> None:
        files = scaled_files(self.matches, self.work)
        tids = [tournament_id(f) for f in files.values()]
        self.store_url = f"sqlite:///{self.work / 'soak.db'}"
        self.embedded_url = f"sqlite:///{self.work / 'embedded.db'}"
        self.tokens, self.embedded_tokens = self.register_bots(self.store_url, self.embedded_url)
        port = free_port()
        redis_dir = self.work / "redis"
        redis_dir.mkdir()
        redis = self.procs.start("redis-server", [
            "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(redis_dir),
            "--appendonly", "no", "--save", "", "--daemonize", "no"], self.env(), self.work / "redis.log")
        self.wait_for("redis-server listening", lambda: port_open(port), [redis], 15)
        remote = self._distributed(files, tids, f"redis://127.0.0.1:{port}/0", redis)
        self.procs.stop([redis])
        self._embedded(files, tids, remote)

    def _distributed(self, files: dict[str, Path], tids: list[str], redis_url: str, redis: Proc) -> dict[str, Any]:
        from arena.tournaments.executors import open_store

        store_url, tokens = self.store_url, self.tokens
        port = free_port()
        gateway = self.procs.start("gateway", [
            sys.executable, "-m", "arena", "serve", "--address", f"127.0.0.1:{port}", "--store", store_url,
            "--redis-url", redis_url], self.env(), self.work / "gateway.log")
        workers = [self.procs.start(f"w{i}", [
            sys.executable, "-m", "arena", "worker", "-c", str(self.concurrency), "-l", "info",
            *(["--remote-matches", str(self.remote_matches)] if self.remote_matches else []),
            "--redis-url", redis_url, "--store", store_url, "-P", "prefork", "-n", f"soak{i}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat"],
            self.env(ARENA_REDIS_URL=redis_url, ARENA_STORE_URL=store_url), self.work / f"w{i}.log")
            for i in range(2)]
        submits = self.cli_start(*[["tournament", "submit", str(f), "--store", store_url, "--redis-url", redis_url]
                                   for f in files.values()])
        bots: list[Proc] = []
        sampler = Sampler(redis_url, store_url, tids, workers, gateway, self.interval, [redis])
        sampler.start()
        setup = time.monotonic()
        start = 0.0
        try:
            self.wait_for("gateway listening", lambda: port_open(port), [gateway], 60)
            bots += self.start_bots(port, tokens, "remote")
            sampler.others += bots
            self.cli_wait(submits)
            for w in workers:
                self.wait_for(f"{w.name} ready", self.log_has(w, " ready."), [w], 120)
            self.wait_for("bots connected to the gateway",
                          self.log_has(gateway, *(f"bot {b} connected" for b in BOTS)), [gateway, *bots], 60)
            start = time.monotonic()
            sampler.play_t = start - sampler.t0
            store = open_store(store_url)
            self.report.matches = sum(len(store.spec_states(t)) for t in tids)
            self.echo(f"{len(tids)} tournaments of {self.report.matches} matches submitted; gateway, 2 workers "
                      f"(-c {self.concurrency}) and both bots up after {start - setup:.0f} s")
            if self.alongside:
                self._start_embedded(files)
            self._wait_final(store, tids, [redis, gateway, *workers, *bots], sampler, start)
        finally:
            for _, proc in submits:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            sampler.stop()
            self.report.wall_s = time.monotonic() - start if start else 0.0
            self.report.samples, self.report.sampler_errors = sampler.samples, sampler.errors
            self.report.play_t = sampler.play_t
            self.report.recorded = max((x.done for x in sampler.samples), default=0)
            self.report.voids = sum(w.tail(10**9).count("void (platform fault)") for w in workers)
        self.procs.stop([*bots, *workers, gateway])
        self.echo(f"distributed run done in {self.report.wall_s:.0f} s; processes stopped")

        got: dict[str, Any] = {}
        for tid in tids:
            got.update(summary(store, tid))
            self.report.failed += sum(s.status != "done" for s in store.spec_states(tid))
        records = [r for tid in tids for r in store.records(tid, actions=False)]
        self.report.recorded = len(records)
        self.report.faults = sum(len(r.faults) for r in records)
        self.report.forfeits = sum(1 for r in records if "forfeit" in r.tags)
        played = [s for s in sampler.samples if sampler.play_t is not None and s.t >= sampler.play_t]
        if len(played) >= MIN_BASELINE_SAMPLES:
            self.report.baseline_s, self.report.checks = flat_checks(played, self.report.matches)
        rep = self.report
        if rep.failed or rep.recorded != rep.matches:
            raise DrillFailure(f"{rep.failed} matches not done, {rep.recorded} records for {rep.matches} matches")
        if rep.forfeits:
            raise DrillFailure(f"{rep.forfeits} forfeits (bots absent) in the distributed run")
        if rep.faults:
            first = next(r for r in records if r.faults)
            raise DrillFailure(f"{rep.faults} faults in the distributed run (first: {first.match_id}: "
                               f"{first.faults[0].kind}: {first.faults[0].reason})")
        if not rep.checks:
            raise DrillFailure(f"only {len(played)} samples during play: too short "
                               "a run to judge flatness (a smaller --interval?)")
        bad = [c for c in rep.checks if not c.ok]
        if bad:
            c = bad[0]
            raise DrillFailure(f"{c.name} not flat: max {c.run_max:g} > {c.limit:g} (first {rep.baseline_s:.0f} s: "
                               f"max {c.base_max:g})")
        return got

    def _wait_final(self, store: Any, tids: list[str], procs: list[Proc], sampler: Sampler, start: float) -> None:
        last_done, last_change, last_echo = -1, time.monotonic(), 0.0
        while True:
            infos = {t: store.tournament(t) for t in tids}
            if all(i.status in ("done", "stopped") for i in infos.values()):
                return
            done = sum(store.progress(t)[0] for t in tids)
            now = time.monotonic()
            if done != last_done:
                last_done, last_change = done, now
            if now - last_echo >= 10:
                last_echo = now
                s = sampler.samples[-1] if sampler.samples else None
                extra = "" if s is None else (f"  clients {s.clients}  fds " + "/".join(map(str, s.fds.values()))
                                              + "  RSS MiB " + "/".join(f"{v:.0f}" for v in s.rss.values()))
                self.echo(f"{done:5}/{self.report.matches} recorded{extra}")
            for p in procs:
                if p.popen.poll() is not None:
                    raise DrillFailure(f"{p.name} exited {p.popen.returncode} during the run: "
                                       + " | ".join(p.tail(600).strip().splitlines()[-3:]))
            why = ""
            if now - last_change > self.stall:
                why = f"nothing recorded for {self.stall:.0f} s"
            elif now - start > self.timeout:
                why = f"not final after {self.timeout:.0f} s"
            if why:
                paused = [f"{t}: {getattr(i, 'pause_reason', None)}" for t, i in infos.items()
                          if getattr(i, "pause_reason", None)]
                errors = [s.error for t in tids for s in store.spec_states(t) if s.error][-1:]
                raise DrillFailure(f"{why}: {done}/{self.report.matches} recorded"
                                   + (f"; paused: {paused[0]}" if paused else "")
                                   + (f"; last error: {errors[0][:300]}" if errors else ""))
            time.sleep(1.0)

    def _start_embedded(self, files: dict[str, Path]) -> None:
        """Start the embedded reference run (``arena tournament run --gateway``) and its two bots."""
        port = free_port()
        bots = self.start_bots(port, self.embedded_tokens, "embedded")
        run = self.procs.start("embedded run", [
            sys.executable, "-m", "arena", "tournament", "run", *map(str, files.values()),
            "--store", self.embedded_url, "--gateway", f"127.0.0.1:{port}", "-j", "2"],
            self.env(), self.work / "embedded.log", cwd=self.work)
        self.embedded = (run, bots, time.monotonic())
        self.echo(f"embedded reference run of the same files started (its gateway on 127.0.0.1:{port})")

    def _embedded(self, files: dict[str, Path], tids: list[str], remote: dict[str, Any]) -> None:
        from arena.tournaments.executors import open_store

        if self.embedded is None:
            self._start_embedded(files)
        assert self.embedded is not None
        run, bots, start = self.embedded
        self.wait_for("end of the embedded run", lambda: run.popen.poll() is not None, bots,
                      max(1.0, start + self.timeout - time.monotonic()))
        self.report.embedded_s = time.monotonic() - start
        self.procs.stop([run, *bots])
        self.echo(f"embedded run done in {self.report.embedded_s:.0f} s")
        if run.popen.returncode != 0:
            tail = run.tail().strip().splitlines()[-1:]
            raise DrillFailure(f"the embedded run exited {run.popen.returncode}: {tail[0] if tail else ''}")
        url = self.embedded_url
        store = open_store(url)
        ref: dict[str, Any] = {}
        for tid in tids:
            ref.update(summary(store, tid))
        faulty = sorted(m for m, (_, _, faults) in ref.items() if faults)
        if faulty:
            raise DrillFailure(f"the embedded reference has faults in {len(faulty)} matches (first {faulty[0]})")
        differ = sorted(m for m in set(ref) | set(remote) if ref.get(m) != remote.get(m))
        self.report.differ = len(differ)
        if differ:
            m = differ[0]
            what = ("missing in the embedded run" if m not in ref else "missing in the distributed run"
                    if m not in remote else "actions/returns differ")
            raise DrillFailure(f"{len(differ)} of {len(ref)} records differ from the embedded run "
                               f"(first {m}: {what})")


def print_report(rep: Report, echo: Callable[[str], None] = print) -> None:
    echo("")
    echo(f"matches {rep.matches}  recorded {rep.recorded}  wall {rep.wall_s:.0f} s "
         f"({rep.recorded / rep.wall_s if rep.wall_s else 0:.1f} matches/s)  embedded {rep.embedded_s:.0f} s")
    echo(f"faults {rep.faults}  forfeits {rep.forfeits}  failed {rep.failed}  voids {rep.voids}  "
         f"records differing from the embedded run {rep.differ}  samples {len(rep.samples)}")
    if rep.samples:
        echo("CPU s of the distributed run: " + ", ".join(f"{k} {v:.0f}" for k, v in rep.samples[-1].cpu.items()))
    if rep.checks:
        echo(f"{'resource':28} {'first ' + format(rep.baseline_s, '.0f') + ' s max':>14} {'min':>8} {'max':>8} "
             f"{'limit':>8}")
        for c in rep.checks:
            echo(f"{c.name:28} {c.base_max:14.0f} {c.run_min:8.0f} {c.run_max:8.0f} {c.limit:8.0f}  "
                 f"{'ok' if c.ok else 'NOT FLAT'}")
    echo("PASS" if not rep.failure else f"FAIL: {rep.failure}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=None,
                    help=f"at least this many matches in all (default {FULL_MATCHES}: the files as written)")
    ap.add_argument("--short", action="store_true",
                    help=f"the CI form: --matches {SHORT_MATCHES} -c {SHORT_CONCURRENCY} "
                         f"--remote-matches {SHORT_REMOTE_MATCHES} (those two may still be given)")
    ap.add_argument("--concurrency", "-c", type=int, default=None,
                    help=f"pool processes per worker (default 2; --short: {SHORT_CONCURRENCY})")
    ap.add_argument("--remote-matches", type=int, default=None,
                    help=f"arena worker --remote-matches (default: the worker's, 16; --short: "
                         f"{SHORT_REMOTE_MATCHES})")
    ap.add_argument("--interval", type=float, default=2.0, help="seconds between samples (default 2)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds each run may take (default 120 + 0.4 per match)")
    ap.add_argument("--stall", type=float, default=90.0, help="fail after this long with nothing recorded")
    ap.add_argument("--sequential", action="store_true",
                    help="play the embedded reference after the distributed run (default: alongside it)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures and samples here")
    ap.add_argument("--workdir", type=Path, default=None, help="keep stores and logs here (created, must be empty)")
    args = ap.parse_args(argv)
    if args.short and args.matches is not None:
        ap.error("--short is --matches 500: give one of them")
    matches = SHORT_MATCHES if args.short else FULL_MATCHES if args.matches is None else args.matches
    if args.concurrency is None:
        args.concurrency = SHORT_CONCURRENCY if args.short else 2
    if args.remote_matches is None and args.short:
        args.remote_matches = SHORT_REMOTE_MATCHES
    if matches < 1 or args.concurrency < 1 or args.interval <= 0 or args.stall <= 0 or (
            args.remote_matches is not None and args.remote_matches < 1):
        ap.error("--matches, --concurrency, --remote-matches, --interval and --stall must be positive")
    if shutil.which("redis-server") is None:
        print("drill_soak: redis-server is not installed", file=sys.stderr)
        return 2
    if args.workdir is not None and args.workdir.exists() and any(args.workdir.iterdir()):
        print(f"drill_soak: --workdir {args.workdir} is not empty", file=sys.stderr)
        return 2
    timeout = args.timeout if args.timeout is not None else 120 + 0.4 * matches

    def on_term(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    began = time.monotonic()
    with _workdir(args.workdir) as work:
        drill = SoakDrill(work, matches, args.concurrency, args.interval, timeout, args.stall,
                          echo=lambda s: print(f"[{time.monotonic() - began:5.0f} s] {s}", flush=True),
                          alongside=not args.sequential, remote_matches=args.remote_matches)
        try:
            rep = drill.run()
        except KeyboardInterrupt:
            print("drill_soak: interrupted (everything it started is stopped)", file=sys.stderr)
            return 130
    print_report(rep)
    if args.json is not None:
        args.json.write_text(json.dumps(rep.to_json(), indent=1), encoding="utf-8")
    if rep.failure:
        print(f"drill_soak: FAIL: {rep.failure}", file=sys.stderr)
        return 1
    return 0


class _workdir:
    def __init__(self, path: Path | None) -> None:
        self.path, self.tmp = path, None

    def __enter__(self) -> Path:
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
            return self.path.resolve()
        self.tmp = tempfile.TemporaryDirectory(prefix="arena-soak-")
        return Path(self.tmp.name)

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
