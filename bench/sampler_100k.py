"""The benchmark sampler at 100,000 synthetic items: sample, validate (200 draws × 50 systems), fingerprint.

    python bench/sampler_100k.py [--items 100000] [--systems 50] [--draws 200] [--json]

Items get a difficulty (60% easy, 30% medium, 10% hard), a title and a body;
each system's score on an item is its skill minus the item's difficulty plus
noise, clipped to [0, 1]. Timed in the engine (`select_sample`,
`validate_sample`, `fingerprints`), each in seconds, next to two baselines in
the same run: the same engine at a tenth of the items, and the seed's naive
approach in plain Python (per-stratum `random.sample`, per-draw loops over
systems and items, Pearson by hand).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.benchmark.fingerprints import fingerprints  # noqa: E402
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix  # noqa: E402
from skyt_tui.engine.benchmark.sampler import SampleConfig, select_sample  # noqa: E402
from skyt_tui.engine.benchmark.validation import ValidationConfig, validate_sample  # noqa: E402

WORDS = (
    "parse",
    "cache",
    "index",
    "merge",
    "thread",
    "socket",
    "buffer",
    "token",
    "config",
    "schema",
    "retry",
    "timeout",
    "encode",
    "render",
    "widget",
    "commit",
    "branch",
    "patch",
    "query",
    "stream",
)
DIFFICULTY_LEVEL = {"easy": 0.2, "medium": 0.5, "hard": 0.8}


def synthetic(
    n_items: int, n_systems: int, seed: int = 20260119
) -> tuple[tuple[Item, ...], ScoreMatrix]:
    rng = np.random.default_rng(seed)
    difficulties = rng.choice(["easy", "medium", "hard"], size=n_items, p=[0.6, 0.3, 0.1])
    words = rng.integers(0, len(WORDS), size=(n_items, 24))
    items = tuple(
        Item(
            id=f"item-{index:06d}",
            difficulty=str(difficulty),
            title=f"{WORDS[row[0]]} {WORDS[row[1]]} fails",
            body=" ".join(WORDS[w] for w in row),
            solution=f"fix {WORDS[row[2]]}",
            created_at=f"2024-{1 + index % 12:02d}-{1 + index % 28:02d}",
        )
        for index, (difficulty, row) in enumerate(zip(difficulties, words))
    )
    skill = np.sort(rng.uniform(0.3, 1.0, size=n_systems))
    level = np.array([DIFFICULTY_LEVEL[d] for d in difficulties])
    scores = np.clip(
        skill[:, None] - level[None, :] + rng.normal(0, 0.25, size=(n_systems, n_items)) + 0.3, 0, 1
    )
    systems = tuple(f"system-{index:02d}" for index in range(n_systems))
    return items, ScoreMatrix(
        systems=systems, item_ids=tuple(item.id for item in items), scores=scores
    )


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def engine(items, scores, draws: int) -> dict:
    sample, sample_s = timed(select_sample, items, SampleConfig())
    report, validate_s = timed(
        validate_sample, items, scores, SampleConfig(), ValidationConfig(draws=draws)
    )
    prints, fingerprint_s = timed(fingerprints, items, {})
    assert len(prints) == len(items)
    return {
        "items": len(items),
        "sample_size": len(sample.ids),
        "sample_s": sample_s,
        "validate_s": validate_s,
        "fingerprint_s": fingerprint_s,
        "share_above": report.share_above,
    }


def pearson(xs: list[float], ys: list[float]) -> float:
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    var_x = sum((x - mean_x) ** 2 for x in xs)
    var_y = sum((y - mean_y) ** 2 for y in ys)
    return cov / math.sqrt(var_x * var_y) if var_x and var_y else float("nan")


def naive(items, scores, draws: int, seed: int = 20260119) -> dict:
    """The seed's approach in plain Python: stratify by difficulty, random.sample per stratum, loop per draw."""
    rng = random.Random(seed)
    rows = scores.scores.tolist()

    def sample_ids() -> list[int]:
        strata: dict[str, list[int]] = {}
        for index, item in enumerate(items):
            strata.setdefault(item.difficulty, []).append(index)
        size = SampleConfig().size_for(len(items))
        chosen = []
        for members in strata.values():
            count = max(1, math.ceil(len(members) * size / len(items)))
            chosen.extend(rng.sample(members, count))
        return chosen

    chosen, sample_s = timed(sample_ids)

    def validate() -> float:
        full = [sum(row) / len(row) for row in rows]
        above = 0
        for _ in range(draws):
            held = rng.sample(range(len(rows)), len(rows) // 2)
            subset = sample_ids()
            anchor = [sum(rows[system][i] for i in subset) / len(subset) for system in held]
            above += pearson(anchor, [full[system] for system in held]) > 0.9
        return above / draws

    share, validate_s = timed(validate)
    return {
        "items": len(items),
        "sample_size": len(chosen),
        "sample_s": sample_s,
        "validate_s": validate_s,
        "share_above": share,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    (items, scores), build_s = timed(synthetic, args.items, args.systems)
    small_items, small_scores = synthetic(args.items // 10, args.systems)
    figures = {
        "load_average_at_start": os.getloadavg()[0],
        "systems": args.systems,
        "draws": args.draws,
        "build_s": build_s,
        "engine": engine(items, scores, args.draws),
        "engine_tenth": engine(small_items, small_scores, args.draws),
        "naive": naive(items, scores, args.draws),
    }
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    big, tenth, plain = figures["engine"], figures["engine_tenth"], figures["naive"]
    print(
        f"benchmark sampler, {big['items']:,} synthetic items (built in {build_s:.1f} s), {args.systems} systems, "
        f"{args.draws} draws, load average {figures['load_average_at_start']:.1f}:"
    )
    print(f"  {'':<44} {'sample':>9} {'validate':>10} {'fingerprint':>12}")
    print(
        f"  {'engine, ' + format(big['items'], ',') + ' items':<44} {big['sample_s']:>7.3f} s {big['validate_s']:>8.3f} s "
        f"{big['fingerprint_s']:>10.3f} s   (sample of {big['sample_size']}, r>0.9 in {big['share_above']:.0%} of draws)"
    )
    print(
        f"  {'engine, ' + format(tenth['items'], ',') + ' items (baseline)':<44} {tenth['sample_s']:>7.3f} s "
        f"{tenth['validate_s']:>8.3f} s {tenth['fingerprint_s']:>10.3f} s"
    )
    print(
        f"  {'naive plain Python (seed), ' + format(plain['items'], ',') + ' items':<44} {plain['sample_s']:>7.3f} s "
        f"{plain['validate_s']:>8.3f} s {'-':>12}   -> engine validate {plain['validate_s'] / big['validate_s']:.0f}x faster"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
