"""Robber rummy speed: random deals per second and meld-solver calls on real positions.

    python tests/benchmarks/bench_rummy.py [--deals N] [--players 2 4 6] [--positions N]

*Engine*: one-deal matches (``deals=1``) played with uniformly random legal
actions, as the conformance playouts do: deals/s, actions/s, actions per deal,
and ``clone()`` time.

*Solver*: positions are sampled from random deals (the acting player has melded;
3-6 players, so tables grow large), grouped by the number of table melds
(about 10, 20 and 30; where random play gives too few, synthetic positions fill
the bin: a random 10-card hand and a table that is a maximum cover of the other
94 cards cut to the bin's size), and
:func:`~arena.games.rummy.solver.best_rearrangement`
(the heuristic bot's call, default budget) is timed on each: calls/s, median and
worst time per call, and how many answers were proven exact. Also
``best_initial_meld`` on the opening hands (after the first draw).
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.games.rummy import solver
from arena.games.rummy.state import RummyState
from arena.games.rummy.melds import counts_of
from arena.testing.conformance import random_playout

BINS = {10: range(8, 13), 20: range(18, 23), 30: range(28, 33)}
synthetic: dict[int, int] = {}


def engine(players: list[int], deals: int) -> None:
    for n in players:
        game = get_game("rummy", players=n, deals=1)
        start = time.perf_counter()
        actions = 0
        for seed in range(deals):
            actions += len(random_playout(game, seed).history)
        elapsed = time.perf_counter() - start
        state = game.new_initial_state(seed=1)
        t0 = time.perf_counter()
        for _ in range(2000):
            state.clone()
        clone_us = (time.perf_counter() - t0) / 2000 * 1e6
        print(f"rummy {n}p: {deals / elapsed:7.2f} deals/s  {actions / elapsed:8.0f} actions/s  "
              f"{actions / deals:6.1f} actions/deal  clone {clone_us:5.1f} us")


def positions(per_bin: int) -> dict[int, list[tuple[list[int], list[tuple[int, ...]]]]]:
    found: dict[int, list[tuple[list[int], list[tuple[int, ...]]]]] = {b: [] for b in BINS}
    synthetic.update({b: 0 for b in BINS})
    seed = 0
    while any(len(v) < per_bin for v in found.values()) and seed < 400:
        n = 3 + seed % 4
        state = get_game("rummy", players=n, deals=1).new_initial_state(seed=seed)
        assert isinstance(state, RummyState)
        rng = SeedStream(f"bench-rummy|{seed}")
        while not state.is_terminal():
            p = state.current_player()
            if state.melded[p]:
                for b, sizes in BINS.items():
                    if len(state.table) in sizes and len(found[b]) < per_bin and rng.below(4) == 0:
                        found[b].append((list(state.hands[p]), list(state.table)))
            state.apply_action(rng.choice(state.legal_actions()))
        seed += 1
    # random play rarely builds 30 melds before someone goes out: top up with
    # synthetic positions (a 10-card hand, the table a maximum cover of the rest)
    rng = SeedStream("bench-rummy|synthetic")
    for b in BINS:
        tries = 0
        while len(found[b]) < per_bin and tries < 20 * per_bin:
            tries += 1
            deck = [c for c in range(52) for _ in range(2)]
            rng.shuffle(deck)
            cover = solver.max_cover(counts_of(deck[10:]), max_states=300)
            if cover is not None and len(cover.melds) >= b:
                found[b].append((counts_of(deck[:10]), list(cover.melds[:b])))
                synthetic[b] += 1
    return found


def solver_bench(per_bin: int) -> None:
    for b, items in positions(per_bin).items():
        if not items:
            print(f"solver ~{b} table melds: no positions found")
            continue
        times = []
        exact = 0
        for hand, table in items:
            t0 = time.perf_counter()
            cover = solver.best_rearrangement(hand, table)
            times.append(time.perf_counter() - t0)
            exact += bool(cover is not None and cover.exact)
        print(f"solver ~{b} table melds ({len(items)} positions, {synthetic[b]} synthetic): "
              f"{len(times) / sum(times):7.1f} calls/s  "
              f"median {statistics.median(times) * 1e3:7.2f} ms  worst {max(times) * 1e3:8.2f} ms  "
              f"exact {exact}/{len(items)}")
    hands = []
    for seed in range(200):
        state = get_game("rummy", players=4, deals=1).new_initial_state(seed=seed)
        assert isinstance(state, RummyState)
        hands.append(list(state.hands[state.current_player()]))
    t0 = time.perf_counter()
    for h in hands:
        solver.best_initial_meld(h)
    elapsed = time.perf_counter() - t0
    print(f"best_initial_meld on 11-card hands: {len(hands) / elapsed:7.1f} calls/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--players", type=int, nargs="*", default=[2, 4, 6])
    parser.add_argument("--positions", type=int, default=30, help="positions per table-size bin")
    args = parser.parse_args()
    engine(args.players, args.deals)
    solver_bench(args.positions)


if __name__ == "__main__":
    main()
