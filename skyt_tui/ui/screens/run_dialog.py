"""The "start a run" modal: provider, model, where to reach it, N, temperatures, concurrency, timeout, seed,
max tokens and system prompt, checked before it closes; errors follow the fields as they are edited.
"Save as profile…" (ctrl+o) keeps the checked values as `[profiles.NAME]` in settings.toml."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.generation import run_options
from skyt_tui.engine.settings import PROFILE_NAME
from skyt_tui.ui.run_request import (
    PROVIDERS,
    TARGET_HINTS,
    TARGET_LABELS,
    RunFormError,
    RunRequest,
    form_values,
    parse_run_form,
)

FIELDS = (*run_options.FIELDS, "stop_width", "probe_inputs")
"""The run options' fields, then the dialog's own early-stop width and probe budget."""
DEFAULTS = {
    "provider": "openai",
    "model": "gpt-4o-mini",
    "target": "",
    "n": "20",
    "temperatures": "0.0",
    "concurrency": "4",
    "timeout": "",
    "seed": "",
    "max_tokens": "",
    "system": "",
    "stop_width": "",
    "probe_inputs": "",
}
LABELS = {
    "provider": "Provider",
    "model": "Model",
    "target": "Base URL",
    "n": "Samples (N)",
    "temperatures": "Temperature(s)",
    "concurrency": "Concurrency",
    "timeout": "Timeout (s)",
    "seed": "Seed",
    "max_tokens": "Max tokens",
    "system": "System prompt",
    "stop_width": "Stop when sure",
    "probe_inputs": "Probe inputs",
}
HINTS = {
    "model": "model name (optional for command and replay)",
    "temperatures": "comma-separated for a sweep, e.g. 0, 0.5, 1",
    "timeout": "per request; empty: 120 s (HTTP), 300 s (command)",
    "seed": "optional; sent where the provider takes one",
    "max_tokens": "optional",
    "system": "optional system message",
    "stop_width": "optional: offer to stop once the 95% intervals are narrower, e.g. 0.2",
    "probe_inputs": "optional: then run passing samples on N generated inputs, e.g. 200",
}


def _target_kind(provider: str) -> str:
    return "url" if provider in ("openai", "anthropic") else provider


def _initial(previous: RunRequest | None, defaults: dict[str, str] | None = None) -> dict[str, str]:
    """The last request of this session, else the dialog's remembered values and settings.toml's
    defaults (`data.run_form_defaults`), else the built-in ones."""
    if previous is None:
        return DEFAULTS | (defaults or {})
    return form_values(previous)


class ProfileNameScreen(ModalScreen[str | None]):
    """Asks the name of a new provider profile; refuses names settings.toml cannot hold or has."""

    DEFAULT_CSS = """
    ProfileNameScreen { align: center middle; }
    ProfileNameScreen .dialog { width: 60; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, existing: tuple[str, ...] = ()) -> None:
        super().__init__(id="profile-name-screen")
        self.existing = existing

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Save as profile", style="bold"), classes="dialog-title")
            yield Static(
                Text(
                    "These values become [profiles.NAME] in settings.toml: the dialog's Profile "
                    "list and `skyt-tui run --profile NAME` use them.",
                    style="dim",
                )
            )
            yield Input(
                placeholder="name: letters, digits, '_', '-', '.'",
                id="profile-name",
                compact=True,
            )
            yield Static("", id="profile-name-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save", variant="primary", id="profile-save")
                yield Button("Cancel", id="profile-cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#profile-name", Input).focus()

    def check(self, name: str) -> str | None:
        if not name:
            return "required"
        if not PROFILE_NAME.fullmatch(name):
            return "a profile name is letters, digits, '_', '-' and '.' (starting with a letter or digit)"
        if name in self.existing:
            return f"a profile {name!r} exists already: choose another name"
        return None

    @on(Input.Submitted, "#profile-name")
    @on(Button.Pressed, "#profile-save")
    def _save(self) -> None:
        name = self.query_one("#profile-name", Input).value.strip()
        error = self.query_one("#profile-name-error", Static)
        reason = self.check(name)
        error.update(Text(f"↑ {reason}") if reason else "")
        error.set_class(bool(reason), "-shown")
        if reason is None:
            self.dismiss(name)

    @on(Button.Pressed, "#profile-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class RunDialog(ModalScreen[RunRequest | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "submit", "Start run"),
        Binding("ctrl+o", "save_profile", "Save as profile…"),
    ]

    def __init__(
        self,
        contract: Contract,
        previous: RunRequest | None = None,
        defaults: dict[str, str] | None = None,
        profiles: dict[str, dict[str, str]] | None = None,
    ) -> None:
        super().__init__(id="run-dialog-screen")
        self.contract = contract
        self.profiles = profiles or {}
        """Saved provider profiles (settings.toml's [profiles.NAME]) as the field values they set."""
        self.initial = _initial(previous, defaults)
        self.provider = self.initial["provider"]

    def compose(self) -> ComposeResult:
        with Vertical(id="run-dialog"):
            yield Static(
                Text(f"Start a run of {self.contract.id}", style="bold"), id="run-dialog-title"
            )
            with VerticalScroll(id="run-form"):
                if self.profiles:
                    with Horizontal(classes="form-row"):
                        yield Label("Profile", classes="form-label", id="label-profile")
                        yield Select(
                            [(name, name) for name in self.profiles],
                            prompt="(none: fill in below)",
                            compact=True,
                            id="field-profile",
                        )
                    yield Static("", id="error-profile", classes="field-error")
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
                yield Button("Save as profile…", id="run-save-profile")
                yield Button("Cancel", id="run-cancel")
        yield Footer()

    def on_mount(self) -> None:
        self._show_target(self.initial["provider"])
        first = "#field-profile" if self.profiles else "#field-provider"
        self.query_one(first, Select).focus()  # typing starts in the first field

    @on(Select.Changed, "#field-profile")
    def _profile_chosen(self, event: Select.Changed) -> None:
        """A saved profile fills the fields it sets; the target follows its provider."""
        if event.value is Select.BLANK or str(event.value) not in self.profiles:
            return
        values = self.profiles[str(event.value)]
        provider = values["provider"]
        self.query_one("#field-target", Input).value = values.get("target", "")
        self.query_one("#field-model", Input).value = values.get("model", "")
        for field, value in values.items():
            if field not in ("provider", "target", "model"):
                self.query_one(f"#field-{field}", Input).value = value
        self.query_one("#field-provider", Select).value = provider
        self.provider = provider
        self._show_target(provider)
        self._recheck()

    @on(Select.Changed, "#field-provider")
    def _provider_changed(self, event: Select.Changed) -> None:
        provider = str(event.value)
        target = self.query_one("#field-target", Input)
        is_url = target.value.strip().startswith(("http://", "https://"))
        if target.value.strip() and is_url != (_target_kind(provider) == "url"):
            target.value = ""  # a base URL is no command nor recording, and the other way round
        self.provider = provider
        self._show_target(provider)
        self._recheck()

    @on(Input.Changed)
    def _field_changed(self) -> None:
        self._recheck()

    def _recheck(self) -> None:
        """Errors already shown follow the fields: fixed ones go at once, others keep their reason."""
        shown = [f for f in FIELDS if self.query_one(f"#error-{f}", Static).has_class("-shown")]
        if not shown:
            return
        try:
            parse_run_form(self.contract.id, **self.values())
            errors: dict[str, str] = {}
        except RunFormError as exc:
            errors = exc.errors
        for field in shown:
            self._show_error(field, errors.get(field))

    def _show_error(self, field: str, reason: str | None) -> None:
        error = self.query_one(f"#error-{field}", Static)
        error.update(Text(f"↑ {reason}") if reason else "")
        error.set_class(bool(reason), "-shown")

    def _show_target(self, provider: str) -> None:
        """The third field means what the provider needs: a base URL, the command or the recording."""
        self.query_one("#label-target", Label).update(TARGET_LABELS.get(provider, "Target"))
        self.query_one("#field-target", Input).placeholder = TARGET_HINTS.get(provider, "")

    def values(self) -> dict[str, str]:
        out = {"provider": str(self.query_one("#field-provider", Select).value)}
        for field in FIELDS[1:]:
            out[field] = self.query_one(f"#field-{field}", Input).value
        return out

    def checked_request(self, check_key: bool = True) -> RunRequest | None:
        """The form as a request, or None with every error shown and the first bad field focused
        (`check_key=False`: a missing API key is no error, for a profile used later)."""
        try:
            request = parse_run_form(self.contract.id, **self.values(), check_key=check_key)
        except RunFormError as exc:
            for field in FIELDS:
                self._show_error(field, exc.errors.get(field))
            self.query_one(f"#field-{next(iter(exc.errors))}").focus()
            return None
        return request

    def action_submit(self) -> None:
        request = self.checked_request()
        if request is not None:
            self.dismiss(request)

    def action_save_profile(self) -> None:
        """Ask a name, then keep the checked values as [profiles.NAME]; the dialog stays open."""
        request = self.checked_request(check_key=False)
        if request is None:
            return
        for field in FIELDS:  # an error shown by an earlier start (a missing key) is not this one's
            self._show_error(field, None)
        self.app.push_screen(
            ProfileNameScreen(tuple(self.profiles)),
            lambda name: self._save_profile(name, request) if name else None,
        )

    def _save_profile(self, name: str, request: RunRequest) -> None:
        from skyt_tui.ui import run_form

        if error := run_form.save_run_profile(name, request):
            self.notify(f"Profile not saved: {error}", severity="error", markup=False)
            return
        self.profiles = run_form.run_form_profiles()
        if self.profiles and self.query("#field-profile"):
            select = self.query_one("#field-profile", Select)
            select.set_options([(p, p) for p in self.profiles])
            with select.prevent(Select.Changed):
                select.value = name
        kept = "" if len(request.temperatures) == 1 else " (without the sweep's temperatures)"
        self.notify(
            f"Saved profile {name} in settings.toml{kept}: `skyt-tui run --profile {name}`",
            markup=False,
        )

    @on(Button.Pressed, "#run-save-profile")
    def _save_profile_pressed(self) -> None:
        self.action_save_profile()

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
