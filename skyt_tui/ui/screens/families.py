"""A run's solution families (`f` in a run's detail): one row per family — its representative, how many
samples and which, what they do — the diff of the selected family's representative against the largest
family's, and what choosing it as the canon would do to R_anchor, μ and P_τ before re-establishing.

When the run was probed (`p` in a run's detail, docs/probe.md), passing families are split by their
behaviour class on the generated inputs, the selected family's witness is shown with both outputs, a
warning says when the tests let behaviourally different samples pass, and `t` adds the witness to the
contract as a test (a new contract version, after a confirmation)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from skyt_tui.engine.measure import registry
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.matrices import RunTexts
from skyt_tui.engine.runs.probe_record import SampleProbeRecord, StoredProbe, read_probe
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.engine.versions import PROBE_VERSION
from skyt_tui.ui.diff_text import diff_renderable
from skyt_tui.ui.families import FAMILY_LEVEL, CanonPreview, Family, previews, solution_families


class PreviewsReady(Message):
    def __init__(self, found: dict[int, CanonPreview]) -> None:
        super().__init__()
        self.found = found


def verdict_word(family: Family) -> Text:
    if family.parse_error:
        return Text("! parse", style="red")
    if family.passed is None:
        return Text("–", style="dim")
    return Text("✓ pass", style="green") if family.passed else Text("✗ fail", style="red")


def members_text(members: tuple[int, ...], width: int = 24) -> str:
    text = ", ".join(str(m) for m in members)
    return text if len(text) <= width else text[: width - 1] + "…"


class FamiliesScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    FamiliesScreen { align: center middle; }
    #families { width: 95%; height: 95%; border: thick $primary; background: $surface; padding: 0 1; }
    #families-title { height: auto; margin-bottom: 1; }
    #families-table { height: auto; max-height: 40%; }
    #families-body { height: 1fr; border-top: hkey $primary 50%; }
    """
    BINDINGS = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("d", "toggle_diff", "Side by side"),
        Binding("t", "witness_test", "Witness as test"),
    ]

    def __init__(
        self,
        run_id: str,
        analysis: StoredAnalysis,
        texts: RunTexts,
        probe: StoredProbe | None = None,
    ) -> None:
        super().__init__(id="families-screen")
        self.run_id, self.analysis, self.texts = run_id, analysis, texts
        self.probe = probe if probe is not None and not probe.stale else None
        self.stale_probe = probe if probe is not None and probe.stale else None
        self.families = solution_families(analysis, self.probe)
        self.positions = {int(label): position for position, label in enumerate(texts.labels)}
        self.previews: dict[int, CanonPreview] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="families"):
            yield Static(id="families-title")
            yield DataTable(id="families-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="families-body"):
                yield Static(id="families-detail")
        yield Footer()

    def on_mount(self) -> None:
        n = sum(len(f.members) for f in self.families)
        title = Text(
            f"run {self.run_id}: {counted(len(self.families), 'solution family')} of {counted(n, 'sample')}",
            style="bold",
        )
        title.append(
            f"\nsame program up to formatting, comments and names ({FAMILY_LEVEL}) and same outputs",
            style="dim",
        )
        title.append_text(probe_title(self.probe, self.stale_probe))
        self.query_one("#families-title", Static).update(title)
        table = self.query_one("#families-table", DataTable)
        for name in (
            "#",
            "samples",
            "share",
            "verdict",
            "rep",
            "members",
            "probe",
            "if canon: R_anchor",
            "μ",
        ):
            table.add_column(name, key=name)
        self._fill()
        table.focus()
        self._preview()

    def _fill(self) -> None:
        table = self.query_one("#families-table", DataTable)
        cursor = table.cursor_row
        table.clear()
        n = sum(len(f.members) for f in self.families) or 1
        current = self.analysis.metrics
        for number, family in enumerate(self.families, start=1):
            preview = self.previews.get(family.representative)
            can_be_canon = bool(family.passed) and not family.parse_error
            r_cell: Any = "…" if can_be_canon and preview is None else "–"
            mu_cell: Any = r_cell
            if preview is not None and can_be_canon:
                r_cell = _compared(preview.R_anchor_pre, current.R_anchor_pre, "R_anchor_pre")
                mu_cell = _compared(preview.mu_pre, current.mu_pre, "mu_pre")
            table.add_row(
                str(number),
                str(len(family.members)),
                fmt3(len(family.members) / n),
                verdict_word(family),
                str(family.representative),
                members_text(family.members),
                probe_cell(family),
                r_cell,
                mu_cell,
                key=str(number),
            )
        if 0 <= cursor < table.row_count:
            table.move_cursor(row=cursor)
        self.show_family()

    @work(thread=True, exclusive=True, group="families-preview", exit_on_error=False)
    def _preview(self) -> None:
        level = self.analysis.level or "nodoc"
        matrix = self.texts.matrix(level)
        if matrix is None:
            return
        tau = float(self.analysis.metrics.tau or 0.1)
        reps = [f.representative for f in self.families if f.passed and not f.parse_error]
        self.post_message(PreviewsReady(previews(matrix, self.texts.labels, reps, tau)))

    def on_previews_ready(self, message: PreviewsReady) -> None:
        self.previews = message.found
        self._fill()

    def selected(self) -> Family | None:
        row = self.query_one("#families-table", DataTable).cursor_row
        return self.families[row] if 0 <= row < len(self.families) else None

    @on(DataTable.RowHighlighted, "#families-table")
    def _highlighted(self) -> None:
        self.show_family()

    def show_family(self) -> None:
        family = self.selected()
        detail = self.query_one("#families-detail", Static)
        if family is None or not self.families:
            detail.update(Text("no analysed samples", style="dim"))
            return
        largest = self.families[0]
        head = Text(
            f"family of sample {family.representative}: samples {', '.join(map(str, family.members))}\n"
        )
        preview = self.previews.get(family.representative)
        current = self.analysis.metrics
        if family.parse_error or not family.passed:
            head.append("cannot be the canon: it does not pass the oracle\n", style="dim")
        elif preview is not None:
            head.append(
                f"with sample {family.representative} as the canon (before repair; repair not previewed): "
            )
            head.append(
                f"R_anchor {fmt3(current.R_anchor_pre)} → {fmt3(preview.R_anchor_pre)} · "
                f"μ {fmt3(current.mu_pre)} → {fmt3(preview.mu_pre)} · "
                f"P_τ {fmt3(current.P_tau_pre)} → {fmt3(preview.P_tau_pre)}\n",
                style="bold",
            )
            head.append(
                "re-establish from the Canon section (3, r) to make a run's first passing sample the canon\n",
                style="dim",
            )
        parts: list[Any] = [head]
        if family.probe is not None:
            parts.append(witness_text(family.probe))
        if family is largest:
            parts.append(Text("the largest family", style="dim"))
        elif family.representative in self.positions and largest.representative in self.positions:
            parts.append(
                diff_renderable(
                    self.texts.text(self.positions[largest.representative], FAMILY_LEVEL),
                    self.texts.text(self.positions[family.representative], FAMILY_LEVEL),
                    f"sample {largest.representative} (largest family)",
                    f"sample {family.representative}",
                    self.app.diff_side_by_side,
                )
            )
        detail.update(Group(*parts))

    def action_toggle_diff(self) -> None:
        self.app.diff_side_by_side = not self.app.diff_side_by_side
        self.show_family()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "witness_test":
            family = self.selected() if self.is_mounted else None
            return bool(family and family.probe and family.probe.witness)
        return True

    def action_witness_test(self) -> None:
        family = self.selected()
        if family is None or family.probe is None or family.probe.witness is None:
            return
        from skyt_tui.ui.screens.confirm import ConfirmScreen

        witness = family.probe.witness
        body = Text(
            f"Add {witness.call} as a call test of the contract: a new contract version, "
            f"expected output from the reference (or, without one, the canon), run afresh in the "
            "sandbox. The old version is kept; a canon made under it becomes stale."
        )
        index = family.representative

        def answered(yes: bool | None) -> None:
            if yes:
                self._add_witness(index)

        self.app.push_screen(ConfirmScreen("Add the witness as a test?", body, "Add"), answered)

    @work(thread=True, exclusive=True, group="families-witness", exit_on_error=False)
    def _add_witness(self, index: int) -> None:
        from skyt_tui.engine.errors import SkytError
        from skyt_tui.ui import probe_data

        try:
            summary = probe_data.witness_as_test(self.run_id, index)
        except SkytError as exc:
            self.app.call_from_thread(
                self.app.notify, str(exc), severity="error", markup=False, timeout=10
            )
            return
        message = (
            f"{summary['contract']} v{summary['from_version']} → v{summary['to_version']}: "
            f"added {summary['test']}; {summary['canon']}"
        )
        self.app.call_from_thread(self.app.notify, message, markup=False, timeout=10)


def probe_title(
    probe: StoredProbe | Mapping[str, Any] | None,
    stale: StoredProbe | Mapping[str, Any] | None = None,
) -> Text:
    """The probe's line in the title: classes on generated inputs, and the warning when the tests
    let behaviourally different samples pass; a stale probe (another probe version, or the run,
    contract or settings changed since) is named, not used. Each a record or a stored document."""
    probe, stale = read_probe(probe), read_probe(stale)
    if probe is None and stale is not None:
        version = stale.key_probe_version or "an unknown version"
        why = (
            f"probed with {printable(version)}, an older probe version (now {PROBE_VERSION})"
            if stale.older_version
            else "its probe no longer matches the run (the samples, contract, settings or "
            "oracle version changed)"
        )
        return Text(f"\n{why}: not shown; p in the run's detail probes it again", style="yellow")
    if probe is None:
        return Text(
            "\nnot probed: p in the run's detail runs the passing samples on generated inputs",
            style="dim",
        )
    figures = probe.figures
    classes = counted(figures.behaviour_classes or 0, "class", "classes")
    text = Text(
        f"\nsplit by behaviour on {counted(figures.counted or 0, 'generated input')}: "
        f"{classes} among passing samples",
        style="dim",
    )
    if (figures.behaviour_classes or 0) > 1:
        wrong = figures.plausible_but_wrong
        text.append(
            "\nwarning: the tests let behaviourally different samples pass"
            + (f" ({counted(wrong, 'sample', verb='differ')} from the reference)" if wrong else ""),
            style="bold yellow",
        )
    return text


def probe_cell(family: Family) -> Text:
    record = family.probe
    if record is None or record.behaviour is None:
        return Text("–", style="dim")
    cell = Text(f"class {record.behaviour}")
    if record.differs_from_reference:
        cell.append(" ≠ ref", style="red")
    return cell


def witness_text(record: SampleProbeRecord) -> Text:
    """The family's witness with both outputs (text from samples, shown as plain Text)."""
    witness = record.witness
    if witness is None:
        return Text(f"behaviour class {record.behaviour}: no witness\n", style="dim")
    against = witness.against
    text = Text(f"behaviour class {record.behaviour}: witness ", style="bold")
    text.append((witness.call or "")[:300])
    text.append(f"\n  this sample: {(witness.sample or '')[:300]}\n")
    text.append(f"  {against}: {(witness.expected or '')[:300]}\n")
    text.append("t adds the witness to the contract as a test\n", style="dim")
    return text


def _compared(value: float, now: float | None, name: str) -> Text:
    """The previewed value of metric `name`, green when better than now, red when worse (which way
    is better: `measure.registry`)."""
    text = Text(fmt3(value))
    if isinstance(now, int | float) and value != now:
        text.stylize("green" if (value > now) == registry.metric(name).higher_is_better else "red")
    return text
