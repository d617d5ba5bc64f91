"""Live progress of a run being generated: a bar, one mark per sample, every failure in words, then the metrics.

Marks: `·` waiting, `○` generated (not judged yet), `✓`/`✗` passed or failed the
oracle (as the estimates made while the run generates judge them, and after the run is
analysed), `!` generation failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import ProgressBar, Static

from skyt_tui.ui.run_execution import RunOutcome, SampleProgress
from skyt_tui.ui.run_request import RunRequest

if TYPE_CHECKING:  # the metrics module brings numpy: loaded with the first estimate
    from skyt_tui.engine.measure.metrics import RunMetrics
from skyt_tui.engine.printable import counted
from skyt_tui.ui.run_text import wilson_interval

MARKS = {"pending": "·", "done": "○", "passed": "✓", "wrong": "✗", "failed": "!"}


def clock_text(seconds: float) -> str:
    seconds = max(int(seconds), 0)
    hours, rest = divmod(seconds, 3600)
    return (f"{hours}:" if hours else "") + f"{rest // 60:{'02' if hours else ''}}:{rest % 60:02}"


class RunProgress(Vertical):
    """Hidden until a run starts; `record` each finished sample, then `finish` or `fail`.

    While a run goes, a timer re-renders the estimate line every `REFRESH_S` seconds (elapsed time,
    time since the last sample) and posts `EstimateDue` when samples arrived since the last estimate,
    so the intervals catch up while requests hang."""

    REFRESH_S = 2.0

    class EstimateDue(Message):
        def __init__(self, run_id: str) -> None:
            super().__init__()
            self.run_id = run_id

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
        #run-progress-estimate { height: auto; max-height: 4; }
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
        self.tokens = {"in": 0, "out": 0, "samples": 0}
        self.clock: Callable[[], float] = time.monotonic
        self.started_at = 0.0
        self.last_sample_at: float | None = None
        self.metrics: RunMetrics | None = None
        self.run_id = ""
        self.unestimated = 0
        """Samples recorded since the last estimate began (the screen resets it when it starts one)."""
        self.offsets: dict[str, int] = {}
        """Run id → the place of its sample 0 among the marks (runs of a sweep follow each other)."""

    def on_mount(self) -> None:
        self.set_interval(self.REFRESH_S, self.tick)

    def tick(self) -> None:
        """Keep the running panel current between samples."""
        if not self.running:
            return
        self.show_estimate()
        if self.unestimated and self.run_id:
            self.post_message(self.EstimateDue(self.run_id))

    def compose(self) -> ComposeResult:
        yield Static(id="run-progress-title")
        yield ProgressBar(id="run-progress-bar", show_eta=False)
        yield Static(id="run-progress-samples")
        yield Static(id="run-progress-note")
        yield Static(id="run-progress-failures")
        yield Static(id="run-progress-metrics")
        yield Static(id="run-progress-estimate")

    def start(self, request: RunRequest) -> None:
        self.request = request
        self.running = True
        self.marks = ["pending"] * (request.n * len(request.temperatures))
        self.failures = []
        self.tokens = {"in": 0, "out": 0, "samples": 0}
        self.started_at = self.clock()
        self.last_sample_at = None
        self.metrics = None
        self.run_id = ""
        self.unestimated = 0
        self.offsets = {}
        self.query_one("#run-progress-estimate", Static).update("")
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
            # numbered as the run's detail numbers it, not by its place in a sweep or a resume
            number = progress.index if progress.sample is None else progress.sample
            self.failures.append(f"sample {number}: {progress.message or 'failed'}")
        if progress.usage:
            self.tokens["in"] += int(
                progress.usage.get("input_tokens") or progress.usage.get("prompt_tokens") or 0
            )
            self.tokens["out"] += int(
                progress.usage.get("output_tokens") or progress.usage.get("completion_tokens") or 0
            )
            self.tokens["samples"] += 1
        self.last_sample_at = self.clock()
        if progress.run_id:
            if progress.run_id != self.run_id:
                self.metrics = None
            self.run_id = progress.run_id
            self.unestimated += 1
            if progress.sample is not None:
                self.offsets[progress.run_id] = progress.index - progress.sample
        self.total = max(self.total, progress.total)
        self.done = sum(mark != "pending" for mark in self.marks)
        self._render_marks()
        if self.running:
            self.show_estimate()  # "last sample 0:00 ago" at once, not at the next tick

    def judge(self, run_id: str, verdicts: dict[int, bool | None]) -> None:
        """The oracle's verdicts so far (an estimate's analysis), by the run's sample index: their
        marks turn ✓ or ✗ while the run still generates."""
        offset = self.offsets.get(run_id)
        if offset is None:
            return
        for index, passed in verdicts.items():
            position = offset + index
            if 0 <= position < len(self.marks) and self.marks[position] == "done":
                if passed is not None:
                    self.marks[position] = "passed" if passed else "wrong"
        self._render_marks()

    def show_estimate(self, metrics: RunMetrics | None = None) -> Text:
        """Elapsed time, pass rate and R_anchor so far with their 95% intervals, tokens so far, and — with
        a width asked for in the dialog — the offer to stop once both intervals are narrower. Without
        `metrics`, the last ones shown (the timer's refresh)."""
        if metrics is not None:
            self.metrics = metrics
        metrics = self.metrics
        now = self.clock()
        text = Text(f"{clock_text(now - self.started_at)} elapsed", style="dim")
        if self.last_sample_at is None:
            text.append(", waiting for the first sample", style="dim")
        else:
            text.append(f", last sample {clock_text(now - self.last_sample_at)} ago", style="dim")
        if metrics is None and not self.tokens["samples"]:
            self.query_one("#run-progress-estimate", Static).update(text)
            return text
        text.append(" · ", style="dim")
        n = metrics.n if metrics is not None else 0
        text.append(f"so far, {counted(n, 'sample')} with code: ", style="dim")
        widths = []
        for name, key in (("pass", "pass_rate"), ("R_anchor", "R_anchor_pre")):
            value = getattr(metrics, key) if metrics is not None else None
            canon = metrics.canon if metrics is not None else None
            if value is None or (key == "R_anchor_pre" and canon != "established"):
                text.append(f"{name} –  ", style="dim")
                continue
            low, high = wilson_interval(float(value), n)
            widths.append(high - low)
            text.append(f"{name} {value:.3f} ", style="bold")
            text.append(f"[{low:.3f}, {high:.3f}]  ")
        if self.tokens["samples"]:
            per = (self.tokens["in"] + self.tokens["out"]) / self.tokens["samples"]
            text.append(
                f"· tokens {self.tokens['in']:,} in, {self.tokens['out']:,} out (≈{per:,.0f} a sample, "
                f"≈{per * self.total:,.0f} for all {self.total})",
                style="dim",
            )
        width = self.request.stop_width if self.request is not None else None
        if width is not None and len(widths) == 2 and max(widths) < width:
            text.append(
                f"\nsure enough: both intervals are narrower than {width:g} — c stops now "
                "(the run is kept as interrupted; r in Runs resumes it)",
                style="bold green",
            )
        self.query_one("#run-progress-estimate", Static).update(text)
        return text

    def cancelling(self) -> None:
        """Cancel asked: no new samples start, requests in flight are given up within a second."""
        if self.request is not None and self.running:
            self._title(
                f"Cancelling {self.request.resume or self.request.contract_id}: {self.done} of {counted(self.total, 'sample')} stored, "
                "requests in flight are given up within a second…"
            )

    def finish(self, outcome: RunOutcome) -> None:
        self.running = False
        self.query_one("#run-progress-estimate", Static).update("")
        verb = "Cancelled" if outcome.cancelled else "Stopped" if outcome.stopped else "Finished"
        runs = ", ".join(outcome.run_ids) or "no run stored"
        self._title(
            f"{verb}: {counted(outcome.n_done, 'sample')}, {outcome.n_failed} failed — {runs}"
        )
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
