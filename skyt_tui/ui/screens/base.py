"""What every section screen shares: the section bar on top, the footer with its keys below, `z` to
enlarge the focused pane, and a "terminal too small" message below the smallest size the sections fit."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from skyt_tui.ui.widgets.section_bar import SectionBar, section_title

MIN_WIDTH, MIN_HEIGHT = 60, 18
"""The smallest terminal every section is laid out for; below it the screen says so instead of
showing panes squeezed to nothing."""


class SectionScreen(Screen):
    DEFAULT_CSS = """
    SectionScreen #too-small { display: none; width: 1fr; height: 1fr; content-align: center middle; }
    SectionScreen.-too-small > * { display: none; }
    SectionScreen.-too-small > #too-small { display: block; }
    """
    SECTION: ClassVar[str] = ""
    SCREEN_ID: ClassVar[str] = ""
    """Id of a screen pushed over a section (it shares the section's bar); default: the section's."""
    SCOPE: ClassVar[str] = ""
    """What help and the palette call this screen's keys (`Run: Filter samples`); default: the
    section's title. A screen pushed over a section names itself, so its keys are not taken for
    the section's own (`Runs: Filter` filters the list, wherever it is chosen)."""

    def __init__(self) -> None:
        super().__init__(id=f"{self.SCREEN_ID or self.SECTION}-screen")
        self.sub_title = section_title(self.SECTION)

    BINDINGS = [Binding("z", "toggle_maximize", "Enlarge pane", show=False)]

    def compose(self) -> ComposeResult:
        yield SectionBar(self.SECTION)
        yield from self.compose_body()
        yield Footer(compact=True)
        yield Static(id="too-small")

    def on_mount(self) -> None:
        self._check_size(self.app.size.width, self.app.size.height)

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)

    def _check_size(self, width: int, height: int) -> None:
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                Text(
                    f"Terminal too small: {width}×{height}.\n"
                    f"skyt-tui needs at least {MIN_WIDTH}×{MIN_HEIGHT}; enlarge the window (q quits).",
                    justify="center",
                )
            )

    def action_toggle_maximize(self) -> None:
        """Enlarge the focused pane to the whole screen, or bring the others back."""
        focused = self.focused
        if self.maximized is not None:
            self.minimize()
        elif focused is None:
            self.notify("No pane has the focus: click one or press tab, then z.", timeout=3)
        elif not self.maximize(focused):
            # Textual does not enlarge a scrolling pane (a sample's code, a detail) by itself: its
            # nearest container that may be enlarged is (the tabs around the code), else the pane
            self.maximized = next(
                (
                    widget
                    for widget in focused.ancestors
                    if isinstance(widget, Widget)
                    and not isinstance(widget, Screen)
                    and widget.allow_maximize
                ),
                focused,
            )

    def compose_body(self) -> ComposeResult:
        yield from ()
