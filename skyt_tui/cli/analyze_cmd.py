"""`skyt-tui analyze SOURCE...`: repeatability metrics of recorded samples."""

from __future__ import annotations

import argparse

from rich.table import Table

from skyt_tui.cli.output import console, fmt3, print_json
from skyt_tui.engine.analysis import analyze_run
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.metrics import DEFAULT_TAU
from skyt_tui.engine.normalize import LEVELS
from skyt_tui.engine.sources import load_sources


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
        help="repeatability metrics of recorded samples (SKYT files/folders, human-eval folders, JSONL)",
        description="Group recorded samples into runs and report their repeatability metrics.",
    )
    parser.add_argument("sources", nargs="+", metavar="SOURCE",
                        help="SKYT experiment .json file or folder, human-eval folder, or .jsonl of samples")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument("--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)")
    parser.add_argument("--tau", type=_tau, default=DEFAULT_TAU, help="threshold for P_tau (default: 0.1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    runs = load_sources(args.sources)
    if not runs:
        raise InputError("no runs found in the given sources")
    analyses = [analyze_run(run, level=args.level, tau=args.tau) for run in runs]
    if args.json:
        print_json({"runs": [analysis.summary() for analysis in analyses], "level": args.level, "tau": args.tau})
        return 0
    table = Table(title=f"{len(analyses)} run(s) · level {args.level} · τ {args.tau:g}")
    for column in ("run", "contract", "model", "T", "n", "R_raw", f"R_sig[{args.level}]", "R_pairwise", "distinct", "entropy"):
        table.add_column(column, justify="right" if column not in ("run", "contract", "model") else "left")
    for analysis in analyses:
        m = analysis.metrics
        run_input = analysis.run
        table.add_row(
            run_input.id, run_input.contract_id, run_input.model or "–",
            "–" if run_input.temperature is None else f"{run_input.temperature:g}",
            str(m.n), fmt3(m.R_raw), fmt3(m.R_sig[args.level]), fmt3(m.R_pairwise),
            str(m.distinct[args.level]), f"{m.entropy_bits[args.level]:.2f}",
        )
    console().print(table)
    return 0
