"""OpenSkill backend: the package's vectors (ratings.md section 7, openskill 6.2.0)."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.openskill_backend import OpenSkillRater
from arena.ratings.result import MatchResult

RS = "g@1"


def test_two_vs_two_readme_vector() -> None:
    r = OpenSkillRater()
    r.record(MatchResult(RS, ["a1", "b1", "a2", "b2"], [1, 0, 1, 0], teams=[[0, 2], [1, 3]]))
    for w in ("a1", "a2"):
        assert r.get(RS, w) == pytest.approx((26.964294621803063, 8.177962604389991), abs=1e-9)
    for l in ("b1", "b2"):
        assert r.get(RS, l) == pytest.approx((23.035705378196937, 8.177962604389991), abs=1e-9)


FOUR = {
    "A": (26.5529, 8.1796, 2.0141),
    "B": (27.7953, 8.2636, 3.0045),
    "C": (20.9624, 8.0841, -3.2900),
    "D": (24.6894, 8.0841, 0.4370),
}


def test_four_players_finish_b_a_d_c() -> None:
    r = OpenSkillRater()
    r.record(MatchResult.from_places(RS, ["A", "B", "C", "D"], [2, 1, 4, 3]))
    for bot, (mu, sigma, ordinal) in FOUR.items():
        assert r.get(RS, bot) == pytest.approx((mu, sigma), abs=1e-4)
        assert r.ordinal(RS, bot) == pytest.approx(ordinal, abs=1e-4)


def test_scores_rank_like_places() -> None:
    r = OpenSkillRater()
    r.record(MatchResult(RS, ["A", "B", "C", "D"], [120, 340, 90, 200]))
    # scores rank B, D, A, C
    assert r.get(RS, "B")[0] == pytest.approx(27.7953, abs=1e-4)
    assert r.get(RS, "D")[0] == pytest.approx(26.5529, abs=1e-4)
    assert r.get(RS, "A")[0] == pytest.approx(24.6894, abs=1e-4)
    assert r.get(RS, "C")[0] == pytest.approx(20.9624, abs=1e-4)


def test_model_predictions_from_the_package() -> None:
    model = OpenSkillRater().model
    fresh = [[model.rating()] for _ in range(4)]
    assert model.predict_win(fresh) == pytest.approx([0.25] * 4)
    assert model.predict_draw(fresh[:2]) == pytest.approx(0.237074, abs=1e-6)


def test_duplicate_and_recompute() -> None:
    results = [
        MatchResult(RS, ["a", "b"], [5, -5], deal_id="d"),
        MatchResult(RS, ["b", "a"], [1, -1], deal_id="d"),  # a better on both seats
        MatchResult(RS, ["a", "a", "b"], [1, 2, 0]),  # a bot on two seats
        MatchResult(RS, ["c", "b"], [0, 0]),
    ]
    r = OpenSkillRater("BradleyTerryFull")
    r.record_all(results)
    assert r.get(RS, "a")[0] > 25 > r.get(RS, "b")[0]
    again = r.recompute(results)
    assert {b: again.get(RS, b) for b in "abc"} == {b: r.get(RS, b) for b in "abc"}


def test_unknown_model() -> None:
    with pytest.raises(RatingError):
        OpenSkillRater("Nope")
