"""The standalone ``arenabot`` distribution: built, installed alone, played against a gateway.

Builds the wheel from ``clients/python`` (``pip wheel``, with build isolation, so
the build pulls setuptools and the pinned grpcio-tools like a user's would),
installs it into a clean venv (no system site-packages) with only what its
metadata asks for, checks that the platform is not there, and runs
``python -m arenabot`` from that venv against a real gateway in this process.
The sdist is checked to build the same wheel away from the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.base import RandomAgent
from arena.gateway import Gateway
from arena.match.referee import run_match
from arena.testing.toy import HighcardGame

from gateway.helpers import SDK_PATH  # noqa: I001

pytestmark = pytest.mark.timeout(600)


def _run(*args: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc


def _wire_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as zf:
        return {n: zf.read(n) for n in zf.namelist() if not n.startswith("arenabot-0")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    started = time.monotonic()
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", SDK_PATH, "-w", out, cwd=out)
    print(f"\npip wheel clients/python: {time.monotonic() - started:.1f} s")
    [built] = out.glob("arenabot-*.whl")
    return built


@pytest.fixture(scope="module")
def venv_python(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("venv")
    started = time.monotonic()
    # clean venv; the outer pip installs into it (pip --python), which skips ensurepip
    _run(sys.executable, "-m", "venv", "--without-pip", root / "venv", cwd=root)
    python = root / "venv" / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "--quiet", wheel, cwd=root)
    print(f"\nclean venv + pip install of the wheel and its dependencies: "
          f"{time.monotonic() - started:.1f} s")
    yield python


def test_wheel_contents(wheel: Path) -> None:
    names = set(_wire_files(wheel))
    assert {"arenabot/_wire/bot_pb2.py", "arenabot/_wire/bot_pb2_grpc.py",
            "arenabot/_wire/bot_pb2.pyi", "arenabot/_wire/bridge_pb2.py"} <= names
    assert not any(n.startswith("arena/") for n in names), "the wheel must not ship into arena/"
    with zipfile.ZipFile(wheel) as zf:
        meta = next(zf.read(n).decode() for n in zf.namelist() if n.endswith("/METADATA"))
        for name in zf.namelist():
            if name.startswith("arenabot/_wire/") and name.endswith((".py", ".pyi")):
                text = zf.read(name).decode()
                assert "from arena" not in text and "import arena" not in text, name
    requires = sorted(line.split(":", 1)[1].strip() for line in meta.splitlines()
                      if line.startswith("Requires-Dist:"))
    assert [r for r in requires if "extra ==" not in r] == ["grpcio>=1.85.1", "protobuf>=7.35.1"]
    assert [r for r in requires if "extra ==" in r] == [
        'uvloop>=0.21; sys_platform != "win32" and extra == "uvloop"']


def test_venv_has_only_the_sdk(venv_python: Path, tmp_path: Path) -> None:
    probe = (
        "import importlib.metadata as m, importlib.util as u, json, arenabot.wire as w\n"
        "print(json.dumps(sorted(d.metadata['Name'].lower().replace('_', '-')"
        " for d in m.distributions())))\n"
        "print(u.find_spec('arena') is not None)\n"
        "print(w.bot_pb2.__name__)\n"
    )
    dists, has_arena, wire = _run(venv_python, "-c", probe, cwd=tmp_path).stdout.splitlines()
    assert set(json.loads(dists)) <= {"arenabot", "grpcio", "protobuf", "typing-extensions"}, dists
    assert has_arena == "False", "the platform (or an arena/ directory) is importable in the venv"
    assert wire == "arenabot._wire.bot_pb2"
    usage = _run(venv_python, "-m", "arenabot", "--help", cwd=tmp_path).stdout
    assert "--target" in usage and "--token" in usage and "--event-loop" in usage
    # uvloop is an extra: asked for without it, the bot says how to get it
    out = subprocess.run([str(venv_python), "-m", "arenabot", "--event-loop", "uvloop"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "pip install 'arenabot[uvloop]'" in out.stderr, out.stderr


def test_venv_bot_plays_through_gateway(venv_python: Path, gateway: Gateway, tmp_path: Path) -> None:
    _, token = gateway.registry.register("venv-bot")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    proc = subprocess.Popen([str(venv_python), "-m", "arenabot", "--bot", "random", "--target",
                             gateway.target, "--token", token, "--max-concurrent", "2"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert gateway.wait_connected("venv-bot", 20), proc.stderr and proc.stderr.read1().decode()
        for seed, agents in enumerate([[gateway.agent("venv-bot"), RandomAgent(0)],
                                       [RandomAgent(1), gateway.agent("venv-bot")]]):
            result = run_match(HighcardGame(), agents, seed=seed, match_id=f"venv-{seed}",
                               deadline_ms=5000)
            assert result.record.faults == [], result.record.faults
            assert result.record.terminal and sum(result.record.returns) == 0
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_sdist_builds_the_same_wheel(wheel: Path, tmp_path: Path) -> None:
    """The sdist carries the protos and the generator, and builds away from the repository."""
    sdist_dir, out = tmp_path / "sdist", tmp_path / "out"
    _run(sys.executable, "setup.py", "-q", "sdist", "-d", sdist_dir, cwd=SDK_PATH)
    [sdist] = sdist_dir.glob("arenabot-*.tar.gz")
    with tarfile.open(sdist) as tf:
        names = tf.getnames()
    assert any(n.endswith("_codegen/proto/arena/bot/v1/bot.proto") for n in names), names
    assert any(n.endswith("_codegen/codegen.py") for n in names), names
    assert not any("/_wire/" in n for n in names), "generated code must not be in the sdist"
    _run(sys.executable, "-m", "pip", "wheel", "--no-deps", sdist, "-w", out, cwd=tmp_path)
    [rebuilt] = out.glob("arenabot-*.whl")
    assert _wire_files(rebuilt) == _wire_files(wheel)
