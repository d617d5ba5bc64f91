"""Unified diffs of sample code as rich `Text`: coloured by line kind, never parsed as markup."""

from __future__ import annotations

import difflib

from rich.text import Text

from skyt_tui.engine.printable import printable

LINE_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def unified_diff_text(
    before: str, after: str, before_label: str, after_label: str, context: int = 3
) -> Text:
    """The unified diff of two code texts; an explicit line when they are identical."""
    lines = list(
        difflib.unified_diff(
            before.splitlines(),
            after.splitlines(),
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
        text.append(
            printable(line, multiline=True) + "\n", style=style
        )  # sample code: no raw escapes
    text.rstrip()
    return text
