"""Section 2, Runs: every stored run with its key metrics, filled in as the analyses arrive.

The list appears at once from the run files; a worker then reads each cached
analysis (and has a child process analyse the rest in one sandboxed batch,
see engine/analysis_child.py) and posts it back, so metrics appear row by row
and the screen never waits on the analysis.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import ContentSwitcher, DataTable, Input, Static
from textual.worker import get_current_worker

from skyt_tui.engine.analysis_child import AnalysisCancelled
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.runs import RunSummary
from skyt_tui.ui import data
from skyt_tui.ui.run_text import (
    PARTIAL_MARK,
    PENDING,
    analysed_count,
    is_partial,
    isolation_text,
    label_text,
    metric_cells,
    n_cell,
    run_line,
    run_state,
    state_cell,
    temperature,
)
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.widgets.empty_state import EmptyState

DEMO = ("skyt-tui demo", "loads example contracts, runs, canons and a benchmark")
RUN = (
    "skyt-tui run CONTRACT --provider openai --model gpt-4o-mini",
    "generates, checks and stores a run",
)
METRIC_COLUMNS = ("R_raw", "R_anchor", "rescue", "μ", "P_τ", "pass")
WATCH_INTERVAL_S = 1.0
"""How often the store is looked at for runs written elsewhere (stat calls only)."""


class RunsListed(Message):
    def __init__(self, summaries: list[RunSummary]) -> None:
        super().__init__()
        self.summaries = summaries


class StoreChanged(Message):
    def __init__(self, snapshot: data.StoreSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class RunAnalysed(Message):
    def __init__(self, run_id: str, analysis: dict[str, Any]) -> None:
        super().__init__()
        self.run_id, self.analysis = run_id, analysis


class AnalysisProgress(Message):
    def __init__(self, line: str, done: bool = False, error: bool = False) -> None:
        super().__init__()
        self.line, self.done, self.error = line, done, error


class RunsTable(DataTable):
    """The runs list; enter opens the run under the cursor (shown in the footer, in order with the arrow keys)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]


class RunsScreen(SectionScreen):
    SECTION = "runs"
    BINDINGS = [
        Binding("h", "heatmap", "Heatmap"),
        Binding("e", "export", "Export…"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[RunSummary] = []
        self.analyses: dict[str, dict[str, Any]] = {}
        self.snapshot: data.StoreSnapshot | None = None
        self.loading = False

    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="runs-view", id="runs-switcher"):
            with VerticalScroll(id="runs-empty", classes="section-body"):
                yield EmptyState(
                    "No runs yet",
                    [
                        "Runs lists every stored run with its key metrics — R_raw, R_anchor before → after repair, rescue "
                        "rate, μ, P_τ and pass rate — and opens a run: each sample's verdict, signature, d_pre and d_post "
                        "and repair steps, its code, and its diff against the canon before and after repair."
                    ],
                    [DEMO, RUN, ("or press 1, pick a contract, press r", "")],
                )
            with Vertical(id="runs-view"):
                yield Static(id="runs-head")
                yield RunsTable(id="runs-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="run-summary")
        yield Static(id="runs-status")

    def on_mount(self) -> None:
        table = self.query_one("#runs-table", DataTable)
        for name in ("run", "state", "N", "T", *METRIC_COLUMNS):
            table.add_column(name, key=name)
        self.reload()
        self.set_interval(WATCH_INTERVAL_S, self._watch)

    def on_screen_resume(self) -> None:
        self._watch()
        table = self.query_one("#runs-table", DataTable)
        if self.summaries and not isinstance(self.focused, Input):
            table.focus()  # back from a run (or from Contracts after a run): the keys work at once

    def _watch(self) -> None:
        if (
            self.snapshot is not None and not self.loading
        ):  # changes meanwhile are seen after the load
            self._poll(self.snapshot)

    @work(thread=True, exclusive=True, group="runs-watch", exit_on_error=False)
    def _poll(self, before: data.StoreSnapshot) -> None:
        snapshot = data.store_snapshot()
        if snapshot != before:
            self.post_message(StoreChanged(snapshot))

    def on_store_changed(self, message: StoreChanged) -> None:
        """A run was written (by this app, the CLI or another process) or a canon changed: the runs it
        touched are listed and analysed again; the others keep their metrics."""
        if self.snapshot is None or message.snapshot == self.snapshot:
            return
        for run_id in message.snapshot.changed_runs(self.snapshot):
            self.analyses.pop(run_id, None)
        self.reload(message.snapshot)

    def reload(self, snapshot: data.StoreSnapshot | None = None) -> None:
        self.snapshot = snapshot or data.store_snapshot()
        self.loading = True
        self._status(Text("reading runs…", style="dim"))
        self._load(set(self.analyses))

    @work(thread=True, exclusive=True, group="runs-load", exit_on_error=False)
    def _load(self, known: set[str]) -> None:
        summaries = data.list_runs()
        self.post_message(RunsListed(summaries))
        readable = [s.id for s in summaries if s.meta is not None and s.id not in known]
        if not readable:
            self.post_message(AnalysisProgress("", done=True))
            return

        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(AnalysisProgress(f"analysing runs: {stage} {done}/{total}…"))

        worker = get_current_worker()
        try:
            data.analyze_runs(
                readable,
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
                on_result=lambda run_id, analysis: self.post_message(RunAnalysed(run_id, analysis)),
            )
        except AnalysisCancelled:
            return
        except SkytError as exc:
            self.post_message(AnalysisProgress(f"analysis failed: {exc}", done=True, error=True))
        else:
            self.post_message(AnalysisProgress("", done=True))

    def on_runs_listed(self, message: RunsListed) -> None:
        table = self.query_one("#runs-table", DataTable)
        selected = self.selected_summary()
        self.summaries = message.summaries
        self.query_one(ContentSwitcher).current = "runs-view" if self.summaries else "runs-empty"
        table.clear()
        for summary in self.summaries:
            meta = summary.meta
            if meta is None:
                table.add_row(
                    Text(f"{summary.id} (damaged)", style="bold red"),
                    state_cell(summary),
                    "–",
                    "–",
                    *("–",) * len(METRIC_COLUMNS),
                    key=summary.id,
                )
                continue
            table.add_row(
                Text(summary.id),
                state_cell(summary),
                n_cell(summary),
                temperature(meta.temperature),
                *metric_cells(self.analyses.get(summary.id), meta.n),
                key=summary.id,
            )
        if selected is not None and selected.id in {s.id for s in self.summaries}:
            table.move_cursor(row=table.get_row_index(selected.id))
        n_demo = sum(data.is_demo(s.meta) for s in self.summaries)
        head = Text(
            f"{len(self.summaries)} run(s), newest first · level {data.LEVEL} · 3 decimals",
            style="dim",
        )
        if n_demo:
            head.append(f" · {n_demo} demo run(s): ", style="dim")
            head.append(data.DEMO_LABEL, style="bold yellow")
        self.query_one("#runs-head", Static).update(head)
        self.show_selected()
        if self.summaries:
            table.focus()
        self.refresh_bindings()

    def on_run_analysed(self, message: RunAnalysed) -> None:
        self.analyses[message.run_id] = message.analysis
        table = self.query_one("#runs-table", DataTable)
        summary = next((s for s in self.summaries if s.id == message.run_id), None)
        requested = summary.meta.n if summary is not None and summary.meta is not None else None
        if message.run_id in table.rows:
            for column, value in zip(METRIC_COLUMNS, metric_cells(message.analysis, requested)):
                table.update_cell(message.run_id, column, value, update_width=True)
        selected = self.selected_summary()
        if selected is not None and selected.id == message.run_id:
            self.show_selected()

    def on_analysis_progress(self, message: AnalysisProgress) -> None:
        if not message.done:
            self._status(Text(message.line, style="dim"))
            return
        self.loading = False
        if message.error:
            self._status(Text(message.line, style="bold red"))
            self.notify(message.line, severity="error", markup=False)
            return
        isolations = {data.isolation(a) for a in self.analyses.values()} - {None}
        status = Text(
            f"{len(self.analyses)} of {len(self.summaries)} run(s) analysed · ", style="dim"
        )
        status.append_text(
            isolation_text("reduced" if "reduced" in isolations else next(iter(isolations), None))
        )
        self._status(status)

    def _status(self, text: Text) -> None:
        self.query_one("#runs-status", Static).update(text)

    def selected_summary(self) -> RunSummary | None:
        if not self.summaries or not self.is_mounted:
            return None
        row = self.query_one("#runs-table", DataTable).cursor_row
        return self.summaries[row] if 0 <= row < len(self.summaries) else None

    @on(DataTable.RowHighlighted, "#runs-table")
    def _highlighted(self) -> None:
        self.show_selected()

    @on(DataTable.RowSelected, "#runs-table")
    def _selected(self) -> None:
        self.action_open_run()

    def show_selected(self) -> None:
        summary = self.selected_summary()
        panel = self.query_one("#run-summary", Static)
        if summary is None:
            panel.update("")
            return
        if summary.meta is None:
            panel.update(Text(summary.error or "damaged run", style="red"))
            return
        meta = summary.meta
        text = Text()
        text.append(meta.id, style="bold")
        text.append("\n")
        text.append_text(run_line(meta))
        text.append(f" · {summary.n_ok} ok, {summary.n_failed} failed · ")
        text.append_text(state_cell(summary))
        label = label_text(meta)
        if label:
            text.append("\n")
            text.append_text(label)
        analysis = self.analyses.get(meta.id)
        state = run_state(summary)
        if analysis is None:
            text.append(f"\n{PENDING} analysing", style="dim")
        elif summary.n_ok == 0:
            text.append(
                "\nno sample produced code: no metrics (see the run's failures)", style="bold red"
            )
        elif is_partial(analysis, meta.n):
            text.append(
                f"\nmetrics are partial ({PARTIAL_MARK}): {analysed_count(analysis)} of {meta.n} samples"
                + (", the run is still generating" if state == "running" else ""),
                style="yellow",
            )
        elif analysis["metrics"].get("canon") != "established":
            text.append(
                f"\nno canon: anchor metrics not computed ({(analysis.get('canon') or {}).get('reason', '')})",
                style="yellow",
            )
        panel.update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("open_run", "heatmap", "export"):
            summary = self.selected_summary()
            return summary is not None and summary.meta is not None
        return True

    def action_open_run(self) -> None:
        summary = self.selected_summary()
        if summary is None or summary.meta is None:
            return
        from skyt_tui.ui.screens.run_detail import RunDetailScreen

        self.app.push_screen(RunDetailScreen(summary.id, self.analyses.get(summary.id)))

    def action_heatmap(self) -> None:
        summary = self.selected_summary()
        if summary is not None and summary.meta is not None:
            self.app.show_heatmap(summary.id)

    def action_export(self) -> None:
        summary = self.selected_summary()
        if summary is None or summary.meta is None:
            return
        analysis = self.analyses.get(summary.id)
        if analysis is None:
            self.notify(
                "This run is still being analysed; export it when its metrics are shown.",
                severity="warning",
            )
            return
        from skyt_tui.ui.screens.export import ask_export

        ask_export(self, data.load_run(summary.id), analysis)

    def action_reload(self) -> None:
        self.analyses.clear()
        self.reload()
