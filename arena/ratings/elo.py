"""Elo formulas (logistic, 400 scale), as pure functions.

``E_A = 1 / (1 + 10^((R_B - R_A)/400))``; ``R' = R + K (S - E)``;
``D(p) = -400 log10(1/p - 1)``. See ratings.md section 1.

>>> round(expected_score(1900, 1500), 6)
0.909091
>>> round(elo_from_score(0.75), 2)
190.85
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena.ratings.errors import RatingError

__all__ = [
    "expected_score",
    "elo_from_score",
    "elo_update",
    "period_update",
    "pairwise_deltas",
]


def expected_score(r_a: float, r_b: float, *, cap: float | None = None) -> float:
    """Expected score of a player rated ``r_a`` against one rated ``r_b``.

    :param cap: if given, a rating difference larger than ``cap`` counts as
        ``cap`` (FIDE's 400-point rule uses ``cap=400``).
    """
    d = r_b - r_a
    if cap is not None:
        d = max(-cap, min(cap, d))
    return 1.0 / (1.0 + math.pow(10.0, d / 400.0))


def elo_from_score(p: float) -> float:
    """Elo difference that makes ``p`` the expected score: ``-400 log10(1/p - 1)``.

    :raises RatingError: if ``p`` is not strictly between 0 and 1.
    """
    if not 0.0 < p < 1.0:
        raise RatingError(f"score fraction must be in (0, 1), got {p}")
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_update(rating: float, score: float, expected: float, k: float) -> float:
    """``rating + k * (score - expected)`` (``score`` and ``expected`` may be sums)."""
    return rating + k * (score - expected)


def period_update(
    rating: float,
    opponents: Sequence[float],
    scores: Sequence[float],
    k: float,
    *,
    cap: float | None = None,
) -> float:
    """Rating after a period of games against ``opponents`` with ``scores``: ``R + K (sum S - sum E)``.

    :raises RatingError: if ``opponents`` and ``scores`` differ in length.
    """
    if len(opponents) != len(scores):
        raise RatingError(f"{len(opponents)} opponents but {len(scores)} scores")
    e = sum(expected_score(rating, r, cap=cap) for r in opponents)
    return elo_update(rating, sum(scores), e, k)


def pairwise_deltas(
    ratings: Sequence[float], returns: Sequence[float], k: float, *, cap: float | None = None
) -> list[float]:
    """Rating changes of one multi-player table by pairwise decomposition with ``k/(n-1)``.

    Higher return is better; equal returns tie. For ``n = 2`` this is classic Elo.

    >>> [round(d, 3) for d in pairwise_deltas([1600, 1500, 1500, 1400], [3, 4, 1, 2], 32)]
    [-0.425, 16.0, -16.0, 0.425]

    :raises RatingError: if there are fewer than two players or the lengths differ.
    """
    n = len(ratings)
    if n < 2 or len(returns) != n:
        raise RatingError(f"need >= 2 players and one return each, got {n} and {len(returns)}")
    kp = k / (n - 1)
    deltas = [0.0] * n
    for i in range(n):
        for j in range(i + 1, n):
            s = 1.0 if returns[i] > returns[j] else 0.5 if returns[i] == returns[j] else 0.0
            d = kp * (s - expected_score(ratings[i], ratings[j], cap=cap))
            deltas[i] += d
            deltas[j] -= d
    return deltas
