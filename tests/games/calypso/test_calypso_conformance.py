"""The shared conformance suite on Calypso (every preset)."""

from __future__ import annotations

import pytest

from arena.games import get_game
from arena.testing.conformance import check_game


@pytest.mark.parametrize("games,seeds,leak_every", [(1, (1,), 7), (2, (3,), 29)])
def test_calypso_conforms(games: int, seeds: tuple[int, ...], leak_every: int) -> None:
    report = check_game(get_game("calypso", games=games), seeds=seeds, leak_every=leak_every)
    assert report.matches == len(seeds)
    assert report.steps == 208 * games * len(seeds)
    assert report.leak_checks > 0 and report.sensitivity_checks > 0
    assert report.illegal_checks > 0 and report.serialize_checks > 0
