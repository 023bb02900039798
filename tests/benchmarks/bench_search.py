"""Benchmark: each search bot at its defaults against ``heuristic``, speed and strength (a script, not a test).

    python tests/benchmarks/bench_search.py [--games N] [--seed S] [--only auction,calypso,...]
        [--spec SPEC] [--deadline-ms MS] [--jobs J] [--positions N [--cpu]]

Per game it plays ``N`` seeded deals of ``SPEC`` (default ``pimc``, at its defaults)
against ``heuristic``, seats rotated (duplicate: :func:`arena.bots.evaluate.compare_bots`,
what ``arena play GAME --bots SPEC,heuristic --games N --seed S`` runs), with the
example tournaments' deadline (2,000 ms per decision), and prints one line:

* the search bot's decisions/s (its decisions over the referee's time for them) and its
  p50 / p99 / max decision time in ms: every decision it was asked for, as the referee
  measured it (wall clock, the information set's building included; forced actions,
  which the referee applies without asking, are not decisions);
* the heuristic's decisions/s in the same run;
* the margin of the search bot over the heuristic, per deal, with its 95% interval
  (Student t over the deals): the game's own points (``point_margin``; bridge: IMPs
  per board), and the faults (late answers among them);
* the run's wall time and the machine's load (1-minute load average, ``os.getloadavg``)
  at its start and end: decision times are wall clock, so they depend on the load.

The deal of each game (``DEALS``): bridge a duplicate board, calypso a match (one game
of four deals), canasta one hand of the classic 4-player partnership game, robber rummy
one deal of 2 players, auction one game of 4 players. The default ``--games 2`` is a
quick look (its intervals are wide); a figure worth reporting takes 100 or more.

``--positions N`` is the older mode: N positions from heuristic self-play per game,
the search bot's and the heuristic's time per decision there (``--cpu``: CPU time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

from arena.bots import MatchInfo, make_bot
from arena.core.state import State
from arena.games import get_game

DEALS: dict[str, dict[str, Any]] = {
    "bridge": {},
    "calypso": {},
    "canasta": {"preset": "classic", "deals": 1},
    "rummy": {"preset": "2p", "deals": 1},
    "auction": {"preset": "4p", "games": 1},
}
"""Game options of one deal per game (see the module docstring)."""

GAMES: dict[str, dict[str, Any]] = {
    "bridge": {},
    "calypso": {},
    "canasta": {"preset": "classic-2p", "deals": 1},
    "rummy": {"preset": "4p", "deals": 1},
    "auction": {"preset": "4p"},
}
"""Game options of the ``--positions`` mode."""


def _quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, int(q * len(s) + 0.999999) - 1))]


def decision_times(records: list[Any], spec: str) -> list[float]:
    """Milliseconds of every decision the bot named ``spec`` was asked for in ``records``."""
    out: list[float] = []
    for rec in records:
        seats = {s for s, name in enumerate(rec.seats) if name == spec}
        for a in rec.actions:
            if a.seat in seats and not a.forced:
                out.append(float(a.ms))
    return out


def play(game_name: str, spec: str, games: int, seed: int, deadline_ms: float, jobs: int) -> dict[str, Any]:
    """One game's figures (see the module docstring)."""
    from arena.bots.evaluate import compare_bots

    game = get_game(game_name, **DEALS[game_name])
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    result = compare_bots(game, [spec, "heuristic"], deals=games, seed=seed, jobs=jobs,
                          tag=f"bench-{seed}", deadline_ms=deadline_ms, keep_matches=True)
    wall = time.perf_counter() - t0
    records = [m.record for r in result.results for m in r.matches]
    late = sum(1 for rec in records for f in rec.faults if f.kind == "late")
    searched = decision_times(records, spec)
    plain = decision_times(records, "heuristic")
    margin = result.points if game_name == "bridge" else result.point_margin  # IMPs / own points
    assert margin is not None
    return {
        "game": game_name, "spec": spec, "games": games, "seed": seed,
        "decisions": len(searched),
        "rate": len(searched) / (sum(searched) / 1000.0) if searched else 0.0,
        "p50": statistics.median(searched) if searched else 0.0,
        "p99": _quantile(searched, 0.99) if searched else 0.0,
        "max": max(searched, default=0.0),
        "heuristic_rate": len(plain) / (sum(plain) / 1000.0) if plain and sum(plain) else 0.0,
        "margin": margin.mean, "low": margin.low, "high": margin.high,
        "faults": result.faults, "late": late, "wall": wall,
        "load": (load0, os.getloadavg()[0]),
    }


def format_line(f: dict[str, Any]) -> str:
    unit = "IMPs/board" if f["game"] == "bridge" else "points/deal"
    return (f"{f['game']:8s} {f['spec']} vs heuristic, {f['games']} deals, seed {f['seed']}: "
            f"{f['rate']:.2f} decisions/s ({f['decisions']}), p50 {f['p50']:.1f} ms, "
            f"p99 {f['p99']:.1f} ms, max {f['max']:.1f} ms | heuristic {f['heuristic_rate']:.0f} "
            f"decisions/s | margin {f['margin']:+.3f} {unit} [{f['low']:+.3f}, {f['high']:+.3f}] | "
            f"faults {f['faults']} (late {f['late']}) | {f['wall']:.0f} s wall, load "
            f"{f['load'][0]:.1f} -> {f['load'][1]:.1f}")


# -- the --positions mode ---------------------------------------------------------------

def positions(game_name: str, count: int, seed: int = 1) -> list[State]:
    """States with a choice to make, spread over heuristic self-play matches."""
    game = get_game(game_name, **GAMES[game_name])
    out: list[State] = []
    match = 0
    while len(out) < count:
        bots = [make_bot(game_name, "heuristic", seed=s) for s in range(game.num_players)]
        init: dict[str, Any] = {"board": match % 16 + 1} if game_name == "bridge" else {}
        state = game.new_initial_state(seed=seed + match, **init)
        k = 0
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            seat = state.current_player()
            obs: Any = state.observation(seat)
            card_play = game_name != "bridge" or obs.phase == "play"
            if len(legal) > 1 and card_play:
                k += 1
                if k % 5 == 1:
                    out.append(state.clone())
            answer = bots[seat].act(obs, legal)
            state.apply_action(state.string_to_action(answer) if isinstance(answer, str) else answer)
        match += 1
    return out


def time_bot(game_name: str, spec: str, states: list[State], clock: Any = time.perf_counter) -> list[float]:
    from arena.match.infoset import InformationSet

    times = []
    for i, state in enumerate(states):
        seat = state.current_player()
        bot = make_bot(game_name, spec, seed=i)
        bot.start_match(MatchInfo({"match_id": f"bench{i}", "seat": seat,
                                   "num_players": state.game.num_players, "deadline_ms": 10_000.0}))
        t0 = clock()
        bind = getattr(bot, "bind_information_set", None)
        if callable(bind):
            bind(InformationSet(state, seat))
        bot.act(state.observation(seat), state.legal_actions())
        times.append(clock() - t0)
    return times


def _positions_mode(args: argparse.Namespace, names: list[str]) -> None:
    clock = time.process_time if args.cpu else time.perf_counter
    for game_name in names:
        states = positions(game_name, args.positions)
        search = time_bot(game_name, args.spec, states, clock)
        heur = time_bot(game_name, "heuristic", states, clock)
        s_rate = len(search) / sum(search)
        h_rate = len(heur) / sum(heur)
        print(f"{game_name:8s} {args.spec}: {s_rate:8.2f} decisions/s, "
              f"median {statistics.median(search) * 1000:7.1f} ms, max {max(search) * 1000:7.1f} ms | "
              f"heuristic {h_rate:9.1f} decisions/s | search/heuristic {s_rate / h_rate:.4f} "
              f"({len(states)} positions)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="seeded deals per game (default 2: a quick look)")
    parser.add_argument("--seed", type=int, default=1, help="event seed (default 1)")
    parser.add_argument("--only", default=",".join(DEALS), help="comma-separated games (default: all)")
    parser.add_argument("--spec", default="pimc", help="search bot spec (default: pimc at its defaults)")
    parser.add_argument("--deadline-ms", type=float, default=2000.0,
                        help="time per decision (default 2000, the example tournaments')")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--positions", type=int, default=0,
                        help="the older mode: time N self-play positions per game instead")
    parser.add_argument("--cpu", action="store_true",
                        help="--positions: CPU time of this process instead of wall clock")
    args = parser.parse_args(argv)
    names = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in names if g not in DEALS]
    if unknown or not names:
        print(f"bench_search: --only: unknown game(s) {', '.join(unknown) or '(none)'}; "
              f"known: {', '.join(DEALS)}", file=sys.stderr)
        return 2
    if args.games < 1 or args.jobs < 1 or args.positions < 0 or not args.deadline_ms > 0:
        print("bench_search: --games and --jobs must be >= 1, --positions >= 0, --deadline-ms > 0",
              file=sys.stderr)
        return 2
    if args.positions:
        _positions_mode(args, names)
        return 0
    for game_name in names:
        print(format_line(play(game_name, args.spec, args.games, args.seed, args.deadline_ms, args.jobs)),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
