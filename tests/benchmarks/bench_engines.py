"""Engine speed against OpenSpiel and the pre-change engines, measured in one run (a script, not a test).

    python tests/benchmarks/bench_engines.py [--repeat R] [--baseline DIR] [--only NAME ...]

Every figure is random play through the public State API, the loop every search
bot and research user runs::

    while not state.is_terminal():
        state.apply_action(choice(state.legal_actions()))

with ``choice = random.Random(seed).choice`` for every engine alike.

Rows (``NAME``):

* ``canasta-classic`` (4 players in partnerships), ``canasta-classic-2p``,
  ``canasta-hungarian`` (4 players), ``rummy-2p``, ``rummy-4p``: one-deal matches (``deals=1``) from seeds 0, 1, ... until 8 s of CPU time (x ``--scale``)
  have been spent, a whole deal at a time; random actions per second. The engines
  memoize pure functions (the rummy solver, canasta's per-group checks), so a
  short run measures them partly cold; search bots and long runs see them warm.
* ``gin-openspiel``: OpenSpiel's ``gin_rummy`` from Python, actions per second; the
  reference for the canasta and rummy rows. Chance is counted as in arena's rows: an
  action is a player's decision, and chance (the deal, each card drawn from the
  stock) is timed but not counted. Arena's engines resolve it inside
  ``new_initial_state`` and the action that draws, timed in the rows above; gin rummy
  has chance nodes (21 for the deal, one per card drawn from the stock: about 48 a
  game beside 113 decisions), which the loop applies in the timed section and does
  not count. A chance node's outcome is ``choice(state.legal_actions())``: gin's
  outcomes are uniform and listed in the order of ``chance_outcomes()``, so the same
  game as sampling those, without building the (action, probability) pairs that
  arena's loop has no counterpart of. The row prints its chance actions per game.
* ``bridge-decisions``: arena bridge, decisions after the deal only (the deal is
  made outside the timed loop); ``bridge-openspiel``: OpenSpiel's
  ``bridge(use_double_dummy_result=false)``, its 52 chance actions of the deal
  applied outside the timed loop, then decisions per second.
* ``bridge-clone`` / ``bridge-openspiel-clone``: microseconds per ``clone()`` of a
  state in the middle of the card play.

Each measurement runs in a fresh subprocess (``--worker NAME``), so no cache is
warm from an earlier row; the rows are repeated ``R`` times, interleaved, and the
median is reported, as CPU-time rates (``time.process_time``: what the process
itself spent, so other load on the machine scatters them less) next to wall-clock
rates. ``--baseline DIR`` also runs the arena rows against another copy of the
``arena`` package (e.g. ``git archive <rev> arena | tar -x -C DIR``: the engines
before a change), so its ratios come from the same run too; ``--compile`` builds the
mypyc-compiled modules of ``setup.py`` (``ARENA_COMPILE=1``) into a temporary copy of
the package and adds every arena row compiled (``[compiled]``). Prints every median
and the ratios; exit status 1 when OpenSpiel is not installed and ``--only`` did
not exclude its rows.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

ARENA_ROWS = ["canasta-classic", "canasta-classic-2p", "canasta-hungarian", "rummy-2p", "rummy-4p",
              "bridge-decisions", "bridge-clone"]
OPENSPIEL_ROWS = ["gin-openspiel", "bridge-openspiel", "bridge-openspiel-clone"]
COMPILED_ROWS = ARENA_ROWS

# (row, reference row, label) for the ratio lines
RATIOS = [
    ("canasta-classic", "gin-openspiel", "canasta classic / OpenSpiel gin rummy"),
    ("canasta-classic-2p", "gin-openspiel", "canasta classic 2p / OpenSpiel gin rummy"),
    ("canasta-hungarian", "gin-openspiel", "canasta hungarian 4p / OpenSpiel gin rummy"),
    ("rummy-2p", "gin-openspiel", "robber rummy 2p / OpenSpiel gin rummy"),
    ("rummy-4p", "gin-openspiel", "robber rummy 4p / OpenSpiel gin rummy"),
    ("bridge-decisions", "bridge-openspiel", "bridge decisions after the deal / OpenSpiel"),
]


def _playouts(game: Any, seeds: int, budget: float) -> tuple[int, float, float]:
    actions = 0
    c0, w0 = time.process_time(), time.perf_counter()
    for seed in range(seeds):
        state = game.new_initial_state(seed=seed)
        choice = random.Random(seed).choice
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            actions += 1
        if time.process_time() - c0 > budget:
            break
    return actions, time.process_time() - c0, time.perf_counter() - w0


def _bridge_decisions(games: int) -> tuple[int, float, float]:
    from arena.games import get_game

    game = get_game("bridge")
    steps = 0
    cpu = wall = 0.0
    for i in range(games):
        state = game.new_initial_state(seed=i)  # the deal: not timed
        choice = random.Random(i).choice
        c0, w0 = time.process_time(), time.perf_counter()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            steps += 1
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
    return steps, cpu, wall


def _openspiel_bridge_decisions(games: int) -> tuple[int, float, float]:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
    steps = 0
    cpu = wall = 0.0
    for i in range(games):
        rng = random.Random(i)
        choice = rng.choice
        state = game.new_initial_state()
        while state.is_chance_node():  # the deal: not timed
            state.apply_action(choice(state.chance_outcomes())[0])
        c0, w0 = time.process_time(), time.perf_counter()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
            steps += 1
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
    return steps, cpu, wall


def _gin(games: int) -> tuple[int, float, float]:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("gin_rummy")
    steps = chance = 0
    c0, w0 = time.process_time(), time.perf_counter()
    for i in range(games):
        choice = random.Random(i).choice
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # timed, not counted (see the module docstring)
                state.apply_action(choice(state.legal_actions()))
                chance += 1
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
    _GIN_CHANCE[:] = [chance, games]
    return steps, time.process_time() - c0, time.perf_counter() - w0


_GIN_CHANCE: list[int] = []
"""The last :func:`_gin` run's chance actions and games."""


def _clone_us(state: Any, n: int) -> tuple[int, float, float]:
    clone = state.clone
    for _ in range(1000):
        clone()
    c0, w0 = time.process_time(), time.perf_counter()
    for _ in range(n):
        clone()
    return n, time.process_time() - c0, time.perf_counter() - w0


def _bridge_clone_state(openspiel: bool) -> Any:
    """A state after 20 cards of play (the same for both engines: random, from one seed)."""
    if openspiel:
        import pyspiel  # type: ignore[import-not-found]

        game = pyspiel.load_game("bridge(use_double_dummy_result=false)")
        state = game.new_initial_state()
        rng = random.Random(3)
        while state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        for call in (52 + 3 + 4, 52, 52, 52):  # 1N then three passes (OpenSpiel: 52 = pass, bids from 55)
            state.apply_action(call)
        for _ in range(20):
            state.apply_action(rng.choice(state.legal_actions()))
        return state
    from arena.games import get_game

    state = get_game("bridge").new_initial_state(seed=3)
    for call in (59, 52, 52, 52):  # 1N, three passes
        state.apply_action(call)
    rng = random.Random(3)
    for _ in range(20):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def worker(name: str, scale: float) -> dict[str, Any]:
    """One measurement in this process; ``count``/``cpu``/``wall``: units and seconds."""
    if name.startswith(("canasta-", "rummy-")):
        from arena.games import get_game

        if name.startswith("rummy-"):
            game = get_game("rummy", players=int(name[-2]), deals=1)
        else:
            game = get_game("canasta", preset=name.split("-", 1)[1], deals=1)
        count, cpu, wall = _playouts(game, 100000, budget=8.0 * scale)
        unit = "actions"
    elif name == "gin-openspiel":
        count, cpu, wall = _gin(int(120 * scale))
        unit = "actions"
        chance, games = _GIN_CHANCE
        return {"name": name, "unit": unit, "count": count, "cpu": cpu, "wall": wall,
                "chance_per_game": chance / games, "actions_per_game": count / games}
    elif name == "bridge-decisions":
        count, cpu, wall = _bridge_decisions(int(3000 * scale))
        unit = "decisions"
    elif name == "bridge-openspiel":
        count, cpu, wall = _openspiel_bridge_decisions(int(3000 * scale))
        unit = "decisions"
    elif name in ("bridge-clone", "bridge-openspiel-clone"):
        state = _bridge_clone_state(openspiel=name == "bridge-openspiel-clone")
        count, cpu, wall = _clone_us(state, int(200000 * scale))
        unit = "clones"
    else:
        raise SystemExit(f"unknown row {name!r}")
    return {"name": name, "unit": unit, "count": count, "cpu": cpu, "wall": wall}


def _run(name: str, scale: float, arena_path: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(arena_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, __file__, "--worker", name, "--scale", str(scale)],
                         env=env, cwd=str(arena_path), capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{name} ({arena_path}) failed:\n{out.stderr}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _build_compiled(tmp: Path) -> Path:
    """A copy of the package with the mypyc-compiled modules of ``setup.py`` laid over it."""
    env = dict(os.environ, ARENA_COMPILE="1", ARENA_COMPILE_DIR=str(tmp / "c"))
    lib = tmp / "lib"
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(lib),
                    "--build-temp", str(tmp / "tmp")], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    built = [p.relative_to(lib) for p in lib.rglob("*.so")]
    if not built:
        raise SystemExit("--compile: nothing was compiled (is mypy installed?)")
    pkg = tmp / "pkg"
    shutil.copytree(ROOT / "arena", pkg / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for rel in built:
        shutil.copyfile(lib / rel, pkg / rel)
    return pkg


def _fmt(name: str, runs: list[dict[str, Any]]) -> tuple[str, float, float]:
    cpu = statistics.median(r["count"] / r["cpu"] for r in runs)
    wall = statistics.median(r["count"] / r["wall"] for r in runs)
    if "chance_per_game" in runs[0]:
        return (f"{name:34s} {cpu:10.0f} {runs[0]['unit']}/s cpu  {wall:10.0f}/s wall   "
                f"(median of {len(runs)}; per game {runs[0]['actions_per_game']:.0f} decisions counted, "
                f"{runs[0]['chance_per_game']:.0f} chance actions timed, not counted)", cpu, wall)
    if runs[0]["unit"] == "clones":
        return (f"{name:34s} clone {1e6 / cpu:7.3f} us cpu   {1e6 / wall:7.3f} us wall   "
                f"(median of {len(runs)})", cpu, wall)
    return (f"{name:34s} {cpu:10.0f} {runs[0]['unit']}/s cpu  {wall:10.0f}/s wall   "
            f"(median of {len(runs)})", cpu, wall)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved repeats (median reported)")
    parser.add_argument("--scale", type=float, default=1.0, help="work per measurement (x)")
    parser.add_argument("--baseline", type=Path, help="directory holding another copy of the arena package")
    parser.add_argument("--only", nargs="*", help="rows to run (default: all)")
    parser.add_argument("--compile", action="store_true",
                        help="also build the mypyc-compiled engines (setup.py, ARENA_COMPILE=1) into a "
                             "temporary directory and run every arena row against them")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.scale)))
        return 0
    try:
        import pyspiel  # type: ignore[import-not-found]  # noqa: F401
        have_openspiel = True
    except ImportError:
        have_openspiel = False
    rows = [(r, ROOT, "") for r in ARENA_ROWS]
    if args.baseline:
        rows += [(r, args.baseline.resolve(), " [baseline]") for r in ARENA_ROWS]
    if args.compile:
        compiled = _build_compiled(Path(tempfile.mkdtemp(prefix="arena-compiled-")))
        rows += [(r, compiled, " [compiled]") for r in COMPILED_ROWS]
    if have_openspiel:
        rows += [(r, ROOT, "") for r in OPENSPIEL_ROWS]
    if args.only:
        rows = [row for row in rows if row[0] in args.only]
    load = os.getloadavg()[0]
    print(f"load average at start {load:.2f} on {os.cpu_count()} cores; {args.repeat} interleaved repeats")
    runs: dict[str, list[dict[str, Any]]] = {}
    for _ in range(args.repeat):
        for name, path, tag in rows:
            runs.setdefault(name + tag, []).append(_run(name, args.scale, path))
    rates: dict[str, tuple[float, float]] = {}
    for key, rs in runs.items():
        line, cpu, wall = _fmt(key, rs)
        rates[key] = (cpu, wall)
        print(line)
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    for row, ref, label in RATIOS:
        for tag in ("", " [baseline]", " [compiled]"):
            if row + tag in rates and ref in rates:
                (c, w), (rc, rw) = rates[row + tag], rates[ref]
                print(f"ratio {label}{tag}: {c / rc:5.2f} cpu  {w / rw:5.2f} wall")
    for row in ARENA_ROWS:
        for tag, ref in (("", " [baseline]"), (" [compiled]", " [baseline]"), (" [compiled]", "")):
            if row + ref in rates and row + tag in rates:
                (c, w), (bc, bw) = rates[row + tag], rates[row + ref]
                print(f"speed-up {row}{tag} vs {ref.strip(' []') or 'pure'}: {c / bc:5.2f} cpu  {w / bw:5.2f} wall")
    for tag in ("", " [baseline]", " [compiled]"):
        if "bridge-clone" + tag in rates and "bridge-openspiel-clone" in rates:
            a, o = rates["bridge-clone" + tag][0], rates["bridge-openspiel-clone"][0]
            print(f"clone time arena{tag} / OpenSpiel: {o / a:5.2f} (cpu)")
    if not have_openspiel and not args.only:
        print("OpenSpiel not installed (pip install open-spiel, or the 'bench' extra): "
              "no OpenSpiel rows; compare with --baseline")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
