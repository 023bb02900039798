"""Benchmark: batch Bradley-Terry fit of 1,000,000 results (and online Elo throughput).

Run::

    python tests/benchmarks/bench_ratings.py            # 1,000,000 results, 64 bots
    python tests/benchmarks/bench_ratings.py --results 200000 --bots 200 --online 100000

Reports wall times (best of ``--repeat``) for

* ``fit_pairs``: the vectorized path from arrays of player indices (aggregation + Newton fit);
* ``fit_bradley_terry``: the path from :class:`MatchResult` objects, as the
  tournaments layer will call it (building the objects is timed separately);
* the online :class:`RatingBook` rate (results per second),

and checks that the fit recovers the simulated ratings. Not a unit test: pytest
only imports this file (for doctests); nothing runs at import time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main(argv: list[str] | None = None) -> None:
    import numpy as np

    from arena.ratings.book import RatingBook
    from arena.ratings.bradley_terry import fit_bradley_terry, fit_pairs
    from arena.ratings.result import MatchResult

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", type=int, default=1_000_000)
    ap.add_argument("--bots", type=int, default=64)
    ap.add_argument("--online", type=int, default=100_000, help="results for the online Elo rate")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    n, p = args.results, args.bots
    true = rng.normal(0.0, 150.0, p)
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p  # never a == b
    e = 1.0 / (1.0 + 10.0 ** ((true[b] - true[a]) / 400.0))
    u = rng.random(n)
    d = 0.6 * np.minimum(e, 1.0 - e)  # draw probability; keeps E[score] = e
    score = np.where(u < e - d / 2, 1.0, np.where(u < e + d / 2, 0.5, 0.0))
    names = [f"bot{i:03d}" for i in range(p)]

    t_arr, fit = _best(lambda: fit_pairs(a, b, score, names=names), args.repeat)
    centered = true - true.mean()
    corr = float(np.corrcoef(fit.ratings, centered)[0, 1])
    rmse = float(np.sqrt(np.mean((fit.ratings - centered) ** 2)))
    print(f"fit_pairs          {n:>9,} results, {p} bots: {t_arr:7.3f} s "
          f"({fit.iterations} Newton iterations; corr {corr:.4f}, rmse {rmse:.2f} Elo, "
          f"median +/- {float(np.median(fit.errors)):.2f})")

    t0 = time.perf_counter()
    al, bl, sl = a.tolist(), b.tolist(), score.tolist()
    results = [MatchResult("bench@v1", (names[x], names[y]), (s, 1.0 - s)) for x, y, s in zip(al, bl, sl)]
    t_build = time.perf_counter() - t0
    t_res, fit2 = _best(lambda: fit_bradley_terry(results), args.repeat)
    diff = float(np.max(np.abs(fit2.ratings - fit.ratings)))
    print(f"fit_bradley_terry  {n:>9,} results, {p} bots: {t_res:7.3f} s "
          f"(building the MatchResult list took {t_build:.2f} s; max diff to fit_pairs {diff:.1e} Elo)")

    m = min(args.online, n)
    book = RatingBook()
    t0 = time.perf_counter()
    for r in results[:m]:
        book.record(r)
    t_online = time.perf_counter() - t0
    print(f"RatingBook.record  {m:>9,} results: {t_online:7.3f} s ({m / t_online:,.0f} results/s online)")


if __name__ == "__main__":
    main()
