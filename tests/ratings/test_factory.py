"""make_rater: one interface, three backends."""

from __future__ import annotations

import pytest

from arena.ratings.book import RatingBook
from arena.ratings.errors import RatingError
from arena.ratings.factory import BACKENDS, make_rater
from arena.ratings.glicko2 import Glicko2Rater
from arena.ratings.openskill_backend import OpenSkillRater
from arena.ratings.result import MatchResult

RESULTS = [
    MatchResult("g@1", ["a", "b"], [1, 0]),
    MatchResult.from_places("g@1", ["a", "b", "c"], [2, 1, 3]),
    MatchResult("g@1", ["a", "b", "c", "d"], [1, 0, 1, 0], teams=[[0, 2], [1, 3]]),
    MatchResult("g@2", ["a", "b"], [0, 1]),
]


@pytest.mark.parametrize("kind,cls", [("elo", RatingBook), ("glicko2", Glicko2Rater), ("openskill", OpenSkillRater)])
def test_backends_share_the_interface(kind: str, cls: type) -> None:
    rater = make_rater(kind)
    assert isinstance(rater, cls) and rater.name == kind
    changes = rater.record(RESULTS[0])
    assert changes["a"] > 0 > changes["b"]
    rater.record_all(RESULTS[1:])
    assert rater.rulesets() == ["g@1", "g@2"]
    assert rater.bots("g@1") == ["a", "b", "c", "d"]
    rows = rater.standings("g@1")
    assert len(rows) == 4 and rows == sorted(rows, key=lambda s: -s.rating)
    assert rater.summary("g@1", "a").games == 3
    assert rater.summary("g@2", "b").last_change > 0
    hist = rater.history("g@1")
    assert [p.step for p in hist["a"]] == [1, 2, 3]
    assert rater.recompute(RESULTS).standings("g@1") == rows


def test_params_pass_through() -> None:
    assert make_rater("elo", k=10, initial=1000).summary("x", "y").rating == 1000
    assert make_rater("elo", seeds={("x", "y"): 1234.0}).summary("x", "y").rating == 1234.0
    assert make_rater("openskill", mu=30.0).summary("x", "y").rating == 30.0


def test_errors() -> None:
    with pytest.raises(RatingError):
        make_rater("trueskill")  # type: ignore[arg-type]
    with pytest.raises(RatingError):
        make_rater("glicko2", bogus=1)
    assert BACKENDS == ("elo", "glicko2", "openskill")
