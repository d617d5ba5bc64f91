"""Section 1, Contracts: the catalog, one contract in detail, and starting a run of it."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from skyt_tui import locations
from skyt_tui.engine.analysis.canon import Canon, CanonState
from skyt_tui.engine.contracts.catalog import CatalogEntry
from skyt_tui.engine.demo import DEMO_LABEL, DEMO_MODEL
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import printable
from skyt_tui.ui import canon_data, demo_data, run_data, run_execution, run_form, store_watch
from skyt_tui.ui.contract_text import describe_constraints, describe_tests, reflow
from skyt_tui.ui.run_request import RunRequest
from skyt_tui.ui.run_text import short_id
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.screens.run_dialog import RunDialog
from skyt_tui.ui.widgets.empty_state import empty_state_text
from skyt_tui.ui.widgets.run_progress import RunProgress

if TYPE_CHECKING:  # the metrics module brings numpy: loaded with the first estimate
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis


def display_error(entry: CatalogEntry) -> str:
    """The entry's one-line error with its directory left out: the file name is enough on screen."""
    error = entry.error or "invalid contract"
    return error.replace(str(entry.path), entry.path.name)


CANON_STYLES = {
    "ok": "green",
    "stale": "bold yellow",
    "tampered": "bold red",
    "corrupt": "bold red",
    "none": "dim",
}
CANON_MEANING = {
    "ok": "fixed by the first passing sample of the contract's first run",
    "stale": "made under other versions or an older contract; not used until re-established",
    "tampered": "its content does not match its stored hash; not used",
    "corrupt": "the canon file cannot be read; not used",
    "none": "not fixed yet: the first oracle-passing sample of the first run becomes it",
}


def canon_meaning(state: str, canon: Canon | None) -> str:
    """What the canon state means; for a usable canon, where it came from, read from its provenance (it
    may have been re-established since the contract's first run)."""
    if state != "ok" or canon is None:
        return CANON_MEANING[state]
    provenance = canon.provenance
    where = f"sample {provenance.get('sample_index')} of run {provenance.get('run_id')}"
    model = provenance.get("model")
    if model == DEMO_MODEL:
        where += f" ({DEMO_LABEL})"
    else:  # a model the source did not record reads `–`, as everywhere a run's model is shown
        where += f" ({provenance.get('provider') or '–'}/{model or '–'})"
    when = str(provenance.get("established_at") or "")[:19].replace("T", " ")
    return f"fixed by {where}" + (f", established {when}" if when else "")


def canon_cell(state: str) -> Text:
    return Text(state, style=CANON_STYLES.get(state, ""))


def code_syntax(code: str, dark: bool) -> Syntax:
    return Syntax(
        printable(code.strip("\n"), multiline=True),  # sample code: control characters as escapes
        "python",
        theme="ansi_dark" if dark else "ansi_light",
        line_numbers=True,
        word_wrap=True,  # a long line wraps under its number: the pane scrolls only up and down
        background_color="default",
    )


ESTIMATE_INTERVAL_S = 2.0
"""How often the run's metrics so far are recomputed while it generates (a sandboxed analysis)."""


class RunProgressed(Message):
    def __init__(self, progress: run_execution.SampleProgress) -> None:
        super().__init__()
        self.progress = progress


class RunEstimated(Message):
    def __init__(self, run_id: str, analysis: StoredAnalysis | None) -> None:
        super().__init__()
        self.run_id, self.analysis = run_id, analysis


class RunEnded(Message):
    def __init__(
        self, outcome: run_execution.RunOutcome | None = None, error: str | None = None
    ) -> None:
        super().__init__()
        self.outcome, self.error = outcome, error


class ContractsScreen(SectionScreen):
    SECTION = "contracts"
    BINDINGS = [
        Binding("r", "start_run", "Run…"),
        Binding("c", "cancel_run", "Cancel run"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[CatalogEntry] = []
        self.canon_states: dict[str, str] = {}
        self.canons: dict[str, CanonState] = {}
        self.signature: tuple = ()
        self.last_request: RunRequest | None = None
        self.cancel_event = threading.Event()
        self.estimating = False
        self.estimated_at = 0.0

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="contracts-body"):
            with Vertical(id="contracts-list-pane"):
                yield DataTable(id="contracts-table", cursor_type="row", zebra_stripes=True)
                yield Static(id="contracts-errors")
            with VerticalScroll(id="contract-detail"):
                yield Static(id="detail-head")
                yield Static(id="detail-body")
        yield RunProgress(id="run-progress")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("id", key="id")
        table.add_column("difficulty", key="difficulty")
        table.add_column("tests", key="tests")
        table.add_column("canon", key="canon")
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_selected())
        self.load_contracts()
        table.focus()

    def on_screen_resume(self) -> None:
        signature = store_watch.store_signature()
        if signature != self.signature:
            self.load_contracts()

    def load_contracts(self) -> None:
        table = self.query_one(DataTable)
        selected = self.selected_entry()
        self.signature = store_watch.store_signature()
        self.entries = canon_data.list_contracts()
        self.canons = {
            entry.contract.id: canon_data.load_canon(entry.contract.id, entry.contract)
            for entry in self.entries
            if entry.contract is not None
        }
        self.canon_states = {
            contract_id: canon_data.canon_status(state)
            for contract_id, state in self.canons.items()
        }
        table.clear()
        for position, entry in enumerate(self.entries):
            if entry.contract is not None:
                contract = entry.contract
                table.add_row(
                    Text(short_id(contract.id)),
                    contract.difficulty,
                    str(len(contract.tests)),
                    canon_cell(self.canon_states[contract.id]),
                    key=str(position),
                )
            else:
                table.add_row(
                    Text(short_id(entry.path.name), style="red"),
                    Text("invalid", style="bold red"),
                    "–",
                    "–",
                    key=str(position),
                )
        errors = [entry for entry in self.entries if entry.contract is None]
        error_text = Text()
        for entry in errors:
            error_text.append("✗ ", style="bold red")
            error_text.append(display_error(entry) + "\n")
        error_text.rstrip()
        self.query_one("#contracts-errors", Static).update(error_text)
        self.query_one("#contracts-errors").display = bool(errors)
        if selected is not None:
            for position, entry in enumerate(self.entries):
                if entry.path == selected.path:
                    table.move_cursor(row=position)
        self.show_selected()

    def selected_entry(self) -> CatalogEntry | None:
        if not self.entries or not self.is_mounted:
            return None
        row = self.query_one(DataTable).cursor_row
        return self.entries[row] if 0 <= row < len(self.entries) else None

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self.show_selected()

    def show_selected(self) -> None:
        head = self.query_one("#detail-head", Static)
        body = self.query_one("#detail-body", Static)
        entry = self.selected_entry()
        if entry is None:
            head.update(
                empty_state_text(
                    "No contracts found",
                    [
                        "A contract pins a prompt, its entry point and the oracle tests a sample must pass.",
                        f"Put your own in {locations.user_contracts_dir()} (TOML, see docs/contracts.md, 'Contract format').",
                    ],
                )
            )
            body.update("")
            return
        if entry.contract is None:
            head.update(
                Text.assemble(
                    (f"✗ {entry.path.name}", "bold red"), f"  ({entry.origin}) — not loaded"
                )
            )
            body.update(
                Text.assemble(
                    (display_error(entry), "red"),
                    "\n\nFix the file and press ctrl+r to reload.",
                )
            )
            return
        contract = entry.contract
        head.update(
            Text.assemble(
                (contract.title, "bold"),
                "\n",
                (
                    f"{contract.id} · v{contract.version} · {contract.difficulty} · {entry.origin}: {entry.path.name}",
                    "dim",
                ),
            )
        )
        body.update(self._detail(entry))
        self.query_one("#contract-detail", VerticalScroll).scroll_home(animate=False)

    def _detail(self, entry: CatalogEntry) -> Group:
        contract = entry.contract
        assert contract is not None
        text = Text()
        text.append("Prompt\n", style="bold underline")
        text.append(reflow(contract.prompt) + "\n\n")
        text.append("Constraints\n", style="bold underline")
        text.append("\n".join(describe_constraints(contract)) + "\n\n")
        text.append(f"Tests ({len(contract.tests)})\n", style="bold underline")
        text.append("\n".join(describe_tests(contract)) + "\n\n")
        text.append("Canon: ", style="bold")
        state = self.canon_states.get(contract.id, canon_data.CANON_NONE)
        text.append_text(canon_cell(state))
        text.append(f" — {self._canon_meaning(contract.id, state)}")
        text.append(" (section 3)\n" if state != canon_data.CANON_NONE else "\n")
        parts: list = [text]
        if contract.reference:
            parts.append(Text("Reference solution", style="bold underline"))
            parts.append(code_syntax(contract.reference, self.app.current_theme.dark))
        else:
            parts.append(Text("No reference solution.", style="dim"))
        return Group(*parts)

    def _canon_meaning(self, contract_id: str, state: str) -> str:
        canon = self.canons[contract_id].canon if contract_id in self.canons else None
        return canon_meaning(state, canon)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        progress = self.query_one(RunProgress) if self.is_mounted else None
        running = bool(progress and progress.running)
        if action == "cancel_run":
            return running
        if action == "start_run":
            return None if running else True
        return True

    def action_reload(self) -> None:
        self.load_contracts()
        self.notify(f"{len(self.entries)} contract files", timeout=2)

    def action_start_run(self) -> None:
        entry = self.selected_entry()
        if entry is None:
            self.notify("No contract selected.", severity="warning")
            return
        if entry.contract is None:
            self.notify(
                f"Cannot run an invalid contract: {display_error(entry)}",
                severity="error",
                markup=False,
            )
            return
        if demo_data.is_demo_store():
            contract_id = entry.contract.id
            self.app.push_screen(
                ConfirmScreen(
                    "Run in your own store",
                    Text(
                        "This is the demo's store (marked DEMO): its canons are hand-written examples, so runs "
                        "are never made here. Open your own store and run "
                        f"{contract_id} there?"
                    ),
                    confirm="Open my store",
                ),
                lambda yes: (
                    self.app.call_later(self.app.run_in_own_store, contract_id) if yes else None
                ),
            )
            return
        defaults, error = run_form.run_form_defaults()
        if error:
            self.notify(f"settings not used: {error}", severity="warning", markup=False)
        self.app.push_screen(
            RunDialog(
                entry.contract, self.last_request, defaults, profiles=run_form.run_form_profiles()
            ),
            self._run_requested,
        )

    def select_contract(self, contract_id: str) -> None:
        for position, entry in enumerate(self.entries):
            if entry.contract is not None and entry.contract.id == contract_id:
                self.query_one(DataTable).move_cursor(row=position)
                self.show_selected()

    def _run_requested(self, request: RunRequest | None) -> None:
        if request is None:
            return
        self.last_request = request
        if error := run_form.remember_run_request(request):
            self.notify(
                f"the run dialog's values not kept: {error}", severity="warning", markup=False
            )
        self.begin_run(request)

    def begin_run(self, request: RunRequest) -> None:
        self.cancel_event = threading.Event()
        self.query_one(RunProgress).start(request)
        self.refresh_bindings()
        self.app.run_started(self.cancel_event, self.query_one(RunProgress).cancelling)
        self._execute(request, self.cancel_event)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _execute(self, request: RunRequest, cancel: threading.Event) -> None:
        try:
            outcome = self.app.run_executor(
                request, lambda progress: self.post_message(RunProgressed(progress)), cancel
            )
        except SkytError as exc:
            self.post_message(RunEnded(error=str(exc)))
        except (
            Exception
        ) as exc:  # an engine bug must end in a visible failure, not a silent dead worker
            self.post_message(RunEnded(error=f"{type(exc).__name__}: {exc}"))
        else:
            self.post_message(RunEnded(outcome=outcome))

    def on_run_progressed(self, message: RunProgressed) -> None:
        progress = self.query_one(RunProgress)
        progress.record(message.progress)
        if not message.progress.retry:
            self._maybe_estimate(message.progress.run_id)

    def on_run_progress_estimate_due(self, message: RunProgress.EstimateDue) -> None:
        """Samples arrived since the last estimate (within its interval): catch up between samples."""
        self._maybe_estimate(message.run_id)

    def _maybe_estimate(self, run_id: str) -> None:
        progress = self.query_one(RunProgress)
        if (
            run_id
            and progress.running
            and not self.estimating
            and time.monotonic() - self.estimated_at >= ESTIMATE_INTERVAL_S
        ):
            self.estimating = True
            progress.unestimated = 0
            self._estimate(run_id)

    @work(thread=True, exclusive=True, group="run-estimate", exit_on_error=False)
    def _estimate(self, run_id: str) -> None:
        """The run's metrics so far, for the intervals the panel shows while it generates."""
        worker = get_current_worker()
        try:
            analysis = run_data.partial_analysis(run_id, cancelled=lambda: worker.is_cancelled)
        except Exception:  # an estimate that fails leaves the panel as it was; the run goes on
            analysis = None
        self.post_message(RunEstimated(run_id, analysis))

    def on_run_estimated(self, message: RunEstimated) -> None:
        self.estimating = False
        self.estimated_at = time.monotonic()
        progress = self.query_one(RunProgress)
        if progress.running and message.analysis is not None:
            progress.judge(
                message.run_id, {s.index: s.facts.passed for s in message.analysis.samples}
            )
            progress.show_estimate(message.analysis.metrics)

    def on_run_ended(self, message: RunEnded) -> None:
        self.app.run_ended()
        progress = self.query_one(RunProgress)
        if message.outcome is not None:
            progress.finish(message.outcome)
            outcome = message.outcome
            self.notify(
                f"Run {outcome.summary()}; press 2 to see it in Runs",
                severity="warning" if outcome.stopped else "information",
                markup=False,
            )
            self.load_contracts()
        else:
            progress.fail(message.error or "unknown error")
            self.notify(f"Run failed: {message.error}", severity="error", markup=False)
        self.refresh_bindings()

    def action_cancel_run(self) -> None:
        progress = self.query_one(RunProgress)
        if progress.running:
            self.cancel_event.set()
            progress.cancelling()
