"""Choosing the anchor sample by method, and estimating a system's full-benchmark score from the
items it was scored on (docs/benchmark.md).

Methods: `stratified` and `random` are score-blind (`sampler`); `irt` and `cluster` fit a 2PL
model on the systems with a score for every item (`methods`): `irt` takes the most informative
items (`irt`), `cluster` tinyBenchmarks' clustered anchors (`tinybenchmarks`); both fall back to
stratified — and say so — below `irt.MIN_SYSTEMS` such systems. `auto` chooses among them by
validation (`choice`).

Estimates follow the method that chose the sample: p-IRT for an irt sample, gp-IRT for a cluster
sample (`methods.Chosen`); for a score-blind sample the design-based estimator of its sampling
plan — per difficulty stratum the mean of the scored items, weighted by the stratum's share of
the benchmark (one stratum for a random sample) — with the textbook variance
Σ W_h² (1 − n_h/N_h) s_h² / n_h. Scores for more items than the anchors are used too; a system
scored on every item gets its exact mean.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from skyt_tui.engine.benchmark import irt
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.benchmark.methods import Chosen, Fits, choose, interval_scale, parse_dates
from skyt_tui.engine.benchmark.sampler import (
    AUTO,
    DEFAULT_SEED,
    MODEL_BASED,
    AnchorSample,
    SampleConfig,
    select_sample,
)
from skyt_tui.engine.benchmark.tinybenchmarks import LambdaParts
from skyt_tui.engine.printable import counted

SMALL_STRATUM = 30
"""Under this many scored items in a stratum its sample variance is unreliable; the bound
p(1 − p) of a score in [0, 1] with mean p (p shrunk by half an item towards ½) stands in."""
MIN_ANCHOR_SHARE = 0.8
"""Below this share of the anchors scored, an estimate carries a warning."""


def complete_rows(scores: ScoreMatrix) -> np.ndarray:
    """Boolean mask of the systems with a score for every item."""
    complete: np.ndarray = ~np.isnan(scores.scores).any(axis=1)
    return complete


def choose_anchors(
    items: Sequence[Item],
    scores: ScoreMatrix | None,
    config: SampleConfig = SampleConfig(),
    seed: int = DEFAULT_SEED,
    benchmark_version: int | None = None,
    release_dates: Mapping[str, str | None] | None = None,
) -> AnchorSample:
    """The anchor sample by `config.mode` (irt, cluster, stratified or random; `auto` is
    `choice.choose_method`); the model-based methods fit on the complete systems of `scores`
    and, with `release_dates`, calibrate their intervals on the later ones."""
    if config.mode == AUTO:
        raise _error("auto chooses by validation: use choice.choose_method", key="mode")
    if config.mode not in MODEL_BASED:
        return select_sample(items, config, seed, benchmark_version)
    reason = _why_not_irt(items, scores)
    if reason is not None or scores is None:
        stratified = SampleConfig(rate=config.rate, floor=config.floor, mode="stratified")
        sample = select_sample(items, stratified, seed, benchmark_version)
        return dataclasses.replace(sample, config=config, method="stratified", fallback=reason)
    keep = complete_rows(scores)
    systems = tuple(name for name, ok in zip(scores.systems, keep) if ok)
    dates = None
    if release_dates:
        dates = parse_dates([release_dates.get(name) for name in systems])
    fits = Fits(scores.scores[keep], scores.item_ids, systems, dates)
    chosen = choose(
        config.mode,
        fits,
        np.arange(len(systems)),
        _size(items, config),
        np.random.default_rng(seed),
    )
    return sample_of(items, chosen, config, seed, benchmark_version)


def sample_of(
    items: Sequence[Item],
    chosen: Chosen,
    config: SampleConfig,
    seed: int,
    benchmark_version: int | None,
) -> AnchorSample:
    """The stored record of a model-based choice (ids sorted; weights aligned with them)."""
    strata: dict[str, int] = {}
    allocation: dict[str, int] = {}
    for item in items:
        strata[item.difficulty] = strata.get(item.difficulty, 0) + 1
        allocation.setdefault(item.difficulty, 0)
    for index in chosen.anchors:
        allocation[items[int(index)].difficulty] += 1
    order = sorted(range(len(chosen.anchors)), key=lambda n: items[int(chosen.anchors[n])].id)
    weights = () if chosen.weights is None else tuple(float(chosen.weights[n]) for n in order)
    parts = chosen.parts
    return AnchorSample(
        ids=tuple(items[int(chosen.anchors[n])].id for n in order),
        seed=seed,
        config=config,
        n_items=len(items),
        requested_size=config.size_for(len(items)),
        strata=dict(sorted(strata.items())),
        allocation=dict(sorted(allocation.items())),
        benchmark_version=benchmark_version,
        method=chosen.method,
        model=chosen.model,
        anchor_misfit=chosen.misfit,
        person_reference=chosen.person_reference,
        calibration=chosen.calibration,
        calibration_note=chosen.calibration_note,
        weights=weights,
        lambda_bias=parts.bias if parts else 0.0,
        lambda_variance=parts.variance if parts else 0.0,
    )


def chosen_of(sample: AnchorSample, item_ids: Sequence[str]) -> Chosen:
    """What a stored model-based sample estimates with (the inverse of `sample_of`)."""
    assert sample.model is not None
    position = {item_id: index for index, item_id in enumerate(item_ids)}
    anchors = np.array([position[i] for i in sample.ids], dtype=np.int64)
    order = np.argsort(anchors, kind="stable")
    cluster = sample.chosen_by == "cluster"
    if cluster and len(sample.weights) != len(sample.ids):
        raise _error(
            "a cluster sample without its anchor weights: draw it again", key="anchor sample"
        )
    return Chosen(
        method="cluster" if cluster else "irt",
        anchors=anchors[order],
        model=sample.model,
        misfit=sample.anchor_misfit,
        person_reference=sample.person_reference,
        weights=np.asarray(sample.weights, dtype=np.float64)[order] if cluster else None,
        parts=LambdaParts(sample.lambda_bias, sample.lambda_variance) if cluster else None,
        calibration=sample.calibration,
        calibration_note=sample.calibration_note,
    )


def _size(items: Sequence[Item], config: SampleConfig) -> int:
    if not items:
        raise _error("the benchmark has no items to sample")
    return config.size_for(len(items))


def _why_not_irt(items: Sequence[Item], scores: ScoreMatrix | None) -> str | None:
    """Why no IRT model can be fitted on `scores` (None when one can)."""
    if scores is None:
        return "the benchmark has no per-system scores to fit a model on"
    if tuple(item.id for item in items) != scores.item_ids:
        raise _error("the score matrix does not belong to these items")
    n_complete = int(complete_rows(scores).sum())
    if n_complete < irt.MIN_SYSTEMS:
        return (
            f"only {counted(n_complete, 'system', verb='have')} a score for every item; "
            f"IRT needs at least {irt.MIN_SYSTEMS}"
        )
    return None


@dataclass(frozen=True)
class SystemEstimate:
    """One system's estimated mean score over all items, with its interval."""

    system: str
    score: float
    low: float
    high: float
    level: float
    method: str
    scored_items: int
    scored_anchors: int
    n_anchors: int
    n_items: int
    exact: bool
    """Scored on every item: the score is its mean, not an estimate."""
    warnings: tuple[str, ...]
    estimator: str = ""
    """p-irt-eap (irt sample: skyt-tui's p-IRT, ability by posterior mean), gp-irt (cluster
    sample: tinyBenchmarks') or design (stratified, random)."""
    interval_scale: float = 1.0
    """The calibration factor the interval's half-width was multiplied by (1: none)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "system": self.system,
            "estimate": self.score,
            "low": self.low,
            "high": self.high,
            "level": self.level,
            "method": self.method,
            "scored_items": self.scored_items,
            "scored_anchors": self.scored_anchors,
            "anchors": self.n_anchors,
            "items": self.n_items,
            "exact": self.exact,
            "warnings": list(self.warnings),
            "estimator": self.estimator,
            "interval_scale": self.interval_scale,
        }


def check_level(level: float) -> float:
    if not (isinstance(level, int | float) and 0.0 < float(level) < 1.0):
        raise _error(f"{level!r} must be a number between 0 and 1 (e.g. 0.95)", key="--level")
    return float(level)


def estimate_scores(
    items: Sequence[Item],
    sample: AnchorSample,
    observed: ScoreMatrix,
    level: float = irt.DEFAULT_LEVEL,
) -> tuple[SystemEstimate, ...]:
    """Estimates for every system (row) of `observed`, aligned with `items`; NaN = not scored."""
    check_level(level)
    item_ids = tuple(item.id for item in items)
    if observed.item_ids != item_ids:
        raise _error("the scores do not belong to these items")
    missing = sorted(set(sample.ids) - set(item_ids))
    if missing:
        raise _error(
            f"the anchor sample names {counted(len(missing), 'item')} this benchmark version lacks "
            f"({', '.join(missing[:3])}…); draw the sample again",
            key="anchor sample",
        )
    if sample.model is not None and sample.model.item_ids != item_ids:
        raise _error(
            "the IRT model was fitted on other items than this benchmark version has; "
            "draw the sample again",
            key="anchor sample",
        )
    y = observed.scores
    scored = ~np.isnan(y)
    position = {item_id: index for index, item_id in enumerate(item_ids)}
    anchor_columns = np.array([position[i] for i in sample.ids], dtype=np.int64)
    strata = design_strata(items, sample)
    scale = 1.0
    if sample.model is not None:
        chosen = chosen_of(sample, item_ids)
        score, low, high = chosen.arrays(y, level)
        scale = interval_scale(chosen.calibration, level)
        estimator = "gp-irt" if chosen.method == "cluster" else "p-irt-eap"
    else:
        score, low, high = design_arrays(y, strata, level)
        estimator = "design"
    rows = list(zip(score.tolist(), low.tolist(), high.tolist()))
    estimates = []
    for row, system in enumerate(observed.systems):
        count = int(scored[row].sum())
        if count == 0:
            raise _error(f"system {system!r} has no score for any item", key="results")
        anchors_scored = int(scored[row, anchor_columns].sum())
        score, low, high = rows[row]
        estimates.append(
            SystemEstimate(
                system=system,
                score=score,
                low=low,
                high=high,
                level=level,
                method=sample.chosen_by,
                scored_items=count,
                scored_anchors=anchors_scored,
                n_anchors=len(sample.ids),
                n_items=len(items),
                exact=count == len(items),
                warnings=_warnings(
                    count,
                    anchors_scored,
                    len(sample.ids),
                    scored[row],
                    strata if sample.model is None else None,
                ),
                estimator=estimator,
                interval_scale=scale,
            )
        )
    return tuple(estimates)


def design_strata(items: Sequence[Item], sample: AnchorSample) -> list[str]:
    """The strata of the design estimator: difficulties for a stratified sample, else one."""
    if sample.chosen_by == "stratified":
        return [item.difficulty for item in items]
    return ["all"] * len(items)


def _warnings(
    count: int,
    anchors_scored: int,
    n_anchors: int,
    scored: np.ndarray,
    strata: list[str] | None,
) -> tuple[str, ...]:
    notes = []
    if anchors_scored < math.ceil(MIN_ANCHOR_SHARE * n_anchors) and count < len(scored):
        notes.append(
            f"scores for only {anchors_scored} of the {n_anchors} anchor items: "
            f"the estimate rests on {counted(count, 'item')} and its interval is wide"
        )
    if strata is not None:
        empty = sorted(set(strata) - {name for name, ok in zip(strata, scored) if ok})
        if empty:
            notes.append(
                f"no scored item in stratum {', '.join(empty)}: the estimate covers the other strata only"
            )
    return tuple(notes)


def design_arrays(
    observed: np.ndarray,
    strata: Sequence[str],
    level: float = irt.DEFAULT_LEVEL,
    sizes: Mapping[str, int] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratified (one stratum: simple random sampling) estimates with normal intervals.

    `observed` is rows × items with NaN for unscored items; `strata` labels the items. Per
    stratum h of N_h items with n_h scored: mean ȳ_h and variance s_h²; the estimate is
    Σ W_h ȳ_h with W_h = N_h / N over the strata that have a scored item (renormalised), its
    variance Σ W_h² (1 − n_h/N_h) s_h² / n_h. With fewer than SMALL_STRATUM scored items s_h² is
    replaced by the bound p(1 − p), p = (Σy + ½)/(n_h + 1) (scores lie in [0, 1]): on
    LiveCodeBench the plain s_h² gave 35% coverage at 4 items (a stratum of zeros has s² = 0) and
    84% for a random sample of 10, the bound 99.8% and 95%. A row with nothing scored gets NaN.

    With `sizes` (N_h of every stratum of the benchmark), `observed` and `strata` may hold only
    the chosen items' columns: validation passes the anchors alone instead of a rows × N matrix
    that is NaN but for them (100,000 items × 200 draws: 14 s of the 20 s went to that).
    """
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    names = list(strata)
    if sizes is None:
        sizes = Counter(names)
    n_items = sum(sizes.values())
    labels = np.asarray(names, dtype=object)
    scored = ~np.isnan(y)
    values = np.where(scored, y, 0.0)
    rows = y.shape[0]
    estimate = np.zeros(rows)
    variance = np.zeros(rows)
    weight_seen = np.zeros(rows)
    for name in sorted(set(names)):
        members = labels == name
        size = sizes[name]
        n = scored[:, members].sum(axis=1).astype(np.float64)
        has = n > 0
        safe_n = np.where(has, n, 1.0)
        total = values[:, members].sum(axis=1)
        mean = total / safe_n
        squares = (values[:, members] ** 2).sum(axis=1)
        sample_var = np.where(
            n > 1, np.maximum(squares - n * mean * mean, 0.0) / np.maximum(n - 1.0, 1.0), 0.0
        )
        shrunk = (total + 0.5) / (n + 1.0)
        spread = np.where(n >= SMALL_STRATUM, sample_var, shrunk * (1.0 - shrunk))
        weight = size / n_items
        estimate += np.where(has, weight * mean, 0.0)
        variance += np.where(has, weight * weight * (1.0 - n / size) * spread / safe_n, 0.0)
        weight_seen += np.where(has, weight, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(weight_seen > 0, estimate / weight_seen, np.nan)
        variance = np.where(weight_seen > 0, variance / weight_seen**2, np.nan)
    half = irt.normal_quantile(0.5 + level / 2.0) * np.sqrt(np.maximum(variance, 0.0))
    return estimate, np.maximum(estimate - half, 0.0), np.minimum(estimate + half, 1.0)
