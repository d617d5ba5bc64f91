"""Anchor methods side by side on LiveCodeBench 2024-04 — for newer systems too — and IRT selection
+ estimation at scale.

    python bench/anchor_methods.py [--splits 100] [--draws 100] [--holdout 0.3] [--seed 0] [--json]
    python bench/anchor_methods.py --newer-only [--markdown | --write-docs]
    python bench/anchor_methods.py --sweep-only
    python bench/anchor_methods.py --scale-only [--items 10000] [--systems 100]

Part 1, newer systems (k = 25): median MAE (over the draws) and interval coverage (share of
(draw, held-out system) pairs whose full score lies in the 95% interval) on `--splits` random
70/30 splits of the 45 systems, and on the time splits that train on the systems released
before 2023-08-30 (32, testing the 13 later ones) and before 2023-04-30 (24 / 21), `--draws`
draws each (irt is deterministic there; the others redraw their anchors). Rows: skyt-tui's
methods as `bench validate` runs them (`validation.validate_on_splits`, the model-based ones
calibrated on each split's later training systems as `bench sample` does), `auto` — per split,
the method `bench sample --method auto` chooses from the training systems alone, and that
method's estimates — and tinyBenchmarks' p-IRT and gp-IRT (Polo et al. 2024, our
implementation in `tinybenchmarks.py`) on the same clustered anchors as cluster in the same
draws (gp-IRT's estimate is cluster's by construction; tinyBenchmarks gives no interval).

Part 2: `compare_methods` (the code `bench validate --method all` runs) on the same random splits
at k = 4, 10, 25, 50, 100: share of splits with Pearson r > 0.9, median r, median MAE, coverage.

Part 3: selection and estimation at 10,000 items × 100 systems of synthetic 2PL data:
`choose_anchors(--method irt)` (fit + choice) and `estimate_scores` for 100 new systems
from their anchors, next to the stratified choice, repeated and interleaved, with the load
average.

`--write-docs` replaces the Part 1 table (with `--sweep-only`, the Part 2 table) in
docs/benchmark.md, between its markers; tests/test_bench_newer.py checks the Part 1 table
there against this script's output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.benchmark import tinybenchmarks  # noqa: E402
from skyt_tui.engine.benchmark.anchors import choose_anchors, estimate_scores  # noqa: E402
from skyt_tui.engine.benchmark.choice import choose_method  # noqa: E402
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix, load_inputs  # noqa: E402
from skyt_tui.engine.benchmark.sampler import SampleConfig  # noqa: E402
from skyt_tui.engine.benchmark.validation import (  # noqa: E402
    METHODS,
    Observed,
    ValidationConfig,
    _random_splits,
    compare_methods,
    complete_systems,
    held_out_count,
    time_split_systems,
    validate_on_splits,
)

SIZES = (4, 10, 25, 50, 100)
K = 25
TIME_SPLITS = ("2023-08-30", "2023-04-30")
CORPUS = Path(os.environ.get("SKYT_CORPUS", ROOT.parent / "shared" / "corpus"))
LCB = CORPUS / "benchmarks" / "livecodebench-2024-04"
DOCS = ROOT / "docs" / "benchmark.md"
DOCS_START = "<!-- bench/anchor_methods.py --newer-only --markdown: start -->"
DOCS_END = "<!-- bench/anchor_methods.py: end -->"
SWEEP_START = "<!-- bench/anchor_methods.py --sweep-only --markdown: start -->"
SWEEP_END = "<!-- bench/anchor_methods.py --sweep-only: end -->"
ROWS = (
    ("auto", "skyt-tui auto (the default): the method auto picks on the training systems"),
    ("irt", "skyt-tui irt: information-chosen anchors, p-IRT-EAP"),
    ("cluster", "skyt-tui cluster: clustered anchors, gp-IRT, skyt-tui's interval"),
    ("stratified", "skyt-tui stratified: design estimate"),
    ("random", "skyt-tui random: design estimate"),
    ("tb-p-irt", "tinyBenchmarks p-IRT on the clustered anchors"),
    ("tb-gp-irt", "tinyBenchmarks gp-IRT on the clustered anchors"),
)


def load() -> tuple[tuple[Item, ...], ScoreMatrix, dict[str, str | None]]:
    data = load_inputs(LCB / "issues.jsonl", LCB / "results.csv", LCB / "systems.jsonl")
    assert data.scores is not None
    return data.items, data.scores, {s.name: s.release_date for s in data.systems}


def evaluate_splits(
    items: Sequence[Item],
    scores: ScoreMatrix,
    dates: dict[str, str | None],
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    seed: int,
    k: int = K,
    names: Sequence[str] = tuple(name for name, _ in ROWS),
) -> dict[str, dict[str, float | None]]:
    """Median MAE and coverage per row of ROWS (those in `names`) over `splits` (see the
    module docstring)."""
    used = complete_systems(items, scores)
    truth = scores.scores[[scores.systems.index(name) for name in used]].mean(axis=1)
    per_draw: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}

    def observe(seen: Observed) -> None:
        per_draw.setdefault(seen.method, []).append((seen.held, seen.score, seen.low, seen.high))
        if seen.method != "cluster" or seen.chosen is None:
            return
        chosen = seen.chosen
        assert chosen.weights is not None and chosen.parts is not None
        matrix = scores.scores[[scores.systems.index(used[i]) for i in seen.held]]
        observed = np.full_like(matrix, np.nan)
        observed[:, chosen.anchors] = matrix[:, chosen.anchors]
        pirt = tinybenchmarks.p_irt(chosen.model, observed)
        weight = chosen.parts.weight(len(chosen.anchors))
        gp = tinybenchmarks.gp_irt(chosen.model, observed, chosen.anchors, chosen.weights, weight)
        per_draw.setdefault("tb-p-irt", []).append((seen.held, pirt, None, None))
        per_draw.setdefault("tb-gp-irt", []).append((seen.held, gp, None, None))

    config = ValidationConfig(draws=len(splits), seed=seed)
    wanted = set(names) | ({"cluster"} if {"tb-p-irt", "tb-gp-irt"} & set(names) else set())
    picks = auto_picks(items, scores, dates, used, splits, seed, k) if "auto" in names else []
    wanted |= set(picks)
    methods = [method for method in METHODS if method in wanted]
    validate_on_splits(items, scores, methods, [k], splits, config, dates, observe)
    if picks:
        per_draw["auto"] = [per_draw[picks[draw]][draw] for draw in range(len(splits))]
    figures: dict[str, dict[str, float | None]] = {}
    for name in names:
        rows = per_draw[name]
        errors = [float(np.mean(np.abs(score - truth[held]))) for held, score, _, _ in rows]
        coverage = None
        if rows[0][2] is not None:
            inside = [
                (low <= truth[held] + 1e-12) & (truth[held] <= high + 1e-12)
                for held, _, low, high in rows
            ]
            coverage = float(np.mean(np.concatenate(inside)))
        figures[name] = {"mae": float(np.median(errors)), "coverage": coverage}
    if picks:
        counts = {method: sum(1 for pick in picks if pick == method) for method in METHODS}
        figures["auto"]["picks"] = {m: c for m, c in counts.items() if c}  # type: ignore[assignment]
    return figures


def auto_picks(
    items: Sequence[Item],
    scores: ScoreMatrix,
    dates: dict[str, str | None],
    used: Sequence[str],
    splits: Sequence[tuple[np.ndarray, np.ndarray]],
    seed: int,
    k: int,
) -> list[str]:
    """Per split, the method `bench sample --method auto` chooses seeing the training systems only."""
    picks: dict[tuple[int, ...], str] = {}
    out = []
    for train, _ in splits:
        key = tuple(int(i) for i in train)
        if key not in picks:
            names = [used[i] for i in train]
            rows = [scores.systems.index(name) for name in names]
            training = ScoreMatrix(tuple(names), scores.item_ids, scores.scores[rows])
            sample = choose_method(
                items,
                training,
                SampleConfig(rate=0.0, floor=k, mode="auto"),
                seed,
                release_dates={name: dates.get(name) for name in names},
            )
            picks[key] = sample.chosen_by
        out.append(picks[key])
    return out


def newer_systems(splits: int, draws: int, holdout: float, seed: int) -> dict:
    items, scores, dates = load()
    used = complete_systems(items, scores)
    started = time.perf_counter()
    random = _random_splits(len(used), held_out_count(len(used), holdout), splits, seed)
    figures = {
        "k": K,
        "seed": seed,
        "random": {
            "splits": splits,
            "n_train": len(random[0][0]),
            "n_test": len(random[0][1]),
            "rows": evaluate_splits(items, scores, dates, random, seed),
        },
    }
    for date in TIME_SPLITS:
        found, note, _ = time_split_systems(used, dates, date, holdout)
        assert found is not None, note
        train, test, _ = found
        figures[date] = {
            "draws": draws,
            "n_train": len(train),
            "n_test": len(test),
            "rows": evaluate_splits(items, scores, dates, [(train, test)] * draws, seed),
        }
    figures["seconds"] = time.perf_counter() - started
    figures["load_average"] = os.getloadavg()[0]
    return figures


def methods_table(splits: int, holdout: float, seed: int) -> dict:
    items, scores, _ = load()
    config = ValidationConfig(draws=splits, holdout=holdout, seed=seed)
    started = time.perf_counter()
    results = compare_methods(items, scores, METHODS, SIZES, config)
    return {
        "splits": splits,
        "holdout": holdout,
        "seed": seed,
        "n_train": results[0].n_train,
        "n_held_out": results[0].n_held_out,
        "seconds": time.perf_counter() - started,
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
        choose_anchors(items, scores, SampleConfig(rate=0.0, floor=100, mode="stratified"))
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


def _cover(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def newer_markdown(figures: dict) -> str:
    """The Part 1 table as docs/benchmark.md shows it."""
    random = figures["random"]
    head = (
        f"| method (k = {figures['k']}) | random splits: MAE | cover "
        + "".join(f"| before {date}: MAE | cover " for date in TIME_SPLITS)
        + "|"
    )
    lines = [head, "|---" * (3 + 2 * len(TIME_SPLITS)) + "|"]
    for name, label in ROWS:
        cells = [label]
        for part in (random, *(figures[date] for date in TIME_SPLITS)):
            row = part["rows"][name]
            cells += [f"{row['mae']:.4f}", _cover(row["coverage"])]
        lines.append("| " + " | ".join(cells) + " |")
    picks = [
        f"{where}: " + ", ".join(f"{m} {c}×" for m, c in part["rows"]["auto"]["picks"].items())
        for where, part in (
            ("random splits", random),
            *((f"before {date}", figures[date]) for date in TIME_SPLITS),
        )
    ]
    lines += [
        "",
        f"Random: {random['splits']} splits, {random['n_train']} training / {random['n_test']} "
        f"held-out systems; time splits: "
        + ", ".join(
            f"{figures[date]['n_train']} / {figures[date]['n_test']} ({date}, "
            f"{figures[date]['draws']} draws)"
            for date in TIME_SPLITS
        )
        + f"; seed {figures['seed']}. auto picked {'; '.join(picks)}.",
    ]
    return "\n".join(lines) + "\n"


def sweep_markdown(figures: dict) -> str:
    """The Part 2 table as docs/benchmark.md shows it."""
    lines = [
        "| k | method | r > 0.9 | median r | median MAE | coverage (95% interval) |",
        "|---|---|---|---|---|---|",
    ]
    for row in sorted(figures["rows"], key=lambda r: (r["k"], METHODS.index(r["method"]))):
        lines.append(
            f"| {row['k']} | {row['method']} | {row['share_r_above_0.9']:.0%} | "
            f"{row['median_r']:.3f} | {row['median_mae']:.4f} | {row['coverage']:.1%} |"
        )
    return "\n".join(lines) + "\n"


def write_docs(
    markdown: str, path: Path = DOCS, start_mark: str = DOCS_START, end_mark: str = DOCS_END
) -> None:
    text = path.read_text()
    start, end = text.index(start_mark) + len(start_mark), text.index(end_mark)
    path.write_text(text[:start] + "\n" + markdown + text[end:])


def docs_block(path: Path = DOCS) -> str:
    text = path.read_text()
    return text[text.index(DOCS_START) + len(DOCS_START) : text.index(DOCS_END)].lstrip("\n")


def print_newer(figures: dict) -> None:
    print(
        f"LiveCodeBench 2024-04, k = {figures['k']}: median MAE and 95% interval coverage "
        f"({figures['seconds']:.0f} s, load average {figures['load_average']:.1f})"
    )
    print(newer_markdown(figures))


def print_table(figures: dict) -> None:
    print(
        f"LiveCodeBench 2024-04: {figures['splits']} random splits, {figures['n_train']} training / "
        f"{figures['n_held_out']} held-out systems, seed {figures['seed']} "
        f"({figures['seconds']:.1f} s, load average {figures['load_average']:.1f})"
    )
    print(
        f"  {'k':>4}  {'method':<11} {'r>0.9':>7} {'median r':>9} {'median MAE':>11} {'coverage':>9}"
    )
    for row in sorted(figures["rows"], key=lambda r: (r["k"], METHODS.index(r["method"]))):
        print(
            f"  {row['k']:>4}  {row['method']:<11} {row['share_r_above_0.9']:>7.0%} "
            f"{row['median_r']:>9.3f} {row['median_mae']:>11.4f} {row['coverage']:>9.1%}"
        )


def print_scale(figures: dict) -> None:
    seconds = figures["seconds"]
    median = {name: values[len(values) // 2] for name, values in seconds.items()}
    print(
        f"{figures['items']:,} items × {figures['systems']} systems, k = {figures['k']}, "
        f"{figures['repeats']} repeats (median; load average {figures['load_average']:.1f}):"
    )
    print(
        f"  irt choose (fit, {figures['iterations']} iterations, + choice) {median['irt_choose']:.2f} s"
        f"   stratified choose {median['stratified_choose']:.3f} s"
        f"   ratio {median['irt_choose'] / median['stratified_choose']:.0f}×"
    )
    print(
        f"  estimate 100 new systems from their anchors {median['irt_estimate']:.2f} s "
        f"(r {figures['estimate_r']:.3f}, MAE {figures['estimate_mae']:.4f}, "
        f"coverage {figures['estimate_coverage']:.0%})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--splits", type=int, default=100)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--holdout", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale-only", action="store_true")
    parser.add_argument("--newer-only", action="store_true")
    parser.add_argument("--sweep-only", action="store_true", help="Part 2 and Part 3 only")
    parser.add_argument(
        "--markdown", action="store_true", help="Part 1 (or 2, --sweep-only) as a markdown table"
    )
    parser.add_argument(
        "--write-docs", action="store_true", help="that table into docs/benchmark.md"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures: dict = {}
    if not args.scale_only and not args.sweep_only:
        if not LCB.is_dir():
            print(f"corpus not available: {LCB}", file=sys.stderr)
            return 2
        figures["newer"] = newer_systems(args.splits, args.draws, args.holdout, args.seed)
        if args.markdown or args.write_docs:
            markdown = newer_markdown(figures["newer"])
            if args.write_docs:
                write_docs(markdown)
            print(markdown, end="")
            return 0
    if not args.scale_only and not args.newer_only:
        figures["methods"] = methods_table(args.splits, args.holdout, args.seed)
        if args.sweep_only and (args.markdown or args.write_docs):
            markdown = sweep_markdown(figures["methods"])
            if args.write_docs:
                write_docs(markdown, start_mark=SWEEP_START, end_mark=SWEEP_END)
            print(markdown, end="")
            return 0
    if not args.newer_only:
        figures["scale"] = scale(args.items, args.systems, args.repeats)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    if "newer" in figures:
        print_newer(figures["newer"])
    if "methods" in figures:
        print_table(figures["methods"])
        print()
    if "scale" in figures:
        print_scale(figures["scale"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
