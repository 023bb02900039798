"""``mypy --strict`` passes on ``arena/`` and ``workers/`` (CONVENTIONS rule 15).

The settings are those of ``[tool.mypy]`` in ``pyproject.toml`` (strict; the
generated ``arena/<api>/v1/*_pb2*`` modules are not checked). mypy and the stub
packages come with the ``test`` extra. A cold run takes about a minute; mypy keeps
its cache in ``.mypy_cache/`` (gitignored), which makes later runs fast.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600.0


@pytest.mark.timeout(TIMEOUT + 60)
def test_mypy_strict_passes() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "arena", "workers"], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    output = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 0, f"mypy exited with {proc.returncode}:\n{output}"
