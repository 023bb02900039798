"""Engines are pure: no I/O, clock, global random state or printing in arena/games/.

An AST check over every module of ``arena/games/``: imports are limited to the
standard library modules listed below and ``arena.core``; ``print``, ``open``,
``input`` and ``breakpoint`` are never called.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[1] / "arena" / "games"

ALLOWED_STDLIB = {
    "__future__", "abc", "bisect", "collections", "dataclasses", "enum", "functools", "heapq",
    "itertools", "json", "math", "operator", "re", "typing", "types", "string", "copy",
    "fractions", "statistics", "array", "textwrap",
}
FORBIDDEN_CALLS = {"print", "open", "input", "breakpoint", "exec", "eval"}
MODULES = sorted(p for p in GAMES.rglob("*.py") if p != GAMES / "__init__.py")  # not the registry


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(GAMES)) for p in MODULES])
def test_engine_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    problems = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import inside the game package
                continue
            names = [node.module or ""]
        for name in names:
            top = name.split(".")[0]
            if name.startswith("arena.core") or name.startswith("arena.games") or top in ALLOWED_STDLIB:
                continue
            problems.append(f"line {node.lineno}: imports {name}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
            problems.append(f"line {node.lineno}: calls {node.func.id}()")
    assert not problems, f"{path.relative_to(GAMES)} is not pure:\n" + "\n".join(problems)


def test_the_check_sees_every_game() -> None:
    assert MODULES, "no engine modules found"
