"""A character-cell scatter plot of per-system scores: mean on the anchor sample (y) against the full mean (x).

Both axes share one range, so points on the dotted diagonal are systems whose
sample score equals their full score; a cell holding several systems shows
their count. Drawn as plain `Text`: system names never pass through markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widget import Widget

Y_AXIS = 7
"""Columns left of the plot for the y tick labels and the axis."""


def plot_range(values: Sequence[float]) -> tuple[float, float]:
    """A common [low, high] for both axes with a little room; a single value gets ±0.05."""
    if not values:
        return 0.0, 1.0
    low, high = min(values), max(values)
    pad = (high - low) * 0.05 or 0.05
    return max(0.0, low - pad) if low >= 0 else low - pad, high + pad


def scatter_text(points: Sequence[tuple[float, float]], width: int, height: int) -> Text:
    """`points` are (full mean, sample mean); the plot fills `width`×`height` cells including axes and ticks."""
    plot_w, plot_h = max(width - Y_AXIS - 1, 8), max(height - 2, 4)
    low, high = plot_range([v for point in points for v in point])
    span = high - low

    def column(x: float) -> int:
        return min(plot_w - 1, max(0, round((x - low) / span * (plot_w - 1))))

    def row(y: float) -> int:
        return min(plot_h - 1, max(0, plot_h - 1 - round((y - low) / span * (plot_h - 1))))

    counts: dict[tuple[int, int], int] = {}
    for x, y in points:
        counts[(row(y), column(x))] = counts.get((row(y), column(x)), 0) + 1
    diagonal = {(row(low + span * c / (plot_w - 1)), c) for c in range(plot_w)}
    text = Text()
    ticks = {0: high, plot_h // 2: low + span / 2, plot_h - 1: low}
    for r in range(plot_h):
        label = f"{ticks[r]:.2f}" if r in ticks else ""
        text.append(f"{label:>{Y_AXIS - 2}} ", style="dim")
        text.append("┤" if r in ticks else "│", style="dim")
        for c in range(plot_w):
            count = counts.get((r, c))
            if count:
                text.append("●" if count == 1 else str(min(count, 9)), style="bold")
            elif (r, c) in diagonal:
                text.append("·", style="dim")
            else:
                text.append(" ")
        text.append("\n")
    text.append(" " * (Y_AXIS - 1) + "└" + "─" * plot_w + "\n", style="dim")
    axis = [" "] * (plot_w + Y_AXIS)
    for value, at in ((low, 0), (low + span / 2, plot_w // 2), (high, plot_w - 4)):
        label = f"{value:.2f}"
        start = Y_AXIS + at
        axis[start : start + len(label)] = label
    text.append("".join(axis).rstrip(), style="dim")
    return text


class ScatterPlot(Widget):
    DEFAULT_CSS = """
    ScatterPlot { height: 14; width: 1fr; max-width: 72; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.points: tuple[tuple[float, float], ...] = ()

    def set_points(self, points: Sequence[tuple[float, float]]) -> None:
        self.points = tuple((float(x), float(y)) for x, y in points)
        self.refresh()

    def render(self) -> Text:
        if not self.points:
            return Text("")
        return scatter_text(self.points, self.size.width, self.size.height)
