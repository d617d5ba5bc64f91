"""The top line of every section: the app's name and the six sections, clickable, the current one marked.

The line takes the widest of its forms that fits: labels padded, then unpadded, then with "Bench"
for "Benchmark" (the CLI's name for it), and only below that "?" for "? help"; at 80 columns every
form with the DEMO badge keeps "? help"."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from skyt_tui.locations import is_demo_store

SHORT_TITLES = {"benchmark": "Bench"}
"""Titles shortened when the line is narrow."""

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

    FORMS = ((True, False, True), (False, False, True), (False, True, True), (False, True, False))
    """(padded labels, short titles, "? help" in words), widest first."""

    def __init__(self, current: str) -> None:
        self.current = current
        self.form = self.FORMS[0]
        super().__init__(self._content(*self.form), id="section-bar")

    def on_resize(self) -> None:
        width = self.size.width
        form = next(
            (f for f in self.FORMS if self._content(*f).cell_length <= width), self.FORMS[-1]
        )
        if form != self.form:
            self.form = form
            self.update(self._content(*form))

    def _content(self, padded: bool, short: bool, help_words: bool) -> Content:
        parts = ["[b] skyt-tui [/b]"]
        if is_demo_store():  # the demo's own store: hand-written examples, never the user's runs
            parts.append("[@click=app.toggle_store][b reverse $warning] DEMO [/][/] ")
        for number, (name, title) in enumerate(SECTIONS, start=1):
            style = "reverse b" if name == self.current else ""
            if short:
                title = SHORT_TITLES.get(name, title)
            label = f" {number} {title} " if padded else f"{number} {title} "
            parts.append(
                f"[@click=app.section('{name}')][{style}]{label}[/][/]"
                if style
                else f"[@click=app.section('{name}')]{label}[/]"
            )
        parts.append(
            "  [@click=app.help][dim]? help[/][/]"
            if help_words
            else "  [@click=app.help][dim]?[/][/]"
        )
        return Content.from_markup("".join(parts))
