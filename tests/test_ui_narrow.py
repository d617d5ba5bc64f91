"""Issue 27.7: narrow terminals. Runs of different models and temperatures never look alike (model
and T are the last columns dropped), and long contract ids are shortened in the middle in every
list, so the columns after them stay on screen; the detail shows the whole id."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from textual.widgets import DataTable

from skyt_tui.engine.runs import run_store
from skyt_tui.ui.app import SkytApp
from tests.run_helpers import CONTRACT_TOML, install_contract
from tests.ui_support import ROOT, clock, pilot_test, screen_text, settle

LONG_ID = "skyt.longest_common_prefix_of_strings.2d3c4e5f"
SHORT = "skyt.longest…gs.2d3c4e5f"
"""LONG_ID in a list: 24 characters, shortened in the middle."""
CODES = ("def f(x):\n    return x + 1\n", "def f(y):\n    return y + 1\n")


def narrow_store(home) -> list[str]:
    """Four analysed runs of one long-id contract: two models × two temperatures, fixed ids."""
    install_contract(home, CONTRACT_TOML.replace('"add_one"', f'"{LONG_ID}"'), "long.toml")
    made = []
    for number, (model, temperature) in enumerate(
        (("gpt-4o", 0.0), ("gpt-4o", 0.7), ("claude-sonnet-4-5", 0.0), ("claude-sonnet-4-5", 0.7))
    ):
        meta = run_store.create_run(
            contract_id=LONG_ID,
            provider="replay",
            model=model,
            temperature=temperature,
            n=2,
            samples=[
                run_store.SampleRecord(index=i, status=run_store.OK, response=code, code=code)
                for i, code in enumerate((CODES[0], CODES[number % 2]))
            ],
            status=run_store.COMPLETE,
            created=datetime(2026, 1, 10 + number, 9, tzinfo=UTC),
            id_suffix=f"{number:04x}",
        )
        made.append(meta.id)
    # cached, so the app reads them; reduced isolation, as the demo store's, so the analyses say
    # the same on every machine — in a process of its own, as tests/ui_support.py does: this
    # process's warm pool may already be a bubblewrap one, made by an earlier test
    analyse = "import sys; from skyt_tui.engine.runs import analyses; analyses.analyze_stored_runs(sys.argv[1:])"
    subprocess.run(
        [sys.executable, "-c", analyse, *made],
        env={**os.environ, "SKYT_SANDBOX": "reduced", "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return made


def test_a_long_id_is_shortened_in_the_middle():
    from skyt_tui.ui.run_text import ID_WIDTH, short_id

    assert short_id(LONG_ID) == SHORT and short_id("short") == "short"
    shortened = SHORT
    assert len(shortened) == ID_WIDTH and "…" in shortened
    assert shortened.startswith("skyt.longest") and shortened.endswith("2d3c4e5f")


@pytest.mark.parametrize("width", [80, 90, 100])
@pilot_test
async def test_at_80_to_100_columns_model_and_temperature_stay(isolated_home, width):
    narrow_store(isolated_home)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert {"contract", "model", "T"} <= set(screen.columns), screen.columns
        table = screen.query_one("#runs-table", DataTable)
        rows = {
            tuple(str(table.get_cell(run_id, key)) for key in ("model", "T"))
            for run_id in table.rows
        }
        assert len(rows) == 4, "every run is told apart by what the list shows"
        cell = str(table.get_cell(next(iter(table.rows)), "contract"))
        assert cell == SHORT
        assert LONG_ID in screen_text(app), "the selected run's detail shows the whole id"


@pilot_test
async def test_long_contract_ids_leave_the_canon_column_on_screen(isolated_home):
    narrow_store(isolated_home)
    app = SkytApp(start="contracts", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#contracts-table", DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        table.move_cursor(row=ids.index(SHORT))
        await pilot.pause()
        shown = screen_text(app)
        [line] = [line for line in shown.splitlines() if SHORT in line]
        assert " ok " in f"{line} " or " none " in f"{line} ", line
        assert LONG_ID in shown, "the detail shows the whole id"
        await pilot.press("3")
        await settle(pilot)
        shown = screen_text(app)
        [line] = [line for line in shown.splitlines() if SHORT in line]
        assert " ok" in line or " none" in line, line


@pilot_test
async def test_the_column_the_list_is_sorted_by_stays_when_the_terminal_narrows(demo_home):
    """Sorted by a column a narrow terminal drops (rescue, at 80 columns), the list showed the
    rows in that order without the column: the sorted column now stays, with its arrow, and
    each row's value of it is on screen."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert "rescue" in screen.columns
        while (screen.sort_column, screen.sort_reverse) != ("rescue", True):
            await pilot.press("s")  # each shown column ascending, then descending
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert "rescue" in screen.columns and "contract" in screen.columns, screen.columns
        shown = screen_text(app)
        assert "rescue ▼" in shown, shown
        table = screen.query_one("#runs-table", DataTable)
        cells = [str(table.get_cell(run_id, "rescue")) for run_id in table.rows]
        assert cells == sorted(cells, reverse=True) and all(cell in shown for cell in cells)


@pilot_test
async def test_at_80_columns_the_runs_head_keeps_the_demo_label_and_the_sort_note_lines_up(
    demo_home,
):
    """At 80 columns the head line was cut after "6 demo runs:", losing what they are; the
    sort note under it started a column left of every other line."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert lines[1].startswith(" 6 runs, newest first")
        assert "hand-written examples (not model output)" in lines[2], lines[:4]
        await pilot.press("s")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert lines[3].startswith(" sorted by contract"), lines[:5]
