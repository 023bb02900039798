"""Log-likelihood ratios for SPRT (ratings.md section 5), as pure functions.

Counts are ``[L, D, W]`` (trinomial, game values 0, ½, 1) or
``[LL, LD+DL, LW+DD+WL, DW+WD, WW]`` (pentanomial: duplicate pairs, values
0, ¼, ½, ¾, 1), as in fishtest's ``LLRcalc.py``.

* :func:`llr_logistic` -- fishtest's generalized SPRT in logistic Elo.
* :func:`llr_normalized` -- fishtest's normalized-Elo GSPRT ("t_value" statistic).
* :func:`llr_logistic_approx` -- fishtest's ``LLR_alt2`` Brownian approximation.
* :func:`llr_bayeselo` -- cutechess's trinomial SPRT in BayesElo units, drawElo
  estimated from the data with ½ added to each count (Jeffreys' prior).

>>> round(llr_logistic([40, 100, 60], 0, 5), 6)
0.534944
>>> round(llr_bayeselo(1477, 1351, 2942, 0, 10), 2)
2.52
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from arena.ratings.errors import RatingError

__all__ = [
    "NELO_DIVIDED_BY_NT",
    "logistic",
    "llr_logistic",
    "llr_logistic_approx",
    "llr_normalized",
    "llr_bayeselo",
    "sprt_bounds",
]

NELO_DIVIDED_BY_NT = 800.0 / math.log(10.0)
"""Normalized Elo per unit of t-value (fishtest: 347.43558552260146)."""


def logistic(elo: float) -> float:
    """Expected score of an Elo advantage: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """``(ln(β/(1-α)), ln((1-β)/α))``: accept H0 at or below the first, H1 at or above the second.

    >>> [round(b, 6) for b in sprt_bounds(0.05, 0.05)]
    [-2.944439, 2.944439]

    :raises RatingError: if α or β is not in (0, 1) or α + β >= 1.
    """
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise RatingError(f"need 0 < alpha, beta and alpha + beta < 1, got {alpha}, {beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _pdf(counts: Sequence[float]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    k = len(counts)
    if k not in (3, 5) or min(counts) < 0:
        raise RatingError(f"need 3 or 5 non-negative counts, got {list(counts)}")
    r = np.array([c if c > 0 else 1e-3 for c in counts], dtype=float)  # fishtest regularize
    n = float(r.sum())
    values = np.arange(k) / (k - 1)
    return n, values, r / n


def _secular(a: NDArray[np.float64], p: NDArray[np.float64]) -> float:
    # Solve sum_i p_i a_i / (1 + x a_i) = 0 for x (fishtest secular()).
    lo, hi = -1.0 / a.max(), -1.0 / a.min()
    if not a.min() < 0 < a.max():
        raise RatingError("target score outside the range of the observed values")
    # just inside the poles, relatively: an absolute step vanishes beside a large
    # -1/a (a target next to an observed value) and the end point divides by zero
    eps = 1e-9
    return float(brentq(lambda x: float(np.sum(p * a / (1 + x * a))), lo * (1 - eps), hi * (1 - eps)))


def _mle_expected(values: NDArray[np.float64], p: NDArray[np.float64], s: float) -> NDArray[np.float64]:
    a = values - s
    x = _secular(a, p)
    return p / (1 + x * a)


def _mle_t_value(
    values: NDArray[np.float64], p: NDArray[np.float64], ref: float, t: float
) -> NDArray[np.float64]:
    q = np.full_like(p, 1.0 / len(p))
    for _ in range(10):
        prev = q
        mu = float(np.sum(q * values))
        sigma = math.sqrt(float(np.sum(q * (values - mu) ** 2)))
        a = values - ref - t * sigma * (1 + ((mu - values) / sigma) ** 2) / 2
        x = _secular(a, p)
        q = p / (1 + x * a)
        if float(np.max(np.abs(prev - q))) < 1e-9:
            break
    return q


def llr_logistic(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalized LLR of ``elo1`` against ``elo0`` (logistic Elo) for trinomial or pentanomial counts.

    :raises RatingError: on malformed counts.
    """
    n, values, p = _pdf(counts)
    p0 = _mle_expected(values, p, logistic(elo0))
    p1 = _mle_expected(values, p, logistic(elo1))
    return n * float(np.sum(p * (np.log(p1) - np.log(p0))))


def llr_normalized(counts: Sequence[float], nelo0: float, nelo1: float) -> float:
    """Generalized LLR in normalized Elo (fishtest ``LLR_normalized``).

    >>> round(llr_normalized([5, 20, 40, 25, 10], 0, 5), 6)
    0.27831

    :raises RatingError: on malformed counts.
    """
    n, values, p = _pdf(counts)
    scale = 1.0 if len(counts) == 3 else math.sqrt(2.0)
    t0, t1 = nelo0 / NELO_DIVIDED_BY_NT * scale, nelo1 / NELO_DIVIDED_BY_NT * scale
    p0 = _mle_t_value(values, p, 0.5, t0)
    p1 = _mle_t_value(values, p, 0.5, t1)
    return n * float(np.sum(p * (np.log(p1) - np.log(p0))))


def llr_logistic_approx(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """``N (s1-s0)(2ŝ-s0-s1) / (2σ̂²)`` (fishtest ``LLR_alt2``).

    :raises RatingError: on malformed counts.
    """
    n, values, p = _pdf(counts)
    s = float(np.sum(p * values))
    var = float(np.sum(p * (values - s) ** 2))
    s0, s1 = logistic(elo0), logistic(elo1)
    return n * (s1 - s0) * (2 * s - s0 - s1) / var / 2.0


def llr_bayeselo(wins: float, losses: float, draws: float, elo0: float, elo1: float) -> float:
    """cutechess's trinomial LLR (section 5.2): hypotheses in BayesElo units, drawElo from the data.

    :raises RatingError: if a count is negative.
    """
    if min(wins, losses, draws) < 0:
        raise RatingError("counts must be non-negative")
    w, l, d = wins + 0.5, losses + 0.5, draws + 0.5
    n = w + l + d
    pw, pl = w / n, l / n
    draw_elo = 200.0 * math.log10((1 - pl) / pl * (1 - pw) / pw)
    x = 10.0 ** (-draw_elo / 400.0)
    s = 4.0 * x / (1.0 + x) ** 2

    def probs(b: float) -> tuple[float, float, float]:
        p_w = 1.0 / (1.0 + 10.0 ** ((draw_elo - b) / 400.0))
        p_l = 1.0 / (1.0 + 10.0 ** ((draw_elo + b) / 400.0))
        return p_w, p_l, 1.0 - p_w - p_l

    w0, l0, d0 = probs(elo0 / s)
    w1, l1, d1 = probs(elo1 / s)
    return w * math.log(w1 / w0) + l * math.log(l1 / l0) + d * math.log(d1 / d0)
