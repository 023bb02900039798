"""Deterministic SDK bots for the session tests, run as real processes
(``python -m arenabot --bot gateway.session_bots:NAME``; ``tests/`` on the path).

``ARENA_TEST_THINK_MS`` sets their thinking time (default 0)."""

from __future__ import annotations

import os
import time

from arenabot import Bot
from arenabot.wire import bot_pb2

THINK = float(os.environ.get("ARENA_TEST_THINK_MS", "0")) / 1000.0


class FirstLegal(Bot):
    """Thinks ``THINK`` seconds, then plays the first legal action (blocking: one at a time)."""

    name = "first-legal"

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        if THINK:
            time.sleep(THINK)
        first = request.legal_actions[0]
        return first.id if first.HasField("id") else first.text


class MalformedFirst(FirstLegal):
    """Answers every first attempt with an empty action text (a malformed Decision),
    then the first legal action: it relies on the new DecisionRequest bot.proto promises."""

    name = "malformed-first"

    def decide(self, request: bot_pb2.DecisionRequest) -> int | str:
        if request.attempt == 1:
            return ""
        return super().decide(request)
