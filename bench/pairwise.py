"""Pairwise distance matrices of real samples: rapidfuzz cdist (all cores, one core) vs pure Python.

    python bench/pairwise.py [--corpus DIR] [--sizes 100,500,1000] [--python-pairs 150] [--json]

The texts are the `nodoc` normalization of the first N human-eval programs
(prompt + CodeGen completion, 100 per task, in file order), as the app
measures them. For each N:
- `pairwise_matrix(texts)` (rapidfuzz `cdist`, all cores) and the same with
  `workers=1`, timed whole;
- a pure-Python Levenshtein (two-row dynamic programme) on a fixed random
  subset of the N·(N−1)/2 pairs, extrapolated to all of them and labelled so;
  its distances are checked against rapidfuzz's on that subset.
Also the heatmap widget's full repaint at N=200 (bench/heatmap_render.py;
target: under 50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from skyt_tui.engine.measure.distance import pairwise_matrix  # noqa: E402
from skyt_tui.engine.measure.normalize import normalize  # noqa: E402
from skyt_tui.engine.sources import humaneval  # noqa: E402

HEATMAP_TARGET_MS = 50.0


def default_corpus() -> Path:
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"]) / "humaneval-codegen16b"
    shared = Path("/work/shared/corpus")
    if not shared.is_dir():
        shared = ROOT.parent / "shared" / "corpus"
    return shared / "humaneval-codegen16b"


def load_texts(corpus: Path, n: int) -> list[str]:
    problems, completions = humaneval.load_dir(corpus)
    texts = []
    for completion in completions[:n]:
        problem = problems[completion.task_id]
        program = humaneval.assemble_program(problem, completion.completion)
        texts.append(normalize(program, {problem.entry_point}).texts["nodoc"])
    return texts


def levenshtein_python(a: str, b: str) -> float:
    """Normalized Levenshtein distance, the textbook two-row dynamic programme."""
    if not a and not b:
        return 0.0
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1] / max(len(a), len(b))


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def measure(texts: list[str], python_pairs: int, seed: int = 20260119) -> dict:
    n = len(texts)
    matrix, all_cores = timed(pairwise_matrix, texts)
    single, one_core = timed(pairwise_matrix, texts, workers=1)
    assert np.array_equal(matrix, single), "cdist results differ between worker counts"
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    subset = random.Random(seed).sample(pairs, min(python_pairs, len(pairs)))
    start = time.perf_counter()
    python_values = [levenshtein_python(texts[i], texts[j]) for i, j in subset]
    per_pair = (time.perf_counter() - start) / len(subset)
    worst = max(abs(value - matrix[i, j]) for value, (i, j) in zip(python_values, subset))
    assert worst < 1e-12, f"pure-Python distance differs from rapidfuzz by {worst}"
    python_all = per_pair * len(pairs)
    return {
        "n": n,
        "pairs": len(pairs),
        "mean_chars": statistics.fmean(len(t) for t in texts),
        "cdist_all_cores_s": all_cores,
        "cdist_one_core_s": one_core,
        "python_pairs_timed": len(subset),
        "python_per_pair_s": per_pair,
        "python_all_extrapolated_s": python_all,
        "speedup_all_cores_vs_python": python_all / all_cores,
        "speedup_all_vs_one_core": one_core / all_cores,
    }


def heatmap(n: int = 200, repeat: int = 20) -> dict:
    from heatmap_render import measure as render_measure
    from heatmap_render import p90

    results = asyncio.run(render_measure(n, repeat))
    return {
        name: {"median_ms": statistics.median(times), "p90_ms": p90(times), "max_ms": max(times)}
        for name, times in results.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--sizes", default="100,500,1000")
    parser.add_argument(
        "--python-pairs", type=int, default=150, help="pairs timed in pure Python per size"
    )
    parser.add_argument("--no-heatmap", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.corpus / "problems.jsonl").is_file():
        print(f"corpus not found: {args.corpus} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    sizes = [int(size) for size in args.sizes.split(",")]
    texts = load_texts(args.corpus, max(sizes))
    figures = {
        "cores": os.cpu_count(),
        "load_average_at_start": os.getloadavg()[0],
        "sizes": [measure(texts[:size], args.python_pairs) for size in sizes],
    }
    if not args.no_heatmap:
        figures["heatmap_n200"] = heatmap()
        figures["heatmap_target_ms"] = HEATMAP_TARGET_MS
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    print(
        f"pairwise distance matrices of human-eval samples (nodoc), {figures['cores']} cores, "
        f"load average {figures['load_average_at_start']:.1f}:"
    )
    print(
        f"  {'N':>5} {'pairs':>8} {'chars':>6} {'cdist all cores':>16} {'cdist 1 core':>13} "
        f"{'pure Python (extrapolated)':>27} {'speed-up':>9}"
    )
    for row in figures["sizes"]:
        print(
            f"  {row['n']:>5} {row['pairs']:>8} {row['mean_chars']:>6.0f} {row['cdist_all_cores_s']:>14.3f} s "
            f"{row['cdist_one_core_s']:>11.3f} s {row['python_all_extrapolated_s']:>17.0f} s "
            f"({row['python_pairs_timed']} pairs) {row['speedup_all_cores_vs_python']:>8.0f}x"
        )
    if "heatmap_n200" in figures:
        cold = figures["heatmap_n200"]["cold"]
        verdict = "met" if cold["p90_ms"] < HEATMAP_TARGET_MS else "NOT met"
        print(
            f"heatmap full repaint N=200: cold median {cold['median_ms']:.1f} ms, p90 {cold['p90_ms']:.1f} ms "
            f"(target under {HEATMAP_TARGET_MS:.0f} ms: {verdict}); cursor move median "
            f"{figures['heatmap_n200']['cursor move']['median_ms']:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
