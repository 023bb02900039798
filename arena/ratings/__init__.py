"""Ratings and statistics for the arena (pure; numpy/scipy; no I/O except plotting).

* :mod:`~arena.ratings.result` -- :class:`MatchResult`, the input of every rater.
* :mod:`~arena.ratings.comparisons` -- how results become weighted pairwise comparisons
  (multi-player, partnerships, duplicate deals).
* :mod:`~arena.ratings.elo` -- Elo formulas; :mod:`~arena.ratings.book` -- the online
  :class:`RatingBook` keyed by (ruleset, bot).
"""

from __future__ import annotations

from arena.ratings.book import EloConfig, RatingBook
from arena.ratings.comparisons import Comparison, DealLedger
from arena.ratings.elo import elo_from_score, expected_score, pairwise_deltas, period_update
from arena.ratings.errors import RatingError
from arena.ratings.rater import HistoryPoint, Rater, RatingSummary
from arena.ratings.result import MatchResult

__all__ = [
    "Comparison",
    "DealLedger",
    "EloConfig",
    "HistoryPoint",
    "MatchResult",
    "Rater",
    "RatingBook",
    "RatingError",
    "RatingSummary",
    "elo_from_score",
    "expected_score",
    "pairwise_deltas",
    "period_update",
]
