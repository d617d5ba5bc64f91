"""What a section shows when it has nothing to show yet: what it is for, and the command that fills it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static


def empty_state_text(
    title: str, purpose: Sequence[str], commands: Sequence[tuple[str, str]] = (), note: str = ""
) -> Text:
    text = Text()
    text.append(title + "\n\n", style="bold")
    for line in purpose:
        text.append(line + "\n")
    if commands:
        text.append("\n")
        for command, explanation in commands:
            text.append("  $ ", style="dim")
            text.append(command, style="bold")
            text.append(f"\n      {explanation}\n" if explanation else "\n", style="dim")
    if note:
        text.append("\n" + note, style="italic")
    text.rstrip()
    return text


class EmptyState(Static):
    DEFAULT_CSS = """
    EmptyState {
        width: 1fr;
        height: auto;
        padding: 1 2;
    }
    """

    def __init__(
        self,
        title: str,
        purpose: Sequence[str],
        commands: Sequence[tuple[str, str]] = (),
        note: str = "",
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(empty_state_text(title, purpose, commands, note), id=id, classes=classes)
