"""Whole random games pinned: the engines' speed work changes no deal, action or result.

Each case plays the benchmarks' loop (``tests/benchmarks/bench_engines.py``)::

    choice = random.Random(seed).choice
    while not state.is_terminal():
        state.apply_action(choice(state.legal_actions()))

and digests every action's text, the seat to act, every listed action, and at the
end the returns and the serialized state; ``observed`` cases also digest every
seat's observation (as canonical JSON) after every action, and a clone taken half
way, played on with the same choices, must end in the same digest. The digests
were recorded with the engines before the speed work of issue 19's second round
(commit a424f5b): a change to the rules, to what is listed or in what order, to an
observation or to a record changes them.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from arena.games import get_game

# (game, options, seed, observed, digest)
PINS: list[tuple[str, dict[str, Any], int, bool, str]] = [
    ('canasta', {'preset': 'classic', 'deals': 1}, 0, True, '997e45c714d184cca10d'),
    ('canasta', {'preset': 'classic', 'deals': 1}, 1, True, '6d3c018755e9c47917e3'),
    ('canasta', {'preset': 'classic-2p', 'deals': 1}, 0, True, '99de4b81e498bb20f0c3'),
    ('canasta', {'preset': 'classic-3p', 'deals': 1}, 0, True, 'bb15d0681edf9cfd1fd2'),
    ('canasta', {'preset': 'classic-004', 'deals': 1}, 0, True, '2ea454835b04188ee2f2'),
    ('canasta', {'preset': 'hungarian', 'deals': 1}, 0, True, 'b5d68928e72c8d5a71f1'),
    ('canasta', {'preset': 'hungarian', 'deals': 1}, 1, True, '245479f64dd6cdc91edf'),
    ('canasta', {'preset': 'hungarian', 'players': 6, 'deals': 1}, 0, True, '5991a746ebbe3f408ef2'),
    ('canasta', {'preset': 'hungarian', 'players': 8, 'sides': 'two_teams', 'deals': 1}, 0, True, '7aa1960d1ad6cdc9d998'),
    ('canasta', {'preset': 'classic'}, 0, False, '346df55ea1bb9124104f'),
    ('canasta', {'preset': 'classic'}, 1, False, 'da1d6e0be67dd2aa456f'),
    ('canasta', {'preset': 'hungarian', 'deals': 3}, 0, False, '30fc1bd6598971aaf13b'),
    ('rummy', {'players': 2}, 0, True, 'cc3e6e22c67cadc92b1f'),
    ('rummy', {'players': 4}, 0, True, '5143629694e49bc334e4'),
    ('rummy', {'players': 4}, 1, True, 'f060e7020286007419ea'),
    ('rummy', {'players': 6}, 0, False, '061c97dc2e9fcbbfb72b'),
    ('rummy', {'players': 3, 'strict_table': True}, 0, True, '26d429ed59387e9be5f3'),
    ('rummy', {'players': 4, 'loss_limit': 150}, 0, False, '5d36ccdb0c255652bcee'),
    ('rummy', {'players': 4, 'deals': 12}, 0, False, 'deaf144e617f44846c17'),
    ('bridge', {}, 0, True, 'e2199d70cf39e7f9cba0'),
    ('bridge', {}, 1, True, '30c2059230a1d5af6690'),
    ('bridge', {}, 2, False, '745de0a1a6ef8afa6db7'),
]


def _digest(name: str, opts: dict[str, Any], seed: int, observed: bool) -> str:
    game = get_game(name, **opts)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    choice = rng.choice
    h = hashlib.sha256()
    n = game.num_players
    half = None
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        h.update(("|".join(state.action_to_string(a) for a in legal) + "\n").encode())
        a = choice(legal)
        h.update(f"{state.current_player()}:{state.action_to_string(a)}\n".encode())
        state.apply_action(a)
        step += 1
        if observed:
            for seat in range(n):
                h.update(state.observation(seat).to_json().encode())
        if step == 40 and observed:
            half = (state.clone(), rng.getstate(), h.copy())
    h.update(repr(state.returns()).encode())
    h.update(state.serialize().encode())
    out = h.hexdigest()[:20]
    if half is not None:
        clone, rstate, h2 = half
        rng2 = random.Random()
        rng2.setstate(rstate)
        while not clone.is_terminal():
            legal = clone.legal_actions()
            h2.update(("|".join(clone.action_to_string(a) for a in legal) + "\n").encode())
            a = rng2.choice(legal)
            h2.update(f"{clone.current_player()}:{clone.action_to_string(a)}\n".encode())
            clone.apply_action(a)
            for seat in range(n):
                h2.update(clone.observation(seat).to_json().encode())
        h2.update(repr(clone.returns()).encode())
        h2.update(clone.serialize().encode())
        assert h2.hexdigest()[:20] == out, "a clone taken half way played on differently"
    return out


@pytest.mark.parametrize("name,opts,seed,observed,digest", PINS,
                         ids=[f"{p[0]}-{p[1]}-{p[2]}" for p in PINS])
def test_random_game_replays_as_before(name: str, opts: dict[str, Any], seed: int, observed: bool,
                                       digest: str) -> None:
    assert _digest(name, opts, seed, observed) == digest
