"""`skyt-tui runs list` and `skyt-tui report RUN`: what is stored, and what one run measured."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option, add_tau_option, apply_isolation_setting, tau_of
from skyt_tui.cli.output import (
    _json_safe,
    check_output_file,
    console,
    fmt3,
    limited_lines,
    plain,
    print_json,
    print_table,
    resolve_run,
    table_width,
    warn,
    write_output_file,
)
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.report import SUMMARY_METRICS, report_dict, sample_rows, samples_csv
from skyt_tui.engine.runs.run_import import (
    incomplete_line,
    stored_provenance,
    tool_verdicts_line,
)
from skyt_tui.engine.sources.recorded import assembly_label, trivial_asserts_label

NOT_COMPUTED = "not computed"


def register(subparsers: argparse._SubParsersAction) -> None:
    runs_parser = add_command(subparsers, "runs", description="List the runs in the store.")
    runs_sub = runs_parser.add_subparsers(dest="runs_command", metavar="SUBCOMMAND", required=True)
    listing = runs_sub.add_parser("list", help="every stored run with its state and sample counts")
    add_json_option(listing)
    listing.set_defaults(handler=list_command)

    report = add_command(
        subparsers,
        "report",
        description="Analyse a stored run (cached until its samples or the pipeline versions change) "
        "and print its metrics and every sample.",
    )
    report.add_argument("run", metavar="RUN", help="run id (or a unique prefix, or 'latest')")
    output = report.add_mutually_exclusive_group()
    add_json_option(output)
    output.add_argument(
        "--csv", metavar="FILE", help="write one row per sample to FILE ('-' for stdout)"
    )
    report.add_argument("--brief", action="store_true", help="metrics only, no per-sample table")
    report.add_argument(
        "--samples",
        action="store_true",
        help="with --json: include each sample's response and code",
    )
    report.add_argument(
        "--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)"
    )
    add_tau_option(report)
    report.set_defaults(handler=report_command)


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def list_command(args: argparse.Namespace) -> int:
    summaries = run_store.list_runs()
    if args.json:
        print_json("runs", {"runs": [_summary_dict(s) for s in summaries]})
        return 0
    if not summaries:
        console().print(run_store.no_runs_yet(), markup=False, soft_wrap=True)
        return 0
    out = console()
    id_width = max(len(s.id) for s in summaries)
    title = f"{counted(len(summaries), 'run')} in {locations.runs_dir()}"
    rows = [_list_row(s) for s in summaries]
    if table_width(out) - (id_width + 7 + 6 + 11) - 4 * 3 < 30 + 3 + 12:
        _print_two_line_list(out, title, rows, id_width)
        return 0
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("run", no_wrap=True, min_width=id_width)
    table.add_column("samples", justify="right", no_wrap=True, min_width=7)
    table.add_column("failed", justify="right", no_wrap=True, min_width=6)
    table.add_column("state", no_wrap=True, min_width=11)
    table.add_column("model", no_wrap=True, overflow="ellipsis", max_width=30)
    table.add_column("label", no_wrap=True, overflow="ellipsis")
    for row in rows:
        table.add_row(*(plain(cell) for cell in row))
    print_table(out, table)
    return 0


def _list_row(s: run_store.RunSummary) -> tuple[str, str, str, str, str, str]:
    if s.meta is None:
        return s.id, "–", "–", "damaged", "–", s.error or ""
    m = s.meta
    return (
        s.id,
        f"{s.n_ok + s.n_failed}/{m.n}",
        str(s.n_failed),
        s.state,
        f"{m.provider}/{m.model or '–'}",
        m.label,
    )


def _print_two_line_list(out: Any, title: str, rows: list[tuple[str, ...]], id_width: int) -> None:
    """For narrow terminals: the counts on the run's line, model and label dimmed beneath it."""
    out.print(plain(title))
    out.print(plain(f"{'run':<{id_width}}  {'samples':>7}  {'failed':>6}  state", style="bold"))
    for run_id, samples, failed, state, model, label in rows:
        out.print(plain(f"{run_id:<{id_width}}  {samples:>7}  {failed:>6}  {state}"))
        detail = plain("  " + " · ".join(part for part in (model, label) if part), style="dim")
        detail.truncate(out.width, overflow="ellipsis")
        out.print(detail, no_wrap=True)


def _summary_dict(s: run_store.RunSummary) -> dict[str, Any]:
    if s.meta is None:
        return {"id": s.id, "state": s.state, "error": s.error}
    m = s.meta
    return {
        "id": s.id,
        "contract_id": m.contract_id,
        "contract_hash": m.contract_hash,
        "provider": m.provider,
        "model": m.model,
        "temperature": m.temperature,
        "n": m.n,
        "seed": m.seed,
        "created": m.created,
        "status": m.status,
        "state": s.state,
        "ok": s.n_ok,
        "failed": s.n_failed,
        "truncated": s.n_truncated,
        "label": m.label,
        "note": m.note,
        "origin": m.origin,
        "sweep": m.sweep,
    }


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt3(value)
    return str(value)


def _passed_cell(row: dict[str, Any]) -> str:
    """`yes` (every test), `yes 5/6 ≥0.8` (passed under the contract's threshold, not every
    test), `no 3/6 <0.8`, `no`, or `–` (not judged): the app's verdict column in words."""
    passed, total, threshold = row["passed"], row["tests_total"], row["threshold"]
    counted = (
        row["passed_all"] is not None
        and isinstance(total, int)
        and total > 0
        and isinstance(row["tests_passed"], int)
        and isinstance(threshold, (int, float))
        and threshold < 1.0
    )
    if passed is None or not counted or (passed and row["passed_all"]):
        return _shown(passed)
    sign = "≥" if passed else "<"
    return f"{_shown(passed)} {row['tests_passed']}/{total} {sign}{threshold:g}"


def _rules_cell(row: dict[str, Any]) -> Text:
    """Compliance with the contract's coding rules: `yes`, or `no` and the broken rules."""
    if row["compliant"] is None:
        return plain("–")
    if row["compliant"]:
        return plain("yes")
    broken = (row["violations"] or "").split(" | ")
    shown = broken[0] + (f" +{len(broken) - 1}" if len(broken) > 1 else "")
    return plain(f"no: {shown}")


def _print_report(run: run_store.StoredRun, analysis: StoredAnalysis, brief: bool) -> None:
    out = console()
    meta = run.meta
    m = analysis.metrics
    out.print(f"run {meta.id}", style="bold", markup=False)
    out.print(
        f"contract {meta.contract_id} · {meta.provider}/{meta.model or '–'} · T={_t(meta.temperature)} · "
        f"{run.n_ok} ok, {run.n_failed} failed, {len(run.missing_indexes)} missing of {meta.n} · "
        f"{run.state}",
        markup=False,
    )
    if run.state == run_store.DAMAGED:
        for line in run.damaged:
            out.print(f"damaged: {line}", style="red", markup=False, soft_wrap=True)
        out.print(
            f"the metrics below cover {len(run.samples)} of {counted(meta.n, 'sample')}: this run is not complete",
            style="red",
            markup=False,
        )
    facts = stored_provenance(run)
    override = facts.get("contract_override")
    if override:
        out.print(
            f"judged by --contract {override['id']} instead of {override['instead_of']}",
            style="yellow",
            markup=False,
            soft_wrap=True,
        )
    elif facts["contract"]["origin"] == "embedded":
        out.print(
            f"judged by the contract embedded in {facts['contract'].get('source_file')}",
            markup=False,
            soft_wrap=True,
        )
    if facts.get("assembly"):
        out.print(f"programs assembled: {assembly_label(facts['assembly'])}", markup=False)
    verdicts = _tool_verdicts(run, analysis).get("tool_verdicts")
    if verdicts:
        out.print(printable(tool_verdicts_line(verdicts)), markup=False, soft_wrap=True)
    cut_short = incomplete_line(meta.origin)
    if cut_short:
        out.print(printable(cut_short), style="bold yellow", markup=False, soft_wrap=True)
    if facts.get("trivial_asserts"):
        out.print(trivial_asserts_label(facts["trivial_asserts"]), markup=False)
    if meta.label:
        out.print(f"label: {meta.label}", markup=False)
    if meta.note:
        out.print(f"note: {meta.note}", markup=False)
    table = Table(title=f"metrics · level {m.level} · τ {m.tau:g} · canon {m.canon}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_row("N (samples with code)", str(m.n), "")
    table.add_row("n_failed", str(m.n_failed), "")
    if m.n_limited:  # only where a sample was too long for them
        table.add_row("n_limited", str(m.n_limited), "")
    if m.distance_bounds:
        table.add_row("distance_bounds", str(m.distance_bounds), "")
    measured = m.n > 0  # without code, the engine's figures are 0.000s that measure nothing
    for name in SUMMARY_METRICS:
        value = getattr(m, name, None) if measured else None
        interval = m.ci.get(name) if measured else None
        table.add_row(
            plain(name),
            registry.metric(name).show(value) if value is not None else NOT_COMPUTED,
            f"[{fmt3(interval[0])}, {fmt3(interval[1])}]" if interval else "",
        )
    for level in LEVELS:
        table.add_row(
            plain(f"R_sig[{level}]"), fmt3(m.R_sig[level]) if measured else NOT_COMPUTED, ""
        )
    for level in LEVELS:
        table.add_row(
            plain(f"distinct / entropy [{level}]"),
            f"{m.distinct[level]} / {m.entropy_bits[level]:.2f} bits" if measured else NOT_COMPUTED,
            "",
        )
    print_table(out, table)
    if not measured:
        out.print("no sample of the run has code: no metric is computed", style="yellow")
    canon = analysis.canon
    if canon.status is not None and not canon.established:
        out.print(f"canon: {canon.status} — {canon.reason}", style="yellow", markup=False)
    if analysis.oracle.isolation == "reduced":
        out.print(
            "oracle ran with reduced isolation (bubblewrap not available); see docs/oracle.md",
            style="yellow",
            markup=False,
        )
    if m.invariant_violations:
        out.print(
            "invariant violations: " + "; ".join(m.invariant_violations),
            style="red",
            markup=False,
        )
    rows = sample_rows(run, analysis)
    failed = [r for r in rows if r["status"] == run_store.FAILED]
    for row in failed:
        out.print(
            f"sample {row['index']} failed"
            + (f" after {counted(row['attempts'], 'attempt')}" if row["attempts"] else "")
            + f": {row['error']}",
            markup=False,
        )
    if run.missing_indexes:
        out.print(
            f"missing samples: {len(run.missing_indexes)} (continue with `skyt-tui resume {meta.id}`)",
            markup=False,
        )
    if brief:
        return
    samples = Table(title="samples (generation order)")
    # a `rules` column after `passed` when the contract has coding rules
    with_rules = any(row["compliant"] is not None for row in rows)
    columns = ["#", "status", "d_pre", "d_post", "passed", "parses", "finish", "latency s"]
    if with_rules:
        columns.insert(columns.index("passed") + 1, "rules")
    for column in (*columns, "signature"):
        samples.add_column(
            column, justify="right" if column in ("#", "d_pre", "d_post", "latency s") else "left"
        )
    for row in rows:
        finish = (row["finish_reason"] or "–") + (" (truncated)" if row["truncated"] else "")
        rules = (_rules_cell(row),) if with_rules else ()
        samples.add_row(
            str(row["index"]),
            row["status"],
            _shown(row["d_pre"]),
            _shown(row["d_post"]),
            _passed_cell(row),
            *rules,
            _parses_cell(row),
            plain(finish),
            _shown(row["latency_s"]),
            row["signature_level"] or "–",
        )
    print_table(out, samples)
    if rows and all(r["d_pre"] is None for r in rows if r["status"] == run_store.OK):
        out.print(f"d_pre/d_post: {NOT_COMPUTED} (canon: {m.canon})", markup=False)


def _parses_cell(row: dict[str, Any]) -> str:
    """yes / no, or "long": a program skyt-tui does not parse (counted all the same)."""
    if row["parse_error"] is None:
        return "–"
    if row["parse_error"] and row.get("limited"):  # a program over the parse bound
        return "long"
    return "no" if row["parse_error"] else "yes"


def _tool_verdicts(run: run_store.StoredRun, analysis: StoredAnalysis) -> dict[str, Any]:
    from skyt_tui.engine.runs.run_import import stored_tool_verdicts

    verdicts = stored_tool_verdicts(run, analysis)
    return {"tool_verdicts": verdicts} if verdicts is not None else {}


def report_command(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    tau = tau_of(args)
    if args.csv:
        check_output_file(Path(args.csv), "--csv")
    run = run_store.load_run(resolve_run(args.run))
    analysis = analyses.stored_analysis(run, level=args.level, tau=tau)
    for line in limited_lines(run.id, analysis):
        warn(line)
    if args.json:
        print_json("report", report_dict(run, analysis, with_text=args.samples))
        return 0
    if args.csv:
        rows = [_json_safe(r) for r in sample_rows(run, analysis)]
        write_output_file(Path(args.csv), samples_csv(rows), "--csv")
        if args.csv != "-":
            console().print(f"wrote {len(run.samples)} sample rows to {args.csv}", markup=False)
        return 0
    _print_report(run, analysis, args.brief)
    return 0
