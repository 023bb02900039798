"""Benchmark: complete random bridge games per second, arena engine vs OpenSpiel.

Not collected by pytest (the file name does not start with ``test_``). Run::

    python tests/benchmarks/bench_bridge.py [K] [--repeat R]

Each game: a fresh deal, then random legal actions until the end (auction and every
card, forced cards included), through ``legal_actions()`` / ``apply_action()``.

* arena: ``get_game("bridge").new_initial_state(seed=i)`` (duplicate board 1; the
  deal is the engine's seeded shuffle).
* OpenSpiel: ``pyspiel.load_game("bridge(use_double_dummy_result=false)")``; the 52
  chance outcomes of the deal are drawn at random from Python too.

Both loops use the same ``random.Random`` choice. Prints both rates and the ratio
(arena / OpenSpiel); the repeats alternate between the engines and the best of
``R`` is reported for each.
"""

from __future__ import annotations

import argparse
import random
import sys
import time


def bench_arena(k: int, seed: int = 0) -> tuple[float, float]:
    from arena.games import get_game

    game = get_game("bridge")
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t0 = time.perf_counter()
    for i in range(k):
        state = game.new_initial_state(seed=i)
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            steps += 1
    dt = time.perf_counter() - t0
    return k / dt, steps / k


def bench_openspiel(k: int, seed: int = 0) -> tuple[float, float]:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    t0 = time.perf_counter()
    for _ in range(k):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(choice(outcomes)[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
    dt = time.perf_counter() - t0
    return k / dt, steps / k


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("k", nargs="?", type=int, default=2000, help="games per engine")
    parser.add_argument("--repeat", type=int, default=3, help="repeats; the best is reported")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        print("OpenSpiel not installed (pip install open-spiel, or the 'bench' extra)")
        return 1
    # Interleaved repeats, so that a change in machine load hits both engines alike.
    arena_runs, osp_runs = [], []
    for r in range(args.repeat):
        arena_runs.append(bench_arena(args.k, seed=r))
        osp_runs.append(bench_openspiel(args.k, seed=r))
    arena, osp = max(arena_runs), max(osp_runs)
    print(f"arena bridge:     {arena[0]:8.0f} games/s  ({arena[1]:.1f} decisions/game, K={args.k})")
    print(f"OpenSpiel bridge: {osp[0]:8.0f} games/s  ({osp[1]:.1f} decisions/game, K={args.k})")
    print(f"ratio arena/OpenSpiel: {arena[0] / osp[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
