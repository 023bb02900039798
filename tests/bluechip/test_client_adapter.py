"""Arena bots behind the client adapter play exactly as they do natively.

A team match: team A is arena's heuristic bot playing as four Blue Chip robots
(:class:`arena.bluechip.BlueChipClient`, real TCP over loopback) against built-in
bots; the same match with team A native must give the same records (actions and
returns, seeded deals), and every observation the adapter rebuilt from the
protocol must equal the engine's observation of that seat.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from arena.bluechip import BlueChipClient, BlueChipHost
from arena.bluechip.match import team_match
from arena.bots import make_bot
from arena.bots.base import Agent
from arena.core.state import Action

BOARDS = 6


class Recording(Agent):
    """The heuristic bot, keeping the observation of every decision."""

    def __init__(self) -> None:
        self.inner = make_bot("bridge", "heuristic")
        self.seen: list[Any] = []
        self.name = "heuristic"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        self.seen.append((observation, tuple(legal_actions)))
        return self.inner.act(observation, legal_actions)


def _robots(host: BlueChipHost, team: str) -> list[tuple[BlueChipClient, threading.Thread]]:
    out = []
    for seat in range(4):
        client = BlueChipClient(make_bot("bridge", "heuristic"), ("127.0.0.1", host.port), team=team,
                                seat=seat, keep_observations=True, timeout=20)
        thread = threading.Thread(target=client.run, daemon=True)
        thread.start()
        out.append((client, thread))
    assert host.wait_seated([(team, s) for s in range(4)], 5)
    return out


@pytest.mark.parametrize("opponents", ["heuristic", "random"])
def test_team_match_same_records_as_native(host: BlueChipHost, opponents: str) -> None:
    robots = _robots(host, "HEUR")
    wire = team_match("bluechip:HEUR", opponents, boards=BOARDS, seed=5, host=host, deadline_ms=5000)
    host.stop()
    for _, thread in robots:
        thread.join(5)
        assert not thread.is_alive()
    native = team_match("heuristic", opponents, boards=BOARDS, seed=5)
    for w, n in zip(wire, native):
        for room_w, room_n in ((w.open, n.open), (w.closed, n.closed)):
            assert room_w.faults == []
            assert [(a.seat, a.action, a.id, a.forced) for a in room_w.actions] == \
                   [(a.seat, a.action, a.id, a.forced) for a in room_n.actions]
            assert room_w.returns == room_n.returns and room_w.decks == room_n.decks
        assert w.imps == n.imps
    assert sum(len(w.open.actions) for w in wire) > BOARDS * 20
    for client, _ in robots:
        assert [b.board for b in client.boards] == list(range(1, BOARDS + 1))  # one room per board


def test_rebuilt_observations_equal_the_engines(host: BlueChipHost) -> None:
    from arena.bluechip import run_match
    from arena.bluechip.seat import BlueChipAgent
    from arena.games import get_game

    robots = _robots(host, "OBS")
    game = get_game("bridge")
    natives: list[list[Recording]] = []
    for board in range(1, 5):
        agents = [BlueChipAgent(host, "OBS", s) for s in range(4)]
        run_match(game, agents, seed=30 + board, init={"board": board}, deadline_ms=5000)
        for a in agents:
            assert a.wait_board(5)
        rec = [Recording() for _ in range(4)]
        run_match(game, rec, seed=30 + board, init={"board": board})
        natives.append(rec)
    host.stop()
    compared = 0
    for seat, (client, thread) in enumerate(robots):
        thread.join(5)
        assert len(client.boards) == 4
        for b, board in enumerate(client.boards):
            engine = [obs for obs, _ in natives[b][seat].seen]
            assert board.observations == engine
            compared += len(engine)
    assert compared > 60
