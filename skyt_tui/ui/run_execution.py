"""Running a model from the app: one stored run per temperature (or a stored run completed), each
sample reported as it finishes, then every finished run analysed (in a child process) and, when
asked, probed; runs in a worker thread."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.runs.report import metrics_line
from skyt_tui.ui import probe_data, run_data, run_form
from skyt_tui.ui.run_request import RunRequest

if TYPE_CHECKING:  # the runner and workflow load when a run starts
    from skyt_tui.engine.generation.runner import RetryEvent
    from skyt_tui.engine.generation.workflow import Generated
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis


@dataclass(frozen=True)
class SampleProgress:
    """One sample of a run finished (or failed, or is being retried); `message` may hold provider text: show it unmarked."""

    index: int
    total: int
    failed: bool = False
    passed: bool | None = None
    message: str = ""
    retry: bool = False
    run_id: str = ""
    """The stored run the sample belongs to (empty when the executor does not say)."""
    usage: dict[str, int] | None = None
    """The provider's token counts for this sample, when it reports them."""
    sample: int | None = None
    """The sample's index within its run (`index` is its place in the whole request)."""


@dataclass(frozen=True)
class RunOutcome:
    run_ids: tuple[str, ...]
    n_done: int
    n_failed: int
    cancelled: bool = False
    stopped: str | None = None
    """Why the run stopped early (a bad key, an unknown model), when it did."""
    metrics: tuple[str, ...] = ()
    """One headline line per analysed run."""

    def summary(self) -> str:
        """`finished: 20 samples, 1 failed` (cancelled, or stopped with the reason)."""
        verb = "cancelled" if self.cancelled else "stopped" if self.stopped else "finished"
        return f"{verb}: {counted(self.n_done, 'sample')}, {self.n_failed} failed" + (
            f" — {self.stopped}" if self.stopped else ""
        )


RunExecutor = Callable[[RunRequest, Callable[[SampleProgress], None], threading.Event], RunOutcome]
"""(request, report each sample, cancel event) → outcome; runs in a worker thread."""


def _resume(
    request: RunRequest, report: Callable[[SampleProgress], None], cancel: threading.Event
) -> RunOutcome:
    from skyt_tui.engine.generation.workflow import resumable_contract, resume_and_analyse

    assert request.resume is not None
    run = run_store.load_run(request.resume)
    resumable_contract(run)
    total = run.meta.n

    def sample_done(record: run_store.SampleRecord) -> None:
        failed = record.status == run_store.FAILED
        report(
            SampleProgress(
                index=record.index,
                total=total,
                failed=failed,
                message=record.error or "" if failed else "",
                run_id=run.id,
                usage=record.usage,
                sample=record.index,
            )
        )

    for sample in run.samples:  # what is already stored shows at once
        if sample.status == run_store.OK or not request.retry_failed:
            sample_done(sample)
    analysed = _Analysed()
    generated = resume_and_analyse(
        run,
        analyse=analysed.documents,
        concurrency=request.concurrency,
        cancel=cancel,
        on_sample=sample_done,
        retry_failed=request.retry_failed,
    )
    return _outcome(generated, analysed.records, report, total, request.n, cancel)


class _Analysed:
    """The workflow's analyser for the app (`analyze_runs`, in a child process), keeping the typed
    records of what it analysed."""

    def __init__(self) -> None:
        self.records: dict[str, StoredAnalysis] = {}

    def documents(self, run_ids: Sequence[str]) -> list[dict[str, Any]]:
        found = run_data.analyze_runs(run_ids)
        self.records.update((analysis.run_id, analysis) for analysis in found)
        return [analysis.document for analysis in found]


def _outcome(
    generated: Generated,
    records: dict[str, StoredAnalysis],
    report: Callable[[SampleProgress], None],
    total: int,
    n_per_run: int,
    cancel: threading.Event,
    probe_inputs: int | None = None,
) -> RunOutcome:
    """Each analysed sample's verdict (at its place in the whole request: runs of a sweep follow
    each other) and one headline line per analysed run (and its probe's, when asked for)."""
    metrics = []
    for position, outcome in enumerate(generated.outcomes):
        record = records.get(outcome.run_id)
        if outcome.run_id not in generated.analyses or record is None:
            continue
        for sample in record.samples:
            report(
                SampleProgress(
                    index=position * n_per_run + sample.index,
                    total=total,
                    passed=sample.facts.passed,
                )
            )
        metrics.append(f"{outcome.run_id}: {metrics_line(record)}")
        if probe_inputs is not None and not cancel.is_set():
            probed = probe_data.probe_run(outcome.run_id, probe_inputs)
            metrics.append(f"{outcome.run_id}: {probe_data.probe_line(probed)}")
    outcomes = generated.outcomes
    return RunOutcome(
        run_ids=tuple(outcome.run_id for outcome in outcomes),
        n_done=sum(outcome.finished for outcome in outcomes),
        n_failed=sum(outcome.failed for outcome in outcomes),
        cancelled=cancel.is_set(),
        stopped=next((outcome.abort_reason for outcome in outcomes if outcome.abort_reason), None),
        metrics=tuple(metrics),
    )


def execute_run(
    request: RunRequest, report: Callable[[SampleProgress], None], cancel: threading.Event
) -> RunOutcome:
    """Generate and store one run per temperature, reporting every sample, then analyse each finished run
    (or complete a stored run, `request.resume`)."""
    from skyt_tui.engine.generation.runner import RunSettings
    from skyt_tui.engine.generation.workflow import sweep_and_analyse

    if request.resume is not None:
        return _resume(request, report, cancel)
    contract = get_contract(request.contract_id)
    total = request.n * len(request.temperatures)
    offset = {"value": -request.n}
    current = {"run_id": ""}

    def started(meta: run_store.RunMeta) -> None:
        offset["value"] += request.n
        current["run_id"] = meta.id

    def sample_done(record: run_store.SampleRecord) -> None:
        failed = record.status == run_store.FAILED
        report(
            SampleProgress(
                index=offset["value"] + record.index,
                total=total,
                failed=failed,
                message=record.error or "" if failed else "",
                run_id=current["run_id"],
                usage=record.usage,
                sample=record.index,
            )
        )

    def retrying(event: RetryEvent) -> None:
        report(
            SampleProgress(
                index=offset["value"] + event.index,
                total=total,
                retry=True,
                message=f"sample {event.index}: {event.error}; retry {event.attempt} in {event.delay_s:.1f} s",
            )
        )

    settings = RunSettings(
        provider=request.provider,
        model=request.model or None,
        temperature=None,
        n=request.n,
        provider_settings=run_form.provider_settings(request),
        seed=request.seed,
        max_tokens=request.max_tokens,
        system=request.system or None,
    )
    analysed = _Analysed()
    generated = sweep_and_analyse(
        contract,
        settings,
        list(request.temperatures),
        analyse=analysed.documents,
        concurrency=request.concurrency,
        cancel=cancel,
        on_sample=sample_done,
        on_retry=retrying,
        on_run_start=started,
    )
    return _outcome(
        generated, analysed.records, report, total, request.n, cancel, request.probe_inputs
    )
