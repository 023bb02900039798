"""Canasta engine speed: random deals (hands) and whole games per second (a script, not a test).

    python tests/benchmarks/bench_canasta.py [--deals N] [--games N] [--presets classic hungarian ...]

For every preset: ``--deals`` one-hand matches (``deals=1``) and ``--games``
whole games to the target score, played with uniformly random legal actions
(as the conformance playouts do). Reports deals/s, games/s, actions/s, mean
lengths, and the cost of ``legal_actions()`` and ``clone()``.
"""

from __future__ import annotations

import argparse
import time

from arena.games import get_game
from arena.testing.conformance import random_playout

PRESETS = ["classic", "classic-2p", "classic-3p", "classic-004", "hungarian"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--presets", nargs="*", default=PRESETS)
    args = parser.parse_args()
    for preset in args.presets:
        game = get_game("canasta", preset=preset, deals=1)
        start = time.perf_counter()
        actions = 0
        for seed in range(args.deals):
            actions += len(random_playout(game, seed).history)
        elapsed = time.perf_counter() - start
        line = (f"canasta {preset:12s} deals: {args.deals / elapsed:7.1f}/s  {actions / elapsed:8.0f} actions/s  "
                f"{actions / args.deals:6.1f} actions/deal")
        state = game.new_initial_state(seed=1)
        t0 = time.perf_counter()
        for _ in range(1000):
            state.clone()
        clone_us = (time.perf_counter() - t0) / 1000 * 1e6
        state.apply_action(state.legal_actions()[0])
        t0 = time.perf_counter()
        for _ in range(300):
            state._legal_cache = None
            state.legal_actions()
        legal_us = (time.perf_counter() - t0) / 300 * 1e6
        line += f"  clone {clone_us:6.1f} us  legal_actions(play) {legal_us:7.1f} us"
        if args.games:
            full = get_game("canasta", preset=preset)
            start = time.perf_counter()
            acts = hands = 0
            for seed in range(args.games):
                s = random_playout(full, seed)
                acts += len(s.history)
                hands += len(s.hand_scores)  # type: ignore[attr-defined]
            el = time.perf_counter() - start
            line += (f"\n{'':20s} games: {args.games / el:7.2f}/s  {acts / args.games:8.0f} actions/game  "
                     f"{hands / args.games:5.1f} hands/game")
        print(line, flush=True)


if __name__ == "__main__":
    main()
