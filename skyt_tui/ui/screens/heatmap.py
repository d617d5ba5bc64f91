"""Section 4, Heatmap: a run's pairwise distance matrix, by level, before or after repair.

The runs are the stored ones (newest first) plus any analyses handed to the app
(the development path). A stored run's texts are rebuilt from its samples and
analysis in a worker (`run_data.run_texts`), normalized once at every level, so
switching level or pre/post repair only recomputes distances. The screen owns
the choices (run, level, pre/post, order); the widget only draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import ContentSwitcher, Static

from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.matrices import RunTexts, analysis_run_texts
from skyt_tui.ui import run_data, store_watch
from skyt_tui.ui.run_text import temperature
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.pair_diff import PairDiffScreen
from skyt_tui.ui.widgets.empty_state import EmptyState
from skyt_tui.ui.widgets.heatmap import Heatmap, HeatmapLegend, order_by_distance, pair_status

RUN_KEYS = Binding.Group("Run", compact=True)
ORDER_NAMES = {"canon": "distance to canon", "generation": "generation"}
MAX_SAMPLES = 400
"""A larger run is drawn with its first MAX_SAMPLES samples (the screen says so)."""
SYNC_SAMPLES = 150
"""Up to this many samples a matrix is measured on the spot; above, in a worker while the screen says so."""


@dataclass(frozen=True)
class HeatmapRun:
    run_id: str
    contract_id: str
    model: str | None
    temperature: float | None
    label: str
    n_failed: int
    texts: RunTexts | None = None
    total: int = 0
    """Samples with code in the run (the matrix may show fewer)."""
    error: str = ""
    stored: bool = True
    """False for analyses handed to the app (development path): always loaded, never re-read."""
    marks: dict[str, str] = field(default_factory=dict)
    """Sample label → ✓ passed, ✗ failed, ! does not parse (the oracle's verdicts; empty when not run)."""


class RunsFound(Message):
    def __init__(self, runs: list[HeatmapRun], signature: tuple) -> None:
        super().__init__()
        self.runs, self.signature = runs, signature


class MatrixMeasured(Message):
    pass


class TextsLoaded(Message):
    def __init__(self, run: HeatmapRun) -> None:
        super().__init__()
        self.run = run


def sample_marks(analysis: StoredAnalysis) -> dict[str, str]:
    """Each analysed sample's mark for the heatmap's axes: ✓ passed, ✗ failed, ! does not parse."""
    marks = {}
    for sample in (analysed.facts for analysed in analysis.samples):
        if sample.parse_error:
            mark = "!"
        elif sample.passed is None:
            mark = "·"
        else:
            mark = "✓" if sample.passed else "✗"
        marks[str(sample.index)] = mark
    return marks


def prepared(texts: RunTexts) -> RunTexts:
    """Normalize every sample (all levels at once) and the repaired ones, so the UI thread only measures."""
    texts.texts(texts.level)
    texts.texts(texts.level, post=True)
    texts.canon_text(texts.level)
    return texts


class HeatmapScreen(SectionScreen):
    SECTION = "heatmap"
    BINDINGS = [
        Binding("p", "toggle_repair", "Pre/post"),
        Binding("v", "next_level", "Level"),
        Binding("o", "toggle_order", "Order"),
        Binding("left_square_bracket", "prev_run", "Previous run", key_display="[", group=RUN_KEYS),
        Binding("right_square_bracket", "next_run", "Next run", key_display="]", group=RUN_KEYS),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.runs: list[HeatmapRun] = []
        self.run_index = 0
        self.level = "nodoc"
        self.post_repair = False
        self.order_mode = "canon"
        self.signature: tuple | None = None
        """The store as last read; None before the first read (an empty store's signature is `()`)."""

    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="heatmap-view", id="heatmap-switcher"):
            with VerticalScroll(id="heatmap-empty", classes="section-body"):
                yield EmptyState(
                    "No run to draw yet",
                    [
                        "The heatmap shows how far apart every pair of a run's samples is (normalized Levenshtein "
                        "distance, 0 = identical, on a fixed 0–1 scale), ordered by distance to the canon; Enter on a "
                        "cell shows the two samples' diff. Toggle the normalization level and before/after repair."
                    ],
                    [
                        ("skyt-tui demo", "loads example runs"),
                        (
                            "skyt-tui run CONTRACT --provider openai --model gpt-4o-mini",
                            "generates and stores a run",
                        ),
                    ],
                )
            with Vertical(id="heatmap-view"):
                yield Static(id="heatmap-head")
                yield Heatmap(id="heatmap")
                yield Static(id="heatmap-status")
                yield HeatmapLegend(id="heatmap-legend")

    def on_mount(self) -> None:
        self.runs = [self._from_analysis(analysis) for analysis in self.app.extra_analyses]
        if self.runs:
            self.level = self.runs[0].texts.level if self.runs[0].texts else self.level
            self.show_run(0)
            self.query_one(Heatmap).focus()
        else:
            self.query_one("#heatmap-head", Static).update(Text("reading runs…", style="dim"))
        self._find_runs()

    @staticmethod
    def _from_analysis(analysis) -> HeatmapRun:
        texts = analysis_run_texts(analysis)
        return HeatmapRun(
            run_id=analysis.run.id,
            contract_id=analysis.run.contract_id,
            model=analysis.run.model,
            temperature=analysis.run.temperature,
            label="",
            n_failed=analysis.metrics.n_failed,
            texts=texts.head(MAX_SAMPLES),
            total=len(texts),
            stored=False,
        )

    def on_screen_resume(self) -> None:
        if self.signature is not None and store_watch.store_signature() != self.signature:
            self._find_runs()
        elif self.signature is not None and self.app.heatmap_request is not None:
            self._show_requested()

    @work(thread=True, exclusive=True, group="heatmap-list", exit_on_error=False)
    def _find_runs(self) -> None:
        signature = store_watch.store_signature()
        found = []
        for summary in run_data.list_runs():
            meta = summary.meta
            if meta is None:
                continue
            found.append(
                HeatmapRun(
                    run_id=meta.id,
                    contract_id=meta.contract_id,
                    model=meta.model,
                    temperature=meta.temperature,
                    label=run_data.run_label(meta),
                    n_failed=summary.n_failed,
                )
            )
        self.post_message(RunsFound(found, signature))

    def on_runs_found(self, message: RunsFound) -> None:
        self.signature = message.signature
        # the store changed (or this is the first look): stored runs are read again, lazily
        extra = [run for run in self.runs if not run.stored]
        current = self.runs[self.run_index].run_id if self.runs else None
        self.runs = [*extra, *message.runs]
        if not self.runs:
            self.query_one(ContentSwitcher).current = "heatmap-empty"
            self.refresh_bindings()
            return
        self.query_one(ContentSwitcher).current = "heatmap-view"
        ids = [run.run_id for run in self.runs]
        if self.app.heatmap_request in ids:
            self._show_requested()
        else:
            self.show_run(ids.index(current) if current in ids else 0)
        self.query_one(Heatmap).focus()

    def _show_requested(self) -> None:
        ids = [run.run_id for run in self.runs]
        if self.app.heatmap_request in ids:
            self.show_run(ids.index(self.app.heatmap_request))
            self.app.heatmap_request = None

    @property
    def current(self) -> HeatmapRun:
        return self.runs[self.run_index]

    @property
    def texts(self) -> RunTexts | None:
        return self.current.texts if self.runs else None

    def show_run(self, index: int) -> None:
        """Show run `index`, keeping the chosen level; after-repair and canon order only where the run has them."""
        self.run_index = index % len(self.runs)
        self.post_repair = False
        if self.texts is None:
            self._update_head()
            self.query_one("#heatmap-status", Static).update(
                Text("loading the run's samples…", style="dim")
            )
            self.query_one(Heatmap).set_matrix(np.zeros((0, 0)))
            self._load_texts(self.current)
            return
        self.order_mode = "canon" if self.texts.order_by_canon() is not None else "generation"
        self.redraw()

    @work(thread=True, exclusive=False, group="heatmap-load", exit_on_error=False)
    def _load_texts(self, run: HeatmapRun) -> None:
        try:
            stored = run_data.load_run(run.run_id)
            analysis = run_data.analyze_run(stored)
            texts = run_data.run_texts(stored, analysis)
            loaded = replace(
                run,
                texts=prepared(texts.head(MAX_SAMPLES)),
                total=len(texts),
                marks=sample_marks(analysis),
            )
        except (SkytError, ValueError) as exc:
            loaded = replace(run, error=str(exc))
        self.post_message(TextsLoaded(loaded))

    def on_texts_loaded(self, message: TextsLoaded) -> None:
        ids = [run.run_id for run in self.runs]
        if message.run.run_id not in ids:
            return
        position = ids.index(message.run.run_id)
        if message.run.error:
            self.notify(
                f"run {message.run.run_id}: {message.run.error}", severity="error", markup=False
            )
            self.runs[position] = replace(message.run, texts=None)
            if position == self.run_index:
                self.query_one("#heatmap-status", Static).update(
                    Text(message.run.error, style="red")
                )
            return
        self.runs[position] = message.run
        if position == self.run_index:
            self.show_run(position)

    @work(thread=True, exclusive=True, group="heatmap-measure", exit_on_error=False)
    def _measure(self, texts: RunTexts, level: str, post: bool) -> None:
        texts.matrix(level, post)
        self.post_message(MatrixMeasured())

    def on_matrix_measured(self) -> None:
        if self.texts is not None and self.texts.matrix_ready(self.level, self.post_repair):
            self.redraw()

    def matrix(self) -> np.ndarray | None:
        """The matrix for the current run, level and repair state; None after repair when repair did not run."""
        texts = self.texts
        return None if texts is None else texts.matrix(self.level, post=self.post_repair)

    def redraw(self) -> None:
        heatmap = self.query_one(Heatmap)
        texts = self.texts
        if texts is None:
            return
        if len(texts) > SYNC_SAMPLES and not texts.matrix_ready(self.level, self.post_repair):
            self.query_one("#heatmap-status", Static).update(
                Text(f"measuring {len(texts)} × {len(texts)} distances…", style="dim")
            )
            self._measure(texts, self.level, self.post_repair)
            return
        matrix = self.matrix()
        if matrix is None:
            return
        distances = texts.order_by_canon()
        order = (
            order_by_distance(list(texts.d_pre))
            if self.order_mode == "canon" and distances is not None
            else None
        )
        marks = self.current.marks
        heatmap.set_matrix(
            matrix, list(texts.labels), order, [marks.get(label, "·") for label in texts.labels]
        )
        if not heatmap.n:
            failed = self.current.n_failed
            self.query_one("#heatmap-status", Static).update(
                Content(
                    f"no samples to compare: {counted(failed, 'generation')} failed"
                    if failed
                    else "no samples in this run"
                )
            )
        self._update_head()
        self.refresh_bindings()

    def _update_head(self) -> None:
        run = self.current
        texts = self.texts
        line1 = Content.from_markup(
            "[@click=screen.prev_run]◀[/] run $position [@click=screen.next_run]▶[/]  "
            "[b]$run_id[/b] · $model · T $temperature · N $n",
            position=f"{self.run_index + 1}/{len(self.runs)}",
            run_id=printable(
                run.run_id if run.contract_id in run.run_id else f"{run.run_id} ({run.contract_id})"
            ),
            model=printable(run.model or "–"),
            temperature=temperature(run.temperature),
            n=str(run.total if texts is not None else "…"),
        )
        if texts is None:
            self.query_one("#heatmap-head", Static).update(line1)
            return
        order = ORDER_NAMES[self.order_mode]
        if self.order_mode == "generation" and texts.order_by_canon() is None:
            order += " — no canon"
        repair = "before repair"
        if self.post_repair:
            repair = f"after repair ({texts.n_repaired} changed, made at {texts.level})"
        line2 = Content.from_markup(
            "[dim]level[/] $level [dim](v)[/] · $repair [dim](p)[/] · [dim]order:[/] $order [dim](o)[/]",
            level=self.level,
            repair=repair,
            order=order,
        )
        if run.label:
            line2 += Content.from_markup(" · [b $warning]$label[/]", label=printable(run.label))
        if len(texts) < run.total:
            line2 += Content.from_markup(
                " · [b $warning]first $shown of $total samples[/]",
                shown=str(len(texts)),
                total=str(run.total),
            )
        self.query_one("#heatmap-head", Static).update(line1 + "\n" + line2)

    @on(Heatmap.CursorMoved)
    def _cursor_moved(self, event: Heatmap.CursorMoved) -> None:
        if self.texts is None:
            return
        labels = self.texts.labels
        status = pair_status(labels[event.i], labels[event.j], event.distance)
        self.query_one("#heatmap-status", Static).update(Content(status + "   ⏎ diff"))

    @on(Heatmap.PairSelected)
    def _pair_selected(self, event: Heatmap.PairSelected) -> None:
        texts = self.texts
        if texts is None:
            return
        labels = texts.labels
        state = "after repair" if self.post_repair else "before repair"
        title = f"{pair_status(labels[event.i], labels[event.j], event.distance)} · level {self.level} · {state}"
        self.app.push_screen(
            PairDiffScreen(
                title,
                texts.text(event.i, self.level, self.post_repair),
                texts.text(event.j, self.level, self.post_repair),
                f"sample {labels[event.i]}",
                f"sample {labels[event.j]}",
            )
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_repair", "next_level", "toggle_order") and self.texts is None:
            return False
        return True

    def action_toggle_repair(self) -> None:
        texts = self.texts
        if texts is None:
            return
        if not texts.repair_ran:
            self.notify(
                "This run has no canon, so nothing was repaired: there is no after-repair matrix.",
                severity="warning",
                markup=False,
            )
            return
        self.post_repair = not self.post_repair
        self.redraw()

    def action_next_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        self.redraw()

    def action_toggle_order(self) -> None:
        if self.texts is None:
            return
        if self.order_mode == "generation" and self.texts.order_by_canon() is None:
            self.notify(
                "This run has no canon distances, so it can only be shown in generation order.",
                severity="warning",
                markup=False,
            )
            return
        self.order_mode = "generation" if self.order_mode == "canon" else "canon"
        self.redraw()

    def action_prev_run(self) -> None:
        self._step(-1)

    def action_next_run(self) -> None:
        self._step(1)

    def _step(self, step: int) -> None:
        if len(self.runs) > 1:
            self.show_run(self.run_index + step)
        elif self.signature is None:
            self.notify("Still reading the stored runs…", timeout=2)
        else:
            self.notify(
                "No other run to show." if self.runs else "No run to show: the store has none.",
                timeout=3,
            )
