"""`bench list` and `bench import`: the benchmarks in the store, and a benchmark's items and scores
imported from files, a folder of contracts or the stored runs (`--from-runs`).
"""

from __future__ import annotations

import argparse
import datetime as dt

from rich.table import Table

from skyt_tui import locations
from skyt_tui.cli.bench_cmd.common import import_dict, say, text_cell
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, plain, print_json, print_table
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.from_runs import DEFAULT_SCORE, SCORE_METRICS
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted


def add_list(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("list", help="benchmarks in the store")
    add_json_option(sub)
    sub.set_defaults(handler=cmd_list)


def add_import(commands: argparse._SubParsersAction) -> None:
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
        help=f"with --from-runs: the run metric used as score ({score_choices()})",
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_import)


def score_choices() -> str:
    """`pass_rate, the default, R_raw, …`: the metrics `--score` takes, as the registry marks them."""
    others = [name for name in SCORE_METRICS if name != DEFAULT_SCORE]
    return ", ".join([f"{DEFAULT_SCORE}, the default", *others])


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
                        "torn": list(summary.torn),
                    }
                    for summary in summaries
                ]
            },
        )
        return 0
    if not summaries:
        say("no benchmarks yet: skyt-tui bench import NAME ISSUES.jsonl --results RESULTS.csv")
        return 0
    table = Table("benchmark", "version", "items", "strata", "systems", "sample", "rotations")
    for summary in summaries:
        info = summary.version
        if info is None:
            table.add_row(
                text_cell(summary.name), plain("damaged", style="bold red"), "", "", "", "", ""
            )
            continue
        sample = (
            f"{summary.sample.size} {summary.sample.chosen_by} (v{summary.sample.benchmark_version})"
            if summary.sample
            else "–"
        )
        strata = ", ".join(f"{name} {count}" for name, count in info.strata.items())
        table.add_row(
            text_cell(summary.name),
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
            say(f"damaged: {summary.error}", "red")
        for line in summary.torn:
            say(f"warning: {line}; that record is lost", "yellow")
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
        print_json("bench_import", import_dict(result))
        return 0
    say(result.message)
    if result.created:
        strata = ", ".join(f"{name} {count}" for name, count in result.version.strata.items())
        say(f"strata: {strata}")
    return 0


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
                **import_dict(result),
                "score": report.score,
                "filter": report.filter,
                "runs_used": list(report.runs_used),
                "superseded": list(report.superseded),
                "skipped": report.skipped,
            },
        )
        return 0
    say(result.message)
    scores = report.data.scores
    assert scores is not None
    say(
        f"{counted(len(report.data.items), 'contract')} × {counted(len(scores.systems), 'system')} "
        f"(model@temperature) from {counted(len(report.runs_used), 'complete run')}, score {report.score}"
        + (f", filter {report.filter}" if report.filter else "")
    )
    if report.superseded:
        say(
            f"{counted(len(report.superseded), 'older run')} of the same system and contract not used",
            "dim",
        )
    for run_id, reason in list(report.skipped.items())[:10]:
        say(f"skipped {run_id}: {reason}", "yellow")
    if len(report.skipped) > 10:
        say(f"… {len(report.skipped) - 10} more skipped (--json lists all)", "yellow")
    missing = scores.n_results
    total = scores.scores.size
    if missing < total:
        say(
            f"{counted(total - missing, '(system, contract) pair', verb='have')} no run: those systems are estimated "
            f"from their anchors, not used to fit or validate",
            "dim",
        )
    return 0
