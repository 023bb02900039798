"""The shared conformance suite on Calypso (every preset)."""

from __future__ import annotations

import pytest

from arena.games import get_game
from arena.testing.conformance import check_game


@pytest.mark.parametrize("preset,seeds", [("default", (1, 2)), ("two_games", (3,))])
def test_calypso_conforms(preset: str, seeds: tuple[int, ...]) -> None:
    report = check_game(get_game("calypso", preset=preset), seeds=seeds)
    assert report.matches == len(seeds)
    assert report.steps == 208 * len(seeds) * (2 if preset == "two_games" else 1)
    assert report.leak_checks > 0 and report.sensitivity_checks > 0
    assert report.illegal_checks > 0 and report.serialize_checks > 0
