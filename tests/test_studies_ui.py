"""Section 6, Studies: runs chosen by a filter, the grouped table and chart as the engine computes them,
a comparison, metric cycling, export, and 80×24."""

from __future__ import annotations

import json

from textual.widgets import DataTable

from skyt_tui.engine.runs.report import fmt3
from skyt_tui.engine.studies.study import RunFilter, Study, save_study
from skyt_tui.engine.studies.study_report import aggregate, compare, study_rows
from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.screens.studies import SHOWN_METRICS
from tests.test_studies import make_run, store_a_partial_run
from tests.ui_support import notifications, pilot_test, screen_text, settle


def store_two_models():
    for model, drift in (("alpha", 0.0), ("beta", 1.0)):
        for t in (0.0, 0.7):
            for contract in ("c1", "c2", "c3"):
                varied = t > 0 and (drift or contract != "c1")
                codes = ["a = 1"] * 3 + (["a = 2", "b = 3"] if varied else ["a = 1"] * 2)
                make_run(contract, model, t, codes)


@pilot_test
async def test_studies_section_shows_the_engines_table_chart_and_comparison(tmp_path):
    store_two_models()
    app = SkytApp(start="studies")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#studies-table", DataTable)
        rows = study_rows(Study(name="x", filter=RunFilter()))
        expected = aggregate(rows, "R_raw")
        assert table.row_count == len(expected.groups) == 4
        for index, group in enumerate(expected.groups):
            assert str(table.get_cell_at((index, 2))) == fmt3(group.mean)
        shown = screen_text(app)
        assert "R_raw against temperature" in shown and "1 alpha" in shown and "2 beta" in shown

        await pilot.press("c")
        await settle(pilot)
        comparison = compare(rows, "R_raw", "temperature", "0", "0.7")
        shown = screen_text(app)
        assert "T=0 vs T=0.7" in shown
        for c in comparison.paired:
            assert f"p {c.p_value:.2g} · Holm {c.p_holm:.2g}" in shown

        await pilot.press("m")
        await settle(pilot)
        assert f"{SHOWN_METRICS[1]} against temperature" in screen_text(app)  # the registry's next

        app.export_dir = tmp_path
        await pilot.press("e")
        await settle(pilot)
        assert any("study-app.csv" in note for note in notifications(app))
        document = json.loads((tmp_path / "study-app.json").read_text())
        assert document["kind"] == "study_report" and document["n_runs"] == 12


@pilot_test
async def test_a_filter_or_a_saved_study_chooses_the_runs(tmp_path):
    store_two_models()
    save_study(Study(name="only-beta", filter=RunFilter(models=("beta",))))
    app = SkytApp(start="studies")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#studies-table", DataTable)
        await pilot.press("slash")
        await pilot.press(*"model=alpha", "enter")
        await settle(pilot)
        assert table.row_count == 2 and "alpha" in str(table.get_cell_at((0, 0)))
        await pilot.press("slash")
        app.screen.query_one("#studies-filter").value = "only-beta"
        await pilot.press("enter")
        await settle(pilot)
        assert table.row_count == 2 and "beta" in str(table.get_cell_at((0, 0)))
        await pilot.press("slash")
        app.screen.query_one("#studies-filter").value = "colour=red"
        await pilot.press("enter")
        await settle(pilot)
        assert "--filter 'colour=red'" in screen_text(app)


@pilot_test
async def test_studies_fits_80_by_24_and_says_what_to_do_without_runs():
    app = SkytApp(start="studies")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        assert "6 Studies" in lines[0]
        assert "No runs stored yet" in screen_text(app) and "skyt-tui demo" in screen_text(app)


@pilot_test
async def test_a_filter_that_matches_nothing_says_so_and_the_keys_say_why_they_cannot_act():
    """A filter matching no run said "No runs chosen. Press / and type a filter…", as if none
    had been typed (and on an empty store the same, as if the filter were at fault); `m`, `c`
    and `e` then did nothing. The section now says what the Runs list says of its filter (how
    many of the stored runs match), an empty store says it is empty, and the keys say why."""
    app = SkytApp(start="studies")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key in "mce":
            said = len(notifications(app))
            await pilot.press(key)
            await pilot.pause()
            assert notifications(app)[said:] == ["No runs chosen: the store has none."], key
    store_two_models()
    app = SkytApp(start="studies")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"model=gamma", "enter")
        await settle(pilot)
        shown = screen_text(app)
        assert "filter 'model=gamma': 0 of 12 stored runs match" in shown, shown
        assert "No runs chosen. Press /" not in shown
        for key in "mce":
            said = len(notifications(app))
            await pilot.press(key)
            await pilot.pause()
            assert notifications(app)[said:] == [
                "No runs chosen: none of the 12 stored runs matches 'model=gamma'."
            ], key


def test_studies_snapshot_with_a_comparison(snap_compare):
    """How the section looks at 80×24: the table, the comparison, then the chart."""
    from tests.ui_support import clock

    store_two_models()

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)

    assert snap_compare(
        SkytApp(start="studies", clock=clock), terminal_size=(80, 24), run_before=run_before
    )


@pilot_test
async def test_a_mean_over_a_partial_run_is_marked_as_the_cli_marks_it():
    """The app averaged an interrupted run in without the `~` its Runs list gives it."""
    store_a_partial_run()
    app = SkytApp(start="studies")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#studies-table", DataTable)
        assert [str(table.get_cell_at((row, 2))) for row in range(2)] == ["~1.000", "0.500"]
        assert "~ the mean includes 1 partial run" in screen_text(app)
