"""promptfoo results: `promptfoo eval -o results.jsonl` (one result a line) or `-o results.json`.

A result carries `vars` (the test's variables), `prompt.raw` (the prompt sent), `provider`
(`id`, `label`), `response` (`output`, `tokenUsage`, `finishReason`), `success` and `score`
(promptfoo's own verdict on its assertions), and, since results version 3, `promptIdx` and
`testIdx`. `-o results.json` writes `{"evalId", "results": {"version", "results": […],
"stats", …}}`: version 2 (promptfoo up to 0.8x) has no `promptIdx`/`testIdx`, so its prompts
are told apart by `prompt.label` (else `prompt.raw`); `-o results.jsonl` exists from version 3
on. The task is `vars.task_id` (else the test's `metadata.task_id`, else its `description`);
when `vars` hold the task's `prompt`, `test` and `entry_point` they define the contract, else
`--problems` or the catalog. One run per task × provider × prompt, results in file order
(`--repeat` gives the samples).
"""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import as_dict, task_run, text_or_none, usage
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport


def _is_result(row: Any) -> bool:
    """A promptfoo result: version 3's `promptIdx`/`testIdx`, or version 2's `prompt`, `vars`
    and `response` (or `error`), with the verdict (`success` or `gradingResult`)."""
    if not isinstance(row, dict) or ("success" not in row and "gradingResult" not in row):
        return False
    if "promptIdx" in row and "testIdx" in row:
        return True
    return (
        isinstance(row.get("prompt"), dict)
        and "vars" in row
        and ("response" in row or "error" in row)
    )


def _results_of(document: Any) -> list[Any] | None:
    """The result list of a `-o results.json` document (`{"evalId", "results": {"results": […]}}`)."""
    if not isinstance(document, dict):
        return None
    inner = document.get("results")
    listed = inner.get("results") if isinstance(inner, dict) else None
    if isinstance(listed, list) and (not listed or _is_result(listed[0])):
        return listed
    return None


def _resembles(document: Any) -> bool:
    """A promptfoo `-o results.json` whose results this reader does not understand."""
    inner = document.get("results") if isinstance(document, dict) else None
    return (
        isinstance(inner, dict)
        and ("evalId" in document or "shareableUrl" in document)
        and any(key in inner for key in ("version", "stats", "table", "results"))
    )


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    if _results_of(source.json_or_none()) is not None:
        return True
    return _is_result(source.first_row())


def _task(result: dict[str, Any]) -> str | None:
    variables = as_dict(result.get("vars"))
    case = as_dict(result.get("testCase"))
    metadata = as_dict(case.get("metadata"))
    for value in (variables.get("task_id"), metadata.get("task_id"), case.get("description")):
        if isinstance(value, str) and value:
            return value
    return None


def _problem(task_id: str, result: dict[str, Any]) -> humaneval.Problem | None:
    variables = as_dict(result.get("vars"))
    if all(isinstance(variables.get(key), str) for key in ("prompt", "test", "entry_point")):
        return humaneval.Problem(
            task_id=task_id,
            prompt=variables["prompt"],
            entry_point=variables["entry_point"],
            canonical_solution=variables.get("canonical_solution") or "",
            test=variables["test"],
        )
    return None


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    document = source.json_or_none()
    listed = _results_of(document)
    if listed is not None:
        rows = list(enumerate(listed, start=1))
        unit = "result"
    elif document is not None and "\n" in source.text.strip():
        inner = document.get("results") if isinstance(document, dict) else None
        version = inner.get("version") if isinstance(inner, dict) else None
        raise InputError(
            f"{source.name}: a JSON document that is not a promptfoo results file this reader "
            f"knows (results version {version!r}): expected results.results, a list of results "
            "with prompt, vars, response and success (versions 2 and 3)"
        )
    else:
        if source.text.lstrip()[:1] == "{" and source.first_row() is None:
            source.json()  # a JSON document that does not parse: the parser's own position
        rows = source.rows()
        unit = "line"
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    prompts: dict[Any, None] = {}
    for number, result in rows:
        at = f"{source.name}: {unit} {number}"
        if not _is_result(result):
            raise InputError(
                f"{at}: not a promptfoo result (expected promptIdx and testIdx, or prompt, vars "
                "and response, with success)"
            )
        task_id = _task(result)
        if task_id is None:
            raise InputError(
                f"{at}: no task id (give each test a vars.task_id, or metadata.task_id)"
            )
        provider = as_dict(result.get("provider"))
        model = text_or_none(provider.get("label")) or text_or_none(provider.get("id"))
        response = as_dict(result.get("response"))
        output = response.get("output")
        failed = result.get("error") and not isinstance(output, str)
        answer = output if isinstance(output, str) and not failed else None
        tokens = as_dict(response.get("tokenUsage"))
        prompt = as_dict(result.get("prompt"))
        success = result.get("success")
        facts = SampleFacts(
            prompt=text_or_none(prompt.get("raw")),
            finish_reason=text_or_none(response.get("finishReason")),
            usage=usage(tokens.get("prompt"), tokens.get("completion"), tokens.get("total")),
            tool_passed=success if isinstance(success, bool) else None,
            tool_detail={"success": success, "score": result.get("score")},
            where=f"{unit} {number}",
        )
        prompt_index = result.get("promptIdx")
        if prompt_index is None:  # results version 2: the prompt's label tells prompts apart
            prompt_index = text_or_none(prompt.get("label")) or text_or_none(prompt.get("raw"))
        prompts[prompt_index] = None
        key = (task_id, model, prompt_index)
        group = groups.setdefault(
            key, {"answers": [], "facts": [], "result": result, "line": number}
        )
        group["answers"].append(answer)
        group["facts"].append(facts)
    if not groups:
        raise InputError.at(source.name, "no results (empty file)")
    tool = ToolReport(tool="promptfoo", granularity="sample", metric="success")
    order = {key: k for k, key in enumerate(prompts)}
    runs = []
    for (task_id, model, prompt_index), group in groups.items():
        run = task_run(
            task_id=task_id,
            answers=group["answers"],
            facts=group["facts"],
            options=options,
            source=source.name,
            source_format="promptfoo",
            model=model,
            temperature=None,
            tool=tool,
            problem=_problem(task_id, group["result"]),
            problem_file=f"{source.name} (vars)",
            extra={"line": group["line"], "prompt_index": prompt_index},
        )
        if len(prompts) > 1:
            from dataclasses import replace

            number = prompt_index if isinstance(prompt_index, int) else order[prompt_index]
            run = replace(run, id=f"{run.id}_p{number}")
        runs.append(run)
    return runs


FORMAT = Format(
    name="promptfoo",
    title="promptfoo results (promptfoo eval -o results.jsonl, or -o results.json)",
    command="skyt-tui analyze results.jsonl [--problems problems.jsonl]",
    keeps="per result the task (vars.task_id), the prompt sent, the answer, provider, stop "
    "reason, token counts and promptfoo's success (shown beside skyt-tui's)",
    loses="the provider's temperature (not in the results lines: give --temperature to "
    "import), the assertions and their reasons, cost and latency",
    recognise=recognise,
    load=load,
    needs=("--problems",),
    resembles=lambda source: _resembles(source.json_or_none()),
)
