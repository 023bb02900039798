"""The bridge engine compiled with mypyc (``ARENA_COMPILE=1``, see ``setup.py``) and pure.

* ``clone()`` has two paths: the ``__dict__`` copy of the pure module and the
  attribute-by-attribute copy (``_copy_state``) of the compiled one, whose instances
  have no ``__dict__`` for their own attributes. Both must copy and share the same
  attributes; checked here in pure Python at states of every phase.
* The compiled build: ``setup.py build_ext`` with ``ARENA_COMPILE=1`` into a
  temporary directory, the extension modules laid over a copy of the package, and the
  bridge tests, the conformance suite on bridge and a digest of seeded random
  playouts run against it in a subprocess (which asserts it runs the compiled module).
  Skipped, saying why, only where mypyc or a C compiler is missing (the ``test`` extra
  installs mypy, which ships mypyc).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.games.bridge.state import BridgeState

ROOT = Path(__file__).resolve().parents[3]


def _states() -> list[BridgeState]:
    out = []
    for preset in ("duplicate", "rubber"):
        game = get_game("bridge", preset=preset)
        for seed in range(3):
            state = game.new_initial_state(seed=seed)
            assert isinstance(state, BridgeState)
            rng = SeedStream(f"copy|{seed}")
            step = 0
            while not state.is_terminal():
                if step % 9 == 0:
                    out.append(state)
                state = state.clone()
                state.apply_action(rng.choice(state.legal_actions()))
                step += 1
            out.append(state)
    return out


def _value(x: object) -> object:
    """Objects without ``__eq__`` (the dealer, the rubber score) by their slots."""
    slots = getattr(type(x), "__slots__", None)
    if slots and type(x).__eq__ is object.__eq__:
        return tuple(getattr(x, name) for name in slots)
    return x


def test_copy_state_copies_and_shares_what_clone_does() -> None:
    for state in _states():
        by_dict = state.clone()
        by_attr = BridgeState(state.game, state.dealer, _copy_of=state)
        a, b, src = vars(by_dict), vars(by_attr), vars(state)
        assert a.keys() == b.keys() == src.keys()
        for key in src:
            assert _value(a[key]) == _value(b[key]), key
            assert (a[key] is src[key]) == (b[key] is src[key]), f"{key}: shared by one path only"
        assert by_attr.legal_actions() == state.legal_actions()
        assert by_attr.observation(0) == state.observation(0)


def _digest_script() -> str:
    return (
        "import hashlib, random\n"
        "import arena.games.bridge.state as m\n"
        "assert m._COMPILED and not m.__file__.endswith('.py'), m.__file__\n"
        "from arena.games import get_game\n"
        "h = hashlib.sha256()\n"
        "for preset in ('duplicate', 'rubber'):\n"
        "    game = get_game('bridge', preset=preset)\n"
        "    for seed in range(40):\n"
        "        s = game.new_initial_state(seed=seed)\n"
        "        choice = random.Random(seed).choice\n"
        "        while not s.is_terminal():\n"
        "            c = s.clone()\n"
        "            s.apply_action(choice(s.legal_actions()))\n"
        "        h.update(s.serialize().encode())\n"
        "print(h.hexdigest())\n")


def _pure_digest() -> str:
    import random

    h = hashlib.sha256()
    for preset in ("duplicate", "rubber"):
        game = get_game("bridge", preset=preset)
        for seed in range(40):
            s = game.new_initial_state(seed=seed)
            choice = random.Random(seed).choice
            while not s.is_terminal():
                s.clone()
                s.apply_action(choice(s.legal_actions()))
            h.update(s.serialize().encode())
    return h.hexdigest()


@pytest.mark.timeout(1200)
def test_compiled_bridge_engine_passes_the_suite(tmp_path: Path) -> None:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        pytest.skip("mypyc is not installed (pip install mypy)")
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    lib, env = tmp_path / "lib", dict(os.environ, ARENA_COMPILE="1", ARENA_COMPILE_DIR=str(tmp_path / "c"))
    build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(lib),
                            "--build-temp", str(tmp_path / "tmp")],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    built = sorted(p.relative_to(lib) for p in lib.rglob("*.so"))
    assert {p.parts[-1].split(".")[0] for p in built} >= {"state", "calls", "cardmasks"}, (built, build.stdout)
    pkg = tmp_path / "pkg"
    shutil.copytree(ROOT / "arena", pkg / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for rel in built:
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(lib / rel, pkg / rel)
    run_env = dict(os.environ, PYTHONPATH=str(pkg))
    digest = subprocess.run([sys.executable, "-c", _digest_script()], cwd=tmp_path, env=run_env,
                            capture_output=True, text=True, timeout=600)
    assert digest.returncode == 0, digest.stderr
    assert digest.stdout.strip() == _pure_digest(), "the compiled engine played differently"
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
         str(ROOT / "tests/games/bridge"), str(ROOT / "tests/conformance"), "-k",
         "bridge and not compiled"],
        cwd=tmp_path, env=run_env, capture_output=True, text=True, timeout=900)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    assert " passed" in tests.stdout and " failed" not in tests.stdout, tests.stdout[-2000:]
