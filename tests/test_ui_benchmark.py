"""Section 5, Benchmark: strata, anchor sample, sets, fingerprints, validation scatter, confirmed rotation."""

import json
import re
from pathlib import Path

import numpy as np
from textual.widgets import DataTable, TabbedContent

from skyt_tui.engine import benchmark
from skyt_tui.engine.printable import counted
from skyt_tui.ui import bench_data
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.benchmark import BenchmarkScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.method_chart import MethodChart
from skyt_tui.ui.widgets.scatter import ScatterPlot
from tests.ui_support import TODAY, clock, notifications, pilot_test, screen_text, settle

NAME = "bundled-contracts"


def static_text(app, selector: str, width: int = 200) -> str:
    """A Static's content as plain text at `width` columns, wherever it is scrolled to."""
    from rich.console import Console

    console = Console(width=width, record=True, color_system=None)
    console.print(app.screen.query_one(selector).content)
    return console.export_text()


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
        await pilot.press("v", "v")
        assert screen.query_one(TabbedContent).active == "bench-items"
        prints = screen.query_one("#bench-fingerprint-table", DataTable)
        expected = {fp.issue_id: fp for fp in benchmark.benchmark_fingerprints(NAME)}
        assert prints.row_count == 20
        first = [str(cell) for cell in prints.get_row_at(0)]
        assert expected[first[0]].content_hash.startswith(first[4]) and first[2] == "held-out"
        line = static_text(app, "#bench-item-line")  # the highlighted item's shortened columns
        assert line.startswith(f"{first[0]}: content {expected[first[0]].content_hash} · solution ")
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
        assert (
            f"{counted(len(plan.record.moved_to_training), 'held-out item', verb='move')} to training"
            in said
        )
        assert (
            f"a new held-out set of {counted(len(plan.record.held_out), 'item')} is drawn from the pool of 7"
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
        assert f"Rotation 2 of {NAME}: 13 items moved to training, 7 held out." in notifications(
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
        report = bench_data.validate_benchmark("scored", benchmark.current_sample("scored"))
        shown = screen_text(app)
        assert report.verdict in shown
        plot = app.screen.query_one(ScatterPlot)
        assert plot.points == tuple((p.full_mean, p.estimate) for p in report.sample_check.points)
        assert (
            f"this sample (12 items) on 12 systems: Pearson r {report.sample_check.pearson:.3f}"
            in static_text(app, "#bench-validation-text")
        )
        best = max(report.sample_check.points, key=lambda p: p.full_mean)
        assert re.search(
            rf"{best.system} +{best.estimate:.3f} +{best.full_mean:.3f}",
            static_text(app, "#bench-systems"),
        )
        app.screen.query_one(ScatterPlot).scroll_visible(animate=False)
        await settle(pilot)
        assert "●" in screen_text(app)


def write_irt_benchmark(tmp_path, n_items=60, n_systems=24):
    """Items and pass@1 scores (tenths) of systems of spread ability (a fixture, not real data);
    then an IRT anchor sample and two new systems scored on the anchors only."""
    rng = np.random.default_rng(11)
    ability = np.linspace(-2, 2, n_systems + 2)
    location = rng.normal(0, 1, n_items)
    chance = 1 / (1 + np.exp(-(ability[:, None] - location)))
    scores = rng.binomial(10, chance) / 10
    ids = [f"task-{i:02d}" for i in range(n_items)]
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps({"id": i, "difficulty": ("easy", "medium", "hard")[n % 3]}) + "\n"
            for n, i in enumerate(ids)
        )
    )
    results = tmp_path / "results.csv"
    lines = ["system,issue_id,score"]
    names = [f"model-{s:02d}" for s in range(n_systems + 2)]
    for s in range(n_systems):
        lines += [f"{names[s]},{i},{scores[s, n]}" for n, i in enumerate(ids)]
    results.write_text("\n".join(lines) + "\n")
    benchmark.import_benchmark(
        "irt-bench", issues=items, results=results, imported_at="2026-01-01T00:00:00+00:00"
    )
    sample = benchmark.draw_sample(
        "irt-bench",
        benchmark.SampleConfig(rate=0.0, floor=12, mode="irt"),
        recorded_at="2026-01-01T00:00:00+00:00",
    )
    anchors = np.isin(ids, sample.ids)
    new = benchmark.ScoreMatrix(
        tuple(names[n_systems:]),
        tuple(ids),
        np.where(anchors[None, :], scores[n_systems:], np.nan),
    )
    benchmark.estimate_systems("irt-bench", new, add=True, imported_at="2026-01-02T00:00:00+00:00")
    return sample, scores


@pilot_test
async def test_irt_sample_method_validation_side_by_side_and_estimates(isolated_home, tmp_path):
    sample, scores = write_irt_benchmark(tmp_path)
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
        assert "12 of 60 items, irt (2PL fitted on 24 systems), rate 0, floor 12, seed 0" in shown
        await pilot.press("v")
        await settle(pilot)
        screen = app.screen
        assert screen.report is not None
        report = screen.report
        assert [m.method for m in report.methods] == ["irt", "cluster", "stratified", "random"]
        shown = screen_text(app)
        assert report.verdict in shown
        for result in report.methods:
            marker = " ◂" if result.method == "irt" else ""
            assert re.search(
                rf"{result.method}{marker} +{result.size} +\S+ +{result.pearson.median:.3f} +"
                rf"{result.kendall.median:.3f} +{result.mae.median:.3f}",
                shown,
            ), result.method
        chart = screen.query_one(MethodChart)
        assert chart.sizes == (4, 10, 25, 50)
        assert set(chart.r) == {"irt", "cluster", "stratified", "random"}
        chart.scroll_visible(animate=False)
        await settle(pilot)
        shown = screen_text(app)
        assert "median r (held out)" in shown and "median MAE" in shown
        assert "i irt" in shown and "c cluster" in shown and "s stratified" in shown
        await pilot.press("v")
        await settle(pilot)
        assert screen.query_one(TabbedContent).active == "bench-estimates"
        shown = screen_text(app)
        assert "24 measured (scored on every item), 2 estimated" in shown
        estimates = {e.system: e for e in benchmark.stored_estimates("irt-bench")}
        new = estimates["model-25"]
        assert not new.exact and estimates["model-00"].exact
        assert re.search(
            rf"model-25 +≈{new.score:.3f} +{new.low:.3f}–{new.high:.3f} +12/60 +12/12 +"
            r"estimated \(irt\)",
            shown,
        )
        measured = estimates["model-03"]
        assert re.search(rf"model-03 +{measured.score:.3f} +60/60 +12/12 +measured", shown)
    small = SkytApp(start="benchmark", clock=clock)
    async with small.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v")
        await settle(pilot)
        assert "2 estimated" in screen_text(small)


@pilot_test
async def test_item_list_sorts_by_column_and_filters_with_slash(demo_home):
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v", "v")
        screen = app.screen
        assert screen.query_one(TabbedContent).active == "bench-items"
        table = screen.query_one("#bench-fingerprint-table", DataTable)

        def column(index):
            return [str(table.get_row_at(row)[index]) for row in range(table.row_count)]

        assert table.row_count == 20
        await pilot.press("s")  # item ↑
        assert column(0) == sorted(column(0))
        await pilot.press("s")  # item ↓
        assert column(0) == sorted(column(0), reverse=True)
        await pilot.press("s")  # difficulty ↑
        assert column(1) == sorted(column(1)) and "sorted by difficulty ↑" in screen_text(app)
        await pilot.click("#bench-fingerprint-table", offset=(2, 0))  # the header: by item
        await pilot.pause()
        assert column(0) == sorted(column(0))
        await pilot.press("slash")
        await pilot.press(*"hard")
        await pilot.pause()
        assert set(column(1)) == {"hard"} and table.row_count < 20
        assert f"{table.row_count} of 20 items match 'hard'" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == 20 and table.has_focus
        assert not screen.query_one("#bench-filter").display


@pilot_test
async def test_rotation_confirmation_lists_every_moved_id_and_warns_about_anchors(demo_home):
    plan = benchmark.preview_rotation(NAME, TODAY, force=True)
    sample = benchmark.current_sample(NAME)
    moving_anchors = sorted(set(sample.ids) & set(plan.record.moved_to_training))
    assert moving_anchors  # the demo's anchors overlap its first held-out set
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        said = app.screen.body.plain
        for item_id in (*plan.record.moved_to_training, *plan.record.held_out):
            assert item_id in said
        assert "more)" not in said
        assert len(moving_anchors) == 7
        assert "⚠ 7 items of the current anchor sample move to training" in said
        assert ", ".join(moving_anchors) in said
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("v", "v", "v", "v")
        await settle(pilot)
        history = app.screen.query_one("#bench-history-text")
        history.scroll_visible(animate=False)
        await pilot.pause()
        assert app.screen.query_one(TabbedContent).active == "bench-history"
        text = screen_text(app)
        assert f"rotation 2 ({TODAY.date()}) moved {len(plan.record.moved_to_training)} to" in text


def damage_rotations(name: str) -> Path:
    """One bad line (a hand edit gone wrong) between two good ones."""
    from skyt_tui.engine.benchmark import bench_store

    path = bench_store.rotations_log(name)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], '{"kind": "bench_rotation", oops}', lines[0]]) + "\n")
    return path


@pilot_test
async def test_one_damaged_rotation_log_does_not_hide_the_other_benchmarks(demo_home, tmp_path):
    write_benchmark(tmp_path)
    path = damage_rotations(NAME)
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
        assert "No benchmarks yet" not in shown
        table = app.screen.query_one("#bench-table", DataTable)
        names = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        assert names == [NAME, "scored"]
        assert "damaged" in str(table.get_row_at(0)[1])
        assert f"{path}: corrupt record at line 2" in static_text(app, "#bench-overview-text")
        await pilot.press("down")
        await settle(pilot)
        assert "scored · version 1 of 1 · 30 items" in screen_text(app)


@pilot_test
async def test_every_fingerprint_column_is_visible_at_120_columns(demo_home):
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v", "v")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        [header] = [line for line in lines if "item" in line and "content" in line]
        for label in ("item", "diff", "set", "★", "content", "solution", "created", "training"):
            assert f" {label} " in header + " ", (label, header)
        expected = {fp.issue_id: fp for fp in benchmark.benchmark_fingerprints(NAME)}
        [row] = [line for line in lines if " binary_search " in line]
        fp = expected["binary_search"]
        assert fp.content_hash[:8] in row and fp.solution_hash[:8] in row
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(60, 18)) as pilot:  # narrower: columns left out whole …
        await settle(pilot)
        await pilot.press("v", "v", "v")
        await settle(pilot)
        table = app.screen.query_one("#bench-fingerprint-table", DataTable)
        headers = [str(column.label) for column in table.columns.values()]
        assert headers[:3] == ["item", "diff", "set"] and "created" not in headers
        line = static_text(app, "#bench-item-line")  # … and shown in full for the highlighted item
        first = str(table.get_row_at(0)[0])
        assert f"created {(expected[first].created_at or '–')[:10]}" in line


@pilot_test
async def test_items_without_text_are_marked_in_the_item_list(isolated_home, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(
            json.dumps(
                {"id": f"item-{i:02d}", "difficulty": ("easy", "medium", "hard")[i % 3]}
                | ({} if i % 4 == 0 else {"title": f"Item {i}", "body": "  "})
            )
            + "\n"
            for i in range(12)
        )
    )
    benchmark.import_benchmark("nt", issues=items, imported_at="2026-01-01T00:00:00+00:00")
    app = SkytApp(start="benchmark", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v", "v")
        await settle(pilot)
        shown = screen_text(app)
        table = app.screen.query_one("#bench-fingerprint-table", DataTable)
        marked = {}
        for row in range(table.row_count):
            cell = table.get_row_at(row)[0]
            marked[cell.plain.split()[0]] = cell
        for i in range(12):
            cell = marked[f"item-{i:02d}"]
            if i % 4 == 0:
                assert cell.plain == f"item-{i:02d} (no text)"
                assert any("dim" in str(span.style) for span in cell.spans)
                assert f"item-{i:02d} (no text)" in shown
            else:
                assert "(no text)" not in cell.plain
        await pilot.press("slash", *"no text")
        await pilot.pause()
        assert table.row_count == 3
