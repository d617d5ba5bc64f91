"""The human-eval layout: `problems.jsonl` + `samples.jsonl`, and program assembly.

A sample's program is the problem's prompt followed by the completion, cut at
the standard human-eval stop sequences (a completion that runs past the end of
the function starts a new top-level statement: class, def, comment, if, print);
an answer that defines the entry point itself is taken whole. The rule lives in
`extract.assemble_completion`, shared by every command.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError

STOP_SEQUENCES = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
ANSWER_FIELDS = ("completion", "solution")


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
    field: str = "completion"
    """The field the answer came from: completion (human-eval) or solution (EvalPlus)."""


def truncation(completion: str) -> tuple[str, str | None]:
    """The completion cut at its earliest stop sequence, and that sequence (None: nothing cut)."""
    cut, stop_at = len(completion), None
    for stop in STOP_SEQUENCES:
        position = completion.find(stop)
        if position != -1 and position < cut:
            cut, stop_at = position, stop
    return completion[:cut], stop_at


def truncate_completion(completion: str) -> str:
    """Cut at the earliest stop sequence (the human-eval convention)."""
    return truncation(completion)[0]


def assemble_program(problem: Problem, completion: str) -> str:
    """The sample's program by the one assembly rule (`extract.assemble_completion`)."""
    from skyt_tui.engine.extract import assemble_completion

    return assemble_completion(completion, prompt=problem.prompt, entry=problem.entry_point).code


def safe_task_id(task_id: str) -> str:
    """`HumanEval/0` -> `HumanEval_0`: usable as a contract or run id and a file name."""
    return "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in task_id)


def _read_jsonl(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, Any]]]:
    rows = store.read_jsonl_rows(path)
    for number, row in rows:
        for key in required:
            if not isinstance(row.get(key), str):
                raise InputError.at(path, f"line {number}: missing or non-string field {key!r}")
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
    """The answers of a `samples.jsonl`: `completion` (human-eval) or `solution` (EvalPlus) a line."""
    completions = []
    for number, row in _read_jsonl(Path(path), ("task_id",)):
        if problems is not None and row["task_id"] not in problems:
            raise InputError.at(
                path, f"line {number}: task_id {row['task_id']!r} is not in problems.jsonl"
            )
        field = next((name for name in ANSWER_FIELDS if name in row), None)
        if field is None or not isinstance(row[field], str):
            raise InputError.at(
                path,
                f"line {number}: needs a string field 'completion' (human-eval) or 'solution' (EvalPlus)",
            )
        completions.append(
            Completion(task_id=row["task_id"], completion=row[field], line=number, field=field)
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
