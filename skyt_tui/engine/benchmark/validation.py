"""Does the anchor sample rank systems like the full benchmark? Repeated-draw validation (SPEC §9).

Per draw: shuffle the systems and split them into a "choose" part and a held-out
part (`holdout` share, at least 3); draw an anchor sample; on the held-out systems
compare each system's mean score on the sample with its mean on all items. Pearson r
(the seed's criterion), Spearman ρ, Kendall τ-b and MAE are computed per draw; the
report gives their median and 5th/95th percentiles and the share of draws with
r > threshold. Stratified and random sampling do not look at scores, so the choose
systems are not used by them; the split still makes every reported number come from
systems no choice could have seen, and resampling the systems per draw is the
bootstrap over systems. Only systems with a score for every item take part (a
missing score is neither 0 nor ignorable without biasing that system's means); the
others are listed as excluded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skyt_tui.engine.benchmark.correlation import (
    kendall_rows,
    mae_rows,
    pearson_rows,
    spearman_rows,
)
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.benchmark.sampler import (
    DEFAULT_SEED,
    SampleConfig,
    check_seed,
    plan_sample,
    select_sample,
)

MIN_TRUSTED_SAMPLE = 30
MIN_TRUSTED_SYSTEMS = 10
MIN_HELD_OUT = 3


@dataclass(frozen=True)
class ValidationConfig:
    threshold: float = 0.9
    draws: int = 200
    holdout: float = 0.5
    seed: int = DEFAULT_SEED
    confidence: float = 0.95
    """Share of draws that must reach r > threshold for the verdict "trustworthy"."""

    def __post_init__(self) -> None:
        if not -1.0 <= self.threshold <= 1.0:
            raise _error(f"{self.threshold!r} must be in [-1, 1]", key="--threshold")
        if (
            isinstance(self.draws, bool)
            or not isinstance(self.draws, int)
            or not 1 <= self.draws <= 100_000
        ):
            raise _error(f"{self.draws!r} must be an integer from 1 to 100000", key="--draws")
        if not 0.0 < self.holdout <= 1.0:
            raise _error(f"{self.holdout!r} must be in (0, 1]", key="--holdout-systems")
        if not 0.0 < self.confidence <= 1.0:
            raise _error(f"{self.confidence!r} must be in (0, 1]", key="--confidence")
        check_seed(self.seed)


@dataclass(frozen=True)
class Spread:
    """Distribution of one statistic over the draws; NaN draws (undefined) are left out and counted."""

    median: float
    p5: float
    p95: float
    mean: float
    undefined: int

    @classmethod
    def of(cls, values: np.ndarray) -> Spread:
        defined = values[~np.isnan(values)]
        if defined.size == 0:
            return cls(math.nan, math.nan, math.nan, math.nan, int(values.size))
        p5, median, p95 = np.percentile(defined, [5, 50, 95])
        return cls(
            float(median),
            float(p5),
            float(p95),
            float(defined.mean()),
            int(values.size - defined.size),
        )


@dataclass(frozen=True)
class SystemPoint:
    system: str
    subset_mean: float
    full_mean: float


@dataclass(frozen=True)
class SampleCheck:
    """One specific sample (the one `bench sample` draws with the same seed) on all systems used."""

    ids: tuple[str, ...]
    pearson: float
    spearman: float
    kendall: float
    mae: float
    points: tuple[SystemPoint, ...]


@dataclass(frozen=True)
class ValidationReport:
    sample_config: SampleConfig
    config: ValidationConfig
    n_items: int
    sample_size: int
    systems_used: tuple[str, ...]
    systems_excluded: dict[str, int]
    n_held_out: int
    n_choose: int
    pearson: Spread
    spearman: Spread
    kendall: Spread
    mae: Spread
    share_above: float
    draws_pearson: tuple[float, ...]
    sample_check: SampleCheck
    trustworthy: bool
    verdict: str
    warnings: tuple[str, ...]


def percent(share: float) -> str:
    text = f"{share * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def held_out_count(n_systems: int, holdout: float) -> int:
    return min(n_systems, max(MIN_HELD_OUT, math.floor(holdout * n_systems + 1e-9)))


def validate_sample(
    items: Sequence[Item],
    scores: ScoreMatrix,
    sample_config: SampleConfig = SampleConfig(),
    config: ValidationConfig = ValidationConfig(),
) -> ValidationReport:
    """Run `config.draws` draws; pure: same inputs and seed give the same report."""
    if tuple(item.id for item in items) != scores.item_ids:
        raise _error("the score matrix does not belong to these items")
    complete = ~np.isnan(scores.scores).any(axis=1)
    used = tuple(name for name, keep in zip(scores.systems, complete) if keep)
    missing = scores.missing_per_system()
    excluded = {name: missing[name] for name, keep in zip(scores.systems, complete) if not keep}
    if len(used) < MIN_HELD_OUT:
        raise _error(
            f"validation needs at least {MIN_HELD_OUT} systems with a score for every item; "
            f"{len(used)} of {len(scores.systems)} have one",
            key="results",
        )
    matrix = scores.scores[complete]
    full = matrix.mean(axis=1)
    n_systems = len(used)
    n_held = held_out_count(n_systems, config.holdout)

    plan = plan_sample([item.difficulty for item in items], sample_config)
    rng = np.random.default_rng(config.seed)
    subset_means = np.empty((config.draws, n_held))
    full_means = np.empty((config.draws, n_held))
    for draw in range(config.draws):
        held = np.sort(rng.permutation(n_systems)[:n_held])
        chosen = plan.draw(rng)
        subset_means[draw] = matrix[np.ix_(held, chosen)].mean(axis=1)
        full_means[draw] = full[held]

    pearson = pearson_rows(subset_means, full_means)
    share = float(np.mean(np.nan_to_num(pearson, nan=-np.inf) > config.threshold))
    check = _check_one(items, matrix, full, used, sample_config, config.seed)
    warnings = _warnings(plan.size, len(items), n_held, excluded, pearson)
    too_small = plan.size < MIN_TRUSTED_SAMPLE or n_held < MIN_TRUSTED_SYSTEMS
    trustworthy = share >= config.confidence and not too_small
    return ValidationReport(
        sample_config=sample_config,
        config=config,
        n_items=len(items),
        sample_size=plan.size,
        systems_used=used,
        systems_excluded=excluded,
        n_held_out=n_held,
        n_choose=n_systems - n_held,
        pearson=Spread.of(pearson),
        spearman=Spread.of(spearman_rows(subset_means, full_means)),
        kendall=Spread.of(kendall_rows(subset_means, full_means)),
        mae=Spread.of(mae_rows(subset_means, full_means)),
        share_above=share,
        draws_pearson=tuple(float(value) for value in pearson),
        sample_check=check,
        trustworthy=trustworthy,
        verdict=_verdict(share, config, plan.size, n_held, trustworthy),
        warnings=warnings,
    )


def _check_one(
    items: Sequence[Item],
    matrix: np.ndarray,
    full: np.ndarray,
    used: tuple[str, ...],
    sample_config: SampleConfig,
    seed: int,
) -> SampleCheck:
    sample = select_sample(items, sample_config, seed)
    chosen = set(sample.ids)
    columns = np.array(
        [index for index, item in enumerate(items) if item.id in chosen], dtype=np.int64
    )
    subset = matrix[:, columns].mean(axis=1)
    return SampleCheck(
        ids=sample.ids,
        pearson=float(pearson_rows(subset, full)[0]),
        spearman=float(spearman_rows(subset, full)[0]),
        kendall=float(kendall_rows(subset, full)[0]),
        mae=float(mae_rows(subset, full)[0]),
        points=tuple(
            SystemPoint(name, float(s), float(f)) for name, s, f in zip(used, subset, full)
        ),
    )


def _warnings(
    size: int, n_items: int, n_held: int, excluded: dict[str, int], pearson: np.ndarray
) -> tuple[str, ...]:
    notes = []
    if size < MIN_TRUSTED_SAMPLE:
        notes.append(
            f"the sample has only {size} items: under {MIN_TRUSTED_SAMPLE} items a sample cannot be trusted "
            f"whatever r says (raise --floor)"
        )
    if n_held < MIN_TRUSTED_SYSTEMS:
        notes.append(
            f"only {n_held} held-out systems per draw: correlations over fewer than {MIN_TRUSTED_SYSTEMS} systems "
            f"are noise (add systems or raise --holdout-systems)"
        )
    if size == n_items:
        notes.append(f"the sample is the whole benchmark ({n_items} items), so r is trivially 1")
    if excluded:
        names = ", ".join(sorted(excluded)[:5]) + (" …" if len(excluded) > 5 else "")
        notes.append(
            f"{len(excluded)} system(s) lack scores for some items and were left out: {names}"
        )
    undefined = int(np.isnan(pearson).sum())
    if undefined:
        notes.append(
            f"r is undefined in {undefined} of {pearson.size} draws (all held-out systems had the same sample "
            f"mean); those draws count as below the threshold"
        )
    return tuple(notes)


def _verdict(
    share: float, config: ValidationConfig, size: int, n_held: int, trustworthy: bool
) -> str:
    reach = f"r > {config.threshold:g} in {percent(share)} of draws"
    if trustworthy:
        return f"trustworthy: {reach}"
    if share >= config.confidence:
        reason = f"{size} items" if size < MIN_TRUSTED_SAMPLE else f"{n_held} held-out systems"
        return f"NOT trustworthy: {reach}, but {reason} are too few to trust it"
    return f"NOT trustworthy at this size: r > {config.threshold:g} in only {percent(share)} of draws; raise --floor"
