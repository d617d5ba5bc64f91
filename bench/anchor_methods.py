"""Anchor methods side by side on LiveCodeBench 2024-04, and IRT selection + estimation at scale.

    python bench/anchor_methods.py [--splits 100] [--holdout 0.3] [--seed 0] [--json]
    python bench/anchor_methods.py --scale-only [--items 10000] [--systems 100]

Part 1: `compare_methods` (the code `bench validate --method all` runs) on the 45 systems
with a score for every item, 100 random 70/30 splits of the systems (the same splits for
every method). Per method and anchor count k = 4, 10, 25, 50, 100: the share of splits with
Pearson r > 0.9 between the estimated and the true full score of the held-out systems, the
median r, the median (over splits) of the mean absolute error, and the coverage — the share
of (split, held-out system) pairs whose true full score lies inside the 95% interval. Then
the time split (train on systems released before the date, test on the rest) as
`bench validate` reports it.

Part 2: selection and estimation at 10,000 items × 100 systems of synthetic 2PL data:
`choose_anchors(--method irt)` (fit + choice) and `estimate_scores` for 100 new systems
from their anchors, next to the stratified choice, repeated and interleaved, with the load
average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.benchmark.anchors import choose_anchors, estimate_scores  # noqa: E402
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix, load_inputs  # noqa: E402
from skyt_tui.engine.benchmark.sampler import SampleConfig  # noqa: E402
from skyt_tui.engine.benchmark.validation import (  # noqa: E402
    METHODS,
    ValidationConfig,
    compare_methods,
    validate_sample,
)

SIZES = (4, 10, 25, 50, 100)
CORPUS = Path(os.environ.get("SKYT_CORPUS", "/work/shared/corpus"))
LCB = CORPUS / "benchmarks" / "livecodebench-2024-04"


def methods_table(splits: int, holdout: float, seed: int) -> dict:
    data = load_inputs(LCB / "issues.jsonl", LCB / "results.csv", LCB / "systems.jsonl")
    config = ValidationConfig(draws=splits, holdout=holdout, seed=seed)
    started = time.perf_counter()
    results = compare_methods(data.items, data.scores, METHODS, SIZES, config)
    seconds = time.perf_counter() - started
    dates = {system.name: system.release_date for system in data.systems}
    timed = validate_sample(
        data.items,
        data.scores,
        SampleConfig(rate=0.0, floor=25, mode="irt"),
        config,
        METHODS,
        dates,
    )
    split = timed.time_split
    return {
        "splits": splits,
        "holdout": holdout,
        "seed": seed,
        "n_train": results[0].n_train,
        "n_held_out": results[0].n_held_out,
        "seconds": seconds,
        "load_average": os.getloadavg()[0],
        "rows": [
            {
                "method": r.method,
                "k": r.size,
                "share_r_above_0.9": r.share_above,
                "median_r": r.pearson.median,
                "median_mae": r.mae.median,
                "coverage": r.coverage,
            }
            for r in results
        ],
        "time_split": None
        if split is None
        else {
            "date": split.date,
            "train": len(split.train),
            "test": len(split.test),
            "k": 25,
            "rows": [
                {
                    "method": r.method,
                    "r": r.pearson.median,
                    "mae": r.mae.median,
                    "coverage": r.coverage,
                }
                for r in split.results
            ],
        },
    }


def synthetic(
    n_items: int, n_systems: int, system_seed: int = 17
) -> tuple[tuple[Item, ...], ScoreMatrix]:
    """2PL data: discriminations lognormal, difficulties N(0, 1.5) (the same items for every
    `system_seed`), abilities N(0, 1) drawn with `system_seed`, binary scores."""
    items_rng = np.random.default_rng(2026)
    slope = items_rng.lognormal(0.0, 0.3, n_items)
    location = items_rng.normal(0.0, 1.5, n_items)
    rng = np.random.default_rng(system_seed)
    ability = rng.normal(size=n_systems)
    chance = 1.0 / (1.0 + np.exp(-slope * (ability[:, None] - location[None, :])))
    scores = (rng.random((n_systems, n_items)) < chance).astype(np.float64)
    labels = np.where(location < -0.5, "easy", np.where(location < 1.0, "medium", "hard"))
    items = tuple(Item(id=f"item-{i:05d}", difficulty=str(d)) for i, d in enumerate(labels))
    systems = tuple(f"system-{s:03d}" for s in range(n_systems))
    return items, ScoreMatrix(systems, tuple(item.id for item in items), scores)


def scale(n_items: int, n_systems: int, repeats: int) -> dict:
    items, scores = synthetic(n_items, n_systems)
    _, new_scores = synthetic(n_items, n_systems, system_seed=18)
    config = SampleConfig(rate=0.0, floor=100, mode="irt")
    runs: dict[str, list[float]] = {"irt_choose": [], "irt_estimate": [], "stratified_choose": []}
    for _ in range(repeats):  # interleaved, so a busy neighbour hits both
        start = time.perf_counter()
        sample = choose_anchors(items, scores, config)
        runs["irt_choose"].append(time.perf_counter() - start)
        anchors = np.isin(np.array(scores.item_ids), np.array(sample.ids))
        observed = ScoreMatrix(
            tuple(f"new-{s}" for s in new_scores.systems),
            scores.item_ids,
            np.where(anchors[None, :], new_scores.scores, np.nan),
        )
        start = time.perf_counter()
        estimates = estimate_scores(items, sample, observed)
        runs["irt_estimate"].append(time.perf_counter() - start)
        start = time.perf_counter()
        choose_anchors(items, scores, SampleConfig(rate=0.0, floor=100))
        runs["stratified_choose"].append(time.perf_counter() - start)
    truth = new_scores.scores.mean(axis=1)
    got = np.array([e.score for e in estimates])
    inside = np.mean([e.low <= t <= e.high for e, t in zip(estimates, truth)])
    return {
        "items": n_items,
        "systems": n_systems,
        "k": 100,
        "repeats": repeats,
        "iterations": sample.model.iterations if sample.model else None,
        "seconds": {name: sorted(values) for name, values in runs.items()},
        "load_average": os.getloadavg()[0],
        "estimate_r": float(np.corrcoef(got, truth)[0, 1]),
        "estimate_mae": float(np.mean(np.abs(got - truth))),
        "estimate_coverage": float(inside),
    }


def print_table(figures: dict) -> None:
    print(
        f"LiveCodeBench 2024-04: {figures['splits']} random splits, {figures['n_train']} training / "
        f"{figures['n_held_out']} held-out systems, seed {figures['seed']} "
        f"({figures['seconds']:.1f} s, load average {figures['load_average']:.1f})"
    )
    print(
        f"  {'k':>4}  {'method':<11} {'r>0.9':>7} {'median r':>9} {'median MAE':>11} {'coverage':>9}"
    )
    for k in SIZES:
        for row in (r for r in figures["rows"] if r["k"] == k or (r["k"] >= k and r["k"] < k + 3)):
            if row["k"] != k and row["method"] != "stratified":
                continue
            print(
                f"  {row['k']:>4}  {row['method']:<11} {row['share_r_above_0.9']:>7.0%} "
                f"{row['median_r']:>9.3f} {row['median_mae']:>11.4f} {row['coverage']:>9.1%}"
            )
    split = figures["time_split"]
    if split:
        print(
            f"time split at {split['date']}: {split['train']} systems released before, "
            f"{split['test']} on or after; k = {split['k']}"
        )
        for row in split["rows"]:
            print(
                f"        {row['method']:<11} r {row['r']:.3f}, MAE {row['mae']:.4f}, "
                f"coverage {row['coverage']:.1%}"
            )


def print_scale(figures: dict) -> None:
    seconds = figures["seconds"]
    median = {name: values[len(values) // 2] for name, values in seconds.items()}
    print(
        f"{figures['items']:,} items × {figures['systems']} systems, k = {figures['k']}, "
        f"{figures['repeats']} repeats (median; load average {figures['load_average']:.1f}):"
    )
    print(
        f"  irt choose (fit, {figures['iterations']} EM iterations, + choice) {median['irt_choose']:.2f} s"
        f"   stratified choose {median['stratified_choose']:.3f} s"
        f"   ratio {median['irt_choose'] / median['stratified_choose']:.0f}×"
    )
    print(
        f"  estimate 100 new systems from their anchors {median['irt_estimate']:.2f} s "
        f"(r {figures['estimate_r']:.3f}, MAE {figures['estimate_mae']:.4f}, "
        f"coverage {figures['estimate_coverage']:.0%})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=100)
    parser.add_argument("--holdout", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale-only", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures: dict = {}
    if not args.scale_only:
        if not LCB.is_dir():
            print(f"corpus not available: {LCB}", file=sys.stderr)
            return 2
        figures["methods"] = methods_table(args.splits, args.holdout, args.seed)
    figures["scale"] = scale(args.items, args.systems, args.repeats)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    if "methods" in figures:
        print_table(figures["methods"])
        print()
    print_scale(figures["scale"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
