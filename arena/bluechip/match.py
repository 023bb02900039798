"""Entrants and a two-room team match with Blue Chip robots among them.

An entrant is ``bluechip:TEAM`` (the robots of team TEAM seated at the host) or the
name of a built-in bot. :func:`team_match` plays each board twice, team A N-S in
the open room and E-W in the closed room, on the seeds :mod:`arena.bots.evaluate`
uses (``derive_seed(seed, "deal", i)``, board ``i + 1``), and returns both records
of every board; the IMPs are ``imps(ns_open - ns_closed)`` from team A's side.

A session whose robots are gone ends: before each room :func:`team_match` waits
(``seat_wait``, by default the host's ``connect_timeout``) until every Blue Chip
seat of the room has a robot, and raises :class:`RobotsGone` naming the seats still
empty; so does a room in which a seat's robot was not there when its board began
(that room's board is not returned). Boards already finished went to ``on_board``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.bluechip.host import BlueChipHost
from arena.bluechip.protocol import SEAT_NAMES
from arena.bluechip.observe import run_match
from arena.bluechip.seat import BlueChipAgent
from arena.bots import make_bot
from arena.match.agent import Agent
from arena.core.dealing import derive_seed
from arena.games import get_game
from arena.games.bridge.scoring import imps
from arena.records.record import MatchRecord

__all__ = ["PREFIX", "bluechip_team", "make_entrant", "BoardResult", "RobotsGone", "team_match"]

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


class RobotsGone(Exception):
    """Blue Chip seats without a robot through the wait: the session cannot go on."""

    def __init__(self, missing: list[tuple[str, int]], board: int, room: str, wait: float,
                 results: list[BoardResult]) -> None:
        self.missing = missing
        self.board = board
        self.room = room
        self.wait = wait
        self.results = results
        seats = ", ".join(f"{team} {SEAT_NAMES[seat]}" for team, seat in missing)
        done = len(results)
        super().__init__(f"robots gone: no robot seated as {seats} within {wait:g} s for board {board} "
                         f"({room} room); the session stopped after {done} board{'' if done == 1 else 's'}")


def team_match(team_a: str, team_b: str, *, boards: int, seed: int | str = 1,
               host: BlueChipHost | None = None, deadline_ms: float = 10_000.0,
               match_prefix: str = "bluechip", seat_wait: float | None = None,
               on_board: Callable[[BoardResult], None] | None = None) -> list[BoardResult]:
    """A two-room team match of ``boards`` boards between two entrants.

    :param seat_wait: seconds a room waits for its Blue Chip robots (default: the
        host's ``connect_timeout``).
    :raises RobotsGone: when a Blue Chip seat stays without a robot that long.
    """
    game = get_game("bridge")
    names = {team_a: bluechip_team(team_a) or team_a, team_b: bluechip_team(team_b) or team_b}
    wait = seat_wait if seat_wait is not None else host.config.connect_timeout if host is not None else 0.0
    results: list[BoardResult] = []
    for i in range(boards):
        deal_seed = derive_seed(seed, "deal", i)
        rooms = []
        for room, (ns, ew) in enumerate(((team_a, team_b), (team_b, team_a))):
            entrants = [ns, ew, ns, ew]
            room_name = "open" if room == 0 else "closed"
            slots = [(t, s) for s, t in enumerate(bluechip_team(e) for e in entrants) if t is not None]
            if host is not None and slots and not host.wait_seated(slots, wait):
                missing = sorted(set(slots) - set(host.seated()))
                raise RobotsGone(missing, i + 1, room_name, wait, results)
            agents = [make_entrant(e, s, host=host, seed=derive_seed(seed, "bot", i, room, s),
                                   opponents=names[ew if s % 2 == 0 else ns])
                      for s, e in enumerate(entrants)]
            result = run_match(game, agents, seed=deal_seed, init={"board": i + 1},
                               match_id=f"{match_prefix}-{i + 1}-{room_name}",
                               bot_names=entrants, deadline_ms=deadline_ms)
            gone = [(a.team, s) for s, a in enumerate(agents) if isinstance(a, BlueChipAgent) and a.absent]
            if gone:
                raise RobotsGone(gone, i + 1, room_name, wait, results)
            rooms.append(result.record)
        margin = int(rooms[0].returns[0] - rooms[1].returns[0])
        board = BoardResult(i + 1, rooms[0], rooms[1], imps(margin))
        results.append(board)
        if on_board is not None:
            on_board(board)
    return results
