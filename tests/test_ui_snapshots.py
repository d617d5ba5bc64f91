"""How each screen looks, at 120×36 (and 80×24), compared with committed SVG snapshots.

Update after an intended change with `python3 -m pytest tests/test_ui_snapshots.py --snapshot-update`
and look at the new SVGs before committing them. The data is the demo store (built once per session
with a fixed clock and reduced isolation, see tests/ui_support.py) and the app's clock is fixed, so
nothing depends on the day or the machine.
"""

import pytest

from skyt_tui.ui.app import SkytApp
from tests.ui_support import clock, sample_analyses, settle

WIDE = (120, 36)
SMALL = (80, 24)


def keys(*pressed):
    """A `run_before` that waits for the workers, presses the keys one by one and waits again."""

    async def run_before(pilot):
        await settle(pilot)
        for key in pressed:
            await pilot.press(key)
            await settle(pilot)

    return run_before


RUN_DETAIL = (
    "2",
    "down",
    "down",
    "down",
    "enter",
    "down",
    "down",
    "down",
    "down",
    "down",
    "down",
    "down",
    "v",
)
"""Runs → the fibonacci run (fourth newest) → sample 7 → its diff to the canon."""


@pytest.mark.parametrize("section", ["contracts", "runs", "canon", "heatmap", "benchmark"])
def test_section_with_the_demo(section, snap_compare, demo_home):
    assert snap_compare(SkytApp(start=section, clock=clock), terminal_size=WIDE, run_before=keys())


def test_welcome_on_an_empty_store(snap_compare):
    assert snap_compare(SkytApp(clock=clock), terminal_size=WIDE, run_before=keys())


def test_run_detail_with_a_sample_diff(snap_compare, demo_home):
    assert snap_compare(
        SkytApp(start="contracts", clock=clock), terminal_size=WIDE, run_before=keys(*RUN_DETAIL)
    )


def test_heatmap_pair_diff(snap_compare, demo_home):
    app = SkytApp(start="heatmap", clock=clock)
    assert snap_compare(
        app, terminal_size=WIDE, run_before=keys("down", "down", "down", "right", "enter")
    )


def test_rotation_confirmation(snap_compare, demo_home):
    assert snap_compare(
        SkytApp(start="benchmark", clock=clock), terminal_size=WIDE, run_before=keys("r")
    )


def test_run_dialog(snap_compare, demo_home):
    assert snap_compare(
        SkytApp(start="contracts", clock=clock), terminal_size=WIDE, run_before=keys("r")
    )


def test_help(snap_compare):
    assert snap_compare(
        SkytApp(start="contracts", clock=clock),
        terminal_size=WIDE,
        run_before=keys("question_mark"),
    )


def test_light_theme(snap_compare, demo_home):
    assert snap_compare(
        SkytApp(start="runs", clock=clock), terminal_size=WIDE, run_before=keys("t")
    )


def test_small_terminal_runs(snap_compare, demo_home):
    assert snap_compare(SkytApp(start="runs", clock=clock), terminal_size=SMALL, run_before=keys())


def test_small_terminal_run_detail(snap_compare, demo_home):
    assert snap_compare(
        SkytApp(start="contracts", clock=clock), terminal_size=SMALL, run_before=keys(*RUN_DETAIL)
    )


def test_heatmap_no_color_glyphs(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = SkytApp(analyses=sample_analyses(), start="heatmap", clock=clock)
    assert snap_compare(app, terminal_size=WIDE, run_before=keys("down", "right"))


def test_small_terminal_runs_of_two_models_with_a_long_contract_id(snap_compare, isolated_home):
    """Issue 27.7: at 80×24 model and T stay, the long id is shortened in the middle."""
    from tests.test_ui_narrow import narrow_store

    narrow_store(isolated_home)
    assert snap_compare(SkytApp(start="runs", clock=clock), terminal_size=SMALL, run_before=keys())


def test_small_terminal_contracts_with_a_long_contract_id(snap_compare, isolated_home):
    from textual.widgets import DataTable

    from tests.test_ui_narrow import SHORT, narrow_store

    narrow_store(isolated_home)

    async def select_long_id(pilot):
        await settle(pilot)
        table = pilot.app.screen.query_one("#contracts-table", DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        table.move_cursor(row=ids.index(SHORT) - 1)
        await pilot.press("down")  # as a person gets there: the list scrolls to it
        await settle(pilot)

    assert snap_compare(
        SkytApp(start="contracts", clock=clock), terminal_size=SMALL, run_before=select_long_id
    )
