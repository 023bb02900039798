"""Observation <-> message conversion: exact mirror, round trips over random play."""

from __future__ import annotations

import importlib
import json

import pytest

from arena.bot.v1 import bot_pb2
from arena.remote import convert
from arena.bots.base import LegalActions
from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.testing.toy import HighcardGame, HighcardObservation

TYPED = sorted(convert.TYPED_OBSERVATIONS)


def _game(name: str):  # type: ignore[no-untyped-def]
    if name == "highcard":
        return HighcardGame()
    try:
        return get_game(name)
    except ValueError:  # an engine not in the registry yet
        return importlib.import_module(f"arena.games.{name}").GAME()


def _engine_present(game: str) -> None:
    """Engines land in parallel: skip a game whose engine module is not there yet."""
    pytest.importorskip(convert.TYPED_OBSERVATIONS[game][0])


@pytest.mark.parametrize("game", TYPED)
def test_message_mirrors_dataclass(game: str) -> None:
    _engine_present(game)
    convert.check_mirror(game)


@pytest.mark.parametrize("game", TYPED)
def test_round_trip_over_random_play(game: str) -> None:
    _engine_present(game)
    g = _game(game)
    checked = 0
    for seed in range(1):
        state = g.new_initial_state(seed=seed)
        rng = SeedStream(seed)
        steps = 0
        while True:
            for seat in range(g.num_players):
                obs = state.observation(seat)
                request = bot_pb2.DecisionRequest(game=game)
                convert.set_observation(request, game, obs)
                wire = bot_pb2.DecisionRequest.FromString(request.SerializeToString())
                assert convert.get_observation(wire) == obs
                checked += 1
            if state.is_terminal() or steps >= 60:
                break
            legal = state.legal_actions()
            texts = LegalActions(legal, state.action_to_string).texts
            messages = convert.legal_actions_to_proto(legal, texts)
            actions, back = convert.legal_actions_from_proto(messages)
            assert back == list(texts)
            assert [a for a in actions if isinstance(a, int)] == [a for a in legal if type(a) is int]
            state.apply_action(rng.choice(legal))
            steps += 1
    assert checked > 10


def test_mismatch_is_an_error_not_a_silent_drop() -> None:
    from dataclasses import dataclass

    from arena.core.state import Observation

    @dataclass(frozen=True)
    class Leaky(Observation):
        seat: int
        hand: tuple[str, ...]
        other_hand: tuple[str, ...]

    from arena.bot.v1 import highcard_pb2

    msg = highcard_pb2.HighcardObservation()
    with pytest.raises(convert.ConversionError, match="other_hand"):
        convert._fill(msg, Leaky(0, ("AS",), ("KD",)), "Leaky")


def test_wrong_dataclass_is_refused() -> None:
    with pytest.raises(convert.ConversionError):
        convert.observation_to_proto("highcard", {"seat": 0})


def test_generic_fallback_is_the_observation_json() -> None:
    obs = HighcardObservation(seat=1, hand=("2C",), played=(), wins=(0, 0), to_play=1)
    field, msg = convert.observation_to_proto("not-a-typed-game", obs)
    assert field == "generic" and json.loads(msg.json) == obs.to_dict()
    assert convert.observation_from_proto("not-a-typed-game", msg) == obs.to_dict()


def test_decision_action() -> None:
    assert convert.decision_action(bot_pb2.Decision(request_id=1, action_id=0)) == 0
    assert convert.decision_action(bot_pb2.Decision(request_id=1, action_text="1NT")) == "1NT"
    assert convert.decision_action(bot_pb2.Decision(request_id=1)) is None
