"""The tournament service: what the CLI, ``AdminService``, the workers and the
dashboard call to create, run, submit, follow, retry and read tournaments.

Plain functions over a :class:`arena.store.Store`, returning values (no printing:
the rich presentation lives in :mod:`arena.cli`).

* :func:`register` -- read a tournament file, ask its format for round 0 and store
  it idempotently (running or submitting the same file again resumes it; another
  content under the same id is refused).
* :func:`run_embedded` -- play it on local processes until it finishes by itself.
* :func:`submit` -- offer its work to the Celery workers (a conductor pass with a
  dispatcher).
* :func:`status` -- a :class:`TournamentStatus`: the state of every kind of match,
  leases with owner and age, failures with reasons.
* :func:`standings` -- from the stored records, with the missing matches listed.
* :func:`export` -- the records as JSON Lines or, for bridge, PBN.
* :func:`retry` -- re-open failed matches by hand.
* :func:`ratings` -- the ratings of the tournament's records.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from arena.tournaments.conductor import Conductor, ConductorSettings, Dispatcher

__all__ = ["register", "parse_file", "remote_entrants", "check_registered", "wait_for_bots", "stored_config", "run_embedded", "submit", "status", "standings",
           "export", "retry", "ratings", "TournamentStatus", "EmbeddedRun", "DEFAULT_STORE_URL",
           "DEFAULT_REDIS_URL", "SCHEMA_VERSION"]

DEFAULT_STORE_URL = os.environ.get("ARENA_STORE_URL", "sqlite:///arena.db")
DEFAULT_REDIS_URL = os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")
SCHEMA_VERSION = 1
"""Version of the JSON this module's values write (``status --json``)."""


def parse_file(file: str | Path) -> tuple[Any, dict[str, Any]]:
    """``(config, raw TOML document)`` of a tournament file.

    :raises arena.tournaments.config.ConfigError: for an invalid file.
    """
    from arena.tournaments.config import ConfigError, parse_config

    path = Path(file)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), f"invalid TOML: {exc}") from None
    return parse_config(raw, source=str(path)), raw


def remote_entrants(config: Any) -> list[tuple[int, str]]:
    """``(entrant index, bot id)`` of each remote entrant."""
    return [(i, e.bot[len("remote:"):]) for i, e in enumerate(config.entrants)
            if e.bot.startswith("remote:")]


def check_registered(store: Any, config: Any) -> list[str]:
    """Refuse a tournament naming a remote bot that is revoked, or not registered.

    A ladder (``format = "ladder"``) is the exception for bots not registered yet:
    it runs until stopped, and its remote entrants join when they are registered
    and connected (they are skipped until then, like a disconnected bot), so
    those are returned instead of refused.

    :returns: the remote bots of a ladder that are not registered yet.
    :raises arena.tournaments.config.ConfigError: naming the entrant's field.
    """
    from arena.store.registry import BotNotFoundError
    from arena.tournaments.config import ConfigError

    registry = store.bot_registry()
    later: list[str] = []
    for i, bot_id in remote_entrants(config):
        try:
            entry = registry.get(bot_id)
        except BotNotFoundError:
            if config.format == "ladder":
                later.append(bot_id)
                continue
            raise ConfigError(f"entrants[{i}].remote", f"bot {bot_id!r} is not registered "
                              f"(arena bots register {bot_id})") from None
        if entry.revoked:
            raise ConfigError(f"entrants[{i}].remote", f"bot {bot_id!r} is revoked")
    return later


def wait_for_bots(router: Any, bot_ids: list[str], seconds: float, *, poll: float = 0.1) -> list[str]:
    """Wait up to ``seconds`` until every bot is connected; returns those still not."""
    import time

    end = time.monotonic() + seconds
    while True:
        missing = [b for b in bot_ids if not router.is_connected(b)]
        if not missing or time.monotonic() >= end:
            return missing
        time.sleep(poll)


def register(file: str | Path, store: Any) -> tuple[Any, int]:
    """Store the tournament of ``file`` with its first round (idempotent).

    :returns: ``(config, specs added)``.
    :raises arena.tournaments.config.ConfigError: for an invalid file, or a remote
        entrant whose bot is not registered in the store.
    :raises arena.store.SpecConflictError: if the id exists with another content.
    """
    from arena.tournaments.rounds import make_format

    config, raw = parse_file(file)
    check_registered(store, config)
    if _stored_as(store, config, raw):
        # stored from this very file: its specs are the truth (a format whose first
        # round depends on the clock, the ladder's, would otherwise differ)
        return config, 0
    specs = make_format(config).first_round(config.entrants)
    added = store.add_tournament(config.id, config.name, config.game, raw, specs)
    return config, added


def _stored_as(store: Any, config: Any, raw: dict[str, Any]) -> bool:
    """Whether the tournament is stored already, with this name, game and file."""
    import json

    from arena.store import TournamentNotFoundError

    try:
        info = store.tournament(config.id)
    except TournamentNotFoundError:
        return False

    def norm(data: Any) -> Any:
        return json.loads(json.dumps(data, sort_keys=True, default=str))

    return (info.name, info.game, norm(info.config)) == (config.name, config.game, norm(raw))


def stored_config(store: Any, tournament_id: str) -> Any:
    """The :class:`~arena.tournaments.config.TournamentConfig` kept with a tournament."""
    from arena.tournaments.config import parse_config

    return parse_config(dict(store.tournament(tournament_id).config), source=f"store:{tournament_id}")


@dataclass
class EmbeddedRun:
    """The outcome of :func:`run_embedded`."""

    tournament_id: str
    done: int
    total: int
    finished: str | None
    """``done`` or ``stopped``; ``None`` if the run was interrupted."""
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def run_embedded(store_url: str, tournament_id: str, jobs: int | None = None, *, router: Any = None,
                 progress: Callable[[int, int], None] | None = None,
                 stop: Callable[[], bool] | None = None,
                 settings: ConductorSettings | None = None) -> EmbeddedRun:
    """Play a stored tournament on local processes until it finishes by itself
    (see :class:`~arena.tournaments.executors.EmbeddedExecutor`)."""
    from arena.tournaments.executors import EmbeddedExecutor

    executor = EmbeddedExecutor(store_url, jobs, router=router, settings=settings)
    done, total = executor.run(tournament_id, progress=progress, stop=stop)
    return EmbeddedRun(tournament_id, done, total, executor.finished, executor.notes, executor.errors)


def submit(store: Any, tournament_id: str, dispatcher: Dispatcher,
           settings: ConductorSettings | None = None) -> int:
    """Offer a stored tournament's playable matches to the workers: one conductor
    pass with ``dispatcher`` (the workers' conductors carry on from there).
    Returns the number of offers sent.

    :raises ValueError: for a tournament with Blue Chip entrants (their robots are
        connected to one process: ``arena tournament run --bluechip ADDRESS``).
    """
    robots = sorted({e for spec in store.specs(tournament_id)
                     for e, ref in zip(spec.entrants, spec.bots) if ref.startswith("bluechip:")})
    if robots:
        raise ValueError(f"entrants {', '.join(robots)} are Blue Chip robots: they play in the process "
                         "that hosts their Table Manager (arena tournament run FILE --bluechip "
                         "HOST:PORT), not on Celery workers")
    reports = Conductor(store, dispatcher, settings).reconcile(tournament_id)
    return sum(r.offered for r in reports)


@dataclass
class TournamentStatus:
    """Where a tournament stands (``arena tournament status``; ``to_dict`` for ``--json``)."""

    tournament_id: str
    name: str
    game: str
    status: str
    """``pending``, ``running``, ``paused`` (an interrupted embedded run: run it
    again to resume), ``done`` or ``stopped`` (a format's early stop)."""
    round: int
    total: int
    counts: dict[str, int]
    """Matches per state: ``pending``, ``leased``, ``done``, ``failed``."""
    leased: list[dict[str, Any]]
    """``{match_id, owner, age_s, expires_in_s, attempts}`` per leased match."""
    failed: list[dict[str, Any]]
    """``{match_id, attempts, error, final}`` per failed match (``final``: no attempts left)."""
    waiting: int
    """Pending matches waiting out a retry backoff."""
    last_change: datetime | None
    """The newest change of any match's state."""
    finished_at: datetime | None
    voids_in_row: int = 0
    """Matches voided by platform faults (the route to a bot failed) since the last record."""
    route_pause: dict[str, Any] | None = None
    """``{until, reason}`` while the tournament waits out a pause after repeated
    route failures (nothing of it is leased before ``until``); else None."""

    @property
    def done(self) -> int:
        return self.counts.get("done", 0)

    @property
    def finished(self) -> bool:
        return self.status in ("done", "stopped")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["schema_version"] = SCHEMA_VERSION
        d["done"] = self.done
        d["finished"] = self.finished
        for key in ("last_change", "finished_at"):
            d[key] = None if d[key] is None else d[key].isoformat()
        if self.route_pause is not None:
            d["route_pause"] = {"until": self.route_pause["until"].isoformat(),
                                "reason": self.route_pause["reason"]}
        return d


def status(store: Any, tournament_id: str, settings: ConductorSettings | None = None) -> TournamentStatus:
    """The :class:`TournamentStatus` of a tournament (reads only the store).

    :raises arena.store.TournamentNotFoundError: for an unknown id.
    """
    from arena.store.models import utcnow

    settings = settings or ConductorSettings.from_env()
    info = store.tournament(tournament_id)
    states = store.spec_states(tournament_id)
    now = utcnow()
    counts = dict.fromkeys(("pending", "leased", "done", "failed"), 0)
    leased, failed, waiting = [], [], 0
    for st in states:
        counts[st.status] = counts.get(st.status, 0) + 1
        if st.status == "leased":
            leased.append({"match_id": st.match_id, "owner": st.claimed_by,
                           "age_s": round((now - st.claimed_at).total_seconds(), 1) if st.claimed_at else None,
                           "expires_in_s": round((st.lease_expires - now).total_seconds(), 1)
                           if st.lease_expires else None, "attempts": st.attempts})
        elif st.status == "failed":
            failed.append({"match_id": st.match_id, "attempts": st.attempts, "error": st.error or "",
                           "final": st.attempts >= settings.max_attempts})
        elif st.status == "pending" and st.not_before is not None and st.not_before > now:
            waiting += 1
    last = max((st.updated for st in states), default=None)
    pause = None
    if info.paused_until is not None and info.paused_until > now:
        pause = {"until": info.paused_until, "reason": info.pause_reason or ""}
    return TournamentStatus(tournament_id, info.name, info.game, info.status, info.round, len(states),
                            counts, leased, failed, waiting, last, info.finished, info.voids_in_row, pause)


def standings(store: Any, tournament_id: str) -> Any:
    """The :class:`~arena.tournaments.standings.Standings` from the stored records;
    ``details["missing"]`` lists the matches without a record and why,
    ``details["forfeits"]`` the matches recorded as forfeits (remote bots absent
    beyond the absence limit: not scored, not rated)."""
    from arena.tournaments.rounds import make_format

    config = stored_config(store, tournament_id)
    forfeits: list[dict[str, Any]] = []

    def records() -> Iterator[Any]:
        for r in store.records(tournament_id):
            f = r.tags.get("forfeit")
            if f:
                forfeits.append({"match_id": r.match_id, "absent": list(f.get("absent", [])),
                                 "reason": str(f.get("reason", ""))})
            yield r

    st = make_format(config).standings(records())
    st.details["forfeits"] = forfeits
    missing = [{"match_id": s.match_id, "status": s.status, "reason": s.error or s.status}
               for s in store.spec_states(tournament_id) if s.status != "done"]
    st.details["missing"] = missing
    st.expected = max(st.expected, len(store.spec_states(tournament_id)))
    return st


def export(store: Any, tournament_id: str, fp: IO[str], fmt: str = "jsonl") -> int:
    """Write a tournament's records to ``fp`` as JSON Lines (``fmt="jsonl"``) or, for
    bridge, PBN (``fmt="pbn"``: every record replayed to its deal, auction and play,
    games separated by a blank line). Returns the number of records.

    :raises ValueError: for an unknown format, or PBN of a game other than bridge.
    """
    from arena.records.record import dumps

    if fmt not in ("jsonl", "pbn"):
        raise ValueError(f"unknown export format {fmt!r}: jsonl or pbn")
    info = store.tournament(tournament_id)
    if fmt == "pbn" and info.game != "bridge":
        raise ValueError(f"PBN export is for bridge; {tournament_id} is {info.game}")
    n = 0
    if fmt == "jsonl":
        for record in store.records(tournament_id):
            fp.write(dumps(record) + "\n")
            n += 1
        return n
    from arena.records import pbn

    return pbn.dump_records(store.records(tournament_id), fp, Event=tournament_id, Site="arena",
                            id_tag="Round")


def retry(store: Any, tournament_id: str) -> int:
    """Re-open every failed match by hand (attempts start again); a finished
    tournament becomes unfinished again, so conductors (or a rerun) play them.
    Returns how many matches were re-opened."""
    n = store.retry_failed(tournament_id)
    if n and store.tournament(tournament_id).status in ("done", "stopped"):
        store.reopen_tournament(tournament_id)
    return int(n)


def ratings(store: Any, tournament_id: str, *, system: str = "elo") -> dict[str, Any]:
    """The ratings of a tournament's records per ruleset
    (:func:`arena.ratings.records.rate_records`)."""
    from arena.ratings.records import rate_records

    config = stored_config(store, tournament_id)
    return dict(rate_records(list(store.records(tournament_id)), system=system, game=config.game))

