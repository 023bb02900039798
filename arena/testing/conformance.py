"""The conformance suite: protocol invariants checked on seeded random playouts.

:func:`check_game` plays random matches of a game and checks at every step that

* legal actions are non-empty, unique, (for id games) sorted and in range, and the
  current player is a seat;
* an illegal action raises :class:`IllegalActionError`, a malformed one
  :class:`InvalidActionError`, and a refused action leaves the state unchanged;
* every listed action round-trips through ``action_to_string``/``string_to_action``;
* ``clone()`` is equal and independent, and ``serialize()`` round-trips;
* cards are conserved: all locations together hold exactly ``game.full_deck()``;
* the match ends within ``game.max_game_length`` actions; returns have one entry
  per seat and sum to zero for zero-sum games;
* the same seed gives the same history;
* **no leak**: for each seat, cards at positions hidden from it are exchanged in
  the realized decks, the history is replayed, and (when the replay is consistent)
  the seat's observation must be byte-identical; its own cards being exchanged
  must change it.

It is used by ``tests/conformance/`` for every registered game and preset, and
can be called on a game under development.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from arena.core.dealing import SeedStream
from arena.core.errors import ArenaError, IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL, Game, State, observation_to_dict

__all__ = ["ConformanceReport", "check_game", "observation_text", "random_playout"]


def observation_text(obs: Any) -> str:
    """Canonical JSON of an observation (what the leak test compares)."""
    return json.dumps(observation_to_dict(obs), sort_keys=True, separators=(",", ":"))


@dataclass
class ConformanceReport:
    """Counts of what was checked, so a test can assert the checks really ran."""

    matches: int = 0
    steps: int = 0
    leak_checks: int = 0
    leak_inconsistent: int = 0
    sensitivity_checks: int = 0
    illegal_checks: int = 0
    serialize_checks: int = 0
    lengths: list[int] = field(default_factory=list)


def random_playout(game: Game, seed: int, *, choice_seed: int | None = None,
                   init: dict[str, Any] | None = None) -> State:
    """Play a match to the end with uniformly random legal actions."""
    state = game.new_initial_state(seed=seed, **(init or {}))
    rng = SeedStream(f"playout|{seed if choice_seed is None else choice_seed}")
    limit = game.max_game_length
    while not state.is_terminal():
        if len(state.history) > limit:
            raise AssertionError(f"{game.name}: no end after {limit} actions (max_game_length)")
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _replay(game: Game, state: State, decks: list[list[str]]) -> State | None:
    """Replay ``state``'s history on other decks; ``None`` if it is inconsistent."""
    try:
        other = game.new_initial_state(seed=state.dealer.seed, decks=decks, **state._init_kwargs)
        for a in state.history:
            other.apply_action(a)
    except ArenaError:
        return None
    return other


def _check_leaks(game: Game, state: State, rng: SeedStream, report: ConformanceReport,
                 tries: int) -> None:
    decks = state.dealer.realized
    for seat in range(game.num_players):
        hidden = state.hidden_positions(seat)
        if len(hidden) < 2:
            continue
        base = observation_text(state.observation(seat))
        hidden_set = set(hidden)
        for _ in range(tries):
            (d1, p1), (d2, p2) = rng.choice(hidden), rng.choice(hidden)
            if decks[d1][p1] == decks[d2][p2]:
                continue
            swapped = [list(d) for d in decks]
            swapped[d1][p1], swapped[d2][p2] = swapped[d2][p2], swapped[d1][p1]
            other = _replay(game, state, swapped)
            if other is None:
                report.leak_inconsistent += 1
                continue
            got = observation_text(other.observation(seat))
            assert got == base, (
                f"{game.name}: seat {seat}'s observation changed when hidden cards "
                f"{decks[d1][p1]}@{(d1, p1)} and {decks[d2][p2]}@{(d2, p2)} were exchanged "
                f"after {len(state.history)} actions:\n{base}\n!=\n{got}")
            report.leak_checks += 1
        # Sensitivity: exchanging one of the seat's own visible cards for a hidden one
        # must change what it sees (the test above would otherwise pass vacuously).
        all_pos = [(d, p) for d, deck in enumerate(decks) for p in range(len(deck))]
        visible = [x for x in all_pos if x not in hidden_set]
        for _ in range(tries):
            if not visible:
                break
            (d1, p1), (d2, p2) = rng.choice(visible), rng.choice(hidden)
            if decks[d1][p1] == decks[d2][p2]:
                continue
            swapped = [list(d) for d in decks]
            swapped[d1][p1], swapped[d2][p2] = swapped[d2][p2], swapped[d1][p1]
            other = _replay(game, state, swapped)
            if other is None:
                continue
            if observation_text(other.observation(seat)) != base:
                report.sensitivity_checks += 1


def _check_step(game: Game, state: State, rng: SeedStream, report: ConformanceReport) -> None:
    n = game.num_players
    player = state.current_player()
    assert 0 <= player < n, f"{game.name}: current_player {player} is not a seat"
    legal = state.legal_actions()
    assert legal, f"{game.name}: no legal actions in a non-terminal state"
    assert len(set(legal)) == len(legal), f"{game.name}: duplicate legal actions"
    size = game.action_space_size
    if size is not None:
        assert all(type(a) is int and 0 <= a < size for a in legal), "ids out of range"
        assert legal == sorted(cast("list[int]", legal)), f"{game.name}: legal ids not sorted"
    for a in legal[:50]:
        text = state.action_to_string(a)
        assert state.string_to_action(text) == a, f"{game.name}: {text!r} does not round-trip"
    # Malformed and illegal actions raise and change nothing.
    before = len(state.history)
    try:
        state.string_to_action("no such action ###")
    except InvalidActionError:
        pass
    else:
        raise AssertionError(f"{game.name}: garbage text parsed as an action")
    if size is not None:
        for bad in (-1, size):
            try:
                state.apply_action(bad)
            except InvalidActionError:
                pass
            else:
                raise AssertionError(f"{game.name}: out-of-range id {bad} accepted")
        illegal = [a for a in range(size) if a not in set(legal)]
        if illegal:
            bad_id = rng.choice(illegal)
            try:
                state.apply_action(bad_id)
            except IllegalActionError as exc:
                assert exc.reason, "an illegal action must say why"
                report.illegal_checks += 1
            else:
                raise AssertionError(f"{game.name}: illegal id {bad_id} accepted")
    assert len(state.history) == before and state.legal_actions() == legal
    # Conservation.
    held: Counter[str] = Counter()
    for cards in state.card_locations().values():
        held.update(cards)
    assert held == Counter(game.full_deck()), (
        f"{game.name}: cards not conserved: extra {held - Counter(game.full_deck())}, "
        f"missing {Counter(game.full_deck()) - held}")
    for seat in range(n):
        state.observation(seat)


def _replay_to(game: Game, seed: int, actions: Sequence[Any]) -> State:
    state = game.new_initial_state(seed=seed)
    for a in actions:
        state.apply_action(a)
    return state


def _sample_steps(length: int, count: int) -> list[int]:
    """``count`` steps spread evenly over ``0 .. length`` (both ends included)."""
    if length <= count:
        return list(range(length + 1))
    return sorted({round(i * length / (count - 1)) for i in range(count)})


def check_game(game: Game, seeds: Sequence[int] = (1, 2, 3), *, leak_every: int = 7,
               leak_tries: int = 3, serialize_every: int = 11, max_points: int = 16
               ) -> ConformanceReport:
    """Run every check on random playouts from ``seeds``; raise AssertionError on failure.

    The cheap checks run at every step. The leak test and the serialization round
    trip replay the match, so they run at about one step in ``leak_every`` (and
    ``serialize_every``), at most ``max_points`` steps per match spread evenly over
    it, the start and the end included: the suite stays linear in a match's length.
    """
    report = ConformanceReport()
    n = game.num_players
    for seed in seeds:
        state = game.new_initial_state(seed=seed)
        rng = SeedStream(f"conformance|{game.name}|{seed}")
        choice = SeedStream(f"playout|{seed}")
        step = 0
        while not state.is_terminal():
            assert step <= game.max_game_length, f"{game.name}: longer than max_game_length"
            _check_step(game, state, rng, report)
            seat = state.current_player()
            before = observation_text(state.observation(seat))
            clone = state.clone()
            assert clone.history == state.history and clone.legal_actions() == state.legal_actions(), \
                f"{game.name}: clone differs"
            assert observation_text(clone.observation(seat)) == before, f"{game.name}: clone differs"
            action = choice.choice(state.legal_actions())
            clone.apply_action(action)
            assert len(state.history) == step and \
                observation_text(state.observation(seat)) == before, \
                f"{game.name}: clone is not independent"
            state.apply_action(action)
            assert state.history[-1] == action
            step += 1
            report.steps += 1
        assert state.current_player() == TERMINAL
        assert state.legal_actions() == []
        returns = state.returns()
        assert len(returns) == n, f"{game.name}: returns() has {len(returns)} entries for {n} seats"
        if game.zero_sum:
            assert abs(sum(returns)) < 1e-9, f"{game.name}: zero-sum game returned {returns}"
        for seat in range(n):
            state.observation(seat)
        try:
            state.apply_action(0 if game.action_space_size else "x")
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"{game.name}: an action was accepted after the end")
        history = list(state.history)
        points = min(max_points, len(history) // max(1, leak_every) + 2)
        for k in _sample_steps(len(history), points):
            _check_leaks(game, _replay_to(game, seed, history[:k]), rng, report, leak_tries)
        points = min(max_points, len(history) // max(1, serialize_every) + 2)
        for k in _sample_steps(len(history), points):
            at = _replay_to(game, seed, history[:k])
            text = at.serialize()
            again = game.deserialize_state(text)
            assert again.serialize() == text, f"{game.name}: serialize does not round-trip"
            assert again.history == at.history, f"{game.name}: deserialized history differs"
            assert observation_text(again.observation(0)) == observation_text(at.observation(0))
            report.serialize_checks += 1
        again = random_playout(game, seed)
        assert again.history == state.history, f"{game.name}: the same seed gave another match"
        report.matches += 1
        report.lengths.append(step)
    return report
