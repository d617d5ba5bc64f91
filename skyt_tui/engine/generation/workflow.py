"""Generate, then analyse: the workflow behind `skyt-tui run`, `skyt-tui resume` and the app's run
dialog (docs/runs.md).

A run (one per temperature in a sweep) or a resumed run is generated and stored, then every run
that produced code is analysed in one batch, so the sandboxed oracle sees each distinct program
once. A cancelled run is not analysed here (cancel returns at once; the Runs list and `analyze`
do it later). Who analyses is the caller's choice: this process (the CLI) or a child process (the
app, whose event loop must not wait).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.generation.providers import Provider
from skyt_tui.engine.generation.runner import (
    ProviderUnavailable,
    RetryCallback,
    RetryPolicy,
    RunOutcome,
    RunSettings,
    SampleCallback,
    execute,
    provider_for,
    run_sweep,
)
from skyt_tui.engine.runs.run_store import RunMeta, StoredRun

Analyser = Callable[[Sequence[str]], Sequence[dict[str, Any]]]
"""Analyses of stored runs by id, in the order asked (`analyses.analyze_stored_runs` or the
app's child process)."""


def analyse_here(run_ids: Sequence[str]) -> Sequence[dict[str, Any]]:
    """The analyses in this process (the cache first, the rest in one batch)."""
    from skyt_tui.engine.runs.analyses import analyze_stored_runs

    return analyze_stored_runs(list(run_ids))


@dataclass(frozen=True)
class Generated:
    outcomes: tuple[RunOutcome, ...]
    """One per run, in order (a sweep stops after a run that did not complete)."""
    analyses: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Run id → analysis, for every run that has code; none when cancelled or not asked for."""


def analyse_finished(
    outcomes: Sequence[RunOutcome],
    analyse: Analyser | None,
    cancel: threading.Event | None = None,
) -> dict[str, dict[str, Any]]:
    """The analyses of the runs that produced code, in one batch (none after a cancel)."""
    if analyse is None or (cancel is not None and cancel.is_set()):
        return {}
    run_ids = [o.run_id for o in outcomes if o.finished - o.failed > 0]
    if not run_ids:
        return {}
    return dict(zip(run_ids, analyse(run_ids), strict=True))


def sweep_and_analyse(
    contract: Contract,
    settings: RunSettings,
    temperatures: Sequence[float | None],
    *,
    analyse: Analyser | None = analyse_here,
    provider: Provider | None = None,
    concurrency: int = 4,
    policy: RetryPolicy = RetryPolicy(),
    cancel: threading.Event | None = None,
    on_sample: SampleCallback | None = None,
    on_retry: RetryCallback | None = None,
    on_run_start: Callable[[RunMeta], None] | None = None,
    on_run_end: Callable[[RunOutcome], None] | None = None,
) -> Generated:
    """`runner.run_sweep`, then the analysis of every run that produced code (`analyse=None`: none)."""
    outcomes = run_sweep(
        contract,
        settings,
        temperatures,
        provider=provider,
        concurrency=concurrency,
        policy=policy,
        cancel=cancel,
        on_sample=on_sample,
        on_retry=on_retry,
        on_run_start=on_run_start,
        on_run_end=on_run_end,
    )
    return Generated(tuple(outcomes), analyse_finished(outcomes, analyse, cancel))


def resumable_contract(run: StoredRun) -> Contract:
    """The contract a stored run is resumed under: its own snapshot."""
    contract = run.contract_object()
    if contract is None:
        raise InputError(f"run {run.id}: has no contract snapshot, so it cannot be resumed")
    return contract


def resume_and_analyse(
    run: StoredRun,
    *,
    analyse: Analyser | None = analyse_here,
    provider: Provider | None = None,
    concurrency: int = 4,
    policy: RetryPolicy = RetryPolicy(),
    cancel: threading.Event | None = None,
    on_sample: SampleCallback | None = None,
    on_retry: RetryCallback | None = None,
    retry_failed: bool = False,
    on_run_end: Callable[[RunOutcome], None] | None = None,
) -> Generated:
    """Request a stored run's missing samples (and its failed ones with `retry_failed`) with the
    provider it was started with (`provider`, else rebuilt from run.json), then analyse it when
    it has code (`analyse=None`: not); `on_run_end` hears of the run between the two."""
    contract = resumable_contract(run)
    outcome = execute(
        run.id,
        provider or provider_for(run, contract),
        contract,
        concurrency=concurrency,
        policy=policy,
        cancel=cancel,
        on_sample=on_sample,
        on_retry=on_retry,
        retry_failed=retry_failed,
    )
    if outcome.never_started is not None:
        raise ProviderUnavailable(f"{outcome.never_started}; run {run.id} is as it was")
    if on_run_end is not None:
        on_run_end(outcome)
    return Generated((outcome,), analyse_finished([outcome], analyse, cancel))
