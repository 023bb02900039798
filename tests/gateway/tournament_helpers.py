"""Helpers of the AdminService tournament tests: a small calypso tournament file,
waiting for a tournament to finish over gRPC, and an SDK bot that counts its decisions."""

from __future__ import annotations

import time
from typing import Any

from arena.admin.v1 import admin_pb2 as S

from gateway.conftest import AUTH  # noqa: I001
from gateway.helpers import ROOT  # noqa: F401  (puts the SDK on sys.path)
from arenabot import RandomBot

CALYPSO = """
[tournament]
id = "{tid}"
name = "Calypso over gRPC"
game = "calypso"
format = "duplicate"
deals = {deals}
seed = 3
deadline_ms = 2000

[duplicate]
mode = "seats"
scoring = "matchpoints"

[[entrants]]
id = "{first}"
{first_kind} = "{first_bot}"

[[entrants]]
id = "rnd"
bot = "random"
"""


def calypso(tid: str, deals: int = 2, *, remote: str | None = None) -> str:
    if remote:
        return CALYPSO.format(tid=tid, deals=deals, first="mine", first_kind="remote", first_bot=remote)
    return CALYPSO.format(tid=tid, deals=deals, first="heur", first_kind="bot", first_bot="heuristic")


def wait_done(admin: Any, tid: str, timeout: float = 60.0) -> tuple[Any, list[int]]:
    """Poll GetTournament until DONE; returns the last reply and the progress seen."""
    seen: list[int] = []
    end = time.monotonic() + timeout
    while True:
        t = admin.GetTournament(S.GetTournamentRequest(tournament_id=tid), metadata=AUTH).tournament
        seen.append(t.matches_done)
        if t.status == S.TOURNAMENT_STATUS_DONE:
            return t, seen
        assert t.status in (S.TOURNAMENT_STATUS_PENDING, S.TOURNAMENT_STATUS_RUNNING), t
        assert not t.errors, t.errors
        assert time.monotonic() < end, f"not done after {timeout} s: {t}"
        time.sleep(0.1)


class CountingBot(RandomBot):
    """The SDK's random bot, counting the decisions it was asked for."""

    def __init__(self) -> None:
        super().__init__(seed=5)
        self.decisions = 0

    def decide(self, request):  # type: ignore[no-untyped-def]
        self.decisions += 1
        return super().decide(request)
