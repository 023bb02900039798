"""Match statistics: ratings.md section 4.3 and the pentanomial vectors of 5.3."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.match_stats import (
    format_estimate,
    los,
    pentanomial_estimate,
    pentanomial_from_pairs,
    trinomial_estimate,
)


def test_worked_example_60_40_100() -> None:
    c = trinomial_estimate(60, 40, 100)
    assert c.score == pytest.approx(0.55)
    assert c.elo == pytest.approx(34.86, abs=0.01)
    assert c.error == pytest.approx(34.11, abs=0.01)
    assert c.los == pytest.approx(0.9772, abs=1e-4)
    assert c.draw_ratio == pytest.approx(0.5)
    x = trinomial_estimate(60, 40, 100, method="exact")
    assert x.elo == pytest.approx(34.86, abs=0.01)
    assert x.error == pytest.approx(34.16, abs=0.01)
    assert x.los == pytest.approx(0.9783, abs=1e-4)


def test_per_match_sigma() -> None:
    # sigma of mu = 0.024749: recover it from the exact margin's definition
    import math

    n, w, l, d = 200, 0.3, 0.2, 0.5
    mu = w + d / 2
    sigma = math.sqrt(w * (1 - mu) ** 2 + l * mu**2 + d * (0.5 - mu) ** 2) / math.sqrt(n)
    assert sigma == pytest.approx(0.024749, abs=1e-6)


# (W, L, D, printed line, recomputed elo, error, LOS %)
OOPS = [
    (99, 97, 104, "Elo difference: 2.3 +/- 31.8, LOS: 55.7 %, DrawRatio: 34.7 %", 2.32, 31.82, 55.68),
    (45, 37, 18, "Elo difference: 27.9 +/- 62.4, LOS: 81.2 %, DrawRatio: 18.0 %", 27.85, 62.41, 81.15),
    (152, 105, 43, "Elo difference: 54.9 +/- 36.9, LOS: 99.8 %, DrawRatio: 14.3 %", 54.88, 36.86, 99.83),
    (62, 32, 6, "Elo difference: 107.5 +/- 70.1, LOS: 99.9 %, DrawRatio: 6.0 %", 107.54, 70.08, 99.90),
    (92, 112, 96, "Elo difference: -23.2 +/- 32.5, LOS: 8.1 %, DrawRatio: 32.0 %", -23.20, 32.51, 8.07),
]


@pytest.mark.parametrize("w,l,d,line,elo,err,los_pct", OOPS)
def test_cutechess_output_vectors(w: int, l: int, d: int, line: str, elo: float, err: float, los_pct: float) -> None:
    e = trinomial_estimate(w, l, d)
    assert e.elo == pytest.approx(elo, abs=0.01)
    assert e.error == pytest.approx(err, abs=0.01)
    assert 100 * e.los == pytest.approx(los_pct, abs=0.01)
    assert format_estimate(e) == line


def test_laskos_los() -> None:
    assert los(5975, 6077) == pytest.approx(0.176414, abs=1e-6)
    assert los(5975, 6077) == pytest.approx(0.176424329, abs=1e-4)  # Laskos's exact value
    assert los(0, 0) == 0.5


def test_pentanomial_vector() -> None:
    e = pentanomial_estimate([5, 20, 40, 25, 10])
    assert e.elo == pytest.approx(26.107, abs=1e-3)
    assert e.error == pytest.approx(34.826, abs=1e-3)
    assert e.los == pytest.approx(0.93054, abs=1e-5)
    assert e.games == 200


def test_pairing_shrinks_interval_fishtest_vector() -> None:
    p = pentanomial_estimate([10789, 19328, 33806, 19402, 10543])
    t = trinomial_estimate(65388, 65804, 56553, method="exact")
    assert p.elo == pytest.approx(-0.774, abs=1e-3)
    assert p.error == pytest.approx(1.278, abs=1e-3)
    assert t.elo == pytest.approx(-0.770, abs=1e-3)
    assert t.error == pytest.approx(1.314, abs=1e-3)
    assert p.error < t.error


def test_pentanomial_from_pairs() -> None:
    assert pentanomial_from_pairs([(1, 0.5), (0, 0), (0.5, 0.5), (1, 0)]) == [1, 0, 2, 1, 0]
    with pytest.raises(RatingError):
        pentanomial_from_pairs([(2, 0)])


def test_perfect_score_is_finite() -> None:
    e = trinomial_estimate(10, 0, 0, method="exact")
    assert e.elo == pytest.approx(1199.83, abs=0.01)  # fishtest clamps p to 1 - 1e-3


@pytest.mark.parametrize("args", [(0, 0, 0), (-1, 2, 3)])
def test_invalid_trinomial(args: tuple[int, int, int]) -> None:
    with pytest.raises(RatingError):
        trinomial_estimate(*args)


def test_invalid_inputs() -> None:
    with pytest.raises(RatingError):
        trinomial_estimate(1, 1, 1, method="bogus")  # type: ignore[arg-type]
    with pytest.raises(RatingError):
        pentanomial_estimate([1, 2, 3])
    with pytest.raises(RatingError):
        pentanomial_estimate([0, 0, 0, 0, 0])
    with pytest.raises(RatingError):
        los(-1, 0)
