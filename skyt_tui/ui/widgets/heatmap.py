"""The pairwise-distance heatmap: an N×N matrix drawn with the line API.

Colour mode packs two matrix rows into one terminal row with `▀` (foreground =
upper row, background = lower row), so N=200 needs 100 lines. Colours come from
a fixed [0, 1] scale binned into 32 steps of a viridis-like ramp (readable with
the common colour-vision deficiencies); every `Style` is built once at import,
and each row's `Strip` is cached until the data, zoom or theme changes. Under
`NO_COLOR` (or `glyphs=True`) every cell is one glyph of ` ░▒▓█` instead.

The widget only draws a matrix in a given order; which matrix (level, pre/post
repair) and which order is the owning screen's business.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.filter import ANSIToTruecolor, LineFilter
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

N_BINS = 32
GLYPHS = " ░▒▓█"
HALF_BLOCK = "▀"
GUTTER = 3
"""Columns left of the matrix: `▶` marks the cursor's row, then the pass/fail marks of the row(s) drawn in
that line (two samples per line in colour)."""
RULER = 2
"""Lines above the matrix: sample numbers at every 5th column with `▼` at the cursor's column, then each
column's pass/fail mark."""
MARK_STYLES = {"✓": "green", "✗": "red", "!": "bold red"}
MAX_ZOOM = 8
ZOOM_KEYS = Binding.Group("Zoom", compact=True)

_VIRIDIS_ANCHORS = (
    "#440154",
    "#482878",
    "#3e4a89",
    "#31688e",
    "#26828e",
    "#1f9e89",
    "#35b779",
    "#6dcd59",
    "#b4de2c",
    "#fde725",
)
CURSOR_COLOUR = "#ffffff"


def _lerp_ramp(anchors: Sequence[str], steps: int) -> tuple[str, ...]:
    rgb = [tuple(int(a[k : k + 2], 16) for k in (1, 3, 5)) for a in anchors]
    out = []
    for step in range(steps):
        t = step / (steps - 1) * (len(rgb) - 1)
        low = min(int(t), len(rgb) - 2)
        frac = t - low
        mixed = (round(rgb[low][c] + (rgb[low + 1][c] - rgb[low][c]) * frac) for c in range(3))
        out.append("#{:02x}{:02x}{:02x}".format(*mixed))
    return tuple(out)


RAMP: tuple[str, ...] = _lerp_ramp(_VIRIDIS_ANCHORS, N_BINS)
"""Colour of each of the 32 distance bins, dark purple (d=0) to yellow (d=1)."""

_HALF_STYLES = tuple(tuple(Style(color=upper, bgcolor=lower) for lower in RAMP) for upper in RAMP)
_CURSOR_OVER = tuple(Style(color=CURSOR_COLOUR, bgcolor=lower) for lower in RAMP)
_CURSOR_UNDER = tuple(Style(color=upper, bgcolor=CURSOR_COLOUR) for upper in RAMP)
_CURSOR_BOTH = Style(color=CURSOR_COLOUR, bgcolor=CURSOR_COLOUR)


def colour_bin(d: float) -> int:
    """Bin of distance `d` on the fixed [0, 1] scale: [k/32, (k+1)/32) → k, with 1.0 in the last bin."""
    return min(max(int(d * N_BINS), 0), N_BINS - 1)


def glyph_for(d: float) -> str:
    """One of ` ░▒▓█` for [0, .2), [.2, .4), [.4, .6), [.6, .8), [.8, 1]."""
    return GLYPHS[min(max(int(d * len(GLYPHS)), 0), len(GLYPHS) - 1)]


@functools.lru_cache(maxsize=MAX_ZOOM)
def _half_segments(zoom: int) -> tuple[tuple[Segment, ...], ...]:
    """Every (upper bin, lower bin) cell as a ready Segment, built once per zoom."""
    block = HALF_BLOCK * zoom
    return tuple(tuple(Segment(block, style) for style in row) for row in _HALF_STYLES)


def _bins(values: np.ndarray, count: int) -> list[list[int]]:
    """Bin index of every cell, as nested lists (faster to walk per cell than numpy scalars)."""
    if not values.size:
        return []
    return np.clip((values * count).astype(np.int64), 0, count - 1).tolist()


def order_by_distance(distances: Sequence[float | None]) -> list[int]:
    """Matrix positions sorted by distance to the canon, ties (and missing distances, last) by position."""

    def key(position: int) -> tuple[int, float, int]:
        d = distances[position]
        missing = d is None or math.isnan(d)
        return (1 if missing else 0, 0.0 if missing else float(d), position)

    return sorted(range(len(distances)), key=key)


def pair_status(label_i: str, label_j: str, distance: float) -> str:
    return f"sample {label_i} × sample {label_j}: d = {distance:.3f}"


class Heatmap(ScrollView, can_focus=True):
    """An N×N distance matrix; arrows or a click move the cursor, Enter selects the pair.

    `glyphs` forces the glyph ramp (None: only under NO_COLOR); `zoom` fixes the cell
    size in columns (None: the largest that fits, until the user zooms).
    """

    BINDINGS = [
        Binding("up", "move(-1, 0)", "Cursor up", show=False),
        Binding("down", "move(1, 0)", "Cursor down", show=False),
        Binding("left", "move(0, -1)", "Cursor left", show=False),
        Binding("right", "move(0, 1)", "Cursor right", show=False),
        Binding("shift+up,pageup", "move(-10, 0)", "Cursor up 10", show=False),
        Binding("shift+down,pagedown", "move(10, 0)", "Cursor down 10", show=False),
        Binding("shift+left", "move(0, -10)", "Cursor left 10", show=False),
        Binding("shift+right", "move(0, 10)", "Cursor right 10", show=False),
        Binding("home", "jump(0)", "First sample", show=False),
        Binding("end", "jump(-1)", "Last sample", show=False),
        Binding("enter", "select_pair", "Diff"),
        Binding("plus,equals_sign", "zoom(1)", "Zoom in", key_display="+", group=ZOOM_KEYS),
        Binding("minus", "zoom(-1)", "Zoom out", key_display="-", group=ZOOM_KEYS),
    ]
    COMPONENT_CLASSES = {"heatmap--ruler", "heatmap--marker"}
    DEFAULT_CSS = """
    Heatmap {
        width: 1fr;
        height: 1fr;
        & > .heatmap--ruler { color: $text-muted; }
        & > .heatmap--marker { color: $accent; text-style: bold; }
    }
    """

    class _PairMessage(Message):
        """About the pair (i, j) of matrix positions — indices into the matrix as given, not the display order."""

        def __init__(self, heatmap: Heatmap, i: int, j: int, distance: float) -> None:
            super().__init__()
            self.heatmap, self.i, self.j, self.distance = heatmap, i, j, distance

        @property
        def control(self) -> Heatmap:
            return self.heatmap

    class CursorMoved(_PairMessage):
        """The cursor moved onto the pair (i, j)."""

    class PairSelected(_PairMessage):
        """Enter (or a double click) on the pair (i, j)."""

    zoom: reactive[int] = reactive(1, init=False)
    """Terminal columns per matrix column (and half-rows per matrix row)."""

    def __init__(
        self,
        matrix: np.ndarray | None = None,
        labels: Sequence[str] | None = None,
        order: Sequence[int] | None = None,
        *,
        marks: Sequence[str] | None = None,
        glyphs: bool | None = None,
        zoom: int | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._glyphs_override = glyphs
        self._auto_zoom = zoom is None
        if zoom is not None:
            self.set_reactive(Heatmap.zoom, min(max(zoom, 1), MAX_ZOOM))
        self._colour_rows: list[list[int]] = []
        self._glyph_rows: list[list[int]] = []
        self._values = np.zeros((0, 0))
        self._order: list[int] = []
        self._labels: list[str] = []
        self._marks: list[str] = []
        self._row_cache: dict[int, Strip] = {}
        self._upper_only_cache: dict[tuple[int, object], list[Segment]] = {}
        self._line_cache: dict[tuple[int, int, int], Strip] = {}
        self._styles: tuple[Style, Style, Style] | None = None
        self.cursor_row = 0
        self.cursor_col = 0
        self.set_matrix(np.zeros((0, 0)) if matrix is None else matrix, labels, order, marks)

    @property
    def glyphs(self) -> bool:
        """Glyph ramp instead of colour: forced by the constructor, else under NO_COLOR."""
        if self._glyphs_override is not None:
            return self._glyphs_override
        return bool(self.is_attached and self.app.no_color)

    @property
    def n(self) -> int:
        return len(self._order)

    @property
    def order(self) -> tuple[int, ...]:
        return tuple(self._order)

    def set_matrix(
        self,
        matrix: np.ndarray,
        labels: Sequence[str] | None = None,
        order: Sequence[int] | None = None,
        marks: Sequence[str] | None = None,
    ) -> None:
        """Show `matrix` (square, values in [0, 1]) with rows/columns in `order` (display position → matrix
        position); `labels` name the samples on the axes, `marks` (✓ passed, ✗ failed, ! no parse, · unknown)
        go beside them."""
        matrix = np.asarray(matrix, dtype=np.float64)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"heatmap needs a square matrix, got shape {matrix.shape}")
        n = matrix.shape[0]
        if n and not np.all(np.isfinite(matrix)):
            raise ValueError("heatmap matrix has non-finite values")
        order = list(range(n)) if order is None else [int(k) for k in order]
        if sorted(order) != list(range(n)):
            raise ValueError(f"order must be a permutation of 0..{n - 1}")
        labels = [str(k) for k in range(n)] if labels is None else [str(label) for label in labels]
        if len(labels) != n:
            raise ValueError(f"{len(labels)} labels for a {n}×{n} matrix")
        self._order, self._labels = order, labels
        marks = ["·"] * n if marks is None else [str(mark) for mark in marks]
        if len(marks) != n:
            raise ValueError(f"{len(marks)} marks for a {n}×{n} matrix")
        self._marks = [marks[k] for k in order]
        self._values = matrix[np.ix_(order, order)] if n else matrix
        self._colour_rows = _bins(self._values, N_BINS)
        self._glyph_rows = _bins(self._values, len(GLYPHS))
        self.cursor_row = min(self.cursor_row, max(n - 1, 0))
        self.cursor_col = min(self.cursor_col, max(n - 1, 0))
        if self._auto_zoom and self.is_attached:
            self.zoom = self.fit_zoom()
        self._layout_changed()
        if self.is_attached and n:
            self._announce_cursor()

    def pair_at(self, row: int, col: int) -> tuple[int, int]:
        """Matrix positions (i, j) shown at display position (row, col)."""
        return self._order[row], self._order[col]

    def distance_at(self, row: int, col: int) -> float:
        return float(self._values[row, col])

    @property
    def cursor_pair(self) -> tuple[int, int]:
        return self.pair_at(self.cursor_row, self.cursor_col)

    @property
    def cursor_distance(self) -> float:
        return self.distance_at(self.cursor_row, self.cursor_col)

    def status_text(self) -> str:
        if not self.n:
            return "no samples"
        i, j = self.cursor_pair
        return pair_status(self._labels[i], self._labels[j], self.cursor_distance)

    @property
    def _glyph_rows_per_cell(self) -> int:
        return (self.zoom + 1) // 2

    @property
    def content_rows(self) -> int:
        """Terminal rows the matrix occupies (excluding the ruler)."""
        if self.glyphs:
            return self.n * self._glyph_rows_per_cell
        return (self.n * self.zoom + 1) // 2

    def _invalidate(self) -> None:
        """Forget every cached strip and style (data, zoom, theme or CSS changed)."""
        self._row_cache.clear()
        self._line_cache.clear()
        self._upper_only_cache.clear()
        self._styles = None

    def _layout_changed(self) -> None:
        self._invalidate()
        self.virtual_size = Size(GUTTER + self.n * self.zoom, RULER + self.content_rows)
        self.refresh()

    def watch_zoom(self) -> None:
        self._layout_changed()
        self.call_after_refresh(self._scroll_to_cursor)

    def fit_zoom(self) -> int:
        """The largest zoom at which the whole matrix fits the widget (at least 1)."""
        if not self.n or not self.size.width:
            return 1
        width = max(self.size.width - GUTTER, 1)
        height = max(self.size.height - RULER, 1)
        by_width = width // self.n
        # colour: a cell is `zoom` half-rows tall; glyphs: ceil(zoom / 2) rows
        by_height = (height * 2) // self.n if not self.glyphs else 2 * (height // self.n)
        return max(1, min(by_width, by_height, MAX_ZOOM))

    def on_resize(self, event: events.Resize) -> None:
        if self._auto_zoom:
            self.zoom = self.fit_zoom()
        self._line_cache.clear()

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self._layout_changed()
        if self.n:
            self._announce_cursor()

    def _theme_changed(self) -> None:
        self._invalidate()
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._invalidate()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """The app's filters minus ANSI→truecolor: every colour drawn here is truecolor already.

        That filter rebuilds every segment on every repaint; at N=200 (20,000 cells) it was
        two thirds of a full repaint. NO_COLOR's monochrome filter and the others still apply.
        """
        return [
            line_filter
            for line_filter in super().get_line_filters()
            if not isinstance(line_filter, ANSIToTruecolor)
        ]

    def _base_styles(self) -> tuple[Style, Style, Style]:
        """(base, ruler, marker) rich styles, computed once per style change rather than per line."""
        if self._styles is None:
            base = self.rich_style
            self._styles = (
                base,
                base + self.get_component_rich_style("heatmap--ruler"),
                base + self.get_component_rich_style("heatmap--marker"),
            )
        return self._styles

    def _rows_of(self, line: int) -> tuple[int, int | None]:
        """Matrix display rows drawn in terminal `line` of the matrix: (upper, lower or None)."""
        if self.glyphs:
            return line // self._glyph_rows_per_cell, None
        half = 2 * line
        lower = half + 1
        return half // self.zoom, (lower // self.zoom if lower < self.n * self.zoom else None)

    def _cursor_lines(self) -> range:
        if self.glyphs:
            per = self._glyph_rows_per_cell
            return range(self.cursor_row * per, (self.cursor_row + 1) * per)
        first = (self.cursor_row * self.zoom) // 2
        last = (self.cursor_row * self.zoom + self.zoom - 1) // 2
        return range(first, last + 1)

    def _upper_only_segments(self, zoom: int) -> list[Segment]:
        """Segments for a last line with no lower row: the lower half shows the widget background."""
        background = self._base_styles()[0].bgcolor
        key = (zoom, background)
        table = self._upper_only_cache.get(key)
        if table is None:
            block = HALF_BLOCK * zoom
            table = self._upper_only_cache[key] = [
                Segment(block, Style(color=c, bgcolor=background)) for c in RAMP
            ]
        return table

    def _matrix_line(self, line: int, has_cursor: bool) -> Strip:
        """Strip of one terminal line of the whole matrix width, with the cursor drawn in when it is there."""
        if not has_cursor and line in self._row_cache:
            return self._row_cache[line]
        strip = (
            self._glyph_line(line, has_cursor)
            if self.glyphs
            else self._colour_line(line, has_cursor)
        )
        if not has_cursor:
            self._row_cache[line] = strip
        return strip

    def _colour_line(self, line: int, has_cursor: bool) -> Strip:
        zoom = self.zoom
        upper_row, lower_row = self._rows_of(line)
        upper = self._colour_rows[upper_row]
        if lower_row is None:
            table = self._upper_only_segments(zoom)
            segments = [table[up] for up in upper]
        else:
            halves = _half_segments(zoom)
            segments = [halves[up][low] for up, low in zip(upper, self._colour_rows[lower_row])]
        if has_cursor:
            col = self.cursor_col
            cursor_up = upper_row == self.cursor_row
            cursor_down = lower_row == self.cursor_row
            if lower_row is None:
                style = Style(color=CURSOR_COLOUR, bgcolor=self._base_styles()[0].bgcolor)
            elif cursor_up and cursor_down:
                style = _CURSOR_BOTH
            elif cursor_up:
                style = _CURSOR_OVER[self._colour_rows[lower_row][col]]
            else:
                style = _CURSOR_UNDER[upper[col]]
            segments[col] = Segment(HALF_BLOCK * zoom, style)
        return Strip(segments, self.n * zoom)

    def _glyph_line(self, line: int, has_cursor: bool) -> Strip:
        zoom = self.zoom
        row, _ = self._rows_of(line)
        text = "".join(GLYPHS[b] * zoom for b in self._glyph_rows[row])
        base = self._base_styles()[0]
        if not has_cursor:
            return Strip([Segment(text, base)], len(text))
        start = self.cursor_col * zoom
        return Strip(
            [
                Segment(text[:start], base),
                Segment(text[start : start + zoom], base + Style(reverse=True)),
                Segment(text[start + zoom :], base),
            ],
            len(text),
        )

    def _ruler(self, scroll_x: int, width: int) -> Strip:
        """Sample numbers at every 5th column where they fit (a tick where not), `▼` over the cursor's column."""
        base, ruler_style, marker_style = self._base_styles()
        zoom = self.zoom
        total = self.n * zoom
        chars = [" "] * total
        free_from = 0
        widest = max((len(label) for label in self._labels), default=1)
        step = 1 if zoom > widest else 5  # every column's number when a cell is wide enough
        for col in range(0, self.n, step):
            start = col * zoom
            label = self._labels[self._order[col]]
            if start >= free_from and start + len(label) <= min(total, start + step * zoom):
                chars[start : start + len(label)] = label
                free_from = start + len(label) + 1
            elif start >= free_from:
                chars[start] = "┬" if col % 10 == 0 else "·"
        cursor = range(self.cursor_col * zoom, (self.cursor_col + 1) * zoom)
        for x in cursor:
            chars[x] = "▼"
        end = min(scroll_x + width - GUTTER, total)
        segments = [Segment(" " * GUTTER, base)]
        for x in range(scroll_x, end):
            segments.append(Segment(chars[x], marker_style if x in cursor else ruler_style))
        return Strip(Segment.simplify(segments)).adjust_cell_length(width, base)

    def _mark_segment(self, mark: str, cursor: bool) -> Segment:
        base, ruler_style, marker_style = self._base_styles()
        if cursor:
            return Segment(mark, marker_style)
        colour = MARK_STYLES.get(mark)
        return Segment(mark, base + Style.parse(colour) if colour else ruler_style)

    def _marks_line(self, scroll_x: int, width: int) -> Strip:
        """Each column's pass/fail mark under its first cell."""
        base = self._base_styles()[0]
        zoom = self.zoom
        segments = [Segment(" " * GUTTER, base)]
        for x in range(scroll_x, min(scroll_x + width - GUTTER, self.n * zoom)):
            col, first = divmod(x, zoom)
            if first:
                segments.append(Segment(" ", base))
            else:
                segments.append(self._mark_segment(self._marks[col], col == self.cursor_col))
        return Strip(Segment.simplify(segments)).adjust_cell_length(width, base)

    def _gutter(self, line: int, has_cursor: bool) -> list[Segment]:
        base, _, marker_style = self._base_styles()
        upper, lower = self._rows_of(line)
        first_line = (
            line % self._glyph_rows_per_cell == 0 if self.glyphs else (2 * line) % self.zoom == 0
        )
        marks = [
            self._mark_segment(self._marks[upper], has_cursor and upper == self.cursor_row)
            if first_line
            else Segment(" ", base)
        ]
        lower_first = lower is not None and lower != upper and (2 * line + 1) % self.zoom == 0
        marks.append(
            self._mark_segment(self._marks[lower], has_cursor and lower == self.cursor_row)
            if lower is not None and lower_first
            else Segment(" ", base)
        )
        cursor = Segment("▶", marker_style) if has_cursor else Segment(" ", base)
        return [cursor, *marks]

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base, _, marker_style = self._base_styles()
        if not self.n:
            return Strip.blank(width, base)
        if y == 0:
            return self._ruler(scroll_x, width)
        if y < RULER:
            return self._marks_line(scroll_x, width)
        line = y - RULER + scroll_y
        if line >= self.content_rows:
            return Strip.blank(width, base)
        has_cursor = line in self._cursor_lines()
        key = (line, scroll_x, width)
        if not has_cursor and key in self._line_cache:
            return self._line_cache[key]
        matrix = self._matrix_line(line, has_cursor).crop(scroll_x, scroll_x + width - GUTTER)
        strip = Strip(
            [*self._gutter(line, has_cursor), *matrix], GUTTER + matrix.cell_length
        ).adjust_cell_length(width, base)
        if not has_cursor:
            self._line_cache[key] = strip
        return strip

    def move_cursor(self, row: int, col: int) -> None:
        if not self.n:
            return
        row = min(max(row, 0), self.n - 1)
        col = min(max(col, 0), self.n - 1)
        if (row, col) == (self.cursor_row, self.cursor_col):
            return
        self.cursor_row, self.cursor_col = row, col
        self.refresh()
        self._scroll_to_cursor()
        self._announce_cursor()

    def _scroll_to_cursor(self) -> None:
        if not self.n:
            return
        lines = self._cursor_lines()
        region = Region(
            GUTTER + self.cursor_col * self.zoom, RULER + lines.start, self.zoom, len(lines)
        )
        self.scroll_to_region(region, spacing=None, animate=False, force=True, immediate=True)

    def _announce_cursor(self) -> None:
        i, j = self.cursor_pair
        self.post_message(self.CursorMoved(self, i, j, self.cursor_distance))

    def action_move(self, rows: int, cols: int) -> None:
        self.move_cursor(self.cursor_row + rows, self.cursor_col + cols)

    def action_jump(self, position: int) -> None:
        target = position if position >= 0 else self.n - 1
        self.move_cursor(target, target)

    def action_select_pair(self) -> None:
        if self.n:
            i, j = self.cursor_pair
            self.post_message(self.PairSelected(self, i, j, self.cursor_distance))

    def action_zoom(self, step: int) -> None:
        self._auto_zoom = False
        self.zoom = min(max(self.zoom + step, 1), MAX_ZOOM)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.n:
            return
        scroll_x, scroll_y = self.scroll_offset
        x, y = offset.x - GUTTER + scroll_x, offset.y - RULER + scroll_y
        if (
            offset.x < GUTTER
            or offset.y < RULER
            or x >= self.n * self.zoom
            or y >= self.content_rows
        ):
            return
        col = x // self.zoom
        upper, lower = self._rows_of(y)
        row = upper
        # A terminal cell shows two matrix rows; clicking the cell the cursor is already in picks the lower one.
        if (
            lower is not None
            and lower != upper
            and (self.cursor_row, self.cursor_col) == (upper, col)
        ):
            row = lower
        self.focus()
        self.move_cursor(row, col)
        if event.chain >= 2:
            self.action_select_pair()


class HeatmapLegend(Widget):
    """The fixed [0, 1] scale: a 32-step colour bar, or the glyph ramp under NO_COLOR."""

    DEFAULT_CSS = """
    HeatmapLegend { height: 2; width: 1fr; }
    """

    def __init__(
        self,
        *,
        glyphs: bool | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._glyphs_override = glyphs

    @property
    def glyphs(self) -> bool:
        if self._glyphs_override is not None:
            return self._glyphs_override
        return bool(self.is_attached and self.app.no_color)

    def render(self) -> Text:
        if self.glyphs:
            text = Text("d  ")
            bounds = [f"{k / len(GLYPHS):.1f}" for k in range(len(GLYPHS) + 1)]
            for k, glyph in enumerate(GLYPHS):
                text.append("[")
                text.append(glyph)
                text.append(f"] {bounds[k]}–{bounds[k + 1]}  ")
            text.append("\n   fixed scale; denser glyph = farther apart")
            return text
        text = Text("d  ")
        for colour in RAMP:
            text.append("█", Style(color=colour))
        ticks = [" "] * (3 + N_BINS)
        for position, label in ((3, "0.0"), (3 + N_BINS // 2 - 1, "0.5"), (N_BINS, "1.0")):
            ticks[position : position + len(label)] = label
        text.append("\n" + "".join(ticks) + "   fixed scale; yellow = farther apart")
        return text
