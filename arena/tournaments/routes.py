"""How an entrant reference reaches its bot: one :class:`Route` per reference kind.

A match spec's bot references are ``<kind>:<name>`` (:func:`arena.records.spec.parse_bot_ref`);
the kind names the route, the route makes the seat's agent and says where its matches
may be played. Everything that treats one kind of entrant differently (the runner, the
executors, the Celery dispatch) asks the route, so a new transport (a WebSocket bridge,
say) is one :class:`Route` in :data:`ROUTES` and its agent, nothing else:

========  ================================================  ========  =======  ===========
kind      agent                                             threaded  pinned   needs router
========  ================================================  ========  =======  ===========
builtin   :func:`arena.bots.make_bot`, seeded by the spec   no        no       no
remote    :class:`arena.remote.agent.RemoteAgent`, over     yes       no       yes
          the router given (else the process's Redis one)
bluechip  :func:`arena.bluechip.make_agent`, the team's     yes       yes      no
          robot at this process's Table Manager; played
          by :func:`arena.bluechip.run_match` (bridge only)
========  ================================================  ========  =======  ===========

*threaded*: played on a thread of the process that holds the route (the router, the
Table Manager's connections), not in a worker process of its own. *pinned*: only in
that process (never on Celery workers). *needs router*: a
:class:`~arena.remote.router.DecisionRouter` must be there.

>>> route("remote:alice").threaded, route("builtin:random").threaded
(True, False)
>>> route("websocket:bob")
Traceback (most recent call last):
...
ValueError: bot reference 'websocket:bob': unknown kind 'websocket'; known: builtin, remote, bluechip
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from arena.bots import make_bot
from arena.match.agent import Agent
from arena.records.spec import MatchSpec, parse_bot_ref

__all__ = ["ROUTES", "Route", "default_router", "route", "routes_of"]

AgentMaker = Callable[[MatchSpec, int, str, Any], Agent]
"""``(spec, seat, name, router) -> agent``: the agent of the seat whose reference names
``name`` (``router``: the caller's :class:`~arena.remote.router.DecisionRouter` or None)."""


@dataclass(frozen=True)
class Route:
    """One kind of entrant reference (module docstring)."""

    kind: str
    make_agent: AgentMaker
    threaded: bool = False
    pinned: bool = False
    needs_router: bool = False
    games: tuple[str, ...] = ()
    """The games it can play (empty: every one)."""
    referee: Callable[..., Any] | None = None
    """The match runner when not :func:`arena.match.referee.run_match` (same signature)."""


def bot_seed(spec: MatchSpec, seat: int) -> str:
    """Seed of the built-in bot at ``seat``: stable for a given spec."""
    return f"{spec.match_id}|{seat}|{spec.entrants[seat] if seat < len(spec.entrants) else ''}"


def _builtin(spec: MatchSpec, seat: int, name: str, router: Any) -> Agent:
    return make_bot(spec.game, name, seed=bot_seed(spec, seat))


def _remote(spec: MatchSpec, seat: int, name: str, router: Any) -> Agent:
    from arena.remote.agent import RemoteAgent

    return RemoteAgent(name, router if router is not None else default_router(),
                       default_deadline_ms=spec.deadline_ms)


def _bluechip(spec: MatchSpec, seat: int, name: str, router: Any) -> Agent:
    from arena.bluechip import make_agent

    # the entrant at the next seat: the other side's name a Blue Chip robot is told
    opponents = spec.entrants[(seat + 1) % len(spec.entrants)] if spec.entrants else ""
    return make_agent(name, seat, opponents=opponents)


def _bluechip_referee(*args: Any, **kwargs: Any) -> Any:
    from arena.bluechip import run_match  # the TM relays every call and card: the observing referee

    return run_match(*args, **kwargs)


ROUTES: dict[str, Route] = {r.kind: r for r in (
    Route("builtin", _builtin),
    Route("remote", _remote, threaded=True, needs_router=True),
    Route("bluechip", _bluechip, threaded=True, pinned=True, games=("bridge",), referee=_bluechip_referee),
)}
"""Every route, by the kind of reference it serves."""


def route(ref: str) -> Route:
    """The route of a bot reference.

    :raises ValueError: for a malformed reference or an unknown kind.
    """
    kind, _ = parse_bot_ref(ref)
    try:
        return ROUTES[kind]
    except KeyError:
        raise ValueError(f"bot reference {ref!r}: unknown kind {kind!r}; known: "
                         f"{', '.join(ROUTES)}") from None


def routes_of(refs: Iterable[str]) -> list[Route]:
    """The routes of ``refs``, once each, in order."""
    out: list[Route] = []
    for ref in refs:
        r = route(ref)
        if r not in out:
            out.append(r)
    return out


_router_lock = threading.Lock()
_default_router: Any = None
_default_router_pid = 0


def default_router() -> Any:
    """A :class:`~arena.remote.redis_router.RedisRouter` on ``$ARENA_REDIS_URL``
    (default ``redis://127.0.0.1:6379/0``), one per process (made anew after a fork: it
    holds no gRPC object)."""
    global _default_router, _default_router_pid
    with _router_lock:
        if _default_router is None or _default_router_pid != os.getpid():
            from arena.remote.redis_router import RedisRouter

            _default_router = RedisRouter(os.environ.get("ARENA_REDIS_URL", "redis://127.0.0.1:6379/0"))
            _default_router_pid = os.getpid()
        return _default_router
