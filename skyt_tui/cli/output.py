"""Shared output helpers: rich tables for people, one JSON envelope for machines."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.measure.distance_kind import distance_kind
from skyt_tui.engine.printable import json_printable, printable
from skyt_tui.engine.runs.report import envelope, fmt3
from skyt_tui.engine.runs.report import json_safe as _json_safe
from skyt_tui.engine.store import atomic_write_text
from skyt_tui.engine.syntax import not_parsed_line

if TYPE_CHECKING:
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

__all__ = ["JSON_HELP", "console", "error_console", "fmt3", "print_json", "_json_safe"]

T = TypeVar("T")

JSON_HELP = "print JSON (the envelope in docs/json.md) instead of a table"


class _Console(Console):
    """Rich's console with two guards for text from outside (names, titles, labels, errors):
    markup is off by default (a `[link=…]` in a run label would become a hyperlink escape),
    and every character a terminal could act on is shown as an escape at rendering, whichever
    call printed it. Rich's own styling and cursor control are untouched: styles are rendered
    from the segments' styles, and control segments are passed as they are."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("markup", False)
        super().__init__(**options)

    def render_str(self, text: str, **options: Any) -> Text:
        """Strings (table cells, printed lines) escaped before they are measured, so a table
        holding a control character still lines up; `_render_buffer` catches the rest."""
        return super().render_str(printable(text, multiline=True), **options)

    def _render_buffer(self, buffer: Any) -> str:
        return super()._render_buffer(
            segment
            if segment.control or segment.text.isprintable()
            else Segment(printable(segment.text, multiline=True), segment.style)
            for segment in buffer
        )

    def on_broken_pipe(self) -> None:
        """Rich's own handling exits with code 1 from inside `print`; raise instead, so `main`
        ends `skyt-tui runs list | head -1` quietly with code 0 like every other write."""
        self.quiet = True
        raise BrokenPipeError


def plain(text: object, style: str = "") -> Text:
    """Outside text as a cell or a line: never markup, control characters shown as escapes."""
    return Text(printable(text, multiline=True), style=style)


def console() -> Console:
    return _Console(highlight=False)


def error_console() -> Console:
    return _Console(stderr=True, highlight=False)


def note_distance_implementation(distance: str) -> None:
    """On stderr, when the distance will be measured by a slower fallback (the tree distance's
    pure-Python one, where the extension is not built): say so."""
    if note := distance_kind(distance).fallback_note():
        error_console().print(f"note: {note}", markup=False)


def print_json(kind: str, data: Any) -> None:
    """`data` on stdout in the JSON envelope (`schema_version`, `kind`, then the data).

    Characters a terminal would act on (C1 controls, bidirectional overrides) are
    written as \\u escapes, so a sample's text cannot reach the terminal raw.
    """
    text = json.dumps(
        _json_safe(envelope(kind, data)), indent=2, sort_keys=True, ensure_ascii=False
    )
    sys.stdout.write(json_printable(text) + "\n")


def warn(line: str) -> None:
    """One warning line on stderr (outside text in it shown printable)."""
    print(f"skyt-tui: warning: {printable(line)}", file=sys.stderr)


def limited_lines(run_id: str, analysis: StoredAnalysis) -> list[str]:
    """One line per sample of a stored analysis too long for skyt-tui to parse (judged and
    counted all the same)."""
    return [not_parsed_line(run_id, index, reason) for index, reason in analysis.limited.items()]


def resolve_run(text: str) -> str:
    """`run_store.resolve_run_id` for a command: a run `latest` left out (its metadata does not
    read) is said on stderr, so the run chosen is never a silent substitute."""
    from skyt_tui.engine.runs import run_store

    skipped: list[str] = []
    run_id = run_store.resolve_run_id(text, skipped=skipped)
    for problem in skipped:
        warn(f"latest: left out {problem}")
    return run_id


def check_output_file(path: Path, option: str) -> None:
    """Refuse an output path whose folder does not exist (no folder is made), that is a folder,
    or that is something other than a plain file (a device, a pipe, a socket, a link): the file
    is written whole under a temporary name and renamed into place, which would replace such a
    thing rather than write into it. All before any work is done; `-` (stdout) is always fine."""
    if str(path) == "-":
        return
    path = Path(path)
    try:
        mode: int | None = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError.at(path, f"is a directory; {option} needs a file path")
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a link" if stat.S_ISLNK(mode) else "not a plain file (a device, pipe or socket)"
        raise InputError.at(
            path,
            f"is {kind}; {option} writes a new file in its place: give a file path,"
            " or - for standard output",
        )
    parent = path.parent
    if not parent.is_dir():
        raise InputError.at(path, f"directory {parent} does not exist")


def write_output_file(path: Path, text: str, option: str) -> None:
    """`text` to stdout for `-`, else atomically to `path` (see `check_output_file`)."""
    if str(path) == "-":  # to a terminal, what a cell holds is shown, never acted on
        sys.stdout.write(printable(text, multiline=True) if sys.stdout.isatty() else text)
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
