"""WBF VP scale: ratings.md section 3.3 (WCBC 2017 round 1) and 3.4."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.vp import blitz_margin, vp_score, wbf_vp

# (IMPs A, IMPs B, boards, VP A, VP B, tolerance): the formula reproduces the first two exactly;
# the WBF's concavity adjustment moves 70-56 to 12.78 (formula 12.774 -> 12.77).
VECTORS = [(66, 65, 32, 10.22, 9.78, 0.0), (72, 50, 32, 14.09, 5.91, 0.0), (70, 56, 32, 12.78, 7.22, 0.01)]


@pytest.mark.parametrize("a,b,n,va,vb,tol", VECTORS)
def test_wcbc_2017(a: int, b: int, n: int, va: float, vb: float, tol: float) -> None:
    got = wbf_vp(a, b, n)
    assert got == pytest.approx((va, vb), abs=tol + 1e-9)
    assert wbf_vp(b, a, n) == pytest.approx((vb, va), abs=tol + 1e-9)


def test_blitz_and_score() -> None:
    assert blitz_margin(32) == pytest.approx(84.85, abs=0.01)
    assert wbf_vp(85, 0, 32) == (20.0, 0.0)
    assert wbf_vp(84, 0, 32)[0] < 20.0
    assert wbf_vp(10, 10, 32) == (10.0, 10.0)
    assert vp_score(66, 65, 32) == pytest.approx(0.511, abs=1e-3)
    with pytest.raises(RatingError):
        wbf_vp(1, 0, 0)
