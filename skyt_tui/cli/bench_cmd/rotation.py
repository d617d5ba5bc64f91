"""`bench rotate` and `bench status`: move the held-out set to training and draw a fresh one, and
show a benchmark's versions, anchor sample, sets and rotation history.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from skyt_tui.cli.bench_cmd.common import NAME_HELP, now_of, now_option, say, text_cell
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, print_json, print_table
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.rotation import (
    HISTORY_COLUMNS,
    PERIODS,
    RotationRefused,
    history_rows,
)
from skyt_tui.engine.benchmark.sampler import DEFAULT_SEED
from skyt_tui.engine.printable import counted


def add_rotate(commands: argparse._SubParsersAction) -> None:
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
    now_option(sub)
    sub.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"RNG seed (default {DEFAULT_SEED})"
    )
    add_json_option(sub)
    sub.set_defaults(handler=cmd_rotate)


def add_status(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "status", help="versions, anchor sample, held-out/training sets, rotation history"
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "--period",
        choices=PERIODS,
        help="period for 'next rotation' (default: the last rotation's)",
    )
    now_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_status)


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
    now = now_of(args)
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
            say(str(refused), "bold red")
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
    say(head, "bold")
    say(
        f"{verb} {counted(len(record.moved_to_training), 'held-out item')} to training, stamped added_to_training={record.at}"
    )
    table = Table("stratum", "target", "drawn", "shortfall", title="new held-out set")
    for name in record.target:
        table.add_row(
            text_cell(name),
            str(record.target[name]),
            str(record.drawn[name]),
            str(record.shortfall[name]),
        )
    print_table(console(), table)
    say(f"pool: {counted(plan.pool_before, 'unexposed item')} before, {record.pool_after} after")
    for warning in plan.warnings:
        say(f"warning: {warning}", "yellow")


def cmd_status(args: argparse.Namespace) -> int:
    versions = bench.benchmark_versions(args.name)
    status = bench.rotation_status(args.name, now_of(args), args.period)
    sample = bench.current_sample(args.name)
    torn = bench.torn_records(args.name)
    if args.json:
        print_json(
            "bench_status",
            {
                "name": args.name,
                "torn": list(torn),
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
    say(
        f"{args.name}: version {info.version} of {len(versions)}, {counted(info.n_items, 'item')}, "
        f"{counted(info.n_systems, 'system')}, {counted(info.n_results, 'score')}",
        "bold",
    )
    if sample is None:
        say(f"anchor sample: none (skyt-tui bench sample {args.name})")
    else:
        note = (
            ""
            if sample.benchmark_version == info.version
            else f" — drawn on version {sample.benchmark_version}, not the current one"
        )
        say(f"anchor sample: {counted(sample.size, 'item')}, {sample.description}, seed {sample.seed}{note}")  # fmt: skip
    table = Table("stratum", "items", "pool", "held-out", "training")
    for name, count in status.strata.items():
        table.add_row(
            text_cell(name),
            str(count),
            str(status.pool[name]),
            str(status.held_out_by_stratum[name]),
            str(status.training_by_stratum[name]),
        )
    print_table(console(), table)
    if status.stale:
        say(
            f"{counted(len(status.stale), 'id')} in held-out/training "
            f"{'is' if len(status.stale) == 1 else 'are'} not in version {info.version}: "
            + " ".join(status.stale[:10]),
            "yellow",
        )
    for line in torn:
        say(f"warning: {line}; that record is lost", "yellow")
    when = "due now" if status.due else f"next due on {status.next_rotation}"
    say(f"rotation: {status.period}, current period {status.current_period}, {when}")
    if status.history:
        history = Table(*HISTORY_COLUMNS, title="rotation history")
        for row in history_rows(status.history):
            history.add_row(*row)
        print_table(console(), history)
    return 0
