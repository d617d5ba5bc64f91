"""`skyt-tui analyze SOURCE...`: the whole pipeline over recorded samples.

oracle (sandboxed) → canon (first passing sample of each run) → d_pre →
repair → d_post → metrics. Nothing is written to the store.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_executor_options,
    add_json_option,
    add_probe_options,
    add_source_options,
    add_tau_option,
    apply_executor,
    apply_isolation_setting,
    executor_lines,
    print_executor,
    probe_settings_of,
    source_load_options,
    tau_of,
)
from skyt_tui.cli.output import (
    check_output_file,
    console,
    fmt3,
    note_distance_implementation,
    print_json,
    print_table,
    warn,
    with_stage_progress,
    write_output_file,
)
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.report import analysis_rows, samples_csv
from skyt_tui.engine.sources.agreement import Judged, run_agreement, source_summaries
from skyt_tui.engine.sources.recorded import (
    assembly_label,
    load_sources,
    provenance,
    resolve_contracts,
    trivial_asserts_label,
)
from skyt_tui.engine.versions import DEFAULT_DISTANCE, DISTANCE_FUNCTIONS, distance_version

if TYPE_CHECKING:  # the pipeline (oracle, sandbox, canon, repair) loads when the command runs
    from skyt_tui.engine.analysis.pipeline import RunAnalysis

TABLE_METRICS = (
    "pass_rate",
    "R_raw",
    "R_anchor_post",
    "rescue_rate",
    "mu_post",
    "P_tau_post",
    "R_pairwise",
)
"""The table's metric columns (headers from `measure.registry`; a metric with a pair shows pre→post)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "analyze",
        description="Group recorded samples into runs; check them with the sandboxed oracle, fix each run's "
        "canon (its first passing sample), repair towards it and report every metric. Nothing is stored.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a file (or folder) of recorded samples, recognised from its content: SKYT, "
        "human-eval, EvalPlus, Inspect, lm-evaluation-harness, bigcode, promptfoo, OpenAI Batch, "
        "or your own records (docs/coming-from.md); - reads standard input",
    )
    add_json_option(parser)
    parser.add_argument(
        "--samples", action="store_true", help="include per-sample records in --json output"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="also write one row per sample to FILE (- writes only the CSV, to standard output)",
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)"
    )
    parser.add_argument(
        "--distance",
        choices=tuple(DISTANCE_FUNCTIONS),
        default=DEFAULT_DISTANCE,
        help="distance for d_pre, d_post and R_pairwise: levenshtein (default) or tree "
        "(normalised AST tree edit distance; R_pairwise is then a structural repeatability)",
    )
    add_tau_option(parser)
    parser.add_argument(
        "--no-oracle",
        action="store_true",
        help="skip the oracle (and so canon and repair): signature and pairwise metrics only",
    )
    parser.add_argument("--no-repair", action="store_true", help="skip repair (d_post = d_pre)")
    add_source_options(parser)
    add_executor_options(parser)
    add_probe_options(parser)
    parser.set_defaults(handler=run)


def read_sources(args: argparse.Namespace, *, require_contract: bool) -> list:
    """The runs of the given sources, each with the contract that judges it (sources.resolve_contracts)."""
    from skyt_tui.engine.contracts.catalog import get_contract

    options, fmt, mapping = source_load_options(args)
    runs = load_sources(args.sources, mapping=mapping, options=options, format=fmt)
    override = get_contract(args.contract) if getattr(args, "contract", None) else None
    return resolve_contracts(runs, override=override, require=require_contract)


def run(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    args.tau = tau_of(args)
    csv_to_stdout = args.csv is not None and str(args.csv) == "-"
    if csv_to_stdout and args.json:
        raise InputError("--csv - and --json both write to standard output; give --csv a file")
    args.probe_settings = probe_settings_of(args)
    if args.probe_settings is not None and args.no_oracle:
        raise InputError("--probe needs the oracle; drop --no-oracle")
    apply_executor(args)
    runs = read_sources(args, require_contract=not args.no_oracle)
    if not runs:
        raise InputError("no runs found in the given sources")
    if args.csv is not None:
        check_output_file(args.csv, "--csv")
    analyses = _analyze(runs, args)
    for analysis in analyses:
        for limited in analysis.limited:
            warn(limited.line(analysis.run.id))
    if args.csv is not None:
        write_output_file(args.csv, samples_csv(analysis_rows(analyses)), "--csv")
    if csv_to_stdout:
        return 0
    if not args.json:
        print_executor(executor_lines())
    judged = [_judged(a) for a in analyses]
    if args.json:
        print_json(
            "analysis",
            {
                "runs": [_run_dict(a, j, args.samples) for a, j in zip(analyses, judged)],
                "sources": source_summaries(judged, _losses()),
                "level": args.level,
                "tau": args.tau,
                "distance": distance_version(args.level, args.distance),
            },
        )
        return 0
    _print_table(analyses, args)
    _print_sources(source_summaries(judged, _losses()))
    return 0


def _losses() -> dict[str, str]:
    from skyt_tui.engine.sources.formats import formats

    return {f.name: f.loses for f in formats()} | {"jsonl": "every field not mapped"}


def _judged(analysis: RunAnalysis) -> Judged:
    names = tuple(t.name for t in analysis.contract.tests) if analysis.contract else ()
    return Judged(
        run=analysis.run,
        passed={s.index: s.passed for s in analysis.samples},
        tests={
            s.index: (names, s.pass_vector)
            for s in analysis.samples
            if s.pass_vector is not None and len(s.pass_vector) == len(names)
        },
    )


def _run_dict(analysis: RunAnalysis, judged: Judged, with_samples: bool) -> dict:
    out = {**analysis.to_dict(with_samples=with_samples), **provenance(analysis.run)}
    agreement = run_agreement(judged)
    if agreement is not None:
        out["tool_verdicts"] = agreement
    if analysis.run.tool is not None and analysis.run.tool.generation:
        out["generation"] = dict(sorted(analysis.run.tool.generation.items()))
    if analysis.run.tool_run is not None:
        out["tool_run"] = analysis.run.tool_run.to_dict()
    if with_samples:
        run = analysis.run
        for sample in out.get("samples", []):
            index = sample["index"]
            if run.assembly:
                sample["assembly"] = run.assembly[index]
            if run.extraction:
                sample["extraction"] = run.extraction[index]
            recorded = run.fact(index).to_dict()
            if recorded:
                sample["recorded"] = recorded
    return out


def _print_sources(summaries: list[dict]) -> None:
    out = console()
    for entry in summaries:
        ended = entry.get("tool_run")
        if entry.get("tool") is None and not ended:
            continue
        expected = (ended or {}).get("samples_expected")
        line = (
            f"{printable(entry['file'])} ({entry['format']}): {counted(entry['samples'], 'sample')}"
            + (f" of {expected} expected" if expected is not None else "")
            + (" · pass over the recorded samples only" if ended else " · pass")
            + f" {fmt3(entry['pass_rate'])} by skyt-tui, {fmt3(entry['tool_pass_rate'])} by "
            f"{entry['tool']}"
        )
        if entry.get("disagreements") is not None:
            line += f" · {entry['disagreements']} disagreement(s)"
        if entry.get("evalplus"):
            rates = entry["evalplus"]
            line += (
                f" · base {fmt3(rates['base']['skyt'])}/{fmt3(rates['base']['tool'])}, "
                f"plus {fmt3(rates['plus']['skyt'])}/{fmt3(rates['plus']['tool'])} (skyt-tui/evalplus)"
            )
        if entry.get("tool_note"):
            line += f" · {entry['tool_note']}"
        out.print(line, markup=False, soft_wrap=True)
        if ended:
            from skyt_tui.engine.sources.run_input import ToolRun

            facts = ToolRun.from_dict(ended)
            if facts is not None:
                out.print(
                    f"{printable(entry['file'])}: INCOMPLETE: {printable(facts.line())}",
                    markup=False,
                    soft_wrap=True,
                )


def _analyze(runs, args) -> list[RunAnalysis]:
    from skyt_tui.engine.analysis.pipeline import analyze_runs

    options = dict(
        level=args.level,
        tau=args.tau,
        oracle=not args.no_oracle,
        repair_samples=not args.no_repair,
        distance=args.distance,
        probe=args.probe_settings,
    )
    note_distance_implementation(args.distance)
    return with_stage_progress(
        lambda progress: analyze_runs(runs, progress=progress, **options), quiet=args.json
    )


def _print_table(analyses: list[RunAnalysis], args) -> None:
    table = Table(
        title=f"{len(analyses)} run(s) · {distance_version(args.level, args.distance)} · τ {args.tau:g}"
    )
    shown = [registry.metric(name) for name in TABLE_METRICS]
    if any(a.metrics.compliance_rate is not None for a in analyses):
        shown.insert(1, registry.metric("compliance_rate"))  # a contract with coding rules
    columns = (
        "run",
        "model",
        "T",
        "n",
        *(f"{m.header} pre→post" if m.pair else m.header for m in shown),
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("run", "model") else "right")
    for analysis in analyses:
        m = analysis.metrics
        run_input = analysis.run
        table.add_row(
            run_input.id,
            run_input.model or "–",
            "–" if run_input.temperature is None else f"{run_input.temperature:g}",
            str(m.n),
            *(
                f"{fmt3(getattr(m, metric.pair))}→{fmt3(getattr(m, metric.name))}"
                if metric.pair
                else fmt3(getattr(m, metric.name))
                for metric in shown
            ),
        )
    out = console()
    print_table(out, table)
    for analysis in analyses:
        facts = provenance(analysis.run)
        override = facts.get("contract_override")
        if override:
            out.print(
                f"{analysis.run.id}: judged by --contract {override['id']} instead of "
                f"{override['instead_of']}",
                markup=False,
                soft_wrap=True,
            )
        if facts.get("assembly"):
            out.print(
                f"{analysis.run.id}: programs assembled: {assembly_label(facts['assembly'])}",
                markup=False,
                soft_wrap=True,
            )
        if facts.get("trivial_asserts"):
            out.print(
                f"{analysis.run.id}: {trivial_asserts_label(facts['trivial_asserts'])}",
                markup=False,
                soft_wrap=True,
            )
    probed = [a for a in analyses if a.probe is not None]
    if probed:
        from skyt_tui.cli.probe_output import print_probe

        print_probe(
            out,
            [a.probe for a in probed if a.probe is not None],
            [[f"{a.run.id} #{s.index}" for s in a.samples] for a in probed],
        )
        for a in probed:
            figures = a.probe_figures() or {}
            out.print(
                f"{a.run.id}: R_behavioral {fmt3(figures.get('R_behavioral'))} on tests, "
                f"{fmt3(figures.get('R_behavioral_probe'))} on probes",
                markup=False,
                soft_wrap=True,
            )
    isolation = {a.oracle_info.get("isolation") for a in analyses if a.oracle_info}
    if "reduced" in isolation:
        out.print(
            Text.assemble(
                ("reduced isolation:", "yellow"),
                " bubblewrap is not available; samples ran with limits, seccomp "
                "and Landlock only (see docs/oracle.md).",
            )
        )
