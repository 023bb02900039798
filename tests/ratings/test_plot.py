"""plot_history writes a PNG (Agg canvas, no display)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.ratings.glicko2 import Glicko2Rater
from arena.ratings.plot import plot_history
from arena.ratings.result import MatchResult


def test_plot_history_png(tmp_path: Path) -> None:
    g = Glicko2Rater()
    g.record_all([MatchResult("g@1", ["a", "b"], [1, 0]), MatchResult("g@1", ["b", "c"], [1, 0])])
    out = plot_history(g.history("g@1"), tmp_path / "h.png", title="g@1")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_plot_empty_raises(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        plot_history({}, tmp_path / "x.png")
