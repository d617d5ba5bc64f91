"""Agreement of skyt-tui's Ouyang et al. metrics with the authors' definitions, on real samples.

Takes the first K samples (default 5, as the paper) of every task of a human-eval folder
(default: the CodeGen-16B samples, 80 tasks), runs skyt-tui's pipeline on them (sandboxed
oracle, no repair) and its literature metrics, and compares every per-task metric
(test pass rate mean/variance/max diff, OER, OER_ow, LCS, LED) with

1. an independent computation written here from the authors' released code
   (github.com/CodeHero0/Nondeterminism-of-ChatGPT-in-Code-Generation, `syntactic_similarity_OER.py`
   `analyze_among_among5`, `measurement_summary_draw_heatmap.py`), fed the same programs and the
   same per-test outcomes, each mapped to what their harness records (a value; `execution error: 1`
   for any exception or failed compile/load; `Timeout`);
2. with `--authors-repo DIR --python PY`: their own `syntactic_similarity_OER.py -o R1`, run in a
   throwaway folder on records in their format holding the same programs and outcomes (PY needs
   their imports: nltk, seaborn, pandas, scipy, matplotlib);
3. with `--authors-pipeline` (and a full `HumanEval.jsonl`, `--humaneval-jsonl`): their whole
   HumanEval pipeline (`Modify_HumanEval.py` test cases, `intermedia_analyze.py` harness, one
   `python` process per test case, inside bubblewrap when it is there) on the same programs, for
   the paper's headline: the share of tasks with zero equal test output.

`--before DIR` also runs `analyze` from another checkout (e.g. the code before issue 25) on the
same programs for that headline. Nothing here is part of skyt-tui; their code is never copied
into this repository (point `--authors-repo` at a checkout of theirs outside it).

    python3 scripts/ouyang_agreement.py
    python3 scripts/ouyang_agreement.py --authors-repo /tmp/ouyang/repo --python /tmp/ouyang/venv/bin/python \
        --authors-pipeline --humaneval-jsonl /tmp/ouyang/HumanEval.jsonl --before /tmp/before
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus" / "humaneval-codegen16b"
METRICS = (
    "test_pass_rate_mean",
    "test_pass_rate_variance",
    "test_pass_rate_max_diff",
    "OER",
    "OER_ow",
    "LCS",
    "LED",
)
TOLERANCE = 1e-12
MODEL, TEMPERATURE = "codegen", "1"
"""Only names in their record files' paths (their scripts find the records by them)."""


def first_samples_folder(corpus: Path, per_task: int, destination: Path) -> Path:
    """A human-eval folder with the corpus's problems and the first `per_task` samples of each."""
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(corpus / "problems.jsonl", destination / "problems.jsonl")
    kept: dict[str, int] = defaultdict(int)
    lines = []
    for line in (corpus / "samples.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if kept[row["task_id"]] < per_task:
            kept[row["task_id"]] += 1
            lines.append(line)
    (destination / "samples.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return destination


def skyt_side(folder: Path) -> dict[str, dict[str, Any]]:
    """Per task: skyt-tui's literature metrics, and the programs and outcomes they came from."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs
    from skyt_tui.engine.measure.literature import literature_metrics
    from skyt_tui.engine.sources.recorded import load_humaneval_runs

    runs = load_humaneval_runs(folder)
    analyses = analyze_runs(runs, repair_samples=False)
    tasks = {}
    for run, analysis in zip(runs, analyses):
        codes = [code for code in run.codes if code is not None]
        samples = sorted(analysis.samples, key=lambda s: s.index)
        tasks[run.extra["task_id"]] = {
            "metrics": {**literature_metrics(samples, codes), "OER": analysis.metrics.OER},
            "codes": codes,
            "outputs": [list(s.outputs or ()) for s in samples],
            "passed": [list(s.pass_vector or ()) for s in samples],
            "timeouts": sum(key == "!Timeout" for s in samples for key in s.outputs or ()),
        }
    return tasks


def their_status(key: str) -> str:
    """What their HumanEval harness records for a test (intermedia_analyze.py lines 62–76)."""
    if key in ("!Timeout", "!CpuLimit"):
        return "Timeout"
    if key.startswith("!"):
        return "execution error: 1"
    return key


def edit_distance(a: list[str], b: list[str]) -> int:
    """nltk.edit_distance with its defaults (unit costs, no transpositions): the textbook table."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
    return row[-1]


def independent(task: dict[str, Any], *, timeout_as_written: bool) -> dict[str, float]:
    """Their per-task numbers, recomputed from their code's loops (line numbers of
    syntactic_similarity_OER.py; `timeout_as_written`: their line 155 compares with 'timeout',
    which their HumanEval harness never writes)."""
    statuses = [[their_status(key) for key in row] for row in task["outputs"]]
    tokens = [code.split() for code in task["codes"]]  # line 233
    total = len(statuses[0])  # line 176
    same = correct = 0
    for i in range(total):  # lines 148-162
        output_set = {row[i] for row in statuses}
        if len(output_set) == 1:
            same += 1
            value = next(iter(output_set))
            timeout = value == "timeout" if timeout_as_written else value == "Timeout"
            if timeout or "execution error" in value or value == "exception":
                continue
            if sum(len(t) for t in tokens) == 0:
                continue
            correct += 1
    rates = [sum(p) / len(p) if p else 0.0 for p in task["passed"]]  # lines 209-212
    lcs, led = [], []
    for other in tokens[1:]:
        match = SequenceMatcher(None, tokens[0], other).find_longest_match(
            0, len(tokens[0]), 0, len(other)
        )  # lines 197-200
        lcs.append(match.size / len(tokens[0]) if tokens[0] else 0)  # lines 244-247
        led.append(edit_distance(tokens[0], other))  # line 167
    mean = sum(rates) / len(rates)
    return {
        "test_pass_rate_mean": mean,
        "test_pass_rate_variance": sum((r - mean) ** 2 for r in rates) / len(rates),
        "test_pass_rate_max_diff": max(rates) - min(rates),
        "OER": same / total if total else 0.0,  # lines 177-188
        "OER_ow": correct / total if total else 0.0,
        "LCS": sum(lcs) / len(lcs),
        "LED": sum(led) / len(led),
    }


def write_records(tasks: dict[str, dict[str, Any]], folder: Path) -> None:
    """The records their `analyze_among_among5` reads: one line per task, K candidates each."""
    record = folder / "log" / "record"
    record.mkdir(parents=True, exist_ok=True)
    name = f"dataset_HumanEval_model_{MODEL}_topn_5_temperature_{TEMPERATURE}.0.log_0"
    with (record / name).open("w", encoding="utf-8") as handle:
        for index, (task_id, task) in enumerate(tasks.items()):
            candidates = [
                {
                    "code": code,
                    "passed_case": [i for i, ok in enumerate(passed) if ok],
                    "case_status": [their_status(key) for key in outputs],
                }
                for code, passed, outputs in zip(task["codes"], task["passed"], task["outputs"])
            ]
            row = {"name": task_id, "index_num": index, "code_candidates": candidates}
            handle.write(json.dumps(row) + "\n")


def their_summary(result: dict[str, Any]) -> dict[str, float]:
    """One task of their intermediate result, summarised as measurement_summary_draw_heatmap.py
    does (lines 57-61, 139-141, 162-170)."""
    rates = result["test_case_pass_rate"]
    mean = sum(rates) / len(rates)
    similarity = result["syntatic_similarity"]
    return {
        "test_pass_rate_mean": mean,
        "test_pass_rate_variance": sum((r - mean) ** 2 for r in rates) / len(rates),
        "test_pass_rate_max_diff": max(rates) - min(rates),
        "OER": similarity["same_output_between_5"],
        "OER_ow": similarity["same_output_between_5_correct"],
        "LCS": sum(result["LCS"]) / len(result["LCS"]),
        "LED": sum(similarity["Levenshtein_edit_distance"])
        / len(similarity["Levenshtein_edit_distance"]),
    }


def authors_code(tasks: dict[str, dict[str, Any]], repo: Path, python: str) -> dict[str, Any]:
    """Their `syntactic_similarity_OER.py -o R1` on records of skyt-tui's programs and outcomes."""
    with tempfile.TemporaryDirectory(prefix="ouyang-metrics-") as scratch:
        folder = Path(scratch)
        write_records(tasks, folder)
        subprocess.run(
            [python, str(repo / "syntactic_similarity_OER.py"), "-d", "HumanEval", "-t"]
            + [TEMPERATURE, "-m", MODEL, "-o", "R1"],
            cwd=folder,
            check=True,
            env={**os.environ, "MPLBACKEND": "Agg"},
        )
        path = folder / "result_data" / f"HumanEval_{MODEL}_{TEMPERATURE}"
        results = json.loads((path / "intermediate_result_among5.json").read_text())
    return {task_id: their_summary(result) for task_id, result in results.items()}


def authors_pipeline(
    tasks: dict[str, dict[str, Any]], repo: Path, python: str, humaneval_jsonl: Path
) -> dict[str, Any]:
    """Their HumanEval pipeline end to end on the same programs: their test cases and harness."""
    with tempfile.TemporaryDirectory(prefix="ouyang-pipeline-") as scratch:
        folder = Path(scratch)
        (folder / "HumanEval").mkdir()
        shutil.copyfile(humaneval_jsonl, folder / "HumanEval" / "HumanEval.jsonl")
        for script in (
            "Modify_HumanEval.py",
            "intermedia_analyze.py",
            "syntactic_similarity_OER.py",
        ):
            shutil.copyfile(repo / script, folder / script)
        bin_dir = folder / "bin"
        bin_dir.mkdir()
        wrapper = bin_dir / "python"  # their harness runs `python`
        wrapper.write_text(f'#!/bin/sh\nexec "{python}" "$@"\n')
        wrapper.chmod(0o755)
        env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "MPLBACKEND": "Agg",
            "HOME": str(folder),
            "LANG": "C.UTF-8",
        }
        confine = []
        if shutil.which("bwrap"):  # the samples run unsandboxed in their harness: confine it
            confine = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
            confine += ["--bind", str(folder), str(folder), "--unshare-all", "--die-with-parent"]
        subprocess.run(
            [*confine, python, "Modify_HumanEval.py"], cwd=folder, env=env, check=True,
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        (folder / "log" / "record").mkdir(parents=True)
        log_name = f"dataset_HumanEval_model_{MODEL}_topn_5_temperature_{TEMPERATURE}.0.log_0"
        with (folder / "log" / log_name).open("w", encoding="utf-8") as handle:
            for task_id, task in tasks.items():
                for index, code in enumerate(task["codes"]):
                    response = f"```python\n{code}\n```"  # their response_2_code takes it out
                    handle.write(
                        json.dumps({"name": task_id, "index": index, "response": response}) + "\n"
                    )
        subprocess.run(
            [*confine, python, "intermedia_analyze.py", "-f", f"log/{log_name}"],
            cwd=folder, env=env, check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        subprocess.run(
            [*confine, python, "syntactic_similarity_OER.py", "-d", "HumanEval", "-t"]
            + [TEMPERATURE, "-m", MODEL, "-o", "R1"],
            cwd=folder, env=env, check=True,
        )  # fmt: skip
        path = folder / "result_data" / f"HumanEval_{MODEL}_{TEMPERATURE}"
        results = json.loads((path / "intermediate_result_among5.json").read_text())
    return {task_id: their_summary(result) for task_id, result in results.items()}


def before_headline(checkout: Path, folder: Path) -> float:
    """The share of tasks with OER = 0 by another checkout's `analyze` on the same programs."""
    with tempfile.TemporaryDirectory(prefix="skyt-before-") as home:
        out = subprocess.run(
            [sys.executable, "-m", "skyt_tui", "analyze", str(folder), "--json", "--no-repair"],
            cwd=checkout,
            env={**os.environ, "PYTHONPATH": str(checkout), "SKYT_HOME": home},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    runs = json.loads(out)["runs"]
    return sum(run["metrics"]["OER"] == 0 for run in runs) / len(runs)


def agree(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0.0, abs_tol=TOLERANCE)


def agreement(ours: dict[str, dict[str, Any]], theirs: dict[str, dict[str, float]]) -> dict:
    table = {}
    for metric in METRICS:
        shared = [t for t in ours if t in theirs]
        same = [t for t in shared if agree(ours[t]["metrics"][metric], theirs[t][metric])]
        table[metric] = {
            "agree": len(same),
            "tasks": len(shared),
            "differ": sorted(set(shared) - set(same)),
        }
    return table


def headline(values: list[float | None]) -> float:
    """Their `ratio_of_worst(OER, 0)` (measurement_summary_draw_heatmap.py lines 11-22)."""
    return sum(v == 0 for v in values) / len(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--per-task", type=int, default=5)
    parser.add_argument("--authors-repo", type=Path)
    parser.add_argument("--python", default=None, help="an interpreter with their dependencies")
    parser.add_argument("--authors-pipeline", action="store_true")
    parser.add_argument("--humaneval-jsonl", type=Path)
    parser.add_argument("--before", type=Path, help="another checkout of skyt-tui")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args(argv)
    if not (args.corpus / "problems.jsonl").is_file():
        print(f"{args.corpus}: not a human-eval folder (no problems.jsonl)", file=sys.stderr)
        return 2
    if (args.authors_repo is None) != (args.python is None):
        print("--authors-repo and --python go together", file=sys.stderr)
        return 2
    if args.authors_pipeline and (args.authors_repo is None or args.humaneval_jsonl is None):
        print(
            "--authors-pipeline needs --authors-repo, --python and --humaneval-jsonl",
            file=sys.stderr,
        )
        return 2
    report: dict[str, Any] = {"corpus": str(args.corpus), "per_task": args.per_task}
    with tempfile.TemporaryDirectory(prefix="ouyang-samples-") as scratch:
        folder = first_samples_folder(args.corpus, args.per_task, Path(scratch) / "samples")
        os.environ.setdefault("SKYT_HOME", str(Path(scratch) / "home"))
        ours = skyt_side(folder)
        report["tasks"] = len(ours)
        report["tests_all_timed_out"] = sum(
            1
            for task in ours.values()
            for i in range(len(task["outputs"][0]))
            if all(row[i] == "!Timeout" for row in task["outputs"])
        )
        comparisons = {
            "independent (their code's loops, a timeout never a value)": {
                t: independent(task, timeout_as_written=False) for t, task in ours.items()
            },
            "independent (their line 155 as written: 'timeout')": {
                t: independent(task, timeout_as_written=True) for t, task in ours.items()
            },
        }
        if args.authors_repo is not None:
            comparisons["their syntactic_similarity_OER.py"] = authors_code(
                ours, args.authors_repo, args.python
            )
        headlines = {"skyt-tui": headline([t["metrics"]["OER"] for t in ours.values()])}
        if args.authors_pipeline:
            pipeline = authors_pipeline(ours, args.authors_repo, args.python, args.humaneval_jsonl)
            headlines["their pipeline (their test cases and harness)"] = headline(
                [v["OER"] for v in pipeline.values()]
            )
            report["pipeline"] = {
                "agreement": agreement(ours, pipeline),
                "same_zero_equal_tasks": sum(
                    (ours[t]["metrics"]["OER"] == 0) == (pipeline[t]["OER"] == 0)
                    for t in ours
                    if t in pipeline
                ),
            }
        if args.before is not None:
            headlines["skyt-tui before (--before)"] = before_headline(args.before, folder)
    for name, theirs in comparisons.items():
        headlines[name] = headline([v["OER"] for v in theirs.values()])
    report["agreement"] = {name: agreement(ours, theirs) for name, theirs in comparisons.items()}
    report["zero_equal_output_share"] = headlines
    for name, table in report["agreement"].items():
        print(f"per-task agreement with {name} (|difference| <= {TOLERANCE:g}):")
        for metric, row in table.items():
            listed = f"  differ: {', '.join(row['differ'][:8])}" if row["differ"] else ""
            print(f"  {metric:<24} {row['agree']:>3}/{row['tasks']}{listed}")
    if "pipeline" in report:
        print("per-task agreement with their whole pipeline (their test cases; same programs):")
        for metric, row in report["pipeline"]["agreement"].items():
            print(f"  {metric:<24} {row['agree']:>3}/{row['tasks']}")
        print(
            "tasks on which skyt-tui and their pipeline agree whether OER = 0: "
            f"{report['pipeline']['same_zero_equal_tasks']}/{report['tasks']}"
        )
    print(f"test cases on which every sample timed out: {report['tests_all_timed_out']}")
    print("share of tasks with zero equal test output (OER = 0):")
    for name, value in headlines.items():
        print(f"  {name:<58} {value:.3f}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
