"""OpenAI Batch API output files, joined to their input file (`--requests`).

An output line is `{"id", "custom_id", "response": {"status_code", "request_id", "body"},
"error"}`; `body` is a chat completion (`choices[0].message.content`) or a completion
(`choices[0].text`) with `model`, `finish_reason` and `usage`. The model, temperature and
messages that were sent are only in the input file (`{"custom_id", "method", "url",
"body"}`), joined through `custom_id`; samples follow the input file's order (the output's
order is not guaranteed). A request's task is the task id its `custom_id` starts with
(`HumanEval/0-3`, `HumanEval_0#3`: the longest known id followed by `-`, `_`, `#`, `:`, `.`
or `/`, or the whole custom_id), the known ids being `--problems`' tasks or the catalog's
contracts; else the problem whose prompt the request's messages contain.
"""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import (
    as_list,
    messages_text,
    task_run,
    temperature,
    text_or_none,
    usage,
)
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts

SEPARATORS = "-_#:./"


def _is_output(row: Any) -> bool:
    return (
        isinstance(row, dict)
        and "custom_id" in row
        and ("response" in row or "error" in row)
        and "method" not in row
    )


def _is_input(row: Any) -> bool:
    return isinstance(row, dict) and {"custom_id", "method", "url", "body"} <= row.keys()


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    return _is_output(source.first_row())


def recognise_input(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    return _is_input(source.first_row())


def _known_ids(options: LoadOptions) -> list[str]:
    if options.problems is not None:
        return sorted(options.problem_index)
    from skyt_tui.engine.contracts.catalog import scan_contracts

    return sorted(entry.id for entry in scan_contracts())


def task_of(custom_id: str, known: list[str]) -> str | None:
    """The longest known id that `custom_id` is, or starts with followed by a separator."""
    best = None
    for task in known:
        if custom_id == task or (
            custom_id.startswith(task)
            and custom_id[len(task)] in SEPARATORS
            and len(custom_id) > len(task) + 1
        ):
            if best is None or len(task) > len(best):
                best = task
    return best


def _by_prompt(prompt: str | None, options: LoadOptions) -> str | None:
    if not prompt or options.problems is None:
        return None
    found = [
        p.task_id
        for p in options.problems.values()
        if p.prompt.strip() and p.prompt.strip() in prompt
    ]
    return max(found, key=len) if found else None


def _answer(body: dict[str, Any]) -> tuple[str | None, str | None]:
    choices = as_list(body.get("choices"))
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    message = first.get("message") if isinstance(first.get("message"), dict) else None
    text = message.get("content") if message is not None else first.get("text")
    return (text if isinstance(text, str) else None), text_or_none(first.get("finish_reason"))


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if options.requests is None:
        raise InputError.at(
            source.name,
            "an OpenAI Batch output names its requests only by custom_id: give the batch's "
            "input file with --requests FILE (model, temperature and messages are there)",
        )
    requests: dict[str, tuple[int, dict[str, Any]]] = {}
    request_name = files.label(options.requests)
    for number, row in files.read_jsonl_rows(options.requests):
        if not _is_input(row) or not isinstance(row.get("custom_id"), str):
            raise InputError(
                f"{request_name}: line {number}: not a Batch request (custom_id, method, url, body)"
            )
        if row["custom_id"] in requests:
            raise InputError(
                f"{request_name}: line {number}: custom_id {row['custom_id']!r} appears twice"
            )
        requests[row["custom_id"]] = (number, row)
    outputs: dict[str, tuple[int, dict[str, Any]]] = {}
    for number, row in source.rows():
        at = f"{source.name}: line {number}"
        if not _is_output(row) or not isinstance(row.get("custom_id"), str):
            raise InputError(f"{at}: not a Batch output line (custom_id, response, error)")
        if row["custom_id"] not in requests:
            raise InputError(f"{at}: custom_id {row['custom_id']!r} is not in {request_name}")
        outputs[row["custom_id"]] = (number, row)
    known = _known_ids(options)
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for custom_id, (line, request) in sorted(requests.items(), key=lambda item: item[1][0]):
        body = request["body"] if isinstance(request["body"], dict) else {}
        prompt = messages_text(body.get("messages")) or text_or_none(body.get("prompt"))
        task_id = task_of(custom_id, known) or _by_prompt(prompt, options)
        if task_id is None:
            hint = (
                f"neither starts with a task id of {options.problems_file or '--problems'} nor "
                "holds one of its prompts in its messages"
                if options.problems is not None
                else "start it with the task id, e.g. HumanEval/0-1, or give --problems FILE"
            )
            raise InputError(
                f"{request_name}: line {line}: custom_id {custom_id!r} names no known task ({hint})"
            )
        model = text_or_none(body.get("model"))
        run_temperature = temperature(f"{request_name}: line {line}", body.get("temperature"))
        answer: str | None = None
        finish = None
        counts = None
        returned_model = None
        output = outputs.get(custom_id)
        if output is not None:
            response = output[1].get("response")
            if (
                isinstance(response, dict)
                and response.get("status_code") == 200
                and isinstance(response.get("body"), dict)
            ):
                answer, finish = _answer(response["body"])
                tokens = response["body"].get("usage")
                if isinstance(tokens, dict):
                    counts = usage(
                        tokens.get("prompt_tokens"),
                        tokens.get("completion_tokens"),
                        tokens.get("total_tokens"),
                    )
                returned_model = text_or_none(response["body"].get("model"))
        facts = SampleFacts(
            prompt=prompt,
            finish_reason=finish,
            usage=counts,
            model=returned_model,
            where=f"custom_id {custom_id}" + ("" if output else " (no output line: failed)"),
        )
        key = (task_id, model, run_temperature)
        group = groups.setdefault(key, {"answers": [], "facts": [], "line": line})
        group["answers"].append(answer)
        group["facts"].append(facts)
    return [
        task_run(
            task_id=task_id,
            answers=group["answers"],
            facts=group["facts"],
            options=options,
            source=source.name,
            source_format="openai-batch",
            model=model,
            temperature=run_temperature,
            extra={"line": group["line"], "requests_file": request_name},
        )
        for (task_id, model, run_temperature), group in groups.items()
    ]


FORMAT = Format(
    name="openai-batch",
    title="OpenAI Batch API output (with its input file)",
    command="skyt-tui analyze batch_output.jsonl --requests batch_input.jsonl [--problems problems.jsonl]",
    keeps="per request the model and temperature sent, the messages (the prompt sent), the "
    "answer, stop reason, token counts and the model id returned; requests without an "
    "output line or with an error are failed samples",
    loses="nothing the files hold that skyt-tui measures; there is no verdict to compare "
    "(the Batch API runs no tests)",
    recognise=recognise,
    load=load,
    needs=("--requests", "--problems"),
)
