"""Server-side charts as SVG text (matplotlib's object API on the Agg/SVG canvas:
no display, no pyplot state, nothing fetched by the browser)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

__all__ = ["history_svg", "errorbars_svg", "empty_svg"]

_STYLE = {"font.size": 9}


def _svg(fig: Figure) -> str:
    FigureCanvasSVG(fig)
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    return buf.getvalue()


def empty_svg(text: str) -> str:
    """A small SVG saying ``text`` (no data)."""
    from html import escape

    return ('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="60">'
            f'<text x="10" y="35" font-family="sans-serif" font-size="14" fill="#666">{escape(text)}</text>'
            '</svg>')


def history_svg(history: Mapping[str, Sequence[Any]], *, title: str = "") -> str:
    """Each bot's rating after every result (``HistoryPoint``: step, rating, error), with
    the 95% band where the rater has one."""
    names = [b for b in sorted(history) if history[b]]
    if not names:
        return empty_svg("no rating history yet")
    fig = Figure(figsize=(7.5, 3.6), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for b in names:
        pts = history[b]
        x = [p.step for p in pts]
        y = [p.rating for p in pts]
        (line,) = ax.plot(x, y, label=b, linewidth=1.4)
        if all(p.error is not None for p in pts):
            ax.fill_between(x, [p.rating - p.error for p in pts], [p.rating + p.error for p in pts],
                            color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xlabel("result #")
    ax.set_ylabel("Elo")
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return _svg(fig)


def errorbars_svg(rows: Sequence[Mapping[str, Any]], *, title: str = "") -> str:
    """Horizontal error bars: each row's ``bt`` rating with ``bt_error`` (95% half-width)
    where known, else its Elo ``rating``."""
    items = [(str(r["bot"]), float(r.get("bt", r["rating"])),
              r.get("bt_error") if "bt" in r else r.get("error")) for r in rows]
    if not items:
        return empty_svg("no ratings yet")
    items.reverse()  # best on top
    fig = Figure(figsize=(7.5, 0.5 + 0.45 * len(items) + 0.6), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    ys = list(range(len(items)))
    xs = [v for _, v, _ in items]
    errs = [e if e is not None else 0.0 for _, _, e in items]
    ax.errorbar(xs, ys, xerr=errs, fmt="o", color="#1f5f99", ecolor="#7aa6cf", elinewidth=3, capsize=4)
    ax.set_yticks(ys, [b for b, _, _ in items])
    ax.axvline(0.0 if any("bt" in r for r in rows) else 1500.0, color="#999", linewidth=0.8, linestyle=":")
    ax.set_xlabel("rating (Bradley-Terry, relative to the pool mean) with 95% interval"
                  if any("bt" in r for r in rows) else "Elo")
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_ylim(-0.7, len(items) - 0.3)
    fig.tight_layout()
    return _svg(fig)
