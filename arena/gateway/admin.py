"""The ``arena.admin.v1.AdminService`` servicer, behind the operator token.

Bots: register (token returned once), revoke (closes the bot's session), list,
in the gateway's registry (the store's ``bots`` table under ``arena serve``).

Tournaments, standings and ratings work on the gateway's store, the same way the
CLI does (no second implementation):

``CreateTournament``
    the TOML document is validated by :func:`arena.tournaments.service.parse_text`
    (its :class:`~arena.tournaments.service.ConfigError` names the field and becomes
    INVALID_ARGUMENT), expanded and stored idempotently as ``arena tournament run``
    and ``submit`` do. Every ``remote:`` entrant must be a registered, unrevoked
    bot (FAILED_PRECONDITION otherwise: a match would only collect its faults).
    Then it is played:

    * *distributed* (the default when the gateway has a Redis URL): the pending
      matches go to the Celery workers as one chord
      (:func:`arena.tournaments.service.submit`, what ``arena tournament
      submit`` sends); the workers write to the same store (its URL travels with
      each task) and reach remote bots through this gateway's Redis bridge.
    * *embedded* (the default without Redis): an embedded run
      (:func:`arena.tournaments.service.run_embedded`) on a background
      thread of the gateway. Built-in bots play in local processes started with
      the *spawn* method (fresh interpreters, never a fork of this gRPC process:
      DESIGN.md, "gRPC and fork"); remote bots play on the executor's threads
      through this gateway's :class:`~arena.remote.router.LocalRouter`. A
      gauntlet's SPRT stops it as in ``arena tournament run``. When the gateway
      shuts down the run stops after the next recorded result (status
      ``stopped``; the same request again resumes it).

``GetTournament``, ``GetStandings``, ``GetRatings``
    read the store: progress and status counts (``arena tournament status``),
    :func:`arena.tournaments.service.bare_standings` of the stored configuration and
    records (``arena standings``), and the online rater with the batch
    Bradley-Terry intervals of ``arena ratings`` (with the dashboard's fallback
    when the duplicate grouping cannot be rated).

Leagues (``CreateLeague``, ``UpdateLeague``, ``ListLeagues``, ``GetLeague``,
``StartSeason``, ``PlayLeagueRound``, ``EndSeason``, ``GetLeagueTable``)
    call the league functions of :mod:`arena.tournaments.service` as ``arena league``
    does: a :class:`~arena.tournaments.service.ConfigError` is INVALID_ARGUMENT, an unknown
    league or season NOT_FOUND, a command at the wrong time FAILED_PRECONDITION
    (nothing changed). ``PlayLeagueRound`` plays the division tournaments like
    ``CreateTournament`` (embedded on a background thread, or offered to the
    workers); one round at a time is an embedded run that stops when nothing of the
    round is pending or leased, after which a conductor pass adds the next round.

As with any *spawn* pool, a program that embeds a :class:`~arena.gateway.Gateway`
with a store and lets it play tournaments must guard its entry point with
``if __name__ == "__main__":`` (the children import the main module); ``arena serve``
does.

Every store or Redis call blocks (SQLAlchemy, Celery), so each runs on a worker
thread (:func:`asyncio.to_thread`); the event loop keeps serving bot decisions.
Failures come back as status codes with a message: :class:`Refusal` for the
expected ones, UNAVAILABLE when the store does not answer, INTERNAL (logged)
for anything else.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
import os
import threading
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import grpc
from google.protobuf import struct_pb2

from arena.admin.v1 import admin_pb2, admin_pb2_grpc
from arena.store.registry import (
    BotEntry,
    BotExistsError,
    BotNotFoundError,
    BotRegistry,
)
from arena.remote.router import LocalRouter
from arena.gateway.session import CloseCode, SessionHub

__all__ = ["RATING_SYSTEMS", "AdminServicer", "Refusal", "compute_ratings", "standings_response",
           "tournament_status"]

log = logging.getLogger("arena.gateway")

T = TypeVar("T")

if TYPE_CHECKING:
    # The context of a unary call: its read() and write() are not used, so the
    # message types are left open.
    _Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

RATING_SYSTEMS: dict[int, str] = {
    value: "elo" if value == admin_pb2.RATING_SYSTEM_UNSPECIFIED else name.removeprefix("RATING_SYSTEM_").lower()
    for name, value in admin_pb2.RatingSystem.items()
}
"""``RatingSystem`` value -> :func:`arena.ratings.make_rater` kind: ``RATING_SYSTEM_<NAME>``
is the system ``<name>`` (:data:`arena.ratings.factory.RATERS`), unspecified is Elo."""

MAX_ERRORS = 10
"""Failed-match messages reported by GetTournament."""


class Refusal(Exception):
    """An expected failure of an RPC: its status code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# -- conversion (pure) ---------------------------------------------------------------------------

def _unix_ms(dt: datetime) -> int:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def tournament_status(stored: str, done: int, total: int, counts: dict[str, int], *,
                      running_here: bool = False, run_failed: bool = False) -> admin_pb2.TournamentStatus:
    """The ``TournamentStatus`` of a tournament from the store's view of it.

    :param stored: the tournament's stored status (``pending``, ``running``,
        ``done``, ``stopped``); ``done`` is final even with failed matches (they are
        listed in the errors).
    :param counts: specs per status (:meth:`arena.store.Store.status_counts`).
    :param running_here: this gateway is playing it now (embedded).
    :param run_failed: this gateway's embedded run of it ended with errors.

    >>> tournament_status("running", 8, 8, {}) == admin_pb2.TOURNAMENT_STATUS_DONE
    True
    >>> tournament_status("stopped", 3, 8, {"pending": 5}) == admin_pb2.TOURNAMENT_STATUS_STOPPED
    True
    >>> tournament_status("running", 7, 8, {"failed": 1}) == admin_pb2.TOURNAMENT_STATUS_FAILED
    True
    >>> tournament_status("pending", 0, 8, {"pending": 8}) == admin_pb2.TOURNAMENT_STATUS_PENDING
    True
    """
    if stored == "done" or (total and done >= total):
        return admin_pb2.TOURNAMENT_STATUS_DONE  # failed matches, if any, are listed in errors
    if running_here:
        return admin_pb2.TOURNAMENT_STATUS_RUNNING
    if stored in ("stopped", "paused"):  # paused: an interrupted run, resumable
        return admin_pb2.TOURNAMENT_STATUS_STOPPED
    if counts.get("leased", 0):
        return admin_pb2.TOURNAMENT_STATUS_RUNNING
    if run_failed or (counts.get("failed", 0) and not counts.get("pending", 0)):
        return admin_pb2.TOURNAMENT_STATUS_FAILED
    if stored == "running" or done:
        return admin_pb2.TOURNAMENT_STATUS_RUNNING
    return admin_pb2.TOURNAMENT_STATUS_PENDING


def _json_ready(value: Any) -> Any:
    """``value`` with tuples as lists, non-string keys as strings and undefined
    numbers (NaN, infinities) as ``None`` (a ``Struct`` cannot carry them to JSON)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _value(v: Any) -> admin_pb2.StandingsValue:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return admin_pb2.StandingsValue()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return admin_pb2.StandingsValue(text=str(v))
    return admin_pb2.StandingsValue(number=float(v))


def standings_response(st: Any) -> admin_pb2.GetStandingsResponse:
    """A :class:`~arena.tournaments.standings.Standings` as ``GetStandingsResponse``:
    one value and one printed cell (``Standings.table()``, what ``arena standings``
    prints) per column of every row."""
    table = st.table()
    keys = [key for key, _ in st.columns]
    rows = []
    for row, cells in zip(st.rows, table[1:]):
        entrant = row.get("entrant", row.get("opponent", ""))
        rows.append(admin_pb2.StandingsRow(rank=int(row.get("rank") or 0), entrant_id=str(entrant),
                                           values=[_value(row.get(k)) for k in keys], cells=cells))
    details = struct_pb2.Struct()
    details.update(_json_ready(st.details))
    return admin_pb2.GetStandingsResponse(
        tournament_id=st.tournament_id, kind=st.kind, title=st.title,
        columns=[admin_pb2.StandingsColumn(key=k, label=label) for k, label in st.columns],
        rows=rows, tie_breaks=st.tie_breaks, matches_expected=st.expected,
        matches_recorded=st.recorded, matches_unfinished=st.unfinished, complete=st.complete,
        details=details)


def compute_ratings(records: Iterable[Any], *, game: str, system: str = "elo",
                    ruleset: str | None = None) -> list[admin_pb2.RulesetRatings]:
    """Ratings per ruleset of ``game``'s finished records, as ``arena ratings GAME``
    and the dashboard compute them (:func:`arena.ratings.records.rate_records`: the
    online rater ``system`` fed every result in record order, a ruleset whose
    duplicate grouping cannot be rated rated without it, said in ``note``), with the
    batch fit's 95% intervals in the rows of :func:`~arena.ratings.report.ratings_table`.

    :param ruleset: only this ruleset.
    :raises arena.ratings.errors.RatingError: for an unknown ``system``.
    """
    from arena.ratings.records import rate_records
    from arena.ratings.report import ratings_table

    out = []
    for label, rated in rate_records(records, system=system, game=game, ruleset=ruleset).items():
        rater, fit = rated.rater, rated.fit
        rows = []
        for row in ratings_table(rater, label, fit=fit):
            msg = admin_pb2.RatingRow(rank=row["rank"], bot=str(row["bot"]), rating=row["rating"],
                                      games=float(row["games"]))
            if row["error"] is not None:
                msg.interval = row["error"]
            if row["last_change"] is not None:
                msg.last_change = row["last_change"]
            if fit is not None and row["bot"] in fit.players:
                msg.batch_rating = round(fit.rating(row["bot"]), 2)
            rows.append(msg)
        out.append(admin_pb2.RulesetRatings(ruleset=label, matches=rated.records, rows=rows,
                                            note="; ".join(rated.notes)))
    return out


# -- the tournaments this gateway plays ------------------------------------------------------------

@dataclass
class _Run:
    """An embedded run of one tournament on this gateway."""

    thread: threading.Thread | None = None
    finished: bool = False
    failure: str | None = None
    """Why the run itself ended early (an exception), if it did."""
    match_errors: list[str] = field(default_factory=list)
    """Matches that failed in the run (``"<match id>: <error>"``, at most :data:`MAX_ERRORS`)."""


def _default_jobs() -> int:
    # At least 2: with one job the embedded executor plays in the calling thread,
    # i.e. on the gateway's own interpreter, competing with the event loop for the GIL.
    return max(2, os.cpu_count() or 1)


class _Tournaments:
    """The blocking side of the tournament calls (runs on worker threads)."""

    def __init__(self, store: Any, registry: BotRegistry, router: LocalRouter, *,
                 redis_url: str | None, jobs: int | None) -> None:
        self.store = store
        self.registry = registry
        self.router = router
        self.redis_url = redis_url
        self.jobs = jobs if jobs is not None else _default_jobs()
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._celery: Any = None
        self._celery_lock = threading.Lock()

    # -- CreateTournament -----------------------------------------------------------------
    def create(self, text: str, execution: admin_pb2.Execution) -> admin_pb2.CreateTournamentResponse:
        from arena.store import SpecConflictError
        from arena.tournaments import service

        if execution not in (admin_pb2.EXECUTION_UNSPECIFIED, admin_pb2.EXECUTION_EMBEDDED,
                             admin_pb2.EXECUTION_DISTRIBUTED):
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"execution: unknown value {execution}")
        if execution == admin_pb2.EXECUTION_UNSPECIFIED:
            execution = admin_pb2.EXECUTION_DISTRIBUTED if self.redis_url else admin_pb2.EXECUTION_EMBEDDED
        if execution == admin_pb2.EXECUTION_DISTRIBUTED and not self.redis_url:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          "execution: DISTRIBUTED needs a gateway with a Redis URL "
                          "(arena serve --redis-url / ARENA_REDIS_URL)")
        if self._closing.is_set():
            raise Refusal(grpc.StatusCode.UNAVAILABLE, "the gateway is shutting down")
        if not text.strip():
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "config_toml: empty; give a tournament file")
        try:
            config, raw = service.parse_text(text, source="CreateTournament")
            # a ladder played here seats the remote entrants connected to this gateway
            specs = service.first_round(config, presence=self.router)
        except tomllib.TOMLDecodeError as exc:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"config_toml: invalid TOML: {exc}") from None
        except service.ConfigError as exc:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        except ValueError as exc:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"config_toml: {exc}") from None
        self._check_remote_bots(config)
        try:
            added = self.store.add_tournament(config.id, config.name, config.game, raw, specs)
        except SpecConflictError:
            raise Refusal(grpc.StatusCode.ALREADY_EXISTS,
                          f"tournament.id: {config.id!r} is stored with a different configuration; "
                          "give this one another id") from None
        if execution == admin_pb2.EXECUTION_DISTRIBUTED:
            started = self._submit(config.id)
        else:
            started = self._start_embedded(config)
        return admin_pb2.CreateTournamentResponse(tournament=self.get(config.id), created=added > 0,
                                                  execution=execution, matches_started=started)

    def _check_remote_bots(self, config: Any) -> None:
        for i, entrant in enumerate(config.entrants):
            if not entrant.bot.startswith("remote:"):
                continue
            bot_id = entrant.bot[len("remote:"):]
            try:
                bot = self.registry.get(bot_id)
            except BotNotFoundError:
                if config.format == "ladder":
                    continue  # a ladder's remote entrants join when registered and connected
                raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                              f"entrants[{i}].remote: bot {bot_id!r} is not registered "
                              "(RegisterBot first)") from None
            if bot.revoked:
                raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                              f"entrants[{i}].remote: bot {bot_id!r} is revoked")

    def _celery_app(self) -> Any:
        with self._celery_lock:
            if self._celery is None:
                try:
                    from workers.celery import make_app
                except ImportError as exc:
                    raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                                  f"distributed execution needs the workers package: {exc}") from None
                self._celery = make_app(self.redis_url, self.store.url)
            return self._celery

    def _submit(self, tournament_id: str) -> int:
        """Offer the playable matches to the Celery workers (``arena tournament
        submit``): one conductor pass; returns the matches that can be played."""
        from arena.tournaments import service
        from workers.dispatch import CeleryDispatcher

        app = self._celery_app()
        leasable = self.store.leasable_count(tournament_id)
        if not leasable:
            return 0
        try:
            with self._celery_lock:  # one submitter at a time on the app's producer pool
                service.submit(self.store, tournament_id, CeleryDispatcher(app, store_url=self.store.url),
                               presence=self.router)
        except Exception as exc:  # noqa: BLE001 - kombu/redis errors: the broker is not reachable
            log.warning("tournament %s: submitting to %s failed: %s", tournament_id, self.redis_url, exc)
            raise Refusal(grpc.StatusCode.UNAVAILABLE,
                          f"cannot submit to the workers' Redis: {type(exc).__name__}: {exc}; the "
                          "tournament is stored, send the same file again to retry") from None
        log.info("tournament %s: %d matches offered to the workers", tournament_id, leasable)
        return int(leasable)

    def _start_embedded(self, config: Any, *, one_round: bool = False) -> int:
        """Play the matches not recorded yet on a background thread; returns how many
        (the executor replays failed and abandoned matches too). ``one_round``: only
        the current round (a league's PlayLeagueRound): the run stops when nothing of
        it is pending or leased, then a conductor pass adds the next round or
        finalizes the tournament."""
        with self._lock:
            run = self._runs.get(config.id)
            if run is not None and not run.finished:
                return 0  # this gateway plays it already
            done, total = self.store.progress(config.id)
            pending = int(total - done)
            if not pending:
                return 0
            # "running" at once (the executor says so again when it starts)
            self.store.set_tournament_status(config.id, "running")
            run = self._runs[config.id] = _Run()
            run.thread = threading.Thread(target=self._play, args=(config, run, one_round),
                                          name=f"arena-tournament-{config.id}", daemon=True)
            run.thread.start()
        log.info("tournament %s: playing %d matches on this gateway", config.id, pending)
        return pending

    def _play(self, config: Any, run: _Run, one_round: bool = False) -> None:
        from arena.tournaments import service

        def round_played() -> bool:
            return self._closing.is_set() or service.round_played(self.store, config.id)

        errors: list[str] = []
        try:
            # the router reaches this gateway's remote bots and says which are connected
            played = service.run_embedded(self.store.url, config.id, self.jobs, router=self.router,
                                          stop=round_played if one_round else self._closing.is_set,
                                          errors=errors)
            done, total = played.done, played.total
            if one_round and not self._closing.is_set():
                # the next round, or the end
                if service.advance(self.store, config.id, presence=self.router) == "paused":
                    self.store.set_tournament_status(config.id, "running")  # between two rounds
                done, total = self.store.progress(config.id)
            log.info("tournament %s: %d/%d matches recorded", config.id, done, total)
        except Exception as exc:  # noqa: BLE001 - reported through GetTournament
            log.exception("tournament %s: the embedded run failed", config.id)
            run.failure = f"embedded run: {type(exc).__name__}: {exc}"
        finally:
            run.match_errors = errors[:MAX_ERRORS]
            run.finished = True

    def running(self, tournament_id: str) -> bool:
        with self._lock:
            run = self._runs.get(tournament_id)
            return run is not None and not run.finished

    def close(self, timeout: float) -> None:
        """Stop the embedded runs (each after its next recorded result) and wait up
        to ``timeout`` seconds for them."""
        self._closing.set()
        with self._lock:
            threads = [r.thread for r in self._runs.values() if r.thread is not None]
        end = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, end - time.monotonic()))

    # -- GetTournament ----------------------------------------------------------------------
    def _info(self, tournament_id: str) -> Any:
        from arena.store import TournamentNotFoundError

        if not tournament_id:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "tournament_id: empty")
        try:
            return self.store.tournament(tournament_id)
        except TournamentNotFoundError:
            raise Refusal(grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id!r}") from None

    def get(self, tournament_id: str) -> admin_pb2.Tournament:
        from arena.tournaments import service

        info = self._info(tournament_id)
        done, total = self.store.progress(tournament_id)
        counts = self.store.status_counts(tournament_id)
        errors: list[str] = []
        with self._lock:
            run = self._runs.get(tournament_id)
            here = run is not None and not run.finished
            if run is not None and run.finished:
                errors = ([run.failure] if run.failure else []) + run.match_errors
        run_failed = bool(errors) and done < total
        if counts.get("failed", 0):
            errors += [f"{s.match_id}: {s.error}" for s in self.store.spec_states(tournament_id)
                       if s.status == "failed"]
        msg = admin_pb2.Tournament(
            tournament_id=info.id, name=info.name, game=info.game,
            status=tournament_status(info.status, done, total, counts, running_here=here,
                                     run_failed=run_failed),
            matches_done=done, matches_total=total, matches_pending=counts.get("pending", 0),
            matches_running=counts.get("leased", 0), matches_failed=counts.get("failed", 0),
            created_unix_ms=_unix_ms(info.created), running_on_gateway=here,
            errors=errors[:MAX_ERRORS])
        try:
            config = service.stored_config(self.store, info.id)
        except ValueError:  # stored without its file (or by an older version): no details
            return msg
        msg.ruleset = config.make_game().ruleset
        msg.format = config.format
        msg.entrants.extend(admin_pb2.TournamentEntrant(entrant_id=e.id, bot=e.bot)
                            for e in config.entrants)
        return msg

    # -- GetStandings -----------------------------------------------------------------------
    def standings(self, tournament_id: str) -> admin_pb2.GetStandingsResponse:
        from arena.tournaments import service

        self._info(tournament_id)
        try:
            st = service.bare_standings(self.store, tournament_id)
        except ValueError as exc:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          f"tournament {tournament_id!r} cannot be scored: {exc}") from None
        return standings_response(st)

    # -- GetRatings -------------------------------------------------------------------------
    def ratings(self, request: admin_pb2.GetRatingsRequest) -> admin_pb2.GetRatingsResponse:
        from arena.games import list_games

        system = RATING_SYSTEMS.get(request.system)
        used = request.system or admin_pb2.RATING_SYSTEM_ELO
        if system is None:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"system: unknown value {request.system}")
        game, ruleset = request.game, request.ruleset or None
        if ruleset is not None:
            head, sep, version = ruleset.partition("@")
            if not sep or not head or not version:
                raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                              f"ruleset: {ruleset!r} must look like GAME@VERSION, e.g. calypso@v1")
            if game and game != head:
                raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                              f"ruleset: {ruleset!r} is not a ruleset of game {game!r}")
            game = head
        if not game:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "game: give a game or a ruleset")
        if game not in list_games():
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          f"game: unknown game {game!r}; known: {', '.join(list_games())}")
        if request.tournament_id:
            infos = [self._info(request.tournament_id)]
        else:
            infos = self.store.tournaments()  # oldest first, as the dashboard reads them
        records = (r for info in infos if info.game == game for r in self.store.records(info.id))
        rows = compute_ratings(records, game=game, system=system, ruleset=ruleset)
        return admin_pb2.GetRatingsResponse(system=used, rulesets=rows)


# -- leagues --------------------------------------------------------------------------------------

_LEAGUE_STATES = {"between": admin_pb2.LEAGUE_STATE_BETWEEN, "running": admin_pb2.LEAGUE_STATE_RUNNING}


def league_message(row: dict[str, Any]) -> admin_pb2.League:
    """A stored league (:func:`arena.tournaments.league.league_info`) as ``League``."""
    from arena.tournaments import service

    cfg = service.parse_league(row["config"])
    running = row["state"] == "running"
    divisions = []
    for d, members in zip(cfg.divisions, row["divisions"]["divisions"]):
        divisions.append(admin_pb2.LeagueDivision(
            name=members["name"], size=d.size, format=d.format, rounds=d.rounds or 0, promote=d.promote,
            relegate=d.relegate, entrant_ids=list(members["entrants"]),
            tournament_id=service.division_tournament_id(row["id"], int(row["season"]), members["name"]) if running else ""))
    return admin_pb2.League(league_id=row["id"], name=row["name"], game=row["game"], season=int(row["season"]),
                            state=_LEAGUE_STATES.get(row["state"], admin_pb2.LEAGUE_STATE_UNSPECIFIED),
                            divisions=divisions, created_unix_ms=_unix_ms(row["created"]))


def _moves(moves: Iterable[dict[str, Any]]) -> list[admin_pb2.LeagueMove]:
    return [admin_pb2.LeagueMove(entrant_id=m["entrant"], from_division=m["from"], to_division=m["to"],
                                 move=m["move"]) for m in moves]


class _Leagues:
    """The blocking side of the league calls (run on worker threads): each one
    league function of :mod:`arena.tournaments.service`, as ``arena league`` calls it; the
    divisions are played by the tournaments' side (:class:`_Tournaments`)."""

    def __init__(self, tournaments: _Tournaments) -> None:
        self.tournaments = tournaments
        self.store = tournaments.store
        self.redis_url = tournaments.redis_url

    def _league(self, fn: Callable[[], T]) -> T:
        """``fn()`` with the league errors as refusals."""
        from arena.tournaments import service

        try:
            return fn()
        except service.ConfigError as exc:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None
        except (service.LeagueNotFoundError, service.SeasonNotFoundError) as exc:
            raise Refusal(grpc.StatusCode.NOT_FOUND, str(exc)) from None
        except service.LeagueExistsError as exc:
            raise Refusal(grpc.StatusCode.ALREADY_EXISTS, str(exc)) from None
        except service.LeagueError as exc:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION, str(exc)) from None

    @staticmethod
    def _league_id(league_id: str) -> str:
        if not league_id:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "league_id: empty")
        return league_id

    def _league_file(self, text: str) -> Any:
        from arena.tournaments import service

        if not text.strip():
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "config_toml: empty; give a league file")
        return self._league(lambda: service.loads_league(text))

    def _league_row(self, league_id: str) -> dict[str, Any]:
        from arena.tournaments import service

        return self._league(lambda: service.league_info(self.store, self._league_id(league_id)))

    def league_create(self, text: str) -> admin_pb2.CreateLeagueResponse:
        from arena.tournaments import service

        cfg = self._league_file(text)
        _, created = self._league(lambda: service.create_league(cfg, self.store))
        return admin_pb2.CreateLeagueResponse(league=league_message(self._league_row(cfg.id)), created=created)

    def league_update(self, text: str) -> admin_pb2.UpdateLeagueResponse:
        from arena.tournaments import service

        cfg = self._league_file(text)
        out = self._league(lambda: service.update_league(cfg, self.store))
        return admin_pb2.UpdateLeagueResponse(league=league_message(self._league_row(cfg.id)),
                                              joined=out["joined"], left=out["left"], changed=out["changed"])

    def league_list(self) -> admin_pb2.ListLeaguesResponse:
        from arena.tournaments import service

        return admin_pb2.ListLeaguesResponse(leagues=[league_message(r) for r in service.list_leagues(self.store)])

    def league_get(self, league_id: str) -> admin_pb2.GetLeagueResponse:
        return admin_pb2.GetLeagueResponse(league=league_message(self._league_row(league_id)))

    def league_start(self, league_id: str) -> admin_pb2.StartSeasonResponse:
        from arena.tournaments import service

        out = self._league(lambda: service.season_start(self.store, self._league_id(league_id)))
        return admin_pb2.StartSeasonResponse(league=league_message(self._league_row(league_id)),
                                             season=out["season"],
                                             first_round_matches=[d["matches"] for d in out["divisions"]])

    def league_round(self, request: admin_pb2.PlayLeagueRoundRequest) -> admin_pb2.PlayLeagueRoundResponse:
        from arena.tournaments import service

        league_id = self._league_id(request.league_id)
        execution = request.execution
        if execution not in (admin_pb2.EXECUTION_UNSPECIFIED, admin_pb2.EXECUTION_EMBEDDED,
                             admin_pb2.EXECUTION_DISTRIBUTED):
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"execution: unknown value {execution}")
        if execution == admin_pb2.EXECUTION_UNSPECIFIED:
            execution = (admin_pb2.EXECUTION_DISTRIBUTED if self.redis_url and request.all_rounds
                         else admin_pb2.EXECUTION_EMBEDDED)
        if execution == admin_pb2.EXECUTION_DISTRIBUTED:
            if not request.all_rounds:
                raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                              "execution: DISTRIBUTED plays every round (all_rounds); one round at a time "
                              "is played EMBEDDED")
            if not self.redis_url:
                raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                              "execution: DISTRIBUTED needs a gateway with a Redis URL "
                              "(arena serve --redis-url / ARENA_REDIS_URL)")
        row, tids = self._league(lambda: service.running_season(self.store, league_id))
        season = int(row["season"])
        plays = []
        for name, tid in zip((d["name"] for d in row["divisions"]["divisions"]), tids):
            if self.store.tournament(tid).status in ("done", "stopped"):
                continue
            if execution == admin_pb2.EXECUTION_DISTRIBUTED:
                started = self.tournaments._submit(tid)
            else:
                if not self.tournaments.running(tid):
                    # a played round: add the next one (or finish)
                    service.advance(self.store, tid, presence=self.tournaments.router)
                if self.store.tournament(tid).status in ("done", "stopped"):
                    continue
                started = self.tournaments._start_embedded(service.stored_config(self.store, tid),
                                                           one_round=not request.all_rounds)
            plays.append(admin_pb2.DivisionPlay(division=name, tournament_id=tid,
                                                round=int(self.store.tournament(tid).round),
                                                matches_started=started))
        if not plays:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          f"season {season} of {league_id!r} is played out: end it (EndSeason)")
        return admin_pb2.PlayLeagueRoundResponse(league_id=league_id, season=season, execution=execution,
                                                 divisions=plays)

    def league_end(self, league_id: str) -> admin_pb2.EndSeasonResponse:
        from arena.tournaments import service

        out = self._league(lambda: service.season_end(self.store, self._league_id(league_id)))
        return admin_pb2.EndSeasonResponse(league=league_message(self._league_row(league_id)),
                                           season=out["season"], moves=_moves(out["moves"]))

    def league_table(self, league_id: str, season: int) -> admin_pb2.GetLeagueTableResponse:
        from arena.tournaments import service

        if season < 0:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"season: must be 0 (the newest) or more, got {season}")
        data = self._league(lambda: service.league_table(self.store, self._league_id(league_id), season or None))
        divisions = []
        for div in data["divisions"]:
            st = standings_response(service.standings(self.store, div["tournament"]))
            zones = {r["entrant"]: r["zone"] for r in div["rows"]}
            divisions.append(admin_pb2.DivisionTable(
                division=div["division"], tournament_id=div["tournament"],
                status=self.tournaments.get(div["tournament"]).status, title=st.title, columns=st.columns,
                rows=[admin_pb2.LeagueTableRow(row=r, zone=zones.get(r.entrant_id, "")) for r in st.rows]))
        ratings, note = [], ""
        for r in data["ratings"]:
            if "error" in r and "rating" not in r:
                note = str(r["error"])
                continue
            ratings.append(admin_pb2.LeagueRating(entrant_id=str(r["bot"]), rating=r["rating"],
                                                  interval=r["error"], games=r["games"]))
        return admin_pb2.GetLeagueTableResponse(
            league_id=data["league"], name=data["name"], season=data["season"],
            state=_LEAGUE_STATES.get(data["state"], admin_pb2.LEAGUE_STATE_UNSPECIFIED),
            current_season=data["current_season"], divisions=divisions, moves=_moves(data["moves"]),
            all_time=[admin_pb2.AllTimeRow(entrant_id=a["entrant"], seasons=a["seasons"],
                                           best_division=a["best_division"],
                                           history=[admin_pb2.SeasonPlace(season=h["season"], division=h["division"],
                                                                          place=h["place"]) for h in a["history"]])
                      for a in data["all_time"]],
            ratings=ratings, ratings_note=note,
            updates=[admin_pb2.LeagueUpdate(after_season=u["after_season"], joined=u["joined"], left=u["left"])
                     for u in data.get("updates", [])])


# -- the servicer ---------------------------------------------------------------------------------

class AdminServicer(admin_pb2_grpc.AdminServiceServicer):
    """Operator API; every call needs ``authorization: Bearer <operator token>``.

    :param store: the :class:`arena.store.Store` of tournaments and records; without
        one the tournament, standings and ratings calls answer FAILED_PRECONDITION.
    :param redis_url: the Celery workers' Redis: CreateTournament submits to them
        by default.
    :param tournament_jobs: local processes of an embedded run (default: CPU count,
        at least 2, so that built-in bots never play on the gateway's interpreter).
    """

    def __init__(self, hub: SessionHub, registry: BotRegistry, operator_token: str | None, *,
                 store: Any = None, redis_url: str | None = None,
                 tournament_jobs: int | None = None) -> None:
        self.hub = hub
        self.registry = registry
        self.store = store
        self._operator_token = operator_token
        self._tournaments = (_Tournaments(store, registry, LocalRouter(hub), redis_url=redis_url,
                                          jobs=tournament_jobs) if store is not None else None)
        self._leagues = _Leagues(self._tournaments) if self._tournaments is not None else None

    def close(self, timeout: float = 5.0) -> None:
        """Stop the tournaments this gateway plays (blocking; see :class:`_Tournaments`)."""
        if self._tournaments is not None:
            self._tournaments.close(timeout)

    async def _authorize(self, context: _Context) -> None:
        if not self._operator_token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "this gateway has no operator token configured")
        got = ""
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
                got = value[len("Bearer "):]
        if not hmac.compare_digest(got.encode(), str(self._operator_token).encode()):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong operator token")

    async def _blocking(self, context: _Context, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker thread; its failures become the call's status."""
        from sqlalchemy.exc import OperationalError

        try:
            return await asyncio.to_thread(fn, *args)
        except Refusal as exc:
            await context.abort(exc.code, exc.message)
        except OperationalError as exc:
            log.warning("store unavailable: %s", exc)
            await context.abort(grpc.StatusCode.UNAVAILABLE, f"the store is unavailable: {exc.orig}")
        except Exception as exc:  # noqa: BLE001 - logged; the caller gets INTERNAL, not a hang
            log.exception("admin call failed")
            await context.abort(grpc.StatusCode.INTERNAL, f"{type(exc).__name__}: {exc}")
        raise AssertionError("unreachable: context.abort raises")

    def _tournament_side(self) -> _Tournaments:
        if self._tournaments is None:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          "this gateway has no store for tournaments (arena serve --store URL)")
        return self._tournaments

    def _league_side(self) -> _Leagues:
        if self._leagues is None:
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          "this gateway has no store for leagues (arena serve --store URL)")
        return self._leagues

    def _info(self, entry: BotEntry) -> admin_pb2.BotInfo:
        return admin_pb2.BotInfo(bot_id=entry.bot_id, owner=entry.owner,
                                 created_unix_ms=entry.created_unix_ms, revoked=entry.revoked,
                                 connected=self.hub.is_connected(entry.bot_id))

    # -- bots ---------------------------------------------------------------------------------
    def _register(self, bot_id: str, owner: str) -> tuple[BotEntry, str]:
        try:
            return self.registry.register(bot_id, owner)
        except BotExistsError as exc:
            raise Refusal(grpc.StatusCode.ALREADY_EXISTS, str(exc)) from None
        except ValueError as exc:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, str(exc)) from None

    def _revoke(self, bot_id: str) -> BotEntry:
        try:
            return self.registry.revoke(bot_id)
        except BotNotFoundError:
            raise Refusal(grpc.StatusCode.NOT_FOUND, f"no bot {bot_id!r}") from None

    async def RegisterBot(self, request: admin_pb2.RegisterBotRequest,  # noqa: N802
                          context: _Context) -> admin_pb2.RegisterBotResponse:
        await self._authorize(context)
        entry, token = await self._blocking(context, self._register, request.bot_id, request.owner)
        return admin_pb2.RegisterBotResponse(bot=self._info(entry), token=token)

    async def RevokeBot(self, request: admin_pb2.RevokeBotRequest,  # noqa: N802
                        context: _Context) -> admin_pb2.RevokeBotResponse:
        await self._authorize(context)
        entry = await self._blocking(context, self._revoke, request.bot_id)
        self.hub.close_bot(entry.bot_id, CloseCode.REVOKED, "the bot's token was revoked")
        return admin_pb2.RevokeBotResponse(bot=self._info(entry))

    async def ListBots(self, request: admin_pb2.ListBotsRequest,  # noqa: N802
                       context: _Context) -> admin_pb2.ListBotsResponse:
        await self._authorize(context)
        entries = await self._blocking(context, self.registry.list)
        return admin_pb2.ListBotsResponse(bots=[self._info(e) for e in entries])

    # -- tournaments --------------------------------------------------------------------------
    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,  # noqa: N802
                               context: _Context) -> admin_pb2.CreateTournamentResponse:
        await self._authorize(context)
        return await self._blocking(
            context, lambda: self._tournament_side().create(request.config_toml, request.execution))

    async def GetTournament(self, request: admin_pb2.GetTournamentRequest,  # noqa: N802
                            context: _Context) -> admin_pb2.GetTournamentResponse:
        await self._authorize(context)
        tournament = await self._blocking(
            context, lambda: self._tournament_side().get(request.tournament_id))
        return admin_pb2.GetTournamentResponse(tournament=tournament)

    async def GetStandings(self, request: admin_pb2.GetStandingsRequest,  # noqa: N802
                           context: _Context) -> admin_pb2.GetStandingsResponse:
        await self._authorize(context)
        return await self._blocking(
            context, lambda: self._tournament_side().standings(request.tournament_id))

    async def GetRatings(self, request: admin_pb2.GetRatingsRequest,  # noqa: N802
                         context: _Context) -> admin_pb2.GetRatingsResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._tournament_side().ratings(request))

    # -- leagues ------------------------------------------------------------------------------
    async def CreateLeague(self, request: admin_pb2.CreateLeagueRequest,  # noqa: N802
                           context: _Context) -> admin_pb2.CreateLeagueResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_create(request.config_toml))

    async def UpdateLeague(self, request: admin_pb2.UpdateLeagueRequest,  # noqa: N802
                           context: _Context) -> admin_pb2.UpdateLeagueResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_update(request.config_toml))

    async def ListLeagues(self, request: admin_pb2.ListLeaguesRequest,  # noqa: N802
                          context: _Context) -> admin_pb2.ListLeaguesResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_list())

    async def GetLeague(self, request: admin_pb2.GetLeagueRequest,  # noqa: N802
                        context: _Context) -> admin_pb2.GetLeagueResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_get(request.league_id))

    async def StartSeason(self, request: admin_pb2.StartSeasonRequest,  # noqa: N802
                          context: _Context) -> admin_pb2.StartSeasonResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_start(request.league_id))

    async def PlayLeagueRound(self, request: admin_pb2.PlayLeagueRoundRequest,  # noqa: N802
                              context: _Context) -> admin_pb2.PlayLeagueRoundResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_round(request))

    async def EndSeason(self, request: admin_pb2.EndSeasonRequest,  # noqa: N802
                        context: _Context) -> admin_pb2.EndSeasonResponse:
        await self._authorize(context)
        return await self._blocking(context, lambda: self._league_side().league_end(request.league_id))

    async def GetLeagueTable(self, request: admin_pb2.GetLeagueTableRequest,  # noqa: N802
                             context: _Context) -> admin_pb2.GetLeagueTableResponse:
        await self._authorize(context)
        return await self._blocking(
            context, lambda: self._league_side().league_table(request.league_id, request.season))
