"""A character-cell line chart: a few series over a few equally spaced x positions, one marker per
series; a cell where two series meet shows `*`. Plain `Text`, so it works with NO_COLOR.

The benchmark's method chart (r and MAE against the anchor count k) and the study chart (a
metric against temperature) both draw with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

LABEL_WIDTH = 6
"""Cells for the y tick labels and the space after them, left of the axis."""


@dataclass(frozen=True)
class Series:
    name: str
    values: tuple[float | None, ...]
    """One value per x position; None or NaN where there is none."""
    marker: str
    style: str


def chart_values(series: Sequence[Series]) -> list[float]:
    """Every value there is to plot (None and NaN left out)."""
    return [v for one in series for v in one.values if v is not None and not math.isnan(v)]


def line_chart_text(
    title: str,
    x_labels: Sequence[str],
    x_name: str,
    series: Sequence[Series],
    *,
    height: int,
    step: int,
    fmt: str = "{:.2f}",
    empty: str = "no data",
) -> Text:
    """The title, `height` rows with ticks at the top, middle and bottom, and the x axis labelled
    with `x_labels` and `x_name` (no newline after it); `empty` in place of the plot when there is
    no value or no x position."""
    values = chart_values(series)
    text = Text(title + "\n", style="bold")
    if not values or not x_labels:
        text.append(empty, style="dim")
        return text
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 0.01, high + 0.01
    width = step * (len(x_labels) - 1) + 1

    def row(value: float) -> int:
        return round((high - value) / (high - low) * (height - 1))

    cells: dict[tuple[int, int], str] = {}
    for one in series:
        for index, value in enumerate(one.values):
            if value is None or math.isnan(value):
                continue
            key = (row(value), index * step)
            cells[key] = "*" if key in cells and cells[key] != one.marker else one.marker
    styles = {one.marker: one.style for one in series}
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
    axis = [" "] * width
    for index, label in enumerate(x_labels):
        axis[index * step : index * step + len(label)] = label
    text.append(" " * (LABEL_WIDTH + 1) + "".join(axis).rstrip() + f"  {x_name}", style="dim")
    return text


def legend_text(series: Sequence[Series], meet: str) -> Text:
    """Each series' marker and name, then what `*` means (`meet`); a marker two series share has
    the style it has in the chart (the last one's)."""
    styles = {one.marker: one.style for one in series}
    text = Text()
    for one in series:
        text.append(one.marker, style=styles[one.marker])
        text.append(f" {one.name}   ")
    text.append(f"* {meet}", style="dim")
    return text
