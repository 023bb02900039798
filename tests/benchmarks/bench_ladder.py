"""Benchmark: ladder matchmaking against uniform random pairing, 64 entrants.

Run::

    python tests/benchmarks/bench_ladder.py                      # simulated outcomes, up to 8,000 encounters
    python tests/benchmarks/bench_ladder.py --encounters 12000 --seeds 3
    python tests/benchmarks/bench_ladder.py --outcomes bridge --encounters 3000   # real boards (slow)

64 entrants ``heuristic?noise=p`` with ``p`` evenly spaced over 0.0 .. 0.9 (true
strength: lower noise is stronger). Two ladders run side by side on the same seed,
``matchmaking = "rating"`` and ``matchmaking = "random"``, each through
:class:`arena.tournaments.ladder.LadderFormat` exactly as the conductor drives it
(``next_round`` from every record so far, batches of ``--concurrency``). After
every 500 encounters it prints the Spearman correlation of each ladder's ratings
(the leaderboard's Bradley-Terry fit) with the true strength, then the encounters
each needed to reach 0.95 and the saving, and the scheduler's own cost per
encounter (the time in ``next_round`` divided by the encounters it scheduled;
goal < 5 ms).

Outcomes: ``--outcomes model`` (default) draws each deal's result from a logistic
model, ``P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))`` with
``R = -spread * p`` Elo and 5% draws; ``--spread`` defaults to 1,790 Elo per unit
of noise, measured on this machine from real duplicate bridge boards
(``heuristic`` beat ``heuristic?noise=0.3`` on 142 of 150 boards, 3 ties: 537 Elo).
``--outcomes bridge`` plays every board for real (duplicate bridge, one deal per
encounter in both seatings, about 14 ms a board). Not a unit test: pytest only
imports this file; nothing runs at import time.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Rec:
    match_id: str
    returns: list[float]
    tags: dict[str, Any] = field(default_factory=dict)
    terminal: bool = True


def _config(matchmaking: str, n: int, encounters: int, concurrency: int, seed: int) -> Any:
    from arena.tournaments.config import parse_config

    noise = [round(0.9 * i / (n - 1), 4) for i in range(n)]
    return parse_config({
        "tournament": {"id": f"bench-{matchmaking}", "game": "bridge", "preset": "duplicate",
                       "format": "ladder", "deals": 1, "seed": seed},
        "ladder": {"concurrency": concurrency, "matchmaking": matchmaking, "stop_after": encounters},
        "entrants": [{"id": f"n{p:.4f}", "bot": "heuristic", "options": {"noise": p}} for p in noise]}), noise


def main(argv: list[str] | None = None) -> None:
    from scipy.stats import spearmanr

    from arena.core.dealing import SeedStream
    from arena.tournaments.ladder import fit_ladder, ladder_outcomes
    from arena.tournaments.rounds import TournamentView, make_format
    from arena.tournaments.runner import play_spec, spec_tags

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entrants", type=int, default=64)
    ap.add_argument("--encounters", type=int, default=8000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--every", type=int, default=500, help="print the correlations every N encounters")
    ap.add_argument("--resolution", type=int, default=100,
                    help="encounters between the checks of when the target is reached")
    ap.add_argument("--seeds", type=int, default=1, help="independent runs (medians reported)")
    ap.add_argument("--outcomes", choices=("model", "bridge"), default="model")
    ap.add_argument("--spread", type=float, default=1790.0, help="Elo per unit of noise (model)")
    ap.add_argument("--target", type=float, default=0.95)
    args = ap.parse_args(argv)

    reached: dict[str, list[int | None]] = {"rating": [], "random": []}
    costs: dict[str, list[float]] = {"rating": [], "random": []}
    for seed in range(1, args.seeds + 1):
        runs = {}
        for mm in ("rating", "random"):
            cfg, noise = _config(mm, args.entrants, args.encounters, args.concurrency, seed)
            fmt = make_format(cfg)
            fmt.clock = lambda: 0.0  # type: ignore[method-assign, assignment]
            runs[mm] = {"cfg": cfg, "fmt": fmt, "specs": [], "records": [], "round": -1, "sched": 0.0,
                        "scheduled": 0, "rng": SeedStream(f"bench-ladder|{seed}|{mm}"), "curve": []}
        truth = [-p for p in noise]
        print(f"seed {seed}: {args.entrants} entrants, noise 0.0 .. 0.9, outcomes {args.outcomes}, "
              f"concurrency {args.concurrency}")
        print(f"{'encounters':>10}  {'rating':>8}  {'random':>8}")
        checkpoint = args.resolution
        while True:
            for mm, run in runs.items():
                cfg, fmt = run["cfg"], run["fmt"]
                t0 = time.perf_counter()
                if run["round"] < 0:
                    nxt = fmt.first_round(cfg.entrants)
                else:
                    nxt = fmt.next_round(TournamentView(cfg.id, cfg, run["round"], run["specs"]), run["records"])
                dt = time.perf_counter() - t0
                if not nxt:
                    run["done"] = True
                    continue
                run["sched"] += dt
                run["scheduled"] += len({s.table for s in nxt})
                run["round"] = max(s.round for s in nxt)
                run["specs"] += nxt
                run["records"] += _play(nxt, args, run["rng"], play_spec, spec_tags)
            n_done = min(r["scheduled"] for r in runs.values())
            while n_done >= checkpoint or all(r.get("done") for r in runs.values()):
                row = []
                for mm, run in runs.items():
                    cfg = run["cfg"]
                    recs = [r for r in run["records"] if r.tags["encounter"] < checkpoint]
                    fit = fit_ladder(cfg.entrant_ids, ladder_outcomes(cfg, recs, cache=False))
                    rho = float(spearmanr([fit.rating[e] for e in cfg.entrant_ids], truth).statistic)
                    run["curve"].append((checkpoint, rho))
                    row.append(rho)
                if checkpoint % args.every == 0:
                    print(f"{checkpoint:>10}  {row[0]:8.3f}  {row[1]:8.3f}")
                checkpoint += args.resolution
                if checkpoint > args.encounters:
                    break
            if checkpoint > args.encounters or all(r.get("done") for r in runs.values()):
                break
        for mm, run in runs.items():
            first = next((n for n, rho in run["curve"] if rho >= args.target), None)
            reached[mm].append(first)
            costs[mm].append(run["sched"] / max(1, run["scheduled"]) * 1000)
            print(f"{mm:>7}: reaches {args.target} at {first if first else 'never (> ' + str(args.encounters) + ')'}"
                  f" encounters; scheduler {costs[mm][-1]:.2f} ms per encounter")
    import statistics

    def med(xs: list[int | None]) -> float | None:
        vals = [x for x in xs if x is not None]
        return statistics.median(vals) if len(vals) == len(xs) else None

    a, b = med(reached["rating"]), med(reached["random"])
    saving = f"{100 * (1 - a / b):.0f}% fewer encounters" if a and b else "n/a (a run never reached the target)"
    print(f"\nmedian encounters to Spearman {args.target}: rating {a}, random {b}: {saving} (goal >= 25%)")
    print(f"median scheduler cost per encounter: rating {statistics.median(costs['rating']):.2f} ms, "
          f"random {statistics.median(costs['random']):.2f} ms (goal < 5 ms)")


def _play(specs: list[Any], args: Any, rng: Any, play_spec: Any, spec_tags: Any) -> list[Any]:
    if args.outcomes == "bridge":
        return [play_spec(s) for s in specs]
    out = []
    results: dict[tuple[int, int], float] = {}
    for s in specs:
        key = (s.tags["encounter"], s.deal)
        a, b = s.tags["sides"]
        if key not in results:
            ra = -args.spread * float(a[1:])
            rb = -args.spread * float(b[1:])
            p = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
            x = rng.random()
            results[key] = 0.0 if x < 0.05 else 10.0 if x < 0.05 + 0.95 * p else -10.0
        x = results[key]
        rets = [x if e == a else -x for e in s.entrants]
        out.append(_Rec(s.match_id, rets, spec_tags(s)))
    return out


if __name__ == "__main__":
    main()
