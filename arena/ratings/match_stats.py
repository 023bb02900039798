"""Match statistics as chess-engine testers print them (ratings.md section 4.3).

* :func:`trinomial_estimate` -- Elo difference, 95% error margin, LOS and draw
  ratio from wins/losses/draws. ``method="cutechess"`` reproduces
  cutechess-cli's ``Elo difference: x +/- y, LOS: z %`` (closed-form erf⁻¹
  approximation for the quantile, LOS from W and L only); ``method="exact"``
  is fishtest's ``get_elo`` (exact normal quantiles, ``LOS = Φ((μ-½)/σ)``).
* :func:`pentanomial_estimate` -- the same from duplicate **pairs** (fishtest
  ``get_elo`` on ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]``): use it whenever games
  come in pairs on the same deal, since treating the two games as independent
  overstates the error (ratings.md section 3.2).
* :func:`los` -- likelihood of superiority from wins and losses (Laskos).

>>> e = trinomial_estimate(60, 40, 100)
>>> round(e.elo, 2), round(e.error, 2), round(100 * e.los, 2), e.draw_ratio
(34.86, 34.11, 97.72, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scipy.stats import norm

from arena.ratings.errors import RatingError

__all__ = [
    "EloEstimate",
    "los",
    "trinomial_estimate",
    "pentanomial_estimate",
    "pentanomial_from_pairs",
    "format_estimate",
]


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """An Elo difference estimate from one match or gauntlet."""

    elo: float
    """Estimated Elo difference (positive: the first player is stronger)."""
    error: float
    """Half-width of the 95% interval, in Elo."""
    los: float
    """Likelihood of superiority, a probability in [0, 1]."""
    score: float
    """Score fraction per game (mean of the per-game scores)."""
    games: float
    """Number of games (pairs count as two)."""
    draw_ratio: float | None = None
    """Share of draws (trinomial only)."""


def _elo(p: float) -> float:
    # fishtest's elo(): clamp into [1e-3, 1 - 1e-3] so 100% scores stay finite.
    p = min(max(p, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / p - 1.0)


def _erf_inv_cutechess(x: float) -> float:
    # Winitzki's approximation as in cutechess Elo::erfInv (pi truncated as there).
    pi = 3.1415926535897
    a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
    y = math.log(1.0 - x * x)
    z = 2.0 / (pi * a) + y / 2.0
    ret = math.sqrt(math.sqrt(z * z - y / a) - z)
    return -ret if x < 0 else ret


def _phi_inv(p: float, method: str) -> float:
    if method == "cutechess":
        return math.sqrt(2.0) * _erf_inv_cutechess(2.0 * p - 1.0)
    return float(norm.ppf(p))


def los(wins: float, losses: float) -> float:
    """Likelihood of superiority ``0.5 + 0.5 erf((W - L) / sqrt(2 (W + L)))``; draws do not enter.

    >>> round(los(5975, 6077), 6)
    0.176414

    :raises RatingError: if a count is negative.
    """
    if wins < 0 or losses < 0:
        raise RatingError("counts must be non-negative")
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def trinomial_estimate(
    wins: int, losses: int, draws: int, *, method: Literal["cutechess", "exact"] = "cutechess"
) -> EloEstimate:
    """Elo difference, 95% margin and LOS from W/L/D (see the module docstring).

    :raises RatingError: if a count is negative, there are no games, or the
        method is unknown.
    """
    if method not in ("cutechess", "exact"):
        raise RatingError(f"unknown method {method!r}")
    if min(wins, losses, draws) < 0:
        raise RatingError("counts must be non-negative")
    n = wins + losses + draws
    if n == 0:
        raise RatingError("no games")
    if method == "exact":
        return _get_elo([losses, draws, wins], draw_ratio=draws / n)
    w, l, d = wins / n, losses / n, draws / n
    mu = w + d / 2.0
    stdev = math.sqrt(w * (1 - mu) ** 2 + l * mu**2 + d * (0.5 - mu) ** 2) / math.sqrt(n)
    lo = mu + _phi_inv(0.025, method) * stdev
    hi = mu + _phi_inv(0.975, method) * stdev
    return EloEstimate(
        elo=_elo(mu),
        error=(_elo(hi) - _elo(lo)) / 2.0,
        los=los(wins, losses),
        score=mu,
        games=n,
        draw_ratio=d,
    )


def _get_elo(counts: Sequence[float], draw_ratio: float | None = None) -> EloEstimate:
    # fishtest stat_util.get_elo on regularized counts (zeros -> 1e-3).
    r = [c if c > 0 else 1e-3 for c in counts]
    k = len(r)
    total = sum(r)
    games = total * (k - 1) / 2.0
    mu = sum(r[i] * (i / 2.0) for i in range(k)) / games
    mu_ = (k - 1) / 2.0 * mu
    var = sum(r[i] * (i / 2.0 - mu_) ** 2 for i in range(k)) / games
    se = math.sqrt(var) / math.sqrt(games)
    lo = mu + float(norm.ppf(0.025)) * se
    hi = mu + float(norm.ppf(0.975)) * se
    return EloEstimate(
        elo=_elo(mu),
        error=(_elo(hi) - _elo(lo)) / 2.0,
        los=float(norm.cdf((mu - 0.5) / se)) if se > 0 else (1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5),
        score=mu,
        games=sum(counts) * (k - 1) / 2.0,
        draw_ratio=draw_ratio,
    )


def pentanomial_estimate(counts: Sequence[float]) -> EloEstimate:
    """Elo, 95% margin and LOS from pair counts ``[LL, LD+DL, LW+DD+WL, DW+WD, WW]``.

    >>> e = pentanomial_estimate([5, 20, 40, 25, 10])
    >>> round(e.elo, 3), round(e.error, 3), round(e.los, 5)
    (26.107, 34.826, 0.93054)

    :raises RatingError: if there are not five non-negative counts or no pairs.
    """
    if len(counts) != 5 or min(counts) < 0:
        raise RatingError(f"need five non-negative pair counts, got {list(counts)}")
    if sum(counts) == 0:
        raise RatingError("no pairs")
    return _get_elo(list(counts))


def pentanomial_from_pairs(pairs: Sequence[tuple[float, float]]) -> list[int]:
    """Pair counts from per-pair game scores, e.g. ``[(1, 0.5), (0, 0)]`` -> ``[1, 0, 0, 1, 0]``.

    :raises RatingError: if a score is not 0, 0.5 or 1.
    """
    out = [0] * 5
    for s1, s2 in pairs:
        if s1 not in (0, 0.5, 1) or s2 not in (0, 0.5, 1):
            raise RatingError(f"game scores must be 0, 0.5 or 1, got {(s1, s2)}")
        out[int(round(2 * (s1 + s2)))] += 1
    return out


def format_estimate(e: EloEstimate) -> str:
    """cutechess-style one-liner.

    >>> format_estimate(trinomial_estimate(99, 97, 104))
    'Elo difference: 2.3 +/- 31.8, LOS: 55.7 %, DrawRatio: 34.7 %'
    """
    text = f"Elo difference: {e.elo:.1f} +/- {e.error:.1f}, LOS: {100 * e.los:.1f} %"
    if e.draw_ratio is not None:
        text += f", DrawRatio: {100 * e.draw_ratio:.1f} %"
    return text
