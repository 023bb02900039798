"""tests/benchmarks/bench_search.py: one line per game with the search bot's decision
times and its margin over the heuristic with an interval; option errors are one line,
exit 2."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_search.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_search", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_search"] = module
    spec.loader.exec_module(module)
    return module


def test_one_line_per_game_with_times_and_interval(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _bench()
    assert bench.main(["--games", "2", "--seed", "3", "--only", "rummy",
                       "--spec", "pimc?playouts=2&width=2&ms=0"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    line = out[0]
    assert line.startswith("rummy") and "2 deals, seed 3" in line
    m = re.search(r"decisions/s \((\d+)\), p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", line)
    assert m is not None and int(m.group(1)) > 0
    p50, p99, top = (float(m.group(i)) for i in (2, 3, 4))
    assert p50 <= p99 <= top
    assert re.search(r"margin [+-][\d.]+ points/deal \[[+-][\d.]+, [+-][\d.]+\]", line)
    assert "load" in line and "faults" in line


def test_decision_times_count_only_the_bots_own_decisions() -> None:
    from types import SimpleNamespace

    from arena.records.record import ActionEntry

    bench = _bench()
    rec = SimpleNamespace(seats=["pimc", "heuristic"], actions=[
        ActionEntry(seat=0, action="a", ms=5.0), ActionEntry(seat=1, action="b", ms=7.0),
        ActionEntry(seat=0, action="c", ms=0.0, forced=True)])
    assert bench.decision_times([rec], "pimc") == [5.0]
    assert bench.decision_times([rec], "heuristic") == [7.0]
    assert bench._quantile([1.0, 2.0, 3.0, 4.0], 0.99) == 4.0
    assert bench._quantile([float(i) for i in range(1, 201)], 0.99) == 198.0


@pytest.mark.parametrize("argv", [["--only", "chess"], ["--games", "0"], ["--deadline-ms", "0"]])
def test_option_errors_are_one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert _bench().main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("bench_search: ")
