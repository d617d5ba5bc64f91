"""The heatmap widget: what each cell shows, the cursor, the order, glyph mode, and N=200."""

import numpy as np
import pytest
from rich.color import Color
from textual.app import App, ComposeResult

from skyt_tui.ui.widgets.heatmap import (
    CURSOR_COLOUR,
    GLYPHS,
    GUTTER,
    HALF_BLOCK,
    N_BINS,
    RAMP,
    RULER,
    Heatmap,
    HeatmapLegend,
    colour_bin,
    glyph_for,
    order_by_distance,
    pair_status,
)
from tests.ui_support import pilot_test

THREE = np.array(
    [
        [0.0, 0.5, 1.0],
        [0.5, 0.0, 0.25],
        [1.0, 0.25, 0.0],
    ]
)


class HeatmapApp(App):
    def __init__(self, heatmap: Heatmap) -> None:
        super().__init__()
        self.heatmap = heatmap
        self.events: list[tuple] = []

    def compose(self) -> ComposeResult:
        yield self.heatmap
        yield HeatmapLegend()

    def on_heatmap_cursor_moved(self, event: Heatmap.CursorMoved) -> None:
        self.events.append(("moved", event.i, event.j, event.distance))

    def on_heatmap_pair_selected(self, event: Heatmap.PairSelected) -> None:
        self.events.append(("selected", event.i, event.j, event.distance))


def cells(strip):
    """(character, foreground hex, background hex) per terminal cell of a rendered line."""
    out = []
    for segment in strip:
        style = segment.style
        fg = style.color.get_truecolor().hex if style and style.color else None
        bg = style.bgcolor.get_truecolor().hex if style and style.bgcolor else None
        out.extend((char, fg, bg) for char in segment.text)
    return out


def matrix_cells(heatmap: Heatmap, line: int):
    """The cells of matrix line `line` (0 = first terminal row of the matrix), gutter cut off."""
    return cells(heatmap.render_line(RULER + line))[GUTTER : GUTTER + heatmap.n * heatmap.zoom]


def test_ramp_is_a_fixed_viridis_scale():
    assert len(RAMP) == N_BINS == len(set(RAMP))
    assert RAMP[0] == "#440154" and RAMP[-1] == "#fde725"
    luminance = [Color.parse(c).get_truecolor() for c in RAMP]
    brightness = [0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue for c in luminance]
    assert brightness == sorted(brightness), "a sequential ramp gets lighter with distance"


@pytest.mark.parametrize(
    ("d", "expected"),
    [(0.0, 0), (1 / 32 - 1e-9, 0), (1 / 32, 1), (0.5, 16), (0.999, 31), (1.0, 31)],
)
def test_colour_bins_split_zero_to_one_into_32(d, expected):
    assert colour_bin(d) == expected


@pytest.mark.parametrize(
    ("d", "glyph"),
    [(0.0, " "), (0.19, " "), (0.2, "░"), (0.5, "▒"), (0.7, "▓"), (0.8, "█"), (1.0, "█")],
)
def test_glyph_ramp(d, glyph):
    assert glyph_for(d) == glyph


def test_order_by_distance_ties_by_index_missing_last():
    assert order_by_distance([0.3, 0.0, 0.3, None, 0.1]) == [1, 4, 0, 2, 3]
    assert order_by_distance([]) == []


def test_pair_status_shows_three_decimals():
    assert pair_status("3", "17", 0.12345) == "sample 3 × sample 17: d = 0.123"


def test_rejects_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        Heatmap(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="permutation"):
        Heatmap(THREE, order=[0, 0, 1])
    with pytest.raises(ValueError, match="labels"):
        Heatmap(THREE, labels=["a"])


@pilot_test
async def test_half_blocks_pair_two_rows_per_line():
    app = HeatmapApp(Heatmap(THREE, zoom=1, glyphs=False))
    async with app.run_test(size=(20, 8)) as pilot:
        heatmap = app.heatmap
        heatmap.move_cursor(2, 2)  # keep the cursor off the first line
        await pilot.pause()
        assert heatmap.content_rows == 2  # three rows in two lines
        first = matrix_cells(heatmap, 0)
        assert [c[0] for c in first] == [HALF_BLOCK] * 3
        # upper half = row 0, lower half = row 1, each cell coloured by its bin
        assert [c[1] for c in first] == [RAMP[0], RAMP[16], RAMP[31]]
        assert [c[2] for c in first] == [RAMP[16], RAMP[0], RAMP[8]]
        # the last line has only row 2 on top; its lower half is the widget background
        last = matrix_cells(heatmap, 1)
        background = heatmap.rich_style.bgcolor.get_truecolor().hex
        assert [c[1] for c in last[:2]] == [RAMP[31], RAMP[8]]
        assert last[2][1] == CURSOR_COLOUR  # the cursor sits on (2, 2)
        assert {c[2] for c in last} == {background}


@pilot_test
async def test_cursor_moves_draws_and_selects_pairs():
    app = HeatmapApp(Heatmap(THREE, zoom=1, glyphs=False))
    async with app.run_test(size=(20, 8)) as pilot:
        heatmap = app.heatmap
        heatmap.focus()
        await pilot.pause()
        assert heatmap.status_text() == "sample 0 × sample 0: d = 0.000"
        assert matrix_cells(heatmap, 0)[0][1] == CURSOR_COLOUR  # upper half of cell (0, 0)
        await pilot.press("down", "right", "right", "right")  # right is clamped at the last column
        assert (heatmap.cursor_row, heatmap.cursor_col) == (1, 2)
        first = matrix_cells(heatmap, 0)
        assert first[0][1] == RAMP[0]  # the old cursor cell is back to its colour
        assert first[2][2] == CURSOR_COLOUR  # row 1 is the lower half of line 0
        assert heatmap.status_text() == "sample 1 × sample 2: d = 0.250"
        await pilot.press("enter")
        await pilot.pause()
        assert app.events[-1] == ("selected", 1, 2, 0.25)
        assert ("moved", 1, 2, 0.25) in app.events


@pilot_test
async def test_order_maps_display_positions_to_matrix_positions():
    heatmap = Heatmap(THREE, labels=["a", "b", "c"], order=[2, 0, 1], zoom=1, glyphs=False)
    app = HeatmapApp(heatmap)
    async with app.run_test(size=(20, 8)) as pilot:
        heatmap.focus()
        await pilot.press("right", "enter")
        await pilot.pause()
        # display (0, 1) is matrix (2, 0): d = 1.0
        assert app.events[-1] == ("selected", 2, 0, 1.0)
        assert heatmap.status_text() == "sample c × sample a: d = 1.000"
        heatmap.move_cursor(2, 2)
        await pilot.pause()
        first = matrix_cells(heatmap, 0)
        # upper row is matrix row 2 in order (2, 0, 1): 0.0, 1.0, 0.25
        assert [c[1] for c in first] == [RAMP[0], RAMP[31], RAMP[8]]


@pilot_test
async def test_click_moves_cursor_and_second_click_picks_lower_row():
    app = HeatmapApp(Heatmap(THREE, zoom=1, glyphs=False))
    async with app.run_test(size=(20, 8)) as pilot:
        heatmap = app.heatmap
        await pilot.click(Heatmap, offset=(GUTTER + 1, RULER))
        assert (heatmap.cursor_row, heatmap.cursor_col) == (0, 1)
        await pilot.click(Heatmap, offset=(GUTTER + 1, RULER))
        assert (heatmap.cursor_row, heatmap.cursor_col) == (1, 1)
        await pilot.click(Heatmap, offset=(GUTTER + 2, RULER + 1), times=2)
        await pilot.pause()
        assert (heatmap.cursor_row, heatmap.cursor_col) == (2, 2)
        assert app.events[-1][0] == "selected"


@pilot_test
async def test_zoom_scales_cells():
    app = HeatmapApp(Heatmap(THREE, zoom=1, glyphs=False))
    async with app.run_test(size=(30, 12)) as pilot:
        heatmap = app.heatmap
        heatmap.focus()
        await pilot.press("plus")
        await pilot.pause()
        assert heatmap.zoom == 2
        assert heatmap.virtual_size.width == GUTTER + 6
        assert heatmap.content_rows == 3
        line = matrix_cells(heatmap, 1)  # half-rows 2 and 3 are matrix row 1 at zoom 2
        assert [c[1] for c in line[2:]] == [RAMP[0], RAMP[0], RAMP[8], RAMP[8]]


@pilot_test
async def test_auto_zoom_fits_small_matrices():
    app = HeatmapApp(Heatmap(THREE, glyphs=False))
    async with app.run_test(size=(30, 12)) as pilot:
        await pilot.pause()
        assert app.heatmap.zoom == app.heatmap.fit_zoom() > 1


@pilot_test
async def test_no_color_uses_one_glyph_per_cell(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = HeatmapApp(Heatmap(THREE, zoom=1))
    async with app.run_test(size=(20, 8)) as pilot:
        heatmap = app.heatmap
        await pilot.pause()
        assert app.no_color and heatmap.glyphs
        assert heatmap.content_rows == 3  # no half-blocks: one line per row
        rows = ["".join(c[0] for c in matrix_cells(heatmap, line)) for line in range(3)]
        assert rows == [" ▒█", "▒ ░", "█░ "]
        assert HALF_BLOCK not in "".join(rows)
        cursor_segment = [s for s in heatmap.render_line(RULER) if s.style and s.style.reverse]
        assert cursor_segment and cursor_segment[0].text == " "  # cell (0, 0) in reverse video
        legend = app.query_one(HeatmapLegend).render().plain
        assert all(f"[{glyph}]" in legend for glyph in GLYPHS)


@pilot_test
async def test_two_hundred_samples_render_in_100_lines():
    rng = np.random.default_rng(7)
    upper = np.triu(rng.random((200, 200)), 1)
    matrix = upper + upper.T
    app = HeatmapApp(Heatmap(matrix, glyphs=False))
    async with app.run_test(size=(120, 40)) as pilot:
        heatmap = app.heatmap
        await pilot.pause()
        assert heatmap.zoom == 1
        assert heatmap.content_rows == 100
        assert heatmap.virtual_size.width == GUTTER + 200  # wider than the screen: it scrolls
        lines = [heatmap._matrix_line(line, False) for line in range(100)]
        assert all(line.cell_length == 200 for line in lines)
        cell = cells(lines[99])[150]
        assert (cell[1], cell[2]) == (
            RAMP[colour_bin(matrix[198, 150])],
            RAMP[colour_bin(matrix[199, 150])],
        )
        heatmap.focus()
        await pilot.press("end")
        await pilot.pause()
        assert heatmap.cursor_pair == (199, 199)
        # scrolled to keep the cursor in view
        assert heatmap.scroll_offset.x > 0 and heatmap.scroll_offset.y > 0


@pilot_test
async def test_new_data_refits_the_zoom_and_keeps_the_cursor_inside():
    app = HeatmapApp(Heatmap(np.zeros((20, 20)), glyphs=False))
    async with app.run_test(size=(60, 24)) as pilot:
        heatmap = app.heatmap
        await pilot.pause()
        assert heatmap.zoom == 2  # 21 lines below the ruler hold 42 half-rows: 20 rows of 2
        heatmap.move_cursor(15, 15)
        heatmap.set_matrix(THREE)
        await pilot.pause()
        assert heatmap.zoom == heatmap.fit_zoom() == 8
        assert heatmap.cursor_pair == (2, 2)


def text(strip) -> str:
    return "".join(cell[0] for cell in cells(strip))


@pilot_test
async def test_axes_name_the_samples_and_mark_pass_and_fail():
    """Issue 14.11: sample numbers above the columns, each column's ✓/✗/! mark, the rows' marks in the gutter."""
    matrix = np.zeros((12, 12))
    labels = [str(k) for k in range(12)]
    marks = ["✓"] * 12
    marks[7], marks[11] = "✗", "!"
    heatmap = Heatmap(matrix, labels, list(reversed(range(12))), zoom=4, marks=marks)
    async with HeatmapApp(heatmap).run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        ruler = text(heatmap.render_line(0))
        assert ruler[GUTTER:].startswith("▼▼▼▼10  9   8   7"), (
            "cursor on the first column (sample 11)"
        )
        marks_line = text(heatmap.render_line(1))[GUTTER:]
        assert marks_line[::4][:12] == "!✓✓✓✗✓✓✓✓✓✓✓"
        gutter = [text(heatmap.render_line(RULER + line))[:GUTTER] for line in range(4)]
        assert gutter == ["▶! ", "▶  ", " ✓ ", "   "], (
            "zoom 4: a sample is two lines, marked on its first"
        )
