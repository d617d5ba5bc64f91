"""Diffs of sample code, unified (rich `Text`) or side by side (a two-column table): coloured by line kind,
never parsed as markup."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.table import Table
from rich.text import Text

from skyt_tui.engine.printable import printable

LINE_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))
MAX_DIFF_LINES = 1000
"""Lines of each side compared (real samples have tens): difflib's matching grows with the
product of the lengths, and far faster on repetitive lines, which a sample can be."""
MAX_SHOWN_CHARS = 100_000
"""Characters of a sample shown or compared (real samples: under 2,000); a sample may be one
line of megabytes, which no screen shows and every redraw would wrap again."""


def _lines(text: str) -> tuple[list[str], bool]:
    lines = text[:MAX_SHOWN_CHARS].splitlines()
    cut = len(text) > MAX_SHOWN_CHARS or len(lines) > MAX_DIFF_LINES
    return lines[:MAX_DIFF_LINES], cut


def shown_code(code: str) -> tuple[str, str]:
    """The part of a sample's code a screen shows (its first `MAX_DIFF_LINES` lines, at most
    `MAX_SHOWN_CHARS` characters), and a note saying what was left out ("" for all of it)."""
    lines, cut = _lines(code)
    if not cut:
        return code, ""
    total = code.count("\n") + 1
    return "\n".join(lines), (
        f"(the first {len(lines):,} of {total:,} lines shown, "
        f"at most {MAX_SHOWN_CHARS:,} of its {len(code):,} characters)"
    )


def _cut_note() -> Text:
    return Text(
        f"\n(only the first {MAX_DIFF_LINES:,} lines and {MAX_SHOWN_CHARS:,} characters of each "
        "side are compared)",
        style="dim",
    )


def unified_diff_text(
    before: str, after: str, before_label: str, after_label: str, context: int = 3
) -> Text:
    """The unified diff of two code texts; an explicit line when they are identical."""
    (before_lines, cut_before), (after_lines, cut_after) = _lines(before), _lines(after)
    lines = list(
        difflib.unified_diff(
            before_lines,
            after_lines,
            fromfile=before_label,
            tofile=after_label,
            lineterm="",
            n=context,
        )
    )
    if not lines:
        return Text(
            f"{before_label} and {after_label} are identical at this level.", style="italic"
        )
    text = Text()
    for line in lines:
        style = next((style for prefix, style in LINE_STYLES if line.startswith(prefix)), "")
        # sample code: no raw escapes
        text.append(printable(line, multiline=True) + "\n", style=style)
    text.rstrip()
    if cut_before or cut_after:
        text.append_text(_cut_note())
    return text


class WrappedDiff:
    """A unified diff (`unified_diff_text`) that keeps each line's `+`/`-` when the screen wraps it:
    every row a long line is folded into starts with the line's mark, so a continuation never
    reads as unchanged context (colour or not)."""

    def __init__(self, diff: Text) -> None:
        self.diff = diff

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        width = max(options.max_width, 2)
        for line in self.diff.split("\n"):
            plain = line.plain
            mark = plain[:1] if plain[:1] in "+- " and not plain.startswith(("+++", "---")) else ""
            if not mark or line.cell_len <= width:
                yield from line.wrap(console, width, overflow="fold")
                continue
            body = line[1:]
            for row in body.wrap(console, width - 1, overflow="fold"):
                yield Text(mark, style=line.get_style_at_offset(console, 0)) + row


def side_by_side_diff(
    before: str, after: str, before_label: str, after_label: str
) -> RenderableType:
    """The two texts in two columns, lines aligned: removed lines red on the left, added ones green on the
    right, changed ones both; an explicit line when they are identical."""
    (left, cut_left), (right, cut_right) = _lines(before), _lines(after)
    if left == right and not (cut_left or cut_right):
        return Text(
            f"{before_label} and {after_label} are identical at this level.", style="italic"
        )
    table = Table(box=None, expand=True, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column(before_label, ratio=1, overflow="fold")
    table.add_column(after_label, ratio=1, overflow="fold")
    matcher = difflib.SequenceMatcher(None, left, right)  # junk heuristic: 200 lines or more
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            a = left[i1 + k] if i1 + k < i2 else None
            b = right[j1 + k] if j1 + k < j2 else None
            style_a, style_b = ("", "") if tag == "equal" else ("red", "green")
            table.add_row(
                Text(printable(a, multiline=True), style=style_a) if a is not None else Text(""),
                Text(printable(b, multiline=True), style=style_b) if b is not None else Text(""),
            )
    if cut_left or cut_right:
        table.add_row(_cut_note(), Text(""))
    return table


def diff_renderable(
    before: str, after: str, before_label: str, after_label: str, side_by_side: bool
) -> RenderableType:
    if side_by_side:
        return side_by_side_diff(before, after, before_label, after_label)
    return WrappedDiff(unified_diff_text(before, after, before_label, after_label))
