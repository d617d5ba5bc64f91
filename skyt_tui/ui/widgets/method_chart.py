"""A character-cell chart of one statistic against the anchor count k, one marker per method.

Used for the benchmark validation: median r and median MAE on held-out systems at k = 4, 10,
25, … for irt (i), cluster (c), stratified (s) and random (r). The k positions are equally spaced (the k
values are roughly geometric); a cell where two methods meet shows `*`. Plain `Text`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widget import Widget

MARKERS = {
    "irt": ("i", "bold green"),
    "cluster": ("c", "bold cyan"),
    "stratified": ("s", "bold yellow"),
    "random": ("r", "bold"),
}
LABEL_WIDTH = 6


def chart_text(
    title: str,
    sizes: Sequence[int],
    series: Mapping[str, Sequence[float]],
    height: int = 7,
    fmt: str = "{:.2f}",
) -> Text:
    """`series` maps a method to one value per size (NaN where undefined)."""
    values = [v for column in series.values() for v in column if not math.isnan(v)]
    text = Text(title + "\n", style="bold")
    if not values or not sizes:
        text.append("no data", style="dim")
        return text
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 0.01, high + 0.01
    step = 4
    width = step * (len(sizes) - 1) + 1

    def row(value: float) -> int:
        return round((high - value) / (high - low) * (height - 1))

    cells: dict[tuple[int, int], str] = {}
    for method, column in series.items():
        marker = MARKERS.get(method, (method[:1], "bold"))[0]
        for index, value in enumerate(column):
            if math.isnan(value):
                continue
            key = (row(value), index * step)
            cells[key] = "*" if key in cells and cells[key] != marker else marker
    styles = {marker: style for marker, style in MARKERS.values()}
    ticks = {0: high, (height - 1) // 2: (high + low) / 2, height - 1: low}
    for r in range(height):
        label = fmt.format(ticks[r]) if r in ticks else ""
        text.append(f"{label:>{LABEL_WIDTH - 1}} ", style="dim")
        text.append("┤" if r in ticks else "│", style="dim")
        for c in range(width):
            mark = cells.get((r, c))
            text.append(mark or " ", style=styles.get(mark or "", "bold"))
        text.append("\n")
    text.append(" " * LABEL_WIDTH + "└" + "─" * width + "\n", style="dim")
    axis = [" "] * (width + 4)
    for index, size in enumerate(sizes):
        label = str(size)
        start = index * step
        axis[start : start + len(label)] = label
    text.append(" " * (LABEL_WIDTH + 1) + "".join(axis).rstrip() + "  k", style="dim")
    return text


def legend(methods: Sequence[str]) -> Text:
    text = Text()
    for method in methods:
        marker, style = MARKERS.get(method, (method[:1], "bold"))
        text.append(marker, style=style)
        text.append(f" {method}   ")
    text.append("* two methods meet", style="dim")
    return text


class MethodChart(Widget):
    """Median r and median MAE against k, side by side (stacked when narrow)."""

    DEFAULT_CSS = """
    MethodChart { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sizes: tuple[int, ...] = ()
        self.r: dict[str, tuple[float, ...]] = {}
        self.mae: dict[str, tuple[float, ...]] = {}
        self.note = ""

    def set_data(
        self,
        sizes: Sequence[int],
        r: Mapping[str, Sequence[float]],
        mae: Mapping[str, Sequence[float]],
        note: str = "",
    ) -> None:
        self.sizes = tuple(sizes)
        self.r = {m: tuple(v) for m, v in r.items()}
        self.mae = {m: tuple(v) for m, v in mae.items()}
        self.note = note
        self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[no-untyped-def]
        if not self.sizes:
            return 1
        one = 7 + 3
        side_by_side = width >= 2 * self._chart_width() + 4
        return (one if side_by_side else 2 * one) + 2

    def _chart_width(self) -> int:
        return LABEL_WIDTH + 1 + 4 * max(len(self.sizes) - 1, 0) + 8

    def render(self) -> Text:
        if not self.sizes:
            return Text(self.note or "", style="dim")
        left = chart_text("median r (held out)", self.sizes, self.r).split("\n")
        right = chart_text("median MAE", self.sizes, self.mae, fmt="{:.3f}").split("\n")
        text = Text()
        width = self._chart_width()
        if self.size.width >= 2 * width + 4:
            for a, b in zip(left, right):
                a = a.copy()
                a.pad_right(width + 4 - a.cell_len)
                text.append_text(a)
                text.append_text(b)
                text.append("\n")
        else:
            for line in (*left, *right):
                text.append_text(line)
                text.append("\n")
        text.append_text(legend(list(self.r)))
        if self.note:
            text.append("\n" + self.note, style="dim")
        return text
