"""The generated Python code is what ``proto/`` generates now (rule 10), and imports."""

from __future__ import annotations

import importlib
import re
import runpy
from importlib import metadata
from pathlib import Path

import pytest

from gateway.helpers import ROOT  # noqa: I001


def _pinned_grpcio_tools() -> str:
    text = (ROOT / "pyproject.toml").read_text()
    build_system = text.split("[build-system]", 1)[1].split("\n[", 1)[0]
    match = re.search(r'"grpcio-tools==([^"]+)"', build_system)
    assert match, "grpcio-tools must be pinned in [build-system] requires"
    return match.group(1)


def test_generated_code_is_current(tmp_path: Path) -> None:
    pinned, installed = _pinned_grpcio_tools(), metadata.version("grpcio-tools")
    if installed != pinned:
        pytest.skip(f"grpcio-tools {installed} is installed but the build pins {pinned}: "
                    "outputs would differ only by generator version")
    codegen = runpy.run_path(str(ROOT / "setup.py"), run_name="codegen")
    fresh = codegen["generate_protos"](out_root=tmp_path)
    assert fresh, "nothing generated"
    for path in fresh:
        rel = path.relative_to(tmp_path)
        installed = ROOT / rel
        assert installed.exists(), f"{rel} missing: run `pip install -e .`"
        assert installed.read_bytes() == path.read_bytes(), f"{rel} is stale: run `pip install -e .`"
        if rel.suffix == ".py":
            importlib.import_module(".".join(rel.with_suffix("").parts))
