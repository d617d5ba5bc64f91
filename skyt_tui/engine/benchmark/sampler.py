"""The anchor sample: a small subset of a benchmark's items that stands in for all of them (docs/benchmark.md).

Size: max(ceil(rate × items), floor), at most the number of items; the default floor
is max(ceil(1% of items), 50) because a 1% sample of a few hundred items tracks the
full benchmark poorly. Stratified mode allocates the size to difficulty strata in
proportion (largest remainder, at least one per non-empty stratum, never more than
a stratum holds, ties broken by stratum name); random mode draws a simple random
sample of the same size. All randomness comes from one `numpy.random.Generator`
seeded with the given seed (default 0), so the same seed, items and numpy version
give the same ids in every process. The IRT mode needs scores and lives in `anchors`;
an `AnchorSample` records which method chose it and, for the model-based methods (irt,
cluster), the fitted model and what their estimates need; `auto` (`choice`) records why it
chose the method it did.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from skyt_tui.engine.benchmark.irt import IrtModel
from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.benchmark.items import option_error as _error

DEFAULT_RATE = 0.01
DEFAULT_FLOOR = 50
DEFAULT_SEED = 0
MODES = ("stratified", "random", "irt", "cluster", "auto")
SCORE_BLIND = ("stratified", "random")
MODEL_BASED = ("irt", "cluster")
AUTO = "auto"


def ceil_share(rate: float, n: int) -> int:
    """ceil(rate × n) on the decimal value of `rate`, so 0.07 × 100 is 7, not 8."""
    return math.ceil(Fraction(repr(float(rate))) * n)


def default_floor(n_items: int) -> int:
    return max(ceil_share(0.01, n_items), DEFAULT_FLOOR)


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _error(f"{seed!r} must be a non-negative integer", key="--seed")
    return seed


@dataclass(frozen=True)
class SampleConfig:
    """How to size and draw a sample; `floor=None` means the default floor."""

    rate: float = DEFAULT_RATE
    floor: int | None = None
    mode: str = "stratified"

    def __post_init__(self) -> None:
        if not (isinstance(self.rate, int | float) and 0.0 <= float(self.rate) <= 1.0):
            raise _error(f"{self.rate!r} must be a number in [0, 1]", key="--rate")
        if self.floor is not None and (
            isinstance(self.floor, bool) or not isinstance(self.floor, int) or self.floor < 0
        ):
            raise _error(f"{self.floor!r} must be a non-negative integer", key="--floor")
        if self.mode not in MODES:
            raise _error(f"{self.mode!r} must be one of {', '.join(MODES)}", key="mode")

    def size_for(self, n_items: int) -> int:
        """Requested size before the at-least-one-per-stratum rule: rate or floor, whichever is larger."""
        floor = default_floor(n_items) if self.floor is None else self.floor
        return min(n_items, max(ceil_share(self.rate, n_items), floor, 1))

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "floor": self.floor, "mode": self.mode}

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> SampleConfig:
        return cls(rate=record["rate"], floor=record.get("floor"), mode=record["mode"])


def allocate(strata_sizes: Mapping[str, int], total: int) -> dict[str, int]:
    """Split `total` over strata in proportion to their sizes (largest remainder).

    Every non-empty stratum gets at least one (so `total` is raised to the number of
    non-empty strata if smaller), none gets more than it holds, and the result sums
    to min(max(total, strata), items). Remainders are compared exactly (integers).
    """
    names = sorted(name for name, size in strata_sizes.items() if size > 0)
    if not names:
        return {}
    sizes = {name: int(strata_sizes[name]) for name in names}
    n_items = sum(sizes.values())
    total = min(max(int(total), len(names)), n_items)
    alloc = {name: min(sizes[name], max(1, total * sizes[name] // n_items)) for name in names}

    def remainder(name: str) -> int:  # (quota − allocation) × n_items
        return total * sizes[name] - alloc[name] * n_items

    while (surplus := sum(alloc.values()) - total) != 0:
        if surplus < 0:
            candidates = [name for name in names if alloc[name] < sizes[name]]
            chosen = max(candidates, key=remainder)  # first in name order on ties
            alloc[chosen] += 1
        else:
            candidates = [name for name in names if alloc[name] > 1]
            chosen = min(candidates, key=remainder)
            alloc[chosen] -= 1
    return alloc


@dataclass(frozen=True, eq=False)
class SamplePlan:
    """What a draw needs, computed once: strata members (item indices) and their allocation."""

    n_items: int
    size: int
    mode: str
    strata: tuple[str, ...]
    members: tuple[np.ndarray, ...]
    allocation: tuple[int, ...]

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """Indices (sorted) of one sample; the only source of randomness is `rng`."""
        if self.mode == "random":
            return np.sort(rng.choice(self.n_items, self.size, replace=False))
        parts = [
            members[rng.choice(len(members), count, replace=False)]
            for members, count in zip(self.members, self.allocation)
        ]
        return np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)


def plan_sample(difficulties: Sequence[str], config: SampleConfig) -> SamplePlan:
    labels = np.asarray(difficulties, dtype=object)
    names = tuple(sorted(set(difficulties)))
    members = tuple(np.nonzero(labels == name)[0] for name in names)
    n_items = len(difficulties)
    if n_items == 0:
        raise _error("the benchmark has no items to sample")
    requested = config.size_for(n_items)
    if config.mode == "random":
        return SamplePlan(n_items, requested, "random", names, members, ())
    counts = allocate({name: len(group) for name, group in zip(names, members)}, requested)
    allocation = tuple(counts[name] for name in names)
    return SamplePlan(n_items, sum(allocation), "stratified", names, members, allocation)


@dataclass(frozen=True)
class MethodChoice:
    """Why `--method auto` chose its method: each candidate's median MAE (and interval coverage)
    on the systems held out by one validation, the lowest MAE winning."""

    rule: str
    """"time split" (trained on the systems released before `date`) or "random splits"."""
    date: str | None
    n_train: int
    n_test: int
    draws: int
    mae: dict[str, float]
    coverage: dict[str, float]
    chosen: str
    note: str | None = None
    """Why there was no time split (random splits were used instead)."""

    @property
    def message(self) -> str:
        ranked = sorted(self.mae, key=lambda method: (self.mae[method], method != self.chosen))
        others = ", ".join(f"{method} {self.mae[method]:.4f}" for method in ranked[1:])
        if self.rule == "time split":
            where = (
                f"trained on the {self.n_train} systems released before {self.date}, tested on "
                f"the {self.n_test} released on or after it"
            )
        else:
            where = (
                f"{self.draws} random splits, {self.n_test} of {self.n_train + self.n_test} "
                f"systems held out" + (f" ({self.note})" if self.note else "")
            )
        return (
            f"{self.chosen}: the lowest median MAE on a {self.rule} ({where}): "
            f"{self.mae[self.chosen]:.4f}, against {others}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "date": self.date,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "draws": self.draws,
            "mae": self.mae,
            "coverage": self.coverage,
            "chosen": self.chosen,
            "note": self.note,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> MethodChoice:
        return cls(
            rule=str(record["rule"]),
            date=record.get("date"),
            n_train=int(record["n_train"]),
            n_test=int(record["n_test"]),
            draws=int(record["draws"]),
            mae={str(k): float(v) for k, v in record["mae"].items()},
            coverage={str(k): float(v) for k, v in record["coverage"].items()},
            chosen=str(record["chosen"]),
            note=record.get("note"),
        )


@dataclass(frozen=True)
class AnchorSample:
    """One drawn anchor sample: the ids (sorted) and everything needed to draw it again."""

    ids: tuple[str, ...]
    seed: int
    config: SampleConfig
    n_items: int
    requested_size: int
    strata: dict[str, int]
    allocation: dict[str, int]
    benchmark_version: int | None = None
    recorded_at: str | None = None
    method: str = ""
    """What chose the ids: irt, cluster, stratified or random ("" = `config.mode`, as older
    records say)."""
    fallback: str | None = None
    """Why a model-based choice fell back to stratified (too few complete systems), else None."""
    model: IrtModel | None = None
    """The IRT model the ids were chosen with (and estimates are made with)."""
    anchor_misfit: float = 0.0
    """Variance (mean-score units) the anchors left unexplained on the fit systems."""
    person_reference: float = 0.0
    """The fit systems' mean person fit on the anchors (0 in records from before it)."""
    calibration: tuple[float, ...] = ()
    """Sorted |error| / sd of the later systems the interval is calibrated on (`methods`)."""
    calibration_note: str = ""
    weights: tuple[float, ...] = ()
    """cluster: each anchor's weight, aligned with `ids`."""
    lambda_bias: float = 0.0
    lambda_variance: float = 0.0
    """cluster: b and v of tinyBenchmarks' λ = b² / (b² + v / (4k))."""
    choice: MethodChoice | None = None
    """auto: why this method."""

    @property
    def size(self) -> int:
        return len(self.ids)

    @property
    def chosen_by(self) -> str:
        return self.method or self.config.mode

    @property
    def description(self) -> str:
        """The method in words, e.g. "irt (2PL on 45 systems)" or "stratified (IRT fallback: …)"."""
        auto = " chosen by auto" if self.choice is not None else ""
        if self.model is not None:
            what = (
                "clustered anchors, gp-IRT; " if self.chosen_by == "cluster" else ""
            ) + f"2PL fitted on {len(self.model.systems)} systems"
            return f"{self.chosen_by} ({what}){auto}"
        if self.fallback:
            return f"{self.chosen_by} (instead of {self.config.mode}: {self.fallback})"
        return self.chosen_by + auto

    def to_dict(self) -> dict[str, Any]:
        return {
            "ids": list(self.ids),
            "seed": self.seed,
            "config": self.config.to_dict(),
            "n_items": self.n_items,
            "requested_size": self.requested_size,
            "size": self.size,
            "strata": self.strata,
            "allocation": self.allocation,
            "benchmark_version": self.benchmark_version,
            "recorded_at": self.recorded_at,
            "method": self.chosen_by,
            "fallback": self.fallback,
            "irt": None
            if self.model is None
            else {
                "model": self.model.to_dict(),
                "anchor_misfit": self.anchor_misfit,
                "person_reference": self.person_reference,
                "calibration": list(self.calibration),
                "calibration_note": self.calibration_note,
            },
            "cluster": {
                "weights": list(self.weights),
                "lambda_bias": self.lambda_bias,
                "lambda_variance": self.lambda_variance,
            }
            if self.weights
            else None,
            "choice": None if self.choice is None else self.choice.to_dict(),
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> AnchorSample:
        irt = record.get("irt") or {}
        cluster = record.get("cluster") or {}
        ids = tuple(record["ids"])
        weights = tuple(float(w) for w in cluster.get("weights", ()))
        if weights and len(weights) != len(ids):
            raise ValueError("cluster weights do not match the ids")
        return cls(
            ids=ids,
            seed=int(record["seed"]),
            config=SampleConfig.from_dict(record["config"]),
            n_items=int(record["n_items"]),
            requested_size=int(record["requested_size"]),
            strata=dict(record["strata"]),
            allocation=dict(record["allocation"]),
            benchmark_version=record.get("benchmark_version"),
            recorded_at=record.get("recorded_at"),
            method=str(record.get("method") or record["config"]["mode"]),
            fallback=record.get("fallback"),
            model=IrtModel.from_dict(irt["model"]) if irt else None,
            anchor_misfit=float(irt.get("anchor_misfit", 0.0)),
            person_reference=float(irt.get("person_reference", 0.0)),
            calibration=tuple(float(z) for z in irt.get("calibration", ())),
            calibration_note=str(irt.get("calibration_note", "")),
            weights=weights,
            lambda_bias=float(cluster.get("lambda_bias", 0.0)),
            lambda_variance=float(cluster.get("lambda_variance", 0.0)),
            choice=MethodChoice.from_dict(choice) if (choice := record.get("choice")) else None,
        )


def select_sample(
    items: Sequence[Item],
    config: SampleConfig = SampleConfig(),
    seed: int = DEFAULT_SEED,
    benchmark_version: int | None = None,
) -> AnchorSample:
    """Draw a score-blind anchor sample from `items` (in their given order, normally sorted by id)."""
    check_seed(seed)
    if config.mode not in SCORE_BLIND:
        raise _error(f"{config.mode} needs scores: use anchors.choose_anchors", key="mode")
    difficulties = [item.difficulty for item in items]
    plan = plan_sample(difficulties, config)
    indices = plan.draw(np.random.default_rng(seed))
    chosen = [items[int(index)] for index in indices]
    strata: dict[str, int] = {}
    allocation: dict[str, int] = {}
    for name, group in zip(plan.strata, plan.members):
        strata[name] = len(group)
        allocation[name] = 0
    for item in chosen:
        allocation[item.difficulty] += 1
    return AnchorSample(
        ids=tuple(sorted(item.id for item in chosen)),
        seed=seed,
        config=config,
        n_items=len(items),
        requested_size=config.size_for(len(items)),
        strata=strata,
        allocation=allocation,
        benchmark_version=benchmark_version,
        method=config.mode,
    )
