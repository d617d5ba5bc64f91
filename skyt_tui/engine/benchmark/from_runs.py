"""A benchmark from skyt-tui's own stored runs: contracts are the items, each model at a
temperature is a system, and a run metric (pass_rate by default) is the item score (docs/benchmark.md).

Only complete runs count. When one system ran one contract several times, the newest run
(run ids sort by creation time) is its score and the older ones are reported as superseded.
A contract whose content changed between runs is scored only from the runs of its newest
version; the runs of older versions are reported as skipped. A FILTER narrows the runs with
`field=glob` terms (model, temperature, contract, provider, label, sweep), all of which must
match.
"""

from __future__ import annotations

import fnmatch
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from skyt_tui.engine.benchmark.items import BenchmarkData, ScoreMatrix, contract_item
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.measure import registry

if TYPE_CHECKING:  # the runs store loads when runs are read, not with every benchmark command
    from skyt_tui.engine.contracts.contract import Contract
    from skyt_tui.engine.runs import run_store
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

SCORE_METRICS = registry.bench_score_metrics()
"""Run metrics in [0, 1] where higher is better, usable as item scores (`bench_score` in the
registry)."""
DEFAULT_SCORE = "pass_rate"
FILTER_FIELDS = ("model", "temperature", "contract", "provider", "label", "sweep")


def check_score(metric: str) -> str:
    if metric not in SCORE_METRICS:
        raise _error(f"{metric!r} must be one of {', '.join(SCORE_METRICS)}", key="--score")
    return metric


@dataclass(frozen=True)
class RunFilter:
    terms: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str | None) -> RunFilter:
        if not text or not text.strip():
            return cls()
        terms = []
        try:
            parts = shlex.split(text.replace(",", " "))
        except ValueError as exc:
            raise _error(f"{text!r}: {exc}", key="FILTER") from None
        for part in parts:
            key, sep, pattern = part.partition("=")
            if not sep or key not in FILTER_FIELDS or not pattern:
                raise _error(
                    f"{part!r} is not field=pattern with field one of {', '.join(FILTER_FIELDS)}",
                    key="FILTER",
                )
            terms.append((key, pattern))
        return cls(tuple(terms))

    def matches(self, meta: run_store.RunMeta) -> bool:
        return all(fnmatch.fnmatchcase(_field(meta, key), pattern) for key, pattern in self.terms)

    def __str__(self) -> str:
        return " ".join(f"{key}={pattern}" for key, pattern in self.terms)


def _field(meta: run_store.RunMeta, key: str) -> str:
    value: Any = {
        "model": meta.model,
        "temperature": None if meta.temperature is None else f"{meta.temperature:g}",
        "contract": meta.contract_id,
        "provider": meta.provider,
        "label": meta.label,
        "sweep": meta.sweep,
    }[key]
    return "" if value is None else str(value)


def system_name(meta: run_store.RunMeta) -> str:
    """`gpt-4o-mini@T0.7`: the model (or provider when no model is named) at its temperature."""
    who = meta.model or meta.provider
    return who if meta.temperature is None else f"{who}@T{meta.temperature:g}"


@dataclass(frozen=True)
class RunsImport:
    """What `from_runs` used and what it left out, for the report."""

    data: BenchmarkData
    score: str
    filter: str
    runs_used: tuple[str, ...]
    superseded: tuple[str, ...]
    skipped: dict[str, str]
    """run id → why it was not used (not complete, damaged, older contract version, no metric)."""


def select_runs(
    run_filter: RunFilter,
) -> tuple[list[run_store.StoredRun], dict[str, str]]:
    """Complete runs matching the filter, oldest first, and the runs left out with the reason."""
    from skyt_tui.engine.runs import run_store

    chosen: list[run_store.StoredRun] = []
    skipped: dict[str, str] = {}
    for summary in run_store.list_runs():
        if summary.meta is None:
            skipped[summary.id] = f"damaged: {summary.error}"
            continue
        if not run_filter.matches(summary.meta):
            continue
        if summary.state != run_store.COMPLETE:
            skipped[summary.id] = f"{summary.state}, not complete"
            continue
        chosen.append(run_store.load_run(summary.id))
    return chosen, skipped


def from_runs(
    stored: Sequence[run_store.StoredRun],
    analyses: Sequence[StoredAnalysis],
    score: str = DEFAULT_SCORE,
    run_filter: RunFilter = RunFilter(),
    skipped: dict[str, str] | None = None,
) -> RunsImport:
    """Build the benchmark from runs (oldest first) and their analyses (same order)."""
    check_score(score)
    skipped = dict(skipped or {})
    newest_contract: dict[str, tuple[str, Contract]] = {}
    for run in stored:
        contract = run.contract_object()
        if contract is None:
            skipped[run.id] = "no contract snapshot (an import without its contract)"
            continue
        newest_contract[contract.id] = (run.id, contract)
    cells: dict[tuple[str, str], tuple[str, float]] = {}
    superseded: list[str] = []
    for run, analysis in zip(stored, analyses):
        if run.id in skipped:
            continue
        contract = run.contract_object()
        assert contract is not None
        if contract.content_hash() != newest_contract[contract.id][1].content_hash():
            skipped[run.id] = (
                f"contract {contract.id} changed since (run {newest_contract[contract.id][0]} "
                "has the newest version)"
            )
            continue
        value = getattr(analysis.metrics, score)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1:
            skipped[run.id] = f"no {score} (the analysis did not compute it)"
            continue
        key = (system_name(run.meta), contract.id)
        if key in cells:
            superseded.append(cells[key][0])
        cells[key] = (run.id, float(value))
    if not cells:
        raise _error(
            "no complete run with a score matches"
            + (f" the filter {run_filter}" if run_filter.terms else "")
            + " (see `skyt-tui runs list`)",
            key="--from-runs",
        )
    used_contracts = sorted({contract_id for _, contract_id in cells})
    items = tuple(contract_item(newest_contract[cid][1]) for cid in used_contracts)
    systems = tuple(sorted({system for system, _ in cells}))
    matrix = np.full((len(systems), len(items)), np.nan)
    row = {name: index for index, name in enumerate(systems)}
    column = {cid: index for index, cid in enumerate(used_contracts)}
    for (system, contract_id), (_, value) in cells.items():
        matrix[row[system], column[contract_id]] = value
    scores = ScoreMatrix(systems=systems, item_ids=tuple(used_contracts), scores=matrix)
    return RunsImport(
        data=BenchmarkData(items=items, scores=scores),
        score=score,
        filter=str(run_filter),
        runs_used=tuple(sorted(run_id for run_id, _ in cells.values())),
        superseded=tuple(sorted(superseded)),
        skipped=dict(sorted(skipped.items())),
    )


def scores_by_contract(
    stored: Sequence[run_store.StoredRun],
    analyses: Sequence[StoredAnalysis],
    score: str,
    item_ids: Sequence[str],
) -> ScoreMatrix:
    """The scores of freshly made runs as a systems × items matrix over `item_ids` (NaN elsewhere)."""
    check_score(score)
    column = {item_id: index for index, item_id in enumerate(item_ids)}
    values: dict[str, dict[str, float]] = {}
    for run, analysis in zip(stored, analyses):
        value = getattr(analysis.metrics, score)
        if run.meta.contract_id not in column or not isinstance(value, int | float):
            continue
        values.setdefault(system_name(run.meta), {})[run.meta.contract_id] = float(value)
    systems = tuple(sorted(values))
    matrix = np.full((len(systems), len(column)), np.nan)
    for row, system in enumerate(systems):
        for contract_id, value in values[system].items():
            matrix[row, column[contract_id]] = value
    return ScoreMatrix(systems=systems, item_ids=tuple(item_ids), scores=matrix)
