"""The Sprt object: decisions, trinomial and pentanomial feeding."""

from __future__ import annotations

import random

import pytest

from arena.ratings.errors import RatingError
from arena.ratings.sprt import Sprt, SprtDecision


def test_fishtest_unit_vector_continues() -> None:
    t = Sprt(-3, 1, 0.05, 0.05, pentanomial=True)
    t.add_counts(pairs=[10789, 19328, 33806, 19402, 10543])
    assert t.llr == pytest.approx(2.131068, abs=1e-6)
    assert t.upper == pytest.approx(2.944439, abs=1e-6)
    assert t.decision is SprtDecision.CONTINUE


def test_cutechess_vectors_decisions() -> None:
    t = Sprt(0, 10, 0.01, 0.01, model="bayeselo")
    t.add_counts(wins=3, losses=149, draws=1)
    assert t.llr == pytest.approx(-4.69, abs=0.01)
    assert t.lower == pytest.approx(-4.60, abs=0.01)
    assert t.decision is SprtDecision.ACCEPT_H0
    t = Sprt(0, 10, 0.01, 0.01, model="bayeselo")
    t.add_counts(wins=1477, losses=1351, draws=2942)
    assert t.llr == pytest.approx(2.52, abs=0.01)
    assert t.decision is SprtDecision.CONTINUE


def test_normalized_pentanomial() -> None:
    t = Sprt(0, 5, model="normalized", pentanomial=True)
    t.add_counts(pairs=[5, 20, 40, 25, 10])
    assert t.llr == pytest.approx(0.278310, abs=1e-6)


def test_feeding_games_equals_counts() -> None:
    a = Sprt(0, 10)
    for s in [1] * 60 + [0] * 40 + [0.5] * 100:
        a.add_game(s)
    assert a.counts == [40, 100, 60]
    assert a.llr == pytest.approx(0.988083, abs=1e-6)


def test_pairs_feeding() -> None:
    p = Sprt(0, 5, pentanomial=True)
    pairs = [(0, 0)] * 5 + [(0, 0.5)] * 20 + [(1, 0)] * 20 + [(0.5, 0.5)] * 20 + [(1, 0.5)] * 25 + [(1, 1)] * 10
    for a, b in pairs:
        p.add_pair(a, b)
    assert p.counts == [5, 20, 40, 25, 10]
    assert p.llr == pytest.approx(0.374955, abs=1e-6)
    t = Sprt(0, 5)
    t.add_pair(1, 0.5)
    assert t.counts == [0, 1, 1]


def test_strong_candidate_accepts_h1_and_weak_accepts_h0() -> None:
    rng = random.Random(3)
    strong = Sprt(0, 20)
    while strong.decision is SprtDecision.CONTINUE:
        strong.add_game(rng.choices([1, 0.5, 0], weights=[0.5, 0.3, 0.2])[0])
    assert strong.decision is SprtDecision.ACCEPT_H1
    weak = Sprt(0, 20, pentanomial=True)
    while weak.decision is SprtDecision.CONTINUE:
        weak.add_pair(rng.choice([0, 0.5, 1, 0]), rng.choice([0, 0.5, 1, 0]))
    assert weak.decision is SprtDecision.ACCEPT_H0


def test_empty_test_continues() -> None:
    t = Sprt(0, 5)
    assert t.llr == 0.0 and t.decision is SprtDecision.CONTINUE and t.samples == 0


def test_invalid_use() -> None:
    with pytest.raises(RatingError):
        Sprt(5, 0)
    with pytest.raises(RatingError):
        Sprt(0, 5, model="bogus")  # type: ignore[arg-type]
    with pytest.raises(RatingError):
        Sprt(0, 5, model="bayeselo", pentanomial=True)
    with pytest.raises(RatingError):
        Sprt(0, 5, pentanomial=True).add_game(1)
    with pytest.raises(RatingError):
        Sprt(0, 5).add_game(0.7)
    with pytest.raises(RatingError):
        Sprt(0, 5).add_pair(2, 0)
    with pytest.raises(RatingError):
        Sprt(0, 5).add_counts(pairs=[1, 2, 3, 4, 5])
    with pytest.raises(RatingError):
        Sprt(0, 5, pentanomial=True).add_counts(wins=3)
    with pytest.raises(RatingError):
        Sprt(0, 5).add_counts(wins=-1)
