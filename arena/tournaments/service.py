"""The tournament service: the one door through which the CLI, ``AdminService``,
the workers and the dashboard create, run, submit, follow, retry and read
tournaments, leagues and ladders (nothing above it imports the modules below it:
an import-linter contract in ``pyproject.toml`` says so).

Plain functions over a store typed by :class:`arena.store.protocol.StoreProtocol`
(:class:`arena.store.Store` satisfies it), returning values (no printing: the
rich presentation lives in :mod:`arena.cli`). Which remote bots are connected
is passed in (a :class:`~arena.tournaments.presence.Presence`, the caller's
router), never read from a global.

* :func:`register` -- read a tournament file, ask its format for round 0 and store
  it idempotently (running or submitting the same file again resumes it; another
  content under the same id is refused); :func:`parse_text` and
  :func:`first_round` for a document that comes without a file (the gateway's
  ``CreateTournament``).
* :func:`run_embedded` -- play it on local processes until it finishes by itself
  (or, ``one_round``, until its current round is played: then :func:`advance`).
* :func:`submit` -- offer its work to the Celery workers (a conductor pass with a
  dispatcher).
* :func:`advance` -- one conductor pass: the next round, or the end;
  :func:`conductor` -- the conductor of every unfinished tournament.
* :func:`work` -- one worker task's offer of work, played (:mod:`arena.tournaments.worker`);
  :func:`open_store`, :func:`preload` for the worker processes.
* :func:`status` -- a :class:`TournamentStatus`: the state of every kind of match,
  leases with owner and age, failures with reasons.
* :func:`standings` -- from the stored records, with the missing matches listed.
* :func:`export` -- the records as JSON Lines or, for bridge, PBN.
* :func:`retry` -- re-open failed matches by hand.
* :func:`ratings` -- the ratings of the tournament's records.
* leagues (:mod:`arena.tournaments.league`, handed on under the names
  ``arena league`` uses): :func:`load_league`, :func:`loads_league`,
  :func:`create_league`, :func:`update_league`, :func:`list_leagues`,
  :func:`league_info`, :func:`season_start`, :func:`running_season`,
  :func:`play_round`, :func:`submit_season`, :func:`season_end`,
  :func:`league_table`, :func:`league_ratings`, and their errors.
* what the dashboard reads of a stored tournament: :func:`info_config`,
  :func:`config_standings`, a record's points and a board's scores
  (:func:`record_points`, :func:`matchpoints`, :func:`butler_scores`,
  :func:`cross_imps`), a Swiss event round by round (:func:`swiss_history`,
  :func:`swiss_table`, :func:`swiss_ranking`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from arena.tournaments.conductor import Conductor, ConductorSettings, Dispatcher
from arena.tournaments.config import ConfigError, TournamentConfig, example_paths
from arena.tournaments.league import (
    LeagueConfig,
    LeagueError,
    LeagueExistsError,
    LeagueNotFoundError,
    SeasonNotFoundError,
    create_league,
    division_tournament_id,
    league_info,
    league_ratings,
    list_leagues,
    load_league,
    loads_league,
    parse_league,
    play_round,
    running_season,
    season_end,
    season_start,
    submit_season,
)
from arena.tournaments.league import create as create_league_file
from arena.tournaments.league import table as league_table
from arena.tournaments.league import update as update_league
from arena.tournaments.presence import Presence
from arena.tournaments.standings import butler_scores, cross_imps, matchpoints, record_points
from arena.tournaments.standings import standings as config_standings
from arena.tournaments.stored import standings, stored_config, submit
from arena.tournaments.swiss import swiss_history, swiss_ranking, swiss_table

if TYPE_CHECKING:
    from arena.records.spec import MatchSpec
    from arena.store import TournamentInfo
    from arena.store.protocol import StoreProtocol
    from arena.tournaments.standings import Standings

__all__ = ["register", "parse_file", "parse_text", "first_round", "remote_entrants", "check_registered",
           "wait_for_bots", "stored_config", "run_embedded", "submit", "conductor", "advance", "open_store",
           "preload", "work", "status", "standings",
           "bare_standings", "export", "retry", "ratings", "TournamentStatus", "EmbeddedRun",
           "DEFAULT_STORE_URL", "DEFAULT_REDIS_URL", "SCHEMA_VERSION", "ConfigError", "TournamentConfig",
           "example_paths", "Presence", "ConductorSettings", "Dispatcher",
           # leagues
           "LeagueConfig", "LeagueError", "LeagueExistsError", "LeagueNotFoundError", "SeasonNotFoundError",
           "load_league", "loads_league", "parse_league", "create_league", "create_league_file",
           "update_league", "list_leagues", "league_info", "division_tournament_id", "season_start",
           "running_season", "play_round", "submit_season", "season_end", "league_table", "league_ratings",
           # what the dashboard reads
           "info_config", "config_standings", "record_points", "matchpoints", "butler_scores", "cross_imps",
           "swiss_history", "swiss_table", "swiss_ranking"]

DEFAULT_STORE_URL = os.environ.get("ARENA_STORE_URL", "sqlite:///arena.db")
DEFAULT_REDIS_URL = os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0")
SCHEMA_VERSION = 1
"""Version of the JSON this module's values write (``status --json``)."""


def parse_file(file: str | Path) -> tuple[TournamentConfig, dict[str, Any]]:
    """``(config, raw TOML document)`` of a tournament file.

    :raises arena.tournaments.config.ConfigError: for an invalid file.
    """
    from arena.tournaments.config import parse_config

    path = Path(file)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), f"invalid TOML: {exc}") from None
    return parse_config(raw, source=str(path)), raw


def parse_text(text: str, *, source: str) -> tuple[TournamentConfig, dict[str, Any]]:
    """``(config, raw TOML document)`` of a tournament document given as text.

    :raises tomllib.TOMLDecodeError: for text that is not TOML.
    :raises arena.tournaments.config.ConfigError: for an invalid document.
    """
    from arena.tournaments.config import parse_config

    raw = tomllib.loads(text)
    return parse_config(raw, source=source), raw


def first_round(config: TournamentConfig, *, presence: Presence | None = None) -> list[MatchSpec]:
    """The match specs of round 0 of ``config``'s format (a ladder seats the remote
    entrants that ``presence`` says are connected).

    :raises ValueError: when the format cannot pair the entrants.
    """
    from arena.tournaments.rounds import make_format

    return make_format(config, presence=presence).first_round(config.entrants)


def info_config(info: TournamentInfo) -> TournamentConfig:
    """The :class:`~arena.tournaments.config.TournamentConfig` of a stored
    tournament's :class:`~arena.store.TournamentInfo` (its TOML document).

    :raises arena.tournaments.config.ConfigError: if it does not parse.
    """
    from arena.tournaments.config import parse_config

    return parse_config(dict(info.config), source=f"store:{info.id}")


def remote_entrants(config: TournamentConfig) -> list[tuple[int, str]]:
    """``(entrant index, bot id)`` of each remote entrant."""
    return [(i, e.bot[len("remote:"):]) for i, e in enumerate(config.entrants)
            if e.bot.startswith("remote:")]


def check_registered(store: StoreProtocol, config: TournamentConfig) -> list[str]:
    """Refuse a tournament naming a remote bot that is revoked, or not registered.

    A ladder (``format = "ladder"``) is the exception for bots not registered yet:
    it runs until stopped, and its remote entrants join when they are registered
    and connected (they are skipped until then, like a disconnected bot), so
    those are returned instead of refused.

    :returns: the remote bots of a ladder that are not registered yet.
    :raises arena.tournaments.config.ConfigError: naming the entrant's field.
    """
    from arena.store.registry import BotNotFoundError

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


def wait_for_bots(router: Presence, bot_ids: list[str], seconds: float, *, poll: float = 0.1) -> list[str]:
    """Wait up to ``seconds`` until every bot is connected; returns those still not."""
    import time

    end = time.monotonic() + seconds
    while True:
        missing = [b for b in bot_ids if not router.is_connected(b)]
        if not missing or time.monotonic() >= end:
            return missing
        time.sleep(poll)


def register(file: str | Path, store: StoreProtocol, *,
             presence: Presence | None = None) -> tuple[TournamentConfig, int]:
    """Store the tournament of ``file`` with its first round (idempotent); a
    ladder's first round seats the remote entrants ``presence`` says are connected.

    :returns: ``(config, specs added)``.
    :raises arena.tournaments.config.ConfigError: for an invalid file, or a remote
        entrant whose bot is not registered in the store.
    :raises arena.store.SpecConflictError: if the id exists with another content.
    """
    config, raw = parse_file(file)
    check_registered(store, config)
    if _stored_as(store, config, raw):
        # stored from this very file: its specs are the truth (a format whose first
        # round depends on the clock, the ladder's, would otherwise differ)
        return config, 0
    specs = first_round(config, presence=presence)
    added = store.add_tournament(config.id, config.name, config.game, raw, specs)
    return config, added


def _stored_as(store: StoreProtocol, config: TournamentConfig, raw: dict[str, Any]) -> bool:
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


def run_embedded(store_url: str, tournament_id: str, jobs: int | None = None, *,
                 router: Presence | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 stop: Callable[[], bool] | None = None,
                 settings: ConductorSettings | None = None,
                 errors: list[str] | None = None) -> EmbeddedRun:
    """Play a stored tournament on local processes until it finishes by itself
    (see :class:`~arena.tournaments.executors.EmbeddedExecutor`); remote entrants
    play through ``router``, which is also the run's presence (a ladder seats the
    connected ones). ``stop()`` true ends it after the next recorded result.

    :param errors: a list that receives the failed matches' messages (also those
        of a run that raises).
    """
    from arena.tournaments.executors import EmbeddedExecutor

    executor = EmbeddedExecutor(store_url, jobs, router=router, settings=settings)
    try:
        done, total = executor.run(tournament_id, progress=progress, stop=stop)
    finally:
        if errors is not None:
            errors[:] = executor.errors
    return EmbeddedRun(tournament_id, done, total, executor.finished, executor.notes, executor.errors)


def round_played(store: StoreProtocol, tournament_id: str) -> bool:
    """Whether nothing of the tournament's current round is pending or leased."""
    counts = store.status_counts(tournament_id)
    return not counts.get("pending", 0) and not counts.get("leased", 0)


def conductor(store: StoreProtocol, dispatcher: Dispatcher | None = None,
              settings: ConductorSettings | None = None, *,
              presence: Presence | None = None) -> Conductor:
    """A :class:`~arena.tournaments.conductor.Conductor` over every unfinished
    tournament of ``store`` (``arena conductor``, the workers' conductor loop):
    its ``reconcile()`` is one pass, its ``run_forever(stop)`` the loop."""
    return Conductor(store, dispatcher, settings, presence=presence)


def open_store(url: str) -> Any:
    """The :class:`arena.store.Store` at ``url``, migrated (workers and executors
    open their own connection by URL)."""
    from arena.tournaments.executors import open_store as _open

    return _open(url)


def preload() -> None:
    """Import what a worker's conductor pass and matches need (the formats, the
    conductor, the runner, the rating history at a tournament's end), so that a
    process that forks workers afterwards hands them on loaded."""
    from arena.tournaments import conductor, history, rounds, runner  # noqa: F401 - SPRT, finalize

    rounds.format_names()  # the format modules, which every task's conductor pass reads


def work(store: StoreProtocol, tournament_id: str, dispatcher: Dispatcher | None, *, owner: str | None = None,
         max_seconds: float, capacity: int, batch_seconds: float, max_batch: int, guided_share: int,
         settings: ConductorSettings | None = None) -> dict[str, Any]:
    """Play one offer of work on ``tournament_id`` (a Celery ``arena.tournament.work``
    task): lease its matches, play them (remote ones on up to ``capacity`` threads),
    record each once, until nothing is left to lease or ``max_seconds`` have passed;
    then one conductor pass with ``dispatcher``
    (:func:`arena.tournaments.worker.play_offer`). ``owner``: the lease owner
    (default ``celery:<host>:<pid>``)."""
    from arena.tournaments.conductor import owner_id
    from arena.tournaments.worker import play_offer

    return play_offer(store, tournament_id, dispatcher, owner=owner or owner_id("celery"),
                      settings=settings or ConductorSettings.from_env(), capacity=capacity,
                      max_seconds=max_seconds, batch_seconds=batch_seconds, max_batch=max_batch,
                      guided_share=guided_share)


def advance(store: StoreProtocol, tournament_id: str, *, presence: Presence | None = None,
            settings: ConductorSettings | None = None) -> str:
    """One conductor pass over a tournament: expired leases back, failed matches
    retried, and when its round is played, the next round (a ladder seats the
    remote entrants ``presence`` says are connected) or the end. Returns its
    status after the pass."""
    Conductor(store, None, settings, presence=presence).reconcile(tournament_id)
    return store.tournament(tournament_id).status


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


def status(store: StoreProtocol, tournament_id: str, settings: ConductorSettings | None = None) -> TournamentStatus:
    """The :class:`TournamentStatus` of a tournament (reads only the store).

    :raises arena.store.TournamentNotFoundError: for an unknown id.
    """
    from arena.store.models import utcnow

    settings = settings or ConductorSettings.from_env()
    info = store.tournament(tournament_id)
    states = store.spec_states(tournament_id)
    now = utcnow()
    counts = dict.fromkeys(("pending", "leased", "done", "failed"), 0)
    leased: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    waiting = 0
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
    pause: dict[str, Any] | None = None
    if info.paused_until is not None and info.paused_until > now:
        pause = {"until": info.paused_until, "reason": info.pause_reason or ""}
    return TournamentStatus(tournament_id, info.name, info.game, info.status, info.round, len(states),
                            counts, leased, failed, waiting, last, info.finished, info.voids_in_row, pause)


def bare_standings(store: StoreProtocol, tournament_id: str) -> Standings:
    """The format's :class:`~arena.tournaments.standings.Standings` of the stored
    records alone (what ``GetStandings`` answers: without the missing matches and
    forfeits that :func:`standings` adds to ``details``).

    :raises ValueError: if a record lacks a tag the format needs.
    """
    from arena.tournaments.standings import standings as format_standings

    return format_standings(stored_config(store, tournament_id), store.records(tournament_id))


def export(store: StoreProtocol, tournament_id: str, fp: IO[str], fmt: str = "jsonl") -> int:
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


def retry(store: StoreProtocol, tournament_id: str) -> int:
    """Re-open every failed match by hand (attempts start again); a finished
    tournament becomes unfinished again, so conductors (or a rerun) play them.
    Returns how many matches were re-opened."""
    n = store.retry_failed(tournament_id)
    if n and store.tournament(tournament_id).status in ("done", "stopped"):
        store.reopen_tournament(tournament_id)
    return int(n)


def ratings(store: StoreProtocol, tournament_id: str, *, system: str = "elo") -> dict[str, Any]:
    """The ratings of a tournament's records per ruleset
    (:func:`arena.ratings.records.rate_records`)."""
    from arena.ratings.records import rate_records

    config = stored_config(store, tournament_id)
    return dict(rate_records(list(store.records(tournament_id)), system=system, game=config.game))

