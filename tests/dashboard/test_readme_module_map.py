"""The README's module map ("How it fits together") against the tree (issue 27): every
``arena/...`` path it names exists, every package and module of ``arena/`` is named, and
a class the map names under a package is defined in that package (``RemoteAgent`` is
in ``arena/remote``, not in the gateway).

(It sits with the dashboard tests because that is where this change's tests live; it
needs nothing of the dashboard.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT / "arena"


def _section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## How it fits together\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _bullets() -> list[str]:
    """The map's entries: each ``- `arena/...`: ...`` bullet with its continuation lines."""
    return [b.strip() for b in re.split(r"\n(?=- )", _section()) if b.startswith("- ")]


def _paths(text: str) -> list[str]:
    """Every ``arena/...`` path in backticks (``arena/games/<game>`` as ``arena/games``)."""
    out = []
    for p in re.findall(r"`(arena/[^`\s]*)`", text):
        out.append(p.split("/<", 1)[0].rstrip("/"))
    return out


def test_every_path_in_the_module_map_exists() -> None:
    named = _paths(_section())
    assert named, "the module map names arena/ paths"
    missing = [p for p in named if not (ROOT / p).exists()]
    assert not missing, f"README module map names paths that do not exist: {missing}"


def test_every_package_and_module_is_in_the_module_map() -> None:
    tops = {p.split("/")[1] for p in _paths(_section())}
    tree = {p.name for p in ARENA.iterdir()
            if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.name != "__init__.py")}
    assert tree >= {"remote", "cli.py", "cluster.py", "config.py", "league_cli.py"}  # the test sees the tree
    assert not tree - tops, f"README module map omits {sorted(tree - tops)}"


def _classes(paths: list[Path]) -> set[str]:
    names: set[str] = set()
    for base in paths:
        files = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for f in files:
            names |= set(re.findall(r"^class (\w+)", f.read_text(encoding="utf-8"), re.M))
    return names


def test_classes_named_where_they_live() -> None:
    everywhere = _classes([ARENA])
    wrong = []
    for bullet in _bullets():
        head = bullet.split(":", 1)[0]
        homes = [ROOT / p for p in _paths(head)]
        if not homes:
            continue
        here = _classes([h for h in homes if h.exists()])
        for name in re.findall(r"`([A-Z][A-Za-z0-9]+)`", bullet):
            if name in everywhere and name not in here:
                wrong.append(f"{name} (named under {head.strip('- ')})")
    assert not wrong, f"README module map puts classes in the wrong package: {wrong}"
