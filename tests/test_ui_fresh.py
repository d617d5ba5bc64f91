"""Issue 27.6: an app that never looks empty or stale. The Runs list shows its first rows before
every run is read and its metrics as they arrive; a run another process writes shows as a row
while analyses go on; the live run panel counts the first sample at once and marks verdicts while
the run generates; the Benchmark keys show on the first visit."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from textual.widgets import DataTable

from skyt_tui.engine.runs import run_store
from skyt_tui.ui import run_data, run_execution
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.widgets.run_progress import RunProgress
from tests.run_helpers import ROOT, cli_env
from tests.test_ui_app import start_run
from tests.test_ui_live import make_run, ok, wait_for
from tests.ui_support import clock, pilot_test, screen_text, settle

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "fibonacci_samples.jsonl"


def rows(app) -> int:
    return app.screen.query_one("#runs-table", DataTable).row_count


@pilot_test
async def test_the_first_rows_show_before_every_run_is_read(isolated_home, monkeypatch):
    from skyt_tui.ui.screens import runs as runs_screen

    made = [make_run(isolated_home, 2, [ok(0), ok(1)], run_store.COMPLETE).id for _ in range(12)]
    monkeypatch.setattr(runs_screen, "FIRST_ROWS", 4)
    release, calls = threading.Event(), []
    real = run_store.load_run

    def slow_disk(run_id):  # the fifth run takes as long as the test wants
        calls.append(run_id)
        if len(calls) > 4:
            assert release.wait(30)
        return real(run_id)

    monkeypatch.setattr(run_store, "load_run", slow_disk)
    app = SkytApp(start="runs", clock=clock)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: rows(app) > 0, 20)
            # Textual fills the footer's keys after its first frame: on a quiet machine the
            # first rows can come before them (the fifth run is held, so the rows stay at 4)
            await wait_for(pilot, lambda: "Filter" in screen_text(app).splitlines()[-1], 20)
            shown = screen_text(app)
            assert rows(app) == 4 and not release.is_set()
            assert "4 runs read so far…" in shown
            assert "Filter" in shown.splitlines()[-1] and "Help" in shown.splitlines()[-1]
            release.set()
            await wait_for(pilot, lambda: rows(app) == len(made), 20)
            await settle(pilot)
            assert "12 runs, newest first" in screen_text(app)
    finally:
        release.set()


@pilot_test
async def test_a_run_another_process_writes_shows_as_a_row_while_runs_are_analysed(
    isolated_home, monkeypatch
):
    make_run(isolated_home, 2, [ok(0), ok(1)], run_store.COMPLETE)
    analysing, release = threading.Event(), threading.Event()

    def long_analysis(run_ids, on_result=None, progress=None, cancelled=None):
        analysing.set()
        while not release.wait(0.05):
            if cancelled is not None and cancelled():
                from skyt_tui.engine.runs.analysis_child import AnalysisCancelled

                raise AnalysisCancelled("cancelled")
        return []

    monkeypatch.setattr(run_data, "analyze_runs", long_analysis)
    app = SkytApp(start="runs", clock=clock)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: rows(app) == 1 and analysing.is_set(), 20)
            done = subprocess.run(
                [sys.executable, "-m", "skyt_tui", "import", str(SAMPLES)],
                cwd=ROOT,
                env=cli_env(isolated_home),
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr
            written = time.monotonic()
            await wait_for(pilot, lambda: rows(app) == 3, 15)
            took = time.monotonic() - written
            assert not release.is_set(), "the analysis was still going"
            assert took < 10, f"{took:.1f} s"
            assert "3 runs, newest first" in screen_text(app)
    finally:
        release.set()


@pilot_test
async def test_the_live_panel_counts_the_first_sample_at_once_and_marks_verdicts_while_running(
    monkeypatch,
):
    from types import SimpleNamespace

    from skyt_tui.engine.measure.metrics import RunMetrics
    from skyt_tui.ui.screens import contracts

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # the stand-in executor sends nothing
    monkeypatch.setattr(RunProgress, "REFRESH_S", 60.0)  # no tick: what shows comes from samples
    monkeypatch.setattr(contracts, "ESTIMATE_INTERVAL_S", 0.0)
    verdicts = {0: True, 1: False}

    def partial_analysis(run_id, cancelled=None):
        samples = tuple(
            SimpleNamespace(index=i, facts=SimpleNamespace(passed=p)) for i, p in verdicts.items()
        )
        metrics = RunMetrics(n=2, level="nodoc", tau=0.1, pass_rate=0.5, canon="none")
        return SimpleNamespace(metrics=metrics, samples=samples)

    monkeypatch.setattr(run_data, "partial_analysis", partial_analysis)
    go_on = threading.Event()

    def executor(request, report, cancel):
        for index in range(2):
            report(run_execution.SampleProgress(index=index, total=5, run_id="run-1", sample=index))
        assert go_on.wait(20) or cancel.is_set()
        return run_execution.RunOutcome(run_ids=("run-1",), n_done=2, n_failed=0, cancelled=True)

    app = SkytApp(start="contracts", run_executor=executor)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        progress = app.screen.query_one(RunProgress)
        progress.clock = lambda: (
            1000.0
        )  # a stopped clock: "0:00 ago" however long a busy machine takes
        await start_run(pilot, n="5")

        def estimate() -> str:
            return str(progress.query_one("#run-progress-estimate").render())

        def marks() -> str:
            return str(progress.query_one("#run-progress-samples").render())

        await wait_for(pilot, lambda: progress.done == 2)
        assert "waiting for the first sample" not in estimate()
        assert "last sample 0:00 ago" in estimate()
        await wait_for(pilot, lambda: marks() == "✓✗···")
        assert progress.running, "judged while the run still generates"
        go_on.set()
        await wait_for(pilot, lambda: not progress.running)


@pilot_test
async def test_the_benchmark_keys_show_on_the_first_visit(demo_home, monkeypatch):
    """The first benchmark (and the keys that act on it) show from the screen's own start, not
    from the table reporting its cursor, which a busy machine may deliver before the screen is
    mounted (and so lose)."""
    post = DataTable.post_message

    def lose_the_first_highlight(table, message):
        if isinstance(message, DataTable.RowHighlighted) and table.id == "bench-table":
            return True  # as if handled before the screen was mounted
        return post(table, message)

    monkeypatch.setattr(DataTable, "post_message", lose_the_first_highlight)
    app = SkytApp(start="contracts", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        # a busy machine may take a while to draw the section: once its benchmark shows, the
        # footer must have the keys that act on it
        await wait_for(pilot, lambda: "anchor sample" in screen_text(app), 30)
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "Rotate now" in footer and "Views" in footer, footer


@pilot_test
async def test_every_footer_key_of_an_empty_store_acts_or_says_why_not(isolated_home):
    """On a store without runs, `/` in Runs put the keys into a filter box that is not on screen
    (typing went nowhere, `3` no longer changed section), and `[`/`]` in the Heatmap did
    nothing: each now says why it cannot act (Studies: tests/test_studies_ui.py)."""
    from textual.widgets import Input

    from tests.ui_support import notifications

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert "Filter" in screen_text(app).splitlines()[-1]
        await pilot.press("slash")
        await pilot.pause()
        assert not isinstance(app.focused, Input), "no hidden filter box takes the keys"
        assert notifications(app)[-1] == "No runs to filter yet: the store has none."
        await pilot.press("4")
        await settle(pilot)
        assert app.current_mode == "heatmap"
        for key in ("left_square_bracket", "right_square_bracket"):
            said = len(notifications(app))
            await pilot.press(key)
            await pilot.pause()
            assert notifications(app)[said:] == ["No run to show: the store has none."]
