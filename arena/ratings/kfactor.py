"""K-factor conventions (ratings.md section 1.2), for leagues that want FIDE- or USCF-like K.

The online :class:`~arena.ratings.book.RatingBook` uses one fixed K per book;
these helpers compute the K a league may choose per bot or per event.

>>> fide_k(games=10, rating=1800)
40
>>> fide_period_k(40, 20)
35
>>> round(uscf_k(20, 6), 2)
30.77
"""

from __future__ import annotations

import math

from arena.ratings.errors import RatingError

__all__ = ["fide_k", "fide_period_k", "fide_round", "uscf_k"]


def fide_k(*, games: int, rating: float, reached_2400: bool = False, junior: bool = False) -> int:
    """FIDE K (regulations of 1 March 2024, section 8.3).

    40 until 30 rated games; 40 for a junior (to the end of the year of the
    18th birthday) rated under 2300; 10 once the rating has reached 2400 (for
    good); else 20.

    :raises RatingError: if ``games`` is negative.
    """
    if games < 0:
        raise RatingError(f"games must be non-negative, got {games}")
    if games < 30:
        return 40
    if junior and rating < 2300:
        return 40
    if reached_2400 or rating >= 2400:
        return 10
    return 20


def fide_period_k(k: int, n: int) -> int:
    """FIDE's cap: if ``K * n > 700`` for the ``n`` games of a period, K becomes the largest whole number with ``K * n <= 700``.

    :raises RatingError: if ``n`` is negative.
    """
    if n < 0:
        raise RatingError(f"n must be non-negative, got {n}")
    if n == 0 or k * n <= 700:
        return k
    return 700 // n


def fide_round(change: float) -> int:
    """Round a period's rating change to a whole number, 0.5 away from zero (FIDE 8.3.4).

    >>> fide_round(2.5), fide_round(-2.5), fide_round(-11.73)
    (3, -3, -12)
    """
    return int(math.copysign(math.floor(abs(change) + 0.5), change))


def uscf_k(n_effective: float, m: int) -> float:
    """US Chess full K: ``800 / (N' + m)`` (``N'`` effective prior games, ``m`` games in the event).

    :raises RatingError: if ``N' + m`` is not positive.
    """
    if n_effective + m <= 0:
        raise RatingError("N' + m must be positive")
    return 800.0 / (n_effective + m)
