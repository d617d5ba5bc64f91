"""`skyt-tui gate RUN --min-r-anchor 0.8`: exit 0 when a run meets the thresholds, 1 when not."""

from __future__ import annotations

import argparse

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option, add_tau_option, apply_isolation_setting, tau_of
from skyt_tui.cli.output import print_json, resolve_run
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.gate import Threshold, evaluate, parse_threshold
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.printable import printable
from skyt_tui.engine.runs import analyses, run_store

SHORTCUTS = (
    (
        "--min-r-anchor",
        "R_anchor_post",
        "min",
        "minimum R_anchor_post (share of samples equal to the canon after repair)",
    ),
    ("--min-r-anchor-pre", "R_anchor_pre", "min", "minimum R_anchor_pre (before repair)"),
    (
        "--min-pass-rate",
        "pass_rate",
        "min",
        "minimum share of samples passing the oracle (under the contract's pass threshold)",
    ),
    (
        "--min-pass-all-rate",
        "pass_all_rate",
        "min",
        "minimum share of samples passing every test, whatever the contract's threshold",
    ),
    (
        "--min-compliance",
        "compliance_rate",
        "min",
        "minimum share of samples keeping the contract's coding rules (contracts with rules)",
    ),
    ("--min-r-raw", "R_raw", "min", "minimum R_raw (share of byte-identical samples)"),
    ("--max-failed", "n_failed", "max", "most samples allowed to have failed generation"),
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "gate",
        description="Check stored runs against thresholds; print one line per run and exit 0 (all pass) "
        "or 1 (any fails, or a metric is not computed, or a run is incomplete).",
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="run id (or a unique prefix, or 'latest')"
    )
    for flag, metric, _kind, help_text in SHORTCUTS:
        parser.add_argument(
            flag, type=float, dest=f"shortcut_{metric}", metavar="X", help=help_text
        )
    parser.add_argument(
        "--min", action="append", default=[], metavar="METRIC=X", help="any metric ≥ X (repeatable)"
    )
    parser.add_argument(
        "--max", action="append", default=[], metavar="METRIC=X", help="any metric ≤ X (repeatable)"
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)"
    )
    add_tau_option(parser)
    add_json_option(parser)
    parser.set_defaults(handler=run)


def thresholds_from(args: argparse.Namespace) -> list[Threshold]:
    thresholds = []
    for flag, metric, kind, _ in SHORTCUTS:
        value = getattr(args, f"shortcut_{metric}")
        if value is None:
            continue
        if metric == "n_failed":
            if not value >= 0:
                raise InputError(f"{flag}: a number of samples, 0 or more; got {value:g}")
        elif not 0 <= value <= 1:  # also refuses nan
            raise InputError(f"{flag}: a share between 0 and 1 (e.g. 0.8); got {value:g}")
        thresholds.append(Threshold(metric=metric, bound=value, kind=kind))
    thresholds += [parse_threshold(text, "min") for text in args.min]
    thresholds += [parse_threshold(text, "max") for text in args.max]
    return thresholds


def run(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    tau = tau_of(args)
    thresholds = thresholds_from(args)
    results = []
    for text in args.runs:
        stored = run_store.load_run(resolve_run(text))
        analysis = analyses.stored_analysis(stored, level=args.level, tau=tau)
        complete = not stored.missing_indexes
        results.append(
            evaluate(
                stored.id,
                analysis.metrics,
                thresholds,
                complete=complete,
                progress=(len(stored.samples), stored.meta.n),
            )
        )
    if args.json:
        print_json(
            "gate",
            {"passed": all(r.passed for r in results), "runs": [r.to_dict() for r in results]},
        )
    else:
        for result in results:
            print(printable(result.line()))
    return 0 if all(r.passed for r in results) else 1
