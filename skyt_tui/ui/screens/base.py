"""What every section screen shares: the section bar on top, the footer with its keys below."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer

from skyt_tui.ui.widgets.section_bar import SectionBar, section_title


class SectionScreen(Screen):
    SECTION: ClassVar[str] = ""
    SCREEN_ID: ClassVar[str] = ""
    """Id of a screen pushed over a section (it shares the section's bar); default: the section's."""

    def __init__(self) -> None:
        super().__init__(id=f"{self.SCREEN_ID or self.SECTION}-screen")
        self.sub_title = section_title(self.SECTION)

    def compose(self) -> ComposeResult:
        yield SectionBar(self.SECTION)
        yield from self.compose_body()
        yield Footer(compact=True)

    def compose_body(self) -> ComposeResult:
        yield from ()
