"""`analyze --distance tree` against the Levenshtein analysis of the same 12 SKYT experiments.

    python bench/tree_distance.py [--rounds N] [--pairs N] [--json]

Figures, all in one run:
- the whole command as a user runs it (wall, and the CPU of the command and
  every process it waited for, which a loaded machine disturbs less), `skyt-tui analyze FILES --json` in a
  fresh interpreter with a fresh store, once with `--distance levenshtein` and
  once with `--distance tree`, alternating (the order flips every round) for
  `--rounds` rounds; per round the ratio tree / Levenshtein, and the median of
  the ratios, with the load average before each command. Target: ≤ 1.3×;
- per pair, in this process: the compiled Zhang–Shasha (`_ted.c`) against the
  pure-Python fallback on `--pairs` random pairs of distinct real programs
  (and `zss`/`apted` on a few, when installed), with the distances checked
  identical.
The 12 experiments are the SKYT files at T = 1.0, sorted by name, every third
one (`EXPERIMENTS` below): ten contracts, both recording days.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET = 1.3


def corpus_dir() -> Path:
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"]) / "skyt-msr2026" / "outputs"
    return ROOT.parent / "shared" / "corpus" / "skyt-msr2026" / "outputs"


def experiments(corpus: Path) -> list[Path]:
    """The 12 experiments: SKYT files at T = 1.0, sorted, every third one."""
    return sorted(corpus.glob("*_temp1.0_*.json"))[::3][:12]


EXPERIMENTS = 12


def timed_analyze(files: list[Path], distance: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": home}
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "analyze", *map(str, files), "--json"]
            + ["--distance", distance],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "distance": distance,
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "load_average": load,
        "sha256": hashlib.sha256(result.stdout).hexdigest(),
        "stderr": result.stderr.decode(errors="replace").strip(),
    }


def per_pair(files: list[Path], pairs: int) -> dict:
    from skyt_tui.engine.measure import tree_distance as td

    texts: list[str] = []
    for path in files:
        texts += [o for o in json.loads(path.read_text())["raw_outputs"] if o]
    trees = [t for t in (td.tree_of(x) for x in dict.fromkeys(texts)) if t is not None]
    rng = random.Random(29)
    chosen = [tuple(rng.sample(trees, 2)) for _ in range(pairs)]
    out: dict = {"pairs": len(chosen), "implementation": td.implementation()}
    start = time.perf_counter()
    compiled = [td.tree_edit_distance(a, b) for a, b in chosen]
    out["compiled_ms_per_pair"] = (time.perf_counter() - start) / len(chosen) * 1e3
    start = time.perf_counter()
    python = [td.python_tree_edit_distance(a, b) for a, b in chosen]
    out["python_ms_per_pair"] = (time.perf_counter() - start) / len(chosen) * 1e3
    out["identical"] = compiled == python
    out["speedup"] = out["python_ms_per_pair"] / out["compiled_ms_per_pair"]
    out["mean_nodes"] = statistics.fmean(a.size + b.size for a, b in chosen) / 2
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    files = experiments(corpus_dir())
    if len(files) != EXPERIMENTS:
        print(f"{corpus_dir()}: expected {EXPERIMENTS} experiments at T=1.0", file=sys.stderr)
        return 2
    rounds = []
    for number in range(args.rounds):
        order = ("levenshtein", "tree") if number % 2 == 0 else ("tree", "levenshtein")
        measured = {distance: timed_analyze(files, distance) for distance in order}
        measured["ratio"] = measured["tree"]["wall_s"] / measured["levenshtein"]["wall_s"]
        measured["cpu_ratio"] = measured["tree"]["cpu_s"] / measured["levenshtein"]["cpu_s"]
        rounds.append(measured)
    figures = {
        "experiments": [f.name for f in files],
        "rounds": rounds,
        "median_ratio": statistics.median(r["ratio"] for r in rounds),
        "median_cpu_ratio": statistics.median(r["cpu_ratio"] for r in rounds),
        "median_wall_s": {
            d: statistics.median(r[d]["wall_s"] for r in rounds) for d in ("levenshtein", "tree")
        },
        "tree_output_stable": len({r["tree"]["sha256"] for r in rounds}) == 1,
        "levenshtein_output_stable": len({r["levenshtein"]["sha256"] for r in rounds}) == 1,
        "per_pair": per_pair(files, args.pairs),
        "load_average_at_end": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"analyze on {len(files)} SKYT experiments at T=1.0, whole command, fresh store")
    for number, r in enumerate(rounds, 1):
        print(
            f"  round {number}: levenshtein {r['levenshtein']['wall_s']:.2f} s "
            f"(load {r['levenshtein']['load_average']:.1f}), tree {r['tree']['wall_s']:.2f} s "
            f"(load {r['tree']['load_average']:.1f}): {r['ratio']:.2f}×; CPU "
            f"{r['levenshtein']['cpu_s']:.2f} / {r['tree']['cpu_s']:.2f} s: {r['cpu_ratio']:.2f}×"
        )
    print(
        f"median: levenshtein {figures['median_wall_s']['levenshtein']:.2f} s, "
        f"tree {figures['median_wall_s']['tree']:.2f} s, ratio {figures['median_ratio']:.2f}× "
        f"(target ≤ {TARGET}×: {'met' if figures['median_ratio'] <= TARGET else 'NOT met'})"
    )
    print(
        f"median CPU ratio (the command and every process it waited for): "
        f"{figures['median_cpu_ratio']:.2f}×"
    )
    print(
        f"outputs stable across rounds: tree {figures['tree_output_stable']}, "
        f"levenshtein {figures['levenshtein_output_stable']}"
    )
    notes = {r["tree"]["stderr"] for r in rounds if r["tree"]["stderr"]}
    for note in notes:
        print(f"tree stderr: {note}")
    p = figures["per_pair"]
    print(
        f"per pair ({p['pairs']} random pairs of distinct programs, {p['mean_nodes']:.0f} nodes "
        f"on average; in use: {p['implementation']}): compiled {p['compiled_ms_per_pair']:.3f} ms, "
        f"pure Python {p['python_ms_per_pair']:.2f} ms ({p['speedup']:.0f}×), identical "
        f"{p['identical']}"
    )
    print(f"load average at end: {figures['load_average_at_end']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
