"""Does skyt-tui reproduce EvalPlus's base and plus verdicts on real answers and EvalPlus's dataset?

Takes the first `--tasks` HumanEval tasks of the CodeGen corpus (../shared/corpus/
humaneval-codegen16b: real completions), `--samples` answers each, made into programs by
skyt-tui's one assembly rule; writes them as an EvalPlus `samples.jsonl` and the matching
tasks of EvalPlus's dataset (`--dataset`, e.g. HumanEvalPlus-v0.1.10.jsonl) as a dataset of
their own; runs `evalplus.evaluate` on them (EvalPlus's own verdicts); then reads EvalPlus's
`samples_eval_results.json` with `python3 -m skyt_tui analyze FILE --problems DATASET --json`
and prints base and plus pass rates by both, and the samples where they disagree.

    python3 scripts/evalplus_reproduce.py --dataset HumanEvalPlus-v0.1.10.jsonl --tasks 20 --samples 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skyt_tui.engine.sources.extract import assemble_completion  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "humaneval-codegen16b"


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--task-ids", nargs="*", help="these tasks instead of the first --tasks")
    args = parser.parse_args()
    problems = {p["task_id"]: p for p in rows(CORPUS / "problems.jsonl")}
    dataset = {p["task_id"]: p for p in rows(args.dataset)}
    tasks = [t for t in problems if t in dataset][: args.tasks]
    if args.task_ids:
        tasks = [t for t in args.task_ids if t in problems and t in dataset]
    answers: dict[str, list[str]] = {t: [] for t in tasks}
    for sample in rows(CORPUS / "samples.jsonl"):
        task = sample["task_id"]
        if task in answers and len(answers[task]) < args.samples:
            problem = problems[task]
            program = assemble_completion(
                sample["completion"], prompt=problem["prompt"], entry=problem["entry_point"]
            ).code
            answers[task].append(program)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        subset = work / "dataset.jsonl"
        subset.write_text("".join(json.dumps(dataset[t]) + "\n" for t in tasks))
        samples = work / "samples.jsonl"
        samples.write_text(
            "".join(
                json.dumps({"task_id": t, "solution": program}) + "\n"
                for t in tasks
                for program in answers[t]
            )
        )
        env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH": str(subset)}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "evalplus.evaluate",
                "--dataset",
                "humaneval",
                "--samples",
                str(samples),
                "--parallel",
                "2",
            ],
            env=env,
            check=True,
            capture_output=True,
            timeout=3600,
        )
        results = work / "samples_eval_results.json"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "skyt_tui",
                "analyze",
                str(results),
                "--problems",
                str(subset),
                "--json",
                "--no-repair",
                "--samples",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=7200,
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        out = json.loads(done.stdout)
    [entry] = out["sources"]
    rates = entry["evalplus"]
    print(f"{len(tasks)} tasks × {args.samples} answers: {entry['samples']} samples")
    for kind in ("base", "plus"):
        print(f"{kind:4}: skyt-tui {rates[kind]['skyt']:.3f} · EvalPlus {rates[kind]['tool']:.3f}")
    print(f"disagreements (plus verdict): {entry['disagreements']}")
    for run in out["runs"]:
        verdicts = run.get("tool_verdicts") or {}
        if verdicts.get("disagreements"):
            print(f"  {run['contract_id']}: samples {verdicts['disagreeing_samples']}")
            for index in verdicts["disagreeing_samples"]:
                sample = run["samples"][index]
                detail = sample.get("recorded", {}).get("tool_detail")
                print(f"    #{index}: skyt-tui {sample['oracle']['status']}, EvalPlus {detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
