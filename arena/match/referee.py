"""The referee: plays one match between agents and writes its record.

The referee drives the engine (``current_player`` -> ``observation`` -> the
agent's ``act`` -> ``validate`` -> ``apply_action``) and adjudicates everything
the rules do not cover. The engine only raises; the policy lives here.

Illegal-action policy
---------------------
* An answer that cannot be read (:class:`InvalidActionError`) or that the rules
  forbid (:class:`IllegalActionError`) is refused: the agent is told the precise
  reason through ``action_refused(reason, retry_allowed)`` and asked again, at most
  ``max_retries`` more times and only while the decision's deadline has not passed.
  ``max_retries`` is the game's when its rules say (``Game.max_retries``: rummy and
  auction 0, a refused play or bid counts as a pass at once), else
  :data:`DEFAULT_MAX_RETRIES`; ``run_match(max_retries=N)`` overrides both (a
  tournament's setting).
* Text that came from the agent (its answer, a reason quoting it) is cut to
  :data:`MAX_REASON_CHARS` characters in faults and refusals (:func:`bounded`).
* When no legal answer came (refusals exhausted, deadline passed, the agent raised
  :class:`DecisionTimeout`, crashed or is gone) the referee applies the game's
  ``default_action()`` (bridge: Pass in the auction, the lowest legal card in
  play; each engine documents its own).
* An agent that raised :class:`AgentFailure` is *absent* for the rest of the
  match: it is not asked again and every one of its decisions is defaulted.
* Every adjudicated decision is recorded as a :class:`~arena.records.record.Fault`
  with its kind and reason; the match always runs to its end -- except when the
  platform fails (:class:`~arena.bots.base.RouteFailure`: the gateway gone, the
  route to it lost): that is never the bot's fault, so the referee raises it and
  the match is void; its runner replays it from its seed
  (:mod:`arena.tournaments.executors`, :mod:`workers.tasks`).
* A search bot (one with ``bind_information_set``) is handed the seat's information
  set (:class:`~arena.match.infoset.InformationSet`, never the state) before each
  decision. The referee builds it: an error there is the platform's and is raised,
  never put on the bot; an error of the bot's ``bind_information_set`` is recorded as
  an ``exception`` fault and the bot is asked all the same (it plays its fallback).

Forced actions
--------------
When a game with enumerable actions has exactly one legal action, it is applied
without asking the agent (bridge: "when the hand to play has exactly one legal
card, the engine plays it without asking"). Nothing a bot receives tells it so:
the other seats see the action as any other. Compound games list only a subset
of their legal actions, so their agents are always asked.

Deadlines
---------
``deadline_ms`` is the time allowed per decision, retries included. Remote agents
enforce it themselves (``enforces_deadline``: they raise :class:`DecisionTimeout`,
and count only the bot's own time, not the time a request waited at the gateway
behind the bot's other requests), so the referee does not discard their answers as
late; an in-process agent cannot be interrupted, so an answer that arrives after
the deadline is discarded as ``late`` and the default is applied. The recorded
``ms`` is always the referee's own measure of the decision (the whole round trip).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from arena.match.agent import Agent, AgentFailure, DecisionTimeout, LegalActions, MatchInfo, RouteFailure
from arena.core.errors import AmbiguousActionError, IllegalActionError, InvalidActionError
from arena.core.state import Action, Game, State
from arena.match.infoset import InformationSet
from arena.records.record import ActionEntry, Fault, MatchRecord

__all__ = ["MatchResult", "run_match", "DEFAULT_DEADLINE_MS", "DEFAULT_MAX_RETRIES", "MAX_REASON_CHARS",
           "bounded"]

DEFAULT_DEADLINE_MS = 10_000.0
"""Default time per decision, in milliseconds."""
DEFAULT_MAX_RETRIES = 2
"""Default number of further attempts after a refused action (games may say otherwise)."""
MAX_REASON_CHARS = 256
"""Longest agent-provided text kept in a fault or sent back in a refusal."""


@dataclass
class MatchResult:
    """The record of a match and its final state (the state is not serialized)."""

    record: MatchRecord
    state: State


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def bounded(text: str, limit: int = MAX_REASON_CHARS) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis.

    >>> len(bounded("x" * 900_000)), bounded("x" * 900_000)[-2:], bounded("QS is not in your hand")
    (256, 'x…', 'QS is not in your hand')
    """
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _short(value: Any) -> str:
    return bounded(value if isinstance(value, str) else repr(value))


def _resolve(state: State, answer: Any) -> Action:
    """The agent's answer as an action: text is parsed, anything else validated as is."""
    if isinstance(answer, str):
        return state.string_to_action(answer)
    return cast(Action, answer)


def run_match(game: Game, agents: Sequence[Agent], *, seed: int | str | None = None,
              decks: Sequence[Sequence[str]] | None = None, init: dict[str, Any] | None = None,
              match_id: str = "match", bot_names: Sequence[str] | None = None,
              deadline_ms: float = DEFAULT_DEADLINE_MS, max_retries: int | None = None,
              tags: dict[str, Any] | None = None,
              clock: Callable[[], float] = time.monotonic) -> MatchResult:
    """Play one match to its end and return its record and final state.

    :param agents: one agent per seat (the same object may sit at several seats).
    :param seed: match seed; ``decks`` stacks realized shuffles instead (replays).
    :param init: extra arguments of ``new_initial_state`` (bridge: ``board``).
    :param max_retries: further attempts after a refused action; ``None``: the
        game's rule (``game.max_retries``), else :data:`DEFAULT_MAX_RETRIES`.
    :raises ValueError: if the number of agents does not match the seats.
    """
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{game.name} needs {n} agents, got {len(agents)}")
    names = list(bot_names) if bot_names is not None else [getattr(a, "name", "agent") for a in agents]
    init = dict(init or {})
    state = game.new_initial_state(seed=seed, decks=decks, **init)
    record = MatchRecord(match_id=match_id, game=game.name, ruleset=game.ruleset, preset=game.preset,
                         options=dict(game.options), init=init, seed=seed, decks=[], seats=names,
                         tags=dict(tags or {}), started_at=_now())
    absent: set[int] = set()
    for seat, agent in enumerate(agents):
        info = MatchInfo(game=game.name, ruleset=game.ruleset, seat=seat, num_players=n,
                         match_id=match_id, options=dict(game.options), deadline_ms=deadline_ms)
        try:
            agent.start_match(info)
        except RouteFailure:
            raise  # the platform failed, not the bot: the match is void (replayed by its runner)
        except Exception as exc:  # noqa: BLE001 - any agent failure is adjudicated
            absent.add(seat)
            record.faults.append(Fault(seat, 0, "crash", f"start_match failed: {exc}"))
    limit = deadline_ms / 1000.0
    if max_retries is None:
        rule = getattr(game, "max_retries", None)
        max_retries = DEFAULT_MAX_RETRIES if rule is None else int(rule)
    enumerable = game.action_space_size is not None
    while not state.is_terminal():
        seat = state.current_player()
        step = len(record.actions)
        forced = enumerable and len(state.legal_actions()) == 1
        if forced:
            action, ms, defaulted = state.legal_actions()[0], 0.0, False
        else:
            action, ms, defaulted = _decide(state, agents[seat], seat, step, absent, record,
                                            limit, max_retries, clock)
        entry = ActionEntry(seat=seat, action=state.action_to_string(action),
                            id=action if type(action) is int else None,
                            ms=round(ms, 3), default=defaulted, forced=forced)
        state.apply_action(action)
        record.actions.append(entry)
    record.returns = [float(r) for r in state.returns()]
    if game.own_points():  # canasta: the points each side made, beside the ranking
        record.points = [float(x) for x in game.match_points(state)]
    record.terminal = True
    record.decks = [list(d) for d in state.dealer.realized]
    record.finished_at = _now()
    for seat, agent in enumerate(agents):
        if seat in absent:
            continue
        try:
            agent.end_match(seat, record.returns)
        except Exception:  # noqa: BLE001 - the result stands whatever the agent does
            pass
    return MatchResult(record, state)


def _decide(state: State, agent: Agent, seat: int, step: int, absent: set[int],
            record: MatchRecord, limit: float, max_retries: int,
            clock: Callable[[], float]) -> tuple[Action, float, bool]:
    """One decision: (action, thinking ms, whether the default was applied)."""
    if seat in absent:
        record.faults.append(Fault(seat, step, "absent", "agent is gone; default applied"))
        return state.default_action(), 0.0, True
    obs = state.observation(seat)
    legal = LegalActions(state.legal_actions(), state.action_to_string)
    start = clock()
    bind = getattr(agent, "bind_information_set", None)
    if callable(bind):  # search bots: the seat's information set, never the state
        infoset = InformationSet(state, seat)  # the platform's: an error here is not the bot's
        try:
            bind(infoset)
        except Exception as exc:  # noqa: BLE001 - a buggy bot must not stop the match
            record.faults.append(Fault(seat, step, "exception",
                                       bounded(f"bind_information_set: {type(exc).__name__}: {exc}")))
    refusals = 0
    timed_by_agent = bool(getattr(agent, "enforces_deadline", False))
    while True:
        try:
            answer = agent.act(obs, legal)
        except DecisionTimeout as exc:
            record.faults.append(Fault(seat, step, "timeout",
                                       bounded(str(exc) or "no answer before the deadline")))
            break
        except RouteFailure:
            raise  # the platform failed, not the bot: the match is void (replayed by its runner)
        except AgentFailure as exc:
            absent.add(seat)
            record.faults.append(Fault(seat, step, "crash", bounded(str(exc) or "agent failed")))
            break
        except Exception as exc:  # noqa: BLE001 - a buggy bot must not stop the match
            record.faults.append(Fault(seat, step, "exception", bounded(f"{type(exc).__name__}: {exc}")))
            break
        elapsed = clock() - start
        if elapsed > limit and not timed_by_agent:
            record.faults.append(Fault(seat, step, "late",
                                       f"answered after {elapsed * 1000:.0f} ms; deadline "
                                       f"{limit * 1000:.0f} ms", _short(answer)))
            break
        try:
            action = _resolve(state, answer)
            state.validate(action)
        except (InvalidActionError, IllegalActionError) as exc:
            kind = ("illegal" if isinstance(exc, IllegalActionError)
                    else "ambiguous" if isinstance(exc, AmbiguousActionError) else "invalid")
            reason = exc.reason
        except Exception as exc:  # noqa: BLE001 - e.g. an unhashable or odd answer
            kind, reason = "invalid", f"unusable answer: {type(exc).__name__}: {exc}"
        else:
            return action, elapsed * 1000.0, False
        reason = bounded(reason)
        refusals += 1
        retry = refusals <= max_retries and (timed_by_agent or clock() - start < limit)
        record.faults.append(Fault(seat, step, kind, reason, _short(answer)))
        try:
            agent.action_refused(reason, retry, kind)
        except Exception:  # noqa: BLE001 - a failing notification ends the retries
            retry = False
        if not retry:
            break
    return state.default_action(), (clock() - start) * 1000.0, True
