"""Benchmark: ladder matchmaking against uniform random pairing, 64 entrants.

Run (``nice -n 19`` on a shared machine)::

    python tests/benchmarks/bench_ladder.py                       # real bridge boards, 2,000 encounters
    python tests/benchmarks/bench_ladder.py --seeds 5 --encounters 2500
    python tests/benchmarks/bench_ladder.py --outcomes model --seeds 20    # simulated, fast

64 entrants ``heuristic?noise=p`` with ``p`` evenly spaced over 0.0 .. 0.9 (true
strength: lower noise is stronger). Two ladders run side by side on the same seed,
``matchmaking = "rating"`` and ``matchmaking = "random"``, each through
:class:`arena.tournaments.ladder.LadderFormat` exactly as the conductor drives it
(``next_round`` from every record so far, batches of ``--concurrency``). After
every 500 encounters it prints the Spearman correlation of each ladder's ratings
(the leaderboard's Bradley-Terry fit) with the true strength, then the encounters
each needed to reach 0.95 (checked every ``--resolution`` encounters) and the
saving, and the scheduler's own cost per encounter (the time in ``next_round``
divided by the encounters it scheduled, as CPU time of this process and as wall
time; goal < 5 ms). With several seeds it also prints the curves averaged over
the seeds and where they reach the target.

Outcomes: ``--outcomes bridge`` (default) plays every board for real (duplicate
bridge, one deal per encounter in both seatings, about 5 ms a board on an idle
core). ``--outcomes model`` draws each deal's result from the strength curve
measured on 20,000 real encounters of these 64 entrants (random pairing; a
Bradley-Terry fit, then a quartic in ``p`` through it: ``R(p) = 3233 p^4 - 7433 p^3
+ 6259 p^2 - 2828 p + 523`` Elo, from +523 at ``p = 0`` to -216 at ``p = 0.9``,
steep among the strong and flat among the weak), ``P(a beats b) = 1 / (1 + 10 **
((R_b - R_a) / 400))`` with 3% draws (measured: 2.9%). Not a unit test: pytest only
imports this file; nothing runs at import time.
"""

from __future__ import annotations

import argparse
import math
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


CURVE = (3233.1, -7433.1, 6258.9, -2828.4, 522.8)
"""``R(p)`` in Elo, highest power first (see the module docstring)."""


def strength(p: float) -> float:
    """The measured strength (Elo) of ``heuristic?noise=p``."""
    out = 0.0
    for c in CURVE:
        out = out * p + c
    return out


def main(argv: list[str] | None = None) -> None:
    import statistics

    from scipy.stats import spearmanr

    from arena.core.dealing import SeedStream
    from arena.tournaments.ladder import fit_ladder, ladder_outcomes
    from arena.tournaments.rounds import TournamentView, make_format
    from arena.tournaments.runner import play_spec, spec_tags

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--entrants", type=int, default=64)
    ap.add_argument("--encounters", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--every", type=int, default=500, help="print the correlations every N encounters")
    ap.add_argument("--resolution", type=int, default=100,
                    help="encounters between the checks of when the target is reached")
    ap.add_argument("--seeds", type=int, default=1, help="independent runs (medians reported)")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--outcomes", choices=("bridge", "model"), default="bridge")
    ap.add_argument("--draws", type=float, default=0.03, help="draw rate (model)")
    ap.add_argument("--target", type=float, default=0.95)
    args = ap.parse_args(argv)

    reached: dict[str, list[int | None]] = {"rating": [], "random": []}
    cpu: dict[str, list[float]] = {"rating": [], "random": []}
    wall: dict[str, list[float]] = {"rating": [], "random": []}
    curves: dict[str, list[list[float]]] = {"rating": [], "random": []}
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        runs = {}
        for mm in ("rating", "random"):
            cfg, noise = _config(mm, args.entrants, args.encounters, args.concurrency, seed)
            fmt = make_format(cfg)
            fmt.clock = lambda: 0.0  # type: ignore[method-assign, assignment]
            runs[mm] = {"cfg": cfg, "fmt": fmt, "specs": [], "records": [], "round": -1, "cpu": 0.0,
                        "wall": 0.0, "scheduled": 0, "rng": SeedStream(f"bench-ladder|{seed}|{mm}"), "curve": []}
        truth = [-p for p in noise]
        print(f"seed {seed}: {args.entrants} entrants, noise 0.0 .. 0.9, outcomes {args.outcomes}, "
              f"concurrency {args.concurrency}", flush=True)
        print(f"{'encounters':>10}  {'rating':>8}  {'random':>8}", flush=True)
        checkpoint = args.resolution
        while True:
            for mm, run in runs.items():
                cfg, fmt = run["cfg"], run["fmt"]
                c0, t0 = time.process_time(), time.perf_counter()
                if run["round"] < 0:
                    nxt = fmt.first_round(cfg.entrants)
                else:
                    nxt = fmt.next_round(TournamentView(cfg.id, cfg, run["round"], run["specs"]), run["records"])
                c1, t1 = time.process_time(), time.perf_counter()
                if not nxt:
                    run["done"] = True
                    continue
                run["cpu"] += c1 - c0
                run["wall"] += t1 - t0
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
                    print(f"{checkpoint:>10}  {row[0]:8.3f}  {row[1]:8.3f}", flush=True)
                checkpoint += args.resolution
                if checkpoint > args.encounters:
                    break
            if checkpoint > args.encounters or all(r.get("done") for r in runs.values()):
                break
        for mm, run in runs.items():
            first = next((n for n, rho in run["curve"] if rho >= args.target), None)
            reached[mm].append(first)
            curves[mm].append([rho for _, rho in run["curve"]])
            per = max(1, run["scheduled"])
            cpu[mm].append(run["cpu"] / per * 1000)
            wall[mm].append(run["wall"] / per * 1000)
            print(f"{mm:>7}: reaches {args.target} at {first if first else 'never (> ' + str(args.encounters) + ')'}"
                  f" encounters; scheduler {cpu[mm][-1]:.2f} ms CPU ({wall[mm][-1]:.2f} ms wall) per encounter",
                  flush=True)

    def med(xs: list[int | None]) -> float | None:
        """The median, a run that never reached the target counting as the largest;
        ``None`` when that median is such a run."""
        m = statistics.median([math.inf if x is None else x for x in xs])
        return None if math.isinf(m) else m

    a, b = med(reached["rating"]), med(reached["random"])
    saving = f"{100 * (1 - a / b):.0f}% fewer encounters" if a and b else \
        f"n/a (the median run never reached the target in {args.encounters} encounters)"
    print(f"\nencounters to Spearman {args.target}: rating {reached['rating']}, random {reached['random']}")
    print(f"median: rating {a}, random {b}: {saving} (goal >= 25%)")
    if args.seeds > 1:
        mean = {mm: [statistics.fmean(c[i] for c in cs) for i in range(min(map(len, cs)))]
                for mm, cs in curves.items()}
        cross = {mm: next(((i + 1) * args.resolution for i, v in enumerate(c) if v >= args.target), None)
                 for mm, c in mean.items()}
        at = [n for n in (500, 1000, 1500, 2000, 2500, 3000) if n // args.resolution <= len(mean["rating"])]
        print("mean over seeds: " + ", ".join(
            f"{n}: {mean['rating'][n // args.resolution - 1]:.3f} / {mean['random'][n // args.resolution - 1]:.3f}"
            for n in at) + " (rating / random)")
        ca, cb = cross["rating"], cross["random"]
        print(f"mean curves reach {args.target}: rating {ca}, random {cb}"
              + (f": {100 * (1 - ca / cb):.0f}% fewer" if ca and cb else ""))
    print(f"median scheduler cost per encounter: rating {statistics.median(cpu['rating']):.2f} ms CPU "
          f"({statistics.median(wall['rating']):.2f} ms wall), random {statistics.median(cpu['random']):.2f} ms "
          f"CPU (goal < 5 ms)")


def _play(specs: list[Any], args: Any, rng: Any, play_spec: Any, spec_tags: Any) -> list[Any]:
    if args.outcomes == "bridge":
        return [play_spec(s) for s in specs]
    out = []
    results: dict[tuple[int, int], float] = {}
    for s in specs:
        key = (s.tags["encounter"], s.deal)
        a, b = s.tags["sides"]
        if key not in results:
            ra, rb = strength(float(a[1:])), strength(float(b[1:]))
            p = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
            x = rng.random()
            results[key] = 0.0 if x < args.draws else 10.0 if x < args.draws + (1 - args.draws) * p else -10.0
        x = results[key]
        rets = [x if e == a else -x for e in s.entrants]
        out.append(_Rec(s.match_id, rets, spec_tags(s)))
    return out


if __name__ == "__main__":
    main()
