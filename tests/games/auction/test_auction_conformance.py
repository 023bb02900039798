"""The shared conformance suite on every preset and on a full multi-game match."""

from __future__ import annotations

import pytest

from arena.games import get_game
from arena.games.auction import AuctionGame
from arena.testing.conformance import check_game


@pytest.mark.parametrize("preset", ["3p", "4p", "5p", "6p"])
def test_presets_conform(preset: str) -> None:
    report = check_game(get_game("auction", preset=preset), seeds=(1, 2, 3), leak_every=4)
    assert report.matches == 3 and report.steps > 0
    assert report.leak_checks > 0 and report.sensitivity_checks > 0 and report.serialize_checks > 0


def test_full_match_conforms() -> None:
    """A rules-default match (games = players) crosses game boundaries and reshuffles."""
    report = check_game(AuctionGame(players=4), seeds=(5,), leak_every=17, serialize_every=23)
    # Sensitivity is left to the presets: here most positions belong to other games' decks,
    # so exchanging one of them with a hidden card gives an invalid deck, not a check.
    assert report.matches == 1 and report.leak_checks > 0
