"""The app's last guard for text from outside: no character a terminal acts on leaves a widget.

Screens show names, titles, labels, messages and code through `Text`, `Content` and
`markup=False`, escaped with `engine.printable` where they enter (so a control character
shows as `\\x1b`). This line filter runs on every line every widget renders (Textual's
own widgets included: tables, toasts, the palette, titles), after that: any character
that is still not printable is dropped where it takes no cell, and shown as U+FFFD where it
takes one, so the layout Textual measured is kept and nothing reaches the terminal raw.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter


def _inert(text: str) -> str:
    return "".join(char if char.isprintable() else "\ufffd" * cell_len(char) for char in text)


class Inert(LineFilter):
    """Drop (or replace by U+FFFD, keeping the width) every non-printable character."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if all(segment.text.isprintable() for segment in segments):
            return segments
        return [
            segment
            if segment.text.isprintable()
            else Segment(_inert(segment.text), segment.style, segment.control)
            for segment in segments
        ]
