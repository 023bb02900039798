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
    # 60 W / 40 L / 100 D: p = 0.55 over 200 games; a draw varies less than a win or a
    # loss, so the variance of one game's score is p(1-p) - d/4, not p(1-p).
    fit = fit_bradley_terry(_games("a", "b", 60, 40, 100), prior=0)
    p, n, d = 0.55, 200, 0.5
    diff = fit.rating("a") - fit.rating("b")
    assert diff == pytest.approx(-400 * math.log10(1 / p - 1), abs=1e-6)
    sd_diff = ELO_PER_NAT * math.sqrt(p * (1 - p) - d / 4) / (p * (1 - p) * math.sqrt(n))
    assert fit.error("a") == pytest.approx(1.959964 * sd_diff / 2, rel=1e-5)
    z = diff / sd_diff
    assert fit.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), abs=1e-9)
    m = fit.los_matrix()
    assert m[0, 1] + m[1, 0] == pytest.approx(1.0)
    assert m[0, 0] == 0.5


def test_no_draws_interval_is_the_inverse_hessian() -> None:
    # 60 W / 40 L: the binomial variance p(1-p) per game, nothing to correct.
    fit = fit_bradley_terry(_games("a", "b", 60, 40), prior=0)
    p, n = 0.6, 100
    sd_diff = ELO_PER_NAT / math.sqrt(n * p * (1 - p))
    assert fit.error("a") == pytest.approx(1.959964 * sd_diff / 2, rel=1e-6)


# ratings.md section 4.3: cutechess-cli's "Elo difference: x +/- y, LOS: z %" for W-L-D.
# The fit's interval is the delta-method one (cutechess transforms the score interval's
# ends), so the +/- agree within 2%; the Elo difference and the LOS agree exactly.
CUTECHESS = [
    (60, 40, 100, 34.86, 34.11, 97.72),
    (99, 97, 104, 2.32, 31.82, 55.68),
    (45, 37, 18, 27.85, 62.41, 81.15),
    (152, 105, 43, 54.88, 36.86, 99.83),
    (62, 32, 6, 107.54, 70.08, 99.90),
    (92, 112, 96, -23.20, 32.51, 8.07),
]


@pytest.mark.parametrize("w, l, d, elo, error, los", CUTECHESS)
def test_two_players_match_cutechess(w: int, l: int, d: int, elo: float, error: float, los: float) -> None:
    fit = fit_bradley_terry(_games("a", "b", w, l, d), prior=0)
    assert fit.rating("a") - fit.rating("b") == pytest.approx(elo, abs=0.01)
    half_width_of_diff = 2 * fit.error("a")  # two players: each is half the difference from the mean
    assert half_width_of_diff == pytest.approx(error, rel=0.02)
    assert 100 * fit.los("a", "b") == pytest.approx(los, abs=0.1)


def test_intervals_with_draws_agree_with_a_bootstrap_of_the_fit() -> None:
    """A parametric fit's 95% intervals against 1,000 bootstrap refits (resampled games,
    same prior), three players, ~20% draws. The uncorrected inverse Hessian was ~12% too
    wide here; the draw-corrected covariance must agree within 5%."""
    rng = np.random.default_rng(2024)
    true = np.array([0.0, 60.0, -40.0])
    n = 3000
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    p_win = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
    u = rng.random(n)
    s = np.where(u < 0.2, 0.5, np.where(u < 0.2 + 0.8 * p_win, 1.0, 0.0))
    assert 0.18 < np.mean(s == 0.5) < 0.22
    fit = fit_pairs(a, b, s, names=list("abc"))
    # the bootstrap: resample the games (multinomially, as counts of each distinct game)
    cells, counts = np.unique(np.stack([a, b, s]), axis=1, return_counts=True)
    boot = []
    for _ in range(1000):
        k = rng.multinomial(n, counts / n)
        keep = k > 0
        f = fit_pairs(cells[0, keep].astype(int), cells[1, keep].astype(int), cells[2, keep], k[keep],
                      names=list("abc"))
        boot.append(f.ratings)
    sd = np.std(np.array(boot), axis=0, ddof=1)
    np.testing.assert_allclose(fit.errors, 1.959964 * sd, rtol=0.05)
    # differences too (what the LOS uses)
    c = fit.covariance
    boot_diff = np.array(boot)[:, 1] - np.array(boot)[:, 0]
    assert math.sqrt(c[0, 0] + c[1, 1] - 2 * c[0, 1]) == pytest.approx(np.std(boot_diff, ddof=1), rel=0.05)


def test_prior_is_bayeselo_virtual_draws_of_a_win_and_a_loss() -> None:
    # BayesElo 0058 prints 88.74 Elo for a 3-1 score with its default prior of 2 virtual
    # draws: a virtual draw counts as one win plus one loss, so 3-1 plus 2 W + 2 L is 5-3
    # and 400 log10(5/3) = 88.74.
    fit = fit_bradley_terry(_games("a", "b", 3, 1), prior=2)
    assert fit.rating("a") - fit.rating("b") == pytest.approx(88.74, abs=0.005)
    assert fit.rating("a") - fit.rating("b") == pytest.approx(400 * math.log10(5 / 3), abs=1e-6)
    # prior=1: one win and one loss, 4-2
    one = fit_bradley_terry(_games("a", "b", 3, 1), prior=1)
    assert one.rating("a") - one.rating("b") == pytest.approx(400 * math.log10(2), abs=1e-6)
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
