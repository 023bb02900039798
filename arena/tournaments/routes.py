"""How an entrant reference reaches its bot: one :class:`Route` per reference kind.

A match spec's bot references are ``<kind>:<name>`` (:func:`arena.records.spec.parse_bot_ref`);
the kind names the route, the route makes the seat's agent and says where its matches
may be played. Everything that treats one kind of entrant differently (the runner, the
executors, the Celery dispatch, a tournament file's ``[[entrants]]`` keys) asks the
route, so a new transport (a WebSocket bridge, say) is one :class:`Route` in
:data:`ROUTES` and its agent, nothing else (``tests/tournaments/test_new_route.py``
plays one):

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
    entrant_key: str = ""
    """The ``[[entrants]]`` key that names an entrant of this kind in a tournament file
    (``remote = "alice"``); empty: the kind itself. Built-in bots' is ``bot``."""
    entrant_hint: str = "<name>"
    """What the key's value is, for the file's error messages (``<bot id>``)."""
    players: str = ""
    """What its entrants are called in an error (``Blue Chip robots``); empty: ``<kind> entrants``."""
    check_name: Callable[[str], str] | None = None
    """The name a tournament file gives, checked and normalised (``remote:alice`` ->
    ``alice``); raises :class:`ValueError` with the reason. None: any non-empty name."""

    @property
    def key(self) -> str:
        """The ``[[entrants]]`` key of this kind (:attr:`entrant_key`, else the kind)."""
        return self.entrant_key or self.kind

    def entrant_ref(self, name: str) -> str:
        """The bot reference of an entrant a tournament file names ``name`` (checked by
        :attr:`check_name`): ``<kind>:<name>``.

        :raises ValueError: the reason the name is refused.
        """
        if self.check_name is not None:
            name = self.check_name(name)
        elif not name:
            raise ValueError("must not be empty")
        return f"{self.kind}:{name}"


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


def _remote_name(name: str) -> str:
    name = name.removeprefix("remote:")
    if not name:
        raise ValueError("must name a bot id")
    return name


def _team_name(name: str) -> str:
    if not name or '"' in name:
        raise ValueError("must name the robots' team (no double quotes)")
    return name


def _bluechip_referee(*args: Any, **kwargs: Any) -> Any:
    from arena.bluechip import run_match  # the TM relays every call and card: the observing referee

    return run_match(*args, **kwargs)


ROUTES: dict[str, Route] = {r.kind: r for r in (
    Route("builtin", _builtin, entrant_key="bot", entrant_hint="<built-in name>"),
    Route("remote", _remote, threaded=True, needs_router=True, entrant_hint="<bot id>",
          check_name=_remote_name),
    Route("bluechip", _bluechip, threaded=True, pinned=True, games=("bridge",), referee=_bluechip_referee,
          entrant_hint="<team>", players="Blue Chip robots", check_name=_team_name),
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
