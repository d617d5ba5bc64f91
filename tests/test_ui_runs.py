"""Section 2, Runs, over the demo store: the list with its metrics, a run's samples, a sample's code and diffs,
export and copy, paging through a large run."""

import csv
import io
import json

from textual.widgets import DataTable, Input, Select, TabbedContent

from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.report import envelope, fmt3, report_dict, sample_rows, samples_csv
from skyt_tui.engine.runs.run_store import SampleRecord
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.export import ExportDialog
from skyt_tui.ui.screens.run_detail import PAGE, RunDetailScreen
from tests.ui_support import (
    clock,
    demo_run_id,
    notifications,
    pilot_test,
    screen_text,
    settle,
)


async def open_run(pilot, run_id):
    """From the Runs list, put the cursor on `run_id` and open it."""
    await settle(pilot)
    table = pilot.app.screen.query_one("#runs-table", DataTable)
    table.move_cursor(row=table.get_row_index(run_id))
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, RunDetailScreen)
    return pilot.app.screen


@pilot_test
async def test_the_list_shows_each_runs_metrics_as_the_engine_computed_them(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(160, 36)) as pilot:  # wide enough for every column
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        assert table.row_count == 6
        fib = demo_run_id("fibonacci_iterative")
        metrics = analyses.analyze_stored_run(fib)["metrics"]
        row = {key: str(table.get_cell(fib, key)) for key in app.screen.columns}
        assert row == {
            "when": "01-15 09:00",
            "contract": "fibonacci_iterative",
            "model": "hand-written-exam…",
            "state": "complete",
            "N": "14/14",
            "T": "–",
            "R_raw": fmt3(metrics["R_raw"]),
            "R_anchor": f"{fmt3(metrics['R_anchor_pre'])}→{fmt3(metrics['R_anchor_post'])}",
            "rescue": fmt3(metrics["rescue_rate"]),
            "μ": f"{fmt3(metrics['mu_pre'])}→{fmt3(metrics['mu_post'])}",
            "P_τ": f"{fmt3(metrics['P_tau_pre'])}→{fmt3(metrics['P_tau_post'])}",
            "pass": fmt3(metrics["pass_rate"]),
        }
        shown = screen_text(app)
        assert "6 demo runs: hand-written examples (not model output)" in shown
        # the demo store was analysed with reduced isolation: the status line says so
        assert "6 of 6 runs analysed · ⚠ reduced isolation" in shown
        # newest first: the demo made its runs a second apart, slugify last
        assert app.screen.shown[0].id == demo_run_id("slugify")


@pilot_test
async def test_a_run_in_detail_shows_samples_bars_code_and_diffs_to_the_canon(demo_home):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        fib = demo_run_id("fibonacci_iterative")
        screen = await open_run(pilot, fib)
        rows = sample_rows(run_store.load_run(fib), analyses.stored_analysis(fib))
        table = screen.query_one("#samples-table", DataTable)
        assert table.row_count == len(rows) == 14
        shown = screen_text(app)
        assert (
            "hand-written examples (not model output)" in shown and "⚠ reduced isolation" in shown
        )
        assert "canon: sample 0 of this run" in shown
        # sample 7 is the while-loop variant: repair brings it closer without reaching the canon
        seven = rows[7]
        assert 0 < seven["d_post"] < seven["d_pre"]
        cells = [str(cell) for cell in table.get_row_at(7)]
        assert cells[:5] == [
            "7",
            "✓ pass",
            seven["signature_level"][:8],
            fmt3(seven["d_pre"]),
            fmt3(seven["d_post"]),
        ]
        pre_cells, post_cells = round(seven["d_pre"] * 10), round(seven["d_post"] * 10)
        assert cells[5].rstrip() == "█" * post_cells + "░" * (pre_cells - post_cells)
        table.move_cursor(row=7)
        await pilot.pause()
        assert "sample 7 · ✓ pass" in screen_text(app) and "def fibonacci(n):" in screen_text(app)
        await pilot.press("v")
        assert screen.query_one(TabbedContent).active == "view-before"
        shown = screen_text(app)
        assert f"canon → sample 7 at level nodoc: d_pre = {fmt3(seven['d_pre'])}" in shown
        assert "+    while i < n:" in shown
        await pilot.press("v")
        shown = screen_text(app)
        assert f"after {counted(len(seven['repair_steps'].split()), 'repair step')}" in shown
        assert "1. loop_form:" in shown and "+++ sample 7 repaired" in shown
        await pilot.press("c")
        assert app.clipboard.startswith("canon → sample 7 after")
        # sample 9 fails the oracle: its failing test is named under the code
        table.move_cursor(row=9)
        await pilot.press("v")
        assert "sample 9 · ✗ fail" in screen_text(app) and "✗ " in screen_text(app)
        await pilot.press("escape")
        assert app.screen.id == "runs-screen"


@pilot_test
async def test_export_writes_what_the_cli_writes(demo_home, tmp_path):
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        slugify = demo_run_id("slugify")
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        assert dialog.query_one("#export-path", Input).value.endswith(f"{slugify}.csv")
        dialog.query_one("#export-path", Input).value = str(tmp_path / "slugify.csv")
        await pilot.press("enter")
        await pilot.pause()
        run = run_store.load_run(slugify)
        analysis = analyses.stored_analysis(run)
        written = (tmp_path / "slugify.csv").read_text()
        assert written == samples_csv(sample_rows(run, analysis))
        assert len(list(csv.DictReader(io.StringIO(written)))) == 12
        assert f"Wrote 12 samples to {tmp_path / 'slugify.csv'}" in notifications(app)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-kind", Select).value = "json"
        await pilot.pause()
        path = app.screen.query_one("#export-path", Input).value
        assert path == str(tmp_path / f"{slugify}.json"), (
            "the last directory is kept, the extension follows the format"
        )
        await pilot.press("enter")
        await pilot.pause()
        exported = json.loads((tmp_path / f"{slugify}.json").read_text())
        assert exported == json.loads(json.dumps(envelope("report", report_dict(run, analysis))))
        # byte for byte what `report RUN --json` prints (docs/json.md): its provenance was missing
        from contextlib import redirect_stdout

        from skyt_tui.cli import main

        printed = io.StringIO()
        with redirect_stdout(printed):
            assert main(["report", slugify, "--json"]) == 0
        assert (tmp_path / f"{slugify}.json").read_text() == printed.getvalue()
        assert "provenance" in exported
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#export-path", Input).value = str(
            tmp_path / "no" / "such" / "dir.csv"
        )
        await pilot.press("enter")
        await pilot.pause()
        assert any(
            m.startswith("Export failed:") and "no such directory" in m for m in notifications(app)
        )


CODES = (
    "def f(x):\n    return x + 1",
    "def f(x):\n    return 1 + x",
    "def f(y):\n    return y + 1",
)


@pilot_test
async def test_a_large_run_is_paged(isolated_home):
    from tests.run_helpers import CONTRACT_ID, install_contract

    install_contract(isolated_home)
    from skyt_tui.engine.contracts.catalog import get_contract

    n = PAGE + 30
    samples = [
        SampleRecord(index=i, status="ok", response=CODES[i % 3], code=CODES[i % 3])
        for i in range(n)
    ]
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=get_contract(CONTRACT_ID),
        provider="openai",
        model="m",
        temperature=0.5,
        n=n,
        samples=samples,
        status=run_store.COMPLETE,
    )
    analyses.analyze_stored_run(meta.id)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(pilot, meta.id)
        table = screen.query_one("#samples-table", DataTable)
        assert table.row_count == PAGE and f"rows 1–{PAGE} of {n} · page 1/2" in screen_text(app)
        assert "page 1/2 (< >)" in screen_text(app)
        await pilot.press("greater_than_sign", "greater_than_sign")
        assert table.row_count == 30 and str(table.get_row_at(0)[0]) == str(PAGE)
        assert f"rows {PAGE + 1}–{n} of {n} · page 2/2" in screen_text(app)
        table.move_cursor(row=29)
        await pilot.pause()
        assert f"sample {n - 1} · ✓ pass" in screen_text(app)
        await pilot.press("less_than_sign")
        assert str(table.get_row_at(0)[0]) == "0" and table.row_count == PAGE


@pilot_test
async def test_at_80_columns_the_list_keeps_whole_columns_and_sorts_and_filters(demo_home):
    """Issue 14.10: columns chosen by width (none cut mid-number), `s` sorts, `/` filters."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        # what tells runs apart (contract, model, T) stays (issue 27.7)
        assert screen.columns == ["contract", "model", "state", "N", "T", "R_raw", "pass"]
        shown = screen_text(app)
        metrics = analyses.analyze_stored_run(demo_run_id("fibonacci_iterative"))["metrics"]
        line = next(line for line in shown.splitlines() if "fibonacci_iterative" in line)
        assert f" {fmt3(metrics['R_raw'])} " in line
        assert line.rstrip().endswith(fmt3(metrics["pass_rate"]))
        await pilot.press("s")  # by contract, ascending
        await pilot.pause()
        assert [s.meta.contract_id for s in screen.shown][:2] == [
            "balanced_brackets",
            "binary_search",
        ]
        assert "sorted by contract" in screen_text(app)
        await pilot.press("slash")
        await pilot.press(*"fib")
        await pilot.pause()
        table = screen.query_one("#runs-table", DataTable)
        assert table.row_count == 1 and "filter 'fib': 1 of 6" in screen_text(app)
        await pilot.press("enter")  # back to the table: enter opens the one run left
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RunDetailScreen)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press("escape")  # clears the filter
        await pilot.pause()
        assert table.row_count == 6


@pilot_test
async def test_a_pane_can_be_enlarged_and_a_tiny_terminal_is_told_so(demo_home):
    """Issue 14.12: z enlarges the focused pane (and back); below 60×18 a message instead of vanished panes."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        fib = demo_run_id("fibonacci_iterative")
        screen = await open_run(pilot, fib)
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is screen.query_one("#samples-table", DataTable)
        assert "R_raw" not in screen_text(app), (
            "the run's head is hidden while the table is enlarged"
        )
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is None and "R_raw" in screen_text(app)
        await pilot.resize_terminal(50, 15)
        await pilot.pause()
        assert "Terminal too small: 50×15" in screen_text(app)
        await pilot.resize_terminal(60, 18)
        await pilot.pause()
        assert "too small" not in screen_text(app) and "R_raw" in screen_text(app)


@pilot_test
async def test_z_enlarges_the_code_view_too(demo_home):
    """`z` did nothing with the focus in the code (a scrolling pane Textual will not enlarge by
    itself): it enlarges the sample views, tabs and all, and `z` brings the others back."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(pilot, demo_run_id("fibonacci_iterative"))
        code = screen.query_one("#view-code VerticalScroll")
        code.focus()
        await pilot.pause()
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is screen.query_one(TabbedContent), screen.maximized
        assert app.focused is code and "R_raw" not in screen_text(app)
        assert "def " in screen_text(app), "the code is on screen, enlarged"
        await pilot.press("z")
        await pilot.pause()
        assert screen.maximized is None and "R_raw" in screen_text(app)


@pilot_test
async def test_the_samples_of_a_run_sort_and_filter(demo_home):
    """Issue 14.10: `s` sorts the per-sample table, `/` filters it, esc clears the filter (not the screen)."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        fib = demo_run_id("fibonacci_iterative")
        screen = await open_run(pilot, fib)
        rows = sample_rows(run_store.load_run(fib), analyses.stored_analysis(fib))
        failing = [r["index"] for r in rows if r["passed"] is False]
        assert failing
        await pilot.press("slash")
        screen.query_one("#samples-filter", Input).value = "✗"  # as typed
        await pilot.pause()
        assert [r.index for r in screen.rows] == failing
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunDetailScreen) and len(screen.rows) == 14
        await pilot.press("s", "s", "s", "s", "s", "s")  # verdict ▲▼, sig ▲▼, d_pre ▲▼
        await pilot.pause()
        d_pre = [r.d_pre for r in screen.rows if r.d_pre is not None]
        assert d_pre == sorted(d_pre, reverse=True) and "sorted by d_pre ▼" in screen_text(app)


@pilot_test
async def test_diffs_can_be_shown_side_by_side(demo_home):
    """Issue 14.12: `d` shows the diff against the canon side by side (and back), copied as shown."""
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        fib = demo_run_id("fibonacci_iterative")
        screen = await open_run(pilot, fib)
        screen.query_one("#samples-table", DataTable).move_cursor(row=7)
        await pilot.press("v")  # vs canon
        await pilot.pause()
        assert "--- canon" in screen_text(app)
        await pilot.press("d")
        await pilot.pause()
        shown = screen_text(app)
        assert "--- canon" not in shown and "canon" in shown and "sample 7" in shown
        header = next(line for line in shown.splitlines() if "sample 7" in line and "canon" in line)
        assert header.index("canon") < header.index("sample 7"), (
            "canon on the left, the sample right"
        )
        await pilot.press("c")
        copied = app.clipboard
        assert "canon" in copied and "sample 7" in copied and "<rich" not in copied
        await pilot.press("d")
        await pilot.pause()
        assert "--- canon" in screen_text(app)


@pilot_test
async def test_solution_families_with_a_canon_preview(demo_home):
    """Issue 14.15: `f` groups a run's samples by alpha signature and outputs, one representative each, the
    diff against the largest family, and what each passing representative would do as the canon."""
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis
    from skyt_tui.ui.families import solution_families
    from skyt_tui.ui.screens.families import FamiliesScreen

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        fib = demo_run_id("fibonacci_iterative")
        await open_run(pilot, fib)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, FamiliesScreen)
        analysis = analyses.analyze_stored_run(fib)
        families = solution_families(StoredAnalysis.from_document(analysis))
        assert sum(len(f.members) for f in families) == 14
        assert [len(f.members) for f in families] == sorted(
            (len(f.members) for f in families), reverse=True
        )
        for family in families:  # one signature and one behaviour per family
            members = [s for s in analysis["samples"] if s["index"] in family.members]
            assert len({s["signatures"]["alpha"] for s in members}) == 1
            assert len({str(s.get("outputs")) for s in members}) == 1
        table = screen.query_one("#families-table", DataTable)
        assert table.row_count == len(families)
        # the canon is sample 0: previewing its own family gives today's R_anchor_pre and μ_pre
        canon_family = next(row for row, f in enumerate(families) if 0 in f.members)
        preview = screen.previews[families[canon_family].representative]
        metrics = analysis["metrics"]
        if families[canon_family].representative == 0:
            assert preview.R_anchor_pre == metrics["R_anchor_pre"]
            assert abs(preview.mu_pre - metrics["mu_pre"]) < 1e-9
        table.move_cursor(row=len(families) - 1)
        await pilot.pause()
        assert "(largest family)" in screen_text(app) or families[-1] is families[0]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, RunDetailScreen)


@pilot_test
async def test_every_run_action_is_in_the_palette(demo_home):
    """Issue 14.8: the selected run's actions are commands too, footer or not."""
    from skyt_tui.ui.commands import BindingCommands

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        names = [hit.text async for hit in BindingCommands(app.screen).discover()]
        for expected in (
            "Runs: Run again",
            "Runs: Delete…",
            "Runs: Export…",
            "Runs: Sort",
            "Runs: Filter",
            "Runs: Enlarge pane",
            "Demo store / your store",
        ):
            assert expected in names, names
        assert not any("Focus Next" in name for name in names)


@pilot_test
async def test_brackets_mean_previous_and_next_run_in_the_detail_as_in_the_heatmap(demo_home):
    """Issue 14.11: `[`/`]` paged in a run's detail but switched runs in the heatmap; now they
    switch runs in both (pages are `<`/`>`), and the footer and help say so."""
    from skyt_tui.ui.help import key_actions

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        order = [s.id for s in app.screen.shown if s.meta is not None]
        assert len(order) >= 3
        screen = await open_run(pilot, order[1])
        described = {a.keys: a.description for a in key_actions(screen)}
        assert described["["] == "Previous run" and described["]"] == "Next run"
        assert described["<"] == "Previous page" and described[">"] == "Next page"
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert isinstance(app.screen, RunDetailScreen) and app.screen.run_id == order[2]
        assert order[2] in screen_text(app)
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot)
        assert app.screen.run_id == order[0]
        await pilot.press("escape")
        await settle(pilot)
        listing = app.screen
        assert listing.selected_summary().id == order[0], "the list's cursor followed"


@pilot_test
async def test_a_strict_contracts_run_shows_threshold_verdicts_and_broken_rules(isolated_home):
    """Issue 24: `✓ 4/5 ≥0.8` for a sample passing under the threshold but not every test, a
    rules column with the first broken rule, each broken rule in the code view, and a comply
    column in the list, which only runs of contracts with rules have."""
    from pathlib import Path

    from skyt_tui.engine.contracts.catalog import get_contract
    from tests.run_helpers import CONTRACT_ID, install_contract

    strict_dir = Path(__file__).parent / "fixtures" / "strict"
    install_contract(isolated_home)
    install_contract(
        isolated_home,
        (strict_dir / "binary_search_strict.toml").read_text(),
        "binary_search_strict.toml",
    )
    samples = [
        json.loads(line)
        for line in (strict_dir / "samples.jsonl").read_text().splitlines()
        if json.loads(line)["contract_id"] == "binary_search_strict"
    ]
    plain = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=get_contract(CONTRACT_ID),
        provider="openai",
        model="m",
        temperature=0.5,
        n=3,
        samples=[
            SampleRecord(index=i, status="ok", response=c, code=c) for i, c in enumerate(CODES)
        ],
        status=run_store.COMPLETE,
    )
    async with SkytApp(start="runs", clock=clock).run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        # only runs of contracts without rules: no comply column
        assert "comply" not in pilot.app.screen.columns
    codes = [s["code"] for s in samples[:4]]
    # fails only the empty list (arr[0] raises): 4 of 5 tests, passing at 0.8
    codes.append(codes[0].replace("    left = 0\n", "    left = 0 * arr[0]\n"))
    strict = run_store.create_run(
        contract_id="binary_search_strict",
        contract=get_contract("binary_search_strict"),
        provider="openai",
        model="m",
        temperature=0.5,
        n=len(codes),
        samples=[
            SampleRecord(index=i, status="ok", response=c, code=c) for i, c in enumerate(codes)
        ],
        status=run_store.COMPLETE,
    )
    metrics = analyses.analyze_stored_run(strict.id)["metrics"]
    assert (metrics["pass_rate"], metrics["pass_all_rate"], metrics["compliance_rate"]) == (
        1.0,
        0.8,
        0.8,
    )
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        assert "comply" in app.screen.columns
        assert str(table.get_cell(strict.id, "comply")) == "0.800"
        assert str(table.get_cell(plain.id, "comply")) == "–"
        screen = await open_run(pilot, strict.id)
        samples_table = screen.query_one("#samples-table", DataTable)
        assert screen.columns[:3] == ("#", "verdict", "rules")
        rows = [[str(cell) for cell in samples_table.get_row_at(i)] for i in range(5)]
        assert [row[1] for row in rows] == ["✓ pass"] * 4 + ["✓ 4/5 ≥0.8"]
        assert [row[2] for row in rows] == ["✓", "✓", "✓", "✗ MISRA-12.1", "✓"]
        samples_table.move_cursor(row=3)
        await pilot.pause()
        assert "✗ MISRA-12.1: line 5: `(right - left) // 2` as an operand of + needs" in (
            screen_text(app)
        )
        samples_table.move_cursor(row=4)
        await pilot.pause()
        assert "passed 4/5, threshold 0.8; first failure: test 5" in screen_text(app)


@pilot_test
async def test_an_imported_runs_view_shows_the_tools_verdicts_beside_skyt_tuis(
    isolated_home, capsys
):
    """Issue 23: a run imported from an Inspect log shows Inspect's pass rate beside
    skyt-tui's and the disagreements, as `report` prints them (before: nothing)."""
    from pathlib import Path

    from skyt_tui.cli import main

    log = Path(__file__).parent / "fixtures" / "formats" / "inspect" / "study.eval"
    assert main(["import", str(log), "--json"]) == 0
    created = json.loads(capsys.readouterr().out)["created"]
    study0 = next(i for i in created if run_store.load_meta(i).contract_id == "Study_0")
    assert main(["report", study0]) == 0
    printed = capsys.readouterr().out
    line = "recorded by inspect: pass 0.333 by inspect, 0.667 by skyt-tui · 1 disagreement"
    assert line in printed
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_run(pilot, study0)
        assert line in screen_text(app)
        assert screen.tool_line == line


def one_sample_run(home, provider: str, code: str) -> run_store.RunMeta:
    """A complete stored run of one sample of the test contract, from `provider`."""
    from tests.run_helpers import CONTRACT_ID, install_contract

    install_contract(home)
    return run_store.create_run(
        contract_id=CONTRACT_ID,
        provider=provider,
        model="m",
        temperature=0.5,
        n=1,
        samples=[SampleRecord(index=0, status="ok", response=code, code=code)],
        status=run_store.COMPLETE,
    )


@pilot_test
async def test_run_again_on_recorded_answers_says_there_is_no_model_to_ask(isolated_home):
    """`a` on an imported run said "Running … again…", then "Run failed: --replay SOURCE is
    required": it is refused at once, in the app's words."""
    meta = one_sample_run(isolated_home, "replay", CODES[0])
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        said = notifications(app)
        assert any(f"Run {meta.id} holds recorded answers" in m for m in said), said
        assert not any("Running" in m or "Run failed" in m for m in said), said
        assert run_store.run_ids() == [meta.id]


@pilot_test
async def test_a_long_line_of_code_wraps_rather_than_being_cut(isolated_home):
    """The code view neither wrapped nor scrolled sideways: a line wider than the pane lost its
    end, silently."""
    code = (
        "def f(x):\n    return x + " + " + ".join(f"term_{i}" for i in range(30)) + " + LAST_TERM"
    )
    meta = one_sample_run(isolated_home, "openai", code)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_run(pilot, meta.id)
        assert "LAST_TERM" in screen_text(app)


@pilot_test
async def test_a_run_whose_figures_arrive_takes_its_place_in_the_sorted_list(demo_home):
    """Sorted by a metric, a run analysed after the list was drawn (new, resumed, run again)
    kept the row it had before its figures came, against the 'sorted by' the list showed."""
    from dataclasses import replace

    from skyt_tui.ui.screens.runs import RunAnalysed

    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = app.screen
        screen.sort_column, screen.sort_reverse = "R_raw", True
        screen.fill_table()
        await pilot.pause()
        last = screen.shown[-1].id
        analysis = screen.analyses[last]
        better = replace(analysis, metrics=replace(analysis.metrics, R_raw=1.0))
        screen.post_message(RunAnalysed(last, better))
        await settle(pilot)
        order = [s.id for s in screen.shown]
        table = screen.query_one("#runs-table", DataTable)
        assert [row.key.value for row in table.ordered_rows] == order
        assert order == [s.id for s in screen.visible_summaries()]
        assert order.index(last) < len(order) - 1, "it moved up with its new figures"


@pilot_test
async def test_a_run_without_a_model_shows_a_dash_wherever_its_model_is_shown(isolated_home):
    """A run whose source recorded no model showed its provider in the list's model column,
    "model unknown" in the heatmap, nothing in the contract's canon line and `–` in its detail:
    now `–` everywhere, as the detail, the Canon section and `runs list` show it."""
    from tests.run_helpers import CONTRACT_ID, install_contract

    install_contract(isolated_home)
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        provider="replay",
        model=None,
        temperature=0.5,
        n=2,
        samples=[
            SampleRecord(index=i, status="ok", response=c, code=c) for i, c in enumerate(CODES[:2])
        ],
        status=run_store.COMPLETE,
    )
    analyses.analyze_stored_run(meta.id)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#runs-table", DataTable)
        assert str(table.get_cell(meta.id, "model")) == "–"
        await open_run(pilot, meta.id)
        assert "replay/– · T 0.5" in screen_text(app)
        await pilot.press("h")
        await settle(pilot)
        assert f"{meta.id} · – · T 0.5 · N 2" in screen_text(app)
        await pilot.press("1")
        await settle(pilot)
        table = app.screen.query_one("#contracts-table", DataTable)
        ids = [str(table.get_row_at(row)[0]) for row in range(table.row_count)]
        table.move_cursor(row=ids.index(CONTRACT_ID))
        app.screen.query_one("#contract-detail").scroll_end(animate=False)
        await pilot.pause()
        detail = " ".join(line.split("▕")[-1].strip() for line in screen_text(app).splitlines())
        assert f"fixed by sample 0 of run {meta.id} (replay/–)" in detail, detail


@pilot_test
async def test_a_run_without_samples_shows_no_code_of_the_run_shown_before(isolated_home):
    """`]` from a run to one without samples (interrupted before its first) left the previous
    run's code, or its failure, in the code view, as if it were this run's."""
    from tests.run_helpers import CONTRACT_ID, install_contract

    install_contract(isolated_home)
    made = [
        run_store.create_run(
            contract_id=CONTRACT_ID,
            provider="openai",
            model="m",
            temperature=0.5,
            n=2,
            samples=[SampleRecord(index=0, status="ok", response=CODES[1], code=CODES[1])][:size],
            status=run_store.INTERRUPTED,
        )
        for size in (1, 0)
    ]
    for meta in made:
        analyses.analyze_stored_run(meta.id)
    app = SkytApp(start="runs", clock=clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        order = [s.id for s in app.screen.shown]
        screen = await open_run(pilot, made[0].id)
        assert "return 1 + x" in screen_text(app)
        await pilot.press("right_square_bracket" if order.index(made[1].id) == 1 else "left_square_bracket")  # fmt: skip
        await settle(pilot)
        assert screen.run_id == made[1].id
        shown = screen_text(app)
        assert "return 1 + x" not in shown and "sample 0 ·" not in shown, shown
        assert "This run has no samples yet." in shown
