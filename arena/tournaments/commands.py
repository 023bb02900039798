"""The tournament commands of the ``arena`` CLI, as plain functions (``arena.cli``
wires them to typer): ``run`` (embedded), ``submit`` (distributed), ``status``,
``standings``, ``export`` and ``worker``.

A tournament is stored once with its specs (idempotently: running or submitting the
same file again resumes it, only pending matches are played); its TOML document is
kept in the store so standings can be computed later from the id alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

__all__ = ["run", "submit", "status", "standings", "export", "worker", "register", "sprt_stopper",
           "stored_config", "DEFAULT_STORE_URL", "DEFAULT_REDIS_URL"]

DEFAULT_STORE_URL = os.environ.get("ARENA_STORE_URL", "sqlite:///arena.db")
DEFAULT_REDIS_URL = os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")


def _console(console: Console | None) -> Console:
    return console or Console(stderr=False)


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)


def register(file: str | Path, store_url: str = DEFAULT_STORE_URL) -> tuple[Any, Any, int]:
    """Read a tournament file, expand it and add it to the store (idempotent).

    :returns: ``(config, store, specs added)``.
    :raises arena.tournaments.config.ConfigError: for an invalid file.
    :raises arena.store.SpecConflictError: if the id exists with another content.
    """
    from arena.tournaments.config import parse_config
    from arena.tournaments.executors import open_store
    from arena.tournaments.formats import expand

    path = Path(file)
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    config = parse_config(raw, source=str(path))
    specs = expand(config)
    store = open_store(store_url)
    added = store.add_tournament(config.id, config.name, config.game, raw, specs)
    return config, store, added


class SprtStopper:
    """A gauntlet's SPRT as an executor ``stop`` callback.

    Each call refeeds the candidate's recorded results (``sprt_results``) to a
    fresh :class:`arena.ratings.Sprt` with the file's ``[gauntlet.sprt]`` settings
    (elo0, elo1, alpha, beta, pentanomial) and answers whether it has decided.
    The LLR depends only on the counts, so refeeding gives the sequential test's
    value at this point; :attr:`decision` keeps the last answer.
    """

    def __init__(self, config: Any, store: Any) -> None:
        self.config, self.store = config, store
        self.decision: str | None = None
        self.llr = 0.0
        self.bounds = (0.0, 0.0)

    def __call__(self) -> bool:
        from arena.ratings import Sprt, SprtDecision, SprtFeeder
        from arena.tournaments.standings import sprt_results

        params = dict(self.config.gauntlet.sprt)
        sprt = Sprt(float(params.get("elo0", 0.0)), float(params.get("elo1", 5.0)),
                    float(params.get("alpha", 0.05)), float(params.get("beta", 0.05)),
                    pentanomial=bool(params.get("pentanomial", False)))
        feeder = SprtFeeder(sprt, self.config.gauntlet.candidate)
        for result in sprt_results(self.config, self.store.records(self.config.id)):
            feeder.add(result)
        self.llr, self.bounds = sprt.llr, (sprt.lower, sprt.upper)
        decided = sprt.decision != SprtDecision.CONTINUE
        self.decision = sprt.decision.value if decided else None
        return decided


def sprt_stopper(config: Any, store: Any) -> SprtStopper | None:
    """The SPRT stop callback of a gauntlet with ``[gauntlet.sprt]``, else ``None``."""
    gauntlet = getattr(config, "gauntlet", None)
    if config.format != "gauntlet" or gauntlet is None or not gauntlet.sprt:
        return None
    return SprtStopper(config, store)


def stored_config(store: Any, tournament_id: str) -> Any:
    """The :class:`~arena.tournaments.config.TournamentConfig` kept with a tournament."""
    from arena.tournaments.config import parse_config

    return parse_config(dict(store.tournament(tournament_id).config), source=f"store:{tournament_id}")


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run like Ctrl-C (recorded matches stay; run again to resume)."""
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def run(file: str | Path, store_url: str = DEFAULT_STORE_URL, jobs: int | None = None, *,
        router: Any = None, console: Console | None = None, show_standings: bool = True) -> Any:
    """``arena tournament run FILE``: play a tournament embedded (local processes,
    SQLite by default) with a progress bar, then print its standings.

    Stopping it (Ctrl-C or SIGTERM) keeps every recorded match; running it again
    plays only the rest.

    :returns: the :class:`~arena.tournaments.standings.Standings`, or ``None`` if stopped.
    """
    from arena.tournaments.executors import EmbeddedExecutor

    con = _console(console)
    config, store, _ = register(file, store_url)
    executor = EmbeddedExecutor(store_url, jobs, router=router)
    sprt = sprt_stopper(config, store)
    with _sigterm_as_interrupt():
        try:
            with _progress(con) as bar:
                task = bar.add_task(config.id, total=None)

                def update(done: int, total: int) -> None:
                    bar.update(task, completed=done, total=total)

                done, total = executor.run(config.id, progress=update, stop=sprt)
        except KeyboardInterrupt:
            done, total = store.progress(config.id)
            con.print(f"[yellow]stopped[/]: {done}/{total} matches recorded; run the same command "
                      "again to resume")
            return None
    if sprt is not None and sprt.decision is not None and done < total:
        con.print(f"SPRT decided [bold]{sprt.decision}[/] after {done}/{total} matches "
                  f"(LLR {sprt.llr:.3f}, bounds {sprt.bounds[0]:.3f} .. {sprt.bounds[1]:.3f}); "
                  "the gauntlet stopped")
    for err in executor.errors[:10]:
        con.print(f"[red]match failed[/]: {err}")
    if not show_standings:
        return None
    return standings(config.id, store_url, console=con)


def submit(file: str | Path, store_url: str = DEFAULT_STORE_URL, redis_url: str = DEFAULT_REDIS_URL,
           *, batch_size: int | None = None, console: Console | None = None) -> tuple[str, int]:
    """``arena tournament submit FILE``: store the tournament and send its pending
    matches to the Celery workers (batches in a chord; see
    :class:`~arena.tournaments.executors.CeleryExecutor`). Submitting again resubmits
    what is still pending (a redelivered match is recorded once anyway).

    The workers must use the same store (``ARENA_STORE_URL`` or the URL passed
    along with each task: this ``store_url``) and the same Redis.

    :returns: ``(tournament id, matches submitted)``.
    """
    from arena.tournaments.executors import CeleryExecutor
    from workers.celery import make_app

    con = _console(console)
    config, store, _ = register(file, store_url)
    app = make_app(redis_url, store_url)
    count, _ = CeleryExecutor(app, store_url, batch_size=batch_size).submit(config.id)
    done, total = store.progress(config.id)
    con.print(f"tournament [bold]{config.id}[/]: submitted {count} matches ({done}/{total} recorded); "
              f"follow with `arena tournament status {config.id}`")
    return config.id, count


def status(tournament_id: str, store_url: str = DEFAULT_STORE_URL, *, follow: bool = True,
           interval: float = 0.5, timeout: float | None = None,
           console: Console | None = None) -> tuple[int, int]:
    """``arena tournament status ID``: recorded/total matches, followed live until
    complete (``follow``) or ``timeout`` seconds. Reads only the store."""
    from arena.tournaments.executors import open_store

    con = _console(console)
    store = open_store(store_url)
    info = store.tournament(tournament_id)
    done, total = store.progress(tournament_id)
    if not follow:
        counts = store.status_counts(tournament_id)
        con.print(f"{tournament_id} ({info.game}, {info.status}): {done}/{total} recorded; "
                  + ", ".join(f"{k} {v}" for k, v in counts.items()))
        return done, total
    end = None if timeout is None else time.monotonic() + timeout
    try:
        with _progress(con) as bar:
            task = bar.add_task(f"{tournament_id} ({info.game})", total=total, completed=done)
            while done < total and (end is None or time.monotonic() < end):
                time.sleep(interval)
                done, total = store.progress(tournament_id)
                bar.update(task, completed=done, total=total)
    except KeyboardInterrupt:
        pass
    return done, total


def standings(tournament_id: str, store_url: str = DEFAULT_STORE_URL, *,
              console: Console | None = None) -> Any:
    """``arena standings ID``: the standings computed from the stored records."""
    from arena.tournaments.executors import open_store
    from arena.tournaments.standings import standings as compute

    con = _console(console)
    store = open_store(store_url)
    config = stored_config(store, tournament_id)
    st = compute(config, store.records(tournament_id))
    rows = st.table()
    table = Table(title=st.title)
    for i, label in enumerate(rows[0]):
        table.add_column(label, justify="left" if i == 0 else "right")
    for row in rows[1:]:
        table.add_row(*row)
    con.print(table)
    con.print(f"{st.recorded}/{st.expected} matches recorded; tie-breaks: {st.tie_breaks}")
    return st


def export(tournament_id: str, store_url: str = DEFAULT_STORE_URL, out: str | Path = "-",
           fmt: str = "jsonl") -> int:
    """``arena export ID``: the tournament's records as JSON Lines (``fmt="jsonl"``)
    or, for bridge, PBN (``fmt="pbn"``: every record replayed to its deal, auction
    and play). ``out="-"`` writes to stdout. Returns the number of records.

    :raises ValueError: for an unknown format, or PBN of a game other than bridge.
    """
    from arena.records.record import dumps
    from arena.tournaments.executors import open_store

    if fmt not in ("jsonl", "pbn"):
        raise ValueError(f"unknown export format {fmt!r}: jsonl or pbn")
    store = open_store(store_url)
    info = store.tournament(tournament_id)
    if fmt == "pbn" and info.game != "bridge":
        raise ValueError(f"PBN export is for bridge; {tournament_id} is {info.game}")
    fp = sys.stdout if str(out) == "-" else open(out, "w", encoding="utf-8")  # noqa: SIM115
    n = 0
    try:
        if fmt == "jsonl":
            for record in store.records(tournament_id):
                fp.write(dumps(record) + "\n")
                n += 1
        else:
            from arena.match.replay import replay_record
            from arena.records import pbn

            for record in store.records(tournament_id):
                seats = list(record.seats)
                tags = {"Event": tournament_id, "Site": "arena", "Round": record.match_id}
                if len(seats) == 4:
                    tags.update(North=seats[0], East=seats[1], South=seats[2], West=seats[3])
                text = pbn.dumps([replay_record(record)], **tags)
                fp.write(text + ("\n" if n else ""))
                n += 1
    finally:
        if fp is not sys.stdout:
            fp.close()
    return n


def worker(concurrency: int | None = None, loglevel: str = "info", *, redis_url: str | None = None,
           store_url: str | None = None, hostname: str | None = None,
           extra: Sequence[str] = ()) -> int:
    """``arena worker``: ``celery -A workers.celery worker`` with the arena settings
    (``ARENA_REDIS_URL``/``ARENA_STORE_URL`` from the arguments when given).
    Runs in the foreground; returns celery's exit code."""
    env = dict(os.environ)
    if redis_url:
        env["ARENA_REDIS_URL"] = redis_url
    if store_url:
        env["ARENA_STORE_URL"] = store_url
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-l", loglevel]
    if concurrency:
        cmd += ["-c", str(concurrency)]
    if hostname:
        cmd += ["-n", hostname]
    cmd += list(extra)
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130
