"""The "start a run" modal: provider, model, where to reach it, N, temperatures and concurrency, checked before it closes."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from skyt_tui.engine.contract import Contract
from skyt_tui.ui.run_request import (
    PROVIDERS,
    TARGET_HINTS,
    TARGET_LABELS,
    RunFormError,
    RunRequest,
    parse_run_form,
)

FIELDS = ("provider", "model", "target", "n", "temperatures", "concurrency")
DEFAULTS = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "target": "",
    "n": "20",
    "temperatures": "0.0",
    "concurrency": "4",
}
LABELS = {
    "provider": "Provider",
    "model": "Model",
    "target": "Base URL",
    "n": "Samples (N)",
    "temperatures": "Temperature(s)",
    "concurrency": "Concurrency",
}
HINTS = {
    "model": "model name (optional for command and replay)",
    "temperatures": "comma-separated for a sweep, e.g. 0, 0.5, 1",
}


def _initial(previous: RunRequest | None) -> dict[str, str]:
    if previous is None:
        return dict(DEFAULTS)
    return {
        "provider": previous.provider,
        "model": previous.model,
        "target": previous.target,
        "n": str(previous.n),
        "temperatures": ", ".join(f"{t:g}" for t in previous.temperatures),
        "concurrency": str(previous.concurrency),
    }


class RunDialog(ModalScreen[RunRequest | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Start run"),
    ]

    def __init__(self, contract: Contract, previous: RunRequest | None = None) -> None:
        super().__init__(id="run-dialog-screen")
        self.contract = contract
        self.initial = _initial(previous)

    def compose(self) -> ComposeResult:
        with Vertical(id="run-dialog"):
            yield Static(
                Text(f"Start a run of {self.contract.id}", style="bold"), id="run-dialog-title"
            )
            with VerticalScroll(id="run-form"):
                for field in FIELDS:
                    with Horizontal(classes="form-row"):
                        yield Label(LABELS[field], classes="form-label", id=f"label-{field}")
                        if field == "provider":
                            yield Select(
                                [(p, p) for p in PROVIDERS],
                                value=self.initial[field],
                                allow_blank=False,
                                compact=True,
                                id="field-provider",
                            )
                        else:
                            hint = (
                                TARGET_HINTS[self.initial["provider"]]
                                if field == "target"
                                else HINTS.get(field, "")
                            )
                            yield Input(
                                self.initial[field],
                                id=f"field-{field}",
                                compact=True,
                                placeholder=hint,
                            )
                    yield Static("", id=f"error-{field}", classes="field-error")
            with Horizontal(id="run-dialog-buttons"):
                yield Button("Start", variant="primary", id="run-start")
                yield Button("Cancel", id="run-cancel")
        yield Footer()

    def on_mount(self) -> None:
        self._show_target(self.initial["provider"])
        self.query_one("#field-provider", Select).focus()  # typing starts in the first field

    @on(Select.Changed, "#field-provider")
    def _provider_changed(self, event: Select.Changed) -> None:
        self._show_target(str(event.value))

    def _show_target(self, provider: str) -> None:
        """The third field means what the provider needs: a base URL, the command or the recording."""
        self.query_one("#label-target", Label).update(TARGET_LABELS.get(provider, "Target"))
        self.query_one("#field-target", Input).placeholder = TARGET_HINTS.get(provider, "")

    def values(self) -> dict[str, str]:
        out = {"provider": str(self.query_one("#field-provider", Select).value)}
        for field in FIELDS[1:]:
            out[field] = self.query_one(f"#field-{field}", Input).value
        return out

    def action_submit(self) -> None:
        for field in FIELDS:
            error = self.query_one(f"#error-{field}", Static)
            error.update("")
            error.remove_class("-shown")
        try:
            request = parse_run_form(self.contract.id, **self.values())
        except RunFormError as exc:
            for field, reason in exc.errors.items():
                error = self.query_one(f"#error-{field}", Static)
                error.update(Text(f"↑ {reason}"))
                error.add_class("-shown")
            self.query_one(f"#field-{next(iter(exc.errors))}").focus()
            return
        self.dismiss(request)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#run-start")
    def _start_pressed(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#run-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    @on(Input.Submitted)
    def _input_submitted(self) -> None:
        self.action_submit()
