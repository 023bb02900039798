"""Rating-history plot (the only module here that does I/O): :func:`plot_history`.

Uses matplotlib's object API with the Agg canvas, so it needs no display and
does not touch pyplot's global state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from arena.ratings.rater import HistoryPoint

__all__ = ["plot_history"]


def plot_history(
    history: Mapping[str, Sequence[HistoryPoint]],
    path: str | Path,
    *,
    title: str | None = None,
    bots: Sequence[str] | None = None,
) -> Path:
    """Draw each bot's rating against the result number, with its 95% band where known; save a PNG.

    :param history: as returned by :meth:`arena.ratings.rater.Rater.history`.
    :param bots: the bots to draw (default all, in name order).
    :returns: the written path.
    :raises ValueError: if there is nothing to plot.
    :raises OSError: if the file cannot be written.
    """
    names = sorted(history) if bots is None else list(bots)
    names = [b for b in names if history.get(b)]
    if not names:
        raise ValueError("empty rating history")
    fig = Figure(figsize=(8, 4.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for b in names:
        pts = history[b]
        x = [p.step for p in pts]
        y = [p.rating for p in pts]
        (line,) = ax.plot(x, y, label=b, linewidth=1.2)
        if all(p.error is not None for p in pts):
            lo = [p.rating - (p.error or 0.0) for p in pts]
            hi = [p.rating + (p.error or 0.0) for p in pts]
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xlabel("result #")
    ax.set_ylabel("rating")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, format="png")
    return out
