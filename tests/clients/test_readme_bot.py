"""The README's "Writing a bot" section, followed as written after the quick start.

The platform is built from a copy of this checkout (``pip wheel``, what ``pip install .``
does) and installed into a fresh venv (``--no-deps``; the dependencies come from the
test environment's site-packages through a ``.pth`` line, so nothing is downloaded and
neither the editable ``arena`` nor any other ``arenabot`` is visible). Then, in an empty
directory with that venv's ``bin`` first on ``PATH``, the section's shell lines and
its Python snippet run as they are printed, with one substitution: the gateway's
port 50051 becomes a free port (other tests may hold 50051). ``ARENA_REDIS_URL`` in
the environment (which ``arena serve`` reads) bridges the gateway to a private
redis-server, so that this test can play a match against the README's bot.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.base import RandomAgent
from arena.match.referee import run_match
from arena.remote.agent import RemoteAgent
from arena.testing.toy import HighcardGame

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]


def _section(text: str, title: str) -> str:
    start = text.index(f"### {title}")
    end = text.index("\n### ", start + 4)
    return text[start:end]


def _blocks(section: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the platform's wheel (built from a copy of the checkout)."""
    tmp = tmp_path_factory.mktemp("readme")
    src = tmp / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py", "_wire",
                                    "*.egg-info", "build", "node_modules", "*.db")
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("arena", "workers", "proto", "clients/python/arenabot"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    wheels = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    str(src), "-w", str(wheels)], check=True, capture_output=True, timeout=300, cwd=tmp,
                   env=dict(os.environ, ARENA_COMPILE="0"))  # pure engines: no mypyc build here
    [wheel] = wheels.glob("arena-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    str(wheel)], check=True, capture_output=True, timeout=300, cwd=tmp)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the dependencies, from this environment (a path line: its own .pth files are not run)
    (site / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (.ci/run installs it)")
    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 10
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        assert time.monotonic() < end and proc.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)


def test_writing_a_bot_works_as_written_after_pip_install(installed: Path, redis_url: str,
                                                          tmp_path: Path) -> None:
    section = _section((ROOT / "README.md").read_text(), "Writing a bot")
    shell = _blocks(section, "bash")[0]
    python_snippet = _blocks(section, "python")[0]
    port = str(_free_port())
    shell_lines = [line.split("#")[0].strip() for line in shell.replace("50051", port).splitlines()]
    shell_lines = [line for line in shell_lines if line]
    assert shell_lines[0] == "arena serve &" and "arena bots register my-bot" in shell_lines[1]
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ARENA_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=f"{installed / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(installed),
               ARENA_REDIS_URL=redis_url, ARENA_GATEWAY_ADDRESS=f"127.0.0.1:{port}")
    log = tmp_path / "serve.log"
    bot_log = tmp_path / "bot.log"
    (work / "bot.py").write_text(python_snippet.replace("50051", port))
    # the section's two shell lines in one shell, as a reader types them (the second
    # once the gateway listens), then the Python snippet with the token they exported
    script = (f"{shell_lines[0].rstrip('&').strip()} >{log} 2>&1 &\n"
              f"SERVE=$!\n"
              f"for i in $(seq 200); do grep -q listening {log} && break; sleep 0.1; done\n"
              f"{shell_lines[1]}\n"
              f"python bot.py >{bot_log} 2>&1 &\n"
              f"BOT=$!\n"
              f"echo $SERVE $BOT\n")
    started = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                             timeout=120)
    assert started.returncode == 0, started.stderr
    pids = [int(p) for p in started.stdout.split()]
    assert len(pids) == 2, started.stdout + started.stderr
    try:
        from arena.remote.redis_router import RedisRouter

        router = RedisRouter(redis_url, slack=0.5)
        try:
            assert router.wait_connected("my-bot", 60), (log.read_text(errors="replace")[-3000:],
                                                         bot_log.read_text(errors="replace")[-3000:])
            for seed in range(3):
                result = run_match(HighcardGame(), [RemoteAgent("my-bot", router), RandomAgent(seed)],
                                   seed=seed, match_id=f"readme-{seed}", deadline_ms=5000)
                assert result.record.faults == [] and result.record.terminal
                mine = [a for a in result.record.actions if a.seat == 0 and not a.forced]
                assert mine  # the README's bot answered
        finally:
            router.close()
        served = log.read_text(errors="replace")
        assert "bot my-bot connected from" in served, served[-3000:]
        probe = subprocess.run([str(installed / "bin" / "python"), "-c",
                                "import arena, arenabot; print(arena.__file__); print(arenabot.__file__)"],
                               env=env, capture_output=True, text=True, timeout=60, cwd=work)
        assert all(str(installed) in line for line in probe.stdout.split()), probe.stdout + probe.stderr
    finally:
        for pid in pids:
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        for pid in pids:
            end = time.monotonic() + 10
            while time.monotonic() < end:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
