"""Benchmarks for the Benchmark section: the list, one benchmark's view, validation, the methods'
curves, estimates and rotation (the benchmark room loads when first used: numpy)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skyt_tui.engine import benchmark


def list_benchmarks() -> tuple[benchmark.BenchmarkSummary, ...]:
    from skyt_tui.engine import benchmark

    return benchmark.list_benchmarks()


@dataclass(frozen=True)
class BenchmarkView:
    """What the Benchmark section shows of one benchmark at one moment."""

    bench: benchmark.Benchmark
    sample: benchmark.AnchorSample | None
    status: benchmark.RotationStatus
    fingerprints: tuple[benchmark.Fingerprint, ...]
    has_scores: bool


def benchmark_view(name: str, now: dt.datetime) -> BenchmarkView:
    from skyt_tui.engine import benchmark

    bench = benchmark.load_benchmark(name, with_scores=False)
    return BenchmarkView(
        bench=bench,
        sample=benchmark.current_sample(name),
        status=benchmark.rotation_status(name, now),
        fingerprints=benchmark.benchmark_fingerprints(name),
        has_scores=bench.versions[-1].n_results > 0,
    )


CURVE_SIZES = (4, 10, 25, 50, 100)


CURVE_DRAWS = 100


def validate_benchmark(
    name: str, sample: benchmark.AnchorSample | None
) -> benchmark.ValidationReport:
    """Validate the current anchor sample's configuration and seed, every method beside it on the
    same splits, as `bench validate --method all` with the sample's options (seconds: call from a
    worker)."""
    from skyt_tui.engine import benchmark

    config = sample.config if sample is not None else benchmark.SampleConfig()
    if sample is not None and config.mode == "auto":  # validate the method auto chose
        config = dataclasses.replace(config, mode=sample.chosen_by)
    seed = sample.seed if sample is not None else benchmark.ValidationConfig().seed
    return benchmark.validate_benchmark(
        name, config, benchmark.ValidationConfig(seed=seed), methods=benchmark.METHODS
    )


def method_curves(
    name: str, n_items: int, seed: int
) -> tuple[tuple[int, ...], tuple[benchmark.MethodResult, ...]]:
    """Every method at k = 4, 10, 25, 50, 100 (those below the item count), 100 draws."""
    from skyt_tui.engine import benchmark

    sizes = tuple(k for k in CURVE_SIZES if k < n_items) or (n_items,)
    config = benchmark.ValidationConfig(seed=seed, draws=CURVE_DRAWS)
    return sizes, benchmark.compare_benchmark_methods(name, sizes, benchmark.METHODS, config)


def benchmark_estimates(name: str) -> tuple[benchmark.SystemEstimate, ...]:
    """Every system of the current version: measured (scored on every item) or estimated."""
    from skyt_tui.engine import benchmark

    return benchmark.stored_estimates(name)


def preview_rotation(name: str, now: dt.datetime) -> benchmark.RotationPlan:
    from skyt_tui.engine import benchmark

    return benchmark.preview_rotation(name, now, force=True)


def apply_rotation(name: str, now: dt.datetime) -> benchmark.RotationPlan:
    from skyt_tui.engine import benchmark

    return benchmark.apply_rotation(name, now, force=True)
