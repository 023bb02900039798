"""The conformance suite over every registered game and every preset.

Each game's own tests run the suite more deeply; this guarantees that nothing
registered escapes it (a new game joins by registering).
"""

from __future__ import annotations

import pytest

from arena.games import get_game, get_game_class, list_games
from arena.testing.conformance import check_game

CASES = [(name, preset) for name in list_games() for preset in get_game_class(name).presets]


@pytest.mark.parametrize(("name", "preset"), CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_conformance(name: str, preset: str) -> None:
    game = get_game(name, preset=preset, **get_game_class(name).conformance_options)
    report = check_game(game, seeds=(1, 2), leak_every=13, serialize_every=29)
    assert report.matches == 2 and report.steps > 0
    assert report.leak_checks > 0, "the leak test found nothing to exchange"
    assert report.sensitivity_checks > 0, "own cards never changed the observation"


def test_every_game_documents_itself() -> None:
    import importlib

    from arena.games import GAME_MODULES

    for name in list_games():
        cls = get_game_class(name)
        module = importlib.import_module(GAME_MODULES[name])
        assert module.__doc__ and len(module.__doc__) > 200, f"{name}: engine docstring missing"
        assert cls.name == name and cls.presets and cls.ruleset_version >= 1
