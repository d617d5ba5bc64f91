"""Section 4, Heatmap: stored runs of the demo (matrices as the engine computes them), levels, before/after
repair, order, the pair diff, switching runs, and the development path with in-memory analyses."""

import numpy as np
from textual.widgets import DataTable

from skyt_tui.engine.measure.distance import pairwise_matrix
from skyt_tui.engine.runs.matrices import run_matrices
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.heatmap import HeatmapScreen
from skyt_tui.ui.screens.pair_diff import PairDiffScreen
from skyt_tui.ui.widgets.heatmap import Heatmap
from tests.ui_support import (
    clock,
    demo_run_id,
    notifications,
    pilot_test,
    sample_analyses,
    screen_text,
    settle,
    wait_for_text,
)


def shown_matrix(heatmap: Heatmap) -> np.ndarray:
    """The matrix the widget draws, back in matrix order."""
    order = np.argsort(heatmap.order)
    return heatmap._values[np.ix_(order, order)]


@pilot_test
async def test_a_stored_run_drawn_as_the_engine_measures_it(demo_home, monkeypatch):
    # a loaded machine, made certain: the loaded samples' message is handled 0.4 s after the worker
    # that read them has finished, so `settle` returns with the head's second line not yet drawn
    texts_loaded = HeatmapScreen.on_texts_loaded

    def late_texts_loaded(screen, message):
        screen.set_timer(0.4, lambda: texts_loaded(screen, message))

    monkeypatch.setattr(HeatmapScreen, "on_texts_loaded", late_texts_loaded)
    app = SkytApp(start="heatmap", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        heatmap = screen.query_one(Heatmap)
        slugify = demo_run_id("slugify")
        expected = run_matrices(slugify, "nodoc")
        # the head's first line is drawn before the run's samples load, its second line after
        shown = await wait_for_text(
            pilot, f"run 1/6 ▶  {slugify}", "hand-written examples (not model output)"
        )
        assert "level nodoc (v) · before repair (p) · order: distance to canon (o)" in shown
        assert heatmap.n == 12 and heatmap.order == expected.order
        assert np.array_equal(shown_matrix(heatmap), expected.pre)
        await pilot.press("p")
        assert "after repair (" in screen_text(app)
        assert np.array_equal(shown_matrix(heatmap), expected.post)
        await pilot.press("p", "v")
        assert screen.level == "alpha"
        assert np.array_equal(shown_matrix(heatmap), run_matrices(slugify, "alpha").pre)
        await pilot.press("o")
        assert heatmap.order == tuple(range(12)) and "order: generation" in screen_text(app)
        alpha = run_matrices(slugify, "alpha").pre
        far = int(np.argmax(alpha[0]))  # the sample farthest from sample 0 at alpha
        heatmap.move_cursor(far, 0)
        await pilot.pause()
        assert f"sample {far} × sample 0: d = {alpha[far, 0]:.3f}" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PairDiffScreen)
        diff = screen_text(app)
        assert (
            f"--- sample {far}" in diff
            and "+++ sample 0" in diff
            and "level alpha · before repair" in diff
        )
        await pilot.press("escape", "right_square_bracket")
        await settle(pilot)
        assert f"run 2/6 ▶  {demo_run_id('lru_cache')}" in screen_text(app)


@pilot_test
async def test_h_in_runs_opens_the_heatmap_of_that_run(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        fib = demo_run_id("fibonacci_iterative")
        table = app.screen.query_one("#runs-table", DataTable)
        table.move_cursor(row=table.get_row_index(fib))
        await pilot.press("h")
        await settle(pilot)
        assert app.current_mode == "heatmap"
        assert f"{fib} · hand-written-examples · T – · N 14" in screen_text(app)
        assert app.screen.query_one(Heatmap).n == 14


@pilot_test
async def test_in_memory_runs_without_a_canon_say_what_is_missing():
    analyses = sample_analyses()
    app = SkytApp(analyses=analyses, start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        heatmap = screen.query_one(Heatmap)
        assert heatmap.n == 20 and "fib-handwritten-t07" in screen_text(app)
        assert "order: generation — no canon" in screen_text(app)
        await pilot.press("p")
        assert not screen.post_repair
        assert any("nothing was repaired" in message for message in notifications(app))
        await pilot.press("v")  # nodoc → alpha
        expected = pairwise_matrix([norm.texts["alpha"] for norm in analyses[0].normalized])
        assert np.array_equal(screen.matrix(), expected)
        # samples 18 and 0 differ only in local names: identical at alpha, not at nodoc
        assert analyses[0].pairwise[18, 0] > 0 and expected[18, 0] == 0.0
        heatmap.move_cursor(18, 0)
        await pilot.pause()
        assert "sample 18 × sample 0: d = 0.000" in screen_text(app)
        await pilot.press("right_square_bracket")
        assert heatmap.n == 10 and screen.level == "alpha", (
            "the chosen level stays when the run changes"
        )


@pilot_test
async def test_a_run_without_samples_says_so(tmp_path):
    from skyt_tui.engine.analysis.pipeline import analyze_run
    from skyt_tui.engine.sources.recorded import load_samples_jsonl

    source = tmp_path / "failed.jsonl"
    source.write_text(
        '{"run_id": "all-failed", "code": null}\n{"run_id": "all-failed", "code": null}\n'
    )
    analyses = [analyze_run(run, oracle=False) for run in load_samples_jsonl(source)]
    app = SkytApp(analyses=analyses, start="heatmap")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.screen.query_one(Heatmap).n == 0
        assert "no samples to compare: 2 generations failed" in screen_text(app)
        await pilot.press("enter", "down", "v")
        assert "no samples to compare" in screen_text(app)
