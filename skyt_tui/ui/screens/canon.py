"""Section 3, Canon: per contract its canon code, provenance, versions, integrity and history,
and re-establishing it from a chosen run after a confirmation that says what happens."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, OptionList, Static
from textual.widgets.option_list import Option

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import printable
from skyt_tui.engine.runs.run_store import RunSummary
from skyt_tui.engine.versions import ORACLE_VERSION
from skyt_tui.ui import canon_data, run_data, store_watch
from skyt_tui.ui.clipboard import copy_text
from skyt_tui.ui.run_text import short_id, temperature
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.screens.contracts import canon_cell, canon_meaning, code_syntax
from skyt_tui.ui.widgets.empty_state import empty_state_text


class CanonReestablished(Message):
    def __init__(self, contract_id: str, canon: canon_store.Canon | None, error: str = "") -> None:
        super().__init__()
        self.contract_id, self.canon, self.error = contract_id, canon, error


class ChooseRunScreen(ModalScreen[str | None]):
    """Pick the run a canon is re-established from (newest first)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, contract_id: str, summaries: list[RunSummary]) -> None:
        super().__init__(id="choose-run-screen")
        self.contract_id = contract_id
        self.summaries = summaries

    def compose(self) -> ComposeResult:
        with Vertical(id="choose-run", classes="dialog"):
            yield Static(
                Text(f"Re-establish the canon of {self.contract_id} from which run?", style="bold"),
                classes="dialog-title",
            )
            options = []
            for summary in self.summaries:
                meta = summary.meta
                assert meta is not None
                line = Text(printable(summary.id), style="bold")
                line.append(  # names from a file: shown printable
                    f"  {printable(meta.provider)}/{printable(meta.model or '–')}"
                    f" · T {temperature(meta.temperature)} · {summary.n_ok} ok"
                )
                label = run_data.run_label(meta)
                if label:
                    line.append(f" · {printable(label)}", style="dim")
                options.append(Option(line, id=summary.id))
            yield OptionList(*options, id="choose-run-list")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


def reestablish_text(contract_id: str, run_id: str, state: canon_store.CanonState) -> Text:
    """What re-establishing does, in words, for the confirmation."""
    text = Text()
    text.append("The canon of ")
    text.append(contract_id, style="bold")
    text.append(" will be replaced by the first sample of run ")
    text.append(run_id, style="bold")
    text.append(
        " that parses and passes the oracle, judged now under the current contract and versions.\n\n"
    )
    if state.canon is not None:
        provenance = state.canon.provenance
        text.append(
            f"The current canon ({state.status}, from run {provenance.get('run_id')}, sample "
            f"{provenance.get('sample_index')}, established {provenance.get('established_at')}) "
        )
        text.append("is kept in the canon history", style="bold")
        text.append(", and the replacement is logged there.\n\n")
    else:
        text.append(
            f"There is no readable canon now ({state.status}); the replacement is logged in the history.\n\n"
        )
    text.append(
        "Every run of this contract is then measured against the new canon (their cached analyses are "
        "recomputed). If no sample of the run passes, nothing changes."
    )
    return text


class CanonScreen(SectionScreen):
    SECTION = "canon"
    BINDINGS = [
        Binding("r", "reestablish", "Re-establish…"),
        Binding("c", "copy", "Copy code"),
        Binding("ctrl+r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.contract_ids: list[str] = []
        self.states: dict[str, canon_store.CanonState] = {}
        self.signature: tuple | None = None
        """The store as last read; None before the first read (an empty store's signature is `()`)."""
        self.busy = False

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="canon-body", classes="split"):
            with Vertical(id="canon-list-pane", classes="list-pane"):
                yield DataTable(id="canon-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="canon-detail", classes="detail-pane"):
                yield Static(id="canon-head")
                yield Static(id="canon-code")
                yield Static(id="canon-history")

    def on_mount(self) -> None:
        table = self.query_one("#canon-table", DataTable)
        table.add_column("contract", key="contract")
        table.add_column("canon", key="state")
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_selected())
        self.load()
        table.focus()

    def on_screen_resume(self) -> None:
        if self.signature is not None and store_watch.store_signature() != self.signature:
            self.load()

    def load(self) -> None:
        self.signature = store_watch.store_signature()
        table = self.query_one("#canon-table", DataTable)
        selected = self.selected_id()
        self.states = canon_data.canon_states()
        self.contract_ids = list(self.states)
        # contracts with a canon first, so a fresh store with one run does not hide it among twenty "none"s
        self.contract_ids.sort(
            key=lambda cid: (self.states[cid].status == canon_store.STATUS_MISSING, cid)
        )
        table.clear()
        for cid in self.contract_ids:
            table.add_row(Text(short_id(cid)), canon_cell(self._state_name(cid)), key=cid)
        if selected in self.contract_ids:
            table.move_cursor(row=self.contract_ids.index(selected))
        self.show_selected()

    def _state_name(self, contract_id: str) -> str:
        status = self.states[contract_id].status
        return canon_data.CANON_NONE if status == canon_store.STATUS_MISSING else status

    def selected_id(self) -> str | None:
        if not self.contract_ids or not self.is_mounted:
            return None
        row = self.query_one("#canon-table", DataTable).cursor_row
        return self.contract_ids[row] if 0 <= row < len(self.contract_ids) else None

    @on(DataTable.RowHighlighted, "#canon-table")
    def _highlighted(self) -> None:
        self.show_selected()

    def show_selected(self) -> None:
        head = self.query_one("#canon-head", Static)
        code = self.query_one("#canon-code", Static)
        history = self.query_one("#canon-history", Static)
        contract_id = self.selected_id()
        if contract_id is None:
            head.update(
                empty_state_text(
                    "No contracts", ["Canon shows each contract's canon; there are no contracts."]
                )
            )
            code.update("")
            history.update("")
            return
        state = self.states[contract_id]
        name = self._state_name(contract_id)
        title = Text()
        title.append(f"canon of {contract_id} · ", style="bold")
        title.append_text(canon_cell(name))
        title.append(f" — {canon_meaning(name, state.canon)}\n")
        for reason in state.reasons:
            title.append(f"  {reason}\n", style="red")
        if state.canon is None:
            if state.status == canon_store.STATUS_MISSING:
                title.append(
                    "\nRun this contract (section 1, r) or load the demo: the first sample that parses and "
                    "passes the oracle becomes its canon, and is never changed except by re-establishing.",
                    style="dim",
                )
            head.update(title)
            code.update("")
            history.update(self._history(contract_id))
            return
        head.update(Group(title, self._facts(state.canon)))
        code.update(
            Group(
                Text("code", style="bold underline"),
                code_syntax(state.canon.code, self.app.current_theme.dark),
            )
        )
        history.update(self._history(contract_id))

    def _facts(self, canon: canon_store.Canon) -> Table:
        provenance = canon.provenance
        table = Table.grid(padding=(0, 2))
        table.add_column(style="dim", no_wrap=True)
        table.add_column()
        run_id = str(provenance.get("run_id"))
        table.add_row("from", Text(f"run {run_id}, sample {provenance.get('sample_index')}"))
        run_label = self._run_label(run_id)
        if run_label:
            table.add_row("", Text(run_label, style="bold yellow"))
        table.add_row(
            "model",
            Text(
                f"{provenance.get('provider') or '–'}/{provenance.get('model') or '–'} · "
                f"T {temperature(provenance.get('temperature'))}"
            ),
        )
        table.add_row("established", Text(str(provenance.get("established_at") or "–")))
        current = canon_store.current_versions(ORACLE_VERSION)
        versions = Text()
        for position, (name, value) in enumerate(sorted(canon.versions.items())):
            versions.append(", " if position else "")
            versions.append(
                f"{name} {value}", style="" if current.get(name) == value else "bold red"
            )
            if current.get(name) != value:
                versions.append(f" (now {current.get(name)})", style="red")
        table.add_row("versions", versions)
        table.add_row(
            "content",
            Text(f"sha256 {canon.content_hash[:16]}… · contract {canon.contract_hash[:16]}…"),
        )
        return table

    @staticmethod
    def _run_label(run_id: str) -> str:
        try:
            return run_data.run_label(run_data.load_run(run_id).meta)
        except SkytError:
            return ""

    def _history(self, contract_id: str) -> Any:
        try:
            events = canon_data.canon_history(contract_id)
        except SkytError as exc:
            return Text(f"history unreadable: {exc}", style="red")
        if not events:
            return Text("\nno history yet", style="dim")
        # one event per line, the reason under it: ids and times are never wrapped mid-word
        lines = Text("\nhistory\n", style="bold underline")
        width = max(len(event.event or "?") for event in events)
        for number, event in enumerate(events, start=1):
            sample = "–" if event.sample_index is None else event.sample_index
            lines.append(f"{number}  ", style="dim")
            lines.append(f"{printable(event.event or '?'):<{width}}  ")
            lines.append(printable(event.at[:19].replace("T", " ")) + "  ", style="dim")
            lines.append(f"run {printable(event.run_id or '–')}, sample {sample}\n")
            if event.reason:
                lines.append(f"   {printable(event.reason)}\n", style="dim")
        lines.rstrip()
        return lines

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "reestablish":
            return None if self.busy or self.selected_id() is None else True
        if action == "copy":
            contract_id = self.selected_id()
            return contract_id is not None and self.states[contract_id].canon is not None
        return True

    def action_reload(self) -> None:
        self.load()

    def action_copy(self) -> None:
        contract_id = self.selected_id()
        if contract_id is not None and self.states[contract_id].canon is not None:
            copy_text(
                self.app, self.states[contract_id].canon.code, f"the canon code of {contract_id}"
            )

    def action_reestablish(self) -> None:
        contract_id = self.selected_id()
        if contract_id is None or self.busy:
            return
        candidates = [
            s
            for s in run_data.list_runs()
            if s.meta is not None and s.meta.contract_id == contract_id and s.n_ok
        ]
        if not candidates:
            self.notify(
                f"No stored run of {contract_id} has samples to take a canon from; run it first (section 1, r).",
                severity="warning",
                markup=False,
            )
            return

        def confirm(run_id: str | None) -> None:
            if run_id is None:
                return
            body = reestablish_text(contract_id, run_id, self.states[contract_id])
            self.app.push_screen(
                ConfirmScreen(f"Re-establish the canon of {contract_id}?", body, "Re-establish"),
                lambda yes: self._reestablish(contract_id, run_id) if yes else None,
            )

        if len(candidates) == 1:
            confirm(candidates[0].id)
        else:
            self.app.push_screen(ChooseRunScreen(contract_id, candidates), confirm)

    def _reestablish(self, contract_id: str, run_id: str) -> None:
        self.busy = True
        self.refresh_bindings()
        self.notify(
            f"Re-establishing the canon of {contract_id} from {run_id}: checking its samples…",
            timeout=3,
            markup=False,
        )
        self._run_reestablish(contract_id, run_id)

    @work(thread=True, exclusive=True, group="canon", exit_on_error=False)
    def _run_reestablish(self, contract_id: str, run_id: str) -> None:
        try:
            canon = canon_data.reestablish_canon(contract_id, run_id)
        except SkytError as exc:
            self.post_message(CanonReestablished(contract_id, None, str(exc)))
        else:
            self.post_message(CanonReestablished(contract_id, canon))

    def on_canon_reestablished(self, message: CanonReestablished) -> None:
        self.busy = False
        if message.canon is None:
            self.notify(f"Canon unchanged: {message.error}", severity="error", markup=False)
        else:
            provenance = message.canon.provenance
            self.notify(
                f"Canon of {message.contract_id} re-established from run {provenance['run_id']}, sample "
                f"{provenance['sample_index']}; the previous one is in its history.",
                markup=False,
            )
        self.load()
        self.refresh_bindings()
