"""One run in detail: metrics, a per-sample table with d_pre/d_post bars, and the selected sample's
code and its diff against the canon before and after repair.

The per-sample table holds one page of samples at a time (`PAGE` rows), so a run
of 10,000 samples opens as fast as one of 20; `[` and `]` turn pages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Input, Static, TabbedContent, TabPane

from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.analysis_record import (
    AnalysedSample,
    ComplianceSummary,
    OracleSummary,
    StoredAnalysis,
)
from skyt_tui.engine.runs.matrices import RunTexts
from skyt_tui.engine.runs.probe_record import StoredProbe
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.engine.runs.run_store import FAILED, SampleRecord, StoredRun
from skyt_tui.ui import probe_data, run_data, store_watch
from skyt_tui.ui.clipboard import copy_text
from skyt_tui.ui.diff_text import diff_renderable, shown_code
from skyt_tui.ui.fuzzy import near_note, ranked_matches
from skyt_tui.ui.run_text import (
    canon_text,
    compliance_text,
    distance_bar,
    isolation_text,
    label_text,
    metrics_text,
    run_line,
    temperature,
    verdict_text,
)
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.contracts import code_syntax

PAGE = 500
WATCH_INTERVAL_S = 1.0
VIEWS = ("view-code", "view-before", "view-after")
PAGE_KEYS = Binding.Group("Page", compact=True)
RUN_KEYS = Binding.Group("Run", compact=True)
"""`[`/`]` mean the previous/next run wherever a run is shown (here and in the Heatmap);
a large run's pages are `<`/`>`."""


RunWalk = Callable[[str, int], "tuple[str, StoredAnalysis | None] | None"]
"""(run shown, step) → the run `step` places away in the list the detail was opened from, with
its analysis when known (None: no other run there). The list's cursor follows."""


@dataclass(frozen=True)
class SampleRow:
    """A row of the samples table: a stored sample and, when it produced code, its analysis."""

    record: SampleRecord
    analysed: AnalysedSample | None
    level: str

    @property
    def index(self) -> int:
        return self.record.index

    @property
    def failed(self) -> bool:
        return self.record.status == FAILED

    @property
    def passed(self) -> bool | None:
        return self.analysed.facts.passed if self.analysed is not None else None

    @property
    def parse_error(self) -> bool:
        return self.analysed is not None and self.analysed.facts.parse_error

    @property
    def limited(self) -> str | None:
        """What the analysis did not do for this sample, and why (a program too long to parse,
        a distance that is a bound), if anything: it is counted all the same."""
        return self.analysed.facts.limited if self.analysed is not None else None

    @property
    def d_pre(self) -> float | None:
        return self.analysed.facts.d_pre if self.analysed is not None else None

    @property
    def d_post(self) -> float | None:
        return self.analysed.facts.d_post if self.analysed is not None else None

    @property
    def signature(self) -> str:
        """The signature at the analysis level ("" when not analysed)."""
        return self.analysed.facts.signatures.get(self.level, "") if self.analysed else ""

    @property
    def repair_steps(self) -> tuple[str, ...]:
        return self.analysed.facts.repair_steps if self.analysed is not None else ()

    @property
    def oracle(self) -> OracleSummary | None:
        return self.analysed.oracle if self.analysed is not None else None

    @property
    def compliance(self) -> ComplianceSummary | None:
        return self.oracle.compliance if self.oracle is not None else None


def sample_table_rows(run: StoredRun, analysis: StoredAnalysis) -> list[SampleRow]:
    """One row per stored sample, in the run's order."""
    return [
        SampleRow(record, analysis.sample(record.index), analysis.level) for record in run.samples
    ]


class RunLoaded(Message):
    def __init__(
        self,
        run: StoredRun | None,
        analysis: StoredAnalysis | None,
        error: str = "",
        snapshot: tuple[object, ...] = (),
    ) -> None:
        super().__init__()
        self.run, self.analysis, self.error, self.snapshot = run, analysis, error, snapshot


class ProbeReady(Message):
    """A probe of the shown run finished (`document`), or failed (`error`)."""

    def __init__(self, run_id: str, document: StoredProbe | None, error: str = "") -> None:
        super().__init__()
        self.run_id, self.document, self.error = run_id, document, error


class RunChanged(Message):
    """The run's files or a canon changed since the view was drawn."""


def verdict_cell(row: SampleRow) -> Text:
    """`✓ pass` (every test), `✓ 5/6 ≥0.8` (passed under the contract's threshold, not every
    test), `✗ 3/6 <0.8` or `✗ fail`."""
    if row.failed:
        return Text("! no code", style="bold red")
    if row.parse_error and row.limited is None:
        return Text("✗ parse", style="red")
    if row.passed is None:
        return Text("–", style="dim")
    oracle = row.oracle
    thresholded = (
        oracle is not None
        and oracle.passed_all is not None
        and oracle.tests_total
        and oracle.threshold is not None
        and oracle.threshold < 1.0
    )
    if row.passed:
        if not thresholded or (oracle is not None and oracle.passed_all):
            return Text("✓ pass", style="green")
        assert oracle is not None
        return Text(
            f"✓ {oracle.tests_passed}/{oracle.tests_total} ≥{oracle.threshold:g}", style="yellow"
        )
    if thresholded and oracle is not None and oracle.status == "ok":
        return Text(
            f"✗ {oracle.tests_passed}/{oracle.tests_total} <{oracle.threshold:g}", style="red"
        )
    return Text("✗ fail", style="red")


def rules_cell(row: SampleRow) -> Text:
    """Compliance with the contract's coding rules: `✓`, or `✗` and the broken rules."""
    compliance = row.compliance
    if compliance is None:
        return Text("–", style="dim")
    if compliance.compliant:
        return Text("✓", style="green")
    rules = [v.rule for v in compliance.violations]
    shown = rules[0] + (f" +{len(rules) - 1}" if len(rules) > 1 else "")
    return Text(f"✗ {printable(shown)}", style="red")


def steps_cell(steps: tuple[str, ...]) -> str:
    """The number of repair steps kept (their names are in the "after repair" view)."""
    return str(len(steps)) if steps else ""


SAMPLE_COLUMNS = ("#", "verdict", "sig", "d_pre", "d_post", "d_pre → d_post", "steps")
RULES_COLUMN = "rules"
"""Joins after `verdict` for a run whose contract has coding rules."""
RULES_COLUMNS = (*SAMPLE_COLUMNS[:2], RULES_COLUMN, *SAMPLE_COLUMNS[2:])


def has_rules(analysis: StoredAnalysis | None) -> bool:
    return analysis is not None and any(
        s.oracle is not None and s.oracle.compliance is not None for s in analysis.samples
    )


def sample_cells(row: SampleRow, with_rules: bool = False) -> tuple[str | Text, ...]:
    cells: tuple[str | Text, ...] = (
        str(row.index),
        verdict_cell(row),
        row.signature[:8] if row.signature else "–",
        fmt3(row.d_pre),
        fmt3(row.d_post),
        distance_bar(row.d_pre, row.d_post),
        steps_cell(row.repair_steps),
    )
    return (*cells[:2], rules_cell(row), *cells[2:]) if with_rules else cells


def sample_sort_key(name: str, row: SampleRow) -> tuple[Any, ...]:
    """Samples without a value (failed, not analysed) sort after the others (before them, descending)."""
    if name == "#":
        return (0, row.index)
    if name == "verdict":
        return (0, verdict_cell(row).plain)
    if name == RULES_COLUMN:
        return (0, rules_cell(row).plain)
    if name == "sig":
        return (0, row.signature) if row.signature else (1, "")
    if name == "steps":
        return (0, len(row.repair_steps))
    value = row.d_pre if name == "d_pre" else row.d_post
    return (0, value) if value is not None else (1, 0.0)


class RunDetailScreen(SectionScreen):
    SECTION = "runs"
    SCREEN_ID = "run-detail"
    SCOPE = "Run"
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("v", "next_view", "Code/diffs"),
        Binding("c", "copy", "Copy"),
        Binding("e", "export", "Export…"),
        Binding("h", "heatmap", "Heatmap"),
        Binding("s", "sort", "Sort samples", show=False),
        Binding("d", "toggle_diff", "Side by side", show=False),
        Binding("f", "families", "Families"),
        Binding("p", "probe", "Probe"),
        Binding("slash", "filter", "Filter samples", key_display="/", show=False),
        Binding("left_square_bracket", "run(-1)", "Previous run", key_display="[", group=RUN_KEYS),
        Binding("right_square_bracket", "run(1)", "Next run", key_display="]", group=RUN_KEYS),
        Binding("less_than_sign", "page(-1)", "Previous page", key_display="<", group=PAGE_KEYS),
        Binding("greater_than_sign", "page(1)", "Next page", key_display=">", group=PAGE_KEYS),
    ]

    def __init__(
        self, run_id: str, analysis: StoredAnalysis | None = None, walk: RunWalk | None = None
    ) -> None:
        self.run_id = run_id
        super().__init__()
        self.walk = walk
        """The previous/next run of the list the detail was opened from (`[`/`]`)."""
        self.run: StoredRun | None = None
        self.analysis = analysis
        self.all_rows: list[SampleRow] = []
        self.rows: list[SampleRow] = []
        """The rows shown: `all_rows` filtered and sorted."""
        self.columns: tuple[str, ...] = SAMPLE_COLUMNS
        """The samples table's columns: the rules column joins for a contract with coding rules."""
        self.sort_column: int | None = None
        self.sort_reverse = False
        self.sample_filter = ""
        self.n_exact = 0
        self.texts: RunTexts | None = None
        self.positions: dict[int, int] = {}
        self.tool_line: str | None = None
        """The recording tool's verdicts beside skyt-tui's, for a run imported from its file."""
        """Run sample index → position among the analysed samples (the texts' order)."""
        self.page = 0
        self.snapshot: tuple[object, ...] | None = None
        self.updating = True

    def compose_body(self) -> ComposeResult:
        yield Static(Text(f"run {self.run_id} · loading…", style="dim"), id="run-head")
        with Horizontal(id="run-body"):
            with Vertical(id="samples-pane"):
                yield Input(
                    placeholder="filter samples: index, verdict, signature… (esc clears)",
                    id="samples-filter",
                )
                yield DataTable(id="samples-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="samples-page")
            with TabbedContent(id="sample-views"):
                for view, title in zip(VIEWS, ("Code", "vs canon", "after repair")):
                    with TabPane(title, id=view):
                        with VerticalScroll():
                            yield Static(id=f"{view}-text")

    def on_mount(self) -> None:
        table = self.query_one("#samples-table", DataTable)
        for name in SAMPLE_COLUMNS:
            table.add_column(name, key=name)
        self.query_one("#samples-filter", Input).display = False
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_sample())
        self._load()
        self.set_interval(WATCH_INTERVAL_S, self._watch)

    def _watch(self) -> None:
        if self.snapshot is not None and not self.updating and self.is_current:
            self._poll(self.snapshot)

    def on_screen_resume(self) -> None:
        self._watch()

    @work(thread=True, exclusive=True, group="run-detail-watch", exit_on_error=False)
    def _poll(self, before: tuple[object, ...]) -> None:
        if store_watch.run_snapshot(self.run_id) != before:
            self.post_message(RunChanged())

    def on_run_changed(self) -> None:
        """New samples, a finished run or a new canon: analyse again and redraw in place."""
        if self.updating:
            return
        self.updating = True
        self.analysis = None
        self.query_one("#samples-page", Static).update(
            Text("the run or its canon changed: updating…", style="bold yellow")
        )
        self._load()

    @work(thread=True, exclusive=True, group="run-detail", exit_on_error=False)
    def _load(self) -> None:
        snapshot = store_watch.run_snapshot(self.run_id)
        try:
            run = run_data.load_run(self.run_id)
            analysis = self.analysis if self.analysis is not None else run_data.analyze_run(run)
        except SkytError as exc:
            self.post_message(RunLoaded(None, None, str(exc), snapshot))
            return
        self.post_message(RunLoaded(run, analysis, snapshot=snapshot))

    def on_run_loaded(self, message: RunLoaded) -> None:
        self.updating = False
        self.snapshot = message.snapshot
        if message.run is None or message.analysis is None:
            self.query_one("#run-head", Static).update(
                Text(f"run {self.run_id}: {message.error}", style="bold red")
            )
            self.notify(message.error, severity="error", markup=False)
            return
        self.run, self.analysis = message.run, message.analysis
        columns = RULES_COLUMNS if has_rules(self.analysis) else SAMPLE_COLUMNS
        if columns != self.columns:
            self.columns = columns
            self.sort_column = None
            table = self.query_one("#samples-table", DataTable)
            table.clear(columns=True)
            for name in columns:
                table.add_column(name, key=name)
        self.all_rows = sample_table_rows(self.run, self.analysis)
        self.rows = self.visible_rows()
        self.texts = run_data.run_texts(self.run, self.analysis)
        self.tool_line = run_data.tool_verdicts_line(self.run, self.analysis)
        self.positions = {int(label): position for position, label in enumerate(self.texts.labels)}
        self._show_head()
        table = self.query_one("#samples-table", DataTable)
        first = table.row_count == 0
        cursor = table.cursor_row
        self.show_page(self.page)
        if first:
            table.focus()
        elif 0 <= cursor < table.row_count:
            table.move_cursor(row=cursor)
        self.refresh_bindings()

    def _show_head(self) -> None:
        """Five lines at most below 100 columns (the samples need the room), a little more when
        wide; an imported run whose tool judged its samples adds that tool's verdicts line, one
        more only when the run's canon is also a demo run's."""
        if self.run is None or self.analysis is None:
            return
        meta = self.run.meta
        narrow = self.app.size.width < 100
        head = Text()
        head.append(f"run {meta.id}", style="bold")
        head.append(f" · {self.run.n_ok} ok, {self.run.n_failed} failed")
        head.append("\n" if narrow else f" · created {meta.created[:19].replace('T', ' ')}\n")
        label = label_text(meta)
        canon_run = self.analysis.canon.run_id
        demo_canon = (
            canon_run != meta.id and not run_data.is_demo(meta) and run_data.is_demo_run(canon_run)
        )
        if narrow:
            head.append(  # names from a file: shown printable, as `run_line` shows them
                f"{printable(meta.provider)}/{printable(meta.model or '–')}"
                f" · T {temperature(meta.temperature)}"
            )
        else:
            head.append_text(run_line(meta, created=False))
        if label:
            head.append(" · ")
            head.append_text(label)
        head.append("\n")
        head.append_text(metrics_text(self.analysis, meta.n))
        head.append("\n")
        if self.tool_line:
            head.append(printable(self.tool_line), style="dim")
            head.append("\n")
        from skyt_tui.engine.runs.run_import import incomplete_line

        cut_short = incomplete_line(meta.origin)
        if cut_short:
            head.append(printable(cut_short), style="bold yellow")
            head.append("\n")
        if narrow and demo_canon:
            head.append_text(canon_text(self.analysis, meta.id, demo_canon=True))
            head.append("\n")
        if not narrow:
            head.append_text(canon_text(self.analysis, meta.id, demo_canon=demo_canon))
            tau = self.analysis.metrics.tau
            head.append(
                f" · level {self.analysis.level}"
                + (f", τ {tau:g}" if tau is not None else "")
                + " · ",
                style="dim",
            )
        head.append_text(isolation_text(run_data.isolation(self.analysis)))
        self.query_one("#run-head", Static).update(head)

    def on_resize(self) -> None:
        self._show_head()

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.rows) // PAGE))

    def show_page(self, page: int) -> None:
        self.page = min(max(page, 0), self.pages - 1)
        table = self.query_one("#samples-table", DataTable)
        table.clear()
        with_rules = RULES_COLUMN in self.columns
        table.add_rows(
            sample_cells(row, with_rules)
            for row in self.rows[self.page * PAGE : (self.page + 1) * PAGE]
        )
        first = self.page * PAGE
        shown = min(len(self.rows), first + PAGE)
        note = f"rows {first + 1 if self.rows else 0}–{shown} of {len(self.rows)}"
        if self.sample_filter:
            note += (
                f" (filter {self.sample_filter!r}{near_note(len(self.rows), self.n_exact)}, "
                f"{len(self.all_rows)} in the run)"
            )
        if self.sort_column is not None:
            note += f" · sorted by {self.columns[self.sort_column]}" + (
                " ▼" if self.sort_reverse else " ▲"
            )
        if self.pages > 1:
            note += f" · page {self.page + 1}/{self.pages} (< >)"
        note += " · bar: █ d_post, ░ removed by repair"
        self.query_one("#samples-page", Static).update(Text(note, style="dim"))
        self.show_sample()

    @on(DataTable.RowHighlighted, "#samples-table")
    def _highlighted(self) -> None:
        self.show_sample()

    def selected_row(self) -> SampleRow | None:
        if not self.rows:
            return None
        row = self.page * PAGE + self.query_one("#samples-table", DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def show_sample(self) -> None:
        """Render the selected sample into the active view only (the others when they are opened)."""
        row = self.selected_row()
        if self.run is None or self.texts is None:
            return
        if row is None:  # no sample to show: none of the run shown before either
            empty = (
                "No sample matches the filter." if self.all_rows else "This run has no samples yet."
            )
            for view in VIEWS:
                self.query_one(f"#{view}-text", Static).update(Text(empty, style="dim"))
            return
        active = self.query_one(TabbedContent).active or VIEWS[0]
        view = active if active in VIEWS else VIEWS[0]
        self.query_one(f"#{view}-text", Static).update(self.sample_view(row, view))

    @on(TabbedContent.TabActivated, "#sample-views")
    def _view_changed(self) -> None:
        self.show_sample()

    def sample_view(self, row: SampleRow, view: str) -> Any:
        """One view of one sample: its code ("view-code"), or its diff to the canon before or after repair."""
        assert self.run is not None and self.texts is not None
        index = row.index
        if row.failed:
            if view != "view-code":
                return Text("no code to compare", style="dim")
            record = row.record
            imported = self.run.meta.origin.get("kind") == "import"  # not generated here
            failed = Text(
                f"sample {index}: no code\n"
                if imported
                else f"sample {index}: generation failed after {counted(record.attempts, 'attempt')}\n",
                style="bold red",
            )
            failed.append(printable(record.error or ""), style="red")
            if record.response:
                failed.append("\n\nlast response:\n", style="bold")
                failed.append(printable(record.response, multiline=True))
            return failed
        if view == "view-code":
            return self._code_view(row)
        level = self.texts.level
        canon = self.texts.canon_text(level)
        if canon is None:
            return Text(
                "No canon for this run, so there is nothing to compare with and repair did not run.",
                style="dim",
            )
        position = self.positions[index]
        if view == "view-before":
            return Group(
                Text(
                    f"canon → sample {index} at level {level}: d_pre = {fmt3(row.d_pre)}",
                    style="bold",
                ),
                diff_renderable(
                    canon,
                    self.texts.text(position, level),
                    "canon",
                    f"sample {index}",
                    self.app.diff_side_by_side,
                ),
            )
        repair = row.analysed.repair if row.analysed is not None else None
        steps = repair.steps if repair is not None else ()
        if self.texts.repaired[position] is None:
            reason = (
                "identical to the canon already"
                if not row.d_pre
                else "not repaired: only samples that pass the oracle are"
                if not row.passed
                else "no repair step brought it closer to the canon"
            )
            return Text(f"sample {index}: {reason}; d_post = {fmt3(row.d_post)}", style="dim")
        head = Text(
            f"canon → sample {index} after {counted(len(steps), 'repair step')} at level {level}: "
            f"d {fmt3(row.d_pre)} → {fmt3(row.d_post)}\n",
            style="bold",
        )
        for number, step in enumerate(steps, start=1):
            head.append(
                f"  {number}. {step.transformer}: {fmt3(step.d_before)} → {fmt3(step.d_after)}\n"
            )
        return Group(
            head,
            diff_renderable(
                canon,
                self.texts.text(position, level, post=True),
                "canon",
                f"sample {index} repaired",
                self.app.diff_side_by_side,
            ),
        )

    def _code_view(self, row: SampleRow) -> Group:
        assert self.texts is not None
        oracle = row.analysed.oracle if row.analysed is not None else None
        head = Text(f"sample {row.index} · ", style="bold")
        head.append_text(verdict_cell(row))
        head.append(f" · d_pre {fmt3(row.d_pre)} → d_post {fmt3(row.d_post)}\n")
        head.append_text(verdict_text(oracle, bool(row.passed)))
        head.append_text(compliance_text(oracle))
        if row.limited:
            head.append(f"\n{printable(row.limited)}", style="bold yellow")
        code, cut = shown_code(self.texts.codes[self.positions[row.index]])
        parts: list[Any] = [head, code_syntax(code, self.app.current_theme.dark)]
        if cut:
            parts.append(Text(cut, style="dim"))
        return Group(*parts)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (
            action in ("copy", "export", "heatmap", "next_view", "families", "probe")
            and self.run is None
        ):
            return False
        if action == "page":
            return None if self.pages < 2 else True
        return True

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_next_view(self) -> None:
        tabs = self.query_one(TabbedContent)
        tabs.active = (
            VIEWS[(VIEWS.index(tabs.active) + 1) % len(VIEWS)] if tabs.active in VIEWS else VIEWS[0]
        )

    def action_families(self) -> None:
        if self.run is None or self.analysis is None or self.texts is None:
            return
        from skyt_tui.ui.screens.families import FamiliesScreen

        try:
            probe = probe_data.load_probe(self.run.id)
        except SkytError as exc:
            self.notify(f"the run's probe cannot be read: {exc}", severity="warning", markup=False)
            probe = None
        self.app.push_screen(FamiliesScreen(self.run.id, self.analysis, self.texts, probe))

    def action_probe(self) -> None:
        """Run the passing samples on generated inputs (docs/probe.md); the families view then
        splits them by behaviour."""
        if self.run is None:
            return
        self.notify(f"probing {self.run.id} on generated inputs…", markup=False)
        self._probe(self.run.id)

    @work(thread=True, exclusive=True, group="run-probe", exit_on_error=False)
    def _probe(self, run_id: str) -> None:
        try:
            document = probe_data.probe_run(run_id)
        except SkytError as exc:
            self.post_message(ProbeReady(run_id, None, str(exc)))
            return
        self.post_message(ProbeReady(run_id, document))

    def on_probe_ready(self, message: ProbeReady) -> None:
        if message.document is None:
            self.notify(f"probe failed: {message.error}", severity="error", markup=False)
            return
        classes = message.document.figures.behaviour_classes or 0
        line = f"{message.run_id}: {probe_data.probe_line(message.document)}"
        if classes > 1:
            line += "; the tests let behaviourally different samples pass (f shows the families)"
        self.notify(line, severity="warning" if classes > 1 else "information", markup=False)

    def action_toggle_diff(self) -> None:
        """Diffs unified or side by side (for every diff of the app, until toggled again)."""
        self.app.diff_side_by_side = not self.app.diff_side_by_side
        self.show_sample()

    def visible_rows(self) -> list[SampleRow]:
        with_rules = RULES_COLUMN in self.columns
        rows, self.n_exact = ranked_matches(
            self.all_rows,
            self.sample_filter,
            lambda row: " ".join(str(c) for c in sample_cells(row, with_rules)),
        )
        if self.sort_column is not None:
            name = self.columns[self.sort_column]
            rows.sort(key=lambda row: sample_sort_key(name, row), reverse=self.sort_reverse)
        return rows

    def _refill(self) -> None:
        self.rows = self.visible_rows()
        self.show_page(0)

    def action_sort(self) -> None:
        """Cycle the sort: each column ascending, then descending, then back to generation order."""
        if self.sort_column is None:
            self.sort_column, self.sort_reverse = 1, False
        elif not self.sort_reverse:
            self.sort_reverse = True
        elif self.sort_column + 1 < len(self.columns):
            self.sort_column, self.sort_reverse = self.sort_column + 1, False
        else:
            self.sort_column, self.sort_reverse = None, False
        self._refill()

    def action_filter(self) -> None:
        box = self.query_one("#samples-filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#samples-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.sample_filter = event.value.strip()
        self._refill()

    @on(Input.Submitted, "#samples-filter")
    def _filter_done(self) -> None:
        self.query_one("#samples-table", DataTable).focus()

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#samples-filter", Input)
        # esc clears the filter being typed, and an applied one too (then esc means what it did)
        if event.key == "escape" and (box.has_focus or (box.display and box.value)):
            event.stop()
            box.value = ""
            box.display = False
            self.query_one("#samples-table", DataTable).focus()

    def action_run(self, step: int) -> None:
        """Show the previous/next run of the list this detail was opened from (`walk`)."""
        found = self.walk(self.run_id, step) if self.walk is not None else None
        if found is None:
            self.notify("No other run in the list.", timeout=2)
            return
        self.show_run(*found)

    def show_run(self, run_id: str, analysis: StoredAnalysis | None = None) -> None:
        """Show another run in place (its sort and filter kept, from its first page)."""
        self.run_id, self.analysis = run_id, analysis
        self.run, self.texts, self.snapshot = None, None, None
        self.all_rows, self.rows, self.positions = [], [], {}
        self.tool_line = None
        self.page = 0
        self.updating = True
        self.query_one("#samples-table", DataTable).clear()
        self.query_one("#run-head", Static).update(Text(f"run {run_id} · loading…", style="dim"))
        self.refresh_bindings()
        self._load()

    def action_page(self, step: int) -> None:
        if 0 <= self.page + step < self.pages:
            self.show_page(self.page + step)

    def action_copy(self) -> None:
        tabs = self.query_one(TabbedContent)
        row = self.selected_row()
        if row is None:
            self.notify("No sample to copy: none is shown.", timeout=3)
            return
        content = self.sample_view(row, tabs.active if tabs.active in VIEWS else VIEWS[0])
        analysed = not row.failed
        if tabs.active == "view-code" and self.texts is not None and analysed:
            plain = self.texts.codes[self.positions[row.index]]
        else:
            plain = _plain(content)
        copy_text(
            self.app,
            plain,
            f"{'the code' if tabs.active == 'view-code' else 'the diff'} of sample {row.index}",
        )

    def action_export(self) -> None:
        if self.run is not None and self.analysis is not None:
            from skyt_tui.ui.screens.export import ask_export

            ask_export(self, self.run, self.analysis)

    def action_heatmap(self) -> None:
        self.app.show_heatmap(self.run_id)


def _plain(content: Any) -> str:
    if isinstance(content, Text):
        return content.plain
    if isinstance(content, Group):
        return "\n".join(_plain(part) for part in content.renderables)
    if isinstance(content, str):
        return content
    import io

    from rich.console import Console

    console = Console(width=160, file=io.StringIO(), color_system=None, record=True)
    console.print(content)  # a side-by-side table, as the text it shows
    return console.export_text().rstrip()
