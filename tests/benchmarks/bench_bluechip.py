"""Benchmark: boards per minute of a Blue Chip team match over loopback vs the same match native.

Not collected by pytest. Run::

    python tests/benchmarks/bench_bluechip.py [BOARDS] [--repeat R] [--pauses]

Both runs play the same two-room team match (``arena.bluechip.match.team_match``,
seeded deals): arena's heuristic bot as team ``A`` against arena's heuristic bot as
team ``B``.

* Blue Chip: every one of the eight seats of the two rooms is a Blue Chip robot,
  i.e. the heuristic bot behind :class:`arena.bluechip.BlueChipClient` (one thread
  and one TCP connection each) seated at :class:`arena.bluechip.BlueChipHost` on
  127.0.0.1; the referee's agents are ``BlueChipAgent``. The protocol's pauses
  (1 s before each ``to lead`` from trick 2, 200 ms between lines) are **off**
  unless ``--pauses`` is given (then a board takes at least 12 s).
* native: the same match with the built-in bot at every seat.

Both matches must give identical records (checked). Prints both rates and the ratio
(Blue Chip / native); best of ``R`` repeats for each.
"""

from __future__ import annotations

import argparse
import threading
import time


def _robots(host: object, team: str) -> list[threading.Thread]:
    from arena.bluechip import BlueChipClient
    from arena.bots import make_bot

    threads = []
    for seat in range(4):
        client = BlueChipClient(make_bot("bridge", "heuristic"), ("127.0.0.1", host.port),  # type: ignore[attr-defined]
                                team=team, seat=seat)
        thread = threading.Thread(target=client.run, daemon=True)
        thread.start()
        threads.append(thread)
    return threads


def bench_bluechip(boards: int, pauses: bool) -> tuple[float, list[object]]:
    from arena.bluechip import BlueChipHost, HostConfig
    from arena.bluechip.match import team_match

    config = HostConfig() if pauses else HostConfig().without_pauses()
    with BlueChipHost("127.0.0.1:0", config) as host:
        threads = _robots(host, "A") + _robots(host, "B")
        assert host.wait_seated([(t, s) for t in "AB" for s in range(4)], 10)
        t0 = time.perf_counter()
        results = team_match("bluechip:A", "bluechip:B", boards=boards, seed=7, host=host, deadline_ms=60_000)
        elapsed = time.perf_counter() - t0
    for thread in threads:
        thread.join(10)
    return boards / elapsed * 60.0, results


def bench_native(boards: int) -> tuple[float, list[object]]:
    from arena.bluechip.match import team_match

    t0 = time.perf_counter()
    results = team_match("heuristic", "heuristic", boards=boards, seed=7)
    return boards / (time.perf_counter() - t0) * 60.0, results


def _same(a: list[object], b: list[object]) -> bool:
    def key(results: list[object]) -> list[object]:
        return [([x.action for x in r.open.actions], [x.action for x in r.closed.actions],  # type: ignore[attr-defined]
                 r.open.returns, r.closed.returns) for r in results]  # type: ignore[attr-defined]
    return key(a) == key(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("boards", nargs="?", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--pauses", action="store_true", help="keep the protocol's pauses on")
    args = parser.parse_args()
    best_bc = best_native = 0.0
    for _ in range(args.repeat):
        rate_native, native = bench_native(args.boards)
        rate_bc, wire = bench_bluechip(args.boards, args.pauses)
        if not _same(native, wire):
            raise SystemExit("the Blue Chip match differs from the native one")
        best_native, best_bc = max(best_native, rate_native), max(best_bc, rate_bc)
    print(f"native:    {best_native:10.1f} boards/min (two rooms, heuristic vs heuristic)")
    print(f"Blue Chip: {best_bc:10.1f} boards/min (8 robots over loopback, pauses "
          f"{'on' if args.pauses else 'off'})")
    print(f"ratio Blue Chip / native: {best_bc / best_native:.3f}")


if __name__ == "__main__":
    main()
