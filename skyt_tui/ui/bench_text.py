"""How a benchmark reads on the Benchmark screen: its overview, the validation report, the estimates,
the rotation history and preview, and the item list's columns fitted to the pane's width.

Only `Text`, tables and groups built from plain strings: item ids, system names and file names come
from outside files, so nothing here is parsed as markup.
"""

from __future__ import annotations

import math
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from skyt_tui.engine import benchmark
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.ui import bench_data

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
        f"{sample.size} of {counted(sample.n_items, 'item')}, {sample.description}, rate {config.rate:g}, "
        f"{floor}, seed {sample.seed}, drawn {sample.recorded_at or '–'} from version "
        f"{sample.benchmark_version}"
    )


def overview(view: bench_data.BenchmarkView) -> Group:
    bench, sample, status = view.bench, view.sample, view.status
    info = bench.versions[-1]
    head = Text()
    head.append(f"{bench.name}", style="bold")
    head.append(
        f" · version {bench.version} of {len(bench.versions)} · {counted(info.n_items, 'item')} · "
        f"{counted(info.n_systems, 'system')} · {counted(info.n_results, 'score')}"
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
                f"2PL model of {counted(len(sample.model.systems), 'system')}: {how}; new systems are "
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
        f"{counted(report.config.draws, 'draw')}: each method chooses its anchors seeing "
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
            f"\ntime split: trained on the {counted(len(split.train), 'system')} released before "
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
        f"\nthis sample ({counted(len(check.ids), 'item')}) on {counted(len(check.points), 'system')}: Pearson r "
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
            Text(printable(point.system)),
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
            f"⚠ {counted(len(anchors_moving), 'item')} of the current anchor sample "
            f"{'moves' if len(anchors_moving) == 1 else 'move'} to training "
            f"(exposed from now on): {', '.join(anchors_moving)}. Estimates from these anchors "
            "may be inflated for models trained on them; consider drawing a new sample.\n\n",
            style="bold yellow",
        )
    text.append(
        f"• {counted(len(record.moved_to_training), 'held-out item', verb='move')} to training",
        style="bold",
    )
    text.append(
        f" (added_to_training = {record.at[:10]}): {id_list(record.moved_to_training, None)}\n"
    )
    text.append(
        f"• a new held-out set of {counted(len(record.held_out), 'item')} is drawn", style="bold"
    )
    text.append(f" from the pool of {plan.pool_before}: ")
    text.append(
        ", ".join(
            f"{stratum} {record.drawn[stratum]}/{record.target[stratum]}"
            for stratum in sorted(record.target)
        )
    )
    text.append(f"\n  {id_list(record.held_out, None)}\n")
    text.append(f"• pool after: {counted(record.pool_after, 'item')} never exposed\n")
    for warning in plan.warnings:
        text.append(f"⚠ {warning}\n", style="yellow")
    text.append("\nNothing is deleted: the rotation is appended to the history.", style="dim")
    return text
