"""Section 2, Runs: every stored run with its key metrics, filled in as the analyses arrive.

The list appears at once from the run files; a worker then reads each cached
analysis (and has a child process analyse the rest in one sandboxed batch,
see engine/runs/analysis_child.py) and posts it back, so metrics appear row by row
and the screen never waits on the analysis.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import ContentSwitcher, DataTable, Input, Static
from textual.worker import Worker, get_current_worker

from skyt_tui.engine.demo import DEMO_LABEL
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.analysis_child import AnalysisCancelled
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.run_store import RUNNING, RunSummary
from skyt_tui.ui import run_data, run_form, store_watch
from skyt_tui.ui.fuzzy import near_note, ranked_matches
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
    short_id,
    sort_key,
    state_cell,
    temperature,
)
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.empty_state import EmptyState

DEMO = ("skyt-tui demo", "loads example contracts, runs, canons and a benchmark")
RUN = (
    "skyt-tui run CONTRACT --provider openai --model gpt-4o-mini",
    "generates, checks and stores a run",
)
METRIC_COLUMNS = tuple(metric.header for metric in registry.app_columns())
"""The metric columns' headers (`measure.registry`: the metrics marked `app`)."""
WATCH_INTERVAL_S = 1.0
"""How often the store is looked at for runs written elsewhere (stat calls only)."""
FIRST_ROWS = 40
"""Runs read before the list first shows (a screenful); the others follow `ROWS_CHUNK` at a time."""
ROWS_CHUNK = 250
RESTART_AFTER_S = 10.0
"""An analysis under way is restarted for runs it lacks (new or changed) once it has run this long."""


COLUMNS: tuple[tuple[str, str], ...] = (
    ("when", "created"),
    ("contract", "contract"),
    ("model", "model"),
    ("state", "state"),
    ("N", "N"),
    ("T", "T"),
    *((name, name) for name in METRIC_COLUMNS),
)
"""(key, header) in display order."""
_RANKED = (
    "contract",
    "model",
    "T",
    "state",
    "N",
    "R_raw",
    "R_anchor",
    "pass",
    "comply",
    "μ",
    "P_τ",
    "rescue",
)
PRIORITY = (
    *_RANKED,
    *(header for header in METRIC_COLUMNS if header not in _RANKED),
    "when",
)
"""Which columns a narrow terminal keeps first: columns are left out whole, never cut mid-number
(a metric column not ranked here comes after the ranked ones). What tells runs apart (contract,
model, temperature) is dropped last, so two runs never look alike; the sorted column is never
dropped (`choose_columns`)."""
METRIC_WIDTHS = {metric.header: 11 if metric.pair else 5 for metric in registry.app_columns()}
"""Cells of 3 decimals (`pre→post` for a metric shown with its pair)."""
IF_RULES = frozenset(m.header for m in registry.app_columns() if m.app_if_rules)
"""Metric columns shown only while a listed run's contract has coding rules (compliance)."""


def has_coding_rules(summary: RunSummary) -> bool:
    """Does the run's contract (its stored snapshot) judge compliance with coding rules?"""
    contract = summary.meta.contract if summary.meta is not None else None
    constraints = (contract or {}).get("constraints")
    return isinstance(constraints, dict) and any(
        constraints.get(key) for key in ("coding_rules", "required_patterns", "forbidden_patterns")
    )


MODEL_WIDTH = 18


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cell_width(cell: Any) -> int:
    return (
        Text(cell).cell_len if isinstance(cell, str) else getattr(cell, "cell_len", len(str(cell)))
    )


def choose_columns(
    width: int,
    rows: list[dict[str, Any]],
    sort_column: str | None = None,
    with_rules: bool = False,
) -> list[str]:
    """The columns that fit `width` cells, by priority, in display order (each cell has one space each
    side); the column the list is sorted by comes right after the contract, so it is never left out."""
    needed = {}
    absent = set() if with_rules else set(IF_RULES)
    for key, header in COLUMNS:
        widest = max((cell_width(row[key]) for row in rows), default=0)
        if key in METRIC_WIDTHS:
            widest = max(widest, METRIC_WIDTHS[key] + 1)  # room for the partial mark
        arrow = 2 if key == sort_column else 0
        needed[key] = max(widest, Text(header).cell_len + arrow) + 2
    chosen: set[str] = set()
    used = 0
    ranked = [PRIORITY[0], *((sort_column,) if sort_column in needed else ()), *PRIORITY[1:]]
    for key in dict.fromkeys(ranked):
        if key in absent:
            continue
        if used + needed[key] <= width or not chosen:
            chosen.add(key)
            used += needed[key]
    return [key for key, _ in COLUMNS if key in chosen]


class RunsListed(Message):
    """Run summaries read so far, newest first; `snapshot` is set once every run is read."""

    def __init__(
        self,
        summaries: list[RunSummary],
        snapshot: store_watch.StoreSnapshot | None = None,
        changed: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__()
        self.summaries, self.snapshot, self.changed = summaries, snapshot, changed

    @property
    def complete(self) -> bool:
        return self.snapshot is not None


class StoreChanged(Message):
    def __init__(self, snapshot: store_watch.StoreSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class RunAnalysed(Message):
    def __init__(self, run_id: str, analysis: StoredAnalysis) -> None:
        super().__init__()
        self.run_id, self.analysis = run_id, analysis


class AnalysisProgress(Message):
    def __init__(
        self, line: str, done: bool = False, error: bool = False, runs: list[str] | None = None
    ) -> None:
        super().__init__()
        self.line, self.done, self.error, self.runs = line, done, error, runs or []


class RunsTable(DataTable):
    """The runs list; enter opens the run under the cursor (shown in the footer, in order with the arrow keys)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]


class RunsScreen(SectionScreen):
    SECTION = "runs"
    BINDINGS = [
        Binding("h", "heatmap", "Heatmap"),
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("s", "sort", "Sort", show=False),
        Binding("e", "export", "Export…"),
        Binding("r", "resume", "Resume"),
        Binding("a", "again", "Run again", show=False),
        Binding("x,delete", "delete", "Delete…", key_display="x"),
        Binding("c", "cancel_run", "Cancel run"),
        Binding("ctrl+r", "reload", "Reload", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[RunSummary] = []
        self.analyses: dict[str, StoredAnalysis] = {}
        self.snapshot: store_watch.StoreSnapshot | None = None
        """The store as last read whole; None until the first read ends."""
        self.listing = False
        self.analysing: set[str] | None = None
        """The runs of the analysis under way, or None."""
        self.analysis_worker: Worker[None] | None = None
        self.batch_reported: set[str] = set()
        """Runs of the batch under way whose analysis has come (a canon it wrote may make it stale)."""
        self.analysis_started = 0.0
        self.analysis_behind = False
        self.unanalysable: set[str] = set()
        """Runs whose analysis failed, not tried again until their files change."""
        self.shown: list[RunSummary] = []
        """The rows of the table, in order: the filtered, sorted summaries."""
        self.columns: list[str] = []
        self.sort_column: str | None = None
        self.sort_reverse = False
        self.run_filter = ""
        self.n_exact = 0
        """How many of the rows shown match the filter exactly (the rest are near matches)."""

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
                yield Input(
                    placeholder="filter: contract, model, state, id… (esc clears)", id="runs-filter"
                )
                yield Static(id="runs-filter-note")
                yield RunsTable(id="runs-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="run-summary")
        yield Static(id="runs-status")

    def on_mount(self) -> None:
        self.query_one("#runs-filter", Input).display = False
        self.query_one("#runs-filter-note", Static).display = False
        self.reload()
        self.set_interval(WATCH_INTERVAL_S, self._watch)

    def on_screen_resume(self) -> None:
        self._watch()
        table = self.query_one("#runs-table", DataTable)
        if self.summaries and not isinstance(self.focused, Input):
            table.focus()  # back from a run (or from Contracts after a run): the keys work at once

    def _watch(self) -> None:
        """Poll while the list is shown (back on screen it polls at once), also while runs are
        being analysed: a run written elsewhere shows as a row at once."""
        if self.snapshot is not None and not self.listing and self.is_current:
            self._poll(self.snapshot)

    @work(thread=True, exclusive=True, group="runs-watch", exit_on_error=False)
    def _poll(self, before: store_watch.StoreSnapshot) -> None:
        snapshot = store_watch.store_snapshot()
        if snapshot != before:
            self.post_message(StoreChanged(snapshot))

    def on_store_changed(self, message: StoreChanged) -> None:
        """A run was written (by this app, the CLI or another process) or a canon changed: the runs it
        touched are read and analysed again; the others keep their rows and metrics."""
        if self.snapshot is None or message.snapshot == self.snapshot or self.listing:
            return
        self.reload(message.snapshot)

    def reload(self, snapshot: store_watch.StoreSnapshot | None = None) -> None:
        """Read the runs again: every run the first time (or after ctrl+r), else those whose files
        changed since the last read; the list shows as soon as a screenful is read."""
        self.listing = True
        if not self.summaries:
            self._status(Text("reading runs…", style="dim"))
        known = {s.id: s for s in self.summaries} if self.snapshot is not None else {}
        self._list(self.snapshot if known else None, snapshot, known)

    @work(thread=True, exclusive=True, group="runs-list", exit_on_error=False)
    def _list(
        self,
        before: store_watch.StoreSnapshot | None,
        snapshot: store_watch.StoreSnapshot | None,
        known: dict[str, RunSummary],
    ) -> None:
        snapshot = snapshot or store_watch.store_snapshot()
        ids = run_data.listed_run_ids()
        if before is None:
            changed = set(ids)
        else:
            changed = {
                i for i in ids if i not in known or snapshot.runs.get(i) != before.runs.get(i)
            }
        kept = {i: known[i] for i in ids if i in known and i not in changed}
        stale = snapshot.changed_runs(before) if before is not None else set(ids)
        pending = [i for i in ids if i in changed]
        read: list[RunSummary] = []
        worker = get_current_worker()
        size = FIRST_ROWS
        while pending:
            chunk, pending = pending[:size], pending[size:]
            read += run_data.run_summaries(chunk)
            if worker.is_cancelled:
                return
            if pending:  # what is read so far shows at once; the rest follows
                self.post_message(RunsListed(run_data.newest_first([*kept.values(), *read])))
            size = ROWS_CHUNK
        # handed over before this worker ends, so the analyses it starts follow with no moment
        # in which the screen looks idle
        self.app.call_from_thread(
            self.on_runs_listed,
            RunsListed(run_data.newest_first([*kept.values(), *read]), snapshot, frozenset(stale)),
        )

    def on_runs_listed(self, message: RunsListed) -> None:
        self.summaries = message.summaries
        if message.complete:
            self.snapshot = message.snapshot
            self.listing = False
            for run_id in message.changed:  # their metrics are no longer true: computed again
                self.analyses.pop(run_id, None)
                self.unanalysable.discard(run_id)
        self.query_one(ContentSwitcher).current = (
            "runs-view" if self.summaries or not message.complete else "runs-empty"
        )
        self.fill_table()
        typing = isinstance(self.focused, Input) and self.focused.display
        if self.summaries and not typing:  # never take the keys from a filter being typed
            self.query_one("#runs-table", DataTable).focus()
        self.refresh_bindings()
        if message.complete:
            self._want_analysis()

    def _want_analysis(self) -> None:
        """Analyse the runs shown without metrics, newest first. A batch under way goes on unless
        it lacks runs and has run `RESTART_AFTER_S`: then it is restarted with them first (what it
        finished is kept), so a run that keeps changing cannot starve the others."""
        listed = {s.id for s in self.summaries if s.meta is not None}
        self.analyses = {k: v for k, v in self.analyses.items() if k in listed}
        missing = [
            s.id
            for s in self.summaries
            if s.meta is not None and s.id not in self.analyses and s.id not in self.unanalysable
        ]
        if not missing:
            if self.analysing is None:
                self._analysis_done()
            return
        if self.analysing is not None:
            if set(missing) <= self.analysing - self.batch_reported:
                return
            if time.monotonic() - self.analysis_started < RESTART_AFTER_S:
                self.analysis_behind = True
                return
        self._stop_analysis()  # a batch that lacks runs (what it finished is kept)
        self.analysing = set(missing)
        self.batch_reported = set()
        self.analysis_behind = False
        self.analysis_started = time.monotonic()
        self._status(Text(f"analysing {counted(len(missing), 'run')}…", style="dim"))
        self.analysis_worker = self._analyse(missing)

    def _stop_analysis(self) -> None:
        """Cancel the batch under way, if any. Only this cancels one: a batch that has said it is done
        may still be returning when the next starts, and is left to end by itself."""
        if self.analysing is not None and self.analysis_worker is not None:
            self.analysis_worker.cancel()
        self.analysis_worker = None

    @work(thread=True, group="runs-analysis", exit_on_error=False)
    def _analyse(self, run_ids: list[str]) -> None:
        def progress(stage: str, done: int, total: int) -> None:
            self.post_message(AnalysisProgress(f"{stage} {done}/{total}"))

        worker = get_current_worker()
        try:
            run_data.analyze_runs(
                run_ids,
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
                on_result=lambda run_id, analysis: self.post_message(RunAnalysed(run_id, analysis)),
            )
        except AnalysisCancelled:
            return
        except SkytError as exc:
            self.post_message(
                AnalysisProgress(f"analysis failed: {exc}", done=True, error=True, runs=run_ids)
            )
        else:
            self.post_message(AnalysisProgress("", done=True, runs=run_ids))

    @property
    def with_rules(self) -> bool:
        return any(has_coding_rules(summary) for summary in self.shown)

    def row_cells(self, summary: RunSummary) -> dict[str, Any]:
        meta = summary.meta
        if meta is None:
            cells: dict[str, Any] = {key: "–" for key, _ in COLUMNS}
            cells["contract"] = Text(f"{summary.id} (damaged)", style="bold red")
            cells["state"] = state_cell(summary)
            return cells
        cells = {
            "when": meta.created[5:16].replace("T", " "),
            "contract": Text(short_id(meta.contract_id)),
            "model": Text(clip(printable(meta.model or "–"), MODEL_WIDTH)),
            "state": state_cell(summary),
            "N": n_cell(summary),
            "T": temperature(meta.temperature),
        }
        cells.update(zip(METRIC_COLUMNS, metric_cells(self.analyses.get(summary.id), meta.n)))
        return cells

    def visible_summaries(self) -> list[RunSummary]:
        """The runs the filter lets through, in the chosen order (newest first by default)."""
        shown, self.n_exact = ranked_matches(
            self.summaries,
            self.run_filter,
            lambda s: " ".join([*(str(c) for c in self.row_cells(s).values()), s.id]),
        )
        if self.sort_column is not None:
            shown.sort(
                key=lambda s: sort_key(self.sort_column or "", s, self.analyses.get(s.id)),
                reverse=self.sort_reverse,
            )
        return shown

    def fill_table(self) -> None:
        """(Re)build the table: the columns that fit the width, the rows the filter lets through."""
        table = self.query_one("#runs-table", DataTable)
        selected = self.selected_summary()
        self.shown = self.visible_summaries()
        rows = {s.id: self.row_cells(s) for s in self.shown}
        width = (self.size.width or self.app.size.width) - 2  # the scrollbar
        self.columns = choose_columns(width, list(rows.values()), self.sort_column, self.with_rules)
        table.clear(columns=True)
        for key in self.columns:
            label = dict(COLUMNS)[key]
            if key == self.sort_column:
                label += " ▼" if self.sort_reverse else " ▲"
            table.add_column(label, key=key)
        for summary in self.shown:
            table.add_row(*(rows[summary.id][key] for key in self.columns), key=summary.id)
        if selected is not None and selected.id in rows:
            table.move_cursor(row=table.get_row_index(selected.id))
        self._head()
        self._filter_note()
        self.show_selected()

    def _head(self) -> None:
        n_demo = sum(run_data.is_demo(s.meta) for s in self.summaries)
        order = "newest first" if self.sort_column is None else "sorted"
        count = counted(len(self.summaries), "run") + (" read so far…" if self.listing else "")
        head = Text(
            f"{count}, {order} · level {run_data.LEVEL} · 3 decimals · {PARTIAL_MARK} partial",
            style="dim",
        )
        if n_demo:
            head.append(f" · {counted(n_demo, 'demo run')}: ", style="dim")
            head.append(DEMO_LABEL, style="bold yellow")
        self.query_one("#runs-head", Static).update(head)

    def _filter_note(self) -> None:
        note = self.query_one("#runs-filter-note", Static)
        parts = []
        if self.run_filter:
            parts.append(
                f"filter {self.run_filter!r}: {len(self.shown)} of {len(self.summaries)}"
                + near_note(len(self.shown), self.n_exact)
            )
        if self.sort_column is not None:
            parts.append(
                f"sorted by {dict(COLUMNS)[self.sort_column]}"
                + (" descending" if self.sort_reverse else "")
            )
        note.update(Text(" · ".join(parts), style="dim"))
        note.display = bool(parts)

    def on_resize(self) -> None:
        if self.summaries:
            rows = [self.row_cells(s) for s in self.shown]
            width = self.size.width - 2
            if choose_columns(width, rows, self.sort_column, self.with_rules) != self.columns:
                self.fill_table()

    def on_run_analysed(self, message: RunAnalysed) -> None:
        self.analyses[message.run_id] = message.analysis
        self.batch_reported.add(message.run_id)
        table = self.query_one("#runs-table", DataTable)
        summary = next((s for s in self.summaries if s.id == message.run_id), None)
        requested = summary.meta.n if summary is not None and summary.meta is not None else None
        if message.run_id in table.rows:
            if self.sort_column is not None and [s.id for s in self.visible_summaries()] != [
                s.id for s in self.shown
            ]:  # its new figures move it: the list stays in the order it says it is in
                self.fill_table()
                return
            for column, value in zip(METRIC_COLUMNS, metric_cells(message.analysis, requested)):
                if column in self.columns:
                    table.update_cell(message.run_id, column, value, update_width=True)
        selected = self.selected_summary()
        if selected is not None and selected.id == message.run_id:
            self.show_selected()

    def on_analysis_progress(self, message: AnalysisProgress) -> None:
        if not message.done:
            if self.analysis_behind and time.monotonic() - self.analysis_started >= RESTART_AFTER_S:
                self._want_analysis()
            waiting = sum(
                1 for s in self.summaries if s.meta is not None and s.id not in self.analyses
            )
            self._status(
                Text(
                    f"{counted(len(self.analyses), 'run', of=len(self.summaries))} analysed, "
                    f"{waiting} to go ({message.line})…",
                    style="dim",
                )
            )
            return
        if set(message.runs) != (self.analysing or set()):
            return  # a batch that was restarted
        self.analysing = self.analysis_worker = None
        if message.error:
            self.unanalysable |= {r for r in message.runs if r not in self.analyses}
            self._status(Text(message.line, style="bold red"))
            self.notify(message.line, severity="error", markup=False)
        self._want_analysis()

    def _analysis_done(self) -> None:
        if any(s.id in self.unanalysable for s in self.summaries):
            return  # the error line stays
        isolations = {run_data.isolation(a) for a in self.analyses.values()} - {None}
        status = Text(
            f"{counted(len(self.analyses), 'run', of=len(self.summaries))} analysed · ", style="dim"
        )
        status.append_text(
            isolation_text("reduced" if "reduced" in isolations else next(iter(isolations), None))
        )
        self._status(status)

    def _status(self, text: Text) -> None:
        self.query_one("#runs-status", Static).update(text)

    def selected_summary(self) -> RunSummary | None:
        if not self.shown or not self.is_mounted:
            return None
        row = self.query_one("#runs-table", DataTable).cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def action_sort(self) -> None:
        """Cycle the sort: each shown column ascending, then descending, then back to newest first."""
        if self.sort_column is None:
            self.sort_column, self.sort_reverse = self.columns[0], False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            position = (
                self.columns.index(self.sort_column) if self.sort_column in self.columns else -1
            )
            following = self.columns[position + 1 :]
            self.sort_column, self.sort_reverse = (following[0] if following else None), False
        self.fill_table()

    @on(DataTable.HeaderSelected, "#runs-table")
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        column = str(event.column_key.value)
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False
        self.fill_table()

    def action_filter(self) -> None:
        if self.query_one(ContentSwitcher).current == "runs-empty":  # the box is not on screen
            self.notify("No runs to filter yet: the store has none.", timeout=3)
            return
        box = self.query_one("#runs-filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#runs-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.run_filter = event.value.strip()
        self.fill_table()

    @on(Input.Submitted, "#runs-filter")
    def _filter_done(self) -> None:
        self.query_one("#runs-table", DataTable).focus()

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#runs-filter", Input)
        # esc clears the filter being typed, and an applied one too (then esc means what it did)
        if event.key == "escape" and (box.has_focus or (box.display and box.value)):
            event.stop()
            box.value = ""
            box.display = False
            self.query_one("#runs-table", DataTable).focus()

    @on(DataTable.RowHighlighted, "#runs-table")
    def _highlighted(self) -> None:
        self.show_selected()
        self.refresh_bindings()  # resume and delete depend on the run

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
                f"\nmetrics are partial ({PARTIAL_MARK}): {analysed_count(analysis)} of {counted(meta.n, 'sample')}"
                + (", the run is still generating" if state == "running" else ""),
                style="yellow",
            )
        elif analysis.metrics.canon != "established":
            text.append(
                f"\nno canon: anchor metrics not computed ({analysis.canon.reason})",
                style="yellow",
            )
        panel.update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        summary = self.selected_summary()
        if action in ("open_run", "heatmap", "export", "again"):
            return summary is not None and summary.meta is not None
        if action == "resume":
            return summary is not None and run_data.resumable(summary)
        if action == "delete":
            return summary is not None and summary.state != RUNNING
        if (
            action == "cancel_run"
        ):  # a run this app generates (one another process writes is its own)
            cancel = self.app.run_cancel
            return cancel is not None and not cancel.is_set()
        return True

    def action_cancel_run(self) -> None:
        if self.app.run_cancel is not None and not self.app.run_cancel.is_set():
            self.app.run_cancel.set()
            if self.app.run_cancelling is not None:
                self.app.run_cancelling()
            self.notify(
                "Cancelling the run: requests in flight are given up within a second.", timeout=3
            )
            self.refresh_bindings()

    def action_resume(self) -> None:
        summary = self.selected_summary()
        if summary is not None and run_data.resumable(summary):  # here: its row follows it
            self.app.call_later(self.app.start_run_request, run_form.resume_request(summary), False)

    def action_again(self) -> None:
        summary = self.selected_summary()
        if summary is None or summary.meta is None:
            return
        request = run_form.rerun_request(summary.meta)
        refused = run_form.not_again(request, summary.id)
        if refused:
            self.notify(refused, severity="warning", markup=False)
            return
        self.app.call_later(self.app.start_run_request, request, False)

    def action_delete(self) -> None:
        summary = self.selected_summary()
        if summary is None or summary.state == RUNNING:
            return
        body = Text()
        body.append(f"Delete run {summary.id}", style="bold")
        if summary.meta is not None:
            body.append(f" ({summary.meta.contract_id}, {counted(summary.n_ok + summary.n_failed, 'sample')})")  # fmt: skip
        body.append(
            "?\n\nIts folder is removed from the store; this cannot be undone. A canon fixed from one of its "
            "samples stays: the canon keeps its own copy of the code and names this run as its origin."
        )
        self.app.push_screen(
            ConfirmScreen("Delete run", body, confirm="Delete"),
            lambda yes: self._delete(summary.id) if yes else None,
        )

    def _delete(self, run_id: str) -> None:
        try:
            run_data.delete_run(run_id)
        except SkytError as exc:
            self.notify(f"Not deleted: {exc}", severity="error", markup=False)
            return
        self.analyses.pop(run_id, None)
        self.notify(f"Run {run_id} deleted.", markup=False)
        if not self.listing:
            self.reload()

    def action_open_run(self) -> None:
        summary = self.selected_summary()
        if summary is None or summary.meta is None:
            return
        from skyt_tui.ui.screens.run_detail import RunDetailScreen

        self.app.push_screen(
            RunDetailScreen(summary.id, self.analyses.get(summary.id), walk=self.walk_runs)
        )

    def walk_runs(self, run_id: str, step: int) -> tuple[str, StoredAnalysis | None] | None:
        """The run `step` rows from `run_id` in the list as filtered and sorted (wrapping round),
        with its analysis; the cursor moves to it, so `esc` from a detail returns to the run shown."""
        ids = [s.id for s in self.shown if s.meta is not None]
        if run_id not in ids or len(ids) < 2:
            return None
        neighbour = ids[(ids.index(run_id) + step) % len(ids)]
        table = self.query_one("#runs-table", DataTable)
        table.move_cursor(row=[s.id for s in self.shown].index(neighbour))
        return neighbour, self.analyses.get(neighbour)

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

        ask_export(self, run_data.load_run(summary.id), analysis)

    def action_reload(self) -> None:
        self.analyses.clear()
        self.unanalysable.clear()
        self.summaries = []
        self.snapshot = None
        self._stop_analysis()
        self.analysing = None
        self.reload()
