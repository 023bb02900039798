"""Benchmark: decisions per second of each search bot at its default budget (a script, not a test).

    python tests/benchmarks/bench_search.py [--positions N] [--games bridge,calypso,...] [--spec SPEC] [--cpu]

For each game, N positions are taken from heuristic self-play (every k-th decision
with a real choice: bridge card play only, the auction being the heuristic's).
The search bot (``pimc`` at its defaults, or ``--spec``) decides at each of them,
its information set built as the referee builds it (counted in its time), and the
heuristic bot decides at the same positions. Printed per game: the search bot's
decisions/s and ms per decision (median and max), the heuristic's decisions/s, and
their ratio, all measured in the same run. Timings are wall clock (``--cpu``: CPU
time of the process): on a machine shared with other work wall clock is slower than
the CPU would allow.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from arena.bots import make_bot
from arena.core.state import State
from arena.games import get_game

GAMES: dict[str, dict[str, Any]] = {
    "bridge": {},
    "calypso": {},
    "canasta": {"preset": "classic-2p", "deals": 1},
    "rummy": {"preset": "4p", "deals": 1},
    "auction": {"preset": "4p"},
}


def positions(game_name: str, count: int, seed: int = 1) -> list[State]:
    """States with a choice to make, spread over heuristic self-play matches."""
    game = get_game(game_name, **GAMES[game_name])
    out: list[State] = []
    match = 0
    while len(out) < count:
        bots = [make_bot(game_name, "heuristic", seed=s) for s in range(game.num_players)]
        state = game.new_initial_state(seed=seed + match, **({"board": match % 16 + 1}
                                                              if game_name == "bridge" else {}))
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
    from arena.bots.search.infoset import InformationSet

    times = []
    for i, state in enumerate(states):
        seat = state.current_player()
        bot = make_bot(game_name, spec, seed=i)
        bot.start_match({"match_id": f"bench{i}", "seat": seat, "num_players": state.game.num_players,
                         "deadline_ms": 10_000.0})
        t0 = clock()
        bind = getattr(bot, "bind_information_set", None)
        if callable(bind):
            bind(InformationSet(state, seat))
        bot.act(state.observation(seat), state.legal_actions())
        times.append(clock() - t0)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--spec", default="pimc", help="search bot spec (default: its defaults)")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU time of this process (time.process_time) instead of wall clock: "
                             "other load on the machine scatters it less")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    for game_name in args.games.split(","):
        states = positions(game_name, args.positions)
        search = time_bot(game_name, args.spec, states, clock)
        heur = time_bot(game_name, "heuristic", states, clock)
        s_rate = len(search) / sum(search)
        h_rate = len(heur) / sum(heur)
        print(f"{game_name:8s} {args.spec}: {s_rate:8.2f} decisions/s, "
              f"median {statistics.median(search) * 1000:7.1f} ms, max {max(search) * 1000:7.1f} ms | "
              f"heuristic {h_rate:9.1f} decisions/s | search/heuristic {s_rate / h_rate:.4f} "
              f"({len(states)} positions)", flush=True)


if __name__ == "__main__":
    main()
