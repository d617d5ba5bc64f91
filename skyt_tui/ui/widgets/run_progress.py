"""Live progress of a run being generated: a bar, one mark per sample, every failure in words, then the metrics.

Marks: `·` waiting, `○` generated (not judged yet), `✓`/`✗` passed or failed the
oracle (after the run is analysed), `!` generation failed.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static

from skyt_tui.ui.data import RunOutcome, SampleProgress
from skyt_tui.ui.run_request import RunRequest

MARKS = {"pending": "·", "done": "○", "passed": "✓", "wrong": "✗", "failed": "!"}


class RunProgress(Vertical):
    """Hidden until a run starts; `record` each finished sample, then `finish` or `fail`."""

    DEFAULT_CSS = """
    RunProgress {
        height: auto;
        max-height: 12;
        border-top: solid $primary;
        padding: 0 1;
        display: none;
        &.-active { display: block; }
        #run-progress-samples { height: auto; max-height: 3; }
        #run-progress-note { height: auto; max-height: 1; color: $text-muted; }
        #run-progress-failures { height: auto; max-height: 5; color: $text-error; }
        #run-progress-metrics { height: auto; max-height: 4; }
    }
    """

    done: reactive[int] = reactive(0)
    total: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: RunRequest | None = None
        self.running = False
        self.marks: list[str] = []
        self.failures: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static(id="run-progress-title")
        yield ProgressBar(id="run-progress-bar", show_eta=False)
        yield Static(id="run-progress-samples")
        yield Static(id="run-progress-note")
        yield Static(id="run-progress-failures")
        yield Static(id="run-progress-metrics")

    def start(self, request: RunRequest) -> None:
        self.request = request
        self.running = True
        self.marks = ["pending"] * (request.n * len(request.temperatures))
        self.failures = []
        self.query_one("#run-progress-note", Static).update("")
        self.query_one("#run-progress-metrics", Static).update("")
        self.total = len(self.marks)
        self.done = 0
        temps = ", ".join(f"{t:g}" for t in request.temperatures)
        if request.resume is not None:
            self._title(
                f"Resuming {request.resume}: {request.provider} / {request.model or '–'}, "
                f"N {request.n}, {request.concurrency} at a time — c cancels"
            )
        else:
            self._title(
                f"Running {request.contract_id}: {request.provider} / {request.model or request.target}, "
                f"N {request.n} × T [{temps}], {request.concurrency} at a time — c cancels"
            )
        self.add_class("-active")
        self._render_marks()

    def record(self, progress: SampleProgress) -> None:
        if progress.retry:
            self.query_one("#run-progress-note", Static).update(Text(progress.message))
            return
        if 0 <= progress.index < len(self.marks):
            mark = (
                "failed"
                if progress.failed
                else {True: "passed", False: "wrong", None: "done"}[progress.passed]
            )
            self.marks[progress.index] = mark
        if progress.failed:
            self.failures.append(f"sample {progress.index}: {progress.message or 'failed'}")
        self.total = max(self.total, progress.total)
        self.done = sum(mark != "pending" for mark in self.marks)
        self._render_marks()

    def cancelling(self) -> None:
        """Cancel asked: no new samples start, requests in flight are given up within a second."""
        if self.request is not None and self.running:
            self._title(
                f"Cancelling {self.request.resume or self.request.contract_id}: {self.done} of {self.total} samples stored, "
                "requests in flight are given up within a second…"
            )

    def finish(self, outcome: RunOutcome) -> None:
        self.running = False
        verb = "Cancelled" if outcome.cancelled else "Stopped" if outcome.stopped else "Finished"
        runs = ", ".join(outcome.run_ids) or "no run stored"
        self._title(f"{verb}: {outcome.n_done} samples, {outcome.n_failed} failed — {runs}")
        self.query_one("#run-progress-note", Static).update(Text(outcome.stopped or ""))
        self.query_one("#run-progress-metrics", Static).update(Text("\n".join(outcome.metrics)))

    def fail(self, message: str) -> None:
        self.running = False
        self._title(f"Run failed: {message}")

    def _title(self, line: str) -> None:
        self.query_one("#run-progress-title", Static).update(Text(line))

    def watch_done(self) -> None:
        self.query_one(ProgressBar).update(total=self.total or None, progress=self.done)

    def watch_total(self) -> None:
        self.query_one(ProgressBar).update(total=self.total or None, progress=self.done)

    def _render_marks(self) -> None:
        self.query_one("#run-progress-samples", Static).update(
            Text("".join(MARKS[m] for m in self.marks))
        )
        self.query_one("#run-progress-failures", Static).update(Text("\n".join(self.failures[-5:])))
