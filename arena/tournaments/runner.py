"""Playing one :class:`~arena.records.spec.MatchSpec`: the function every
executor calls (embedded processes, Celery tasks, gateway threads).

:func:`play_spec` builds the game from the spec (game, preset, options), one agent
per seat and runs :func:`arena.match.referee.run_match` with the spec's seed,
``init`` and deadline. The spec's placement (tournament, index, deal, rotation,
table, entrants, bot references) goes into ``record.tags``; ``record.seats`` holds
the entrant at each seat.

Agents
------
Each seat's bot reference names its route (:mod:`arena.tournaments.routes`): a
built-in bot seeded from the spec (:func:`~arena.tournaments.routes.bot_seed`: match
id, seat and entrant, so the same spec always gives the same record, apart from
timings), a remote bot over the router given (else the process's Redis router), or a
Blue Chip robot at this process's Table Manager, whose match the route's own referee
plays (:func:`arena.bluechip.run_match`, which relays every call and card).
"""

from __future__ import annotations

from typing import Any

from arena.bots.base import Agent
from arena.games import get_game
from arena.match.referee import run_match
from arena.records.record import MatchRecord
from arena.records.spec import MatchSpec, parse_bot_ref
from arena.tournaments.routes import route, routes_of

__all__ = ["play_spec", "build_game", "build_agents", "spec_tags", "remote_bots", "offline_bots",
           "check_presence", "forfeit_record", "in_process", "PLAY", "DEFERRED", "FORFEIT"]


def build_game(spec: MatchSpec) -> Any:
    """The spec's game with its preset and options.

    :raises ValueError: for an unknown game, preset or option.
    """
    options = dict(spec.options)
    if spec.preset:
        options["preset"] = spec.preset
    return get_game(spec.game, **options)


def build_agents(spec: MatchSpec, *, router: Any = None) -> list[Agent]:
    """One agent per seat, each made by its reference's route (see the module docstring).

    :raises ValueError: for a bad bot reference or an unknown built-in bot.
    """
    return [route(ref).make_agent(spec, seat, parse_bot_ref(ref)[1], router)
            for seat, ref in enumerate(spec.bots)]


def remote_bots(spec: MatchSpec) -> list[str]:
    """The ids of a spec's bots behind a router (remote bots, whose presence the router
    knows), once each, in seat order."""
    out: list[str] = []
    for ref in spec.bots:
        name = parse_bot_ref(ref)[1]
        if route(ref).needs_router and name not in out:
            out.append(name)
    return out


def offline_bots(spec: MatchSpec, router: Any) -> list[str]:
    """The spec's remote bots that have no stream to a gateway now, including bots
    between streams in their reconnection grace period (their requests in flight are
    held for them, but no new match starts: it is deferred). A router without
    ``is_streaming`` is asked ``is_connected``."""
    streaming = getattr(router, "is_streaming", router.is_connected)
    return [b for b in remote_bots(spec) if not streaming(b)]


PLAY, DEFERRED, FORFEIT = "play", "deferred", "forfeit"
"""The verdicts of :func:`check_presence`."""


def check_presence(store: Any, spec: MatchSpec, owner: str, router: Any, settings: Any
                   ) -> tuple[str, list[str]]:
    """Whether a leased spec's remote bots are here to play it: ``(verdict, absent)``.

    * :data:`PLAY`: every remote bot has a stream (or the spec has none);
    * :data:`DEFERRED`: a registered remote bot is offline: the lease was given back
      (playable again after a heartbeat, the attempt not counted);
    * :data:`FORFEIT`: ``absent`` (bot ids) have been offline for
      ``settings.absence_limit`` seconds: the caller stores :func:`forfeit_record`
      instead of playing the match.

    A bot is absent for the limit when this match has been deferred that long (from
    its first deferral; a void forgets it) **and**, where the router can tell
    (``offline_seconds``: the Redis route reads when the bot's gateway last saw it
    streaming), the bot has had no stream that long without a break. A router that
    cannot be asked raises :class:`~arena.bots.base.RouteFailure`: a platform fault
    (the caller voids the match), never the bot's absence.
    """
    from arena.store.models import utcnow

    offline = offline_bots(spec, router) if remote_bots(spec) else []
    if not offline:
        return PLAY, []
    since = store.deferred_since(spec.match_id)
    waited = 0.0 if since is None else (utcnow() - since).total_seconds()
    if waited >= settings.absence_limit:
        seconds = getattr(router, "offline_seconds", None)
        absent = []
        for bot in offline:
            gone = seconds(bot) if seconds is not None else None
            if gone is None or gone >= settings.absence_limit:
                absent.append(bot)
        if absent:
            return FORFEIT, absent
    store.defer(spec.match_id, owner, settings.heartbeat_seconds,
                f"deferred: {', '.join(offline)} offline (absence limit {settings.absence_limit:.0f} s)")
    return DEFERRED, offline


def forfeit_record(spec: MatchSpec, absent: list[str], absence_limit: float) -> MatchRecord:
    """The record of a match not played because remote bots stayed offline beyond
    the absence limit: no deal, no actions and no returns (nothing is scored or
    rated; standings list it under ``details["forfeits"]``), ``terminal`` false, an
    ``absent`` fault for each seat of an absent bot, and ``tags["forfeit"]``:
    ``{"absent": [entrants], "bots": [bot ids], "reason": ...}``."""
    from datetime import datetime, timezone

    from arena.records.record import Fault

    reason = f"absent: offline for more than the absence limit ({absence_limit:.0f} s); forfeit"
    seats = [i for i, ref in enumerate(spec.bots)
             if route(ref).needs_router and parse_bot_ref(ref)[1] in absent]
    entrants = [spec.entrants[i] for i in seats if i < len(spec.entrants)]
    tags = spec_tags(spec)
    tags["forfeit"] = {"absent": sorted(set(entrants)), "bots": list(absent), "reason": reason}
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return MatchRecord(
        match_id=spec.match_id, game=spec.game, ruleset=build_game(spec).ruleset, preset=spec.preset,
        options=dict(spec.options), init=dict(spec.init), seed=spec.seed, decks=[],
        seats=list(spec.entrants) or [parse_bot_ref(r)[1] for r in spec.bots],
        faults=[Fault(seat=i, step=0, kind="absent", reason=reason) for i in seats],
        terminal=False, started_at=now, finished_at=now, tags=tags)


def in_process(spec: MatchSpec) -> bool:
    """Whether the spec must be played in the process that holds its bots' connections
    (a *pinned* route: Blue Chip robots at this process's Table Manager)."""
    return any(r.pinned for r in routes_of(spec.bots))


def spec_tags(spec: MatchSpec) -> dict[str, Any]:
    """The tags a record of ``spec`` carries."""
    tags = dict(spec.tags)
    tags.update(tournament_id=spec.tournament_id, index=spec.index, deal=spec.deal,
                rotation=spec.rotation, table=spec.table, entrants=list(spec.entrants),
                bots=list(spec.bots))
    return tags


def play_spec(spec: MatchSpec, *, router: Any = None,
              max_retries: int | None = None) -> MatchRecord:
    """Play ``spec`` to its end and return its record (deterministic for built-in bots).

    :param router: a :class:`~arena.remote.router.DecisionRouter` for ``remote:`` bots.
    :raises ValueError: for an invalid spec (game, preset, option or bot reference).
    """
    game = build_game(spec)
    if len(spec.bots) != game.num_players:
        raise ValueError(f"spec {spec.match_id}: {spec.game} needs {game.num_players} bots, "
                         f"got {len(spec.bots)}")
    agents = build_agents(spec, router=router)
    referees = [r.referee for r in routes_of(spec.bots) if r.referee is not None]
    play = referees[0] if referees else run_match
    try:
        result = play(game, agents, seed=spec.seed, init=dict(spec.init), match_id=spec.match_id,
                           bot_names=list(spec.entrants), deadline_ms=spec.deadline_ms,
                           max_retries=spec.max_retries if max_retries is None else max_retries,
                           tags=spec_tags(spec))
    finally:
        for agent in agents:
            try:
                agent.close()
            except Exception:  # noqa: BLE001 - closing never fails a finished match
                pass
    return result.record
