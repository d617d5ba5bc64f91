"""`skyt-tui demo`: fill the demo's own store with runs of the hand-written examples and a benchmark of the
bundled contracts, no network or key needed; the user's store is not touched."""

from __future__ import annotations

import argparse

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, print_json
from skyt_tui.engine.benchmark.rotation import parse_now
from skyt_tui.engine.demo import DEMO_LABEL, create_demo
from skyt_tui.engine.printable import counted


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "demo",
        description="Create one analysed run per bundled example set (the samples are hand-written "
        "examples that ship with skyt-tui, not model output) and import the bundled contracts as the "
        "benchmark 'bundled-contracts' with its anchor sample and one rotation, all in the demo's own store "
        "(demo/ in the data directory, or in $SKYT_HOME/demo when SKYT_HOME is set): your runs and canons are not touched. "
        "`skyt-tui` opens the demo while your own store has no runs; `SKYT_STORE=demo skyt-tui ...` opens it always.",
    )
    parser.add_argument(
        "--now",
        metavar="DATE",
        help="use this as the current time (YYYY-MM-DD or ISO datetime): "
        "the same time gives the same run ids and dates",
    )
    add_json_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    result = create_demo(now=parse_now(args.now) if args.now else None)
    if args.json:
        print_json(
            "demo",
            {
                "created": [meta.id for meta in result.created],
                "existing": list(result.existing),
                "skipped": list(result.skipped),
                "benchmark": result.benchmark,
                "benchmark_steps": list(result.benchmark_steps),
                "data_dir": str(locations.demo_dir()),
                "store": locations.DEMO_STORE,
            },
        )
        return 0
    out = console()
    out.print(
        f"demo: {counted(len(result.created), 'run')} created, {len(result.existing)} already there, "
        f"in the demo's own store {locations.demo_dir()} (your runs and canons are not touched)",
        markup=False,
        soft_wrap=True,
    )
    out.print(f"the samples are {DEMO_LABEL}", markup=False, soft_wrap=True)
    for meta in result.created:
        out.print(f"  {meta.id}  ({counted(meta.n, 'sample')})", markup=False, soft_wrap=True)
    for line in result.skipped:
        out.print(f"skipped: {line}", markup=False, soft_wrap=True)
    for line in result.benchmark_steps:
        out.print(f"benchmark {line}", markup=False, soft_wrap=True)
    out.print(
        "next: `skyt-tui` for the app (it opens the demo, marked DEMO, while your own store has no runs), "
        "or `SKYT_STORE=demo skyt-tui runs list`",
        markup=False,
        soft_wrap=True,
    )
    return 0
