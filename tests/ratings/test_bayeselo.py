"""BayesElo draw model and Ordo scale: ratings.md sections 4.1, 4.2, 1.3 (E9)."""

from __future__ import annotations

import pytest

from arena.ratings.bayeselo import (
    BAYESELO_ADVANTAGE,
    BAYESELO_DRAW_ELO,
    bayeselo_from_probabilities,
    bayeselo_probabilities,
    bayeselo_scale,
    ordo_elo_from_score,
)
from arena.ratings.elo import elo_from_score
from arena.ratings.errors import RatingError


def test_defaults() -> None:
    assert (BAYESELO_ADVANTAGE, BAYESELO_DRAW_ELO) == (32.8, 97.3)


def test_equal_players() -> None:
    w, d, l = bayeselo_probabilities(0.0, 97.3)
    assert (w, d, l) == pytest.approx((0.363523, 0.272953, 0.363523), abs=1e-6)


def test_first_move_advantage() -> None:
    w, d, l = bayeselo_probabilities(0.0, 97.3, advantage=32.8)
    assert (w, d, l) == pytest.approx((0.408229, 0.270714, 0.321058), abs=1e-6)


def test_draw_elo_and_scale_of_60_40_100_with_jeffreys_prior() -> None:
    w, l, d = 60.5, 40.5, 100.5
    n = w + l + d
    _, draw_elo = bayeselo_from_probabilities(w / n, l / n)
    assert draw_elo == pytest.approx(193.37, abs=0.01)
    assert bayeselo_scale(draw_elo) == pytest.approx(0.7446, abs=1e-4)


def test_roundtrip() -> None:
    w, d, l = bayeselo_probabilities(50.0, 120.0)
    elo, draw = bayeselo_from_probabilities(w, l)
    assert (elo, draw) == pytest.approx((50.0, 120.0), abs=1e-9)
    with pytest.raises(RatingError):
        bayeselo_from_probabilities(0.0, 0.5)


def test_ordo_scale_e9() -> None:
    assert ordo_elo_from_score(0.76) == pytest.approx(202.0, abs=1e-9)
    assert elo_from_score(0.76) == pytest.approx(200.24, abs=0.01)
    with pytest.raises(RatingError):
        ordo_elo_from_score(1.0)
