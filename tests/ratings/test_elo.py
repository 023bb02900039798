"""Two-player and multi-player Elo formulas: ratings.md sections 1.3 and 2.3."""

from __future__ import annotations

import pytest

from arena.ratings.elo import (
    elo_from_score,
    elo_update,
    expected_score,
    pairwise_deltas,
    period_update,
)
from arena.ratings.errors import RatingError

# E1-E3: (R_A, R_B, K, E_A, {score: delta})
TWO_PLAYER = [
    ("E1", 1500, 1500, 20, 0.5, {1.0: 10.0}),
    ("E2", 1600, 1400, 20, 0.759747, {1.0: 4.805, 0.5: -5.195, 0.0: -15.195}),
    ("E3", 1400, 1600, 40, 0.240253, {1.0: 30.390}),
]


@pytest.mark.parametrize("name,ra,rb,k,e,deltas", TWO_PLAYER)
def test_two_player_vectors(name: str, ra: float, rb: float, k: float, e: float, deltas: dict[float, float]) -> None:
    assert expected_score(ra, rb) == pytest.approx(e, abs=1e-6)
    for s, d in deltas.items():
        assert elo_update(ra, s, expected_score(ra, rb), k) - ra == pytest.approx(d, abs=1e-3)
        # and through the multi-player routine with n = 2
        got = pairwise_deltas([ra, rb], [s, 1 - s], k)
        assert got[0] == pytest.approx(d, abs=1e-3)
        assert got[1] == pytest.approx(-d, abs=1e-3)


def test_e4_odds_ten_to_one() -> None:
    assert expected_score(1900, 1500) == pytest.approx(10 / 11, abs=1e-6)


def test_e5_fide_cap() -> None:
    assert expected_score(2500, 2000, cap=400) == pytest.approx(0.909091, abs=1e-6)
    assert expected_score(2500, 2000) == pytest.approx(0.946760, abs=1e-6)
    assert expected_score(2000, 2500, cap=400) == pytest.approx(1 - 0.909091, abs=1e-6)


def test_e6_rating_period() -> None:
    opponents = [1609, 1477, 1388, 1586, 1720]
    scores = [0, 0.5, 1, 1, 0]
    es = [expected_score(1613, r) for r in opponents]
    assert [round(e, 3) for e in es] == [0.506, 0.686, 0.785, 0.539, 0.351]
    assert sum(es) == pytest.approx(2.867, abs=1e-3)
    new = period_update(1613, opponents, scores, 32)
    assert new == pytest.approx(1601.27, abs=0.01)
    assert round(new) == 1601


def test_e7_portisch() -> None:
    assert elo_update(2635, 10.5, 9.66, 10) == pytest.approx(2643.4, abs=1e-9)


@pytest.mark.parametrize("p,d", [(0.75, 190.85), (0.76, 200.24), (0.5, 0.0), (10 / 11, 400.0)])
def test_e8_e9_elo_from_score(p: float, d: float) -> None:
    assert elo_from_score(p) == pytest.approx(d, abs=0.01)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5])
def test_elo_from_score_rejects_bounds(p: float) -> None:
    with pytest.raises(RatingError):
        elo_from_score(p)


def test_period_update_length_mismatch() -> None:
    with pytest.raises(RatingError):
        period_update(1500, [1500], [1, 0], 32)


# ratings.md 2.3: A=1600, B=1500, C=1500, D=1400, finish B, A, D, C; K=32
FOUR = [1600, 1500, 1500, 1400]


def test_four_player_pairwise() -> None:
    returns = [-2, -1, -4, -3]  # minus places
    got = pairwise_deltas(FOUR, returns, 32)
    assert got == pytest.approx([-0.425, 16.0, -16.0, 0.425], abs=1e-3)
    assert sum(got) == pytest.approx(0.0, abs=1e-12)


def test_four_player_identity_with_mean_expectation() -> None:
    # Delta_i = K (S_i - E_i) with S_i = share beaten, E_i = mean pairwise expectation.
    e_a = sum(expected_score(1600, r) for r in (1500, 1500, 1400)) / 3
    assert e_a == pytest.approx(0.6800, abs=1e-4)
    assert 32 * (2 / 3 - e_a) == pytest.approx(pairwise_deltas(FOUR, [-2, -1, -4, -3], 32)[0])


def test_four_player_tie_vector() -> None:
    got = pairwise_deltas(FOUR, [-1, -1, -3, -4], 32)
    assert got == pytest.approx([4.908, 10.667, -5.333, -10.241], abs=1e-3)


def test_pairwise_rejects_bad_input() -> None:
    with pytest.raises(RatingError):
        pairwise_deltas([1500], [1], 32)
    with pytest.raises(RatingError):
        pairwise_deltas([1500, 1500], [1], 32)


# Other published multi-player methods give other numbers (ratings.md 2.3); ours is
# pairwise K/(n-1). multielo's two-player README vectors coincide with classic Elo.
def test_multielo_two_player_vectors_match_classic_elo() -> None:
    assert [r + d for r, d in zip([1200, 1000], pairwise_deltas([1200, 1000], [1, 0], 32))] == pytest.approx(
        [1207.68809835, 992.31190165], abs=1e-6
    )
    assert [r + d for r, d in zip([900, 1000], pairwise_deltas([900, 1000], [1, 0], 32))] == pytest.approx(
        [920.48207999, 979.51792001], abs=1e-6
    )


def test_four_player_differs_from_multielo_and_kerrigan() -> None:
    ours = pairwise_deltas(FOUR, [-2, -1, -4, -3], 32)
    assert ours[1] == pytest.approx(16.0, abs=1e-3)
    assert ours[1] != pytest.approx(24.0, abs=0.1)  # multielo, K=32 (2K/N per pair)
    assert ours[1] != pytest.approx(20.482, abs=0.1)  # Kerrigan SME
    # multielo's per-pair factor 2K/N reproduces its column: B +24.000
    multielo = pairwise_deltas(FOUR, [-2, -1, -4, -3], 2 * 32 / 4 * 3)
    assert multielo == pytest.approx([-0.638, 24.0, -24.0, 0.638], abs=1e-3)


def test_multielo_three_way_vector_with_its_per_pair_factor() -> None:
    # multielo = pairwise with 2K/N per pair, i.e. our routine with k' = 2K(N-1)/N.
    ratings = [1200, 900, 1000]
    got = [r + d for r, d in zip(ratings, pairwise_deltas(ratings, [3, 2, 1], 2 * 32 * 2 / 3))]
    assert got == pytest.approx([1208.34629612, 910.43382278, 981.21988111], abs=1e-6)
    ours = [r + d for r, d in zip(ratings, pairwise_deltas(ratings, [3, 2, 1], 32))]
    assert ours[0] != pytest.approx(1208.34629612, abs=0.1)
