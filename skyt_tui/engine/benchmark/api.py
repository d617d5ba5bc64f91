"""What the CLI and the UI call: benchmarks by name, backed by the files in `bench_store`.

Each function validates its inputs completely before it writes anything, writes
under the store lock, and returns frozen dataclasses. Wall-clock time never enters
here: callers pass `now` / `recorded_at`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skyt_tui.engine import store
from skyt_tui.engine.benchmark import bench_store
from skyt_tui.engine.benchmark.anchors import (
    SystemEstimate,
    check_level,
    choose_anchors,
    estimate_scores,
)
from skyt_tui.engine.benchmark.bench_store import VersionInfo
from skyt_tui.engine.benchmark.choice import choose_method
from skyt_tui.engine.benchmark.fingerprints import (
    ContaminationReport,
    Fingerprint,
    check_contamination,
    fingerprints,
)
from skyt_tui.engine.benchmark.from_runs import (
    DEFAULT_SCORE,
    RunFilter,
    RunsImport,
    check_score,
    from_runs,
    select_runs,
)
from skyt_tui.engine.benchmark.irt import DEFAULT_LEVEL
from skyt_tui.engine.benchmark.items import (
    BenchmarkData,
    Item,
    ScoreMatrix,
    SystemInfo,
    load_inputs,
    read_results_csv,
)
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.benchmark.rotation import (
    DEFAULT_PERIOD,
    RotationPlan,
    RotationRecord,
    RotationRefused,
    RotationState,
    as_utc,
    check_period,
    due_info,
    period_label,
    period_start,
    plan_rotation,
    replay,
)
from skyt_tui.engine.benchmark.sampler import (
    AUTO,
    DEFAULT_SEED,
    MODEL_BASED,
    AnchorSample,
    SampleConfig,
)
from skyt_tui.engine.benchmark.validation import (
    METHODS,
    MethodResult,
    ValidationConfig,
    ValidationReport,
    compare_methods,
    validate_sample,
)
from skyt_tui.engine.errors import StoreError

SAMPLE_KIND = "bench_sample"
ROTATION_KIND = "bench_rotation"


@dataclass(frozen=True)
class Benchmark:
    """One version of a named benchmark, plus the list of all its versions."""

    name: str
    version: int
    data: BenchmarkData
    versions: tuple[VersionInfo, ...]

    @property
    def items(self) -> tuple[Item, ...]:
        return self.data.items

    @property
    def strata(self) -> dict[str, int]:
        return self.data.strata()


@dataclass(frozen=True)
class ImportResult:
    name: str
    version: VersionInfo
    created: bool
    """False when the content equals the current version: nothing was written."""
    previous_version: int | None

    @property
    def message(self) -> str:
        info = self.version
        if not self.created:
            return f"{self.name}: unchanged — the content equals version {info.version}; nothing written"
        what = f"{info.n_items} items, {info.n_systems} systems, {info.n_results} scores"
        if self.previous_version is None:
            return f"{self.name}: imported as version {info.version} ({what})"
        return f"{self.name}: content changed — imported as version {info.version} ({what}); version {self.previous_version} is kept"


@dataclass(frozen=True)
class BenchmarkSummary:
    """One benchmark in the list; a damaged one has `error` (file and line) and what could be read."""

    name: str
    version: VersionInfo | None
    n_versions: int
    sample: AnchorSample | None
    rotations: int
    error: str | None = None
    torn: tuple[str, ...] = ()
    """Lines of its logs skipped as torn (`torn_records`): records that were lost."""

    @property
    def damaged(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class RotationStatus:
    name: str
    benchmark_version: int
    period: str
    now: str
    current_period: str
    due: bool
    next_rotation: str | None
    """Date the next rotation is due; None when one is due now."""
    held_out: tuple[str, ...]
    training: dict[str, str]
    strata: dict[str, int]
    """Items per difficulty in the current version; the next three split them."""
    pool: dict[str, int]
    held_out_by_stratum: dict[str, int]
    training_by_stratum: dict[str, int]
    stale: tuple[str, ...]
    """Ids in held-out or training that the current benchmark version does not contain."""
    history: tuple[RotationRecord, ...]

    @property
    def last(self) -> RotationRecord | None:
        return self.history[-1] if self.history else None


def import_benchmark(
    name: str,
    issues: Path | str | None = None,
    results: Path | str | None = None,
    systems: Path | str | None = None,
    contracts_dir: Path | str | None = None,
    imported_at: str | None = None,
) -> ImportResult:
    """Read and check every input file, then store it as a new version unless nothing changed."""
    bench_store.check_name(name)
    data = load_inputs(issues=issues, results=results, systems=systems, contracts_dir=contracts_dir)
    sources = {
        key: str(Path(value).resolve())
        for key, value in (
            ("issues", issues),
            ("results", results),
            ("systems", systems),
            ("contracts", contracts_dir),
        )
        if value is not None
    }
    return store_benchmark(name, data, sources, imported_at)


def store_benchmark(
    name: str, data: BenchmarkData, sources: dict[str, str], imported_at: str | None = None
) -> ImportResult:
    """Store checked `data` as the next version of `name`, unless it equals the current one."""
    bench_store.check_name(name)
    content_hash = data.content_hash()
    with store.store_lock():
        versions = bench_store.list_versions(name)
        previous = versions[-1] if versions else None
        if previous is not None and previous.content_hash == content_hash:
            return ImportResult(
                name=name, version=previous, created=False, previous_version=previous.version
            )
        info = bench_store.write_version(name, data, sources, imported_at)
    return ImportResult(
        name=name,
        version=info,
        created=True,
        previous_version=previous.version if previous else None,
    )


def load_benchmark(name: str, version: int | None = None, with_scores: bool = True) -> Benchmark:
    """A version (default: the latest); without scores `data.scores` is None (faster on big benchmarks)."""
    versions = bench_store.require_versions(name)
    number = versions[-1].version if version is None else version
    data = bench_store.read_version(name, number, with_scores=with_scores)
    return Benchmark(name=name, version=number, data=data, versions=versions)


def benchmark_versions(name: str) -> tuple[VersionInfo, ...]:
    return bench_store.require_versions(name)


def list_benchmarks() -> tuple[BenchmarkSummary, ...]:
    """Every benchmark in the store; a damaged file marks its benchmark, never hides the others."""
    summaries = []
    for name in bench_store.benchmark_names():
        try:
            versions = bench_store.list_versions(name)
        except StoreError as exc:
            summaries.append(BenchmarkSummary(name, None, 0, None, 0, error=str(exc)))
            continue
        if not versions:
            continue
        sample, rotations, error = None, 0, None
        torn: tuple[str, ...] = ()
        try:
            sample = current_sample(name)
            rotations = len(rotation_history(name))
            torn = torn_records(name)
        except StoreError as exc:
            error = str(exc)
        summaries.append(
            BenchmarkSummary(
                name=name,
                version=versions[-1],
                n_versions=len(versions),
                sample=sample,
                rotations=rotations,
                error=error,
                torn=torn,
            )
        )
    return tuple(summaries)


def torn_records(name: str) -> tuple[str, ...]:
    """The lines of a benchmark's logs (anchor samples, rotations) skipped as torn, each as
    "FILE: line N: torn record …": a write that did not finish, whose record is lost."""
    torn: list[str] = []
    for path, kind in (
        (bench_store.samples_log(name), SAMPLE_KIND),
        (bench_store.rotations_log(name), ROTATION_KIND),
    ):
        bench_store.read_log(path, kind, torn)
    return tuple(torn)


def draw_sample(
    name: str,
    config: SampleConfig = SampleConfig(),
    seed: int = DEFAULT_SEED,
    recorded_at: str | None = None,
) -> AnchorSample:
    """Draw the anchor sample of the current version and append it to `samples.jsonl` (it becomes
    current). `auto` validates every method first and takes the best (`choice`)."""
    benchmark = load_benchmark(name, with_scores=config.mode in (*MODEL_BASED, AUTO))
    dates = {system.name: system.release_date for system in benchmark.data.systems}
    if config.mode == AUTO:
        sample = choose_method(
            benchmark.items, benchmark.data.scores, config, seed, benchmark.version, dates
        )
    else:
        sample = choose_anchors(
            benchmark.items, benchmark.data.scores, config, seed, benchmark.version, dates
        )
    sample = dataclasses.replace(sample, recorded_at=recorded_at)
    with store.store_lock():
        bench_store.append_log(bench_store.samples_log(name), SAMPLE_KIND, sample.to_dict())
    return sample


def sample_history(name: str) -> tuple[AnchorSample, ...]:
    path = bench_store.samples_log(name)
    return tuple(
        _parse(path, AnchorSample.from_dict, record)
        for record in bench_store.read_log(path, SAMPLE_KIND)
    )


def current_sample(name: str) -> AnchorSample | None:
    history = sample_history(name)
    return history[-1] if history else None


def _parse(path: Path, parser: Any, record: dict[str, Any]) -> Any:
    try:
        return parser(record)
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"{path}: corrupt record: {exc!r}") from None


def _scored(name: str) -> Benchmark:
    benchmark = load_benchmark(name)
    if benchmark.data.scores is None:
        raise _error(
            f"version {benchmark.version} has no per-system results to validate against "
            f"(import it again with --results RESULTS.csv)",
            key=f"benchmark {name}",
        )
    return benchmark


def validate_benchmark(
    name: str,
    sample_config: SampleConfig = SampleConfig(),
    config: ValidationConfig = ValidationConfig(),
    methods: tuple[str, ...] = (),
) -> ValidationReport:
    """Validate `sample_config.mode` (and `methods` beside it) on random and time splits."""
    benchmark = _scored(name)
    assert benchmark.data.scores is not None
    dates = {system.name: system.release_date for system in benchmark.data.systems}
    return validate_sample(
        benchmark.items, benchmark.data.scores, sample_config, config, methods, dates
    )


def compare_benchmark_methods(
    name: str,
    sizes: tuple[int, ...],
    methods: tuple[str, ...] = METHODS,
    config: ValidationConfig = ValidationConfig(),
) -> tuple[MethodResult, ...]:
    """Every method at every size on the same random splits: r, MAE and coverage against k."""
    benchmark = _scored(name)
    assert benchmark.data.scores is not None
    return compare_methods(benchmark.items, benchmark.data.scores, methods, sizes, config)


def rotation_history(name: str) -> tuple[RotationRecord, ...]:
    path = bench_store.rotations_log(name)
    return tuple(
        _parse(path, RotationRecord.from_dict, record)
        for record in bench_store.read_log(path, ROTATION_KIND)
    )


def rotation_state(name: str) -> RotationState:
    return replay(rotation_history(name), source=str(bench_store.rotations_log(name)))


def _period(state: RotationState, period: str | None) -> str:
    if period is not None:
        return check_period(period)
    return state.last.period if state.last is not None else DEFAULT_PERIOD


def rotation_status(name: str, now: dt.datetime, period: str | None = None) -> RotationStatus:
    benchmark = load_benchmark(name, with_scores=False)
    state = rotation_state(name)
    period = _period(state, period)
    now = as_utc(now)
    due, _, next_due = due_info(state, now, period)
    known = {item.id for item in benchmark.items}
    strata = benchmark.strata
    held = set(state.held_out)
    pool = dict.fromkeys(strata, 0)
    held_by = dict.fromkeys(strata, 0)
    training_by = dict.fromkeys(strata, 0)
    for item in benchmark.items:
        place = held_by if item.id in held else training_by if item.id in state.training else pool
        place[item.difficulty] += 1
    stale = tuple(
        sorted(item_id for item_id in (*state.held_out, *state.training) if item_id not in known)
    )
    return RotationStatus(
        name=name,
        benchmark_version=benchmark.version,
        period=period,
        now=now.isoformat(),
        current_period=period_label(period_start(now, period), period),
        due=due,
        next_rotation=next_due,
        held_out=state.held_out,
        training=dict(sorted(state.training.items())),
        strata=strata,
        pool=pool,
        held_out_by_stratum=held_by,
        training_by_stratum=training_by,
        stale=stale,
        history=state.history,
    )


def preview_rotation(
    name: str,
    now: dt.datetime,
    period: str | None = None,
    force: bool = False,
    seed: int = DEFAULT_SEED,
) -> RotationPlan:
    """What `apply_rotation` would do with the same arguments; writes nothing."""
    benchmark = load_benchmark(name, with_scores=False)
    state = rotation_state(name)
    return plan_rotation(
        benchmark.items, state, now, _period(state, period), force, seed, benchmark.version
    )


def apply_rotation(
    name: str,
    now: dt.datetime,
    period: str | None = None,
    force: bool = False,
    seed: int = DEFAULT_SEED,
) -> RotationPlan:
    """Rotate and append the record to the history; `RotationRefused` (nothing written) if not allowed."""
    with store.store_lock():
        benchmark = load_benchmark(name, with_scores=False)
        state = rotation_state(name)
        plan = plan_rotation(
            benchmark.items, state, now, _period(state, period), force, seed, benchmark.version
        )
        if not plan.allowed:
            raise RotationRefused(f"{name}: rotation refused: {plan.refusal}")
        bench_store.append_log(
            bench_store.rotations_log(name), ROTATION_KIND, plan.record.to_dict()
        )
    return plan


def rotate_if_due(
    name: str, now: dt.datetime, period: str | None = None, seed: int = DEFAULT_SEED
) -> RotationPlan | None:
    """The automatic rotation: apply it when the period has advanced, else do nothing and return None."""
    try:
        return apply_rotation(name, now, period, force=False, seed=seed)
    except RotationRefused:
        return None


def benchmark_fingerprints(name: str) -> tuple[Fingerprint, ...]:
    benchmark = load_benchmark(name, with_scores=False)
    return fingerprints(benchmark.items, rotation_state(name).training)


def benchmark_contamination(name: str, path: Path | str) -> ContaminationReport:
    return check_contamination(load_benchmark(name, with_scores=False).items, path)


@dataclass(frozen=True)
class EstimateReport:
    """`bench estimate`: estimates for the systems of a results file from the current sample."""

    name: str
    benchmark_version: int
    sample: AnchorSample
    estimates: tuple[SystemEstimate, ...]
    added: ImportResult | None
    notes: tuple[str, ...]


def current_sample_or_error(name: str) -> AnchorSample:
    sample = current_sample(name)
    if sample is None:
        raise _error(
            f"no anchor sample yet: draw one with `skyt-tui bench sample {name} --method irt`",
            key=f"benchmark {name}",
        )
    return sample


def estimate_systems(
    name: str,
    observed: ScoreMatrix,
    level: float = DEFAULT_LEVEL,
    add: bool = False,
    source: str = "",
    imported_at: str | None = None,
) -> EstimateReport:
    """Estimate each system of `observed` (aligned with the current items) from the current sample.

    With `add`, its scores are also stored as the next version of the benchmark: new systems
    are added; for a system already there, the new scores fill its missing ones and must agree
    with the ones it has.
    """
    check_level(level)
    benchmark = load_benchmark(name)
    sample = current_sample_or_error(name)
    estimates = estimate_scores(benchmark.items, sample, observed, level)
    notes = []
    if sample.benchmark_version != benchmark.version:
        same = (
            "the same items"
            if sample.model is not None
            else "the same strata sizes"
            if sample.strata == benchmark.strata
            else f"other strata sizes ({_strata_text(benchmark.strata)}), which weight the estimate"
        )
        notes.append(
            f"the anchor sample was drawn on version {sample.benchmark_version}; "
            f"version {benchmark.version} has {same}"
        )
    added = None
    if add:
        merged = merge_scores(benchmark.data, observed)
        added = store_benchmark(
            name,
            merged,
            {"estimate": source or "scores", "added": ", ".join(observed.systems)},
            imported_at,
        )
    return EstimateReport(
        name=name,
        benchmark_version=benchmark.version,
        sample=sample,
        estimates=estimates,
        added=added,
        notes=tuple(notes),
    )


def _strata_text(strata: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in strata.items())


def estimate_from_file(
    name: str,
    results: Path | str,
    level: float = DEFAULT_LEVEL,
    add: bool = False,
    imported_at: str | None = None,
) -> EstimateReport:
    """`bench estimate NAME RESULTS.csv`: read the scores (system,issue_id,score), then estimate."""
    check_level(level)
    benchmark = load_benchmark(name, with_scores=False)
    observed = read_results_csv(results, [item.id for item in benchmark.items])
    return estimate_systems(name, observed, level, add, str(Path(results).resolve()), imported_at)


def merge_scores(data: BenchmarkData, observed: ScoreMatrix) -> BenchmarkData:
    """`data` with the systems of `observed` added (or their missing scores filled in)."""
    if observed.item_ids != data.item_ids:
        raise _error("the scores do not belong to this benchmark's items")
    existing = data.scores
    names = sorted(set(existing.systems if existing else ()) | set(observed.systems))
    matrix = np.full((len(names), len(data.items)), np.nan)
    row = {system: index for index, system in enumerate(names)}
    if existing is not None:
        for index, system in enumerate(existing.systems):
            matrix[row[system]] = existing.scores[index]
    for index, system in enumerate(observed.systems):
        current = matrix[row[system]]
        new = observed.scores[index]
        both = ~np.isnan(current) & ~np.isnan(new)
        if np.any(current[both] != new[both]):
            column = int(np.nonzero(both & (current != new))[0][0])
            raise _error(
                f"system {system!r} already has score {current[column]:g} for item "
                f"{data.item_ids[column]!r}, not {new[column]:g}; use another system name",
                key="--add",
            )
        matrix[row[system]] = np.where(np.isnan(current), new, current)
    systems = data.systems
    if systems:
        known = {info.name for info in systems}
        systems = tuple(
            sorted(
                (*systems, *(SystemInfo(name=s) for s in observed.systems if s not in known)),
                key=lambda info: info.name,
            )
        )
    return BenchmarkData(
        items=data.items,
        scores=ScoreMatrix(systems=tuple(names), item_ids=data.item_ids, scores=matrix),
        systems=systems,
    )


def stored_estimates(name: str, level: float = DEFAULT_LEVEL) -> tuple[SystemEstimate, ...]:
    """Every system of the current version with its score from the current sample: exact for the
    fully scored ones, estimated for the others (e.g. added with `bench estimate --add`)."""
    benchmark = load_benchmark(name)
    sample = current_sample(name)
    if benchmark.data.scores is None or sample is None:
        return ()
    return estimate_scores(benchmark.items, sample, benchmark.data.scores, level)


@dataclass(frozen=True)
class RunsImportResult:
    result: ImportResult
    runs: RunsImport


def import_from_runs(
    name: str,
    run_filter: str | None = None,
    score: str = DEFAULT_SCORE,
    imported_at: str | None = None,
) -> RunsImportResult:
    """`bench import NAME --from-runs [FILTER]`: contracts × (model@temperature) from stored runs."""
    from skyt_tui.engine.runs import analyses

    bench_store.check_name(name)
    check_score(score)
    parsed = RunFilter.parse(run_filter)
    stored, skipped = select_runs(parsed)
    records = analyses.stored_analyses(stored) if stored else []
    made = from_runs(stored, records, score, parsed, skipped)
    sources = {"runs": str(parsed) or "all", "score": score}
    return RunsImportResult(store_benchmark(name, made.data, sources, imported_at), made)


def benchmark_score_metric(name: str) -> str:
    """The run metric a benchmark imported --from-runs scores with (pass_rate otherwise)."""
    return bench_store.require_versions(name)[-1].sources.get("score", DEFAULT_SCORE)


__all__ = [
    "Benchmark",
    "BenchmarkSummary",
    "EstimateReport",
    "RunsImportResult",
    "benchmark_score_metric",
    "compare_benchmark_methods",
    "current_sample_or_error",
    "estimate_from_file",
    "estimate_systems",
    "import_from_runs",
    "merge_scores",
    "store_benchmark",
    "stored_estimates",
    "ImportResult",
    "RotationStatus",
    "apply_rotation",
    "benchmark_contamination",
    "benchmark_fingerprints",
    "benchmark_versions",
    "current_sample",
    "draw_sample",
    "import_benchmark",
    "list_benchmarks",
    "load_benchmark",
    "preview_rotation",
    "rotate_if_due",
    "rotation_history",
    "rotation_state",
    "rotation_status",
    "sample_history",
    "validate_benchmark",
]
