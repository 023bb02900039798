"""The referee's agent for a bot connected to a gateway.

:class:`RemoteAgent` turns each ``act(observation, legal_actions)`` into a
``DecisionRequest`` (the seat's observation converted by :mod:`arena.remote.convert`,
the legal actions with ids and texts), sends it through a
:class:`~arena.remote.router.DecisionRouter` and waits until the decision's
deadline. ``deadline_ms`` (from :class:`~arena.bots.base.MatchInfo`) covers the
decision including retries, counted as the bot's time: from each request's write
to the bot's stream to its answer (the router's ``decide_timed``), so time spent
queued at the gateway behind the bot's other requests is not charged. The agent
enforces the deadline itself (:attr:`enforces_deadline`); :attr:`last_thinking_ms`
is the bot's own time on the last decision (the record's ``ms`` stays the
referee's measure of the round trip).

* no answer in time -> :class:`~arena.bots.base.DecisionTimeout`;
* bot not connected, or it disconnects while a request is open ->
  :class:`~arena.bots.base.AgentFailure`;
* ``action_refused`` sends the bot a ``DecisionError`` with the referee's reason;
  if a retry is allowed the next ``act`` sends a new request (``attempt`` + 1)
  with the time left. The reason is cut to
  :data:`~arena.match.referee.MAX_REASON_CHARS` characters.

Use one RemoteAgent per seat (the seat of a request is taken from the
observation's ``seat`` field when it has one, else from ``start_match``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from arena.bot.v1 import bot_pb2
from arena.remote import convert
from arena.match.agent import Agent, AgentFailure, DecisionTimeout, MatchInfo
from arena.core.state import Action, SeatIndex
from arena.match.referee import bounded
from arena.remote.router import DecisionRouter

__all__ = ["RemoteAgent"]


_REFUSAL_CODES = {
    "invalid": bot_pb2.DECISION_ERROR_CODE_INVALID_ACTION,
    "ambiguous": bot_pb2.DECISION_ERROR_CODE_AMBIGUOUS_ACTION,
    "illegal": bot_pb2.DECISION_ERROR_CODE_ILLEGAL_ACTION,
}
"""The referee's refusal kinds as wire codes."""


class RemoteAgent(Agent):
    """An :class:`~arena.bots.base.Agent` played by a remote bot."""

    enforces_deadline = True
    """The referee does not time this agent's answers itself (see the module docstring)."""

    def __init__(self, bot_id: str, router: DecisionRouter, *, name: str | None = None,
                 default_deadline_ms: float = 10_000.0) -> None:
        self.bot_id = bot_id
        self.router = router
        self.name = name or bot_id
        self._deadline_s = default_deadline_ms / 1000.0
        self._info: MatchInfo = MatchInfo()
        self._retrying = False
        self._used = 0.0
        """Seconds of this decision's deadline the bot has used (earlier attempts)."""
        self._attempt = 0
        self.last_thinking_ms = 0.0
        """The bot's time on the last decision, all attempts (ms)."""
        self._last_request_id = 0

    def start_match(self, info: MatchInfo) -> None:
        self._info = info
        self._deadline_s = float(info.get("deadline_ms", self._deadline_s * 1000.0)) / 1000.0
        self._retrying = False
        try:
            options = json.dumps(info.get("options", {}), sort_keys=True, default=str)
        except (TypeError, ValueError):
            options = "{}"
        self.router.notify(self.bot_id, bot_pb2.ArenaMessage(match_started=bot_pb2.MatchStarted(
            match_id=str(info.get("match_id", "")), game=str(info.get("game", "")),
            ruleset=str(info.get("ruleset", "")), seat=int(info.get("seat", 0)),
            num_players=int(info.get("num_players", 0)),
            deadline_ms=max(1, int(self._deadline_s * 1000)), options_json=options)))

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        if self._retrying:
            self._attempt += 1
        else:
            self._used = 0.0
            self._attempt = 1
        self._retrying = False
        remaining = self._deadline_s - self._used
        if remaining <= 0.001:
            raise DecisionTimeout("no time left for this decision")
        texts = getattr(legal_actions, "texts", None)
        if texts is None:
            texts = [str(a) for a in legal_actions]
        game = str(self._info.get("game", ""))
        seat = getattr(observation, "seat", self._info.get("seat", 0))
        request = bot_pb2.DecisionRequest(
            match_id=str(self._info.get("match_id", "")), game=game,
            ruleset=str(self._info.get("ruleset", "")), seat=int(seat), attempt=self._attempt)
        convert.add_legal_actions(request, legal_actions, texts)
        convert.set_observation(request, game, observation)
        try:
            decision, thinking = self.router.decide_timed(self.bot_id, request, remaining)
        except DecisionTimeout:
            self._used = self._deadline_s
            self.last_thinking_ms = self._deadline_s * 1000.0
            raise
        self._used += thinking
        self.last_thinking_ms = self._used * 1000.0
        self._last_request_id = decision.request_id
        action = convert.decision_action(decision)
        if action is None:  # the gateway refuses these; never expected here
            raise AgentFailure("the bot's decision carries no action")
        return action

    def action_refused(self, reason: str, retry_allowed: bool, kind: str = "illegal") -> None:
        self._retrying = retry_allowed
        code = _REFUSAL_CODES.get(kind, bot_pb2.DECISION_ERROR_CODE_ILLEGAL_ACTION)
        self.router.notify(self.bot_id, bot_pb2.ArenaMessage(decision_error=bot_pb2.DecisionError(
            request_id=self._last_request_id, code=code, reason=bounded(reason),
            retry_allowed=retry_allowed)))

    def end_match(self, seat: SeatIndex, returns: Sequence[float]) -> None:
        self.router.notify(self.bot_id, bot_pb2.ArenaMessage(match_ended=bot_pb2.MatchEnded(
            match_id=str(self._info.get("match_id", "")), seat=int(seat),
            result=float(returns[seat]) if 0 <= seat < len(returns) else 0.0,
            returns=[float(r) for r in returns])))
