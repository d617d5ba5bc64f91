"""End-to-end analysis of the SKYT corpus (4,505 samples): wall time, samples/s, stage breakdown.

    python bench/analyze_e2e.py [--corpus DIR] [--baseline-ref REF | --no-baseline] [--rounds N] [--json]

Figures, all in one run:
- `skyt-tui analyze CORPUS --json --samples` as a user runs it (a fresh
  interpreter; oracle, canon, repair, metrics, every sample sandboxed), and the
  same with `--no-repair`;
- the stage breakdown of the full pipeline, measured in-process (load,
  normalize, oracle, canon, repair, re-check of repaired programs, metrics);
- baseline: the same command from the code before the fast paths (git
  `--baseline-ref`, default the commit this branch started from), unpacked
  with `git archive` into a temporary directory. Its JSON must be
  byte-identical to the new one: the fast paths may not change a result.
  With `--rounds N` the two commands alternate N times (new, baseline, new,
  ...) and the median walls are compared: the machine's load moves between
  rounds, so one run each says little.
Target: under 20 s wall for the full command.

    python bench/analyze_e2e.py --vs-skyt SKYT_DIR [--experiments 60] [--rounds 3]

compares skyt-tui with SKYT's own pipeline (HeitorRoriz/skyt_experiment, a checkout at SKYT_DIR
holding its `src/`, with its requirements installed: numpy, scipy, matplotlib, seaborn, astor,
openai; installed beside skyt-tui, never in this repository) on the same experiment files, the
`--experiments` of the corpus's 240 taken at even steps in name order (60: every 4th), in one
run, interleaved `--rounds` times, each side a fresh interpreter:
- skyt-tui: `skyt-tui analyze FILES --json --samples` as a user runs it;
- SKYT: its `ComprehensiveExperiment.run_full_experiment` on each file, in process, as its
  sweeps call it, from its contract templates (the corpus's `templates.json`), with the
  recorded answers in place of the model (`raw_outputs`, in order), each experiment in a fresh
  output folder (its canon fixed by that experiment, as skyt-tui's per run), its printing to
  an in-memory buffer and its bell-curve plots off. It checks the oracle, builds the canon,
  transforms every sample towards it and computes its metrics; its own figures are checked
  against the file's (R_raw must match), so the replay is the recorded run.
- skyt-tui without repair: the same command with `--no-repair`, as a third side of each round:
  what the command costs besides the repair stage, so the stage's share of the wall is read
  from the same rounds.
Prints each side's wall (whole command; SKYT's pipeline alone too), CPU (every process it
waited for), the ratio per round and its median, with the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

BASELINE_REF = "8edae0c"
"""main before issue #8's fast paths (analyze took 55-72 s on this machine)."""
TARGET_S = 20.0


def default_corpus() -> Path:
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"]) / "skyt-msr2026" / "outputs"
    shared = Path("/work/shared/corpus")
    if not shared.is_dir():
        shared = ROOT.parent / "shared" / "corpus"
    return shared / "skyt-msr2026" / "outputs"


def timed_cli(code_root: Path, corpus: Path, *extra: str) -> dict:
    """Run the analyze command from `code_root` in a fresh interpreter; wall time and a digest of its JSON."""
    with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
        env = {**os.environ, "PYTHONPATH": str(code_root), "SKYT_HOME": home}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "analyze", str(corpus), "--json", *extra],
            cwd=code_root,
            env=env,
            capture_output=True,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(result.stdout)
    samples = sum(len(run.get("samples", [])) or run["n"] for run in report["runs"])
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "samples": samples,
        "samples_per_s": samples / wall,
        "runs": len(report["runs"]),
        "sha256": hashlib.sha256(result.stdout).hexdigest(),
    }


def stage_breakdown(corpus: Path) -> dict:
    """The pipeline in this process, timed per stage through its progress callback and a few wrappers."""
    from skyt_tui.engine.analysis import pipeline as analysis
    from skyt_tui.engine.sources.recorded import load_sources

    marks: dict[str, list[float]] = {}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        marks.setdefault(stage, [now, now])[1] = now

    spans: dict[str, float] = {}

    def timing(name, function):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spans[name] = spans.get(name, 0.0) + time.perf_counter() - start

        return wrapper

    originals = {name: getattr(analysis, name) for name in ("_prepare", "_canon_for", "_finish")}
    for name, function in originals.items():
        setattr(analysis, name, timing(name, function))
    try:
        with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
            os.environ["SKYT_HOME"] = home
            start = time.perf_counter()
            runs = load_sources([corpus])
            loaded = time.perf_counter()
            results = analysis.analyze_runs(runs, progress=progress)
            done = time.perf_counter()
    finally:
        for name, function in originals.items():
            setattr(analysis, name, function)
    oracle = marks["oracle"][1] - marks["oracle"][0]
    repair = marks["repair"][1] - marks["repair"][0]
    stages = {
        "load sources": loaded - start,
        "normalize + signatures": spans["_prepare"],
        "oracle (sandboxed, warm pool)": oracle,
        "canon": spans["_canon_for"],
        "repair (search + verifier)": repair,
        "metrics (d_pre/d_post, pairwise, bootstrap)": spans["_finish"],
    }
    stages["other (oracle pool start, re-check of repaired programs)"] = (done - start) - sum(
        stages.values()
    )
    samples = sum(len(r.samples) for r in results)
    repaired = sum(1 for r in results for d in r.details if d.repair is not None and d.repair.steps)
    return {
        "total_s": done - start,
        "stages": stages,
        "samples": samples,
        "repaired_samples": repaired,
        "repair_tasks": len(
            {(d.code, r.canon.code) for r in results for d in r.details if d.repair is not None}
        ),
    }


def experiment_files(corpus: Path, count: int) -> list[Path]:
    """`count` experiment files at even steps through the corpus's files in name order."""
    files = sorted(corpus.glob("*.json"))
    step = max(1, len(files) // max(1, count))
    return files[::step][:count]


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, bytes]:
    """Wall and CPU (the command and every process it waited for) of one command, its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        raise SystemExit(f"{command[:4]} failed: {' / '.join(tail)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def skyt_pipeline(skyt_dir: Path, files: list[Path], templates: Path) -> dict:
    """SKYT's own pipeline on recorded experiments, in this process (run by `--measure-skyt`)."""
    import contextlib
    import io

    started = time.perf_counter()
    sys.path.insert(0, str(skyt_dir))
    from src import comprehensive_experiment as ce  # type: ignore[import-not-found]
    from src.canon_system import CanonSystem  # type: ignore[import-not-found]
    from src.code_transformer import CodeTransformer  # type: ignore[import-not-found]
    from src.metrics import ComprehensiveMetrics  # type: ignore[import-not-found]
    from src.oracle_system import OracleSystem  # type: ignore[import-not-found]

    class Replay:
        """The model: the experiment's recorded answers, in order."""

        def __init__(self, outputs: list[str], model: str | None) -> None:
            self.outputs = list(outputs)
            self.model = model or "unrecorded"

        def generate_code(self, prompt: str, temperature: float) -> str:
            return self.outputs.pop(0)

    class NoPlots:
        def plot_pre_post_comparison(self, *args: object, **kwargs: object) -> dict:
            return {"plots": "off"}

    imported = time.perf_counter()
    agree = 0
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        with tempfile.TemporaryDirectory(prefix="skyt-bench-skyt-") as out:
            experiment = ce.ComprehensiveExperiment.__new__(ce.ComprehensiveExperiment)
            experiment.output_dir = out
            experiment.llm_client = Replay(data["raw_outputs"], data.get("model"))
            experiment.canon_system = CanonSystem(os.path.join(out, "canon"))
            experiment.oracle_system = OracleSystem()
            experiment.code_transformer = CodeTransformer(experiment.canon_system)
            experiment.metrics_calculator = ComprehensiveMetrics(experiment.canon_system)
            experiment.bell_curve_analyzer = NoPlots()
            with contextlib.redirect_stdout(io.StringIO()):
                result = experiment.run_full_experiment(
                    str(templates),
                    data["contract_id"],
                    num_runs=len(data["raw_outputs"]),
                    temperature=data["temperature"],
                )
        agree += result.get("metrics", {}).get("R_raw") == data["metrics"].get("R_raw")
    return {
        "import_s": imported - started,
        "pipeline_s": time.perf_counter() - imported,
        "experiments": len(files),
        "r_raw_as_recorded": agree,
    }


def measure_both(args: argparse.Namespace, figures: dict, old_root: Path | None) -> None:
    """This tree's analyze (and the baseline's, interleaved) on the corpus, into `figures`."""
    figures["no_repair"] = timed_cli(ROOT, args.corpus, "--samples", "--no-repair")
    figures["breakdown"] = stage_breakdown(args.corpus)
    new_runs, old_runs = [], []
    for _ in range(args.rounds):
        new_runs.append(timed_cli(ROOT, args.corpus, "--samples"))
        if old_root is not None:
            old_runs.append(timed_cli(old_root, args.corpus, "--samples"))
    figures["full"] = median_run(new_runs)
    figures["rounds"] = [
        {"new_s": n["wall_s"], **({"baseline_s": o["wall_s"]} if o else {})}
        for n, o in zip(new_runs, old_runs or [None] * len(new_runs))
    ]
    if old_runs:
        old = median_run(old_runs)
        old["ref"] = args.baseline_ref
        old["identical_json"] = all(
            run["sha256"] == figures["full"]["sha256"] for run in [*new_runs, *old_runs]
        )
        figures["baseline"] = old


SIDES = ("skyt", "skyt-tui", "skyt-tui-no-repair")


def versus_skyt(args: argparse.Namespace) -> dict:
    """skyt-tui's analyze and SKYT's pipeline on the same files, interleaved rounds."""
    files = experiment_files(args.corpus, args.experiments)
    samples = sum(
        len(json.loads(path.read_text(encoding="utf-8"))["raw_outputs"]) for path in files
    )
    from cached_bytecode import compile_trees

    compiled = compile_trees(ROOT / "skyt_tui", args.vs_skyt / "src")
    if not args.json:
        print(compiled, flush=True)
    rounds = []
    for number in range(args.rounds):
        round_: dict[str, Any] = {}
        order = ("skyt-tui", "skyt", "skyt-tui-no-repair")
        if number % 2:
            order = order[::-1]
        for side in order:
            load = os.getloadavg()[0]
            with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
                env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": home}
                if side.startswith("skyt-tui"):
                    command = [sys.executable, "-m", "skyt_tui", "analyze", *map(str, files)]
                    command += ["--json", "--samples"]
                    if side == "skyt-tui-no-repair":  # what the command costs besides repair
                        command.append("--no-repair")
                    wall, cpu, out = timed(command, env, ROOT)
                    report = json.loads(out)
                    round_[side] = {"wall_s": wall, "cpu_s": cpu, "load": load}
                    round_[side]["runs"] = len(report["runs"])
                else:
                    command = [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--measure-skyt",
                        str(args.vs_skyt),
                        "--experiments",
                        str(args.experiments),
                        "--corpus",
                        str(args.corpus),
                    ]
                    wall, cpu, out = timed(command, env, ROOT)
                    round_[side] = {"wall_s": wall, "cpu_s": cpu, "load": load, **json.loads(out)}
        round_["ratio"] = round_["skyt"]["wall_s"] / round_["skyt-tui"]["wall_s"]
        round_["ratio_pipeline"] = round_["skyt"]["pipeline_s"] / round_["skyt-tui"]["wall_s"]
        round_["ratio_cpu"] = round_["skyt"]["cpu_s"] / round_["skyt-tui"]["cpu_s"]
        round_["ratio_no_repair"] = (
            round_["skyt"]["wall_s"] / round_["skyt-tui-no-repair"]["wall_s"]
        )
        rounds.append(round_)
        if not args.json:
            print(
                f"round {number + 1}: skyt-tui {round_['skyt-tui']['wall_s']:.1f} s (CPU"
                f" {round_['skyt-tui']['cpu_s']:.1f} s, load {round_['skyt-tui']['load']:.1f}),"
                f" SKYT {round_['skyt']['wall_s']:.1f} s (pipeline {round_['skyt']['pipeline_s']:.1f}"
                f" s, CPU {round_['skyt']['cpu_s']:.1f} s, load {round_['skyt']['load']:.1f}):"
                f" {round_['ratio']:.1f}x; without repair"
                f" {round_['skyt-tui-no-repair']['wall_s']:.1f} s, {round_['ratio_no_repair']:.1f}x",
                flush=True,
            )
    return {
        "experiments": len(files),
        "samples": samples,
        "files": [path.name for path in files],
        "rounds": rounds,
        "median_ratio": statistics.median(r["ratio"] for r in rounds),
        "median_ratio_pipeline": statistics.median(r["ratio_pipeline"] for r in rounds),
        "median_ratio_cpu": statistics.median(r["ratio_cpu"] for r in rounds),
        "median_skyt_tui_s": statistics.median(r["skyt-tui"]["wall_s"] for r in rounds),
        "median_skyt_s": statistics.median(r["skyt"]["wall_s"] for r in rounds),
        "median_no_repair_s": statistics.median(r["skyt-tui-no-repair"]["wall_s"] for r in rounds),
        "median_ratio_no_repair": statistics.median(r["ratio_no_repair"] for r in rounds),
        "load_range": [
            min(r[side]["load"] for r in rounds for side in SIDES),
            max(r[side]["load"] for r in rounds for side in SIDES),
        ],
    }


def median_run(runs: list[dict]) -> dict:
    """The run with the median wall time (the lower middle one for an even count)."""
    return sorted(runs, key=lambda run: run["wall_s"])[(len(runs) - 1) // 2]


def baseline_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument(
        "--baseline-ref",
        default=BASELINE_REF,
        help=f"git ref of the code to compare (default {BASELINE_REF})",
    )
    parser.add_argument(
        "--no-baseline", action="store_true", help="skip the baseline (it takes about a minute)"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="alternate new and baseline this many times"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--vs-skyt",
        type=Path,
        default=None,
        metavar="SKYT_DIR",
        help="compare with SKYT's own pipeline (a checkout of HeitorRoriz/skyt_experiment)",
    )
    parser.add_argument("--experiments", type=int, default=60)
    parser.add_argument("--measure-skyt", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure_skyt:
        files = experiment_files(args.corpus, args.experiments)
        templates = args.corpus.parent / "templates.json"
        print(json.dumps(skyt_pipeline(args.measure_skyt, files, templates)))
        return 0
    if args.vs_skyt:
        if not (args.vs_skyt / "src" / "comprehensive_experiment.py").is_file():
            print(f"--vs-skyt {args.vs_skyt}: no SKYT src/ there", file=sys.stderr)
            return 2
        figures = versus_skyt(args)
        if args.json:
            print(json.dumps(figures, indent=2, sort_keys=True))
            return 0
        low, high = figures["load_range"]
        print(
            f"{figures['experiments']} experiments, {figures['samples']} samples, {args.rounds}"
            f" rounds, load average {low:.1f}-{high:.1f}: skyt-tui {figures['median_skyt_tui_s']:.1f} s,"
            f" SKYT {figures['median_skyt_s']:.1f} s (medians); skyt-tui is"
            f" {figures['median_ratio']:.1f}x faster (rounds "
            + ", ".join(f"{r['ratio']:.1f}" for r in figures["rounds"])
            + f"), {figures['median_ratio_pipeline']:.1f}x against SKYT's pipeline alone,"
            f" {figures['median_ratio_cpu']:.1f}x by CPU"
        )
        print(
            f"without repair (--no-repair, same rounds): skyt-tui {figures['median_no_repair_s']:.1f}"
            f" s, {figures['median_ratio_no_repair']:.1f}x SKYT's whole pipeline; the repair stage"
            f" adds {figures['median_skyt_tui_s'] - figures['median_no_repair_s']:.1f} s. 12x SKYT"
            f" is the whole command in {figures['median_skyt_s'] / 12:.2f} s"
        )
        return 0
    if not args.corpus.is_dir():
        print(f"corpus not found: {args.corpus} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    figures: dict = {
        "corpus": str(args.corpus),
        "cores": os.cpu_count(),
        "load_average_at_start": os.getloadavg()[0],
        "target_s": TARGET_S,
    }
    if args.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="skyt-bench-baseline-") as tmp:
        old_root = None if args.no_baseline else baseline_tree(args.baseline_ref, Path(tmp))
        from cached_bytecode import compile_trees

        figures["bytecode"] = compile_trees(
            ROOT / "skyt_tui", *([old_root / "skyt_tui"] if old_root else [])
        )
        measure_both(args, figures, old_root)
    figures["load_average_at_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    print(report(figures))
    return 0


def report(figures: dict) -> str:
    full, bare = figures["full"], figures["no_repair"]
    lines = [
        f"skyt-tui analyze over {full['samples']} samples in {full['runs']} runs, {figures['cores']} cores, "
        f"load average {figures['load_average_at_start']:.1f} at start, {figures['load_average_at_end']:.1f} at end",
        f"  full pipeline (--samples):  {full['wall_s']:6.1f} s wall = {full['samples_per_s']:6.0f} samples/s "
        f"(CPU {full['cpu_s']:.1f} s incl. workers)",
        f"  without repair:             {bare['wall_s']:6.1f} s wall = {bare['samples_per_s']:6.0f} samples/s",
        f"  {figures.get('bytecode', '')}",
    ]
    if "baseline" in figures:
        old = figures["baseline"]
        lines.append(
            "  rounds (new / baseline s): "
            + ", ".join(
                f"{r['new_s']:.1f} / {r.get('baseline_s', float('nan')):.1f}"
                for r in figures["rounds"]
            )
        )
        lines.append(
            f"  baseline {old['ref']} (median): {old['wall_s']:6.1f} s wall = "
            f"{old['samples_per_s']:6.0f} samples/s -> speed-up {old['wall_s'] / full['wall_s']:.1f}x; "
            f"JSON {'byte-identical' if old['identical_json'] else 'DIFFERENT'}"
        )
    verdict = "met" if full["wall_s"] < figures["target_s"] else "NOT met"
    lines.append(f"  target under {figures['target_s']:.0f} s wall: {verdict}")
    breakdown = figures["breakdown"]
    lines.append(
        f"stage breakdown (in-process, {breakdown['total_s']:.1f} s; {breakdown['repair_tasks']} distinct "
        f"(sample, canon) repairs, {breakdown['repaired_samples']} samples repaired):"
    )
    for name, seconds in breakdown["stages"].items():
        lines.append(f"  {name:<58} {seconds:6.2f} s")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
