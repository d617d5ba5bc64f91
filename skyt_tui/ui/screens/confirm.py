"""A confirmation modal that says exactly what will happen before anything changes; returns True or False."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Confirm"),
    ]

    def __init__(self, title: str, body: RenderableType, confirm: str = "Confirm") -> None:
        super().__init__(id="confirm-screen")
        self.title_text = title
        self.body = body
        self.confirm_label = confirm

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm", classes="dialog"):
            yield Static(Text(self.title_text, style="bold"), classes="dialog-title")
            with VerticalScroll(id="confirm-body"):
                yield Static(self.body, id="confirm-text")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.confirm_label} (y)", variant="warning", id="confirm-yes")
                yield Button("Cancel (n)", id="confirm-no")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed, "#confirm-yes")
    def _yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#confirm-no")
    def _no(self) -> None:
        self.dismiss(False)
