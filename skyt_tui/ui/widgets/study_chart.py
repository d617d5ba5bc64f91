"""A character-cell chart of a study metric against temperature, one marker per model.

Temperatures are equally spaced along the x axis (they are few); each model gets
a digit as its marker, listed in the legend; a cell where two models meet
shows `*`. Plain `Text`, so it works with NO_COLOR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widget import Widget

from skyt_tui.ui.widgets.line_chart import (
    Series,
    chart_values,
    legend_text,
    line_chart_text,
)

STEP = 6
HEIGHT = 8
STYLES = ("bold cyan", "bold yellow", "bold magenta", "bold green", "bold red", "bold blue")


def chart_text(
    title: str, temperatures: Sequence[float], series: Mapping[str, Sequence[float | None]]
) -> Text:
    """`series` maps a model to one value per temperature (None where it has no runs)."""
    lines = [
        Series(model, tuple(values), str(number % 10), STYLES[(number - 1) % len(STYLES)])
        for number, (model, values) in enumerate(series.items(), start=1)
    ]
    text = line_chart_text(
        title,
        [f"{temperature:g}" for temperature in temperatures],
        "T",
        lines,
        height=HEIGHT,
        step=STEP,
        empty="no data to chart (runs need a model and a temperature)",
    )
    if chart_values(lines) and temperatures:
        text.append("\n")
        text.append_text(legend_text(lines, "two meet"))
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
