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
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.dealing import SeedStream
from arena.core.state import State
from arena.games import get_game
from arena.games.bridge.state import BridgeState
from arena.games.canasta.state import CanastaState
from arena.games.rummy.state import RummyState

ROOT = Path(__file__).resolve().parents[2]

SETUP: dict[str, Any] = runpy.run_path(str(ROOT / "setup.py"), run_name="setup")
COMPILED_MODULES: list[str] = SETUP["COMPILED_MODULES"]


# game -> (module whose _COMPILED flag is asserted, configurations of the digest, games per configuration)
GAMES: dict[str, tuple[str, list[dict[str, Any]], int]] = {
    "bridge": ("arena.games.bridge.state", [{"preset": "duplicate"}, {"preset": "rubber"}], 25),
    "canasta": ("arena.games.canasta.state",
                [{"preset": "classic", "deals": 1}, {"preset": "classic-2p", "deals": 1},
                 {"preset": "hungarian", "deals": 1}], 4),
    "rummy": ("arena.games.rummy.state", [{"players": 2, "deals": 1}, {"players": 4, "deals": 1}], 6),
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
             "import test_compiled_engines as t", "import arena.games",
             "assert arena.games.compiled() == list(arena.games.COMPILABLE_MODULES), arena.games.compiled()"]
    for name, (module, _opts, _n) in GAMES.items():
        lines.append(f"m = importlib.import_module({module!r})")
        lines.append("assert m._COMPILED and not m.__file__.endswith('.py'), m.__file__")
        lines.append(f"print({name!r}, t._digest({name!r}))")
    return "\n".join(lines) + "\n"


WHEEL_LINE = "arena: compiled engines: bridge, canasta, rummy"
"""The build's line when it compiled every engine (``setup.py`` ``report``)."""


def _build_env(**extra: str) -> dict[str, str]:
    """The environment of a wheel build: automatic mode (no ``ARENA_COMPILE*`` of the
    caller's), the C compiler at ``-O1`` (half the time of the default ``-O3``, the same
    generated code paths)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_COMPILE")}
    return dict(env, ARENA_COMPILE_OPT="1", **extra)


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the wheel is built from, copied (a build writes into its source tree)."""
    src = tmp_path_factory.mktemp("source") / "arena-src"
    ignore = shutil.ignore_patterns("__pycache__", "*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py", "_wire",
                                    "*.egg-info", "build", "node_modules", "*.db", "*.so", ".benchmarks")
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("arena", "workers", "proto", "clients/python/arenabot"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    return src


def _pip_wheel(src: Path, out: Path, env: dict[str, str]) -> tuple[Path, str]:
    """``pip wheel`` of ``src`` (no isolation: this environment's setuptools and mypy) into
    ``out``; the wheel and the build's output."""
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v",
                            "-w", str(out), str(src)],
                           cwd=out.parent, env=env, capture_output=True, text=True, timeout=900)
    log = build.stdout + build.stderr
    assert build.returncode == 0, log[-4000:]
    (wheel,) = out.glob("arena-*.whl")
    return wheel, log


def _arena_lines(log: str) -> list[str]:
    return [line.strip() for line in log.splitlines() if line.strip().startswith("arena: ")]


@pytest.fixture(scope="module")
def compiled_wheel(source_copy: Path) -> Path:
    """The wheel ``pip wheel .`` builds where mypyc and a C compiler are (one build)."""
    try:
        import mypyc  # noqa: F401
    except ImportError:
        pytest.skip("mypyc is not installed (pip install mypy)")
    problem = SETUP["c_compiler_problem"]()
    if problem:
        pytest.skip(problem)
    out = source_copy.parent / "wheels-compiled"
    out.mkdir()
    wheel, log = _pip_wheel(source_copy, out, _build_env())
    assert _arena_lines(log) == [WHEEL_LINE], log[-4000:]
    return wheel


@pytest.fixture(scope="module")
def compiled_package(source_copy: Path, compiled_wheel: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the package the wheel was built from (the same sources as its extension
    modules, whatever changed in the checkout since) with those modules laid over it."""
    pkg = tmp_path_factory.mktemp("compiled") / "pkg"
    shutil.copytree(source_copy / "arena", pkg / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    with zipfile.ZipFile(compiled_wheel) as wheel:
        for name in wheel.namelist():
            if name.endswith(".so"):
                (pkg / name).parent.mkdir(parents=True, exist_ok=True)
                (pkg / name).write_bytes(wheel.read(name))
    yield pkg


@pytest.mark.timeout(1200)
def test_wheel_holds_the_compiled_engines(compiled_wheel: Path) -> None:
    """``pip wheel .`` with a compiler: a platform wheel with an extension module for every
    module of ``COMPILED_MODULES`` (and mypyc's shared library), the pure sources beside them."""
    assert not compiled_wheel.name.endswith("-none-any.whl"), compiled_wheel.name
    with zipfile.ZipFile(compiled_wheel) as wheel:
        names = wheel.namelist()
        tags = wheel.read(next(n for n in names if n.endswith(".dist-info/WHEEL"))).decode()
    assert "Root-Is-Purelib: false" in tags, tags
    extensions = {n.split(".")[0] for n in names if n.endswith(".so")}
    for module in COMPILED_MODULES:
        stem = module.removesuffix(".py")
        assert stem in extensions, (module, sorted(extensions))
        assert module in names, f"{module}: the pure source must stay in the wheel"
    assert any(e.endswith("__mypyc") and "/" not in e for e in extensions), sorted(extensions)
    assert len(extensions) == len(COMPILED_MODULES) + 1, sorted(extensions)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("why, env, line", [
    ("no-compiler", {"CC": "/nonexistent/cc"}, "arena: pure Python engines (no working C compiler: "),
    ("opt-out", {"ARENA_COMPILE": "0"}, "arena: pure Python engines (ARENA_COMPILE=0)"),
])
def test_wheel_falls_back_to_pure_python(source_copy: Path, why: str, env: dict[str, str], line: str) -> None:
    """Without a working C compiler, or with ``ARENA_COMPILE=0``: a pure wheel
    (``py3-none-any``, no extension module, not even one an earlier compiled build of the
    same tree left in its ``build/``) and the line that says why."""
    out = source_copy.parent / f"wheels-{why}"
    out.mkdir()
    wheel, log = _pip_wheel(source_copy, out, _build_env(**env))
    lines = _arena_lines(log)
    assert len(lines) == 1 and lines[0].startswith(line), (lines, log[-3000:])
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    assert not [n for n in names if n.endswith((".so", ".pyd"))]
    assert all(m in names for m in COMPILED_MODULES)


@pytest.mark.timeout(300)
def test_editable_build_is_pure_python(source_copy: Path, tmp_path: Path) -> None:
    """An editable install (PEP 660, what ``pip install -e`` asks setuptools for) never
    compiles: compiled modules would shadow the sources being edited."""
    script = ("import sys, setuptools.build_meta as b\n"
              f"print('WHEEL', b.build_editable({str(tmp_path)!r}))\n")
    build = subprocess.run([sys.executable, "-c", script], cwd=source_copy, env=_build_env(),
                           capture_output=True, text=True, timeout=240)
    log = build.stdout + build.stderr
    assert build.returncode == 0, log[-4000:]
    assert _arena_lines(log) == ["arena: pure Python engines (editable install: compiled modules would "
                                 "shadow the sources)"], log[-3000:]
    assert "mypyc" not in log
    (wheel,) = tmp_path.glob("arena-*.editable-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        assert not [n for n in zf.namelist() if n.endswith(".so")]
    assert not list((source_copy / "arena").rglob("*.so")), "compiled in place"


def test_compiled_lists_the_modules_this_install_runs_compiled() -> None:
    """``arena.games.compiled()`` (``arena games``' last line) names the compiled modules of
    this installation; the modules it knows are setup.py's."""
    from arena.games import COMPILABLE_MODULES, compiled

    assert [m.removesuffix(".py").replace("/", ".") for m in COMPILED_MODULES] == list(COMPILABLE_MODULES)
    flags = {"arena.games.bridge.state": BridgeState, "arena.games.canasta.state": CanastaState,
             "arena.games.rummy.state": RummyState}
    for module in flags:  # consistent with the engines' own flag
        assert (module in compiled()) == bool(sys.modules[module]._COMPILED)


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
