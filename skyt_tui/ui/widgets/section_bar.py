"""The top line of every section: the app's name and the five sections, clickable, the current one marked."""

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
        super().__init__(self._content(), id="section-bar")

    def _content(self) -> Content:
        parts = ["[b] skyt-tui [/b]"]
        if is_demo_store():  # the demo's own store: hand-written examples, never the user's runs
            parts.append("[@click=app.toggle_store][b reverse $warning] DEMO [/][/] ")
        for number, (name, title) in enumerate(SECTIONS, start=1):
            style = "reverse b" if name == self.current else ""
            label = f" {number} {title} "
            parts.append(
                f"[@click=app.section('{name}')][{style}]{label}[/][/]"
                if style
                else f"[@click=app.section('{name}')]{label}[/]"
            )
        parts.append("  [@click=app.help][dim]? help[/][/]")
        return Content.from_markup("".join(parts))
