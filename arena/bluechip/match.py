"""Entrants and a two-room team match with Blue Chip robots among them.

An entrant is ``bluechip:TEAM`` (the robots of team TEAM seated at the host) or the
name of a built-in bot. :func:`team_match` plays each board twice, team A N-S in
the open room and E-W in the closed room, on the seeds :mod:`arena.match.evaluate`
uses (``derive_seed(seed, "deal", i)``, board ``i + 1``), and returns both records
of every board; the IMPs are ``imps(ns_open - ns_closed)`` from team A's side.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.bluechip.host import BlueChipHost
from arena.bluechip.observe import run_match
from arena.bluechip.seat import BlueChipAgent
from arena.bots import make_bot
from arena.bots.base import Agent
from arena.core.dealing import derive_seed
from arena.games import get_game
from arena.games.bridge.scoring import imps
from arena.records.record import MatchRecord

__all__ = ["PREFIX", "bluechip_team", "make_entrant", "BoardResult", "team_match"]

PREFIX = "bluechip:"
"""Prefix of a Blue Chip entrant reference (``bluechip:BEN``)."""


def bluechip_team(entrant: str) -> str | None:
    """The team of a ``bluechip:TEAM`` reference, else ``None``.

    >>> bluechip_team("bluechip:BEN"), bluechip_team("heuristic")
    ('BEN', None)
    """
    return entrant[len(PREFIX):] if entrant.startswith(PREFIX) else None


def make_entrant(entrant: str, seat: int, *, host: BlueChipHost | None, seed: int | str = 0,
                 opponents: str | None = None) -> Agent:
    """The agent of ``entrant`` at ``seat``: a :class:`BlueChipAgent` or a built-in bot.

    :raises ValueError: for a Blue Chip entrant without a host, or an unknown bot.
    """
    team = bluechip_team(entrant)
    if team is None:
        return make_bot("bridge", entrant, seed=seed)
    if host is None:
        raise ValueError(f"{entrant}: Blue Chip entrants need a running host")
    return BlueChipAgent(host, team, seat, opponents=opponents)


@dataclass
class BoardResult:
    """Both rooms of one board; ``imps`` from team A's side."""

    board: int
    open: MatchRecord
    closed: MatchRecord
    imps: int


def team_match(team_a: str, team_b: str, *, boards: int, seed: int | str = 1,
               host: BlueChipHost | None = None, deadline_ms: float = 10_000.0,
               match_prefix: str = "bluechip",
               on_board: Callable[[BoardResult], None] | None = None) -> list[BoardResult]:
    """A two-room team match of ``boards`` boards between two entrants."""
    game = get_game("bridge")
    names = {team_a: bluechip_team(team_a) or team_a, team_b: bluechip_team(team_b) or team_b}
    results = []
    for i in range(boards):
        deal_seed = derive_seed(seed, "deal", i)
        rooms = []
        for room, (ns, ew) in enumerate(((team_a, team_b), (team_b, team_a))):
            entrants = [ns, ew, ns, ew]
            agents = [make_entrant(e, s, host=host, seed=derive_seed(seed, "bot", i, room, s),
                                   opponents=names[ew if s % 2 == 0 else ns])
                      for s, e in enumerate(entrants)]
            result = run_match(game, agents, seed=deal_seed, init={"board": i + 1},
                               match_id=f"{match_prefix}-{i + 1}-{'open' if room == 0 else 'closed'}",
                               bot_names=entrants, deadline_ms=deadline_ms)
            rooms.append(result.record)
        margin = int(rooms[0].returns[0] - rooms[1].returns[0])
        board = BoardResult(i + 1, rooms[0], rooms[1], imps(margin))
        results.append(board)
        if on_board is not None:
            on_board(board)
    return results
