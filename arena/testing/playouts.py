"""Seeded random playouts: engines' pinning tests (golden legal-action lists, fast paths
checked against their plain definitions) walk every position of these."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from arena.core.dealing import SeedStream
from arena.core.state import State
from arena.games import get_game


def random_playout(game: str, seed: int, tag: str, **options: Any) -> Iterator[tuple[State, list[Any]]]:
    """Play ``game`` (with ``options``) from ``seed`` to its end by random legal actions.

    Yields ``(state, legal)`` before each action (the same state object throughout,
    advanced in place; the caller may inspect it, not change it); the action is drawn
    from ``legal`` by ``SeedStream(f"{tag}|{seed}")``, so a playout replays exactly.
    """
    state = get_game(game, **options).new_initial_state(seed=seed)
    rng = SeedStream(f"{tag}|{seed}")
    while not state.is_terminal():
        legal = state.legal_actions()
        yield state, legal
        state.apply_action(rng.choice(legal))


def listing_digest(game: str, seed: int, **options: Any) -> str:
    """Digest of every legal-action list (as text) of a seeded random playout, and of
    its serialized end state: any change to what ``legal_actions()`` lists, or to its
    order, changes it."""
    h = hashlib.sha256()
    state: State | None = None
    for state, legal in random_playout(game, seed, "playout", **options):
        h.update(("|".join(state.action_to_string(a) for a in legal) + "\n").encode())
    if state is None:  # a game over before its first decision
        state = get_game(game, **options).new_initial_state(seed=seed)
    h.update(state.serialize().encode())
    return h.hexdigest()[:20]
