"""MatchResult validation and sides."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.result import MatchResult


def test_sides_with_teams() -> None:
    r = MatchResult("b@1", ["n", "e", "s", "w"], [1, -1, 3, -3], teams=[[0, 2], [1, 3]])
    assert r.sides() == [((0, 2), ("n", "s"), 2.0), ((1, 3), ("e", "w"), -2.0)]


@pytest.mark.parametrize(
    "seats,returns,teams",
    [
        (["a"], [1], None),
        (["a", "b"], [1], None),
        (["a", "b"], [1, float("nan")], None),
        (["a", "b", "c"], [1, 2, 3], [[0, 1]]),
        (["a", "b", "c"], [1, 2, 3], [[0, 1], [1, 2]]),
        (["a", "b"], [1, 2], [[0, 1]]),
        (["a", "b"], [1, 2], [[0, 1], []]),
    ],
)
def test_invalid(seats: list[str], returns: list[float], teams: list[list[int]] | None) -> None:
    with pytest.raises(RatingError):
        MatchResult("g@1", seats, returns, teams=teams)


def test_from_record_and_hashable() -> None:
    rec = SimpleNamespace(ruleset="g@1", seats=["a", "b"], returns=[2, 1], match_id="m1")
    r = MatchResult.from_record(rec, deal_id="7")
    assert (r.match_id, r.deal_id, r.returns) == ("m1", "7", (2.0, 1.0))
    assert hash(r) == hash(MatchResult("g@1", ("a", "b"), (2, 1), deal_id="7", match_id="m1"))
