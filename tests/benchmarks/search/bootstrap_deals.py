"""Deal-level bootstrap of arena's batch fit: resample whole deals (all tables of a deal) with replacement.

usage: python bootstrap_deals.py GAME RECORDS.jsonl [N]  (several record sets: cat them into one file)

Prints each bot's rating, the fit's 95% half-width and the bootstrap's (1.96 sd), then
the differences of adjacent bots the same way. Deals are keyed ``<tournament>:<deal>``
(whatever their duplicate groups: arena ratings groups per table). Uses the fit that
``arena ratings`` prints (``fit_bradley_terry`` of ``results_from_records(by_bot=True)``).
"""

from __future__ import annotations

import collections
import sys
from dataclasses import replace


def main(game: str, path: str, n: int = 200) -> None:
    import numpy as np

    from arena.ratings.bradley_terry import fit_bradley_terry
    from arena.ratings.records import results_from_records
    from arena.records.record import read_records

    with open(path) as f:
        recs = list(read_records(f))
    res = results_from_records(recs, game=game, by_bot=True)
    by_deal = collections.defaultdict(list)
    for r in res:
        by_deal[":".join(str(r.deal_id).split(":")[:2])].append(r)
    deals = sorted(by_deal)
    fit = fit_bradley_terry(res)
    players = fit.players
    rng = np.random.default_rng(1)
    samples = []
    for _ in range(n):
        pick = rng.integers(0, len(deals), len(deals))
        rs = [replace(r, deal_id=f"{r.deal_id}#{k}") for k, i in enumerate(pick) for r in by_deal[deals[i]]]
        try:
            f = fit_bradley_terry(rs)
        except Exception:  # a resample that leaves a bot disconnected
            continue
        samples.append([f.rating(p) for p in players])
    s = np.array(samples)
    print(f"{len(deals)} deals, {len(samples)} bootstrap fits")
    order = sorted(players, key=lambda p: -fit.rating(p))
    for p in order:
        j = players.index(p)
        print(f"{p:40s} {fit.rating(p):+8.1f}  fit ±{fit.error(p):6.1f}  bootstrap ±{1.96 * s[:, j].std():6.1f}")
    c = fit.covariance
    for a, b in zip(order, order[1:]):
        i, k = players.index(a), players.index(b)
        sd = (c[i, i] + c[k, k] - 2 * c[i, k]) ** 0.5
        print(f"  {a} - {b}: {fit.rating(a) - fit.rating(b):+7.1f}  fit ±{1.96 * sd:6.1f}  "
              f"bootstrap ±{1.96 * (s[:, i] - s[:, k]).std():6.1f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200)
