"""Built-in robber rummy bots: ``random`` and ``heuristic``.

``heuristic`` lays down as many cards as it can every turn, then the most
points: before its initial meld it lays the best set of melds of its hand
(:func:`~arena.games.rummy.solver.best_initial_meld`); afterwards it asks
:func:`~arena.games.rummy.solver.best_rearrangement` for the best new table
from hand + table. It also scores every listed legal play the same way and
keeps the best, so it is never worse than the best listed play. It sees only
its observation and the legal actions, and is deterministic (no randomness).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.bots.base import Agent, RandomAgent
from arena.bots.search.flat import make_search_bot
from arena.core.state import Action
from arena.games.rummy.melds import INDEX, PASS, VALUE, RummyAction
from arena.games.rummy import solver

__all__ = ["BOTS", "HeuristicAgent"]


def _counts(observation: Any) -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    """``(hand counts, table melds as card indices, table counts)`` of a rummy
    observation (counts per card index, 0..51)."""
    hand = [0] * 52
    for tok in observation.hand:
        hand[INDEX[tok]] += 1
    melds = [tuple(INDEX[t] for t in m) for m in observation.table]
    table = [0] * 52
    for m in melds:
        for c in m:
            table[c] += 1
    return hand, melds, table


def _outcome(hand: list[int], table: list[int], action: RummyAction) -> tuple[int, int]:
    """(cards, points) left in hand after ``action`` (lower is better)."""
    if action.layout is None:
        return sum(hand), sum(VALUE[c] * k for c, k in enumerate(hand))
    left = [h + t for h, t in zip(hand, table)]
    for meld in action.layout:
        for tok in meld:
            left[INDEX[tok]] -= 1
    return sum(left), sum(VALUE[c] * k for c, k in enumerate(left))


class HeuristicAgent(Agent):
    """Greedy shedding with the meld solver (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | str = 0, max_states: int = solver.DEFAULT_MAX_STATES) -> None:
        self.max_states = max_states

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        hand, table_melds, table = _counts(observation)
        candidates: list[RummyAction] = [a for a in legal_actions if isinstance(a, RummyAction)]
        if observation.initial_meld_pending:
            cover = solver.best_initial_meld(hand, max_states=self.max_states)
            if cover is not None:
                candidates.append(RummyAction.play((*table_melds, *cover.melds)))
        else:
            cover = solver.best_rearrangement(hand, table_melds, strict=observation.strict_table,
                                              max_states=self.max_states)
            if cover is not None:
                candidates.append(RummyAction.play(cover.melds))
        best: Action = PASS
        best_key = _outcome(hand, table, PASS)
        for a in candidates:
            key = _outcome(hand, table, a)
            if key < best_key:
                best, best_key = a, key
        return best


def _random(seed: int | str = 0, **_: Any) -> Agent:
    return RandomAgent(seed)


def _heuristic(seed: int | str = 0, **kw: Any) -> Agent:
    return HeuristicAgent(seed, **kw)


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot("rummy")}
