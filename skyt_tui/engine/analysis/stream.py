"""The analysis run by run: each finished run handed on as it is done (docs/scaling.md).

`analyze_stream` gives what `pipeline.analyze_runs` gives — the same `RunAnalysis` per run, in
input order — one run at a time, so a caller prints or stores each run as it finishes and holds
none of them: its memory does not grow with the study, and a study stopped midway keeps the
runs it finished (`analyze --resume`, and the store's cached analyses).

Where the runs are analysed is the executor's choice (`Executor.per_run`):
- on a cluster (the Ray executor), each run is one call of `Executor.stream` on a node —
  judged on that node's judge, its canon chosen, its distances, repair and metrics computed
  there — and `finish(analysis)` runs there too, so the driver receives only what it prints or
  stores; it finds each run's contract and, for stored runs, its canon (its catalog and store),
  and never has more than a bounded number of runs out;
- on this machine, runs are analysed in batches of about `LOCAL_BATCH_SAMPLES` samples, as
  `analyze_runs` always did (one oracle call and one pool of repair processes per batch), and
  handed on run by run.
Both give the same bytes: a run's analysis depends on that run alone (and its stored canon);
batching only shares the work of identical programs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.analysis.pipeline import (
    CanonInfo,
    Progress,
    RunAnalysis,
    analyze_runs,
    contract_for,
    store_canon,
)
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.executor.choice import Executor, Judge, current_executor
from skyt_tui.engine.probe.behaviour import ProbeSettings
from skyt_tui.engine.sources.recorded import RunInput
from skyt_tui.engine.versions import DEFAULT_DISTANCE, DEFAULT_TAU

T = TypeVar("T")

LOCAL_BATCH_SAMPLES = 4000
"""On this machine, runs are analysed in batches of about this many samples (whole runs): a
batch shares its oracle call and repair processes, and what the caller holds stays bounded."""

CanonProvider = Callable[[Contract], tuple[str, canon_store.Provenance] | None]


def _same(analysis: RunAnalysis) -> RunAnalysis:
    return analysis


@dataclass(frozen=True)
class _Settings:
    """What every run of one stream is analysed with (sent with each run to its node)."""

    level: str
    tau: float
    judged: bool
    repair_samples: bool
    canon_mode: str
    distance: str
    finish: Callable[[RunAnalysis], Any]


def analyze_stream(
    runs: Sequence[RunInput],
    *,
    finish: Callable[[RunAnalysis], T] = _same,  # type: ignore[assignment]
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
    oracle: Judge | None | bool = True,
    repair_samples: bool = True,
    canon_mode: str = "run",
    store_canon_provider: CanonProvider | None = None,
    progress: Progress | None = None,
    distance: str = DEFAULT_DISTANCE,
    executor: Executor | None = None,
    probe: ProbeSettings | None = None,
    per_run: bool | None = None,
) -> Iterator[T]:
    """`finish(analysis)` of each run, in input order, as each run is done (module docstring).

    The options are `analyze_runs`'; `finish` (a module-level function, or a `partial` of one:
    it is sent to the nodes) turns a run's analysis into what the caller keeps. `per_run`
    (default: the executor's `per_run`) sends each run on its own through `Executor.stream`.
    A probe, an oracle object of the caller's and store mode without `store_canon_provider`
    go in batches: they need this machine (the probe's inputs and its comparison of outputs,
    whose calls run on the executor's oracle; the caller's oracle; the store's first passing
    sample).
    """
    executor = executor or current_executor()
    report = progress or (lambda stage, done, total: None)
    if per_run is None:
        per_run = executor.per_run
    if oracle not in (True, False, None) or probe is not None:
        per_run = False
    if canon_mode == "store" and store_canon_provider is None:
        per_run = False
    if not per_run:
        yield from _in_batches(
            runs,
            finish,
            report,
            level=level,
            tau=tau,
            oracle=oracle,
            repair_samples=repair_samples,
            canon_mode=canon_mode,
            store_canon_provider=store_canon_provider,
            distance=distance,
            executor=executor,
            probe=probe,
        )
        return
    assert store_canon_provider is not None or canon_mode == "run"  # batches above otherwise
    settings = _Settings(
        level=level,
        tau=tau,
        judged=oracle is True,
        repair_samples=repair_samples,
        canon_mode=canon_mode,
        distance=distance,
        finish=finish,
    )
    canons: dict[tuple[str, str], CanonInfo] = {}

    def calls() -> Iterator[tuple[Any, ...]]:
        for run in runs:
            contract = contract_for(run) if settings.judged else None
            canon = None
            if contract is not None and canon_mode == "store":
                key = (contract.id, contract.content_hash())
                if key not in canons:  # found (or established) once per contract version
                    canons[key] = store_canon(contract, store_canon_provider)  # type: ignore[arg-type]
                canon = canons[key]
            yield (run, contract, canon, settings)

    report("runs", 0, len(runs))
    for done, product in enumerate(
        executor.stream(analyze_here, calls(), judged=settings.judged), start=1
    ):
        report("runs", done, len(runs))
        yield product


def analyze_here(
    executor: Executor,
    run: RunInput,
    contract: Contract | None,
    canon: CanonInfo | None,
    settings: _Settings,
) -> Any:
    """One run, wherever `executor` is (a node, or this machine): `settings.finish` of its
    analysis, with the contract (and stored canon) the driver found."""
    [analysis] = analyze_runs(
        [run],
        level=settings.level,
        tau=settings.tau,
        oracle=executor.oracle() if settings.judged else False,
        repair_samples=settings.repair_samples,
        canon_mode=settings.canon_mode,
        distance=settings.distance,
        executor=executor,
        contracts=[contract],
        canons=[canon],
    )
    return settings.finish(analysis)


def _in_batches(
    runs: Sequence[RunInput],
    finish: Callable[[RunAnalysis], T],
    report: Progress,
    **options: Any,
) -> Iterator[T]:
    """Runs in consecutive batches of about `LOCAL_BATCH_SAMPLES` samples, through
    `analyze_runs`; each batch's runs handed on in order once it is done."""
    batch: list[RunInput] = []
    samples = 0
    for position, run in enumerate(runs):
        batch.append(run)
        samples += len(run.codes)
        if samples >= LOCAL_BATCH_SAMPLES or position == len(runs) - 1:
            analyses = analyze_runs(batch, progress=report, **options)
            batch, samples = [], 0
            while analyses:
                yield finish(analyses.pop(0))
