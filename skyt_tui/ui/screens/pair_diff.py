"""A modal with the diff of two samples' normalized code (Enter on a heatmap cell), unified or side by side (`d`)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from skyt_tui.ui.clipboard import copy_text
from skyt_tui.ui.diff_text import diff_renderable, unified_diff_text


class PairDiffScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("c", "copy", "Copy diff"),
        Binding("d", "toggle_diff", "Side by side"),
    ]

    def __init__(
        self, title: str, before: str, after: str, before_label: str, after_label: str
    ) -> None:
        super().__init__(id="pair-diff-screen")
        self.title_line = title
        self.texts = (before, after, before_label, after_label)
        self.diff = unified_diff_text(before, after, before_label, after_label)

    def compose(self) -> ComposeResult:
        with Vertical(id="pair-diff"):
            yield Static(Text(self.title_line, style="bold"), id="pair-diff-title")
            with VerticalScroll(id="pair-diff-body"):
                yield Static(self._shown(), id="pair-diff-text")
        yield Footer()

    def _shown(self) -> RenderableType:
        return diff_renderable(*self.texts, side_by_side=self.app.diff_side_by_side)

    def action_toggle_diff(self) -> None:
        self.app.diff_side_by_side = not self.app.diff_side_by_side
        self.query_one("#pair-diff-text", Static).update(self._shown())

    def on_mount(self) -> None:
        self.query_one("#pair-diff-body").focus()

    def action_copy(self) -> None:
        copy_text(self.app, self.diff.plain, "the diff")
