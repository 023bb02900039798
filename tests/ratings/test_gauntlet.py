"""SprtFeeder: gauntlet results into trinomial and pentanomial SPRTs."""

from __future__ import annotations

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.gauntlet import SprtFeeder, candidate_score
from arena.ratings.result import MatchResult
from arena.ratings.sprt import Sprt, SprtDecision

RS = "g@1"


def test_candidate_score_two_players_and_partnerships() -> None:
    assert candidate_score(MatchResult(RS, ["c", "r"], [1, 0]), "c") == 1.0
    assert candidate_score(MatchResult(RS, ["r", "c"], [1, 0]), "c") == 0.0
    assert candidate_score(MatchResult(RS, ["r", "c"], [2, 2]), "c") == 0.5
    bridge = MatchResult(RS, ["c", "r", "c", "r"], [-50, 50, -50, 50], teams=[[0, 2], [1, 3]])
    assert candidate_score(bridge, "c") == 0.0
    with pytest.raises(RatingError):
        candidate_score(MatchResult(RS, ["c", "r", "x"], [1, 0, 0]), "c")
    with pytest.raises(RatingError):
        candidate_score(MatchResult(RS, ["x", "r"], [1, 0]), "c")


def test_trinomial_feeding_matches_counts() -> None:
    feeder = SprtFeeder(Sprt(0, 10), "c")
    for w in range(60):
        feeder.add(MatchResult(RS, ["c", f"r{w % 3}"], [1, 0]))
    for _ in range(40):
        feeder.add(MatchResult(RS, ["r", "c"], [1, 0]))
    for _ in range(100):
        d = feeder.add(MatchResult(RS, ["r", "c"], [0, 0]))
    assert feeder.sprt.counts == [40, 100, 60]
    assert feeder.sprt.llr == pytest.approx(0.988083, abs=1e-6)
    assert d is SprtDecision.CONTINUE


def test_pentanomial_pairs_by_deal() -> None:
    feeder = SprtFeeder(Sprt(0, 5, pentanomial=True), "c")
    # deal 1: candidate wins at both tables -> WW; deal 2: win and draw -> DW
    feeder.add(MatchResult(RS, ["c", "r"], [3, 1], deal_id="1"))
    feeder.add(MatchResult(RS, ["c", "r"], [5, 1], deal_id="2"))
    assert feeder.pending == 2 and feeder.sprt.samples == 0
    feeder.add(MatchResult(RS, ["r", "c"], [0, 2], deal_id="1"))
    feeder.add(MatchResult(RS, ["r", "c"], [2, 2], deal_id="2"))
    assert feeder.sprt.counts == [0, 0, 0, 1, 1]
    assert feeder.pending == 0
    with pytest.raises(RatingError):
        feeder.add(MatchResult(RS, ["r", "c"], [0, 2], deal_id="1"))
    with pytest.raises(RatingError):
        feeder.add(MatchResult(RS, ["r", "c"], [0, 2]))


def test_pentanomial_stops_a_strong_candidate() -> None:
    feeder = SprtFeeder(Sprt(0, 50, pentanomial=True), "c")
    deal = 0
    decision = SprtDecision.CONTINUE
    while decision is SprtDecision.CONTINUE:
        deal += 1
        feeder.add(MatchResult(RS, ["c", "r"], [1, 0], deal_id=str(deal)))
        decision = feeder.add(MatchResult(RS, ["r", "c"], [deal % 3 == 0, 0], deal_id=str(deal)))
    assert decision is SprtDecision.ACCEPT_H1
