"""Benchmark: complete random Calypso games per second (a script, not a test).

    python tests/benchmarks/bench_calypso.py [--games N]

Plays N one-game matches with uniformly random legal cards (the conformance
playout), then N with the heuristic bot at every seat (observation + act per
decision), and prints games/s and decisions/s for each. Also times clone().
"""

from __future__ import annotations

import argparse
import time

from arena.bots import make_bot
from arena.games import get_game
from arena.testing.conformance import random_playout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    game = get_game("calypso")

    t0 = time.perf_counter()
    steps = 0
    for seed in range(args.games):
        steps += len(random_playout(game, seed).history)
    dt = time.perf_counter() - t0
    print(f"random playouts: {args.games / dt:,.1f} games/s, {steps / dt:,.0f} actions/s "
          f"({args.games} games, {dt:.2f} s)")

    n = max(1, args.games // 5)
    t0 = time.perf_counter()
    for seed in range(n):
        state = game.new_initial_state(seed=seed)
        agents = [make_bot("calypso", "heuristic", seed=s) for s in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            state.apply_action(agents[seat].act(state.observation(seat), state.legal_actions()))
    dt = time.perf_counter() - t0
    print(f"heuristic self-play with observations: {n / dt:,.1f} games/s, "
          f"{n * 208 / dt:,.0f} decisions/s ({n} games, {dt:.2f} s)")

    state = game.new_initial_state(seed=1)
    for _ in range(100):
        state.apply_action(state.legal_actions()[0])
    k = 20000
    t0 = time.perf_counter()
    for _ in range(k):
        state.clone()
    dt = time.perf_counter() - t0
    print(f"clone(): {k / dt:,.0f}/s")


if __name__ == "__main__":
    main()
