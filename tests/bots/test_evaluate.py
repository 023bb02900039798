"""Duplicate comparison of bots: seating, rotations and statistics."""

from __future__ import annotations

import math
from typing import Any

from arena.bots.evaluate import _assignment, compare_bots, mean_interval, seating
from arena.testing.toy import HighcardGame


def test_mean_interval_matches_t_distribution() -> None:
    iv = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert iv.mean == 2.5
    # t(0.975, 3) = 3.182446; sd = 1.290994; half = 3.182446 * 1.290994 / 2
    assert math.isclose(iv.half_width, 3.182446 * 1.290994 / 2, rel_tol=1e-5)


def test_rotations_give_every_entrant_every_unit() -> None:
    game = HighcardGame()
    units, rot = seating(game, 2)
    assert units == [[0], [1]] and rot == 2
    assert [_assignment(units, 2, r, 2) for r in range(2)] == [[0, 1], [1, 0]]
    units5 = [[s] for s in range(5)]
    table = [_assignment(units5, 2, r, 5) for r in range(5)]
    assert table[0] == [0, 1, 0, 1, 0] and table[1] == [0, 0, 1, 0, 1]
    for seat in range(5):  # each seat sees entrant 0 three times and 1 twice
        assert sorted(t[seat] for t in table) == [0, 0, 0, 1, 1]


def test_same_bots_duplicate_margin_is_exactly_zero(toy_registered: str) -> None:
    # Highcard is a pure card-luck game for random bots with the same seed stream
    # per seat... but bot seeds differ per rotation, so compare luck-free facts:
    game = HighcardGame()
    cmp = compare_bots(game, ["random", "random"], deals=20, seed=3)
    assert cmp.rotations == 2 and len(cmp.results) == 20
    for d in cmp.results:
        m0, m1 = d.matches
        assert m0.record.decks == m1.record.decks  # same cards in both rotations
        assert m0.record.seats == ["random", "random"]
        assert math.isclose(d.margin or 0.0, (d.scores[0] - d.scores[1]))
        assert d.point_margin == d.margin  # highcard's points are its returns
    assert cmp.entrants[0].expected_win_rate == 0.5
    assert cmp.faults == 0


def test_processes_give_the_same_result(toy_registered: str) -> None:
    game = HighcardGame()
    a = compare_bots(game, ["random", "random"], deals=6, seed=4)
    b = compare_bots(game, ["random", "random"], deals=6, seed=4, jobs=2)
    strip = lambda c: [(r.deal, r.scores, r.wins) for r in c.results]  # noqa: E731
    assert strip(a) == strip(b)
    got: dict[str, Any] = a.to_dict()
    assert got["deals"] == 6 and got["margin"]["n"] == 6


def test_point_margin_uses_the_games_points() -> None:
    from arena.games import get_game

    game = get_game("canasta", preset="classic-2p", deals=1)
    cmp = compare_bots(game, ["random", "random"], deals=2, seed=5)
    for d in cmp.results:
        per_rotation = []
        for m in d.matches:
            pts = game.match_points(m.state)
            per_rotation.append(pts)
            assert pts == [float(m.state.scores[side]) for side in game.rules.side_of]
        # rotation 0: entrant 0 at seat 0; rotation 1: entrant 0 at seat 1
        expected = ((per_rotation[0][0] - per_rotation[0][1]) + (per_rotation[1][1] - per_rotation[1][0])) / 2
        assert math.isclose(d.point_margin or 0.0, expected)
    assert cmp.point_margin is not None and cmp.point_margin.n == 2
