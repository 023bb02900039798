"""Ratings and statistics for the arena (pure: numpy/scipy; no I/O except :mod:`~arena.ratings.plot`).

Input
    :class:`MatchResult` (:mod:`~arena.ratings.result`): ruleset, bot per seat,
    per-seat returns, optional partnerships and duplicate deal id.
    :mod:`~arena.ratings.comparisons` turns results into weighted pairwise
    comparisons of sides (multi-player ``K/(n-1)``, partnerships by mean,
    duplicate deals seat by seat); every rater below rates the same comparisons.

Online raters (one interface, :class:`Rater`; pick one with :func:`make_rater`)
    :class:`RatingBook` (Elo, :mod:`~arena.ratings.book`), :class:`Glicko2Rater`
    (:mod:`~arena.ratings.glicko2`), :class:`OpenSkillRater`
    (:mod:`~arena.ratings.openskill_backend`). Ratings are keyed by
    ``(ruleset, bot)``; ``recompute(results)`` equals recording them online.

Batch
    :func:`fit_bradley_terry` / :func:`fit_pairs` (:mod:`~arena.ratings.bradley_terry`):
    maximum likelihood with 95% intervals and the LOS matrix.

Match statistics and SPRT
    :mod:`~arena.ratings.match_stats` (Elo ± margin, LOS, trinomial and
    pentanomial), :mod:`~arena.ratings.llr` and :class:`Sprt` (:mod:`~arena.ratings.sprt`);
    :class:`SprtFeeder` (:mod:`~arena.ratings.gauntlet`) feeds a gauntlet's results,
    pairing the two tables of each duplicate deal.

Formulas and conventions
    :mod:`~arena.ratings.elo`, :mod:`~arena.ratings.kfactor`,
    :mod:`~arena.ratings.bayeselo`, :mod:`~arena.ratings.vp`.

Output
    :mod:`~arena.ratings.report` (rows, table text, CSV, JSON) and
    :func:`arena.ratings.plot.plot_history` (imported on demand: matplotlib).
"""

from __future__ import annotations

from arena.ratings.book import EloConfig, RatingBook
from arena.ratings.bradley_terry import BTFit, fit_bradley_terry, fit_comparisons, fit_pairs
from arena.ratings.comparisons import Comparison, DealLedger
from arena.ratings.elo import elo_from_score, expected_score, pairwise_deltas, period_update
from arena.ratings.errors import RatingError
from arena.ratings.factory import BACKENDS, RATERS, make_rater, rater_class
from arena.ratings.gauntlet import SprtFeeder, candidate_score
from arena.ratings.glicko2 import Glicko2Rater, Glicko2Rating, glicko2_update
from arena.ratings.match_stats import EloEstimate, los, pentanomial_estimate, trinomial_estimate
from arena.ratings.openskill_backend import OpenSkillRater
from arena.ratings.rater import HistoryPoint, Rater, RatingSummary
from arena.ratings.report import format_table, ratings_table, to_csv, to_json
from arena.ratings.result import MatchResult
from arena.ratings.sprt import Sprt, SprtDecision

__all__ = [
    "BACKENDS",
    "RATERS",
    "BTFit",
    "Comparison",
    "DealLedger",
    "EloConfig",
    "EloEstimate",
    "Glicko2Rater",
    "Glicko2Rating",
    "HistoryPoint",
    "MatchResult",
    "OpenSkillRater",
    "Rater",
    "RatingBook",
    "RatingError",
    "RatingSummary",
    "Sprt",
    "SprtDecision",
    "SprtFeeder",
    "candidate_score",
    "elo_from_score",
    "expected_score",
    "fit_bradley_terry",
    "fit_comparisons",
    "fit_pairs",
    "format_table",
    "glicko2_update",
    "los",
    "make_rater",
    "rater_class",
    "pairwise_deltas",
    "pentanomial_estimate",
    "period_update",
    "ratings_table",
    "to_csv",
    "to_json",
    "trinomial_estimate",
]
