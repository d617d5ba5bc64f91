"""Issue 27.9: habits people bring from other terminal tools — `esc` clears an applied filter, and
an export says where the file landed."""

from __future__ import annotations

from textual.widgets import DataTable, Input

from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.export import ExportDialog
from tests.test_ui_live import wait_for
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
        await settle(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
        app.screen.query_one("#export-path", Input).value = "out.csv"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Wrote" in note for note in notifications(app)))
        assert (tmp_path / "out.csv").is_file()
        assert f"Wrote 12 sample(s) to {tmp_path / 'out.csv'}" in notifications(app), slugify


@pilot_test
async def test_a_failed_sample_is_numbered_as_its_run_numbers_it(monkeypatch):
    """In a sweep (or a resume) a sample's place in the request is not its number in the run: the
    panel names the number the run's detail shows."""
    import threading

    from skyt_tui.ui import data
    from skyt_tui.ui.widgets.run_progress import RunProgress
    from tests.test_ui_app import start_run
    from tests.test_ui_live import wait_for

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # the stand-in executor sends nothing
    go_on = threading.Event()

    def executor(request, report, cancel):
        report(data.SampleProgress(index=0, total=3, run_id="run-a", sample=0))
        report(
            data.SampleProgress(
                index=2, total=3, run_id="run-b", sample=1, failed=True, message="HTTP 500: busy"
            )
        )
        assert go_on.wait(20) or cancel.is_set()
        return data.RunOutcome(run_ids=("run-a", "run-b"), n_done=2, n_failed=1, cancelled=True)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await start_run(pilot, n="3")
        progress = app.screen.query_one(RunProgress)
        await wait_for(pilot, lambda: progress.done == 2)
        failures = str(progress.query_one("#run-progress-failures").render())
        assert "sample 1: HTTP 500: busy" in failures and "sample 2" not in failures
        go_on.set()
        await wait_for(pilot, lambda: not progress.running)


def test_a_wrapped_diff_line_keeps_its_mark_on_every_row():
    """A long added or removed line folded by a narrow screen keeps `+`/`-` on each row it takes,
    so the continuation never reads as unchanged code (without colour either)."""
    from rich.console import Console

    from skyt_tui.ui.diff_text import diff_renderable

    before = "def f(x):\n    return x + 1\n"
    after = "def f(x):\n    return some_long_function_name(x, another_argument, and_more)\n"
    console = Console(width=30, record=True, color_system=None)
    console.print(diff_renderable(before, after, "canon", "sample 3", side_by_side=False))
    rows = console.export_text().splitlines()
    assert rows[:3] == ["--- canon", "+++ sample 3", "@@ -1,2 +1,2 @@"]
    assert rows[3:5] == [" def f(x):", "-    return x + 1"]
    added = rows[5:]
    assert len(added) > 1 and all(row.startswith("+") for row in added), rows
    assert "".join(row[1:] for row in added).replace(" ", "") == after.splitlines()[1].replace(
        " ", ""
    )
