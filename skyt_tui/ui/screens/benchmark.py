"""Section 5, Benchmark: strata, the anchor sample and how it was chosen, the validation of every
anchor method side by side (with r and MAE against k), the systems' scores — measured or estimated
from their anchors —, the item list with fingerprints (sortable, filtered with `/`), the rotation
history with the ids each rotation moved, and "Rotate now" behind a confirmation that lists
everything that will move.

"Now" is the app's clock (`SkytApp.clock`), so tests and screenshots use a fixed date. A damaged
benchmark file marks its benchmark in the list (with the file and line) and hides nothing else.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group
from rich.table import Table
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
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.ui import data
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
MAX_IDS = 60
ITEM_COLUMNS = (
    "item",
    "difficulty",
    "set",
    "anchor",
    "content",
    "solution",
    "created",
    "in training since",
)
SHORT_HEADERS = {"difficulty": "diff", "anchor": "★", "in training since": "training"}
HASH_COLUMNS = (4, 5)
SHORT_HASH = 8
ITEM_PRIORITY = (0, 2, 3, 1, 4, 7, 5, 6)
"""Which item columns a narrow pane keeps first (indices into ITEM_COLUMNS): the item's creation
date and solution hash go first; the line under the table shows the highlighted item's left-out
and shortened columns in full."""
NO_TEXT = "(no text)"


def item_cell(row: tuple[str, ...], index: int, short: bool) -> str:
    value = row[index]
    if short and index in HASH_COLUMNS and value != "–":
        return value[:SHORT_HASH]
    return value


def choose_item_columns(
    width: int, rows: list[tuple[str, ...]], no_text: set[str], sort_column: int | None = None
) -> tuple[list[int], bool]:
    """The item columns that fit `width` cells and whether they are shortened (headers, hashes).

    Full form first; then short headers and 8-character hashes; then columns are left out whole,
    least important first (`ITEM_PRIORITY`), never cut mid-value."""
    marked = len(NO_TEXT) + 1 if any(row[0] in no_text for row in rows) else 0

    def needed(index: int, short: bool) -> int:
        header = ITEM_COLUMNS[index]
        if short:
            header = SHORT_HEADERS.get(header, header)
        widest = max((len(item_cell(row, index, short)) for row in rows), default=0)
        if index == 0:
            widest += marked
        arrow = 2 if index == sort_column else 0
        return max(widest, Text(header).cell_len + arrow) + 2  # one space each side

    for short in (False, True):
        if sum(needed(i, short) for i in range(len(ITEM_COLUMNS))) <= width:
            return list(range(len(ITEM_COLUMNS))), short
    chosen: set[int] = set()
    used = 0
    for index in ITEM_PRIORITY:
        if used + needed(index, True) <= width or not chosen:
            chosen.add(index)
            used += needed(index, True)
    return sorted(chosen), True


def item_line(row: tuple[str, ...], has_text: bool, indices: list[int]) -> Text:
    """The columns `indices` of one item in full (those the table leaves out or shortens)."""
    text = Text()
    text.append(row[0], style="bold")
    if not has_text:
        text.append(f" {NO_TEXT}", style="dim italic")
    for position, index in enumerate(indices):
        text.append(": " if position == 0 else " · ", style="dim")
        text.append(f"{ITEM_COLUMNS[index]} ", style="dim")
        text.append(row[index] or "–")
    return text


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


def id_list(ids: Any, limit: int | None = MAX_IDS) -> str:
    ids = list(ids)
    if not ids:
        return "–"
    if limit is None or len(ids) <= limit:
        return ", ".join(ids)
    return ", ".join(ids[:limit]) + f", … ({len(ids) - limit} more)"


def sample_line(sample: benchmark.AnchorSample) -> str:
    config = sample.config
    floor = "default floor" if config.floor is None else f"floor {config.floor}"
    return (
        f"{sample.size} of {sample.n_items} items, {sample.description}, rate {config.rate:g}, "
        f"{floor}, seed {sample.seed}, drawn {sample.recorded_at or '–'} from version "
        f"{sample.benchmark_version}"
    )


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
        text.append(
            "\nnot drawn yet: skyt-tui bench sample " + bench.name + " --method irt", style="dim"
        )
    else:
        text.append("\n" + sample_line(sample) + "\n")
        if sample.fallback:
            text.append(
                f"⚠ {sample.config.mode} fell back to stratified: {sample.fallback}\n",
                style="yellow",
            )
        if sample.choice is not None:
            text.append(f"auto chose {sample.choice.message}\n", style="dim")
        if sample.model is not None:
            how = (
                "the items nearest the centres of k clusters of the items' parameters, weighted "
                "by their clusters' shares (tinyBenchmarks); gp-IRT estimates"
                if sample.chosen_by == "cluster"
                else "items chosen for their information at the systems' ability quantiles"
            )
            text.append(
                f"2PL model of {len(sample.model.systems)} systems: {how}; new systems are "
                "estimated from their anchor scores (Estimates tab, `bench estimate`); "
                f"intervals {sample.calibration_note or 'not calibrated on later systems'}\n",
                style="dim",
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


def methods_table(
    results: tuple[benchmark.MethodResult, ...],
    config: benchmark.ValidationConfig,
    own: str | None = None,
    time_split: bool = False,
) -> Table:
    """The methods side by side: share of draws with r > threshold, medians, coverage."""
    from skyt_tui.engine.benchmark.validation import percent, trusted

    table = Table(box=None, header_style="dim", pad_edge=False)
    columns = ["method", "k", f"r>{config.threshold:g}", "r", "τ", "MAE", "cover"]
    if not time_split:
        columns.append("trusted")
    for column in columns:
        table.add_column(column, justify="left" if column == "method" else "right")
    for result in results:
        label = Text(
            result.method
            + (" (fell back)" if result.fallback else "")
            + (" ◂" if result.method == own else "")
        )
        if result.method == own:
            label.stylize("bold")
        row: list[Any] = [
            label,
            str(result.size),
            "–" if time_split and result.method == "irt" else percent(result.share_above),
            fmt3(result.pearson.median),
            fmt3(result.kendall.median),
            f"{result.mae.median:.3f}",
            percent(result.coverage),
        ]
        if not time_split:
            ok = trusted(result, config)
            row.append(Text("yes" if ok else "no", style="green" if ok else "yellow"))
        table.add_row(*row)
    return table


def validation_text(report: benchmark.ValidationReport) -> Group:
    check = report.sample_check
    text = Text()
    text.append(report.verdict + "\n", style="bold green" if report.trustworthy else "bold yellow")
    text.append(
        f"{report.config.draws} draws: each method chooses its anchors seeing "
        f"{report.n_choose} training systems (irt and cluster fit on them) and estimates the "
        f"{report.n_held_out} held-out ones; medians over the draws, cover = share of held-out "
        f"systems inside the {report.config.level:g} interval. ◂ this sample's method\n",
        style="dim",
    )
    parts: list[Any] = [text, methods_table(report.methods, report.config, report.method)]
    split = report.time_split
    after = Text()
    if split is not None:
        after.append(
            f"\ntime split: trained on the {len(split.train)} systems released before "
            f"{split.date}, tested on the {len(split.test)} after\n",
            style="bold",
        )
        parts.append(after)
        parts.append(methods_table(split.results, report.config, report.method, time_split=True))
    else:
        after.append(f"\ntime split: none ({report.time_split_note})\n", style="dim")
        parts.append(after)
    tail = Text()
    for warning in report.warnings:
        tail.append(f"⚠ {warning}\n", style="yellow")
    tail.append(
        f"\nthis sample ({len(check.ids)} items) on {len(check.points)} systems: Pearson r "
        f"{fmt3(check.pearson)}, Spearman {fmt3(check.spearman)}, Kendall τ {fmt3(check.kendall)}, "
        f"MAE {fmt3(check.mae)}"
        + (" (in-sample: the model was fitted on these systems)" if check.in_sample else "")
        + "\n"
    )
    tail.append(
        "each ● is a system: x its mean on all items, y its estimate from the anchor sample; "
        "· is y = x",
        style="dim",
    )
    parts.append(tail)
    return Group(*parts)


def curves(
    sizes: tuple[int, ...], results: tuple[benchmark.MethodResult, ...]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Median r and median MAE per method, aligned with `sizes`."""
    r: dict[str, list[float]] = {}
    mae: dict[str, list[float]] = {}
    for result in results:
        index = sizes.index(result.size) if result.size in sizes else None
        r.setdefault(result.method, [math.nan] * len(sizes))
        mae.setdefault(result.method, [math.nan] * len(sizes))
        if index is None:  # a stratified sample raised to one item per stratum
            index = min(range(len(sizes)), key=lambda i: abs(sizes[i] - result.size))
        r[result.method][index] = result.pearson.median
        mae[result.method][index] = result.mae.median
    return r, mae


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


def estimates_view(
    name: str,
    sample: benchmark.AnchorSample | None,
    estimates: tuple[benchmark.SystemEstimate, ...],
) -> Group | Text:
    """Systems scored on every item (measured) and systems scored on fewer (estimated), apart."""
    if sample is None:
        return Text(f"No anchor sample yet: skyt-tui bench sample {name} --method irt", style="dim")
    if not estimates:
        return Text("No per-system scores in this version.", style="dim")
    head = Text()
    head.append(f"scores from the {sample.size}-item anchor sample ({sample.description})\n")
    estimated = [e for e in estimates if not e.exact]
    head.append(
        f"{len(estimates) - len(estimated)} measured (scored on every item), "
        f"{len(estimated)} estimated (scored on fewer: ≈, with the {estimates[0].level:g} "
        "interval)\n",
        style="dim",
    )
    table = Table(box=None, header_style="dim", pad_edge=False)
    for column in ("system", "score", "interval", "scored", "anchors", "how"):
        table.add_column(column, justify="left" if column in ("system", "how") else "right")
    for estimate in sorted(estimates, key=lambda e: (-e.score, e.system)):
        style = "" if estimate.exact else "italic yellow"
        table.add_row(
            Text(estimate.system, style=style),
            Text(("" if estimate.exact else "≈") + fmt3(estimate.score), style=style),
            "" if estimate.exact else f"{fmt3(estimate.low)}–{fmt3(estimate.high)}",
            f"{estimate.scored_items}/{estimate.n_items}",
            f"{estimate.scored_anchors}/{estimate.n_anchors}",
            Text("measured" if estimate.exact else f"estimated ({estimate.method})", style=style),
        )
    parts: list[Any] = [head, table]
    warnings = [f"{e.system}: {w}" for e in estimated for w in e.warnings]
    if warnings:
        parts.append(Text("\n" + "\n".join(f"⚠ {w}" for w in warnings), style="yellow"))
    parts.append(
        Text(
            f"\nadd a system's anchor scores with: skyt-tui bench estimate {name} RESULTS.csv --add",
            style="dim",
        )
    )
    return Group(*parts)


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
    text.append("   (items from the bundled contracts)\n", style="dim")
    text.append(f"  $ skyt-tui bench import {name} --from-runs", style="bold")
    text.append("   (contracts × model@temperature from your stored runs)\n\n", style="dim")
    text.append(
        "A changed import becomes the next version; this screen then validates every anchor "
        "method on held-out systems and plots each system's estimate against its full score.",
        style="dim",
    )
    return text


def history_view(history: tuple[benchmark.RotationRecord, ...]) -> Group | Text:
    if not history:
        return Text("No rotation yet. The first rotation draws the held-out set.", style="dim")
    table = Table(box=None, header_style="dim", pad_edge=False)
    for column in benchmark.HISTORY_COLUMNS:
        table.add_column(column, justify="left" if column in ("at (UTC)", "period") else "right")
    for row in benchmark.history_rows(tuple(reversed(history))):
        table.add_row(*row)
    moved = Text()
    for record in reversed(history):
        moved.append(f"\nrotation {record.number}", style="bold")
        moved.append(f" ({record.at[:10]}) moved {len(record.moved_to_training)} to training: ")
        moved.append(id_list(record.moved_to_training, None))
        moved.append(f"\n  drew {len(record.held_out)} held out: ", style="dim")
        moved.append(id_list(record.held_out, None), style="dim")
        moved.append("\n")
    return Group(table, moved)


def rotation_text(
    name: str, plan: benchmark.RotationPlan, sample: benchmark.AnchorSample | None = None
) -> Text:
    """What a forced rotation now will move, every id, for the confirmation."""
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
    anchors_moving = sorted(set(sample.ids) & set(record.moved_to_training)) if sample else []
    if anchors_moving:
        text.append(
            f"⚠ {len(anchors_moving)} item(s) of the current anchor sample move to training "
            f"(exposed from now on): {', '.join(anchors_moving)}. Estimates from these anchors "
            "may be inflated for models trained on them; consider drawing a new sample.\n\n",
            style="bold yellow",
        )
    text.append(
        f"• {len(record.moved_to_training)} held-out item(s) move to training", style="bold"
    )
    text.append(
        f" (added_to_training = {record.at[:10]}): {id_list(record.moved_to_training, None)}\n"
    )
    text.append(f"• a new held-out set of {len(record.held_out)} item(s) is drawn", style="bold")
    text.append(f" from the pool of {plan.pool_before}: ")
    text.append(
        ", ".join(
            f"{stratum} {record.drawn[stratum]}/{record.target[stratum]}"
            for stratum in sorted(record.target)
        )
    )
    text.append(f"\n  {id_list(record.held_out, None)}\n")
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
        Binding("slash", "filter_items", "Filter"),
        Binding("s", "sort_items", "Sort"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.summaries: tuple[benchmark.BenchmarkSummary, ...] = ()
        self.view: data.BenchmarkView | None = None
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
            self.summaries = data.list_benchmarks()
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
            self.view = data.benchmark_view(name, self.app.clock())
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

    def _collect_items(self, view: data.BenchmarkView) -> None:
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

    def _matches(self, row: tuple[str, ...], needle: str) -> bool:
        cells = (*row, NO_TEXT) if row[0] in self.no_text else row
        return any(needle in cell.casefold() for cell in cells)

    def _fill_items(self) -> None:
        """The item table: `item_rows` filtered by `item_filter`, sorted by `sort_column`, in the
        columns that fit the pane (`choose_item_columns`)."""
        table = self.query_one("#bench-fingerprint-table", DataTable)
        needle = self.item_filter.casefold()
        rows = [r for r in self.item_rows if not needle or self._matches(r, needle)]
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
            estimates = data.benchmark_estimates(name)
        except SkytError as exc:
            self.post_message(EstimatesDone(name, (), str(exc)))
        else:
            self.post_message(EstimatesDone(name, estimates))
        try:
            report = data.validate_benchmark(name, sample)
        except SkytError as exc:
            self.post_message(ValidationDone(name, None, str(exc)))
            return
        self.post_message(ValidationDone(name, report))
        try:
            sizes, results = data.method_curves(name, report.n_items, report.config.seed)
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
            note=f"{message.results[0].draws} draws per k, the same splits for every method",
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
            plan = data.preview_rotation(name, now)
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
