"""Auction engine speed: random games per second (a script, not a test).

    python tests/benchmarks/bench_auction.py [--games N] [--players 3 4 5 6]

Plays one-game matches (presets ``3p`` .. ``6p``) with uniformly random legal
actions, as the conformance playouts do, and reports games/s, actions/s and
the mean length. Also times ``clone()``.
"""

from __future__ import annotations

import argparse
import time

from arena.games import get_game
from arena.testing.conformance import random_playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, nargs="*", default=[3, 4, 5, 6])
    args = parser.parse_args()
    for n in args.players:
        game = get_game("auction", preset=f"{n}p")
        start = time.perf_counter()
        actions = 0
        for seed in range(args.games):
            actions += len(random_playout(game, seed).history)
        elapsed = time.perf_counter() - start
        state = game.new_initial_state(seed=1)
        t0 = time.perf_counter()
        for _ in range(2000):
            state.clone()
        clone_us = (time.perf_counter() - t0) / 2000 * 1e6
        print(f"auction {n}p: {args.games / elapsed:8.1f} games/s  {actions / elapsed:9.0f} actions/s  "
              f"{actions / args.games:6.1f} actions/game  clone {clone_us:5.1f} us")


if __name__ == "__main__":
    main()
