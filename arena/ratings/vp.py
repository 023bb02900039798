"""IMPs to Victory Points on the WBF continuous 20-VP scale, and the Elo score ``S = VP/20``.

For rating a duplicate team match at match level (ratings.md section 3.4,
option 1): ``VP_winner = min(20, 10 + 10 (1 - τ^(3M/X)) / (1 - τ³))``,
``τ = (√5 - 1)/2``, ``X = 15 √N`` for an N-board match and margin M IMPs;
rounded to two decimals, the loser gets ``20 - VP``. (The WBF's published table
also enforces concavity; expect ±0.01 against it on some rows.)

>>> wbf_vp(66, 65, 32)
(10.22, 9.78)
>>> round(vp_score(66, 65, 32), 3)
0.511
"""

from __future__ import annotations

import math

from arena.ratings.errors import RatingError

__all__ = ["TAU", "wbf_vp", "vp_score", "blitz_margin"]

TAU = (math.sqrt(5.0) - 1.0) / 2.0
"""The golden-ratio constant of the WBF scale."""


def blitz_margin(boards: int) -> float:
    """``X = 15 √N``: a margin at or above it wins 20-0.

    :raises RatingError: unless ``boards`` is positive.
    """
    if boards <= 0:
        raise RatingError(f"boards must be positive, got {boards}")
    return 15.0 * math.sqrt(boards)


def wbf_vp(imps_a: float, imps_b: float, boards: int) -> tuple[float, float]:
    """VPs of teams A and B (two decimals) for an ``boards``-board match.

    :raises RatingError: unless ``boards`` is positive.
    """
    x = blitz_margin(boards)
    m = abs(imps_a - imps_b)
    win = min(20.0, 10.0 + 10.0 * (1.0 - TAU ** (3.0 * m / x)) / (1.0 - TAU**3))
    win = round(win, 2)
    lose = round(20.0 - win, 2)
    return (win, lose) if imps_a >= imps_b else (lose, win)


def vp_score(imps_a: float, imps_b: float, boards: int) -> float:
    """Team A's fractional Elo score ``VP_A / 20``.

    :raises RatingError: unless ``boards`` is positive.
    """
    return wbf_vp(imps_a, imps_b, boards)[0] / 20.0
