"""Glicko-2: Glickman's worked example (ratings.md section 6.2) and the online rater."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.glicko2 import Glicko2Rater, Glicko2Rating, glicko2_idle, glicko2_update
from arena.ratings.result import MatchResult

PLAYER = Glicko2Rating(1500, 200, 0.06)
OPPONENTS = [(1400, 30), (1550, 100), (1700, 300)]
SCORES = [1, 0, 0]


def test_glickman_published_example() -> None:
    new = glicko2_update(PLAYER, OPPONENTS, SCORES, tau=0.5)
    assert new.r == pytest.approx(1464.06, abs=0.01)
    assert new.rd == pytest.approx(151.52, abs=0.01)
    assert new.sigma == pytest.approx(0.05999, abs=1e-5)


def test_glickman_example_full_precision_regression() -> None:
    new = glicko2_update(PLAYER, OPPONENTS, SCORES, tau=0.5)
    assert new.r == pytest.approx(1464.0507, abs=1e-4)
    assert new.rd == pytest.approx(151.5165, abs=1e-4)
    assert new.sigma == pytest.approx(0.05999598, abs=1e-8)


def test_idle_period() -> None:
    assert glicko2_idle(PLAYER).rd == pytest.approx(200.27, abs=0.01)
    assert glicko2_update(PLAYER, [], [], tau=0.5) == glicko2_idle(PLAYER)


def test_weights_one_equal_unweighted() -> None:
    a = glicko2_update(PLAYER, OPPONENTS, SCORES, weights=[1, 1, 1])
    assert a == glicko2_update(PLAYER, OPPONENTS, SCORES)


def test_invalid() -> None:
    with pytest.raises(RatingError):
        glicko2_update(PLAYER, OPPONENTS, [1, 0])
    with pytest.raises(RatingError):
        glicko2_update(PLAYER, OPPONENTS, SCORES, tau=0)
    with pytest.raises(RatingError):
        glicko2_update(PLAYER, OPPONENTS, [2, 0, 0])
    with pytest.raises(RatingError):
        Glicko2Rater(tau=-1)


def test_rater_two_player_is_one_period() -> None:
    rater = Glicko2Rater()
    rater.record(MatchResult("g@1", ["a", "b"], [1, 0]))
    expected = glicko2_update(Glicko2Rating(), [(1500, 350)], [1])
    assert rater.get("g@1", "a") == expected
    s = rater.summary("g@1", "a")
    assert s.rating == expected.r and s.error == pytest.approx(1.959964 * expected.rd)
    assert rater.get("g@1", "b").r < 1500


def test_rater_recompute_and_partnerships() -> None:
    results = [
        MatchResult("g@1", ["n", "e", "s", "w"], [1, -1, 1, -1], teams=[[0, 2], [1, 3]]),
        MatchResult.from_places("g@1", ["n", "e", "x"], [3, 1, 2]),
        MatchResult("g@1", ["n", "x"], [2, 1], deal_id="d"),
        MatchResult("g@1", ["x", "n"], [3, 0], deal_id="d"),
    ]
    rater = Glicko2Rater(tau=0.4)
    rater.record_all(results)
    twin = Glicko2Rater(tau=0.4)
    twin.record_all(results)
    assert rater.get("g@1", "n") == twin.get("g@1", "n")  # deterministic: a second rater agrees
    assert rater.get("g@1", "n").r != Glicko2Rater(tau=0.4).get("g@1", "n").r  # and the results moved it
    again = rater.recompute(results)
    assert {b: again.get("g@1", b) for b in "nesxw"} == {b: rater.get("g@1", b) for b in "nesxw"}
    assert rater.standings("g@1") == again.standings("g@1")
