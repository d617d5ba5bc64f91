"""`bench sample`, `bench validate` and `bench estimate`: draw the anchor sample, check that it
predicts the full benchmark, and estimate new systems from their anchor scores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
from typing import Any

from rich.table import Table

from skyt_tui.cli.bench_cmd.common import NAME_HELP, import_dict, jsonable, say, text_cell
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, fmt3, print_json, print_table
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.irt import DEFAULT_LEVEL
from skyt_tui.engine.benchmark.methods import interval_scale
from skyt_tui.engine.benchmark.sampler import AUTO, DEFAULT_SEED, MODES, SampleConfig
from skyt_tui.engine.benchmark.tinybenchmarks import LambdaParts
from skyt_tui.engine.benchmark.validation import (
    METHODS,
    TIME_SPLIT_AUTO,
    MethodResult,
    ValidationConfig,
    percent,
    trusted,
)
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted


def add_sample(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "sample",
        help="draw and store the anchor sample",
        description="Draw the anchor sample of the current version and store it (it becomes current). "
        "--method irt and cluster fit a 2PL IRT model on the systems with a score for every item "
        "and keep the model with the sample, for `bench estimate`; auto (the default) validates "
        "every method first and takes the one with the lowest error on the systems released last.",
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    _sample_options(sub)
    sub.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"RNG seed (default {DEFAULT_SEED})"
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_sample)


def add_validate(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "validate",
        help="does the sample predict the full benchmark? (repeated draws, held-out systems)",
        description="Per draw, split the systems; each method chooses its anchors (IRT fits) on the "
        "training systems only and estimates the held-out systems' full scores. --method all "
        "compares every method on the same splits. A time split (train on systems released "
        "before a date) is reported too where SYSTEMS.jsonl gave release dates.",
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    _sample_options(sub, validate=True)
    sub.add_argument(
        "--threshold", type=float, default=0.9, help="Pearson r a draw must exceed (default 0.9)"
    )
    sub.add_argument("--draws", type=int, default=200, help="number of draws (default 200)")
    sub.add_argument(
        "--holdout-systems",
        type=float,
        default=0.5,
        dest="holdout",
        help="share of systems held out per draw and used for the correlation (default 0.5)",
    )
    sub.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="share of draws that must exceed the threshold to call the sample trustworthy (default 0.95)",
    )
    sub.add_argument(
        "--split-date",
        default=TIME_SPLIT_AUTO,
        metavar="DATE",
        help="time split: train on systems released before DATE (YYYY-MM-DD), test on the rest; "
        "'auto' (default) takes the release date closest to the holdout share, 'off' skips it",
    )
    sub.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help=f"level of the estimates' intervals whose coverage is reported (default {DEFAULT_LEVEL:g})",
    )
    sub.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"RNG seed (default {DEFAULT_SEED})"
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_validate)


def add_estimate(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "estimate",
        help="a new system's full score from its scores on the anchor sample",
        description="RESULTS.csv (system,issue_id,score) holds one or more systems' scores on the "
        "current anchor sample (more items are used too). Prints each system's estimated mean "
        "over all items with an interval, by the method that chose the sample.",
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "results",
        metavar="RESULTS.csv",
        help="system,issue_id,score rows: the new systems' anchor scores",
    )
    sub.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help=f"interval level (default {DEFAULT_LEVEL:g})",
    )
    sub.add_argument(
        "--add",
        action="store_true",
        help="also store the scores as the next version of the benchmark (new systems are added, "
        "a known system's missing scores filled in)",
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_estimate)


def _sample_options(parser: argparse.ArgumentParser, validate: bool = False) -> None:
    parser.add_argument(
        "--rate", type=float, default=0.01, help="share of items to sample (default 0.01)"
    )
    parser.add_argument(
        "--floor",
        type=int,
        default=None,
        help="minimum sample size (default max(ceil(1%% of items), 50)); --floor 0 gives a pure --rate sample",
    )
    parser.add_argument(
        "--size",
        type=int,
        default=None,
        metavar="K",
        help="exactly K items (the same as --rate 0 --floor K)",
    )
    methods = (*METHODS, "all") if validate else MODES
    parser.add_argument(
        "--method",
        choices=methods,
        default=None,
        help="how anchors are chosen: stratified by difficulty"
        + (" (default)" if validate else "")
        + ", random, irt (the most informative items of a 2PL model fitted on the systems' "
        "scores, p-IRT estimates) or cluster (tinyBenchmarks' clustered anchors, gp-IRT)"
        + (
            "; all: every method side by side on the same splits"
            if validate
            else "; auto (default): the one that validates best on a time split (random "
            "splits without release dates)"
        ),
    )
    parser.set_defaults(default_method="stratified" if validate else AUTO)
    parser.add_argument(
        "--random", action="store_true", help="the same as --method random (kept for scripts)"
    )


def _method(args: argparse.Namespace) -> str:
    if args.random and args.method not in (None, "random"):
        raise InputError(f"--random: conflicts with --method {args.method}")
    return "random" if args.random else args.method or args.default_method


def _sample_config(args: argparse.Namespace, mode: str | None = None) -> SampleConfig:
    if args.size is not None:
        if args.floor is not None:
            raise InputError("--size: give --size or --floor, not both")
        if args.size < 1:
            raise InputError(f"--size: {args.size} must be at least 1")
        return SampleConfig(rate=0.0, floor=args.size, mode=mode or _method(args))
    return SampleConfig(rate=args.rate, floor=args.floor, mode=mode or _method(args))


def cmd_sample(args: argparse.Namespace) -> int:
    sample = bench.draw_sample(
        args.name,
        _sample_config(args),
        args.seed,
        recorded_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
    if args.json:
        print_json("anchor_sample", sample.to_dict())
        return 0
    table = Table(
        "stratum",
        "items",
        "sampled",
        title=f"{args.name} v{sample.benchmark_version}: {sample.chosen_by} anchor sample",
    )
    for name, count in sample.strata.items():
        table.add_row(text_cell(name), str(count), str(sample.allocation.get(name, 0)))
    table.add_row("total", str(sample.n_items), str(sample.size), style="bold")
    print_table(console(), table)
    floor = "default" if sample.config.floor is None else str(sample.config.floor)
    say(
        f"method {sample.description}; rate {sample.config.rate:g}, floor {floor}, seed {sample.seed} "
        f"→ {counted(sample.size, 'item')}"
        + (
            f" (raised from {sample.requested_size}: at least one per stratum)"
            if sample.size > sample.requested_size
            else ""
        )
    )
    if sample.fallback:
        say(f"warning: {sample.config.mode} fell back to stratified: {sample.fallback}", "yellow")
    if sample.choice is not None:
        _print_choice(sample.choice)
    if sample.model is not None:
        model = sample.model
        say(
            f"2PL model: {counted(len(model.systems), 'system')}, {counted(model.iterations, 'iteration')}"
            + ("" if model.converged else " (not converged)")
            + f", dispersion {model.dispersion:.2f}; estimate systems with "
            f"`skyt-tui bench estimate {args.name} RESULTS.csv`"
        )
        if sample.weights:
            weight = LambdaParts(sample.lambda_bias, sample.lambda_variance).weight(sample.size)
            say(
                f"gp-IRT: λ = {weight:.3f} (b {sample.lambda_bias:.4f}, v {sample.lambda_variance:.4f})"
            )
        scale = interval_scale(sample.calibration, DEFAULT_LEVEL)
        say(f"intervals: {sample.calibration_note} (×{scale:.2f} at {DEFAULT_LEVEL:g})", "dim")
    say("ids: " + " ".join(sample.ids))
    return 0


def _print_choice(choice: bench.MethodChoice) -> None:
    """Why auto chose its method: every candidate's median MAE and coverage on one validation."""
    table = Table("method", "median MAE", "cover", title=f"auto: every method on the {choice.rule}")
    for method in sorted(choice.mae, key=lambda m: choice.mae[m]):
        mark = " ◂ chosen" if method == choice.chosen else ""
        table.add_row(method + mark, f"{choice.mae[method]:.4f}", percent(choice.coverage[method]))
    print_table(console(), table)
    say(f"auto chose {choice.message}", "bold")


def cmd_validate(args: argparse.Namespace) -> int:
    config = ValidationConfig(
        threshold=args.threshold,
        draws=args.draws,
        holdout=args.holdout,
        seed=args.seed,
        confidence=args.confidence,
        level=args.level,
        time_split=args.split_date,
    )
    method = _method(args)
    everything = method == "all"
    sample_config = _sample_config(args, mode="irt" if everything else method)
    started = time.perf_counter()
    report = bench.validate_benchmark(
        args.name, sample_config, config, methods=METHODS if everything else ()
    )
    elapsed = time.perf_counter() - started
    if args.json:
        print_json("validation", jsonable(report))
        return 0
    floor = "default" if report.sample_config.floor is None else str(report.sample_config.floor)
    what = "every method" if everything else f"{report.method}"
    title = (
        f"{args.name}: {what}, {report.sample_size}/{counted(report.n_items, 'item')} "
        f"(rate {report.sample_config.rate:g}, floor {floor}), {counted(config.draws, 'draw')}, "
        f"{report.n_held_out} of {counted(len(report.systems_used), 'system')} held out per draw"
    )
    if everything:
        print_table(console(), _methods_table(report.methods, config, title))
        say(
            "medians over the draws; cover = share of held-out systems whose full score lies in "
            f"the {config.level:g} interval (irt, cluster: on random splits before their "
            "calibration on later systems, which only widens it; on the time split after it)",
            "dim",
        )
    else:
        table = Table("statistic", "median", "p5", "p95", "mean", title=title)
        for label, spread in (
            ("Pearson r", report.pearson),
            ("Spearman ρ", report.spearman),
            ("Kendall τ", report.kendall),
            ("MAE", report.mae),
        ):
            table.add_row(
                label, fmt3(spread.median), fmt3(spread.p5), fmt3(spread.p95), fmt3(spread.mean)
            )
        print_table(console(), table)
        say(f"share of draws with r > {config.threshold:g}: {percent(report.share_above)}")
        say(
            f"coverage of the {config.level:g} intervals on held-out systems: {percent(report.coverage)}"
        )
    split = report.time_split
    if split is not None:
        print_table(
            console(),
            _methods_table(
                split.results,
                config,
                f"time split: trained on the {counted(len(split.train), 'system')} released before {split.date}, "
                f"tested on the {len(split.test)} released on or after it",
                time_split=True,
            ),
        )
    else:
        say(f"time split: none ({report.time_split_note})", "dim")
    check = report.sample_check
    say(
        f"the sample `bench sample --method {check.method} --seed {config.seed}` draws, on all "
        f"{counted(len(report.systems_used), 'system')}"
        + (" (in-sample: the model was fitted on them)" if check.in_sample else "")
        + f": r {fmt3(check.pearson)}, ρ {fmt3(check.spearman)}, τ {fmt3(check.kendall)}, "
        f"MAE {fmt3(check.mae)}"
    )
    for warning in report.warnings:
        say(f"warning: {warning}", "yellow")
    say(
        (f"{report.method}: " if everything else "") + report.verdict,
        "bold green" if report.trustworthy else "bold red",
    )
    say(f"({elapsed:.2f} s)", "dim")
    return 0


def _methods_table(
    results: tuple[MethodResult, ...],
    config: ValidationConfig,
    title: str,
    time_split: bool = False,
) -> Table:
    """Methods side by side: medians over the draws (r, τ, MAE), MAE p95 and interval coverage."""
    columns = ["method", "k", f"r>{config.threshold:g}", "r", "τ", "MAE", "MAE p95", "cover"]
    if not time_split:
        columns.append("trusted")
    table = Table(*columns, title=title)
    for result in results:
        row = [
            result.method + (" (fell back)" if result.fallback else ""),
            str(result.size),
            "–" if time_split and result.method == "irt" else percent(result.share_above),
            fmt3(result.pearson.median),
            fmt3(result.kendall.median),
            f"{result.mae.median:.4f}",
            f"{result.mae.p95:.4f}",
            percent(result.coverage),
        ]
        if not time_split:
            row.append("yes" if trusted(result, config) else "no")
        table.add_row(*row)
    for result in results:
        if result.fallback:
            table.caption = f"{result.method} fell back to {result.fallback}"
    return table


def cmd_estimate(args: argparse.Namespace) -> int:
    report = bench.estimate_from_file(
        args.name,
        args.results,
        level=args.level,
        add=args.add,
        imported_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )
    if args.json:
        print_json("estimate", estimate_dict(report))
    else:
        print_estimates(report)
    return 0


def estimate_dict(report: bench.EstimateReport) -> dict[str, Any]:
    sample = report.sample
    return {
        "name": report.name,
        "benchmark_version": report.benchmark_version,
        "method": sample.chosen_by,
        "sample": {
            "size": sample.size,
            "seed": sample.seed,
            "recorded_at": sample.recorded_at,
            "benchmark_version": sample.benchmark_version,
            "fallback": sample.fallback,
            "calibration_note": sample.calibration_note or None,
            "choice": None if sample.choice is None else sample.choice.message,
        },
        "estimates": [estimate.to_dict() for estimate in report.estimates],
        "notes": list(report.notes),
        "added": None if report.added is None else import_dict(report.added),
    }


def print_estimates(report: bench.EstimateReport) -> None:
    """The estimate table (also printed by `run --anchors`)."""
    sample = report.sample
    level = f"{report.estimates[0].level:g}" if report.estimates else ""
    table = Table(
        "system",
        "estimate",
        f"{level} interval",
        "anchors scored",
        "items scored",
        title=f"{report.name} v{report.benchmark_version}: full-benchmark score from the "
        f"{sample.size}-item anchor sample ({sample.description})",
    )
    for estimate in report.estimates:
        table.add_row(
            text_cell(estimate.system),
            fmt3(estimate.score) + (" (exact)" if estimate.exact else ""),
            f"{fmt3(estimate.low)}–{fmt3(estimate.high)}",
            f"{estimate.scored_anchors}/{estimate.n_anchors}",
            f"{estimate.scored_items}/{estimate.n_items}",
        )
    print_table(console(), table)
    for estimate in report.estimates:
        for warning in estimate.warnings:
            say(f"warning: {estimate.system}: {warning}", "yellow")
    estimated = [estimate for estimate in report.estimates if not estimate.exact]
    if sample.model is not None and estimated:
        say(
            f"intervals: {sample.calibration_note} (half-width ×{estimated[0].interval_scale:.2f})",
            "dim",
        )
    for note in report.notes:
        say(note, "dim")
    if report.added is not None:
        say(report.added.message)
