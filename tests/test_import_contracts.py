"""The import contracts of DESIGN.md, checked in CI.

The ``arena``/``workers`` contracts are import-linter's (``[tool.importlinter]`` in
pyproject.toml): games import only the core; ratings import neither the store nor
the gateway; workers, tournaments, match, remote and store never import the
gateway (nor gRPC); the store imports nothing from tournaments, workers, match or
remote; the referee does not import the remote route; tournaments do not import
workers. The SDKs in ``clients/`` must import nothing from ``arena`` (checked
here on their source: they are separate distributions).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept() -> None:
    proc = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--no-cache"],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "BROKEN" not in proc.stdout and "KEPT" in proc.stdout


def test_contracts_fail_when_broken(tmp_path: Path) -> None:
    """The checker is live: a forbidden import in a copy of a contract is reported."""
    cfg = tmp_path / "contracts.ini"
    cfg.write_text("[importlinter]\nroot_packages =\n    arena\n\n"
                   "[importlinter:contract:probe]\nname = probe\ntype = forbidden\n"
                   "source_modules =\n    arena.tournaments\nforbidden_modules =\n    arena.records\n",
                   encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--no-cache", "--config", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout, proc.stdout[-2000:]


WIRE = "arena.bot.v1"
"""The one exception: ``arenabot.wire`` falls back to the platform's generated
copy of the same ``proto/`` messages when the SDK runs from the source tree
unbuilt (it is the wire contract, not platform code)."""


def _platform_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return [n for n in names if n.split(".")[0] in ("arena", "workers") and n != WIRE]


def _tracked(pattern: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", "--", pattern], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.split()
    return [ROOT / p for p in out]


def test_sdks_import_nothing_from_arena() -> None:
    files = _tracked("clients/*.py")
    assert files, "no SDK sources found"
    bad = {str(p.relative_to(ROOT)): _platform_imports(p) for p in files if _platform_imports(p)}
    assert bad == {}
    for js in _tracked("clients/node/*.js"):
        text = js.read_text(encoding="utf-8")
        assert "require('arena" not in text and 'from "arena' not in text, js
