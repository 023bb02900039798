"""The shared conformance suite on both bridge presets.

Random rubbers almost never win two games (random auctions end in doubled grand
slams), so a random rubber plays all 30 deals of the cap (~1,900 actions). Here the
rubber preset runs with a cap of 3 deals over 5 seeds (every rubber code path: new
deals, rotation, cap scoring); the full preset runs in tests/conformance.
"""

from __future__ import annotations


from arena.games import get_game
from arena.testing.conformance import check_game


def _assert_coverage(report, matches: int) -> None:  # type: ignore[no-untyped-def]
    assert report.matches == matches and report.steps > 0
    assert report.leak_checks > 0 and report.sensitivity_checks > 0
    assert report.illegal_checks > 0 and report.serialize_checks > 0


def test_duplicate_preset_conforms() -> None:
    report = check_game(get_game("bridge", preset="duplicate"), seeds=range(5))
    _assert_coverage(report, 5)


def test_duplicate_other_boards_conform() -> None:
    game = get_game("bridge")
    for board in (2, 3, 4):
        class Board(type(game)):  # type: ignore[misc, valid-type]
            def _new_state(self, dealer, **kwargs):  # type: ignore[no-untyped-def]
                kwargs.setdefault("board", board)
                return super()._new_state(dealer, **kwargs)
        report = check_game(Board(), seeds=[board])
        _assert_coverage(report, 1)


def test_rubber_preset_conforms_short_cap() -> None:
    report = check_game(get_game("bridge", preset="rubber", deal_cap=3), seeds=range(5))
    _assert_coverage(report, 5)
    assert max(report.lengths) > 100  # several deals per match
