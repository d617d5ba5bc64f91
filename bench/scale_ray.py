"""The Ray executor on this machine: the driver's CPU and memory as a study grows, a driver
killed and resumed, and what Ray costs against the local executor; the projection to 10⁶ samples.

    python bench/scale_ray.py [--sizes 2000,8000] [--local-sizes 2000] [--baseline-ref REF]
                              [--baseline-tree DIR] [--no-baseline] [--json] [--write-docs]
    python bench/scale_ray.py --part overhead [--rounds N] [--oracle-samples N]
                              [--humaneval-tasks K] [--no-kill] [--kill-after S] [--json] [--write-docs]
    python bench/scale_ray.py --from-json FIGURES.json [--baseline-from FIGURES.json] [--write-docs]

`--write-docs` writes the figures (and, for the driver part, the projection) into
docs/scaling.md between its `<!-- scale_ray:... -->` marks; `--from-json` takes the figures of
an earlier `--json` run; `--baseline-from` takes the baseline's rows from another (a run with
`--no-baseline` beside the baseline measured once: the code before does not change), and the
summary is made again from both.

Part `driver` (issue 39; the default), on a local cluster of two raylets with 1 CPU each
(tests/ray_cluster.py), for human-eval studies of each size of `--sizes` (the first tasks of
../shared/corpus/humaneval-codegen16b, 100 samples each), with `--no-repair` and with repair:
`skyt-tui analyze STUDY --json --samples --executor ray` as a user runs it, its stdout to a
file. The driver (the `skyt-tui` process) reports its own CPU time and peak RSS
(`getrusage(RUSAGE_SELF)` when it exits), so the figures are the driver's alone whatever the
machine's load, which is printed with each. Then:
- the baseline: the same commands from the code before issue 39 (`git archive
  --baseline-ref`, its own cluster, as a node runs the driver's code), at the smaller size and
  at the larger without repair — the driver there gathers every verdict, repair and analysis;
- the same bytes: the local executor's output at `--local-sizes`, whose sha256 the cluster's
  must equal;
- a driver killed: `analyze --resume` at the smaller size with repair, SIGKILLed once half of
  its runs are kept, then run again with `--resume`: its output must be the uninterrupted one;
- the start: a one-sample analysis on the cluster (connect, judges, one task);
- an idle driver: connected as `--executor ray` connects, doing nothing for 30 s, before and
  after the studies: the CPU Ray's own threads take in a driver per second of wall.
Driver CPU per sample is given two ways: all the driver's CPU over the samples, and the
difference between the two sizes over the difference of samples (what one more sample costs,
without the start). Peak RSS at the larger size over the smaller says whether memory grows.

Projection (docs/scaling.md): T = F + n·max(d, c / (N·W)) for n = 10⁶ samples on N nodes of W
workers, with F the start (the one-sample analysis), c the worker-seconds per sample of the
larger study with repair (wall × workers / samples) and d the driver's CPU per sample (the
larger of the two ways): past N·W = c / d workers the driver is the limit. That d counts Ray's
threads (a few ms per second of wall whatever the driver does) as if they were per sample, which
a slow 2-worker cluster inflates; so the projection is also given split: a = the idle driver's
CPU per second, b = (CPU − start's CPU − a · (wall − start's wall)) / samples of the same study,
the driver's core full at (1000 − a) / b samples/s, past that × c workers.

Part `overhead` (what it was before issue 39): three configurations interleaved round by round
(local, one raylet with 2 CPUs, two raylets with 1 CPU each), all with two sandbox workers in
all: the oracle's samples/s, `analyze --json --samples` of the SKYT corpus and of the first
`--humaneval-tasks` human-eval tasks (wall, same bytes), and, unless --no-kill, the SKYT
analysis with the second raylet SIGKILLed after --kill-after seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.printable import counted  # noqa: E402

CONFIGS = ("local", "ray-1", "ray-2")
PROJECTED_SAMPLES = 1_000_000
PROJECTED_NODES = (1, 2, 10, 50, 100)
PROJECTED_WORKERS = (2, 32)


def corpus_dir() -> Path:
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"])
    shared = Path("/work/shared/corpus")
    return shared if shared.is_dir() else ROOT.parent / "shared" / "corpus"


def humaneval_folder(tasks: int, into: Path) -> Path:
    """The first `tasks` tasks of the human-eval corpus, all their samples, as a folder."""
    source = corpus_dir() / "humaneval-codegen16b"
    problems = (source / "problems.jsonl").read_text().splitlines()[:tasks]
    kept = {json.loads(line)["task_id"] for line in problems}
    samples = [
        line
        for line in (source / "samples.jsonl").read_text().splitlines()
        if json.loads(line)["task_id"] in kept
    ]
    into.mkdir(parents=True, exist_ok=True)
    (into / "problems.jsonl").write_text("\n".join(problems) + "\n")
    (into / "samples.jsonl").write_text("\n".join(samples) + "\n")
    return into


def oracle_child(executor: str, samples: int) -> dict:
    """In a child interpreter: open the executor's oracle, judge `samples` human-eval samples."""
    from skyt_tui.engine.executor.choice import choose_executor, current_executor
    from skyt_tui.engine.sources import humaneval
    from skyt_tui.engine.sources.humaneval import problem_contract

    problems, completions = humaneval.load_dir(corpus_dir() / "humaneval-codegen16b")
    contracts = {task: problem_contract(problem, 3.0) for task, problem in problems.items()}
    jobs = [
        (contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions[:samples]
    ]
    start = time.perf_counter()
    choose_executor(executor)
    oracle = current_executor().open_oracle()
    oracle.check_many(jobs[:8])  # warm: every worker started, the plans compiled
    opened = time.perf_counter()
    cpu = time.process_time()
    verdicts = oracle.check_many(jobs)
    judged = time.perf_counter()
    cpu = time.process_time() - cpu
    passed = sum(v.passed for v in verdicts)
    workers, isolation = oracle.workers, oracle.isolation
    oracle.close()
    return {
        "start_s": opened - start,
        "judge_s": judged - opened,
        "samples": len(jobs),
        "samples_per_s": len(jobs) / (judged - opened),
        "driver_cpu_ms_per_sample": 1000 * cpu / len(jobs),
        "passed": passed,
        "workers": workers,
        "isolation": isolation,
    }


def run_oracle(config: str, address: str | None, samples: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if address:
        env["RAY_ADDRESS"] = address
    executor = "local" if config == "local" else "ray"
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, __file__, "--child-oracle", executor, "--oracle-samples", str(samples)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {**json.loads(done.stdout.splitlines()[-1]), "load": load}


def run_analyze(
    config: str, address: str | None, source: Path, *, kill: tuple[object, float] | None = None
) -> dict:
    """`skyt-tui analyze SOURCE --json --samples` in a fresh interpreter: wall, samples, digest.
    `kill`: (cluster, seconds) - SIGKILL the cluster's second raylet that long after the start."""
    executor = "local" if config == "local" else "ray"
    with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": home}
        if address:
            env["RAY_ADDRESS"] = address
        load = os.getloadavg()[0]
        killer = None
        if kill is not None:
            cluster, after = kill
            killer = threading.Timer(after, cluster.kill_node, args=(1,))  # type: ignore[attr-defined]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        if killer is not None:
            killer.start()
        result = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "analyze", str(source), "--json", "--samples"]
            + ["--executor", executor],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=True,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if killer is not None:
            killer.join()
    report = json.loads(result.stdout)
    samples = sum(run["n"] for run in report["runs"])
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "samples": samples,
        "samples_per_s": samples / wall,
        "sha256": hashlib.sha256(result.stdout).hexdigest(),
        "load": load,
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("driver", "overhead"), default="driver")
    parser.add_argument("--sizes", default="2000,8000", help="human-eval samples per study")
    parser.add_argument(
        "--local-sizes", default="2000", help="sizes the local executor's bytes are taken at"
    )
    parser.add_argument("--baseline-ref", default=BASELINE_REF)
    parser.add_argument(
        "--baseline-tree", type=Path, help="a checkout of the baseline (instead of git archive)"
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--keep-outputs", type=Path, help="a folder to keep each analysis's stdout in"
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--oracle-samples", type=int, default=800)
    parser.add_argument("--humaneval-tasks", type=int, default=10)
    parser.add_argument("--no-kill", action="store_true")
    parser.add_argument("--kill-after", type=float, default=25.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--write-docs", action="store_true", help="the figures into docs/scaling.md"
    )
    parser.add_argument("--from-json", type=Path, help="figures of an earlier --json run")
    parser.add_argument(
        "--baseline-from", type=Path, help="the baseline's rows from another --json run"
    )
    parser.add_argument("--child-oracle", choices=("local", "ray"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_oracle:
        print(json.dumps(oracle_child(args.child_oracle, args.oracle_samples)))
        return 0
    if args.from_json is not None:
        figures = json.loads(args.from_json.read_text())
        if args.baseline_from is not None:
            figures = with_baseline(figures, json.loads(args.baseline_from.read_text()))
        elif figures.get("part") == "driver":  # derived from the measurements: this code's reading
            figures["summary"] = summarize_driver(figures)
    elif args.part == "driver":
        figures = measure_driver(args)
    else:
        figures = measure_overhead(args)
    if figures is None:
        return 2
    if args.json:
        print(json.dumps(figures, indent=2))
    elif figures.get("part") == "driver":
        print_driver(figures)
    else:
        print_summary(figures)
    if args.write_docs:
        write_docs(figures)
    return 0


def measure_overhead(args: argparse.Namespace) -> dict | None:
    from tests.ray_cluster import LocalCluster

    skyt = corpus_dir() / "skyt-msr2026" / "outputs"
    if not skyt.is_dir():
        print(f"corpus not found: {corpus_dir()} (set SKYT_CORPUS)", file=sys.stderr)
        return None
    figures: dict = {
        "part": "overhead",
        "cores": os.cpu_count(),
        "rounds": args.rounds,
        "load_at_start": os.getloadavg()[0],
    }
    clusters = {}
    with tempfile.TemporaryDirectory(prefix="skyt-bench-he-") as tmp:
        humaneval = humaneval_folder(args.humaneval_tasks, Path(tmp) / "he")
        try:
            clusters["ray-1"] = LocalCluster(nodes=1, cpus=2).start()
            clusters["ray-2"] = LocalCluster(nodes=2, cpus=1).start()
            measured: dict[str, dict[str, list[dict]]] = {
                config: {"oracle": [], "skyt": [], "humaneval": []} for config in CONFIGS
            }
            for _ in range(args.rounds):
                for config in CONFIGS:
                    address = clusters[config].address if config in clusters else None
                    measured[config]["oracle"].append(
                        run_oracle(config, address, args.oracle_samples)
                    )
                    measured[config]["skyt"].append(run_analyze(config, address, skyt))
                    measured[config]["humaneval"].append(run_analyze(config, address, humaneval))
            if not args.no_kill:
                cluster = clusters["ray-2"]
                figures["killed"] = run_analyze(
                    "ray-2", cluster.address, skyt, kill=(cluster, args.kill_after)
                )
        finally:
            for cluster in clusters.values():
                cluster.stop()
    figures["measured"] = measured
    figures["summary"] = summarize(measured, figures.get("killed"))
    return figures


# ---- part driver (issue 39) ---------------------------------------------------------------------

BASELINE_REF = "5668eb4"
"""main before issue 39: the driver gathers every verdict, repair and analysis."""
SAMPLES_PER_TASK = 100
DRIVER = """
import atexit, json, os, resource, runpy, sys, time
out = sys.argv[1]
sys.argv = ["skyt-tui", *sys.argv[2:]]
start = time.perf_counter()

def threads():
    # CPU seconds of each live thread by name (/proc/self/task/*/stat: utime, stime in ticks)
    tick, found = os.sysconf("SC_CLK_TCK"), {}
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as handle:
                name = handle.read().strip()
            with open(f"/proc/self/task/{task}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[name] = found.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return found

def report():
    used = resource.getrusage(resource.RUSAGE_SELF)
    with open(out, "w") as handle:
        json.dump({"cpu_s": used.ru_utime + used.ru_stime, "peak_rss_kb": used.ru_maxrss,
                   "wall_s": time.perf_counter() - start, "main_thread_cpu_s": time.thread_time(),
                   "threads_cpu_s": threads()}, handle)

atexit.register(report)
runpy.run_module("skyt_tui", run_name="__main__", alter_sys=True)
"""
"""The `skyt-tui` command in this interpreter, reporting at exit its own CPU time, peak RSS and
wall, and how its CPU splits: the main thread (where skyt-tui's work runs) and each live thread
by name (Ray's own: gRPC pollers, its io loops, task events)."""


IDLE = """
import json, resource, sys, time
from skyt_tui.engine.executor.ray_executor import RayExecutor
out, seconds, address = sys.argv[1], float(sys.argv[2]), sys.argv[3]
RayExecutor.connect(address)
time.sleep(2.0)
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
before, main_before, began = cpu(), time.thread_time(), time.perf_counter()
time.sleep(seconds)
with open(out, "w") as handle:
    json.dump({"cpu_s": cpu() - before, "main_thread_cpu_s": time.thread_time() - main_before,
               "wall_s": time.perf_counter() - began}, handle)
"""
"""A driver connected as `skyt-tui --executor ray` connects, doing nothing for `seconds`: the CPU
Ray's own threads take in a driver per second of wall, whatever the driver does."""
IDLE_S = 30.0


def run_idle(tree: Path, address: str, seconds: float = IDLE_S) -> dict:
    """The idle driver's CPU over `seconds` (after connecting), with the load before."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("RAY_ADDRESS", None)
    with tempfile.TemporaryDirectory(prefix="skyt-bench-idle-") as tmp:
        report = Path(tmp) / "report.json"
        load = os.getloadavg()[0]
        done = subprocess.run(
            [sys.executable, "-c", IDLE, str(report), str(seconds), address],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"the idle driver exited with {done.returncode}: {done.stderr[-2000:]}"
            )
        return {**json.loads(report.read_text()), "load": load}


def run_driver(
    tree: Path,
    args: list[str],
    *,
    home: Path,
    address: str | None,
    kill_when: object = None,
    keep: Path | None = None,
) -> dict:
    """`skyt-tui ARGS` from `tree` (the driver), stdout to a file: its CPU, peak RSS, wall, the
    sha256 of what it printed, the load before and after. `kill_when(process)`: polled; when
    true, the driver is SIGKILLed (then `killed` is true and nothing else is measured)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "SKYT_HOME": str(home)}
    env.pop("RAY_ADDRESS", None)
    if address:
        env["RAY_ADDRESS"] = address
    with tempfile.TemporaryDirectory(prefix="skyt-bench-driver-") as tmp:
        report, out = Path(tmp) / "report.json", Path(tmp) / "out"
        load = os.getloadavg()[0]
        with open(out, "wb") as stdout, open(Path(tmp) / "err", "wb") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-c", DRIVER, str(report), *args],
                cwd=tree,
                env=env,
                stdout=stdout,
                stderr=stderr,
            )
            killed = False
            while process.poll() is None:
                if kill_when is not None and kill_when(process):  # type: ignore[operator]
                    process.kill()
                    killed = True
                time.sleep(0.05)
        if killed:
            return {"killed": True, "load": load}
        if process.returncode != 0:
            raise RuntimeError(
                f"skyt-tui {' '.join(args)} exited with {process.returncode}: "
                + (Path(tmp) / "err").read_text(errors="replace")[-2000:]
            )
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out, keep)
        digest = hashlib.sha256()
        with open(out, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return {
            **json.loads(report.read_text()),
            "sha256": digest.hexdigest(),
            "load": load,
            "load_after": os.getloadavg()[0],
        }


def analyze_args(folder: Path, executor: str, repair: bool) -> list[str]:
    return [
        "analyze",
        str(folder),
        "--json",
        "--samples",
        "--executor",
        executor,
        *([] if repair else ["--no-repair"]),
    ]


def measure_driver(args: argparse.Namespace) -> dict | None:
    from tests.ray_cluster import LocalCluster

    if not (corpus_dir() / "humaneval-codegen16b").is_dir():
        print(f"corpus not found: {corpus_dir()} (set SKYT_CORPUS)", file=sys.stderr)
        return None
    sizes = sorted(int(size) for size in args.sizes.split(","))
    local_sizes = sorted(int(size) for size in args.local_sizes.split(",") if size)
    small, large = sizes[0], sizes[-1]
    figures: dict = {
        "part": "driver",
        "cores": os.cpu_count(),
        "load_at_start": os.getloadavg()[0],
        "sizes": sizes,
        "baseline_ref": None if args.no_baseline else args.baseline_ref,
        "measured": [],
    }

    def note(entry: dict) -> None:
        figures["measured"].append(entry)
        print(json.dumps(entry), file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="skyt-bench-driver-") as tmp:
        work = Path(tmp)
        studies = {
            size: humaneval_folder(size // SAMPLES_PER_TASK, work / f"he-{size}") for size in sizes
        }
        one = humaneval_folder(1, work / "he-one")
        lines = (one / "samples.jsonl").read_text().splitlines()[:1]
        (one / "samples.jsonl").write_text(lines[0] + "\n")
        trees = [("new", ROOT)]
        if not args.no_baseline:
            baseline = args.baseline_tree or baseline_tree(args.baseline_ref, work / "baseline")
            trees.insert(0, ("baseline", baseline))
        sys.path.insert(0, str(ROOT / "bench"))
        from cached_bytecode import compile_trees

        figures["bytecode"] = compile_trees(*(tree / "skyt_tui" for _, tree in trees))
        print(json.dumps({"bytecode": figures["bytecode"]}), file=sys.stderr, flush=True)
        for config, tree in trees:
            cluster = LocalCluster(nodes=2, cpus=1, env={"PYTHONPATH": str(tree)}).start()
            try:
                if config == "new":
                    start = run_driver(
                        tree,
                        analyze_args(one, "ray", False),
                        home=work / "h",
                        address=cluster.address,
                    )
                    figures["start"] = {**start, "config": config}
                    figures["idle"] = [run_idle(tree, cluster.address)]
                    print(json.dumps({"idle": figures["idle"][0]}), file=sys.stderr, flush=True)
                plan = [(size, repair) for size in sizes for repair in (False, True)]
                if (
                    config == "baseline"
                ):  # the old driver: the small study, and the large without repair
                    plan = [(small, False), (small, True), (large, False)]
                for size, repair in plan:
                    home = work / f"home-{config}-{size}-{repair}"
                    found = run_driver(
                        tree,
                        analyze_args(studies[size], "ray", repair),
                        home=home,
                        address=cluster.address,
                        keep=kept_output(args, config, size, repair),
                    )
                    note({"config": config, "size": size, "repair": repair, **found})
                if config == "new":
                    figures["idle"].append(run_idle(tree, cluster.address))
                    print(json.dumps({"idle": figures["idle"][-1]}), file=sys.stderr, flush=True)
                if config == "new" and not args.no_kill:
                    figures["resume"] = kill_and_resume(
                        tree,
                        studies[small],
                        work / "home-resume",
                        cluster.address,
                        kept_output(args, "resumed", small, True),
                    )
                    print(json.dumps(figures["resume"]), file=sys.stderr, flush=True)
            finally:
                cluster.stop()
        for size in local_sizes:
            for repair in (False, True):
                found = run_driver(
                    ROOT,
                    analyze_args(studies[size], "local", repair),
                    home=work / f"home-local-{size}-{repair}",
                    address=None,
                    keep=kept_output(args, "local", size, repair),
                )
                note({"config": "local", "size": size, "repair": repair, **found})
    figures["summary"] = summarize_driver(figures)
    return figures


def with_baseline(figures: dict, earlier: dict) -> dict:
    """`figures` (a driver part measured with `--no-baseline`) with the baseline's rows of
    `earlier`, said so (`baseline_load_at_start`), the summary made again from both."""
    rows = [m for m in earlier["measured"] if m["config"] == "baseline"]
    if not rows:
        raise SystemExit("--baseline-from: no baseline rows in that file")
    out = {
        **figures,
        "baseline_ref": earlier["baseline_ref"],
        "baseline_load_at_start": earlier["load_at_start"],
        "measured": rows + [m for m in figures["measured"] if m["config"] != "baseline"],
    }
    out["summary"] = summarize_driver(out)
    return out


def kept_output(args: argparse.Namespace, config: str, size: int, repair: bool) -> Path | None:
    if args.keep_outputs is None:
        return None
    return args.keep_outputs / f"{config}-{size}-{'repair' if repair else 'no-repair'}.json"


def kill_and_resume(
    tree: Path, study: Path, home: Path, address: str, keep: Path | None = None
) -> dict:
    """`analyze --resume` SIGKILLed once half of its runs are kept, then run again."""
    command = [*analyze_args(study, "ray", True), "--resume"]
    runs = len((study / "problems.jsonl").read_text().splitlines())
    kept = home / "resume"
    started = time.perf_counter()
    state: dict = {}

    def half_kept(process: subprocess.Popen) -> bool:
        count = len(list(kept.glob("*.json"))) if kept.is_dir() else 0
        if count >= runs // 2:
            state.update(kept=count, after_s=time.perf_counter() - started)
            return True
        return False

    first = run_driver(tree, command, home=home, address=address, kill_when=half_kept)
    if not first.get("killed"):
        raise RuntimeError("the driver finished before half of its runs were kept")
    resumed = run_driver(tree, command, home=home, address=address, keep=keep)
    left = len(list(kept.glob("*.json"))) if kept.is_dir() else 0
    return {"runs": runs, **state, "resumed": resumed, "kept_after": left}


def summarize_driver(figures: dict) -> dict:
    measured = figures["measured"]

    def find(config: str, size: int, repair: bool) -> dict | None:
        return next(
            (
                m
                for m in measured
                if (m["config"], m["size"], m["repair"]) == (config, size, repair)
            ),
            None,
        )

    sizes = figures["sizes"]
    small, large = sizes[0], sizes[-1]
    rows = []
    for entry in measured:
        local = find("local", entry["size"], entry["repair"])
        rows.append(
            {
                **{k: entry[k] for k in ("config", "size", "repair", "wall_s", "cpu_s", "load")},
                "samples_per_s": entry["size"] / entry["wall_s"],
                "cpu_ms_per_sample": 1000 * entry["cpu_s"] / entry["size"],
                "peak_rss_mb": entry["peak_rss_kb"] / 1024,
                "main_thread_ms_per_sample": 1000 * entry["main_thread_cpu_s"] / entry["size"]
                if "main_thread_cpu_s" in entry
                else None,
                "same_as_local": None
                if local is None or entry["config"] != "new"  # the baseline is other code
                else entry["sha256"] == local["sha256"],
            }
        )
    growth = {}
    for config in ("baseline", "new"):
        for repair in (False, True):
            a, b = find(config, small, repair), find(config, large, repair)
            if a and b:
                growth[f"{config}-{'repair' if repair else 'no-repair'}"] = {
                    "rss_ratio": b["peak_rss_kb"] / a["peak_rss_kb"],
                    "marginal_cpu_ms_per_sample": 1000
                    * (b["cpu_s"] - a["cpu_s"])
                    / (large - small),
                }
    out: dict = {"rows": rows, "growth": growth}
    resume = figures.get("resume")
    if resume is not None:
        whole = find("new", small, True)
        resume["same_as_uninterrupted"] = (
            whole is not None and resume["resumed"]["sha256"] == whole["sha256"]
        )
        out["resume"] = resume
    start = figures.get("start")
    idle = figures.get("idle") or []
    per_second_ms = (
        1000 * sum(m["cpu_s"] for m in idle) / sum(m["wall_s"] for m in idle) if idle else None
    )
    if per_second_ms is not None:
        out["idle"] = {"per_second_ms": per_second_ms, "measurements": idle}
    top = find("new", large, True)
    if top is not None:
        workers = 2  # two raylets of 1 CPU: one sandbox worker each
        worker_s = top["wall_s"] * workers / large
        fixed = start["wall_s"] if start is not None else 0.0
        driver_s = top["cpu_s"] / large
        marginal = growth.get("new-repair", {}).get("marginal_cpu_ms_per_sample")
        if marginal is not None:
            driver_s = max(driver_s, marginal / 1000)
        out["projection"] = {
            "samples": PROJECTED_SAMPLES,
            "fixed_s": fixed,
            "worker_s_per_sample": worker_s,
            "driver_s_per_sample": driver_s,
            "driver_bound_from_workers": worker_s / driver_s,
            "hours": hours(fixed, driver_s, worker_s),
        }
        if start is not None:
            # the start is F: d without it, Ray's threads still counted as if per sample
            beyond = (top["cpu_s"] - start["cpu_s"]) / large
            if beyond > 0:
                out["projection"]["beyond_start"] = {
                    "driver_s_per_sample": beyond,
                    "driver_bound_from_workers": worker_s / beyond,
                }
        if per_second_ms is not None and start is not None:
            # the study's CPU beyond its start, less what Ray's threads take per second of wall
            # whatever the driver does (the idle driver's rate): the driver's work per sample
            waiting_s = per_second_ms / 1000 * (top["wall_s"] - start["wall_s"])
            per_sample_ms = 1000 * (top["cpu_s"] - start["cpu_s"] - waiting_s) / large
            if per_sample_ms > 0:
                most = (1000 - per_second_ms) / per_sample_ms  # samples/s at 100 % of a core
                out["projection"]["split"] = {
                    "per_second_ms": per_second_ms,
                    "per_sample_ms": per_sample_ms,
                    "samples_per_s_at_full_cpu": most,
                    "driver_bound_from_workers": most * worker_s,
                    "hours": hours(fixed, 1 / most, worker_s),
                }
    return out


def hours(fixed: float, driver_s: float, worker_s: float) -> dict:
    """T = F + n · max(d, c / (N · W)) in hours, for each projected cluster."""
    return {
        f"{nodes}x{w}": (fixed + PROJECTED_SAMPLES * max(driver_s, worker_s / (nodes * w))) / 3600
        for w in PROJECTED_WORKERS
        for nodes in PROJECTED_NODES
    }


def print_driver(figures: dict) -> None:
    summary = figures["summary"]
    print(f"cores {figures['cores']}, load at start {figures['load_at_start']:.1f}")
    print(
        f"{'config':9}{'size':>6}{'repair':>8}{'wall s':>9}{'smp/s':>7}{'CPU s':>8}"
        f"{'ms/smp':>8}{'RSS MB':>8}{'=local':>8}{'load':>6}"
    )
    for row in summary["rows"]:
        same = {None: "–", True: "yes", False: "NO"}[row["same_as_local"]]
        print(
            f"{row['config']:9}{row['size']:6}{'yes' if row['repair'] else 'no':>8}"
            f"{row['wall_s']:9.1f}{row['samples_per_s']:7.1f}{row['cpu_s']:8.2f}"
            f"{row['cpu_ms_per_sample']:8.3f}{row['peak_rss_mb']:8.1f}{same:>8}{row['load']:6.1f}"
        )
    for row in summary["rows"]:
        if row.get("main_thread_ms_per_sample") is not None:
            print(
                f"{row['config']} {row['size']} repair {'yes' if row['repair'] else 'no'}: "
                f"the driver's main thread {row['main_thread_ms_per_sample']:.3f} ms/sample, "
                f"Ray's threads the rest"
            )
    for name, growth in summary["growth"].items():
        print(
            f"{name}: peak RSS large/small {growth['rss_ratio']:.2f}, one more sample costs "
            f"{growth['marginal_cpu_ms_per_sample']:.3f} ms of driver CPU"
        )
    resume = summary.get("resume")
    if resume is not None:
        print(
            f"killed with {resume['kept']} of {resume['runs']} runs kept after "
            f"{resume['after_s']:.1f} s; resumed in {resume['resumed']['wall_s']:.1f} s: "
            f"same bytes as uninterrupted: {'yes' if resume['same_as_uninterrupted'] else 'NO'}"
        )
    idle = summary.get("idle")
    if idle is not None:
        print(
            f"an idle driver (connected, doing nothing): {idle['per_second_ms']:.2f} ms of CPU "
            f"per second (Ray's own threads), {counted(len(idle['measurements']), 'measurement')}"
        )
    projection = summary.get("projection")
    if projection is not None:
        print_projection(projection)


def print_projection(projection: dict) -> None:
    print(
        f"projection for {projection['samples']:,} samples: fixed {projection['fixed_s']:.1f} s, "
        f"{projection['worker_s_per_sample'] * 1000:.1f} worker-ms/sample, driver "
        f"{projection['driver_s_per_sample'] * 1000:.3f} ms/sample (the limit past "
        f"{projection['driver_bound_from_workers']:.0f} workers)"
    )
    beyond = projection.get("beyond_start")
    if beyond is not None:
        print(
            f"  without the start (counted in F): driver {beyond['driver_s_per_sample'] * 1000:.3f}"
            f" ms/sample, the limit past {beyond['driver_bound_from_workers']:.0f} workers"
        )
    split = projection.get("split")
    if split is not None:
        print(
            f"  split: Ray's threads {split['per_second_ms']:.2f} ms per second + the driver's "
            f"work {split['per_sample_ms']:.3f} ms per sample: its CPU is full at "
            f"{split['samples_per_s_at_full_cpu']:.0f} samples/s, past "
            f"{split['driver_bound_from_workers']:.0f} workers"
        )
    for key, value in projection["hours"].items():
        nodes, workers = key.split("x")
        other = "" if split is None else f"  (split: {split['hours'][key]:8.2f} h)"
        print(f"  {nodes:>4} nodes x {workers:>2} workers: {value:8.2f} h{other}")


def baseline_tree(ref: str, into: Path) -> Path:
    """The code at `ref` (`git archive`), as a node would have it installed."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def summarize(measured: dict, killed: dict | None) -> dict:
    out: dict = {"configs": {}}
    local = measured["local"]
    for config, runs in measured.items():
        oracle_rate = median([r["samples_per_s"] for r in runs["oracle"]])
        row = {
            "oracle_samples_per_s": oracle_rate,
            "oracle_start_s": median([r["start_s"] for r in runs["oracle"]]),
            "oracle_ratio": oracle_rate / median([r["samples_per_s"] for r in local["oracle"]]),
            "oracle_overhead_ms_per_sample": 1000
            * (
                median([r["judge_s"] / r["samples"] for r in runs["oracle"]])
                - median([r["judge_s"] / r["samples"] for r in local["oracle"]])
            ),
            "oracle_driver_cpu_ms_per_sample": median(
                [r["driver_cpu_ms_per_sample"] for r in runs["oracle"]]
            ),
            "workers": runs["oracle"][0]["workers"],
            "isolation": runs["oracle"][0]["isolation"],
            "load": median([r["load"] for part in runs.values() for r in part]),
        }
        for corpus in ("skyt", "humaneval"):
            wall = median([r["wall_s"] for r in runs[corpus]])
            local_wall = median([r["wall_s"] for r in local[corpus]])
            samples = runs[corpus][0]["samples"]
            row[f"{corpus}_samples"] = samples
            row[f"{corpus}_wall_s"] = wall
            row[f"{corpus}_samples_per_s"] = samples / wall
            row[f"{corpus}_ratio"] = local_wall / wall
            row[f"{corpus}_overhead_ms_per_sample"] = 1000 * (wall - local_wall) / samples
            row[f"{corpus}_driver_cpu_ms_per_sample"] = (
                1000 * median([r["cpu_s"] for r in runs[corpus]]) / samples
            )
            row[f"{corpus}_identical"] = all(
                r["sha256"] == local[corpus][0]["sha256"] for r in runs[corpus]
            )
        out["configs"][config] = row
    if killed is not None:
        killed["identical"] = killed["sha256"] == local["skyt"][0]["sha256"]
        out["killed"] = killed
    return out


def print_summary(figures: dict) -> None:
    summary = figures["summary"]
    print(
        f"cores {figures['cores']}, rounds {figures['rounds']}, load at start {figures['load_at_start']:.1f}"
    )
    header = (
        f"{'':8}{'oracle/s':>10}{'ratio':>7}{'+ms/smp':>9}{'start s':>9}"
        f"{'skyt/s':>9}{'ratio':>7}{'+ms/smp':>9}{'he/s':>8}{'ratio':>7}{'+ms/smp':>9}"
        f"{'same':>6}{'load':>6}"
    )
    print(header)
    for config, row in summary["configs"].items():
        same = row["skyt_identical"] and row["humaneval_identical"]
        print(
            f"{config:8}{row['oracle_samples_per_s']:10.1f}{row['oracle_ratio']:7.2f}"
            f"{row['oracle_overhead_ms_per_sample']:9.2f}{row['oracle_start_s']:9.1f}"
            f"{row['skyt_samples_per_s']:9.1f}{row['skyt_ratio']:7.2f}"
            f"{row['skyt_overhead_ms_per_sample']:9.2f}{row['humaneval_samples_per_s']:8.1f}"
            f"{row['humaneval_ratio']:7.2f}{row['humaneval_overhead_ms_per_sample']:9.2f}"
            f"{'yes' if same else 'NO':>6}{row['load']:6.1f}"
        )
    if "killed" in summary:
        killed = summary["killed"]
        print(
            f"ray-2 with its second raylet killed mid-run: {killed['wall_s']:.1f} s, "
            f"same bytes as local: {'yes' if killed['identical'] else 'NO'}"
        )
    for config, row in summary["configs"].items():
        print(
            f"{config:8} driver CPU per sample: oracle {row['oracle_driver_cpu_ms_per_sample']:.2f} ms,"
            f" analyze skyt {row['skyt_driver_cpu_ms_per_sample']:.2f} ms,"
            f" human-eval {row['humaneval_driver_cpu_ms_per_sample']:.2f} ms"
        )


DOCS = ROOT / "docs" / "scaling.md"
MARKS = {
    "figures": ("<!-- scale_ray:figures -->", "<!-- /scale_ray:figures -->"),
    "driver": ("<!-- scale_ray:driver -->", "<!-- /scale_ray:driver -->"),
    "projection": ("<!-- scale_ray:projection -->", "<!-- /scale_ray:projection -->"),
}


def figures_markdown(figures: dict) -> str:
    summary = figures["summary"]
    configs = summary["configs"]
    lines = [
        f"Measured with `python bench/scale_ray.py` ({counted(figures['rounds'], 'round')}, "
        f"{figures['cores']} cores, load average {figures['load_at_start']:.1f} at the start; "
        "the load of each configuration is the median before its measurements). Oracle: "
        f"{configs['local']['workers']} sandbox workers in all, human-eval samples judged once "
        "the oracle is up; analyze: `skyt-tui analyze CORPUS --json --samples` as a user runs "
        f"it, on the SKYT corpus ({configs['local']['skyt_samples']:,} samples) and on the first "
        f"human-eval tasks ({configs['local']['humaneval_samples']:,} samples). Ratio: local "
        "time / this time (below 1: slower than local). +ms/sample: the time Ray adds per sample.",
        "",
        "| | oracle samples/s | ratio | +ms/sample | start s | SKYT samples/s | ratio "
        "| +ms/sample | human-eval samples/s | ratio | +ms/sample | same bytes | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    names = {
        "local": "local",
        "ray-1": "Ray, one raylet (2 CPUs)",
        "ray-2": "Ray, two raylets (1 CPU each)",
    }
    for config, row in configs.items():
        same = row["skyt_identical"] and row["humaneval_identical"]
        lines.append(
            f"| {names.get(config, config)} | {row['oracle_samples_per_s']:.1f} | "
            f"{row['oracle_ratio']:.2f} | {row['oracle_overhead_ms_per_sample']:.2f} | "
            f"{row['oracle_start_s']:.1f} | {row['skyt_samples_per_s']:.1f} | "
            f"{row['skyt_ratio']:.2f} | {row['skyt_overhead_ms_per_sample']:.2f} | "
            f"{row['humaneval_samples_per_s']:.1f} | {row['humaneval_ratio']:.2f} | "
            f"{row['humaneval_overhead_ms_per_sample']:.2f} | {'yes' if same else 'NO'} | "
            f"{row['load']:.1f} |"
        )
    lines.append("")
    lines.append(
        "The driver's own CPU per sample (the `skyt-tui` process): "
        + "; ".join(
            f"{config} oracle {row['oracle_driver_cpu_ms_per_sample']:.2f} ms, analyze SKYT "
            f"{row['skyt_driver_cpu_ms_per_sample']:.2f} ms, human-eval "
            f"{row['humaneval_driver_cpu_ms_per_sample']:.2f} ms"
            for config, row in configs.items()
        )
        + "."
    )
    if "killed" in summary:
        killed = summary["killed"]
        lines.append("")
        lines.append(
            f"With the second raylet SIGKILLed mid-run, analyze of the SKYT corpus on two raylets "
            f"took {killed['wall_s']:.1f} s and printed "
            + ("the same bytes as local." if killed["identical"] else "DIFFERENT bytes from local.")
        )
    return "\n".join(lines) + "\n"


def driver_markdown(figures: dict) -> str:
    summary = figures["summary"]
    names = {
        "baseline": f"before (`{figures.get('baseline_ref')}`), Ray",
        "new": "run by run, Ray",
        "local": "local executor",
    }
    lines = [
        f"Measured with `python bench/scale_ray.py` (2 raylets of 1 CPU each on this machine's "
        f"{figures['cores']} cores, load average {figures['load_at_start']:.1f} at the start, "
        "and before each command in the table): `skyt-tui analyze STUDY --json --samples` of "
        "the first human-eval tasks (100 samples each), stdout to a file. Driver CPU and peak "
        "RSS: the `skyt-tui` process's own (`getrusage` at its exit)."
        + (
            ""
            if "baseline_load_at_start" not in figures
            else " The baseline's rows come from an earlier run of the same bench on the same "
            f"cluster (load average {figures['baseline_load_at_start']:.1f} at its start; "
            "`--baseline-from`): the code before does not change between runs."
        ),
        "",
        "| code, executor | samples | repair | wall s | samples/s | driver CPU s | driver CPU ms/sample | driver peak RSS MB | same bytes as local | load |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summary["rows"]:
        same = {None: "–", True: "yes", False: "**no**"}[row["same_as_local"]]
        lines.append(
            f"| {names.get(row['config'], row['config'])} | {row['size']:,} | "
            f"{'yes' if row['repair'] else 'no'} | {row['wall_s']:.0f} | "
            f"{row['samples_per_s']:.1f} | {row['cpu_s']:.2f} | {row['cpu_ms_per_sample']:.3f} | "
            f"{row['peak_rss_mb']:.0f} | {same} | {row['load']:.1f} |"
        )
    lines.append("")
    split = [row for row in summary["rows"] if row.get("main_thread_ms_per_sample") is not None]
    if split:
        lines.append(
            "- The driver's CPU split: its main thread (skyt-tui's own work: reading the sources, "
            "sending runs, writing what comes back) took "
            + ", ".join(
                f"{row['main_thread_ms_per_sample']:.3f} ms/sample ({names.get(row['config'], row['config'])}, "
                f"{row['size']:,}, {'with' if row['repair'] else 'without'} repair)"
                for row in split
            )
            + "; the rest is Ray's own threads in the driver (gRPC pollers, its io loops, task events)."
        )
    sizes = figures["sizes"]
    for name, growth in summary["growth"].items():
        config, _, mode = name.partition("-")
        lines.append(
            f"- {names.get(config, config)}, {'with' if mode == 'repair' else 'without'} repair: "
            f"peak RSS at {sizes[-1]:,} samples is {growth['rss_ratio']:.2f}× its peak at "
            f"{sizes[0]:,}; one more sample costs the driver "
            f"{growth['marginal_cpu_ms_per_sample']:.3f} ms of CPU."
        )
    resume = summary.get("resume")
    if resume is not None:
        same = "the same bytes as" if resume["same_as_uninterrupted"] else "**other bytes than**"
        lines.append(
            f"- A driver killed: `analyze --resume` of {sizes[0]:,} samples with repair, SIGKILLed "
            f"after {resume['after_s']:.0f} s with {resume['kept']} of {resume['runs']} runs kept, "
            f"then run again with `--resume`: {resume['resumed']['wall_s']:.0f} s, "
            f"{same} the uninterrupted run; {counted(resume['kept_after'], 'file')} kept afterwards."
        )
    if "start" in figures:
        lines.append(
            f"- The start (connect, a judge per node, one run of one sample): "
            f"{figures['start']['wall_s']:.1f} s, {figures['start']['cpu_s']:.2f} s of the "
            "driver's CPU (mostly importing Ray and skyt-tui)."
        )
    idle = summary.get("idle")
    if idle is not None:
        rates = ", ".join(f"{1000 * m['cpu_s'] / m['wall_s']:.2f}" for m in idle["measurements"])
        lines.append(
            f"- An idle driver (connected to the cluster as `--executor ray` connects, doing "
            f"nothing for {IDLE_S:.0f} s, before and after the studies): "
            f"{idle['per_second_ms']:.2f} ms of CPU per second of wall "
            f"({rates}): Ray's own threads in the driver (gRPC pollers, its io loops, task events), which "
            "take that per second whatever the driver does."
        )
    return "\n".join(lines) + "\n"


def projection_markdown(figures: dict) -> str:
    projection = figures["summary"]["projection"]
    lines = [
        "From the largest study with repair above: T = F + n · max(d, c / (N · W)) for n = "
        f"{projection['samples']:,} samples on N nodes of W workers, with F = "
        f"{projection['fixed_s']:.1f} s (the start), c = "
        f"{projection['worker_s_per_sample'] * 1000:.1f} worker-ms per sample (wall × workers / "
        f"samples, on this machine at the load in the table) and d = {projection['driver_s_per_sample'] * 1000:.3f} "
        "ms of the driver's CPU per sample (the larger of its CPU over the samples and what one "
        "more sample costs), which no node takes off it: past N · W = "
        f"{projection['driver_bound_from_workers']:.0f} workers the driver is the limit."
        + (
            ""
            if "beyond_start" not in projection
            else " That d counts the study's start (importing Ray and skyt-tui, connecting) as if "
            "it recurred every "
            f"{figures['sizes'][-1]:,} samples, though F already counts it once: without it, d = "
            f"{projection['beyond_start']['driver_s_per_sample'] * 1000:.3f} ms per sample, past "
            f"{projection['beyond_start']['driver_bound_from_workers']:,.0f} workers."
        )
        + (
            ""
            if "split" not in projection
            else " Both count Ray's threads, which take a few ms of the driver's CPU per "
            "second of wall whatever it does, as if they were per sample; on this 2-worker "
            "cluster a sample takes a long wall, so they weigh on each sample far more than on a "
            "large cluster. Split by the idle driver above (a = "
            f"{projection['split']['per_second_ms']:.2f} ms per second of Ray's threads) the "
            "driver's own work is b = (CPU − the start's CPU − a · (wall − the start's wall)) / "
            f"samples = {projection['split']['per_sample_ms']:.3f} ms per sample, and its one "
            "core is full (a + b · samples/s = 1,000 ms per second) at "
            f"{projection['split']['samples_per_s_at_full_cpu']:,.0f} samples/s, that is past "
            f"{projection['split']['driver_bound_from_workers']:,.0f} workers: the second "
            "column of hours."
        ),
        "",
        "| nodes × workers | hours (d) | hours (a, b) |",
        "|---|---|---|",
    ]
    split = projection.get("split")
    for key, value in projection["hours"].items():
        nodes, workers = key.split("x")
        other = "–" if split is None else f"{split['hours'][key]:.2f}"
        lines.append(f"| {nodes} × {workers} | {value:.2f} | {other} |")
    lines.append("")
    lines.append(
        "These are projections, not measurements: a real cluster adds the network (each run "
        "crosses it twice, and the judges' answers to tasks on other nodes) and its nodes are "
        "not this loaded 2-core machine."
    )
    return "\n".join(lines) + "\n"


def write_docs(figures: dict, path: Path = DOCS) -> None:
    """The figures (and the projection, for the driver part) into docs/scaling.md, between their marks."""
    text = path.read_text()
    if figures.get("part") == "driver":
        parts = [("driver", driver_markdown(figures))]
        if "projection" in figures["summary"]:
            parts.append(("projection", projection_markdown(figures)))
    else:
        parts = [("figures", figures_markdown(figures))]
    for name, markdown in parts:
        start_mark, end_mark = MARKS[name]
        start, end = text.index(start_mark) + len(start_mark), text.index(end_mark)
        text = text[:start] + "\n" + markdown + text[end:]
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
