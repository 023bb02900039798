"""The generated Python code is what ``proto/`` generates now (rule 10), and imports."""

from __future__ import annotations

import importlib
import runpy
from pathlib import Path

from gateway.helpers import ROOT  # noqa: I001


def test_generated_code_is_current(tmp_path: Path) -> None:
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
