"""Browser test: a real dashboard server (uvicorn in a subprocess on 127.0.0.1, a free
port) on a store with finished tournaments of every game, Swiss, ladder, pairs and league
events (:mod:`tests.dashboard.store_fixture`), driven by
``browser/run.js`` (playwright-core with Debian's /usr/bin/chromium).

Screenshots of every page kind go to ``artifacts/screenshots/`` at the repository
root (gitignored; override with ``$ARENA_SCREENSHOTS``). Needs ``node``,
``/usr/bin/chromium`` and ``npm ci`` in ``tests/dashboard/browser``; without them
the test is skipped, except under CI (``$CI`` set), where it fails.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BROWSER = HERE / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if not (BROWSER / "node_modules" / "playwright-core").is_dir():
        return "playwright-core is not installed (npm ci in tests/dashboard/browser)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"dashboard exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"dashboard did not answer on {url} within {timeout} s")


@pytest.mark.timeout(480)
def test_browser(dashboard_store: dict[str, Any], tmp_path: Path) -> None:
    why = _missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "server.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "arena.dashboard", "--store", dashboard_store["url"],
                             "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        _wait_healthy(base, proc)
        shots = Path(os.environ.get("ARENA_SCREENSHOTS", ROOT / "artifacts" / "screenshots"))
        run = subprocess.run(["node", str(BROWSER / "run.js"), base, str(shots)], cwd=ROOT,
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "CHROMIUM": CHROMIUM})
        out = run.stdout + run.stderr
        assert run.returncode == 0, out[-6000:]
        assert " 0 failed" in out
        for kind in ("tournaments", "tournament-bridge", "ratings", "bot", "replay-bridge-middle",
                     "replay-canasta-middle", "replay-calypso-middle", "replay-rummy-middle",
                     "replay-auction-middle", "match-running", "match-unfinished", "replay-bridge-trick",
                     "replay-bridge-deal-end", "replay-canasta-melds", "tournament-bridge-travellers",
                     "tournament-pairs", "tournament-swiss", "tournament-ladder", "tournament-ladder-live",
                     "leagues", "league", "replay-bridge-vulnerable"):
            assert (shots / f"{kind}.png").stat().st_size > 5000, kind
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
