"""The shared conformance suite on rummy, for several player counts and options."""

from __future__ import annotations

import pytest

from arena.games import get_game
from arena.testing.conformance import check_game


@pytest.mark.parametrize("options", [
    {"players": 2, "deals": 1},
    {"players": 3, "deals": 1, "strict_table": True},
    {"players": 4, "deals": 1},
    {"players": 6, "deals": 1},
    {"players": 3, "loss_limit": 60},
], ids=["2p", "3p-strict", "4p", "6p", "3p-loss60"])
def test_conformance(options: dict[str, object]) -> None:
    game = get_game("rummy", **options)
    report = check_game(game, seeds=(1,), leak_every=5, serialize_every=17)
    assert report.matches == 1 and report.steps > 0
    assert report.leak_checks > 0 and report.sensitivity_checks > 0
    assert report.serialize_checks > 0
    assert max(report.lengths) <= game.max_game_length


def test_presets_and_options() -> None:
    assert get_game("rummy").num_players == 4
    assert get_game("rummy", preset="2p").num_players == 2
    assert get_game("rummy", preset="6p").num_players == 6
    assert get_game("rummy", players=3).max_game_length == 3 * 1000
    assert get_game("rummy", loss_limit=200).max_game_length == 50 * 1000
    for bad in ({"players": 1}, {"players": 7}, {"deals": 0}, {"deals": 2, "loss_limit": 100}):
        with pytest.raises(ValueError):
            get_game("rummy", **bad)
