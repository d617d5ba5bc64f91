"""The repair search's CPU, serial, this tree against a baseline, with the same verdicts.

    python bench/repair_search.py FILE... [--baseline-ref main] [--rounds 3]

First the analysis of FILES (`analyze FILES --json --samples`, in process, with this tree) is
run once with its repair searches serial in this process, and every task and every verdict the
oracle gave a search are recorded. Then each side — this tree, and the baseline (git
`--baseline-ref`, unpacked with `git archive`) — replays every search in a fresh interpreter:
the same tasks in the same groups, one rewrite cache per group as the repair workers keep, the
verdicts read from the record (no sandbox), and the CPU of the searches alone is measured
(`time.process_time`). The sides alternate `--rounds` times; each replay's results must equal
the recorded ones (repair is a pure function of its task and the verdicts). Prints each side's
CPU per round, the ratio per round and its median, per contract the largest groups, and the
load average.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPLAY = r"""
import json, pickle, sys, time
from functools import partial
from skyt_tui.engine.repair import RewriteCache

record = pickle.load(open(sys.argv[1], "rb"))
tasks, answers, expected = record["tasks"], record["answers"], record["results"]

def verify(index, programs):
    return [answers[index][program] for program in programs]

groups = {}
for index, task in enumerate(tasks):
    groups.setdefault(task.group, []).append(index)
results = [None] * len(tasks)
per_group = {}
start = time.process_time()
for group, indexes in groups.items():
    began = time.process_time()
    rewrites = RewriteCache()
    for index in indexes:
        results[index] = tasks[index].run(partial(verify, index), rewrites)
    per_group[str(group)] = time.process_time() - began
cpu = time.process_time() - start
same = [result.to_dict() for result in results] == expected
print(json.dumps({"cpu_s": cpu, "same": same, "per_group": per_group}))
"""


def record(files: list[str], into: Path) -> int:
    """Run the analysis once, its searches serial here, and record tasks, verdicts and results."""
    from skyt_tui import cli
    from skyt_tui.engine.analysis import repairs
    from skyt_tui.engine.repair import RewriteCache

    tasks: list = []
    answers: list[dict[str, bool]] = []
    results: list = []

    def serial(repair_tasks, verify, threads, progress):
        heard: list[dict[str, bool]] = [{} for _ in repair_tasks]

        def recording(index, programs):
            found = list(verify(index, programs))
            heard[index].update(zip(programs, map(bool, found)))
            return found

        groups: dict = {}
        for index, task in enumerate(repair_tasks):
            groups.setdefault(task.group, []).append(index)
        found = [None] * len(repair_tasks)
        for indexes in groups.values():
            rewrites = RewriteCache()
            for index in indexes:
                found[index] = repair_tasks[index].run(
                    lambda programs, index=index: recording(index, programs), rewrites
                )
        tasks.extend(repair_tasks)
        answers.extend(heard)
        results.extend(result.to_dict() for result in found)
        progress(len(repair_tasks))
        return found

    repairs.PROCESS_REPAIR_MIN_TASKS = 10**9
    repairs.repair_in_threads = serial
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            cli.main(["analyze", *files, "--json", "--samples"])
        except SystemExit:
            pass
        finally:
            sys.stdout = saved
    into.write_bytes(pickle.dumps({"tasks": tasks, "answers": answers, "results": results}))
    return len(tasks)


def replay(code_root: Path, recorded: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    done = subprocess.run(
        [sys.executable, "-c", REPLAY, str(recorded)],
        capture_output=True,
        text=True,
        env=env,
        cwd=code_root,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--baseline-ref", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skyt-repair-bench-") as scratch:
        scratch_dir = Path(scratch)
        os.environ.setdefault("SKYT_HOME", str(scratch_dir / "home"))
        recorded = scratch_dir / "record.pickle"
        count = record([str(Path(f).resolve()) for f in args.files], recorded)
        baseline = scratch_dir / "baseline"
        baseline.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline_ref], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(baseline)], input=archive, check=True)
        print(f"{count} repair tasks recorded; load average {os.getloadavg()[0]:.1f}")
        ratios = []
        last: dict[str, dict] = {}
        for round_ in range(1, args.rounds + 1):
            new = replay(ROOT, recorded)
            old = replay(baseline, recorded)
            if not (new["same"] and old["same"]):
                print("results differ from the recorded ones", file=sys.stderr)
                return 1
            ratios.append(old["cpu_s"] / new["cpu_s"])
            last = {"new": new, "old": old}
            print(
                f"round {round_}: this tree {new['cpu_s']:.2f} s, {args.baseline_ref} "
                f"{old['cpu_s']:.2f} s CPU -> {ratios[-1]:.2f}x "
                f"(load {os.getloadavg()[0]:.1f})"
            )
        print(f"median {statistics.median(ratios):.2f}x; results identical to the recorded ones")
        largest = sorted(last["old"]["per_group"], key=last["old"]["per_group"].get, reverse=True)
        for group in largest[:4]:
            print(
                f"  {group}: {last['new']['per_group'][group]:.2f} s against "
                f"{last['old']['per_group'][group]:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
