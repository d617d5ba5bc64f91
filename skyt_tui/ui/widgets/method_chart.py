"""A character-cell chart of one statistic against the anchor count k, one marker per method.

Used for the benchmark validation: median r and median MAE on held-out systems at k = 4, 10,
25, … for irt (i), cluster (c), stratified (s) and random (r). The k positions are equally spaced (the k
values are roughly geometric); a cell where two methods meet shows `*`. Plain `Text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.widget import Widget

from skyt_tui.ui.widgets.line_chart import LABEL_WIDTH, Series, legend_text, line_chart_text

MARKERS = {
    "irt": ("i", "bold green"),
    "cluster": ("c", "bold cyan"),
    "stratified": ("s", "bold yellow"),
    "random": ("r", "bold"),
}
STEP = 4


def method_series(series: Mapping[str, Sequence[float]]) -> list[Series]:
    """`series` maps a method to one value per size (NaN where undefined)."""
    return [
        Series(method, tuple(values), *MARKERS.get(method, (method[:1], "bold")))
        for method, values in series.items()
    ]


def chart_text(
    title: str,
    sizes: Sequence[int],
    series: Mapping[str, Sequence[float]],
    height: int = 7,
    fmt: str = "{:.2f}",
) -> Text:
    """`series` maps a method to one value per size (NaN where undefined)."""
    labels = [str(size) for size in sizes]
    return line_chart_text(
        title, labels, "k", method_series(series), height=height, step=STEP, fmt=fmt
    )


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
        return LABEL_WIDTH + 1 + STEP * max(len(self.sizes) - 1, 0) + 8

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
        text.append_text(legend_text(method_series(self.r), "two methods meet"))
        if self.note:
            text.append("\n" + self.note, style="dim")
        return text
