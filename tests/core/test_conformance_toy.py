"""The conformance suite itself, on the toy game: it passes, and it catches leaks."""

from __future__ import annotations

import pytest

from arena.testing.conformance import check_game
from arena.testing.toy import HighcardGame, HighcardObservation, HighcardState


def test_toy_game_conforms() -> None:
    report = check_game(HighcardGame(), seeds=range(5), leak_every=1)
    assert report.matches == 5 and report.steps == 30
    assert report.leak_checks > 50 and report.sensitivity_checks > 0
    assert report.illegal_checks == 30 and report.serialize_checks > 0


class LeakyState(HighcardState):
    def observation(self, seat: int) -> HighcardObservation:
        obs = super().observation(seat)
        return HighcardObservation(obs.seat, obs.hand + (self.deck[6],), obs.played, obs.wins, obs.to_play)


class LeakyGame(HighcardGame):
    def _new_state(self, dealer, **kwargs):  # type: ignore[no-untyped-def]
        return LeakyState(self, dealer)


def test_leak_is_caught() -> None:
    with pytest.raises(AssertionError, match="observation changed when hidden cards"):
        check_game(LeakyGame(), seeds=range(3), leak_every=1, leak_tries=20)


class NonConservingState(HighcardState):
    def _apply_action(self, action):  # type: ignore[no-untyped-def]
        super()._apply_action(action)
        self.deck = self.deck[:-1]


class NonConservingGame(HighcardGame):
    def _new_state(self, dealer, **kwargs):  # type: ignore[no-untyped-def]
        return NonConservingState(self, dealer)


def test_lost_card_is_caught() -> None:
    with pytest.raises(AssertionError, match="not conserved"):
        check_game(NonConservingGame(), seeds=[1])
