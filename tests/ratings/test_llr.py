"""LLR functions: ratings.md sections 5.1-5.3."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.llr import (
    llr_bayeselo,
    llr_logistic,
    llr_logistic_approx,
    llr_normalized,
    sprt_bounds,
)


@pytest.mark.parametrize("ab,bound", [(0.05, 2.944439), (0.01, 4.595120)])
def test_bounds(ab: float, bound: float) -> None:
    lo, hi = sprt_bounds(ab, ab)
    assert lo == pytest.approx(-bound, abs=1e-6)
    assert hi == pytest.approx(bound, abs=1e-6)


def test_bounds_fishtest_self_test() -> None:
    assert sprt_bounds(0.05, 0.05)[1] == pytest.approx(2.9444389791664403, abs=1e-12)


@pytest.mark.parametrize("ab", [(0, 0.05), (0.05, 1), (0.6, 0.5)])
def test_bounds_invalid(ab: tuple[float, float]) -> None:
    with pytest.raises(RatingError):
        sprt_bounds(*ab)


# cutechess tst_sprt.cpp vectors (tolerance 0.01) and section 5.2 computed rows
CUTECHESS = [
    (0, 10, 1477, 1351, 2942, 2.52, 0.01),
    (0, 10, 555, 555, 298, -0.74, 0.01),
    (0, 10, 3, 149, 1, -4.69, 0.01),
    (0, 10, 60, 40, 100, 0.996, 1e-3),
    (0, 5, 60, 40, 100, 0.540, 1e-3),
]


@pytest.mark.parametrize("elo0,elo1,w,l,d,llr,tol", CUTECHESS)
def test_bayeselo_llr(elo0: float, elo1: float, w: int, l: int, d: int, llr: float, tol: float) -> None:
    assert llr_bayeselo(w, l, d, elo0, elo1) == pytest.approx(llr, abs=tol)


# fishtest vectors, counts [L, D, W] or pentanomial
FISHTEST = [
    ([10789, 19328, 33806, 19402, 10543], -3, 1, "logistic", 2.131068),
    ([65804, 56553, 65388], -3, 1, "logistic", 2.049043),
    ([40, 100, 60], 0, 5, "logistic", 0.534944),
    ([40, 100, 60], 0, 10, "logistic", 0.988083),
    ([40, 100, 60], 0, 2, "logistic", 0.223756),
    ([5, 20, 40, 25, 10], 0, 5, "logistic", 0.374955),
    ([5, 20, 40, 25, 10], 0, 5, "normalized", 0.278310),
    ([40, 100, 60], 0, 5, "approx", 0.545093),
    ([40, 100, 60], 0, 10, "approx", 1.005492),
]


@pytest.mark.parametrize("counts,elo0,elo1,model,llr", FISHTEST)
def test_fishtest_llr(counts: list[int], elo0: float, elo1: float, model: str, llr: float) -> None:
    fn = {"logistic": llr_logistic, "normalized": llr_normalized, "approx": llr_logistic_approx}[model]
    assert fn(counts, elo0, elo1) == pytest.approx(llr, abs=1e-6)


def test_zero_counts_are_regularized() -> None:
    assert llr_logistic([0, 0, 10], 0, 5) > 0
    assert llr_logistic([10, 0, 0], 0, 5) < 0


@pytest.mark.parametrize("counts", [[1, 2], [1, 2, 3, 4], [-1, 2, 3]])
def test_malformed_counts(counts: list[int]) -> None:
    with pytest.raises(RatingError):
        llr_logistic(counts, 0, 5)


def test_bayeselo_negative() -> None:
    with pytest.raises(RatingError):
        llr_bayeselo(-1, 0, 0, 0, 5)
