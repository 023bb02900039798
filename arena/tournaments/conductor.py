"""The conductor: makes the store converge until every tournament has finished by itself.

The store is the only truth of a tournament's progress. Each match spec is
``pending`` (playable, once its retry backoff is over), ``leased`` (a worker plays
it and renews its lease by heartbeat), ``done`` (its record is stored, exactly
once) or ``failed`` (with its attempts and last error). Nothing depends on a Celery
chord, a task result or the broker's redelivery.

One pass of :meth:`Conductor.reconcile` over each unfinished tournament:

1. leases that expired (their worker stopped renewing: killed, lost, partitioned)
   go back to ``pending``, or to ``failed`` once the spec has had
   ``max_attempts`` leases (a match that kills its worker every time);
2. failed specs with attempts left go back to ``pending``, playable after a
   backoff of ``retry_backoff * 2**(attempts-1)`` seconds;
3. a format that can stop early (a gauntlet's SPRT) is asked; if it has decided,
   the tournament is finalized ``stopped``;
4. when nothing is pending or leased: if the format has a next round, its specs
   are added (idempotently: the same round always gives the same specs); an empty
   round (``[]``, not ``None``) means "nothing yet, ask again at the next pass"
   (a ladder whose entrants are all at their rate limit); else the
   tournament is finalized ``done`` -- failed matches, if any, stay listed in its
   status and standings, with their reasons;
5. playable work is offered to the workers through a :class:`Dispatcher` (Celery:
   ``arena.tournament.work`` tasks, each leasing matches from the store until
   nothing is left or its time is up), topping the broker's queue up to
   ``queue_target`` offers. Offers carry no match ids: an offer lost with a
   restarted Redis costs nothing, the next pass sees the queue empty and offers
   again.

Finalizing refreshes the rating history (:mod:`arena.tournaments.history`), then
sets the final status with a conditional update, so conductors running in several
places at once agree. Every step is idempotent; a store error ends the pass (it is
logged and the next pass starts over), never a tournament.

Where it runs: in the distributed mode every ``arena worker`` runs a conductor loop
beside its Celery worker (every ``conductor_interval`` seconds), ``arena conductor``
runs one alone, and each Celery work task runs one pass for its tournament when it
finds nothing left to lease (so a tournament finishes as soon as its last match is
recorded). The embedded executor runs a pass before it starts and after each
batch of results.

Settings (:class:`ConductorSettings`, from the environment):

==================================  ================================================  =======
variable                            meaning                                           default
==================================  ================================================  =======
``ARENA_LEASE_SECONDS``             a lease's length; a dead worker's matches are     ``30``
                                    offered again at most this long after its last
                                    heartbeat
``ARENA_HEARTBEAT_SECONDS``         how often a worker renews its leases              ``5``
``ARENA_MAX_ATTEMPTS``              leases of one match before it fails for good      ``3``
``ARENA_RETRY_BACKOFF_SECONDS``     wait before a failed match's first retry          ``5``
                                    (doubled for each further attempt)
``ARENA_CONDUCTOR_INTERVAL``        seconds between two passes of a conductor loop    ``5``
``ARENA_QUEUE_TARGET``              offers kept waiting in the broker's queue         ``8``
``ARENA_ABSENCE_LIMIT_SECONDS``     a match with a registered remote bot that is      ``300``
                                    offline is deferred (not played, not counted as
                                    an attempt) for up to this long; then it is
                                    recorded as a forfeit: no deal, no score, the
                                    bot ``absent`` in its record and the standings.
                                    Only a bot that really is offline (no stream, no
                                    online key at any gateway) this long forfeits; a
                                    route failure (Redis errors, connection limits,
                                    the route's own timeouts) is a platform fault
                                    and never counts toward it
``ARENA_PAUSE_AFTER_VOIDS``         matches of a tournament voided by platform        ``20``
                                    faults in a row (no record between, over at
                                    least ``ARENA_PAUSE_SECONDS``: a burst from one
                                    fault replays at once) after which it pauses
                                    (``0``: never), with the reason in
                                    ``arena tournament status``
``ARENA_PAUSE_SECONDS``             the first pause; doubled as voids go on piling    ``30``
                                    up (at most 600 s); a record ends the pause
==================================  ================================================  =======

With the defaults the worst case from a fault to the tournament's finish is bound
by one lease plus one pass (about 35 s) plus the replayed matches' play time.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, overload

from arena.records.spec import MatchSpec
from arena.tournaments.presence import Presence

__all__ = ["ConductorSettings", "Conductor", "Dispatcher", "PassReport", "Heartbeat", "owner_id",
           "with_store_retries", "is_store_error", "owner_pid_alive", "early_stop"]

log = logging.getLogger("arena.conductor")

T = TypeVar("T")

_ENV = {
    "lease_seconds": "ARENA_LEASE_SECONDS",
    "heartbeat_seconds": "ARENA_HEARTBEAT_SECONDS",
    "max_attempts": "ARENA_MAX_ATTEMPTS",
    "retry_backoff": "ARENA_RETRY_BACKOFF_SECONDS",
    "interval": "ARENA_CONDUCTOR_INTERVAL",
    "queue_target": "ARENA_QUEUE_TARGET",
    "absence_limit": "ARENA_ABSENCE_LIMIT_SECONDS",
    "pause_after_voids": "ARENA_PAUSE_AFTER_VOIDS",
    "pause_seconds": "ARENA_PAUSE_SECONDS",
}


@dataclass(frozen=True)
class ConductorSettings:
    """Lease, heartbeat and retry settings (see the module docstring's table)."""

    lease_seconds: float = 30.0
    heartbeat_seconds: float = 5.0
    max_attempts: int = 3
    retry_backoff: float = 5.0
    interval: float = 5.0
    queue_target: int = 8
    absence_limit: float = 300.0
    pause_after_voids: int = 20
    """Matches of a tournament voided by platform faults in a row (no record between)
    after which it pauses (0: never)."""
    pause_seconds: float = 30.0
    """The first pause's length; doubled as the voids go on piling up (at most 10 min)."""

    def __post_init__(self) -> None:
        if self.heartbeat_seconds <= 0 or self.lease_seconds <= self.heartbeat_seconds:
            raise ValueError(f"lease ({self.lease_seconds} s) must be longer than the heartbeat "
                             f"({self.heartbeat_seconds} s)")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ConductorSettings:
        """Settings from ``ARENA_*`` variables (defaults for those not set).

        >>> ConductorSettings.from_env({"ARENA_LEASE_SECONDS": "12", "ARENA_HEARTBEAT_SECONDS": "2"})
        ConductorSettings(lease_seconds=12.0, heartbeat_seconds=2.0, max_attempts=3, retry_backoff=5.0, interval=5.0, queue_target=8, absence_limit=300.0, pause_after_voids=20, pause_seconds=30.0)
        """
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for name, var in _ENV.items():
            if env.get(var):
                kind = int if name in ("max_attempts", "queue_target", "pause_after_voids") else float
                try:
                    values[name] = kind(env[var])
                except ValueError:
                    raise ValueError(f"{var}={env[var]!r} is not a number") from None
        return cls(**values)

    def pause_policy(self) -> dict[str, Any]:
        """The keywords of :meth:`arena.store.store.Store.void` that pause a tournament
        whose matches keep being voided."""
        return {"pause_after": self.pause_after_voids, "pause_seconds": self.pause_seconds}

    def to_env(self) -> dict[str, str]:
        """The variables that reproduce these settings in another process."""
        return {var: str(getattr(self, name)) for name, var in _ENV.items()}


def owner_id(kind: str) -> str:
    """A lease owner: ``kind:host:pid`` (e.g. ``celery:w1:4242``, ``embedded:laptop:77``)."""
    return f"{kind}:{socket.gethostname()}:{os.getpid()}"


def owner_pid_alive(owner: str, kind: str = "embedded") -> bool | None:
    """For an owner ``kind:host:pid`` of this host: whether its process is alive;
    ``None`` for other kinds or hosts (nothing can be said from here)."""
    parts = owner.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != kind or parts[1] != socket.gethostname():
        return None
    try:
        pid = int(parts[2])
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def is_store_error(exc: BaseException) -> bool:
    """A database error worth retrying (connection lost, locked, timed out)."""
    from sqlalchemy.exc import DBAPIError, OperationalError, TimeoutError as PoolTimeout

    if isinstance(exc, (OperationalError, PoolTimeout)):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def with_store_retries(fn: Callable[[], T], *, seconds: float, what: str = "store call",
                       first_wait: float = 0.1, max_wait: float = 2.0) -> T:
    """``fn()``, retried with exponential backoff on store errors for up to
    ``seconds`` (then the last error is raised). Other errors raise at once."""
    end = time.monotonic() + seconds
    wait = first_wait
    while True:
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - filtered below
            if not is_store_error(exc) or time.monotonic() + wait > end:
                raise
            log.warning("%s failed (%s: %s); retrying in %.1f s", what, type(exc).__name__,
                        str(exc).splitlines()[0][:200], wait)
            time.sleep(wait)
            wait = min(max_wait, wait * 2)


def early_stop(store: Any, tournament_id: str) -> Callable[[], bool] | None:
    """A callable answering whether the tournament's format wants to stop early
    now (a gauntlet's SPRT), or ``None`` if it never does."""
    from arena.tournaments.config import parse_config
    from arena.tournaments.rounds import SprtCheck

    try:
        config = parse_config(dict(store.tournament(tournament_id).config), source="store")
    except Exception:  # noqa: BLE001 - stored without a usable file: no early stop
        return None
    check = SprtCheck.of(config)
    if check is None:
        return None
    # results only (sprt_results reads returns, entrants and tags): the records come
    # without their actions, so each check costs little beside the growing record count
    return lambda: check(store.records(tournament_id, actions=False)) is not None


class Heartbeat:
    """Renews every lease of ``owner`` every ``settings.heartbeat_seconds`` on a
    daemon thread while the context is open. Store errors are logged and retried
    at the next beat (the lease is long enough to miss a few)."""

    def __init__(self, store: Any, owner: str, settings: ConductorSettings) -> None:
        self.store, self.owner, self.settings = store, owner, settings
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.beats = 0

    def _run(self) -> None:
        while not self._stop.wait(self.settings.heartbeat_seconds):
            try:
                self.store.renew(self.owner, self.settings.lease_seconds)
                self.beats += 1
            except Exception as exc:  # noqa: BLE001 - retried at the next beat
                log.warning("heartbeat of %s failed: %s: %s", self.owner, type(exc).__name__,
                            str(exc).splitlines()[0][:200])

    def __enter__(self) -> Heartbeat:
        self._thread = threading.Thread(target=self._run, name=f"heartbeat-{self.owner}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)


class Dispatcher(Protocol):
    """How a conductor offers work to the workers (Celery: :class:`workers.dispatch.CeleryDispatcher`)."""

    def queued(self) -> int:
        """Offers waiting in the broker's queue now."""

    def offer(self, tournament_id: str, count: int) -> None:
        """Send ``count`` offers of work on ``tournament_id``."""


@dataclass
class PassReport:
    """What one pass did to one tournament."""

    tournament_id: str
    reopened: int = 0
    """Expired leases put back to pending."""
    lease_failed: int = 0
    """Expired leases that used the last attempt."""
    retried: int = 0
    """Failed matches re-opened for another attempt."""
    offered: int = 0
    added_round: int | None = None
    finished: str | None = None
    """``done`` or ``stopped`` if this pass finalized the tournament."""
    leasable: int = 0
    notes: list[str] = field(default_factory=list)


class _StoredSpecs(Sequence[MatchSpec]):
    """A tournament's stored specs, read from the store on first use."""

    def __init__(self, store: Any, tournament_id: str) -> None:
        self._store, self._tid = store, tournament_id
        self._specs: list[MatchSpec] | None = None

    def _all(self) -> list[MatchSpec]:
        if self._specs is None:
            self._specs = list(self._store.specs(self._tid))
        return self._specs

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, i: int) -> MatchSpec: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[MatchSpec]: ...
    def __getitem__(self, i: int | slice) -> MatchSpec | Sequence[MatchSpec]:
        return self._all()[i]


class Conductor:
    """One reconciliation mechanism for every executor (see the module docstring).

    :param store: the :class:`arena.store.Store`.
    :param dispatcher: where to offer playable work (``None``: the caller plays it,
        as the embedded executor does).
    :param dead_owners: decides whether a lease owner is known dead now (the
        embedded executor passes :func:`owner_pid_alive` for its own host's
        processes, so a rerun after ``kill -9`` takes their matches at once).
    :param presence: which remote bots are connected, for the formats that pair
        only those (:mod:`arena.tournaments.presence`; an embedded executor passes
        its router; default: the process's, from the environment).
    """

    def __init__(self, store: Any, dispatcher: Dispatcher | None = None,
                 settings: ConductorSettings | None = None, *,
                 dead_owner: Callable[[str], bool] | None = None,
                 presence: Presence | None = None) -> None:
        self.store = store
        self.dispatcher = dispatcher
        self.settings = settings or ConductorSettings.from_env()
        self.dead_owner = dead_owner
        self.presence = presence

    # -- one pass -------------------------------------------------------------------
    def reconcile(self, tournament_id: str | None = None) -> list[PassReport]:
        """One pass over one tournament (or every unfinished one); see the module
        docstring. Store errors propagate (the caller's loop retries the pass)."""
        if tournament_id is None:
            ids = [t.id for t in self.store.active_tournaments()]
        else:
            info = self.store.tournament(tournament_id)
            ids = [] if info.status in ("done", "stopped") else [tournament_id]
        reports = [self._tournament_pass(tid) for tid in ids]
        if self.dispatcher is not None:
            self._offer([r for r in reports if r.leasable and not r.finished])
            for r in reports:  # offered: the workers will play it
                if r.offered and self.store.tournament(r.tournament_id).status == "pending":
                    self.store.set_tournament_status(r.tournament_id, "running")
        return reports

    def _tournament_pass(self, tid: str) -> PassReport:
        s, store = self.settings, self.store
        rep = PassReport(tid)
        if self.dead_owner is not None:
            dead = [o for o in store.leased_owners(tid) if self.dead_owner(o)]
            if dead:
                n, f = store.expire_leases(tid, s.max_attempts, owners=dead)
                rep.reopened += n
                rep.lease_failed += f
        n, f = store.expire_leases(tid, s.max_attempts)
        rep.reopened += n
        rep.lease_failed += f
        rep.retried = store.reopen_failed(tid, s.max_attempts, s.retry_backoff)
        fmt, config = self._format(tid)
        if fmt is not None:
            reason = fmt.stop_early(store.records(tid))
            if reason is not None:
                rep.notes.append(reason)
                self._finalize(tid, "stopped", rep)
                return rep
        counts = store.status_counts(tid)
        if counts["pending"] or counts["leased"]:
            rep.leasable = store.leasable_count(tid)
            if counts["leased"] and store.tournament(tid).status == "pending":
                store.set_tournament_status(tid, "running")  # someone plays it
            return rep
        # the round is complete (everything done, or failed for good)
        if fmt is not None:
            nxt = self._next_round(tid, fmt, config)
            if nxt:
                rep.added_round = nxt[0].round
                rep.leasable = store.leasable_count(tid)
                return rep
            if nxt is not None:  # [] from next_round: nothing to add yet (a rate-limited ladder)
                return rep
        self._finalize(tid, "done", rep)
        return rep

    def _format(self, tid: str) -> tuple[Any, Any]:
        from arena.tournaments.config import parse_config
        from arena.tournaments.rounds import make_format

        try:
            config = parse_config(dict(self.store.tournament(tid).config), source=f"store:{tid}")
            return make_format(config, presence=self.presence), config
        except Exception as exc:  # noqa: BLE001 - a tournament stored without its file
            log.debug("tournament %s has no usable config: %s", tid, exc)
            return None, None

    def _next_round(self, tid: str, fmt: Any, config: Any) -> list[MatchSpec] | None:
        from arena.tournaments.rounds import TournamentView

        info = self.store.tournament(tid)
        # read only if the format looks (one-round formats never do: 1,200 specs
        # decoded for nothing were a third of a finishing pass)
        view = TournamentView(tid, config, info.round, _StoredSpecs(self.store, tid))
        nxt = fmt.next_round(view, self.store.records(tid))
        if not nxt:
            return None if nxt is None else []
        rnd = max(s.round for s in nxt)
        # only if nobody advanced the tournament since this pass read it (else [] : the
        # next pass looks again)
        if self.store.add_round(tid, nxt, after=info.round) is None:
            log.info("tournament %s: round %d was added by another pass", tid, rnd)
            return []
        log.info("tournament %s: round %d added (%d matches)", tid, rnd, len(nxt))
        return list(nxt)

    def _finalize(self, tid: str, status: str, rep: PassReport) -> None:
        from arena.tournaments.history import refresh_after

        # history first: whoever sets the final status finds it written
        refresh_after(self.store, tid)
        # done: only while nothing is pending or leased (another pass may have added a
        # round since this one looked); stopped: whatever is still out
        if self.store.finish_tournament(tid, status, idle=status == "done"):
            rep.finished = status
            log.info("tournament %s finished: %s", tid, status)

    def _offer(self, reports: list[PassReport]) -> None:
        assert self.dispatcher is not None
        if not reports:
            return
        room = self.settings.queue_target - self.dispatcher.queued()
        if room <= 0:
            return
        # share the room among the tournaments with work, at least one offer each
        per = max(1, room // len(reports))
        for rep in reports:
            count = min(per, max(1, math.ceil(rep.leasable / 4)))
            self.dispatcher.offer(rep.tournament_id, count)
            rep.offered = count

    # -- a loop ---------------------------------------------------------------------
    def run_forever(self, stop: threading.Event | None = None, *,
                    interval: float | None = None) -> None:
        """Passes every ``interval`` seconds (default: the settings') until ``stop``
        is set. A failing pass is logged and the next one starts over."""
        stop = stop or threading.Event()
        every = self.settings.interval if interval is None else interval
        while not stop.is_set():
            try:
                for rep in self.reconcile():
                    if rep.reopened or rep.lease_failed or rep.retried or rep.finished or rep.added_round:
                        log.info("conductor: %s", rep)
            except Exception as exc:  # noqa: BLE001 - the next pass starts over
                log.warning("conductor pass failed: %s: %s", type(exc).__name__,
                            str(exc).splitlines()[0][:300] if str(exc) else "")
            stop.wait(every)
