"""Does the anchor sample predict the full benchmark? Repeated-draw validation per method (docs/benchmark.md).

Per draw: shuffle the systems and split them into training systems and held-out ones
(`holdout` share, at least 3). Each method chooses its anchors seeing the training systems
only — irt and cluster fit their model on them (`methods`); stratified and random do not look
at scores at all — and estimates every held-out system's full score from its anchor scores
(`anchors`). Pearson r
(the seed's criterion), Spearman ρ, Kendall τ-b and MAE between estimate and true full mean are
computed per draw; the report gives their median and 5th/95th percentiles, the share of draws
with r > threshold, and the coverage of the estimates' intervals. All methods see the same
splits, so they are compared on the same held-out systems. A time split (train on the systems
released before a date, test on the rest) is reported beside it where release dates exist;
there the model-based methods also calibrate their intervals on the later training systems, as
`bench sample` does (`methods`). On random splits they do not (it would take a few more fits
per split): their coverage there is that of the interval before calibration, which only widens
it.
Only systems with a score for every item take part (a missing score is neither 0 nor
ignorable without biasing that system's means); the others are listed as excluded.

Randomness: the splits come from a generator seeded with the seed; each (method, size) draws
its anchors from its own generator seeded with (seed, method, size), so adding a method or a
size to a comparison never changes another's numbers.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from skyt_tui.engine.benchmark import irt
from skyt_tui.engine.benchmark.anchors import (
    choose_anchors,
    design_arrays,
    estimate_scores,
)
from skyt_tui.engine.benchmark.correlation import (
    kendall_rows,
    mae_rows,
    pearson_rows,
    spearman_rows,
)
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.benchmark.methods import Chosen, Fits, choose, parse_dates
from skyt_tui.engine.benchmark.sampler import (
    DEFAULT_SEED,
    MODEL_BASED,
    SCORE_BLIND,
    SampleConfig,
    check_seed,
    plan_sample,
)
from skyt_tui.engine.printable import counted

MIN_TRUSTED_SAMPLE = 30
MIN_TRUSTED_IRT_SAMPLE = 10
"""An IRT estimate rests on the model for the unscored items and its interval's coverage is
validated with it, so fewer items can be trusted than for a plain anchor mean."""


def min_trusted(method: str) -> int:
    return MIN_TRUSTED_IRT_SAMPLE if method in MODEL_BASED else MIN_TRUSTED_SAMPLE


MIN_TRUSTED_SYSTEMS = 10
MIN_HELD_OUT = 3
METHODS = ("irt", "cluster", "stratified", "random")
_STREAM = {"irt": 1, "stratified": 2, "random": 3, "cluster": 4}
TIME_SPLIT_AUTO = "auto"
TIME_SPLIT_OFF = "off"


def check_time_split(value: str) -> str:
    if value in (TIME_SPLIT_AUTO, TIME_SPLIT_OFF):
        return value
    try:
        dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise _error(
            f"{value!r} must be a date YYYY-MM-DD, 'auto' or 'off'", key="--split-date"
        ) from None
    return value


@dataclass(frozen=True)
class ValidationConfig:
    threshold: float = 0.9
    draws: int = 200
    holdout: float = 0.5
    seed: int = DEFAULT_SEED
    confidence: float = 0.95
    """Share of draws that must reach r > threshold for the verdict "trustworthy"."""
    level: float = irt.DEFAULT_LEVEL
    """Level of the estimates' intervals whose coverage is reported."""
    time_split: str = TIME_SPLIT_AUTO
    """A date (train: released before it), "auto" (the date closest to the holdout share) or "off"."""

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
        if not 0.0 < self.level < 1.0:
            raise _error(f"{self.level!r} must be in (0, 1)", key="--level")
        check_time_split(self.time_split)
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
    estimate: float
    """The system's full score estimated from the anchor items alone."""
    full_mean: float


@dataclass(frozen=True)
class SampleCheck:
    """The sample `bench sample` draws with the same options, on all systems used.

    For IRT the model is fitted on these same systems (`in_sample`): an optimistic view; the
    held-out figures of the report are the honest ones.
    """

    ids: tuple[str, ...]
    method: str
    in_sample: bool
    pearson: float
    spearman: float
    kendall: float
    mae: float
    points: tuple[SystemPoint, ...]


@dataclass(frozen=True)
class MethodResult:
    """One method at one sample size over all draws (held-out systems only)."""

    method: str
    size: int
    draws: int
    n_train: int
    n_held_out: int
    pearson: Spread
    spearman: Spread
    kendall: Spread
    mae: Spread
    share_above: float
    coverage: float
    """Share of (draw, held-out system) pairs whose full mean lies in the estimate's interval."""
    draws_pearson: tuple[float, ...]
    fallback: str | None
    """Why IRT fell back to stratified in some draws (too few training systems), else None."""
    fallback_draws: int = 0
    """The draws in which it fell back: in all of them, the figures are stratified's, not its."""


@dataclass(frozen=True)
class TimeSplit:
    """Train on the systems released before `date`, test on those released on or after it."""

    date: str
    train: tuple[str, ...]
    test: tuple[str, ...]
    undated: tuple[str, ...]
    results: tuple[MethodResult, ...]


@dataclass(frozen=True)
class ValidationReport:
    sample_config: SampleConfig
    config: ValidationConfig
    method: str
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
    coverage: float
    draws_pearson: tuple[float, ...]
    sample_check: SampleCheck
    trustworthy: bool
    verdict: str
    warnings: tuple[str, ...]
    methods: tuple[MethodResult, ...]
    """Every method validated on the same splits (the report's own method among them)."""
    time_split: TimeSplit | None
    time_split_note: str | None
    """Why there is no time split (no release dates, too few systems on one side, off)."""

    def result(self, method: str) -> MethodResult | None:
        return next((r for r in self.methods if r.method == method), None)


def trusted(result: MethodResult, config: ValidationConfig) -> bool:
    """r > threshold in ≥ `confidence` of the draws, with enough items and held-out systems, by
    the method itself (not by the one it fell back to in every draw)."""
    return (
        result.fallback_draws < result.draws
        and result.share_above >= config.confidence
        and result.size >= min_trusted(result.method)
        and result.n_held_out >= MIN_TRUSTED_SYSTEMS
    )


def percent(share: float) -> str:
    text = f"{share * 100:.1f}".rstrip("0").rstrip(".")
    return f"{text}%"


def held_out_count(n_systems: int, holdout: float) -> int:
    return min(n_systems, max(MIN_HELD_OUT, math.floor(holdout * n_systems + 1e-9)))


def _check_method(method: str) -> str:
    if method not in METHODS:
        raise _error(f"{method!r} must be one of {', '.join(METHODS)}", key="--method")
    return method


@dataclass(frozen=True)
class _Complete:
    items: tuple[Item, ...]
    used: tuple[str, ...]
    excluded: dict[str, int]
    matrix: np.ndarray
    full: np.ndarray


def _complete(items: Sequence[Item], scores: ScoreMatrix) -> _Complete:
    if tuple(item.id for item in items) != scores.item_ids:
        raise _error("the score matrix does not belong to these items")
    keep = ~np.isnan(scores.scores).any(axis=1)
    used = tuple(name for name, ok in zip(scores.systems, keep) if ok)
    missing = scores.missing_per_system()
    excluded = {name: missing[name] for name, ok in zip(scores.systems, keep) if not ok}
    if len(used) < MIN_HELD_OUT:
        raise _error(
            f"validation needs at least {MIN_HELD_OUT} systems with a score for every item; "
            f"{len(used)} of {len(scores.systems)} have one",
            key="results",
        )
    matrix = scores.scores[keep]
    return _Complete(tuple(items), used, excluded, matrix, matrix.mean(axis=1))


def _random_splits(
    n_systems: int, n_held: int, draws: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    splits = []
    for _ in range(draws):
        order = rng.permutation(n_systems)
        splits.append((np.sort(order[n_held:]), np.sort(order[:n_held])))
    return splits


@irt.one_blas_thread
def _run(
    data: _Complete,
    methods: Sequence[str],
    sizes: Sequence[int],
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    config: ValidationConfig,
    dates: Sequence[dt.date | None] | None = None,
    observer: Observer | None = None,
) -> tuple[MethodResult, ...]:
    """Every (method, size) over the same splits: estimates for the held-out systems per draw.
    With `dates` (aligned with `data.used`) the model-based methods calibrate their intervals
    on the later training systems, as `bench sample` does; `observer` sees every draw's
    estimates (and, for a model-based method, what it chose)."""
    difficulties = [item.difficulty for item in data.items]
    stratum_sizes = Counter(difficulties)
    n_draws, n_held = len(splits), len(splits[0][1])
    estimates = {(m, k): np.empty((n_draws, n_held)) for m in methods for k in sizes}
    inside = {(m, k): np.empty((n_draws, n_held), dtype=bool) for m in methods for k in sizes}
    actual_size: dict[tuple[str, int], int] = {}
    fallback_draws = {(m, k): 0 for m in methods for k in sizes}
    generators = {
        (m, k): np.random.default_rng([config.seed, _STREAM[m], k]) for m in methods for k in sizes
    }
    plans = {
        (m, k): plan_sample(
            difficulties,
            SampleConfig(rate=0.0, floor=k, mode=m if m in SCORE_BLIND else "stratified"),
        )
        for m in methods
        for k in sizes
    }
    fits = Fits(data.matrix, [item.id for item in data.items], data.used, dates)
    previous: tuple[np.ndarray, np.ndarray] | None = None
    for draw, (train, held) in enumerate(splits):
        truth = data.full[held]
        # A fixed split (the time split) repeats the same systems every draw: irt is
        # deterministic on it, so its estimates are made once.
        repeat = (
            previous is not None
            and np.array_equal(previous[0], train)
            and np.array_equal(previous[1], held)
        )
        previous = (train, held)
        for method in methods:
            for size in sizes:
                key = (method, size)
                if method == "irt" and repeat and not fallback_draws[key] and observer is None:
                    estimates[key][draw] = estimates[key][draw - 1]
                    inside[key][draw] = inside[key][draw - 1]
                    continue
                chosen = None
                if method in MODEL_BASED and len(train) >= irt.MIN_SYSTEMS:
                    chosen = choose(method, fits, train, size, generators[key])
                    columns = chosen.anchors
                    observed = np.full((len(held), len(data.items)), np.nan)
                    observed[:, columns] = data.matrix[np.ix_(held, columns)]
                    score, low, high = chosen.arrays(observed, config.level)
                else:
                    if method in MODEL_BASED:
                        fallback_draws[key] += 1
                    plan = plans[key]
                    columns = np.sort(np.asarray(plan.draw(generators[key]), dtype=np.intp))
                    stratified = plan.mode == "stratified"
                    score, low, high = design_arrays(
                        data.matrix[np.ix_(held, columns)],
                        [difficulties[i] for i in columns]
                        if stratified
                        else ["all"] * len(columns),
                        config.level,
                        sizes=stratum_sizes if stratified else {"all": len(difficulties)},
                    )
                actual_size[key] = len(columns)
                if observer is not None:
                    observer(Observed(method, size, draw, train, held, score, low, high, chosen))
                estimates[key][draw] = score
                inside[key][draw] = (low <= truth + 1e-12) & (truth <= high + 1e-12)
    truth_rows = np.stack([data.full[held] for _, held in splits])
    results = []
    for method in methods:
        for size in sizes:
            key = (method, size)
            pearson = pearson_rows(estimates[key], truth_rows)
            fallback = None
            if fallback_draws[key]:
                fallback = (
                    f"stratified in {fallback_draws[key]} of {n_draws} draws: fewer than "
                    f"{irt.MIN_SYSTEMS} training systems"
                )
            results.append(
                MethodResult(
                    method=method,
                    size=actual_size[key],
                    draws=n_draws,
                    n_train=len(splits[0][0]),
                    n_held_out=n_held,
                    pearson=Spread.of(pearson),
                    spearman=Spread.of(spearman_rows(estimates[key], truth_rows)),
                    kendall=Spread.of(kendall_rows(estimates[key], truth_rows)),
                    mae=Spread.of(mae_rows(estimates[key], truth_rows)),
                    share_above=float(
                        np.mean(np.nan_to_num(pearson, nan=-np.inf) > config.threshold)
                    ),
                    coverage=float(inside[key].mean()),
                    draws_pearson=tuple(float(value) for value in pearson),
                    fallback=fallback,
                    fallback_draws=fallback_draws[key],
                )
            )
    return tuple(results)


@dataclass(frozen=True, eq=False)
class Observed:
    """One (method, size, draw) of a validation run: the held-out systems' estimates."""

    method: str
    size: int
    draw: int
    train: np.ndarray
    held: np.ndarray
    score: np.ndarray
    low: np.ndarray
    high: np.ndarray
    chosen: Chosen | None
    """What a model-based method chose on the training systems (None for the others)."""


Observer = Callable[[Observed], None]


def validate_on_splits(
    items: Sequence[Item],
    scores: ScoreMatrix,
    methods: Sequence[str],
    sizes: Sequence[int],
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    config: ValidationConfig = ValidationConfig(),
    release_dates: Mapping[str, str | None] | None = None,
    observer: Observer | None = None,
) -> tuple[MethodResult, ...]:
    """Every method at every size on given (train, held-out) splits of the complete systems
    (indices into `complete_systems(scores)`), as `bench validate` runs them; with
    `release_dates` the model-based methods calibrate on the later training systems."""
    for method in methods:
        _check_method(method)
    data = _complete(items, scores)
    return _run(data, methods, sizes, splits, config, _dates(data, release_dates), observer)


def complete_systems(items: Sequence[Item], scores: ScoreMatrix) -> tuple[str, ...]:
    """The systems validation uses (a score for every item), in the order splits index them."""
    return _complete(items, scores).used


def compare_methods(
    items: Sequence[Item],
    scores: ScoreMatrix,
    methods: Sequence[str] = METHODS,
    sizes: Sequence[int] = (10, 25, 50),
    config: ValidationConfig = ValidationConfig(),
    release_dates: Mapping[str, str | None] | None = None,
) -> tuple[MethodResult, ...]:
    """Each method at each size on the same random splits (for tables and charts of r against k);
    with `release_dates` the model-based methods calibrate their intervals on each split's later
    training systems, as `bench sample` does (a few more fits per split)."""
    for method in methods:
        _check_method(method)
    data = _complete(items, scores)
    sizes = sorted({min(max(int(k), 1), len(items)) for k in sizes})
    n_held = held_out_count(len(data.used), config.holdout)
    return _run(
        data,
        methods,
        sizes,
        _random_splits(len(data.used), n_held, config.draws, config.seed),
        config,
        _dates(data, release_dates),
    )


def _dates(
    data: _Complete, release_dates: Mapping[str, str | None] | None
) -> tuple[dt.date | None, ...] | None:
    if not release_dates:
        return None
    return parse_dates([release_dates.get(name) for name in data.used])


def time_split_systems(
    used: Sequence[str], release_dates: Mapping[str, str | None], date: str, holdout: float
) -> tuple[tuple[np.ndarray, np.ndarray, str] | None, str | None, tuple[str, ...]]:
    """(train indices, test indices, date) or None with the reason; and the undated systems."""
    if date == TIME_SPLIT_OFF:
        return None, "time split off", ()
    parsed: dict[int, dt.date] = {}
    undated = []
    for index, name in enumerate(used):
        text = release_dates.get(name)
        try:
            parsed[index] = dt.date.fromisoformat(str(text)[:10]) if text else None  # type: ignore[assignment]
        except ValueError:
            parsed[index] = None  # type: ignore[assignment]
        if parsed[index] is None:
            undated.append(name)
            del parsed[index]
    if not parsed:
        return None, "no release dates (SYSTEMS.jsonl with release_date)", tuple(undated)

    def sides(cut: dt.date) -> tuple[np.ndarray, np.ndarray]:
        train = np.array(sorted(i for i, day in parsed.items() if day < cut), dtype=np.int64)
        test = np.array(sorted(i for i, day in parsed.items() if day >= cut), dtype=np.int64)
        return train, test

    if date != TIME_SPLIT_AUTO:
        cut = dt.date.fromisoformat(date)
        train, test = sides(cut)
        if len(train) < 1 or len(test) < MIN_HELD_OUT:
            return (
                None,
                f"{counted(len(train), 'system')} released before {date} and {len(test)} on or after it: "
                f"need at least 1 and {MIN_HELD_OUT}",
                tuple(undated),
            )
        return (train, test, cut.isoformat()), None, tuple(undated)
    best: tuple[float, dt.date] | None = None
    for cut in sorted(set(parsed.values())):
        train, test = sides(cut)
        if len(train) < irt.MIN_SYSTEMS or len(test) < MIN_HELD_OUT:
            continue
        distance = abs(len(test) / len(parsed) - holdout)
        if best is None or distance <= best[0]:
            best = (distance, cut)
    if best is None:
        return (
            None,
            f"no release date leaves {irt.MIN_SYSTEMS} systems before it and {MIN_HELD_OUT} after",
            tuple(undated),
        )
    train, test = sides(best[1])
    return (train, test, best[1].isoformat()), None, tuple(undated)


def validate_sample(
    items: Sequence[Item],
    scores: ScoreMatrix,
    sample_config: SampleConfig = SampleConfig(),
    config: ValidationConfig = ValidationConfig(),
    methods: Sequence[str] | None = None,
    release_dates: Mapping[str, str | None] | None = None,
) -> ValidationReport:
    """Validate the method of `sample_config` (and `methods` beside it); pure and deterministic."""
    method = sample_config.mode
    methods = tuple(dict.fromkeys([method, *(methods or ())]))
    for name in methods:
        _check_method(name)
    data = _complete(items, scores)
    n_systems = len(data.used)
    n_held = held_out_count(n_systems, config.holdout)
    size = sample_config.size_for(len(items))
    splits = _random_splits(n_systems, n_held, config.draws, config.seed)
    dates = _dates(data, release_dates)
    # The later-systems calibration costs a few fits per training set: it runs on the time split
    # (one fixed split, so once) and not on every random split, whose coverage is therefore that
    # of the intervals before calibration (which only ever widens them).
    results = _run(data, methods, [size], splits, config)
    own = next(r for r in results if r.method == method)
    time_split: TimeSplit | None = None
    note: str | None = "no release dates (SYSTEMS.jsonl with release_date)"
    if config.time_split == TIME_SPLIT_OFF:
        note = "time split off"
    elif release_dates:
        found, note, undated = time_split_systems(
            data.used, release_dates, config.time_split, config.holdout
        )
        if found is not None:
            train, test, date = found
            # One fixed split: IRT is deterministic on it; score-blind methods redraw their anchors.
            time_split = TimeSplit(
                date=date,
                train=tuple(data.used[i] for i in train),
                test=tuple(data.used[i] for i in test),
                undated=undated,
                results=_run(data, methods, [size], [(train, test)] * config.draws, config, dates),
            )
    check = _check_one(data, sample_config, config, release_dates)
    warnings = _warnings(
        own.size,
        min_trusted(method),
        len(items),
        n_held,
        data.excluded,
        np.array(own.draws_pearson),
        own.fallback,
    )
    trustworthy = trusted(own, config)
    return ValidationReport(
        sample_config=sample_config,
        config=config,
        method=method,
        n_items=len(items),
        sample_size=own.size,
        systems_used=data.used,
        systems_excluded=data.excluded,
        n_held_out=n_held,
        n_choose=n_systems - n_held,
        pearson=own.pearson,
        spearman=own.spearman,
        kendall=own.kendall,
        mae=own.mae,
        share_above=own.share_above,
        coverage=own.coverage,
        draws_pearson=own.draws_pearson,
        sample_check=check,
        trustworthy=trustworthy,
        verdict=_verdict(
            own.share_above, config, own.size, min_trusted(method), n_held, trustworthy
        )
        if own.fallback_draws < own.draws
        else f"NOT measured: {method} fell back to {own.fallback}; every figure is stratified's",
        warnings=warnings,
        methods=results,
        time_split=time_split,
        time_split_note=note,
    )


def _check_one(
    data: _Complete,
    sample_config: SampleConfig,
    config: ValidationConfig,
    release_dates: Mapping[str, str | None] | None = None,
) -> SampleCheck:
    complete = ScoreMatrix(
        systems=data.used, item_ids=tuple(item.id for item in data.items), scores=data.matrix
    )
    sample = choose_anchors(
        data.items, complete, sample_config, config.seed, release_dates=release_dates
    )
    chosen = set(sample.ids)
    observed = np.where([item.id in chosen for item in data.items], data.matrix, np.nan)
    estimates = estimate_scores(
        data.items,
        sample,
        ScoreMatrix(systems=data.used, item_ids=complete.item_ids, scores=observed),
        config.level,
    )
    estimate = np.array([e.score for e in estimates])
    return SampleCheck(
        ids=sample.ids,
        method=sample.chosen_by,
        in_sample=sample.model is not None,
        pearson=float(pearson_rows(estimate, data.full)[0]),
        spearman=float(spearman_rows(estimate, data.full)[0]),
        kendall=float(kendall_rows(estimate, data.full)[0]),
        mae=float(mae_rows(estimate, data.full)[0]),
        points=tuple(
            SystemPoint(name, float(e), float(f))
            for name, e, f in zip(data.used, estimate, data.full)
        ),
    )


def _warnings(
    size: int,
    minimum: int,
    n_items: int,
    n_held: int,
    excluded: dict[str, int],
    pearson: np.ndarray,
    fallback: str | None,
) -> tuple[str, ...]:
    notes = []
    if size < minimum:
        notes.append(
            f"the sample has only {size} items: under {minimum} items a sample cannot be trusted "
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
            f"{counted(len(excluded), 'system', verb='lack')} scores for some items and "
            f"{'was' if len(excluded) == 1 else 'were'} left out: {names}"
        )
    if fallback:
        notes.append(f"irt fell back to {fallback}")
    undefined = int(np.isnan(pearson).sum())
    if undefined:
        notes.append(
            f"r is undefined in {undefined} of {pearson.size} draws (all held-out systems had the same "
            f"estimate); those draws count as below the threshold"
        )
    return tuple(notes)


def _verdict(
    share: float,
    config: ValidationConfig,
    size: int,
    minimum: int,
    n_held: int,
    trustworthy: bool,
) -> str:
    reach = f"r > {config.threshold:g} in {percent(share)} of draws"
    if trustworthy:
        return f"trustworthy: {reach}"
    if share >= config.confidence:
        reason = f"{size} items" if size < minimum else f"{n_held} held-out systems"
        return f"NOT trustworthy: {reach}, but {reason} are too few to trust it"
    return f"NOT trustworthy at this size: r > {config.threshold:g} in only {percent(share)} of draws; raise --floor"
