"""The top line of every section: the app's name and the six sections, clickable, the current one marked.

Below 86 columns the labels lose their padding and "? help" becomes "?", so the line fits 80."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from skyt_tui.locations import is_demo_store

SECTIONS: tuple[tuple[str, str], ...] = (
    ("contracts", "Contracts"),
    ("runs", "Runs"),
    ("canon", "Canon"),
    ("heatmap", "Heatmap"),
    ("benchmark", "Benchmark"),
    ("studies", "Studies"),
)
"""(mode name, title) in key order: key 1 is the first."""


def section_title(name: str) -> str:
    return dict(SECTIONS).get(name, name.title())


class SectionBar(Static):
    DEFAULT_CSS = """
    SectionBar {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $foreground;
    }
    """

    def __init__(self, current: str) -> None:
        self.current = current
        self.compact = False
        super().__init__(self._content(), id="section-bar")

    def on_resize(self) -> None:
        compact = self.size.width < 86
        if compact != self.compact:
            self.compact = compact
            self.update(self._content())

    def _content(self) -> Content:
        parts = ["[b] skyt-tui [/b]"]
        if is_demo_store():  # the demo's own store: hand-written examples, never the user's runs
            parts.append("[@click=app.toggle_store][b reverse $warning] DEMO [/][/] ")
        for number, (name, title) in enumerate(SECTIONS, start=1):
            style = "reverse b" if name == self.current else ""
            label = f"{number} {title} " if self.compact else f" {number} {title} "
            parts.append(
                f"[@click=app.section('{name}')][{style}]{label}[/][/]"
                if style
                else f"[@click=app.section('{name}')]{label}[/]"
            )
        parts.append(
            "  [@click=app.help][dim]?[/][/]"
            if self.compact
            else "  [@click=app.help][dim]? help[/][/]"
        )
        return Content.from_markup("".join(parts))
