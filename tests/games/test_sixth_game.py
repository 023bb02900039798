"""Issue 28's change test for a new game, run for real: a game package written in a
temporary folder, with its ``DESCRIPTOR`` and one line in ``GAME_MODULES``, and no other
file touched, is played by the referee and by ``arena play``'s comparison, gets the
built-in ``random`` bot, travels to a remote bot as the protocol's generic observation,
is sampled for search and is replayed by the dashboard with the generic renderer."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import games
from arena.bot.v1 import bot_pb2
from arena.bots import list_bots, make_bot
from arena.bots.evaluate import compare_bots
from arena.core.dealing import SeedStream
from arena.dashboard.replay import replay_views
from arena.match import run_match
from arena.match.infoset import InformationSet
from arena.remote import convert

PACKAGE = '''
"""Sixth: the test game of tests/games/test_sixth_game.py (highcard under another name)."""
from arena.core.descriptor import GameDescriptor
from arena.testing.toy import HighcardGame, HighcardObservation


class SixthGame(HighcardGame):
    name = "sixth"


GAME = SixthGame
DESCRIPTOR = GameDescriptor("sixth", SixthGame, HighcardObservation)
'''


@pytest.fixture()
def sixth(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "sixth_game").mkdir()
    (tmp_path / "sixth_game" / "__init__.py").write_text(PACKAGE)
    sys.path.insert(0, str(tmp_path))
    games.GAME_MODULES["sixth"] = "sixth_game"  # the one line a new game adds
    try:
        yield "sixth"
    finally:
        del games.GAME_MODULES["sixth"]
        sys.path.remove(str(tmp_path))
        sys.modules.pop("sixth_game", None)


def test_a_new_game_is_its_package_and_one_registry_line(sixth: str) -> None:
    game = games.get_game(sixth)
    assert sixth in games.list_games() and list_bots(sixth) == ["random"]

    result = run_match(game, [make_bot(sixth, "random", seed=s) for s in range(2)], seed=7)
    assert result.record.terminal and result.record.game == sixth and not result.record.faults

    comparison = compare_bots(game, ["random", "random"], deals=2, seed=1)
    assert comparison.deals == 2 and comparison.faults == 0

    # the protocol: no message of its own yet, so the generic observation (its JSON)
    state = game.new_initial_state(seed=3)
    obs = state.observation(0)
    field, msg = convert.observation_to_proto(sixth, obs)
    assert field == "generic" and isinstance(msg, bot_pb2.GenericObservation)
    assert json.loads(msg.json)["hand"] == list(obs.hand)

    # search: the information set samples it with no constraint of the game's
    infoset = InformationSet(state, 0)
    sample = infoset.sample(SeedStream(2))
    assert sample is not None and sample.observation(0) == obs

    # the dashboard: the generic renderer, no per-seat lists
    views = replay_views(result.record)
    assert views["error"] is None and views["renderer"] is None and views["per_seat"] == []
    assert len(views["steps"]) == len(result.record.actions) + 1
