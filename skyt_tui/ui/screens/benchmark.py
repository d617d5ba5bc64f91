"""Section 5, Benchmark: strata, the anchor sample and how it was chosen, the validation of every
anchor method side by side (with r and MAE against k), the systems' scores — measured or estimated
from their anchors —, the item list with fingerprints (sortable, filtered with `/`), the rotation
history with the ids each rotation moved, and "Rotate now" behind a confirmation that lists
everything that will move.

"Now" is the app's clock (`SkytApp.clock`), so tests and screenshots use a fixed date. A damaged
benchmark file marks its benchmark in the list (with the file and line) and hides nothing else.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import (
    ContentSwitcher,
    DataTable,
    Input,
    Static,
    TabbedContent,
    TabPane,
)

from skyt_tui.engine import benchmark
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import counted
from skyt_tui.ui import bench_data
from skyt_tui.ui.bench_text import (
    HASH_COLUMNS,
    ITEM_COLUMNS,
    NO_TEXT,
    SHORT_HEADERS,
    choose_item_columns,
    curves,
    estimates_view,
    history_view,
    item_cell,
    item_line,
    no_scores_text,
    overview,
    rotation_text,
    systems_table,
    validation_text,
)
from skyt_tui.ui.fuzzy import near_note, ranked_matches
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.empty_state import EmptyState
from skyt_tui.ui.widgets.method_chart import MethodChart
from skyt_tui.ui.widgets.scatter import ScatterPlot

TABS = (
    "bench-overview",
    "bench-validation",
    "bench-estimates",
    "bench-items",
    "bench-history",
)


class ValidationDone(Message):
    def __init__(
        self, name: str, report: benchmark.ValidationReport | None, error: str = ""
    ) -> None:
        super().__init__()
        self.name, self.report, self.error = name, report, error


class EstimatesDone(Message):
    def __init__(
        self, name: str, estimates: tuple[benchmark.SystemEstimate, ...], error: str = ""
    ) -> None:
        super().__init__()
        self.name, self.estimates, self.error = name, estimates, error


class CurvesDone(Message):
    def __init__(
        self,
        name: str,
        sizes: tuple[int, ...],
        results: tuple[benchmark.MethodResult, ...],
        error: str = "",
    ) -> None:
        super().__init__()
        self.name, self.sizes, self.results, self.error = name, sizes, results, error


class BenchmarkScreen(SectionScreen):
    SECTION = "benchmark"
    BINDINGS = [
        Binding("r", "rotate", "Rotate now…"),
        Binding("v", "next_tab", "Views"),
        Binding("slash", "filter_items", "Filter"),
        Binding("s", "sort_items", "Sort"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: tuple[benchmark.BenchmarkSummary, ...] = ()
        self.view: bench_data.BenchmarkView | None = None
        self.report: benchmark.ValidationReport | None = None
        self.estimates: tuple[benchmark.SystemEstimate, ...] = ()
        self.item_rows: list[tuple[str, ...]] = []
        self.no_text: set[str] = set()
        self.shown_rows: list[tuple[str, ...]] = []
        self.item_columns: list[int] = list(range(len(ITEM_COLUMNS)))
        self.short_items = False
        self.sort_column: int | None = None
        self.sort_reverse = False
        self.item_filter = ""

    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="bench-view", id="bench-switcher"):
            with VerticalScroll(id="bench-empty", classes="section-body"):
                yield EmptyState(
                    "No benchmarks yet",
                    [
                        "A benchmark is a set of items (problems) with per-system scores. This section shows its "
                        "difficulty strata, the anchor sample and how it was chosen, the validation of every anchor "
                        "method on held-out systems, the systems' scores (measured, or estimated from their anchor "
                        "scores), the held-out and training sets with their fingerprints and the rotation history, "
                        "and rotates the held-out set by hand after confirming what will move."
                    ],
                    [
                        ("skyt-tui demo", "imports the bundled contracts as a small benchmark"),
                        (
                            "skyt-tui bench import NAME ISSUES.jsonl --results RESULTS.csv",
                            "your own items and scores",
                        ),
                        (
                            "skyt-tui bench import NAME --from-runs",
                            "contracts × model@temperature from your stored runs",
                        ),
                    ],
                )
            with Horizontal(id="bench-view", classes="split"):
                with Vertical(id="bench-list-pane", classes="list-pane"):
                    yield DataTable(id="bench-table", cursor_type="row", zebra_stripes=True)
                with TabbedContent(id="bench-tabs", classes="detail-pane"):
                    with TabPane("Overview", id="bench-overview"):
                        with VerticalScroll():
                            yield Static(id="bench-overview-text")
                    with TabPane("Validation", id="bench-validation"):
                        with VerticalScroll():
                            yield Static(id="bench-validation-text")
                            yield MethodChart(id="bench-chart")
                            yield ScatterPlot(id="bench-scatter")
                            yield Static(id="bench-systems")
                    with TabPane("Estimates", id="bench-estimates"):
                        with VerticalScroll():
                            yield Static(id="bench-estimates-text")
                    with TabPane("Items", id="bench-items"):
                        yield Input(
                            placeholder="filter items: any text in a row (esc clears)",
                            id="bench-filter",
                        )
                        yield Static(id="bench-items-note")
                        yield DataTable(
                            id="bench-fingerprint-table", cursor_type="row", zebra_stripes=True
                        )
                        yield Static(id="bench-item-line")
                    with TabPane("History", id="bench-history"):
                        with VerticalScroll():
                            yield Static(id="bench-history-text")

    def on_mount(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        for column in ("benchmark", "v", "items"):
            table.add_column(column, key=column)
        self.query_one("#bench-filter", Input).display = False
        self.load()
        table.focus()

    def load(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        selected = self.selected_name()
        try:
            self.summaries = bench_data.list_benchmarks()
        except SkytError as exc:
            self.summaries = ()
            self.notify(str(exc), severity="error", markup=False)
        self.query_one(ContentSwitcher).current = "bench-view" if self.summaries else "bench-empty"
        table.clear()
        for summary in self.summaries:
            if summary.version is None:
                version, items = Text("damaged", style="bold red"), ""
            else:
                version = Text(
                    f"{summary.version.version}" + (" damaged" if summary.damaged else ""),
                    style="bold red" if summary.damaged else "",
                )
                items = str(summary.version.n_items)
            table.add_row(Text(summary.name), version, items, key=summary.name)
        names = [s.name for s in self.summaries]
        if selected in names:
            table.move_cursor(row=names.index(selected))
        self.show_selected()

    def selected_name(self) -> str | None:
        # not `is_mounted`: it turns true only after on_mount, which shows the first benchmark
        # (and the keys that act on it) without waiting for the table to report its cursor
        if not self.summaries or not self.query("#bench-table"):
            return None
        row = self.query_one("#bench-table", DataTable).cursor_row
        return self.summaries[row].name if 0 <= row < len(self.summaries) else None

    def selected_summary(self) -> benchmark.BenchmarkSummary | None:
        name = self.selected_name()
        return next((s for s in self.summaries if s.name == name), None)

    @on(DataTable.RowHighlighted, "#bench-table")
    def _highlighted(self) -> None:
        if self.view is None or self.view.bench.name != self.selected_name():
            self.show_selected()

    def _show_error(self, name: str, error: str) -> None:
        text = Text()
        text.append(f"{name}: damaged\n", style="bold red")
        text.append(error + "\n\n", style="red")
        text.append(
            "skyt-tui never overwrites a damaged file: repair or remove the named line (the other "
            "benchmarks are unaffected), then ctrl+r.",
            style="dim",
        )
        for target in ("#bench-overview-text", "#bench-validation-text", "#bench-history-text"):
            self.query_one(target, Static).update(text)
        self.query_one("#bench-estimates-text", Static).update("")
        self.query_one("#bench-systems", Static).update("")
        self.query_one("#bench-scatter", ScatterPlot).set_points([])
        self.query_one("#bench-chart", MethodChart).set_data((), {}, {})
        self.item_rows = []
        self.no_text = set()
        self._fill_items()

    def show_selected(self) -> None:
        name = self.selected_name()
        if name is None:
            self.view = None
            return
        summary = self.selected_summary()
        if summary is not None and summary.error:
            self.view = None
            self._show_error(name, summary.error)
            self.refresh_bindings()
            return
        try:
            self.view = bench_data.benchmark_view(name, self.app.clock())
        except SkytError as exc:
            self.view = None
            self._show_error(name, str(exc))
            return
        view = self.view
        self.query_one("#bench-overview-text", Static).update(overview(view))
        self.query_one("#bench-history-text", Static).update(history_view(view.status.history))
        self._collect_items(view)
        self.report = None
        self.estimates = ()
        self.query_one("#bench-scatter", ScatterPlot).set_points([])
        self.query_one("#bench-systems", Static).update("")
        chart = self.query_one("#bench-chart", MethodChart)
        if view.has_scores:
            self.query_one("#bench-validation-text", Static).update(
                Text("validating every anchor method on held-out systems…", style="dim")
            )
            chart.set_data((), {}, {}, note="r and MAE against k: waiting for the validation…")
            self.query_one("#bench-estimates-text", Static).update(Text("estimating…", style="dim"))
            self._validate(name, view.sample)
        else:
            chart.set_data((), {}, {})
            self.query_one("#bench-validation-text", Static).update(no_scores_text(name))
            self.query_one("#bench-estimates-text", Static).update(
                estimates_view(name, view.sample, ())
            )
        self.refresh_bindings()

    def _collect_items(self, view: bench_data.BenchmarkView) -> None:
        held = set(view.status.held_out)
        anchors = set(view.sample.ids) if view.sample else set()
        difficulty = {item.id: item.difficulty for item in view.bench.items}
        self.item_rows = [
            (
                fp.issue_id,
                difficulty.get(fp.issue_id, "–"),
                "held-out"
                if fp.issue_id in held
                else "training"
                if fp.added_to_training
                else "pool",
                "★" if fp.issue_id in anchors else "",
                fp.content_hash,
                fp.solution_hash or "–",
                (fp.created_at or "–")[:10],
                (fp.added_to_training or "–")[:10],
            )
            for fp in view.fingerprints
        ]
        self.no_text = {fp.issue_id for fp in view.fingerprints if not fp.has_text}
        self._fill_items()

    def _items_width(self, n_rows: int) -> int:
        """The cells the item table has: the pane less its padding, less the scrollbar when the
        rows overflow (assumed before the table is laid out)."""
        tabs = self.query_one("#bench-tabs", TabbedContent)
        table = self.query_one("#bench-fingerprint-table", DataTable)
        width = tabs.size.width or max(self.app.size.width - 34, 40)
        scrollbar = 2 if not table.size.height or n_rows > table.size.height - 1 else 0
        return width - 2 - scrollbar

    def _row_text(self, row: tuple[str, ...]) -> str:
        return " ".join((*row, NO_TEXT) if row[0] in self.no_text else row)

    def _fill_items(self) -> None:
        """The item table: `item_rows` filtered by `item_filter`, sorted by `sort_column`, in the
        columns that fit the pane (`choose_item_columns`)."""
        table = self.query_one("#bench-fingerprint-table", DataTable)
        rows, n_exact = ranked_matches(self.item_rows, self.item_filter, self._row_text)
        if self.sort_column is not None:
            rows.sort(key=lambda r: r[self.sort_column], reverse=self.sort_reverse)
        self.shown_rows = rows
        self.item_columns, self.short_items = choose_item_columns(
            self._items_width(len(rows)), self.item_rows, self.no_text, self.sort_column
        )
        table.clear(columns=True)
        for index in self.item_columns:
            label = ITEM_COLUMNS[index]
            if self.short_items:
                label = SHORT_HEADERS.get(label, label)
            if index == self.sort_column:
                label += " ▼" if self.sort_reverse else " ▲"
            table.add_column(label, key=str(index))
        for row in rows:
            cells: list[Any] = []
            for index in self.item_columns:
                if index == 0:
                    cell = Text(row[0])
                    if row[0] in self.no_text:
                        cell.append(f" {NO_TEXT}", style="dim italic")
                    cells.append(cell)
                else:
                    cells.append(item_cell(row, index, self.short_items))
            table.add_row(*cells)
        self._item_line()
        note = Text()
        if self.item_filter:
            note.append(f"{len(rows)} of {len(self.item_rows)} items match ", style="dim")
            note.append(repr(self.item_filter))
            note.append(near_note(len(rows), n_exact), style="dim")
        if self.sort_column is not None:
            arrow = "↓" if self.sort_reverse else "↑"
            note.append(
                ("  " if note else "") + f"sorted by {ITEM_COLUMNS[self.sort_column]} {arrow}",
                style="dim",
            )
        self.query_one("#bench-items-note", Static).update(note)
        self.query_one("#bench-items-note", Static).display = bool(note)

    def _item_line(self) -> None:
        """The highlighted item's columns that this width leaves out or shortens, in full."""
        table = self.query_one("#bench-fingerprint-table", DataTable)
        line = self.query_one("#bench-item-line", Static)
        row = table.cursor_row
        if not self.shown_rows or not 0 <= row < len(self.shown_rows):
            line.update("")
            line.display = False
            return
        cut = [i for i in range(len(ITEM_COLUMNS)) if i not in self.item_columns]
        if self.short_items:
            cut = sorted({*cut, *(i for i in HASH_COLUMNS if i in self.item_columns)})
        if not cut:
            line.update("")
            line.display = False
            return
        item = self.shown_rows[row]
        line.update(item_line(item, item[0] not in self.no_text, cut))
        line.display = True

    @on(DataTable.RowHighlighted, "#bench-fingerprint-table")
    def _item_highlighted(self) -> None:
        self._item_line()

    @on(TabbedContent.TabActivated, "#bench-tabs")
    def _tab_activated(self) -> None:
        if self.query_one("#bench-tabs", TabbedContent).active == "bench-items":
            self.call_after_refresh(self.on_resize)

    def on_resize(self) -> None:
        if self.item_rows:
            layout = choose_item_columns(
                self._items_width(len(self.shown_rows)),
                self.item_rows,
                self.no_text,
                self.sort_column,
            )
            if layout != (self.item_columns, self.short_items):
                self._fill_items()

    @work(thread=True, exclusive=True, group="bench-validate", exit_on_error=False)
    def _validate(self, name: str, sample: benchmark.AnchorSample | None) -> None:
        try:
            estimates = bench_data.benchmark_estimates(name)
        except SkytError as exc:
            self.post_message(EstimatesDone(name, (), str(exc)))
        else:
            self.post_message(EstimatesDone(name, estimates))
        try:
            report = bench_data.validate_benchmark(name, sample)
        except SkytError as exc:
            self.post_message(ValidationDone(name, None, str(exc)))
            return
        self.post_message(ValidationDone(name, report))
        try:
            sizes, results = bench_data.method_curves(name, report.n_items, report.config.seed)
        except SkytError as exc:
            self.post_message(CurvesDone(name, (), (), str(exc)))
        else:
            self.post_message(CurvesDone(name, sizes, results))

    def on_estimates_done(self, message: EstimatesDone) -> None:
        if message.name != self.selected_name() or self.view is None:
            return
        target = self.query_one("#bench-estimates-text", Static)
        if message.error:
            target.update(Text(f"estimates failed: {message.error}", style="red"))
            return
        self.estimates = message.estimates
        target.update(estimates_view(message.name, self.view.sample, message.estimates))

    def on_validation_done(self, message: ValidationDone) -> None:
        if message.name != self.selected_name():
            return
        if message.report is None:
            self.query_one("#bench-validation-text", Static).update(
                Text(f"validation failed: {message.error}", style="red")
            )
            self.query_one("#bench-chart", MethodChart).set_data((), {}, {})
            return
        self.report = message.report
        self.query_one("#bench-validation-text", Static).update(validation_text(message.report))
        self.query_one("#bench-scatter", ScatterPlot).set_points(
            [(p.full_mean, p.estimate) for p in message.report.sample_check.points]
        )
        self.query_one("#bench-systems", Static).update(systems_table(message.report))
        self.query_one("#bench-chart", MethodChart).set_data(
            (), {}, {}, note="r and MAE against k: computing (100 draws per k)…"
        )

    def on_curves_done(self, message: CurvesDone) -> None:
        if message.name != self.selected_name():
            return
        chart = self.query_one("#bench-chart", MethodChart)
        if message.error:
            chart.set_data((), {}, {}, note=f"r and MAE against k failed: {message.error}")
            return
        r, mae = curves(message.sizes, message.results)
        chart.set_data(
            message.sizes,
            r,
            mae,
            note=f"{counted(message.results[0].draws, 'draw')} per k, the same splits for every method",
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rotate", "next_tab"):
            return self.view is not None
        if action in ("filter_items", "sort_items"):
            return self.view is not None
        return True

    def _show_items(self) -> None:
        self.query_one("#bench-tabs", TabbedContent).active = "bench-items"

    def action_next_tab(self) -> None:
        tabs = self.query_one("#bench-tabs", TabbedContent)
        tabs.active = (
            TABS[(TABS.index(tabs.active) + 1) % len(TABS)] if tabs.active in TABS else TABS[0]
        )

    def action_filter_items(self) -> None:
        self._show_items()
        box = self.query_one("#bench-filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#bench-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.item_filter = event.value.strip()
        self._fill_items()

    @on(Input.Submitted, "#bench-filter")
    def _filter_done(self) -> None:
        self.query_one("#bench-fingerprint-table", DataTable).focus()

    def on_key(self, event: events.Key) -> None:
        box = self.query_one("#bench-filter", Input)
        # esc clears the filter being typed, and an applied one too (then esc means what it did)
        if event.key == "escape" and (box.has_focus or (box.display and box.value)):
            event.stop()
            box.value = ""
            box.display = False
            self.query_one("#bench-fingerprint-table", DataTable).focus()

    def action_sort_items(self) -> None:
        """Cycle the sort: each column ascending, then descending, then back to the file order."""
        self._show_items()
        shown = self.item_columns
        if self.sort_column is None:
            self.sort_column, self.sort_reverse = shown[0], False
        elif not self.sort_reverse:
            self.sort_reverse = True
        else:
            following = [i for i in shown if i > self.sort_column]
            self.sort_column, self.sort_reverse = (following[0] if following else None), False
        self._fill_items()

    @on(DataTable.HeaderSelected, "#bench-fingerprint-table")
    def _header(self, event: DataTable.HeaderSelected) -> None:
        column = int(str(event.column_key.value))
        if self.sort_column == column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, False
        self._fill_items()

    def action_reload(self) -> None:
        self.view = None
        self.load()

    def action_rotate(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        now = self.app.clock()
        try:
            plan = bench_data.preview_rotation(name, now)
        except SkytError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if not plan.allowed:
            self.notify(f"Cannot rotate {name}: {plan.refusal}", severity="error", markup=False)
            return
        sample = self.view.sample if self.view is not None else None
        self.app.push_screen(
            ConfirmScreen(f"Rotate {name} now?", rotation_text(name, plan, sample), "Rotate"),
            lambda yes: self._rotate(name, now) if yes else None,
        )

    def _rotate(self, name: str, now: Any) -> None:
        try:
            applied = bench_data.apply_rotation(name, now)
        except SkytError as exc:
            self.notify(f"Rotation refused: {exc}", severity="error", markup=False)
            return
        record = applied.record
        self.notify(
            f"Rotation {record.number} of {name}: {counted(len(record.moved_to_training), 'item')} moved to training, "
            f"{len(record.held_out)} held out.",
            markup=False,
        )
        self.action_reload()
