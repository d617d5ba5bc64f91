"""What every `bench` subcommand shares: the NAME argument's help, the --limit and --now
options, outside text as table cells, one-line messages, an import's JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
from typing import Any

from rich.text import Text

from skyt_tui.cli.output import console, plain
from skyt_tui.engine import benchmark as bench
from skyt_tui.engine.benchmark.rotation import parse_now
from skyt_tui.engine.printable import counted

NAME_HELP = "a benchmark in the store (`bench list`)"


def limit_option(parser: argparse.ArgumentParser) -> None:
    """`--limit N`: how many rows a table shows."""
    parser.add_argument(
        "--limit",
        type=int,
        default=50,
        help="rows shown in the table (default 50; --json lists all)",
    )


def shown_rows(rows: Any, limit: int) -> tuple[Any, str | None]:
    """The first `limit` rows and a note on how many were left out of the table."""
    rows = list(rows)
    if limit < 0 or len(rows) <= limit:
        return rows, None
    return rows[
        :limit
    ], f"… {counted(len(rows) - limit, 'more row')} not shown (--limit, or --json for all)"


def now_option(parser: argparse.ArgumentParser) -> None:
    """`--now DATE`: the time a rotation or a status is computed at."""
    parser.add_argument(
        "--now",
        metavar="DATE",
        help="treat this as the current time: YYYY-MM-DD or ISO datetime with offset "
        "(naive = UTC); periods follow the UTC calendar",
    )


def now_of(args: argparse.Namespace) -> dt.datetime:
    """The time `--now` names, or now (UTC)."""
    return parse_now(args.now) if args.now else dt.datetime.now(dt.UTC)


def text_cell(value: Any) -> Text:
    """Untrusted text (ids, names) goes into tables as Text, never as markup."""
    return plain("–" if value is None else str(value))


def say(message: str, style: str | None = None) -> None:
    """One line of outside text on stdout, never read as markup."""
    console().print(plain(message, style=style or ""))


def jsonable(obj: Any) -> Any:
    """A report dataclass as the dict `--json` prints."""
    return dataclasses.asdict(obj) if dataclasses.is_dataclass(obj) else obj


def import_dict(result: bench.ImportResult) -> dict[str, Any]:
    """An import's `--json` (also in `bench estimate --add`'s)."""
    return {
        "name": result.name,
        "created": result.created,
        "previous_version": result.previous_version,
        "version": result.version.to_dict(),
        "message": result.message,
    }
