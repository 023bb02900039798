"""Replaying a match record through the engine to verify it."""

from __future__ import annotations

from dataclasses import dataclass

from arena.core.errors import ArenaError
from arena.core.state import State
from arena.games import get_game
from arena.records.record import MatchRecord

__all__ = ["Verification", "replay_record", "verify_record"]


@dataclass
class Verification:
    """Outcome of :func:`verify_record`."""

    ok: bool
    reason: str
    state: State | None = None


def replay_record(record: MatchRecord) -> State:
    """The final state reached by replaying ``record``'s actions on its decks.

    :raises ValueError: unknown game or options, or a deck that does not fit.
    :raises ArenaError: an action that does not parse or is illegal.
    """
    game = get_game(record.game, **({"preset": record.preset} if record.preset else {}),
                    **record.options)
    state = game.new_initial_state(seed=record.seed, decks=record.decks or None, **record.init)
    for i, entry in enumerate(record.actions):
        if state.is_terminal():
            raise ArenaError(f"action {i} ({entry.action}) comes after the end of the match")
        seat = state.current_player()
        if seat != entry.seat:
            raise ArenaError(f"action {i} ({entry.action}) is recorded for seat {entry.seat}, "
                             f"but seat {seat} is to act")
        action = state.string_to_action(entry.action)
        if entry.id is not None and action != entry.id:
            raise ArenaError(f"action {i}: text {entry.action!r} is id {action}, record says {entry.id}")
        state.apply_action(action)
    return state


def verify_record(record: MatchRecord, tolerance: float = 1e-9) -> Verification:
    """Whether the record replays to a terminal state with the recorded returns and ruleset."""
    try:
        state = replay_record(record)
    except (ArenaError, ValueError) as exc:
        return Verification(False, f"does not replay: {exc}")
    if state.game.ruleset != record.ruleset:
        return Verification(False, f"ruleset is {state.game.ruleset}, record says {record.ruleset}", state)
    if record.terminal and not state.is_terminal():
        return Verification(False, "record says the match ended, replay is not terminal", state)
    if state.is_terminal():
        got = state.returns()
        if len(got) != len(record.returns) or any(abs(a - b) > tolerance
                                                  for a, b in zip(got, record.returns)):
            return Verification(False, f"returns {got} differ from recorded {record.returns}", state)
    return Verification(True, "verified", state)
