"""K-factor conventions: ratings.md section 1.2."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.kfactor import fide_k, fide_period_k, fide_round, uscf_k


@pytest.mark.parametrize(
    "kwargs,k",
    [
        ({"games": 0, "rating": 1500}, 40),
        ({"games": 29, "rating": 2450}, 40),
        ({"games": 30, "rating": 2200}, 20),
        ({"games": 100, "rating": 2399}, 20),
        ({"games": 100, "rating": 2400}, 10),
        ({"games": 100, "rating": 2350, "reached_2400": True}, 10),
        ({"games": 100, "rating": 2250, "junior": True}, 40),
        ({"games": 100, "rating": 2300, "junior": True}, 20),
    ],
)
def test_fide_k(kwargs: dict[str, float], k: int) -> None:
    assert fide_k(**kwargs) == k  # type: ignore[arg-type]


def test_fide_period_cap() -> None:
    assert fide_period_k(40, 20) == 35
    assert fide_period_k(20, 35) == 20
    assert fide_period_k(20, 36) == 19
    assert fide_period_k(40, 0) == 40


def test_fide_round_half_away_from_zero() -> None:
    assert [fide_round(x) for x in (0.5, -0.5, 1.49, -1.5, 0.0)] == [1, -1, 1, -2, 0]


# (N', m, K) from Glickman's Full-K table
USCF = [(6, 4, 80), (6, 6, 66.67), (6, 10, 50), (20, 4, 33.33), (20, 6, 30.77), (20, 10, 26.67),
        (50, 4, 14.81), (50, 6, 14.29), (50, 10, 13.33)]


@pytest.mark.parametrize("n,m,k", USCF)
def test_uscf_table(n: int, m: int, k: float) -> None:
    assert uscf_k(n, m) == pytest.approx(k, abs=0.005)


def test_invalid() -> None:
    with pytest.raises(RatingError):
        fide_k(games=-1, rating=1500)
    with pytest.raises(RatingError):
        fide_period_k(20, -1)
    with pytest.raises(RatingError):
        uscf_k(0, 0)
