"""Batch Bradley-Terry fit: exact small cases, intervals, LOS, input paths."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings.bradley_terry import ELO_PER_NAT, fit_bradley_terry, fit_comparisons, fit_pairs
from arena.ratings.comparisons import DealLedger
from arena.ratings.errors import RatingError
from arena.ratings.result import MatchResult

RS = "g@1"


def _games(a: str, b: str, wins: int, losses: int, draws: int = 0) -> list[MatchResult]:
    return (
        [MatchResult(RS, [a, b], [1, 0])] * wins
        + [MatchResult(RS, [b, a], [1, 0])] * losses
        + [MatchResult(RS, [a, b], [0, 0])] * draws
    )


def test_two_players_mle_is_score_elo() -> None:
    fit = fit_bradley_terry(_games("a", "b", 3, 1), prior=0)
    assert fit.rating("a") - fit.rating("b") == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert fit.rating("a") + fit.rating("b") == pytest.approx(0.0, abs=1e-9)


def test_two_players_interval_and_los_analytic() -> None:
    # 60 W / 40 L / 100 D as fractional scores: p = 0.55 over 200 games.
    fit = fit_bradley_terry(_games("a", "b", 60, 40, 100), prior=0)
    p, n = 0.55, 200
    diff = fit.rating("a") - fit.rating("b")
    assert diff == pytest.approx(-400 * math.log10(1 / p - 1), abs=1e-6)
    sd_diff = ELO_PER_NAT / math.sqrt(n * p * (1 - p))
    assert fit.error("a") == pytest.approx(1.959964 * sd_diff / 2, rel=1e-5)
    z = diff / sd_diff
    assert fit.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), abs=1e-9)
    m = fit.los_matrix()
    assert m[0, 1] + m[1, 0] == pytest.approx(1.0)
    assert m[0, 0] == 0.5


def test_prior_is_two_virtual_draws_bayeselo_style() -> None:
    # 3-1 plus 2 virtual draws: score 4/6 for a.
    fit = fit_bradley_terry(_games("a", "b", 3, 1), prior=2)
    assert fit.rating("a") - fit.rating("b") == pytest.approx(400 * math.log10(2), abs=1e-6)
    # the real games and scores are reported without the prior
    assert fit.games.tolist() == [4.0, 4.0]
    assert fit.scores.tolist() == [3.0, 1.0]


def test_perfect_winner_finite_with_prior_and_fails_without() -> None:
    assert math.isfinite(fit_bradley_terry(_games("a", "b", 5, 0), prior=2).rating("a"))
    with pytest.raises(RatingError):
        fit_bradley_terry(_games("a", "b", 5, 0), prior=0)


def test_recovers_simulated_ratings() -> None:
    rng = np.random.default_rng(7)
    true = np.array([0.0, 50.0, 100.0, 200.0, -150.0])
    n = 20000
    a, b = rng.integers(0, 5, n), rng.integers(0, 5, n)
    p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
    s = (rng.random(n) < p).astype(float)
    fit = fit_pairs(a, b, s, names=list("abcde"))
    centered = true - true.mean()
    assert np.all(np.abs(fit.ratings - centered) < 2.5 * fit.errors)
    los = fit.los_matrix()
    assert los[3, 4] > 0.999  # d (200) surely above e (-150)


def test_result_paths_agree() -> None:
    rng = np.random.default_rng(3)
    names = ["a", "b", "c", "d"]
    a, b = rng.integers(0, 4, 400), rng.integers(0, 4, 400)
    s = rng.choice([0.0, 0.5, 1.0], 400)
    f1 = fit_pairs(a, b, s, names=names)
    results = [MatchResult(RS, [names[x], names[y]], [z, 1 - z]) for x, y, z in zip(a, b, s)]
    f2 = fit_bradley_terry(results)
    ledger = DealLedger()
    f3 = fit_comparisons(c for r in results for c in ledger.add(r))
    assert f2.players == f3.players == tuple(names)
    np.testing.assert_allclose(f1.ratings, f2.ratings, atol=1e-9)
    np.testing.assert_allclose(f2.ratings, f3.ratings, atol=1e-9)
    np.testing.assert_allclose(f1.covariance, f2.covariance, atol=1e-9)


def test_multiplayer_teams_and_duplicate_results() -> None:
    results = [
        MatchResult.from_places(RS, ["a", "b", "c", "d"], [1, 2, 3, 4]),
        MatchResult.from_places(RS, ["a", "b", "c", "d"], [2, 1, 4, 3]),
        MatchResult(RS, ["a", "c", "b", "d"], [1, -1, 1, -1], teams=[[0, 2], [1, 3]]),
        MatchResult(RS, ["a", "d"], [3, -3], deal_id="x"),
        MatchResult(RS, ["d", "a"], [1, -1], deal_id="x"),
        MatchResult(RS, ["d", "c"], [0, 0]),
    ]
    fit = fit_bradley_terry(results)
    assert set(fit.players) == {"a", "b", "c", "d"}
    assert fit.ratings.mean() == pytest.approx(0.0, abs=1e-9)
    assert fit.rating("a") > fit.rating("d")
    assert np.all(fit.errors > 0)


def test_anchor_and_offset() -> None:
    results = _games("a", "b", 6, 4) + _games("b", "c", 5, 5)
    fit = fit_bradley_terry(results, anchor="b", offset=2000)
    assert fit.rating("b") == pytest.approx(2000.0)
    assert fit.error("b") == pytest.approx(0.0, abs=1e-9)
    free = fit_bradley_terry(results, offset=1500)
    assert free.ratings.mean() == pytest.approx(1500.0)
    assert fit.rating("a") - fit.rating("c") == pytest.approx(free.rating("a") - free.rating("c"))
    # LOS does not depend on the reference point
    np.testing.assert_allclose(fit.los_matrix(), free.los_matrix(), atol=1e-9)
    rows = fit.table()
    assert [r["bot"] for r in rows][0] == "a"
    assert rows[0]["score"] == pytest.approx(0.6)


def test_ruleset_filter_and_errors() -> None:
    results = _games("a", "b", 2, 1) + [MatchResult("other@1", ["a", "b"], [0, 1])]
    with pytest.raises(RatingError):
        fit_bradley_terry(results)
    assert fit_bradley_terry(results, ruleset=RS).games.tolist() == [3.0, 3.0]
    with pytest.raises(RatingError):
        fit_bradley_terry(_games("a", "b", 1, 1) + _games("c", "d", 1, 1))
    with pytest.raises(RatingError):
        fit_bradley_terry([])
    with pytest.raises(RatingError):
        fit_bradley_terry(_games("a", "b", 1, 1), anchor="zz")
    with pytest.raises(RatingError):
        fit_bradley_terry(_games("a", "b", 1, 1), confidence=1.5)
    with pytest.raises(RatingError):
        fit_pairs([0, 1], [1], [1.0])
    with pytest.raises(RatingError):
        fit_bradley_terry(_games("a", "b", 1, 1)).rating("zz")


def test_fit_pairs_skips_players_without_games_and_self_games() -> None:
    fit = fit_pairs([0, 2, 2, 0], [2, 0, 2, 2], [1.0, 1.0, 1.0, 0.5], names=["a", "b", "c"])
    assert fit.players == ("a", "c")
    assert fit.games.tolist() == [3.0, 3.0]
