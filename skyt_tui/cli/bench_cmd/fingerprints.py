"""`bench fingerprints` and `bench contamination`: each item's content and solution hashes, and the
items whose text shares 13-grams with a file.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from skyt_tui.cli.bench_cmd.common import NAME_HELP, limit_option, say, shown_rows, text_cell
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, fmt3, print_json, print_table
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.printable import counted


def add_fingerprints(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "fingerprints", help="content/solution hashes, created_at, added_to_training per item"
    )
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    limit_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_fingerprints)


def add_contamination(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser("contamination", help="items whose text shares 13-grams with FILE")
    sub.add_argument("name", metavar="NAME", help=NAME_HELP)
    sub.add_argument(
        "file", metavar="FILE", help="a text file (e.g. training data) to check ('-': stdin)"
    )
    sub.add_argument(
        "--all", action="store_true", help="list every item, not only the flagged ones"
    )
    limit_option(sub)
    add_json_option(sub)
    sub.set_defaults(handler=cmd_contamination)


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
    shown, more = shown_rows(prints, args.limit)
    for fp in shown:
        table.add_row(
            text_cell(fp.issue_id),
            fp.content_hash,
            text_cell(fp.solution_hash),
            text_cell(fp.created_at),
            text_cell(fp.added_to_training[:10] if fp.added_to_training else None),
        )
    print_table(console(), table)
    if more:
        say(more, "dim")
    without = sum(1 for fp in prints if not fp.has_text)
    if without:
        say(
            f"{counted(without, 'item', of=len(prints), verb='have')} no title or body: "
            f"{'its' if without == 1 else 'their'} content_hash is the hash of '::' and says nothing "
            "about the item",
            "yellow",
        )
    return 0


def cmd_contamination(args: argparse.Namespace) -> int:
    report = bench.benchmark_contamination(args.name, args.file)
    contaminated = report.contaminated
    rows, more = shown_rows(report.items if args.all else contaminated, args.limit)
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
                text_cell(overlap.issue_id),
                overlap.status,
                str(overlap.shared),
                str(overlap.ngrams),
                fmt3(overlap.ratio),
            )
        print_table(console(), table)
        if more:
            say(more, "dim")
    checked, no_text, short = (
        report.count("checked"),
        report.count("no text"),
        report.count("too short"),
    )
    say(
        f"{counted(len(contaminated), 'checked item', of=checked, verb='share')} 13-grams with {report.file} "
        f"({counted(report.file_tokens, 'token')})",
        "bold",
    )
    if no_text or short:
        say(
            f"cannot check {counted(no_text + short, 'item')}: {no_text} without text, {short} under 13 words",
            "yellow",
        )
    return 0
