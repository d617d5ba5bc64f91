"""Analyses of stored runs: the cached analysis next to each run, its key, and the batch that
fills what is missing (docs/runs.md).

A cached analysis is valid while its key holds: the samples file, the level, τ, every pipeline
version, the contract's hash and the canon file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui import __version__, locations
from skyt_tui.engine import store
from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.analysis.canon import Provenance
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.sources.recorded import RunInput
from skyt_tui.engine.versions import (
    ANALYSIS_VERSION,
    CANON_VERSION,
    DEFAULT_DISTANCE,
    DEFAULT_TAU,
    NORMALIZATION_VERSION,
    ORACLE_VERSION,
    REPAIR_VERSION,
    distance_version,
)

if TYPE_CHECKING:
    from skyt_tui.engine.analysis.pipeline import Progress, RunAnalysis
    from skyt_tui.engine.executor.choice import Judge


from skyt_tui.engine.runs.run_store import (
    ANALYSIS_FILE,
    ANALYSIS_KIND,
    OK,
    SAMPLES_FILE,
    StoredRun,
    list_runs,
    load_run,
)


def analysis_versions(level: str, distance: str = DEFAULT_DISTANCE) -> dict[str, str]:
    """The versions of every pipeline stage (a cached analysis is valid for these only)."""
    return {
        "normalization": NORMALIZATION_VERSION,
        "distance": distance_version(level, distance),
        "oracle": ORACLE_VERSION,
        "canon": CANON_VERSION,
        "repair": REPAIR_VERSION,
        "analysis": ANALYSIS_VERSION,
        "skyt-tui": __version__,
    }


def run_input(run: StoredRun) -> RunInput:
    """The run as analysis input: code per index in generation order, None for failed samples."""
    by_index = {s.index: s for s in run.samples}
    codes = tuple(
        by_index[i].code if i in by_index and by_index[i].status == OK else None
        for i in sorted(by_index)
    )
    contract = run.contract_object()
    return RunInput(
        id=run.id,
        contract_id=run.meta.contract_id,
        model=run.meta.model,
        temperature=run.meta.temperature,
        codes=codes,
        kept_names=contract.kept_names if contract else frozenset(),
        source=str(run.directory),
        source_format="store",
        extra={"contract": contract, "run": run.meta, "indexes": tuple(sorted(by_index))},
    )


def _file_digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(store.read_bytes(path)).hexdigest()
    except FileNotFoundError:
        return None


def _analysis_key(
    run: StoredRun, level: str, tau: float, distance: str = DEFAULT_DISTANCE
) -> dict[str, Any]:
    return {
        "samples_sha256": _file_digest(run.directory / SAMPLES_FILE),
        "level": level,
        "tau": tau,
        "versions": analysis_versions(level, distance),
        "contract_hash": run.meta.contract_hash,
        "canon_sha256": _file_digest(locations.canon_dir() / f"{run.meta.contract_id}.json"),
    }


def _use_run_indexes(analysis: dict[str, Any], indexes: tuple[int, ...]) -> None:
    """Analysis numbers samples by position among finished ones; give them their run index.

    They differ only when an interrupted run finished sample 3 before sample 2.
    """
    for sample in [*analysis.get("samples", []), *analysis.get("limited", [])]:
        position = sample.get("index")
        if isinstance(position, int) and 0 <= position < len(indexes):
            sample["index"] = indexes[position]


def analyze_runs(sources: Sequence[RunInput], **options: Any) -> list[RunAnalysis]:
    """`analysis.analyze_runs`, imported when first needed: reading a store does not load the pipeline."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs as analyze

    return analyze(sources, **options)


def shared_oracle() -> Judge:
    from skyt_tui.engine.analysis.pipeline import shared_oracle as oracle

    return oracle()


def first_passing_sample_of_run(
    run: StoredRun, contract: Contract, oracle: Judge
) -> tuple[str, Provenance] | None:
    """The sample of `run` the canon rule picks (`canon.first_canon_sample`), with where it came from."""
    finished = [sample for sample in run.samples if sample.status == OK and sample.code is not None]
    codes = [sample.code for sample in finished if sample.code is not None]
    position = canon_store.first_canon_sample(contract, codes, oracle)
    if position is None:
        return None
    provenance = Provenance(
        run_id=run.id,
        sample_index=finished[position].index,
        provider=run.meta.provider,
        model=run.meta.model,
        temperature=run.meta.temperature,
    )
    return codes[position], provenance


def first_passing_stored_sample(contract: Contract, oracle: Judge) -> tuple[str, Provenance] | None:
    """The sample that becomes a contract's canon: the canon rule's pick in the contract's
    earliest stored run that has one (docs/canon.md)."""
    candidates = sorted(
        (s.meta.created, s.id)
        for s in list_runs()
        if s.meta is not None and s.meta.contract_id == contract.id
    )
    for _, run_id in candidates:
        found = first_passing_sample_of_run(load_run(run_id), contract, oracle)
        if found is not None:
            return found
    return None


def cached_analysis(
    run: StoredRun,
    *,
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
    distance: str = DEFAULT_DISTANCE,
) -> dict[str, Any] | None:
    """The cached analysis when its key still holds (samples, level, τ, versions, contract, canon), else None."""
    key = _analysis_key(run, level, tau, distance)
    try:
        cached = store.read_json(run.directory / ANALYSIS_FILE, kind=ANALYSIS_KIND)
    except (FileNotFoundError, StoreError):
        return None
    if cached.get("key") == json.loads(json.dumps(key)) and isinstance(
        cached.get("analysis"), dict
    ):
        analysis: dict[str, Any] = cached["analysis"]
        return analysis
    return None


def analyze_stored_run(
    run: StoredRun | str, *, level: str = "nodoc", tau: float = DEFAULT_TAU, use_cache: bool = True
) -> dict[str, Any]:
    """The run's analysis (`RunAnalysis.to_dict()`), from the cache when its key still holds."""
    return analyze_stored_runs([run], level=level, tau=tau, use_cache=use_cache)[0]


def analyze_stored_runs(
    stored: Sequence[StoredRun | str],
    *,
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
    use_cache: bool = True,
    progress: Progress | None = None,
    on_result: Callable[[str, dict[str, Any]], None] | None = None,
    distance: str = DEFAULT_DISTANCE,
) -> list[dict[str, Any]]:
    """Analyses of many stored runs: cached ones first (each reported to `on_result` as it is read), then
    every other run in one batch, so the sandboxed oracle sees each distinct program once."""
    loaded = [load_run(run) if isinstance(run, str) else run for run in stored]
    results: list[dict[str, Any] | None] = [None] * len(loaded)
    for position, run in enumerate(loaded):
        if (
            use_cache
            and (cached := cached_analysis(run, level=level, tau=tau, distance=distance))
            is not None
        ):
            results[position] = cached
            if on_result is not None:
                on_result(run.id, cached)
    missing = [position for position, result in enumerate(results) if result is None]
    if missing:
        sources = [run_input(loaded[position]) for position in missing]
        analysed = analyze_runs(
            sources,
            level=level,
            tau=tau,
            canon_mode="store",
            progress=progress,
            distance=distance,
            store_canon_provider=lambda contract: first_passing_stored_sample(
                contract, shared_oracle()
            ),
        )
        for position, source, result in zip(missing, sources, analysed):
            run = loaded[position]
            analysis = json.loads(json.dumps(result.to_dict(), allow_nan=True))
            _use_run_indexes(analysis, source.extra["indexes"])
            with contextlib.suppress(OSError, StoreError):  # a read-only store: not cached
                store.write_json(
                    run.directory / ANALYSIS_FILE,
                    {"key": _analysis_key(run, level, tau, distance), "analysis": analysis},
                    kind=ANALYSIS_KIND,
                )
            results[position] = analysis
            if on_result is not None:
                on_result(run.id, analysis)
    return [result for result in results if result is not None]
