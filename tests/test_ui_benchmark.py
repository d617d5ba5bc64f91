"""Section 5, Benchmark: strata, anchor sample, sets, fingerprints, validation scatter, confirmed rotation."""

import json
import re

from textual.widgets import DataTable, TabbedContent

from skyt_tui.engine import benchmark
from skyt_tui.ui import data
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.benchmark import BenchmarkScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.scatter import ScatterPlot
from tests.ui_support import TODAY, clock, notifications, pilot_test, screen_text, settle

NAME = "bundled-contracts"


@pilot_test
async def test_the_demo_benchmark_shows_strata_sample_sets_fingerprints_and_history(demo_home):
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
        assert f"{NAME} · version 1 of 1 · 20 items · 0 systems · 0 scores" in shown
        status = benchmark.rotation_status(NAME, TODAY)
        sample = benchmark.current_sample(NAME)
        for stratum, count in status.strata.items():
            row = f"{stratum:<7}  {count:>5}  {sample.allocation[stratum]:>6}  {status.held_out_by_stratum[stratum]:>8}"
            assert row in shown, (row, shown)
        assert "8 of 20 items, stratified, rate 0.01, floor 8, seed 0" in shown
        assert "monthly, current period 2026-01, next due 2026-02-01" in shown
        assert f"held-out ({len(status.held_out)}): {status.held_out[0]}" in shown
        await pilot.press("v")
        screen = app.screen
        assert screen.query_one(TabbedContent).active == "bench-validation"
        shown = screen_text(app)
        assert "Validation needs per-system results." in shown
        assert f"skyt-tui bench import {NAME} ISSUES.jsonl --results RESULTS.csv" in shown
        await pilot.press("v")
        prints = screen.query_one("#bench-fingerprint-table", DataTable)
        expected = {fp.issue_id: fp for fp in benchmark.benchmark_fingerprints(NAME)}
        assert prints.row_count == 20
        first = [str(cell) for cell in prints.get_row_at(0)]
        assert first[3] == expected[first[0]].content_hash and first[2] == "held-out"
        await pilot.press("v")
        assert "1  2026-01-15 09:00  monthly" in screen_text(app)


@pilot_test
async def test_rotate_now_confirms_what_moves_and_records_it(demo_home):
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        plan = benchmark.preview_rotation(NAME, TODAY, force=True)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        said = app.screen.body.plain
        assert (
            "Rotation 2 of bundled-contracts" in said and "early" in said and "2026-02-01" in said
        )
        assert f"{len(plan.record.moved_to_training)} held-out item(s) move to training" in said
        assert (
            f"a new held-out set of {len(plan.record.held_out)} item(s) is drawn from the pool of 7"
            in said
        )
        assert "the pool ran dry in stratum hard: drew 0 of 3" in said
        await pilot.press("n")
        await pilot.pause()
        assert (
            isinstance(app.screen, BenchmarkScreen) and len(benchmark.rotation_history(NAME)) == 1
        )
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        history = benchmark.rotation_history(NAME)
        assert len(history) == 2 and history[1] == plan.record and history[1].forced
        assert f"Rotation 2 of {NAME}: 13 item(s) moved to training, 7 held out." in notifications(
            app
        )
        assert "training (13):" in screen_text(app)


def write_benchmark(tmp_path, n_items=30, n_systems=12):
    """Items in three strata and per-system scores that differ by system and item (a fixture, not real data)."""
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"item-{i:02d}",
                    "difficulty": ("easy", "medium", "hard")[i % 3],
                    "title": f"Item {i}",
                    "body": f"Do thing {i}.",
                }
            )
            + "\n"
            for i in range(n_items)
        )
    )
    results = tmp_path / "results.csv"
    lines = ["system,issue_id,score"]
    for s in range(n_systems):
        for i in range(n_items):
            lines.append(f"sys-{s:02d},item-{i:02d},{((s * 7 + i * 3) % 11 + s) / 21:.4f}")
    results.write_text("\n".join(lines) + "\n")
    benchmark.import_benchmark(
        "scored", issues=items, results=results, imported_at="2026-01-01T00:00:00+00:00"
    )
    benchmark.draw_sample(
        "scored", benchmark.SampleConfig(floor=12), recorded_at="2026-01-01T00:00:00+00:00"
    )


@pilot_test
async def test_validation_plots_sample_against_full_score_per_system(isolated_home, tmp_path):
    write_benchmark(tmp_path)
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        report = data.validate_benchmark("scored", benchmark.current_sample("scored"))
        shown = screen_text(app)
        assert report.verdict in shown
        assert (
            f"this sample (12 items) on 12 systems: Pearson r {report.sample_check.pearson:.3f}"
            in shown
        )
        plot = app.screen.query_one(ScatterPlot)
        assert plot.points == tuple((p.full_mean, p.estimate) for p in report.sample_check.points)
        assert "●" in shown
        best = max(report.sample_check.points, key=lambda p: p.full_mean)
        assert re.search(rf"{best.system} +{best.estimate:.3f} +{best.full_mean:.3f}", shown)
