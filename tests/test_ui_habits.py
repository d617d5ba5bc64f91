"""Issue 27.9: habits people bring from other terminal tools — `esc` clears an applied filter, and
an export says where the file landed."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.export import ExportDialog
from tests.ui_support import clock, demo_run_id, notifications, pilot_test, settle


@pilot_test
async def test_esc_clears_an_applied_filter_in_runs(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        everything = table.row_count
        await pilot.press("/")
        await pilot.press(*"slugify")
        await pilot.press("enter")  # applied: the table has the keys again
        await pilot.pause()
        assert table.has_focus and table.row_count == 1 < everything
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == everything
        assert not app.screen.query_one("#runs-filter", Input).display
        assert app.screen.id == "runs-screen"


@pilot_test
async def test_esc_in_a_run_clears_its_filter_before_going_back(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        samples = app.screen.query_one("#samples-table", DataTable)
        everything = samples.row_count
        await pilot.press("/")
        await pilot.press(*"fail")
        await pilot.press("enter")
        await pilot.pause()
        assert samples.row_count < everything
        await pilot.press("escape")
        await pilot.pause()
        assert samples.row_count == everything and app.screen.id != "runs-screen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.id == "runs-screen"


@pilot_test
async def test_an_export_typed_as_a_bare_name_says_the_folder_it_landed_in(
    demo_home, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        slugify = demo_run_id("slugify")
        await settle(pilot)
        await pilot.press("/")
        await pilot.press(*"slugify")
        await pilot.press("enter")
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        dialog.query_one("#export-path", Input).value = "out.csv"
        await pilot.press("enter")
        await pilot.pause()
        assert (tmp_path / "out.csv").is_file()
        assert f"Wrote 12 sample(s) to {tmp_path / 'out.csv'}" in notifications(app), slugify
