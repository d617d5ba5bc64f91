"""`skyt-tui bench …`: import a benchmark, draw and validate its anchor sample, estimate new systems
from their anchor scores, rotate, fingerprint.

A thin layer over `skyt_tui.engine.benchmark`: parse arguments, call the engine,
print a rich table (or `--json`). Every input file is checked in full before
anything is written; a bad one is one error line and exit code 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import time
from typing import Any

from rich.table import Table
from rich.text import Text

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, fmt3, plain, print_json, print_table
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.from_runs import DEFAULT_SCORE
from skyt_tui.engine.benchmark.irt import DEFAULT_LEVEL
from skyt_tui.engine.benchmark.methods import interval_scale
from skyt_tui.engine.benchmark.rotation import (
    HISTORY_COLUMNS,
    PERIODS,
    RotationRefused,
    history_rows,
    parse_now,
)
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

NAME_HELP = "a benchmark in the store (`bench list`)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "bench",
        description="Import a benchmark, draw and validate its anchor sample, rotate its held-out set, "
        "fingerprint its items and check a file for contamination.",
    )
    commands = parser.add_subparsers(dest="bench_command", metavar="SUBCOMMAND", required=True)

    sub = commands.add_parser("list", help="benchmarks in the store")
    add_json_option(sub)
    sub.set_defaults(handler=cmd_list)

    sub = commands.add_parser(
        "import",
        help="import items and scores (a changed file makes a new version)",
        description="Import ISSUES.jsonl (or a folder of contracts) with optional per-system results. "
        "Re-importing identical content is a no-op; changed content becomes the next version.",
    )
    sub.add_argument("name", metavar="NAME", help="the benchmark's name in the store")
    sub.add_argument(
        "issues",
        metavar="ISSUES.jsonl",
        nargs="?",
        help="one item a line (id, stratum, text); not needed with --contracts or --from-runs",
    )
    sub.add_argument(
        "--results", metavar="RESULTS.csv", help="long CSV: system,issue_id,score (score in [0, 1])"
    )
    sub.add_argument(
        "--systems", metavar="SYSTEMS.jsonl", help="one system a line: system, release_date"
    )
    sub.add_argument(
        "--contracts",
        metavar="DIR",
        nargs="?",
        const=str(locations.bundled_contracts_dir()),
        help="use the contracts in DIR as items (difficulty from each contract); without DIR the bundled ones",
    )
    sub.add_argument(
        "--from-runs",
        metavar="FILTER",
        nargs="?",
        const="",
        help="items = contracts, systems = model@temperature, scores = a metric of the stored "
        "complete runs; FILTER narrows them: field=glob terms over model, temperature, contract, "
        "provider, label, sweep (e.g. 'model=gpt-4o* temperature=0.7')",
    )
    sub.add_argument(
        "--score",
        metavar="METRIC",
        default=None,
        help="with --from-runs: the run metric used as score (pass_rate, the default, R_raw, "
        "R_anchor_pre, R_anchor_post, R_behavioral, P_tau_pre, P_tau_post)",
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_import)

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

    sub = commands.add_parser(
        "rotate",
        help="move held-out → training and draw a fresh held-out set",
        description="Rotates when the period (monthly/weekly, UTC) has advanced since the last rotation; "
        "--force rotates anyway. --dry-run shows what would move without changing anything.",
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "--period",
        choices=PERIODS,
        help="rotation period (default: the last rotation's, else monthly)",
    )
    sub.add_argument(
        "--force", action="store_true", help="rotate even though this period already had a rotation"
    )
    sub.add_argument("--dry-run", action="store_true", help="preview the rotation; write nothing")
    _now_option(sub)
    sub.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"RNG seed (default {DEFAULT_SEED})"
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_rotate)

    sub = commands.add_parser(
        "status", help="versions, anchor sample, held-out/training sets, rotation history"
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "--period",
        choices=PERIODS,
        help="period for 'next rotation' (default: the last rotation's)",
    )
    _now_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_status)

    sub = commands.add_parser(
        "fingerprints", help="content/solution hashes, created_at, added_to_training per item"
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    _limit_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_fingerprints)

    sub = commands.add_parser("contamination", help="items whose text shares 13-grams with FILE")
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "file", metavar="FILE", help="a text file (e.g. training data) to check ('-': stdin)"
    )
    sub.add_argument(
        "--all", action="store_true", help="list every item, not only the flagged ones"
    )
    _limit_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_contamination)


def _limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--limit",
        type=int,
        default=50,
        help="rows shown in the table (default 50; --json lists all)",
    )


def _shown(rows: Any, limit: int) -> tuple[Any, str | None]:
    """The first `limit` rows and a note on how many were left out of the table."""
    rows = list(rows)
    if limit < 0 or len(rows) <= limit:
        return rows, None
    return rows[:limit], f"… {len(rows) - limit} more row(s) not shown (--limit, or --json for all)"


def _now_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--now",
        metavar="DATE",
        help="treat this as the current time: YYYY-MM-DD or ISO datetime with offset "
        "(naive = UTC); periods follow the UTC calendar",
    )


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


def _now(args: argparse.Namespace) -> dt.datetime:
    return parse_now(args.now) if args.now else dt.datetime.now(dt.UTC)


def _plain(value: Any) -> Text:
    """Untrusted text (ids, names) goes into tables as Text, never as markup."""
    return plain("–" if value is None else str(value))


def _say(message: str, style: str | None = None) -> None:
    console().print(plain(message, style=style or ""))


def _jsonable(obj: Any) -> Any:
    return dataclasses.asdict(obj) if dataclasses.is_dataclass(obj) else obj


def cmd_list(args: argparse.Namespace) -> int:
    summaries = bench.list_benchmarks()
    if args.json:
        print_json(
            "benchmarks",
            {
                "benchmarks": [
                    {
                        "name": summary.name,
                        "version": summary.version.to_dict() if summary.version else None,
                        "versions": summary.n_versions,
                        "sample": summary.sample.to_dict() if summary.sample else None,
                        "rotations": summary.rotations,
                        "error": summary.error,
                    }
                    for summary in summaries
                ]
            },
        )
        return 0
    if not summaries:
        _say("no benchmarks yet: skyt-tui bench import NAME ISSUES.jsonl --results RESULTS.csv")
        return 0
    table = Table("benchmark", "version", "items", "strata", "systems", "sample", "rotations")
    for summary in summaries:
        info = summary.version
        if info is None:
            table.add_row(
                _plain(summary.name), plain("damaged", style="bold red"), "", "", "", "", ""
            )
            continue
        sample = (
            f"{summary.sample.size} {summary.sample.chosen_by} (v{summary.sample.benchmark_version})"
            if summary.sample
            else "–"
        )
        strata = ", ".join(f"{name} {count}" for name, count in info.strata.items())
        table.add_row(
            _plain(summary.name),
            f"{info.version} of {summary.n_versions}",
            str(info.n_items),
            strata,
            str(info.n_systems),
            sample,
            str(summary.rotations),
        )
    print_table(console(), table)
    for summary in summaries:
        if summary.error:
            _say(f"damaged: {summary.error}", "red")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    imported_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    if args.from_runs is not None:
        return _import_from_runs(args, imported_at)
    if args.score is not None:
        raise InputError("--score: applies to --from-runs only")
    result = bench.import_benchmark(
        args.name,
        issues=args.issues,
        results=args.results,
        systems=args.systems,
        contracts_dir=args.contracts,
        imported_at=imported_at,
    )
    if args.json:
        print_json("bench_import", _import_dict(result))
        return 0
    _say(result.message)
    if result.created:
        strata = ", ".join(f"{name} {count}" for name, count in result.version.strata.items())
        _say(f"strata: {strata}")
    return 0


def _import_dict(result: bench.ImportResult) -> dict[str, Any]:
    return {
        "name": result.name,
        "created": result.created,
        "previous_version": result.previous_version,
        "version": result.version.to_dict(),
        "message": result.message,
    }


def _import_from_runs(args: argparse.Namespace, imported_at: str) -> int:
    given = [
        flag
        for flag, value in (
            ("ISSUES.jsonl", args.issues),
            ("--results", args.results),
            ("--systems", args.systems),
            ("--contracts", args.contracts),
        )
        if value is not None
    ]
    if given:
        raise InputError(f"--from-runs: takes its items and scores from the runs, not {given[0]}")
    made = bench.import_from_runs(
        args.name, args.from_runs, args.score or DEFAULT_SCORE, imported_at=imported_at
    )
    result, report = made.result, made.runs
    if args.json:
        print_json(
            "bench_import",
            {
                **_import_dict(result),
                "score": report.score,
                "filter": report.filter,
                "runs_used": list(report.runs_used),
                "superseded": list(report.superseded),
                "skipped": report.skipped,
            },
        )
        return 0
    _say(result.message)
    scores = report.data.scores
    assert scores is not None
    _say(
        f"{len(report.data.items)} contract(s) × {len(scores.systems)} system(s) (model@temperature) "
        f"from {len(report.runs_used)} complete run(s), score {report.score}"
        + (f", filter {report.filter}" if report.filter else "")
    )
    if report.superseded:
        _say(
            f"{len(report.superseded)} older run(s) of the same system and contract not used", "dim"
        )
    for run_id, reason in list(report.skipped.items())[:10]:
        _say(f"skipped {run_id}: {reason}", "yellow")
    if len(report.skipped) > 10:
        _say(f"… {len(report.skipped) - 10} more skipped (--json lists all)", "yellow")
    missing = scores.n_results
    total = scores.scores.size
    if missing < total:
        _say(
            f"{total - missing} (system, contract) pair(s) have no run: those systems are estimated "
            f"from their anchors, not used to fit or validate",
            "dim",
        )
    return 0


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
        table.add_row(_plain(name), str(count), str(sample.allocation.get(name, 0)))
    table.add_row("total", str(sample.n_items), str(sample.size), style="bold")
    print_table(console(), table)
    floor = "default" if sample.config.floor is None else str(sample.config.floor)
    _say(
        f"method {sample.description}; rate {sample.config.rate:g}, floor {floor}, seed {sample.seed} "
        f"→ {sample.size} items"
        + (
            f" (raised from {sample.requested_size}: at least one per stratum)"
            if sample.size > sample.requested_size
            else ""
        )
    )
    if sample.fallback:
        _say(f"warning: {sample.config.mode} fell back to stratified: {sample.fallback}", "yellow")
    if sample.choice is not None:
        _print_choice(sample.choice)
    if sample.model is not None:
        model = sample.model
        _say(
            f"2PL model: {len(model.systems)} systems, {model.iterations} iterations"
            + ("" if model.converged else " (not converged)")
            + f", dispersion {model.dispersion:.2f}; estimate systems with "
            f"`skyt-tui bench estimate {args.name} RESULTS.csv`"
        )
        if sample.weights:
            weight = LambdaParts(sample.lambda_bias, sample.lambda_variance).weight(sample.size)
            _say(
                f"gp-IRT: λ = {weight:.3f} (b {sample.lambda_bias:.4f}, v {sample.lambda_variance:.4f})"
            )
        scale = interval_scale(sample.calibration, DEFAULT_LEVEL)
        _say(f"intervals: {sample.calibration_note} (×{scale:.2f} at {DEFAULT_LEVEL:g})", "dim")
    _say("ids: " + " ".join(sample.ids))
    return 0


def _print_choice(choice: bench.MethodChoice) -> None:
    """Why auto chose its method: every candidate's median MAE and coverage on one validation."""
    table = Table("method", "median MAE", "cover", title=f"auto: every method on the {choice.rule}")
    for method in sorted(choice.mae, key=lambda m: choice.mae[m]):
        mark = " ◂ chosen" if method == choice.chosen else ""
        table.add_row(method + mark, f"{choice.mae[method]:.4f}", percent(choice.coverage[method]))
    print_table(console(), table)
    _say(f"auto chose {choice.message}", "bold")


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
        print_json("validation", _jsonable(report))
        return 0
    floor = "default" if report.sample_config.floor is None else str(report.sample_config.floor)
    what = "every method" if everything else f"{report.method}"
    title = (
        f"{args.name}: {what}, {report.sample_size}/{report.n_items} items "
        f"(rate {report.sample_config.rate:g}, floor {floor}), {config.draws} draws, "
        f"{report.n_held_out} of {len(report.systems_used)} systems held out per draw"
    )
    if everything:
        console().print(_methods_table(report.methods, config, title))
        _say(
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
        _say(f"share of draws with r > {config.threshold:g}: {percent(report.share_above)}")
        _say(
            f"coverage of the {config.level:g} intervals on held-out systems: {percent(report.coverage)}"
        )
    split = report.time_split
    if split is not None:
        console().print(
            _methods_table(
                split.results,
                config,
                f"time split: trained on the {len(split.train)} systems released before {split.date}, "
                f"tested on the {len(split.test)} released on or after it",
                time_split=True,
            )
        )
    else:
        _say(f"time split: none ({report.time_split_note})", "dim")
    check = report.sample_check
    _say(
        f"the sample `bench sample --method {check.method} --seed {config.seed}` draws, on all "
        f"{len(report.systems_used)} systems"
        + (" (in-sample: the model was fitted on them)" if check.in_sample else "")
        + f": r {fmt3(check.pearson)}, ρ {fmt3(check.spearman)}, τ {fmt3(check.kendall)}, "
        f"MAE {fmt3(check.mae)}"
    )
    for warning in report.warnings:
        _say(f"warning: {warning}", "yellow")
    _say(
        (f"{report.method}: " if everything else "") + report.verdict,
        "bold green" if report.trustworthy else "bold red",
    )
    _say(f"({elapsed:.2f} s)", "dim")
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
        "added": None if report.added is None else _import_dict(report.added),
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
            _plain(estimate.system),
            fmt3(estimate.score) + (" (exact)" if estimate.exact else ""),
            f"{fmt3(estimate.low)}–{fmt3(estimate.high)}",
            f"{estimate.scored_anchors}/{estimate.n_anchors}",
            f"{estimate.scored_items}/{estimate.n_items}",
        )
    print_table(console(), table)
    for estimate in report.estimates:
        for warning in estimate.warnings:
            _say(f"warning: {estimate.system}: {warning}", "yellow")
    estimated = [estimate for estimate in report.estimates if not estimate.exact]
    if sample.model is not None and estimated:
        _say(
            f"intervals: {sample.calibration_note} (half-width ×{estimated[0].interval_scale:.2f})",
            "dim",
        )
    for note in report.notes:
        _say(note, "dim")
    if report.added is not None:
        _say(report.added.message)


def _plan_dict(plan: bench.RotationPlan) -> dict[str, Any]:
    return {
        "allowed": plan.allowed,
        "due": plan.due,
        "refusal": plan.refusal,
        "next_due": plan.next_due,
        "pool_before": plan.pool_before,
        "warnings": list(plan.warnings),
        "rotation": plan.record.to_dict(),
    }


def cmd_rotate(args: argparse.Namespace) -> int:
    now = _now(args)
    if args.dry_run:
        plan = bench.preview_rotation(args.name, now, args.period, args.force, args.seed)
        if args.json:
            print_json("rotation_plan", _plan_dict(plan))
            return 0
        _print_plan(plan, preview=True)
        return 0
    try:
        plan = bench.apply_rotation(args.name, now, args.period, args.force, args.seed)
    except RotationRefused as refused:
        if args.json:
            print_json("rotation_plan", {"allowed": False, "refusal": str(refused)})
        else:
            _say(str(refused), "bold red")
        return refused.exit_code
    if args.json:
        print_json("rotation", _plan_dict(plan))
        return 0
    _print_plan(plan, preview=False)
    return 0


def _print_plan(plan: bench.RotationPlan, preview: bool) -> None:
    record = plan.record
    verb = "would move" if preview else "moved"
    head = f"rotation {record.number} ({record.period}, {record.at}{', forced' if record.forced else ''})"
    if preview:
        head = f"preview of {head}: " + ("allowed" if plan.allowed else f"refused — {plan.refusal}")
    _say(head, "bold")
    _say(
        f"{verb} {len(record.moved_to_training)} held-out item(s) to training, stamped added_to_training={record.at}"
    )
    table = Table("stratum", "target", "drawn", "shortfall", title="new held-out set")
    for name in record.target:
        table.add_row(
            _plain(name),
            str(record.target[name]),
            str(record.drawn[name]),
            str(record.shortfall[name]),
        )
    print_table(console(), table)
    _say(f"pool: {plan.pool_before} unexposed item(s) before, {record.pool_after} after")
    for warning in plan.warnings:
        _say(f"warning: {warning}", "yellow")


def cmd_status(args: argparse.Namespace) -> int:
    versions = bench.benchmark_versions(args.name)
    status = bench.rotation_status(args.name, _now(args), args.period)
    sample = bench.current_sample(args.name)
    if args.json:
        print_json(
            "bench_status",
            {
                "name": args.name,
                "version": status.benchmark_version,
                "versions": [info.to_dict() for info in versions],
                "strata": status.strata,
                "sample": sample.to_dict() if sample else None,
                "rotation": {
                    "period": status.period,
                    "now": status.now,
                    "current_period": status.current_period,
                    "due": status.due,
                    "next_rotation": status.next_rotation,
                    "held_out": list(status.held_out),
                    "training": status.training,
                    "pool": status.pool,
                    "held_out_by_stratum": status.held_out_by_stratum,
                    "training_by_stratum": status.training_by_stratum,
                    "stale": list(status.stale),
                    "history": [record.to_dict() for record in status.history],
                },
            },
        )
        return 0
    info = versions[-1]
    _say(
        f"{args.name}: version {info.version} of {len(versions)}, {info.n_items} items, "
        f"{info.n_systems} systems, {info.n_results} scores",
        "bold",
    )
    if sample is None:
        _say(f"anchor sample: none (skyt-tui bench sample {args.name})")
    else:
        note = (
            ""
            if sample.benchmark_version == info.version
            else f" — drawn on version {sample.benchmark_version}, not the current one"
        )
        _say(f"anchor sample: {sample.size} items, {sample.description}, seed {sample.seed}{note}")
    table = Table("stratum", "items", "pool", "held-out", "training")
    for name, count in status.strata.items():
        table.add_row(
            _plain(name),
            str(count),
            str(status.pool[name]),
            str(status.held_out_by_stratum[name]),
            str(status.training_by_stratum[name]),
        )
    print_table(console(), table)
    if status.stale:
        _say(
            f"{len(status.stale)} id(s) in held-out/training are not in version {info.version}: "
            + " ".join(status.stale[:10]),
            "yellow",
        )
    when = "due now" if status.due else f"next due on {status.next_rotation}"
    _say(f"rotation: {status.period}, current period {status.current_period}, {when}")
    if status.history:
        history = Table(*HISTORY_COLUMNS, title="rotation history")
        for row in history_rows(status.history):
            history.add_row(*row)
        console().print(history)
    return 0


def _fingerprint_dict(fp: bench.Fingerprint) -> dict[str, Any]:
    return {
        "issue_id": fp.issue_id,
        "content_hash": fp.content_hash,
        "solution_hash": fp.solution_hash,
        "created_at": fp.created_at,
        "added_to_training": fp.added_to_training,
        "has_text": fp.has_text,
    }


def cmd_fingerprints(args: argparse.Namespace) -> int:
    prints = bench.benchmark_fingerprints(args.name)
    if args.json:
        print_json(
            "fingerprints",
            {"name": args.name, "fingerprints": [_fingerprint_dict(fp) for fp in prints]},
        )
        return 0
    table = Table("id", "content_hash", "solution_hash", "created_at", "training since")
    shown, more = _shown(prints, args.limit)
    for fp in shown:
        table.add_row(
            _plain(fp.issue_id),
            fp.content_hash,
            _plain(fp.solution_hash),
            _plain(fp.created_at),
            _plain(fp.added_to_training[:10] if fp.added_to_training else None),
        )
    print_table(console(), table)
    if more:
        _say(more, "dim")
    without = sum(1 for fp in prints if not fp.has_text)
    if without:
        _say(
            f"{without} of {len(prints)} item(s) have no title or body: their content_hash is the hash of '::' "
            f"and says nothing about the item",
            "yellow",
        )
    return 0


def cmd_contamination(args: argparse.Namespace) -> int:
    report = bench.benchmark_contamination(args.name, args.file)
    contaminated = report.contaminated
    rows, more = _shown(report.items if args.all else contaminated, args.limit)
    if args.json:
        print_json(
            "contamination",
            {
                "file": report.file,
                "file_tokens": report.file_tokens,
                "ngram": 13,
                "checked": report.count("checked"),
                "no_text": report.count("no text"),
                "too_short": report.count("too short"),
                "contaminated": [
                    {
                        "issue_id": o.issue_id,
                        "shared": o.shared,
                        "ngrams": o.ngrams,
                        "ratio": o.ratio,
                    }
                    for o in contaminated
                ],
                "items": [
                    {
                        "issue_id": o.issue_id,
                        "status": o.status,
                        "shared": o.shared,
                        "ngrams": o.ngrams,
                        "ratio": o.ratio,
                    }
                    for o in report.items
                ],
            },
        )
        return 0
    if rows:
        table = Table("id", "status", "shared 13-grams", "of", "ratio")
        for overlap in rows:
            table.add_row(
                _plain(overlap.issue_id),
                overlap.status,
                str(overlap.shared),
                str(overlap.ngrams),
                fmt3(overlap.ratio),
            )
        print_table(console(), table)
        if more:
            _say(more, "dim")
    checked, no_text, short = (
        report.count("checked"),
        report.count("no text"),
        report.count("too short"),
    )
    _say(
        f"{len(contaminated)} of {checked} checked item(s) share 13-grams with {report.file} "
        f"({report.file_tokens} tokens)",
        "bold",
    )
    if no_text or short:
        _say(
            f"cannot check {no_text + short} item(s): {no_text} without text, {short} under 13 words",
            "yellow",
        )
    return 0
