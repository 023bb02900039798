"""The SDK's example search bot (clients/python/arenabot/examples/pimc_bridge.py) answers
legal cards from the wire observation alone."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.bot.v1 import bot_pb2
from arena.remote.convert import add_legal_actions, set_observation

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "bridge"))

from arenabot.examples.pimc_bridge import PimcBridgeBot  # noqa: E402
from test_pimc import _play_state  # noqa: E402


def test_example_plays_legal_cards_from_the_wire() -> None:
    bot = PimcBridgeBot(samples=3, seed=1)
    for cards in (0, 9, 26):
        state = _play_state(cards)
        seat = state.current_player()
        request = bot_pb2.DecisionRequest()
        set_observation(request, "bridge", state.observation(seat))
        legal = state.legal_actions()
        add_legal_actions(request, legal, [state.action_to_string(a) for a in legal])
        assert bot.decide(request) in legal
