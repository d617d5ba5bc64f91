"""Section 6, Studies: stored runs side by side by model and temperature, a chart, a comparison, export.

The runs are chosen by a filter typed in (`model=gpt-4o temperature=0,0.7`) or
by a saved study's name; their analyses and rows are computed in a worker
thread (the analyses in a child process, as the Runs section does), and
everything shown comes from `engine.studies.study_report`, as `skyt-tui study report`.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Input, Static
from textual.worker import get_current_worker

from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.ui import run_data
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.widgets.study_chart import StudyChart

if TYPE_CHECKING:  # the study's report loads numpy and scipy: when the section first computes
    from skyt_tui.engine.studies.study import Study
    from skyt_tui.engine.studies.study_report import Aggregation, Comparison, StudyRow

SHOWN_METRICS = registry.app_study_metrics()
"""The metrics `m` cycles through, as the registry marks them (`app_study`; every study metric is
in `study report --metric`)."""
COLUMNS = ("model", "T", "mean", "std", "95% CI", "contracts", "runs", "run mean", "OER=0")


class StudyComputed(Message):
    """The study's rows; with none, `stored` is how many runs the store holds (a filter's "0 of 12")."""

    def __init__(self, study: Study, rows: list[StudyRow], stored: int = 0) -> None:
        super().__init__()
        self.study, self.rows, self.stored = study, rows, stored


class StudyAggregated(Message):
    def __init__(
        self, metric: str, aggregation: Aggregation, comparison: Comparison | None
    ) -> None:
        super().__init__()
        self.metric, self.aggregation, self.comparison = metric, aggregation, comparison


class StudyProgress(Message):
    def __init__(self, line: str, error: bool = False) -> None:
        super().__init__()
        self.line, self.error = line, error


def study_from_text(text: str) -> Study:
    """A saved study's name, or `KEY=VALUE` filters separated by spaces (an empty text: every run)."""
    from skyt_tui.engine.studies.study import RunFilter, Study, load_study, parse_filter

    words = shlex.split(text)
    if len(words) == 1 and "=" not in words[0]:
        return load_study(words[0])
    run_filter = parse_filter(words) if words else RunFilter()
    return Study(name="app", filter=run_filter)


class StudiesScreen(SectionScreen):
    SECTION = "studies"
    AUTO_FOCUS = "#studies-table"
    DEFAULT_CSS = """
    #studies-table { height: auto; max-height: 14; }
    """
    BINDINGS = [
        Binding("slash", "filter", "Choose runs", key_display="/"),
        Binding("m", "metric", "Metric"),
        Binding("c", "compare", "Compare T"),
        Binding("e", "export", "Export"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.study: Study | None = None
        self.rows: list[StudyRow] = []
        self.metric = SHOWN_METRICS[0]
        self.filter_text = ""
        self.comparison: Comparison | None = None
        self.compare_wanted = False
        self.stored = 0
        """Runs in the store, counted when the study chooses none of them."""

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="studies-view", classes="section-body"):
            yield Static(id="studies-head")
            yield Input(
                placeholder="runs: model=gpt-4o temperature=0,0.7 contract=… or a saved study's name (enter)",
                id="studies-filter",
            )
            yield DataTable(id="studies-table", cursor_type="row", zebra_stripes=True)
            yield Static(id="studies-comparison")
            yield StudyChart(id="studies-chart")
        yield Static(id="studies-status")

    def on_mount(self) -> None:
        self.query_one("#studies-filter", Input).display = False
        table = self.query_one("#studies-table", DataTable)
        for column in COLUMNS:
            table.add_column(column, key=column)
        self.compute()

    def compute(self) -> None:
        try:
            study = study_from_text(self.filter_text)
        except SkytError as exc:
            self._status(Text(str(exc), style="red"))
            return
        self.comparison = None
        self.compare_wanted = False
        self._status(Text("reading runs…", style="dim"))
        self._compute(study)

    @work(thread=True, exclusive=True, group="study", exit_on_error=False)
    def _compute(self, study: Study) -> None:
        from skyt_tui.engine.runs.analysis_child import AnalysisCancelled
        from skyt_tui.engine.studies.study import RunFilter, select_runs
        from skyt_tui.engine.studies.study_report import study_rows

        worker = get_current_worker()
        try:
            ids = [meta.id for meta in select_runs(study.filter)]
            if ids:
                run_data.analysis_documents(
                    ids,
                    progress=lambda stage, done, total: self.post_message(
                        StudyProgress(
                            f"analysing {counted(len(ids), 'run')}: {stage} {done}/{total}…"
                        )
                    ),
                    cancelled=lambda: worker.is_cancelled,
                )
            if worker.is_cancelled:
                return
            self.post_message(
                StudyProgress(f"computing the metrics of {counted(len(ids), 'run')}…")
            )
            rows = study_rows(study) if ids else []
            stored = 0 if ids else len(select_runs(RunFilter()))
        except AnalysisCancelled:
            return
        except SkytError as exc:
            self.post_message(StudyProgress(f"study failed: {exc}", error=True))
            return
        if not worker.is_cancelled:
            self.post_message(StudyComputed(study, rows, stored))

    def on_study_progress(self, message: StudyProgress) -> None:
        self._status(Text(message.line, style="red" if message.error else "dim"))

    def on_study_computed(self, message: StudyComputed) -> None:
        self.study, self.rows, self.stored = message.study, message.rows, message.stored
        self._status(Text(""))
        self.refresh_view()

    def refresh_view(self) -> None:
        """Aggregate (and compare) in a worker: on 1,000 runs the bootstrap and the tests take a while."""
        if not self.rows:
            self.show(None)
            return
        self._aggregate(self.rows, self.metric, self.compare_wanted)

    @work(thread=True, exclusive=True, group="study-table", exit_on_error=False)
    def _aggregate(self, rows: list[StudyRow], metric: str, compare_wanted: bool) -> None:
        from skyt_tui.engine.studies.study_report import aggregate, compare

        aggregation = aggregate(rows, metric)
        comparison = None
        temperatures = sorted({r.temperature for r in rows if r.temperature is not None})
        if compare_wanted and len(temperatures) >= 2:
            low, high = f"{temperatures[0]:g}", f"{temperatures[-1]:g}"
            comparison = compare(rows, metric, "temperature", low, high)
        if not get_current_worker().is_cancelled:
            self.post_message(StudyAggregated(metric, aggregation, comparison))

    def on_study_aggregated(self, message: StudyAggregated) -> None:
        if message.metric == self.metric:
            self.comparison = message.comparison
            self.show(message.aggregation)

    def show(self, aggregation: Aggregation | None) -> None:
        head = self.query_one("#studies-head", Static)
        table = self.query_one("#studies-table", DataTable)
        chart = self.query_one("#studies-chart", StudyChart)
        table.clear()
        if not self.rows or aggregation is None:
            head.update(self._no_runs_text())
            chart.set_data("", (), {})
            self.query_one("#studies-comparison", Static).update("")
            return
        chosen = self.filter_text or "every stored run"
        partial = sum(group.partial_runs for group in aggregation.groups)
        head.update(
            Text.assemble(
                (f"{self.metric}", "bold"),
                f" · {counted(len(self.rows), 'run')} · {counted(len(aggregation.contracts), 'contract')} · ",
                (chosen, "dim"),
                (
                    f"  ~ the mean includes {counted(partial, 'partial run')} (interrupted: fewer "
                    "samples than asked for)"
                    if partial
                    else "",
                    "yellow",
                ),
            )
        )
        for group in aggregation.groups:
            table.add_row(
                Text(printable(group.model)),
                "–" if group.temperature is None else f"{group.temperature:g}",
                ("~" if group.partial_runs else "") + fmt3(group.mean),
                fmt3(group.std),
                "–" if group.ci is None else f"[{fmt3(group.ci[0])}, {fmt3(group.ci[1])}]",
                str(group.n_contracts),
                str(group.n_runs),
                fmt3(group.mean_runs),
                fmt3(group.zero_equal_share),
            )
        temperatures = sorted(
            {g.temperature for g in aggregation.groups if g.temperature is not None}
        )
        series: dict[str, list[float | None]] = {}
        for trend in aggregation.trends:
            means = dict(zip(trend.temperatures, trend.means))
            series[printable(trend.model)] = [means.get(t) for t in temperatures]
        chart.set_data(
            f"{self.metric} against temperature (mean over contracts)", temperatures, series
        )
        self._show_comparison()

    def _nothing_chosen(self) -> str:
        """Why the study has no runs, in a few words (after "No runs chosen: ")."""
        if self.study is None:
            return "the runs are still being read."
        if not self.stored:
            return "the store has none."
        return f"none of the {counted(self.stored, 'stored run')} matches {self.filter_text!r}."

    def _no_runs_text(self) -> Text:
        if self.study is not None and not self.stored:
            return Text(
                "No runs stored yet. A study puts stored runs side by side by model and temperature: "
                "`skyt-tui demo` loads example runs, `skyt-tui run` or `skyt-tui import` adds yours.",
                style="dim",
            )
        if self.filter_text:  # as the Runs list says of its filter
            saved = self.study is not None and self.study.name == self.filter_text
            return Text.assemble(
                (
                    f"{'study' if saved else 'filter'} {self.filter_text!r}: "
                    f"0 of {counted(self.stored, 'stored run')} match. ",
                    "bold",
                ),
                (
                    "Press / to change it (empty: every stored run), or type a saved study's name.",
                    "dim",
                ),
            )
        return Text(
            "No runs chosen. Press / and type a filter (model=… temperature=… contract=…) or a saved "
            "study's name; `skyt-tui study create` saves one.",
            style="dim",
        )

    def _show_comparison(self) -> None:
        target = self.query_one("#studies-comparison", Static)
        comparison = self.comparison
        if comparison is None:
            target.update(
                Text("c compares the lowest and highest temperature per model.", style="dim")
            )
            return
        text = Text(
            f"{comparison.metric}: T={comparison.a} vs T={comparison.b}, Wilcoxon signed-rank paired over "
            "contracts, Holm-corrected\n",
            style="bold",
        )
        if not comparison.paired:
            text.append("no model has runs at both temperatures", style="dim")
        for c in comparison.paired:
            model = c.a.rsplit(" ", 1)[0]
            text.append(
                f"{model}: n={c.n} ({c.n_nonzero} {'differs' if c.n_nonzero == 1 else 'differ'}) · {fmt3(c.mean_a)} vs {fmt3(c.mean_b)} · "
                f"r_rb {c.rank_biserial:+.2f} · p {c.p_value:.2g} · Holm {c.p_holm:.2g}\n"
            )
        target.update(text)

    def action_metric(self) -> None:
        if not self.rows:
            self.notify(f"No runs chosen: {self._nothing_chosen()}", timeout=3, markup=False)
            return
        self.metric = SHOWN_METRICS[(SHOWN_METRICS.index(self.metric) + 1) % len(SHOWN_METRICS)]
        self.refresh_view()

    def action_compare(self) -> None:
        if not self.rows:
            self.notify(f"No runs chosen: {self._nothing_chosen()}", timeout=3, markup=False)
            return
        temperatures = {r.temperature for r in self.rows} - {None}
        if len(temperatures) < 2:
            self.notify("A comparison needs runs at two temperatures or more.", severity="warning")
            return
        self.compare_wanted = True
        self.refresh_view()

    def action_filter(self) -> None:
        field = self.query_one("#studies-filter", Input)
        field.display = True
        field.value = self.filter_text
        field.focus()

    @on(Input.Submitted, "#studies-filter")
    def apply_filter(self, event: Input.Submitted) -> None:
        self.filter_text = event.value.strip()
        event.input.display = False
        self.query_one("#studies-table", DataTable).focus()
        self.compute()

    def on_key(self, event: Any) -> None:
        field = self.query_one("#studies-filter", Input)
        if event.key == "escape" and field.display:
            field.display = False
            self.query_one("#studies-table", DataTable).focus()
            event.stop()

    def action_export(self) -> None:
        """The summary CSV (one row per run) and the JSON report, as `study report --csv/--json` write them."""
        if not self.rows or self.study is None:
            self.notify(f"No runs chosen: {self._nothing_chosen()}", timeout=3, markup=False)
            return
        import json

        from skyt_tui.engine.runs.report import envelope, json_safe
        from skyt_tui.engine.store import atomic_write_text
        from skyt_tui.engine.studies.study_report import aggregate, report_dict, summary_csv

        app: Any = self.app
        directory = Path(getattr(app, "export_dir", None) or Path.cwd())
        stem = directory / f"study-{self.study.name}"
        aggregation = aggregate(self.rows, self.metric)
        comparisons = [self.comparison] if self.comparison is not None else []
        document = envelope(
            "study_report", report_dict(self.study, self.rows, aggregation, comparisons)
        )
        try:
            atomic_write_text(stem.with_suffix(".csv"), summary_csv(self.rows))
            atomic_write_text(
                stem.with_suffix(".json"),
                json.dumps(json_safe(document), indent=2, sort_keys=True, ensure_ascii=False)
                + "\n",
            )
        except OSError as exc:
            self.notify(f"Export failed: {exc}", severity="error", markup=False)
            return
        self.notify(f"Wrote {stem}.csv and {stem}.json", markup=False)

    def action_reload(self) -> None:
        self.compute()

    def _status(self, text: Text) -> None:
        self.query_one("#studies-status", Static).update(text)
