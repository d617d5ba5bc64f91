"""The benchmark: items and scores, anchor sample, validation, rotation, fingerprints (SPEC §9).

Call the functions re-exported here (from `api`); the modules underneath are pure
(`sampler`, `validation`, `correlation`, `rotation`, `fingerprints`, `items`) or
handle the files (`bench_store`).
"""

from skyt_tui.engine.benchmark.api import (
    Benchmark,
    BenchmarkSummary,
    ImportResult,
    RotationStatus,
    apply_rotation,
    benchmark_contamination,
    benchmark_fingerprints,
    benchmark_versions,
    current_sample,
    draw_sample,
    import_benchmark,
    list_benchmarks,
    load_benchmark,
    preview_rotation,
    rotate_if_due,
    rotation_history,
    rotation_state,
    rotation_status,
    sample_history,
    validate_benchmark,
)
from skyt_tui.engine.benchmark.fingerprints import ContaminationReport, Fingerprint, ItemOverlap
from skyt_tui.engine.benchmark.items import BenchmarkData, Item, ScoreMatrix, SystemInfo
from skyt_tui.engine.benchmark.rotation import (
    RotationPlan,
    RotationRecord,
    RotationRefused,
    RotationState,
    parse_now,
)
from skyt_tui.engine.benchmark.sampler import AnchorSample, SampleConfig, select_sample
from skyt_tui.engine.benchmark.validation import (
    SampleCheck,
    Spread,
    SystemPoint,
    ValidationConfig,
    ValidationReport,
)

__all__ = [
    "AnchorSample",
    "Benchmark",
    "BenchmarkData",
    "BenchmarkSummary",
    "ContaminationReport",
    "Fingerprint",
    "ImportResult",
    "Item",
    "ItemOverlap",
    "RotationPlan",
    "RotationRecord",
    "RotationRefused",
    "RotationState",
    "RotationStatus",
    "SampleCheck",
    "SampleConfig",
    "ScoreMatrix",
    "Spread",
    "SystemInfo",
    "SystemPoint",
    "ValidationConfig",
    "ValidationReport",
    "apply_rotation",
    "benchmark_contamination",
    "benchmark_fingerprints",
    "benchmark_versions",
    "current_sample",
    "draw_sample",
    "import_benchmark",
    "list_benchmarks",
    "load_benchmark",
    "parse_now",
    "preview_rotation",
    "rotate_if_due",
    "rotation_history",
    "rotation_state",
    "rotation_status",
    "sample_history",
    "select_sample",
    "validate_benchmark",
]
