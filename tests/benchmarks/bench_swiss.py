"""Benchmark: Swiss pairing of a 1,000-entrant field (goal: < 1 s per round).

Run::

    python tests/benchmarks/bench_swiss.py                  # 1,000 entrants, 9 rounds
    python tests/benchmarks/bench_swiss.py --entrants 1001 --rounds 11 --tables 0

Plays a simulated event round by round (synthetic records: each seat scores its
entrant's hidden strength plus deal noise) and reports per round

* ``pair``: :func:`arena.tournaments.pairing.pair_two_sided` alone (ranking given);
* ``next_round``: :meth:`SwissFormat.next_round` end to end, as the conductor calls
  it: results from every stored record so far, standings and tie-breaks, pairing,
  specs;

each as wall time and as CPU time of this process (on a shared machine the wall
time counts the waits for a core, the CPU time does not; run it with ``nice -n
19``), plus the rematches and the largest number of byes of one entrant.
``--tables N`` runs the same for n-player tables of ``N`` (auction, ``--tables 4``). Not a unit
test: pytest only imports this file; nothing runs at import time.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Rec:
    match_id: str
    returns: list[float]
    tags: dict[str, Any] = field(default_factory=dict)
    terminal: bool = True


def main(argv: list[str] | None = None) -> None:
    from arena.core.dealing import derive_seed
    from arena.tournaments.config import parse_config
    from arena.tournaments.pairing import pair_two_sided
    from arena.tournaments.rounds import TournamentView, make_format
    from arena.tournaments.runner import spec_tags
    from arena.tournaments.swiss import _ranking, swiss_history, swiss_table

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entrants", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--tables", type=int, default=0, help="n-player tables of this size (auction)")
    args = ap.parse_args(argv)
    n = args.entrants
    if args.tables:
        game = {"game": "auction", "preset": f"{args.tables}p"}
    else:
        game = {"game": "calypso"}
    cfg = parse_config({"tournament": {"id": "bench", **game, "format": "swiss", "deals": 1, "seed": 1},
                        "swiss": {"rounds": args.rounds},
                        "entrants": [{"id": f"e{i:04d}", "bot": "random"} for i in range(n)]})
    fmt = make_format(cfg)
    strength = {e: float(derive_seed(7, e) % 1000) for e in cfg.entrant_ids}

    def play(spec: Any) -> _Rec:
        return _Rec(spec.match_id, [strength[e] + derive_seed(spec.seed, e) % 300 for e in spec.entrants],
                    spec_tags(spec))

    t0, c0 = time.perf_counter(), time.process_time()
    specs = fmt.first_round(cfg.entrants)
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    records = [play(s) for s in specs]
    print(f"Swiss pairing, {n} entrants, {'tables of ' + str(args.tables) if args.tables else 'two sides'}, "
          f"{args.rounds} rounds")
    print(f"round  0: next_round {first * 1000:7.1f} ms ({first_cpu * 1000:7.1f} ms CPU)")
    worst, worst_cpu = first, first_cpu
    for r in range(1, args.rounds):
        history = swiss_history(cfg, [dict(s.tags, table=s.table) for s in specs], records)
        if not args.tables:
            table = swiss_table(cfg.entrant_ids, cfg.swiss, history)  # type: ignore[arg-type]
            ranking = _ranking(cfg.entrant_ids, cfg.swiss, table, fmt.order)  # type: ignore[arg-type, attr-defined]
            met: dict[frozenset[str], int] = {}
            for e in history.encounters:
                k = frozenset(e.sides)
                met[k] = met.get(k, 0) + 1
            t, c = time.perf_counter(), time.process_time()
            pair_two_sided(ranking, table.points, met, table.byes)
            pair_s, pair_cpu = time.perf_counter() - t, time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        nxt = fmt.next_round(TournamentView(cfg.id, cfg, r - 1, specs), records)
        full, full_cpu = time.perf_counter() - t, time.process_time() - c
        worst, worst_cpu = max(worst, full), max(worst_cpu, full_cpu)
        assert nxt
        specs += nxt
        records += [play(s) for s in nxt]
        extra = f"  (pair {pair_s * 1000:7.1f} ms, {pair_cpu * 1000:7.1f} ms CPU)" if not args.tables else ""
        print(f"round {r:2d}: next_round {full * 1000:7.1f} ms ({full_cpu * 1000:7.1f} ms CPU){extra}")
    history = swiss_history(cfg, [dict(s.tags, table=s.table) for s in specs], records)
    meetings: Counter[frozenset[str]] = Counter()
    for e in history.encounters:
        for i, a in enumerate(e.sides):
            for b in e.sides[i + 1:]:
                meetings[frozenset((a, b))] += 1
    byes = Counter(b for bs in history.byes.values() for b in bs)
    print(f"worst round {worst:.3f} s wall, {worst_cpu:.3f} s CPU (goal < 1 s); repeated meetings {sum(v - 1 for v in meetings.values())}; "
          f"most byes of one entrant {max(byes.values(), default=0)}")


if __name__ == "__main__":
    main()
