"""The export dialog: a run's samples as CSV, or its report as JSON (with or without code), to a file."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.run_store import StoredRun
from skyt_tui.ui import run_data

KINDS = (
    ("csv", "CSV: one row per sample (as `report --csv`)", ".csv"),
    ("json", "JSON: the whole report (as `report --json`)", ".json"),
    ("json+code", "JSON with each sample's response and code", ".json"),
)
EXTENSIONS = {kind: extension for kind, _, extension in KINDS}


def default_path(run_id: str, kind: str, directory: Path | None = None) -> str:
    return str((directory or Path.cwd()) / f"{run_id}{EXTENSIONS[kind]}")


class ExportDialog(ModalScreen[tuple[str, str] | None]):
    """Returns (kind, path) or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "submit", "Export")]

    def __init__(self, run_id: str, directory: Path | None = None) -> None:
        super().__init__(id="export-dialog-screen")
        self.run_id = run_id
        self.directory = directory

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="dialog"):
            yield Static(Text(f"Export run {self.run_id}", style="bold"), classes="dialog-title")
            with Horizontal(classes="form-row"):
                yield Label("Format", classes="form-label")
                yield Select(
                    [(label, kind) for kind, label, _ in KINDS],
                    value="csv",
                    allow_blank=False,
                    compact=True,
                    id="export-kind",
                )
            with Horizontal(classes="form-row"):
                yield Label("File", classes="form-label")
                yield Input(
                    default_path(self.run_id, "csv", self.directory), id="export-path", compact=True
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="export-ok")
                yield Button("Cancel", id="export-cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Select.Changed, "#export-kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        path_input = self.query_one("#export-path", Input)
        path = Path(path_input.value)
        if path.suffix in (".csv", ".json"):
            path_input.value = str(path.with_suffix(EXTENSIONS[str(event.value)]))

    def action_submit(self) -> None:
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.notify("Give a file to write.", severity="warning")
            return
        self.dismiss((str(self.query_one("#export-kind", Select).value), path))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#export-ok")
    def _ok(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self) -> None:
        self.action_cancel()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_submit()


def ask_export(screen: Screen, run: StoredRun, analysis: StoredAnalysis) -> None:
    """Open the dialog over `screen` and write the file it returns, reporting the result as a notification."""

    def write(choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        kind, path = choice
        try:
            rows = run_data.export_run(run, analysis, path, kind)
        except (SkytError, OSError) as exc:
            screen.notify(f"Export failed: {exc}", severity="error", markup=False)
            return
        written = Path(path).expanduser().absolute()  # where it landed, not where it was typed
        screen.app.export_dir = written.parent
        screen.notify(f"Wrote {counted(rows, 'sample')} to {written}", markup=False)

    screen.app.push_screen(ExportDialog(run.id, screen.app.export_dir), write)
