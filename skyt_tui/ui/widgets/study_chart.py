"""A character-cell chart of a study metric against temperature, one marker per model.

Temperatures are equally spaced along the x axis (they are few); each model gets
a digit as its marker, listed in the legend; a cell where two models meet
shows `*`. Plain `Text`, so it works with NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widget import Widget

LABEL_WIDTH = 6
STEP = 6
HEIGHT = 8
STYLES = ("bold cyan", "bold yellow", "bold magenta", "bold green", "bold red", "bold blue")


def chart_text(
    title: str, temperatures: Sequence[float], series: Mapping[str, Sequence[float | None]]
) -> Text:
    """`series` maps a model to one value per temperature (None where it has no runs)."""
    text = Text(title + "\n", style="bold")
    values = [v for column in series.values() for v in column if v is not None]
    if not values or not temperatures:
        text.append("no data to chart (runs need a model and a temperature)", style="dim")
        return text
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 0.01, high + 0.01
    width = STEP * (len(temperatures) - 1) + 1

    def row(value: float) -> int:
        return round((high - value) / (high - low) * (HEIGHT - 1))

    markers = {model: str(number % 10) for number, model in enumerate(series, start=1)}
    styles = {markers[m]: STYLES[i % len(STYLES)] for i, m in enumerate(series)}
    cells: dict[tuple[int, int], str] = {}
    for model, column in series.items():
        for index, value in enumerate(column):
            if value is None:
                continue
            key = (row(value), index * STEP)
            cells[key] = "*" if key in cells and cells[key] != markers[model] else markers[model]
    ticks = {0: high, (HEIGHT - 1) // 2: (high + low) / 2, HEIGHT - 1: low}
    for r in range(HEIGHT):
        label = f"{ticks[r]:.2f}" if r in ticks else ""
        text.append(f"{label:>{LABEL_WIDTH - 1}} ", style="dim")
        text.append("┤" if r in ticks else "│", style="dim")
        for c in range(width):
            mark = cells.get((r, c))
            text.append(mark or " ", style=styles.get(mark or "", "bold"))
        text.append("\n")
    text.append(" " * LABEL_WIDTH + "└" + "─" * width + "\n", style="dim")
    axis = [" "] * (width + 6)
    for index, temperature in enumerate(temperatures):
        label = f"{temperature:g}"
        axis[index * STEP : index * STEP + len(label)] = label
    text.append(" " * (LABEL_WIDTH + 1) + "".join(axis).rstrip() + "  T\n", style="dim")
    for model in series:
        text.append(markers[model], style=styles[markers[model]])
        text.append(f" {model}   ")
    text.append("* two meet", style="dim")
    return text


class StudyChart(Widget):
    DEFAULT_CSS = """
    StudyChart { height: auto; width: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = ""
        self.temperatures: tuple[float, ...] = ()
        self.series: dict[str, tuple[float | None, ...]] = {}

    def set_data(
        self,
        title: str,
        temperatures: Sequence[float],
        series: Mapping[str, Sequence[float | None]],
    ) -> None:
        self.title = title
        self.temperatures = tuple(temperatures)
        self.series = {model: tuple(values) for model, values in series.items()}
        self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[no-untyped-def]
        if not (self.temperatures and self.series):
            return 2
        legend = sum(len(model) + 5 for model in self.series) + 10
        return HEIGHT + 3 + max(1, -(-legend // max(width, 1)))

    def render(self) -> Text:
        return chart_text(self.title, self.temperatures, self.series)
