"""Shared output helpers: rich tables for people, one JSON envelope for machines."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import json_printable
from skyt_tui.engine.runs.report import envelope, fmt3
from skyt_tui.engine.runs.report import json_safe as _json_safe
from skyt_tui.engine.store import atomic_write_text

__all__ = ["JSON_HELP", "console", "error_console", "fmt3", "print_json", "_json_safe"]

T = TypeVar("T")

JSON_HELP = "print JSON (the envelope in docs/json.md) instead of a table"


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Rich's own handling exits with code 1 from inside `print`; raise instead, so `main`
        ends `skyt-tui runs list | head -1` quietly with code 0 like every other write."""
        self.quiet = True
        raise BrokenPipeError


def console() -> Console:
    return _Console(highlight=False)


def error_console() -> Console:
    return _Console(stderr=True, highlight=False)


def note_distance_implementation(distance: str) -> None:
    """On stderr, when tree distances will be measured by the pure-Python fallback: say so."""
    if distance != "tree":
        return
    from skyt_tui.engine.measure.tree_distance import FALLBACK_NOTE, PURE_PYTHON, implementation

    if implementation() == PURE_PYTHON:
        error_console().print(f"note: {FALLBACK_NOTE}", markup=False)


def print_json(kind: str, data: Any) -> None:
    """`data` on stdout in the JSON envelope (`schema_version`, `kind`, then the data).

    Characters a terminal would act on (C1 controls, bidirectional overrides) are
    written as \\u escapes, so a sample's text cannot reach the terminal raw.
    """
    text = json.dumps(
        _json_safe(envelope(kind, data)), indent=2, sort_keys=True, ensure_ascii=False
    )
    sys.stdout.write(json_printable(text) + "\n")


def check_output_file(path: Path, option: str) -> None:
    """Refuse an output path whose folder does not exist (no folder is made) or that is a
    folder, before any work is done; `-` (stdout) is always fine."""
    if str(path) == "-":
        return
    path = Path(path)
    if path.is_dir():
        raise InputError.at(path, f"is a directory; {option} needs a file path")
    parent = path.parent
    if not parent.is_dir():
        raise InputError.at(path, f"directory {parent} does not exist")


def write_output_file(path: Path, text: str, option: str) -> None:
    """`text` to stdout for `-`, else atomically to `path` (see `check_output_file`)."""
    if str(path) == "-":
        sys.stdout.write(text)
        return
    check_output_file(path, option)
    atomic_write_text(Path(path), text)


PIPED_WIDTH = 1000
"""The width tables may take when stdout is not a terminal: no column is cut for a reader
(a file, `less -S`, another program) that has no width of its own."""


def table_width(out: Console) -> int:
    """The width a table may use: the terminal's; when piped, $COLUMNS or `PIPED_WIDTH`."""
    if out.is_terminal or os.environ.get("COLUMNS"):
        return out.width
    return PIPED_WIDTH


def print_table(out: Console, table: Table) -> None:
    """Print a table; when piped, as wide as its columns need (Rich would fold it into 80)."""
    width = table_width(out)
    if width <= out.width:
        out.print(table)
        return
    needed = Measurement.get(out, out.options.update_width(width), table).maximum
    wide = _Console(file=out.file, width=max(needed, out.width), highlight=False, no_color=True)
    wide.print(table)


def with_stage_progress(
    compute: Callable[[Callable[[str, int, int] | None]], T], quiet: bool = False
) -> T:
    """`compute(progress)` with one transient bar per stage on stderr when it is a terminal;
    `progress` is None when quiet (e.g. --json) or stderr is not a terminal."""
    err = error_console()
    if quiet or not err.is_terminal:
        return compute(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        return compute(progress)
