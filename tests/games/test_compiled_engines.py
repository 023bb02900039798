"""The engines compiled with mypyc (``ARENA_COMPILE=1``, see ``setup.py``) and pure.

* ``clone()`` has two paths in the compiled canasta and rummy engines: the
  ``__dict__`` copy of the pure module and the attribute-by-attribute copy
  (``_copy_state``) of the compiled one, whose instances have no ``__dict__`` for
  their own attributes. Both must copy and share the same attributes; checked here in
  pure Python at states of every phase (bridge copies with ``_copy_state`` in both
  builds, so there its two calls must agree).
* The compiled build, made once for the module (one mypyc build of every module in
  ``setup.COMPILED_MODULES``): ``setup.py build_ext`` with ``ARENA_COMPILE=1`` into a
  temporary directory, the extension modules laid over a copy of the package; then,
  against it, in subprocesses that assert they run the compiled modules, a digest of
  seeded random playouts of every compiled game (cloning at every step) equal to the
  pure engines', and the engine tests of every compiled game, the replay pins and the
  conformance suite. Skipped, saying why, only where mypyc or a C compiler is missing
  (the ``test`` extra installs mypy, which ships mypyc).

Known difference of the compiled build, outside the State API: its canasta and rummy
states cannot be pickled, and no compiled state supports ``copy.copy`` or
``copy.deepcopy`` (mypyc's native classes need their constructor's arguments); nothing
in the arena does either, ``clone()`` is the copy.
"""

from __future__ import annotations

import hashlib
import os
import random
import runpy
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.dealing import SeedStream
from arena.core.state import State
from arena.games import get_game
from arena.games.bridge.state import BridgeState
from arena.games.canasta.state import CanastaState
from arena.games.rummy.game import RummyState

ROOT = Path(__file__).resolve().parents[2]

COMPILED_MODULES: list[str] = runpy.run_path(str(ROOT / "setup.py"), run_name="setup")["COMPILED_MODULES"]

# game -> (module whose _COMPILED flag is asserted, configurations of the digest, games per configuration)
GAMES: dict[str, tuple[str, list[dict[str, Any]], int]] = {
    "bridge": ("arena.games.bridge.state", [{"preset": "duplicate"}, {"preset": "rubber"}], 25),
    "canasta": ("arena.games.canasta.state",
                [{"preset": "classic", "deals": 1}, {"preset": "classic-2p", "deals": 1},
                 {"preset": "hungarian", "deals": 1}], 4),
    "rummy": ("arena.games.rummy.game", [{"players": 2, "deals": 1}, {"players": 4, "deals": 1}], 6),
}

# the tests run against the build: each compiled game's engine tests (not its bots'), the
# replay pins and the conformance suite
SUITE = ["tests/games/bridge", "tests/games/canasta", "tests/games/rummy", "tests/games/test_replay_pins.py",
         "tests/conformance"]
SUITE_IGNORE = ["tests/games/canasta/test_canasta_bots.py", "tests/games/rummy/test_rummy_bots.py"]


# -- the two clone paths (pure Python) --------------------------------------------------

def _states(name: str, options: dict[str, Any], seeds: int, every: int) -> list[State]:
    out: list[State] = []
    game = get_game(name, **options)
    for seed in range(seeds):
        state = game.new_initial_state(seed=seed)
        rng = SeedStream(f"copy|{seed}")
        step = 0
        while not state.is_terminal():
            if step % every == 0:
                out.append(state)
            state = state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
            step += 1
        out.append(state)
    return out


def _value(x: object) -> object:
    """Objects without ``__eq__`` (the dealer, the rubber score, rummy's table facts) by their slots."""
    slots = getattr(type(x), "__slots__", None)
    if slots and type(x).__eq__ is object.__eq__:
        return tuple(_value(getattr(x, name)) for name in slots)
    return x


def _copy_by_attr(state: State) -> State:
    if isinstance(state, BridgeState):
        return BridgeState(state.game, state.dealer, _copy_of=state)
    if isinstance(state, CanastaState):
        return CanastaState(state.game, state.dealer, _copy_of=state)
    assert isinstance(state, RummyState)
    return RummyState(state.game, state.dealer, _copy_of=state)


COPY_CASES = [("bridge", {"preset": "duplicate"}, 3, 9), ("bridge", {"preset": "rubber"}, 3, 9),
              ("canasta", {"preset": "classic", "deals": 1}, 2, 7),
              ("canasta", {"preset": "hungarian", "deals": 1}, 2, 7),
              ("rummy", {"players": 4, "deals": 2}, 2, 5), ("rummy", {"players": 3, "strict_table": True}, 1, 5)]


@pytest.mark.parametrize("name, options, seeds, every", COPY_CASES,
                         ids=[f"{c[0]}-{'-'.join(str(v) for v in c[1].values())}" for c in COPY_CASES])
def test_copy_state_copies_and_shares_what_clone_does(name: str, options: dict[str, Any], seeds: int,
                                                      every: int) -> None:
    for state in _states(name, options, seeds, every):
        state.legal_actions()  # a listing made: its caches must not travel into a copy
        by_dict = state.clone()
        by_attr = _copy_by_attr(state)
        a, b, src = vars(by_dict), vars(by_attr), vars(state)
        assert a.keys() == b.keys() == src.keys()
        for key in src:
            assert _value(a[key]) == _value(b[key]), key
            assert (a[key] is src[key]) == (b[key] is src[key]), f"{key}: shared by one path only"
        assert by_attr.legal_actions() == state.legal_actions()
        assert by_attr.observation(0) == state.observation(0)
        if not state.is_terminal():  # both copies play on alike
            action = state.legal_actions()[-1]
            by_dict.apply_action(action)
            by_attr.apply_action(action)
            assert by_attr.observation(0) == by_dict.observation(0)
            assert by_attr.legal_actions() == by_dict.legal_actions()


# -- the compiled build ----------------------------------------------------------------

def _digest(name: str) -> str:
    """Seeded random playouts of ``name`` in every configuration of :data:`GAMES`, a clone
    taken (and played on for one step) at every step; the serialized end states digested."""
    h = hashlib.sha256()
    for options in GAMES[name][1]:
        game = get_game(name, **options)
        for seed in range(GAMES[name][2]):
            s = game.new_initial_state(seed=seed)
            choice = random.Random(seed).choice
            while not s.is_terminal():
                c = s.clone()
                a = choice(s.legal_actions())
                c.apply_action(a)
                s.apply_action(a)
            h.update(s.serialize().encode())
            h.update(repr(s.returns()).encode())
    return h.hexdigest()


def _digest_script() -> str:
    lines = ["import importlib, sys", f"sys.path.insert(0, {str(Path(__file__).parent)!r})",
             "import test_compiled_engines as t"]
    for name, (module, _opts, _n) in GAMES.items():
        lines.append(f"m = importlib.import_module({module!r})")
        lines.append("assert m._COMPILED and not m.__file__.endswith('.py'), m.__file__")
        lines.append(f"print({name!r}, t._digest({name!r}))")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def compiled_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the package with every module of ``COMPILED_MODULES`` compiled (one build)."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        pytest.skip("mypyc is not installed (pip install mypy)")
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    tmp = tmp_path_factory.mktemp("compiled")
    # -O1: half the C compiler's time of the default -O3, the same generated code paths
    lib, env = tmp / "lib", dict(os.environ, ARENA_COMPILE="1", ARENA_COMPILE_DIR=str(tmp / "c"),
                                 ARENA_COMPILE_OPT="1")
    build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(lib),
                            "--build-temp", str(tmp / "tmp")],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    built = sorted(p.relative_to(lib) for p in lib.rglob("*.so"))
    names = {str(p.parent / p.name.split(".")[0]) for p in built}
    missing = [m for m in COMPILED_MODULES if m.removesuffix(".py") not in names]
    assert not missing, (missing, built, build.stdout[-2000:])
    pkg = tmp / "pkg"
    shutil.copytree(ROOT / "arena", pkg / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for rel in built:
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib / rel, pkg / rel)
    yield pkg


def _run_env(pkg: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(pkg))


@pytest.mark.timeout(1200)
def test_compiled_engines_play_as_the_pure_ones(compiled_package: Path, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _digest_script()], cwd=tmp_path,
                         env=_run_env(compiled_package), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    got = dict(line.split() for line in out.stdout.strip().splitlines())
    for name in GAMES:
        assert got[name] == _digest(name), f"the compiled {name} engine played differently"


@pytest.mark.timeout(1200)
def test_compiled_engines_pass_the_suite(compiled_package: Path, tmp_path: Path) -> None:
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
         "--rootdir", str(ROOT), *(str(ROOT / p) for p in SUITE),
         *(f"--ignore={ROOT / p}" for p in SUITE_IGNORE),
         "-k", "bridge or canasta or rummy or pins"],
        cwd=tmp_path, env=_run_env(compiled_package), capture_output=True, text=True, timeout=1100)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and " failed" not in tests.stdout, tests.stdout[-2000:]
