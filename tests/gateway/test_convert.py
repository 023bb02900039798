"""Observation <-> message conversion: exact mirror, round trips over random play."""

from __future__ import annotations

import json

import pytest

from arena.bot.v1 import bot_pb2
from arena.remote import convert
from arena.bots.base import LegalActions
from arena.core.dealing import SeedStream
from arena.games import PROTOCOL_TEST_GAMES, get_descriptor, get_game, list_games
from arena.testing.toy import HighcardGame, HighcardObservation

TYPED = sorted(g for g in [*list_games(), *PROTOCOL_TEST_GAMES] if get_descriptor(g).proto_field)


def _game(name: str):  # type: ignore[no-untyped-def]
    return HighcardGame() if name == "highcard" else get_game(name)


def test_every_game_has_a_typed_message() -> None:
    assert set(list_games()) <= set(TYPED) and "highcard" in TYPED


@pytest.mark.parametrize("game", TYPED)
def test_message_mirrors_dataclass(game: str) -> None:
    convert.check_mirror(game)


@pytest.mark.parametrize("game", TYPED)
def test_round_trip_over_random_play(game: str) -> None:
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


def _reference_fillers() -> dict:  # type: ignore[type-arg]
    """The fillers as they were before they were compiled: a loop over the steps,
    each through :func:`convert._set_fast` (kept as the reference)."""
    import dataclasses

    made: dict = {}  # type: ignore[type-arg]

    def reference_fill(msg, value, where):  # type: ignore[no-untyped-def]
        desc, cls = msg.DESCRIPTOR, type(value)
        if hasattr(cls, "__dataclass_fields__"):
            steps = convert._fast_steps(convert._dataclass_plan(cls, desc))
            for name, info, fast, exact in steps:
                convert._set_fast(msg, name, info, fast, exact, getattr(value, name), where)
            return
        steps = convert._fast_steps(convert._tuple_plan(desc))
        if len(steps) == 1 and steps[0][1].repeated:
            convert._set_field(msg, steps[0][1], value, where)
            return
        if len(value) != len(steps):
            raise convert.ConversionError(f"{where}: {len(value)} items for the {len(steps)} fields "
                                          f"of {desc.full_name}")
        for (name, info, fast, exact), item in zip(steps, value):
            convert._set_fast(msg, name, info, fast, exact, item, where)

    made["fill"] = reference_fill
    made["dataclasses"] = dataclasses
    return made


@pytest.mark.parametrize("game", TYPED)
def test_compiled_fillers_write_the_same_bytes_and_errors_as_the_reference(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every observation of random play, and each one with a field set to a value of
    another type (a value object, a list, None, a bool), gives the same message bytes
    or the same ConversionError through the compiled fillers as through the loop."""
    ref = _reference_fillers()
    g = _game(game)
    observations = []
    for seed in range(3):
        state = g.new_initial_state(seed=seed)
        rng = SeedStream(seed)
        for _ in range(80):
            observations += [state.observation(seat) for seat in range(g.num_players)]
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(rng.choice(legal))
    variants = []
    for obs in observations[::7]:
        for f in ref["dataclasses"].fields(obs):
            value = getattr(obs, f.name)
            for other in ([*value] if isinstance(value, tuple) else (value,), None, True, 1.5, "x"):
                variants.append(ref["dataclasses"].replace(obs, **{f.name: other}))

    def outcome(obs, reference: bool):  # type: ignore[no-untyped-def]
        request = bot_pb2.DecisionRequest(game=game)
        with monkeypatch.context() as m:
            if reference:
                m.setattr(convert, "_fill", ref["fill"])
            try:
                convert.set_observation(request, game, obs)
            except convert.ConversionError as exc:
                return "error", str(exc)
            except Exception as exc:  # noqa: BLE001 - compared as they are
                return type(exc).__name__, str(exc)
        return "bytes", request.SerializeToString(deterministic=True)

    checked = errors = 0
    for obs in observations + variants:
        got, want = outcome(obs, False), outcome(obs, True)
        assert got == want, (obs, got, want)
        checked += 1
        errors += got[0] != "bytes"
    assert checked > 100 and errors > 0, (checked, errors)


@pytest.mark.parametrize("game", TYPED)
def test_the_proto_file_names_the_dataclass_it_mirrors(game: str) -> None:
    """A bot author reads ``proto/`` alone: its "Mirrors <class>" line names the
    observation class the message is checked against (modules move; the comment
    must follow)."""
    import re
    from pathlib import Path

    obs = get_descriptor(game).observation
    proto = Path(__file__).resolve().parents[2] / "proto" / "arena" / "bot" / "v1" / f"{game}.proto"
    named = re.findall(r"Mirrors ([\w.]+) field for field", proto.read_text(encoding="utf-8"))
    assert named == [f"{obs.__module__}.{obs.__qualname__}"]
