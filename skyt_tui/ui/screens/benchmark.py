"""Section 5, Benchmark: strata, the anchor sample, held-out and training sets, fingerprints, the
validation (subset vs full score per system), the rotation history, and "Rotate now" behind a
confirmation that lists what will move.

"Now" is the app's clock (`SkytApp.clock`), so tests and screenshots use a fixed date.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import ContentSwitcher, DataTable, Static, TabbedContent, TabPane

from skyt_tui.engine import benchmark
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.report import fmt3
from skyt_tui.ui import data
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.empty_state import EmptyState
from skyt_tui.ui.widgets.scatter import ScatterPlot

TABS = ("bench-overview", "bench-validation", "bench-fingerprints", "bench-history")
MAX_IDS = 60


class ValidationDone(Message):
    def __init__(
        self, name: str, report: benchmark.ValidationReport | None, error: str = ""
    ) -> None:
        super().__init__()
        self.name, self.report, self.error = name, report, error


def id_list(ids: Any, limit: int = MAX_IDS) -> str:
    ids = list(ids)
    shown = ", ".join(ids[:limit])
    return shown + (f", … ({len(ids) - limit} more)" if len(ids) > limit else "") if ids else "–"


def overview(view: data.BenchmarkView) -> Group:
    bench, sample, status = view.bench, view.sample, view.status
    info = bench.versions[-1]
    head = Text()
    head.append(f"{bench.name}", style="bold")
    head.append(
        f" · version {bench.version} of {len(bench.versions)} · {info.n_items} items · "
        f"{info.n_systems} systems · {info.n_results} scores"
    )
    head.append(
        f"\nimported {info.imported_at or '–'} · content sha256 {info.content_hash[:16]}…",
        style="dim",
    )
    strata = Table(
        title="strata (difficulty)",
        title_justify="left",
        title_style="bold underline",
        box=None,
        header_style="dim",
        pad_edge=False,
    )
    for column in ("stratum", "items", "anchor", "held-out", "training", "pool"):
        strata.add_column(column, justify="left" if column == "stratum" else "right")
    allocation = sample.allocation if sample is not None else {}
    for name, count in sorted(status.strata.items()):
        strata.add_row(
            name,
            str(count),
            str(allocation.get(name, 0)),
            str(status.held_out_by_stratum.get(name, 0)),
            str(status.training_by_stratum.get(name, 0)),
            str(status.pool.get(name, 0)),
        )
    strata.add_row(
        Text("total", style="bold"),
        str(sum(status.strata.values())),
        str(sample.size if sample else 0),
        str(len(status.held_out)),
        str(len(status.training)),
        str(sum(status.pool.values())),
    )
    text = Text()
    text.append("\nanchor sample", style="bold underline")
    if sample is None:
        text.append("\nnot drawn yet: skyt-tui bench sample " + bench.name, style="dim")
    else:
        config = sample.config
        floor = "default floor" if config.floor is None else f"floor {config.floor}"
        text.append(
            f"\n{sample.size} of {sample.n_items} items, {config.mode}, rate {config.rate:g}, {floor}, "
            f"seed {sample.seed}, drawn {sample.recorded_at or '–'} from version {sample.benchmark_version}\n"
        )
        text.append(id_list(sample.ids))
    text.append("\n\nrotation", style="bold underline")
    due = "due now" if status.due else f"next due {status.next_rotation}"
    last = status.last
    text.append(
        f"\n{status.period}, current period {status.current_period}, {due}; "
        + (
            f"last: rotation {last.number} at {last.at[:16].replace('T', ' ')} UTC"
            if last
            else "never rotated"
        )
    )
    text.append(f"\nheld-out ({len(status.held_out)}): ", style="bold")
    text.append(id_list(status.held_out))
    text.append(f"\ntraining ({len(status.training)}): ", style="bold")
    text.append(id_list(f"{item} ({when[:10]})" for item, when in status.training.items()))
    if status.stale:
        text.append(f"\nnot in version {bench.version}: {id_list(status.stale)}", style="yellow")
    return Group(head, Text(""), strata, text)


def validation_text(report: benchmark.ValidationReport) -> Text:
    check = report.sample_check
    text = Text()
    text.append(report.verdict + "\n", style="bold green" if report.trustworthy else "bold yellow")
    text.append(
        f"this sample ({len(check.ids)} items) on {len(check.points)} systems: Pearson r {fmt3(check.pearson)}, "
        f"Spearman {fmt3(check.spearman)}, Kendall τ {fmt3(check.kendall)}, MAE {fmt3(check.mae)}\n"
    )
    text.append(
        f"{report.config.draws} draws on {report.n_held_out} held-out systems: r median "
        f"{fmt3(report.pearson.median)} [{fmt3(report.pearson.p5)}, {fmt3(report.pearson.p95)}]\n",
        style="dim",
    )
    for warning in report.warnings:
        text.append(f"⚠ {warning}\n", style="yellow")
    text.append(
        "each ● is a system: x its mean on all items, y its mean on the anchor sample; · is y = x",
        style="dim",
    )
    return text


def systems_table(report: benchmark.ValidationReport) -> Table:
    table = Table(box=None, header_style="dim", pad_edge=False)
    for column in ("system", "sample", "full", "diff"):
        table.add_column(column, justify="left" if column == "system" else "right")
    for point in sorted(report.sample_check.points, key=lambda p: -p.full_mean):
        table.add_row(
            Text(point.system),
            fmt3(point.estimate),
            fmt3(point.full_mean),
            f"{point.estimate - point.full_mean:+.3f}",
        )
    return table


def no_scores_text(name: str) -> Text:
    text = Text()
    text.append("Validation needs per-system results.\n", style="bold")
    text.append(
        f"This version of {name} has items only (difficulty, text), no system scores, so there is "
        "nothing to compare the anchor sample with. Import the results as a long CSV "
        "(system,issue_id,score with score in [0, 1]):\n\n"
    )
    text.append(
        f"  $ skyt-tui bench import {name} ISSUES.jsonl --results RESULTS.csv\n", style="bold"
    )
    text.append(f"  $ skyt-tui bench import {name} --contracts --results RESULTS.csv", style="bold")
    text.append("   (items from the bundled contracts)\n\n", style="dim")
    text.append(
        "A changed import becomes the next version; this screen then plots each system's score on the "
        "anchor sample against its score on all items.",
        style="dim",
    )
    return text


def history_table(history: tuple[benchmark.RotationRecord, ...]) -> Table | Text:
    if not history:
        return Text("No rotation yet. The first rotation draws the held-out set.", style="dim")
    table = Table(box=None, header_style="dim", pad_edge=False)
    for column in (
        "#",
        "at (UTC)",
        "period",
        "forced",
        "moved",
        "held-out",
        "short",
        "pool after",
        "version",
    ):
        table.add_column(column, justify="left" if column in ("at (UTC)", "period") else "right")
    for record in reversed(history):
        table.add_row(
            str(record.number),
            record.at[:16].replace("T", " "),
            record.period,
            "yes" if record.forced else "",
            str(len(record.moved_to_training)),
            str(len(record.held_out)),
            str(sum(record.shortfall.values())),
            str(record.pool_after),
            str(record.benchmark_version),
        )
    return table


def rotation_text(name: str, plan: benchmark.RotationPlan) -> Text:
    """What a forced rotation now will move, for the confirmation."""
    record = plan.record
    text = Text()
    text.append(f"Rotation {record.number} of {name}", style="bold")
    text.append(f" ({record.period}, at {record.at[:16].replace('T', ' ')} UTC)")
    if not plan.due:
        text.append(
            f": early — the next {record.period} rotation is due on {plan.next_due}; this one is recorded as "
            "forced.",
            style="yellow",
        )
    text.append("\n\n")
    text.append(
        f"• {len(record.moved_to_training)} held-out item(s) move to training", style="bold"
    )
    text.append(
        f" (added_to_training = {record.at[:10]}): {id_list(record.moved_to_training, 20)}\n"
    )
    text.append(f"• a new held-out set of {len(record.held_out)} item(s) is drawn", style="bold")
    text.append(f" from the pool of {plan.pool_before}: ")
    text.append(
        ", ".join(
            f"{stratum} {record.drawn[stratum]}/{record.target[stratum]}"
            for stratum in sorted(record.target)
        )
    )
    text.append(f"\n  {id_list(record.held_out, 20)}\n")
    text.append(f"• pool after: {record.pool_after} item(s) never exposed\n")
    for warning in plan.warnings:
        text.append(f"⚠ {warning}\n", style="yellow")
    text.append("\nNothing is deleted: the rotation is appended to the history.", style="dim")
    return text


class BenchmarkScreen(SectionScreen):
    SECTION = "benchmark"
    BINDINGS = [
        Binding("r", "rotate", "Rotate now…"),
        Binding("v", "next_tab", "Views"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: tuple[benchmark.BenchmarkSummary, ...] = ()
        self.view: data.BenchmarkView | None = None
        self.report: benchmark.ValidationReport | None = None

    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="bench-view", id="bench-switcher"):
            with VerticalScroll(id="bench-empty", classes="section-body"):
                yield EmptyState(
                    "No benchmarks yet",
                    [
                        "A benchmark is a set of items (problems) with per-system scores. This section shows its "
                        "difficulty strata, the validated anchor sample, the held-out and training sets with their "
                        "fingerprints, the validation (subset vs full score per system) and the rotation history, and "
                        "rotates the held-out set by hand after confirming what will move."
                    ],
                    [
                        ("skyt-tui demo", "imports the bundled contracts as a small benchmark"),
                        (
                            "skyt-tui bench import NAME ISSUES.jsonl --results RESULTS.csv",
                            "your own items and scores",
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
                            yield ScatterPlot(id="bench-scatter")
                            yield Static(id="bench-systems")
                    with TabPane("Fingerprints", id="bench-fingerprints"):
                        yield DataTable(
                            id="bench-fingerprint-table", cursor_type="row", zebra_stripes=True
                        )
                    with TabPane("History", id="bench-history"):
                        with VerticalScroll():
                            yield Static(id="bench-history-text")

    def on_mount(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        for column in ("benchmark", "v", "items"):
            table.add_column(column, key=column)
        prints = self.query_one("#bench-fingerprint-table", DataTable)
        for column in (
            "item",
            "difficulty",
            "set",
            "content",
            "solution",
            "created",
            "in training since",
        ):
            prints.add_column(column, key=column)
        self.load()
        table.focus()

    def load(self) -> None:
        table = self.query_one("#bench-table", DataTable)
        selected = self.selected_name()
        try:
            self.summaries = data.list_benchmarks()
        except SkytError as exc:
            self.summaries = ()
            self.notify(str(exc), severity="error", markup=False)
        self.query_one(ContentSwitcher).current = "bench-view" if self.summaries else "bench-empty"
        table.clear()
        for summary in self.summaries:
            table.add_row(
                Text(summary.name),
                str(summary.version.version),
                str(summary.version.n_items),
                key=summary.name,
            )
        names = [s.name for s in self.summaries]
        if selected in names:
            table.move_cursor(row=names.index(selected))
        self.show_selected()

    def selected_name(self) -> str | None:
        if not self.summaries or not self.is_mounted:
            return None
        row = self.query_one("#bench-table", DataTable).cursor_row
        return self.summaries[row].name if 0 <= row < len(self.summaries) else None

    @on(DataTable.RowHighlighted, "#bench-table")
    def _highlighted(self) -> None:
        if self.view is None or self.view.bench.name != self.selected_name():
            self.show_selected()

    def show_selected(self) -> None:
        name = self.selected_name()
        if name is None:
            self.view = None
            return
        try:
            self.view = data.benchmark_view(name, self.app.clock())
        except SkytError as exc:
            self.view = None
            self.query_one("#bench-overview-text", Static).update(Text(str(exc), style="red"))
            return
        view = self.view
        self.query_one("#bench-overview-text", Static).update(overview(view))
        self.query_one("#bench-history-text", Static).update(history_table(view.status.history))
        self._fill_fingerprints(view)
        self.report = None
        self.query_one("#bench-scatter", ScatterPlot).set_points([])
        self.query_one("#bench-systems", Static).update("")
        if view.has_scores:
            self.query_one("#bench-validation-text", Static).update(
                Text("validating the anchor sample…", style="dim")
            )
            self._validate(name, view.sample)
        else:
            self.query_one("#bench-validation-text", Static).update(no_scores_text(name))
        self.refresh_bindings()

    def _fill_fingerprints(self, view: data.BenchmarkView) -> None:
        table = self.query_one("#bench-fingerprint-table", DataTable)
        table.clear()
        held = set(view.status.held_out)
        difficulty = {item.id: item.difficulty for item in view.bench.items}
        table.add_rows(
            (
                Text(fp.issue_id),
                difficulty.get(fp.issue_id, "–"),
                "held-out"
                if fp.issue_id in held
                else "training"
                if fp.added_to_training
                else "pool",
                fp.content_hash,
                fp.solution_hash or "–",
                (fp.created_at or "–")[:10],
                (fp.added_to_training or "–")[:10],
            )
            for fp in view.fingerprints
        )

    @work(thread=True, exclusive=True, group="bench-validate", exit_on_error=False)
    def _validate(self, name: str, sample: benchmark.AnchorSample | None) -> None:
        try:
            report = data.validate_benchmark(name, sample)
        except SkytError as exc:
            self.post_message(ValidationDone(name, None, str(exc)))
        else:
            self.post_message(ValidationDone(name, report))

    def on_validation_done(self, message: ValidationDone) -> None:
        if message.name != self.selected_name():
            return
        if message.report is None:
            self.query_one("#bench-validation-text", Static).update(
                Text(f"validation failed: {message.error}", style="red")
            )
            return
        self.report = message.report
        self.query_one("#bench-validation-text", Static).update(validation_text(message.report))
        self.query_one("#bench-scatter", ScatterPlot).set_points(
            [(p.full_mean, p.estimate) for p in message.report.sample_check.points]
        )
        self.query_one("#bench-systems", Static).update(systems_table(message.report))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("rotate", "next_tab"):
            return self.view is not None
        return True

    def action_next_tab(self) -> None:
        tabs = self.query_one("#bench-tabs", TabbedContent)
        tabs.active = (
            TABS[(TABS.index(tabs.active) + 1) % len(TABS)] if tabs.active in TABS else TABS[0]
        )

    def action_reload(self) -> None:
        self.view = None
        self.load()

    def action_rotate(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        now = self.app.clock()
        try:
            plan = data.preview_rotation(name, now)
        except SkytError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if not plan.allowed:
            self.notify(f"Cannot rotate {name}: {plan.refusal}", severity="error", markup=False)
            return
        self.app.push_screen(
            ConfirmScreen(f"Rotate {name} now?", rotation_text(name, plan), "Rotate"),
            lambda yes: self._rotate(name, now) if yes else None,
        )

    def _rotate(self, name: str, now: Any) -> None:
        try:
            applied = data.apply_rotation(name, now)
        except SkytError as exc:
            self.notify(f"Rotation refused: {exc}", severity="error", markup=False)
            return
        record = applied.record
        self.notify(
            f"Rotation {record.number} of {name}: {len(record.moved_to_training)} item(s) moved to training, "
            f"{len(record.held_out)} held out.",
            markup=False,
        )
        self.action_reload()
