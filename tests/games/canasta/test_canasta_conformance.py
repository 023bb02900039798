"""The shared conformance suite on every preset and several hungarian tables.

A whole random game is thousands of actions and the suite replays the history at
every step, so matches here are one hand (``deals=1``; ``CanastaGame.conformance_options``)
and one two-hand match covers the hand transition (hidden positions of finished hands).
"""

from __future__ import annotations

import pytest

from arena.games.canasta import CanastaGame
from arena.testing.conformance import check_game


@pytest.mark.parametrize("preset", list(CanastaGame.presets))
def test_conformance_every_preset(preset: str) -> None:
    report = check_game(CanastaGame(preset=preset, **CanastaGame.conformance_options), seeds=(1, 2),
                        leak_every=9, serialize_every=23)
    assert report.matches == 2
    assert report.leak_checks > 20 and report.sensitivity_checks > 0
    assert report.leak_inconsistent < report.leak_checks


@pytest.mark.parametrize("opts", [
    {"players": 2}, {"players": 3}, {"players": 5}, {"players": 6, "sides": "pairs"},
    {"players": 8, "sides": "two_teams"}, {"players": 4, "sides": "pairs", "black3_block": "full_round"},
], ids=lambda o: "-".join(f"{k}{v}" for k, v in o.items()))
def test_conformance_hungarian_tables(opts: dict) -> None:
    report = check_game(CanastaGame(preset="hungarian", deals=1, **opts), seeds=(3,), leak_every=17,
                        serialize_every=41)
    assert report.matches == 1 and report.leak_checks > 0


def test_conformance_two_hands() -> None:
    report = check_game(CanastaGame(preset="classic", deals=2), seeds=(4,), leak_every=15, serialize_every=37)
    assert report.matches == 1 and report.leak_checks > 0
