"""Inspect (inspect_ai) evaluation logs: `.eval` archives and `.json` logs, every release's layout.

A `.eval` file is a zip: `header.json` (or, for a run that never finished,
`_journal/start.json`) holds the eval spec — task, model, generation config — and each
sample is `samples/<id>_epoch_<n>.json`. A `.json` log is one `EvalLog` document with the
same spec and a `samples` list. Per sample: `id`, `epoch`, `input` (the prompt sent), the
answer, `output.choices[0].stop_reason`, `output.usage`, `scores` (the scorer's verdict:
`C`/`I`, or 1/0; `score`, one scorer, in the oldest logs), `error`, and `metadata` — for
human-eval tasks the task's `prompt`, `test` and `entry_point`, for MBPP tasks its `prompt`
and `test_list` (inspect_evals' mbpp), which become the contract (else `--problems`, else the
catalog contract of the sample id). One run per task id; epochs are the samples, in epoch order.

Where the answer is has moved between releases: `output.completion` (written since 0.3.1xx;
the older ones keep only `output.choices[0].message.content`, a string or a list of content
parts whose `text` parts Inspect joins with a newline, as `ModelOutput.completion` does).
Long texts may be kept as `attachment://<hash>` references to the sample's `attachments`.
How the run ended is the log's `status` (`success`, `error` with `error.message`,
`cancelled`, `started` for a log never finished); a `.eval` without `header.json` was cut
short. Samples expected: `results.total_samples`, else the dataset's samples times the epochs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import humaneval, mbpp
from skyt_tui.engine.sources.files import ZipMembers
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import (
    as_dict,
    as_list,
    messages_text,
    task_run,
    temperature,
    text_or_none,
    usage,
)
from skyt_tui.engine.sources.run_input import (
    LoadOptions,
    RunInput,
    SampleFacts,
    ToolReport,
    ToolRun,
)

HEADER = "header.json"
START = "_journal/start.json"
_SAMPLE = re.compile(r"samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json")
PASS_VALUES = ("C", 1, 1.0, True)
FAIL_VALUES = ("I", 0, 0.0, False)
ATTACHMENT = "attachment://"


def _is_log(document: Any) -> bool:
    spec = document.get("eval") if isinstance(document, dict) else None
    return isinstance(spec, dict) and "task" in spec and "model" in spec


def recognise(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_zip():
        try:
            names = ZipMembers(source.data, source.path).names
        except InputError:
            return False
        return HEADER in names or START in names
    return _is_log(source.json_or_none())


def _verdict(sample: dict[str, Any]) -> tuple[bool | None, dict[str, Any] | None]:
    """The first scorer's verdict: pass for C or 1, fail for I or 0, None otherwise
    (`scores` by scorer name; `score`, one score, in the oldest logs)."""
    scores = sample.get("scores")
    if isinstance(scores, dict) and scores:
        name, score = next(iter(scores.items()))
    elif isinstance(sample.get("score"), dict):
        name, score = "score", sample["score"]
    else:
        return None, None
    value = score.get("value") if isinstance(score, dict) else None
    detail = {"scorer": name, "value": value}
    if isinstance(value, bool | int | float | str) and value in PASS_VALUES:
        return True, detail
    if isinstance(value, bool | int | float | str) and value in FAIL_VALUES:
        return False, detail
    return None, detail


def _problem(task_id: str, metadata: Any) -> humaneval.Problem | None:
    """The task's definition from the sample's metadata: human-eval's prompt, test and entry
    point, or MBPP's prompt and test_list (inspect_evals' mbpp)."""
    if not isinstance(metadata, dict):
        return None
    if mbpp.is_mbpp_row(metadata):
        return mbpp.problem_of_row(
            metadata, f"sample {task_id} metadata", task_id=mbpp.mbpp_task_id(task_id) or task_id
        )
    fields = ("prompt", "test", "entry_point")
    if not all(isinstance(metadata.get(key), str) and metadata[key] for key in fields):
        return None
    return humaneval.Problem(
        task_id=task_id,
        prompt=metadata["prompt"],
        entry_point=metadata["entry_point"],
        canonical_solution=metadata.get("canonical_solution") or "",
        test=metadata["test"],
    )


def _resolve(text: Any, attachments: dict[str, Any]) -> Any:
    """An `attachment://<hash>` reference (or the older `tc://`) as the text it stands for."""
    if isinstance(text, str):
        for protocol in (ATTACHMENT, "tc://"):
            if text.startswith(protocol):
                found = attachments.get(text[len(protocol) :])
                return found if isinstance(found, str) else text
    return text


def _content_text(content: Any, attachments: dict[str, Any]) -> str | None:
    """A message's text as Inspect reads it: the string, or its text parts joined by newlines."""
    content = _resolve(content, attachments)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            _resolve(part.get("text"), attachments)
            for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text"
        ]
        texts = [part for part in parts if isinstance(part, str)]
        return "\n".join(texts) if texts else None
    return None


def _answer(output: dict[str, Any], attachments: dict[str, Any]) -> str | None:
    """`output.completion` where the release writes it, else the first choice's message text."""
    completion = _resolve(output.get("completion"), attachments)
    if isinstance(completion, str) and completion:
        return completion
    choices = as_list(output.get("choices"))
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    message = as_dict(first.get("message"))
    return _content_text(message.get("content"), attachments)


def _error_text(error: Any) -> str | None:
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) and error else None


def _sample(where: str, sample: Any) -> tuple[str, int, str | None, SampleFacts, Any]:
    if not isinstance(sample, dict) or not isinstance(sample.get("id"), str | int):
        raise InputError(f"{where}: not an Inspect sample (no id)")
    task_id = str(sample["id"])
    epoch = sample.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int):
        raise InputError(f"{where}: epoch must be an integer")
    attachments = as_dict(sample.get("attachments"))
    output = as_dict(sample.get("output"))
    answer = _answer(output, attachments)
    error = _error_text(sample.get("error")) or _error_text(output.get("error"))
    if error is not None or not answer:
        answer = None
    choices = as_list(output.get("choices"))
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    counts = as_dict(output.get("usage"))
    passed, detail = _verdict(sample)
    if error is not None:
        detail = {**(detail or {}), "error": error[:2000]}
    facts = SampleFacts(
        prompt=messages_text(_resolve_messages(sample.get("input"), attachments)),
        finish_reason=text_or_none(first.get("stop_reason")),
        usage=usage(
            counts.get("input_tokens"), counts.get("output_tokens"), counts.get("total_tokens")
        ),
        model=text_or_none(output.get("model")),
        tool_passed=passed,
        tool_detail=detail,
        where=f"sample {task_id} epoch {epoch}",
    )
    return task_id, epoch, answer, facts, sample.get("metadata")


def _resolve_messages(messages: Any, attachments: dict[str, Any]) -> Any:
    if not isinstance(messages, list):
        return _resolve(messages, attachments)
    return [
        {**message, "content": _content_text(message.get("content"), attachments)}
        if isinstance(message, dict)
        else message
        for message in messages
    ]


def _samples_of_archive(source: Source) -> tuple[dict[str, Any], list[Any], bool]:
    """The eval spec, the samples, and whether the archive was finished (`header.json`)."""
    archive = ZipMembers(source.data, source.path)
    finished = HEADER in archive.names
    spec_name = HEADER if finished else START
    header = archive.json(spec_name)
    if not _is_log(header):
        raise InputError(
            f"{source.name}: {spec_name} has no eval spec (expected eval.task, eval.model)"
        )
    found = []
    for name in archive.names:
        match = _SAMPLE.fullmatch(name)
        if match:
            found.append((match.group("id"), int(match.group("epoch")), name))
    samples = [archive.json(name) for _, _, name in sorted(found, key=_order)]
    return header, samples, finished


def _order(item: tuple[str, int, str]) -> tuple[Any, ...]:
    task_id, epoch, _ = item
    parts = re.split(r"(\d+)", task_id)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts), epoch


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _expected(header: dict[str, Any]) -> int | None:
    """Samples the run set out to produce: `results.total_samples`, else dataset × epochs."""
    total = _count(as_dict(header.get("results")).get("total_samples"))
    if total is not None:
        return total
    spec = as_dict(header.get("eval"))
    dataset = _count(as_dict(spec.get("dataset")).get("samples"))
    config = as_dict(spec.get("config"))
    limit = _count(config.get("limit"))
    if limit is not None and dataset is not None:
        dataset = min(dataset, limit)
    epochs = _count(config.get("epochs")) or 1
    return dataset * epochs if dataset is not None else None


def tool_run(header: dict[str, Any], finished: bool, recorded: int) -> ToolRun | None:
    """How the Inspect run ended; None when it ended well with every sample recorded."""
    status = header.get("status") if isinstance(header.get("status"), str) else None
    error = _error_text(header.get("error"))
    expected = _expected(header)
    if not finished or status == "started":
        ours = "cut-short"
    elif status in ("error", "cancelled"):
        ours = status
    elif status in (None, "success"):
        ours = "complete"
    else:
        ours = str(status)
    facts = ToolRun(
        tool="inspect",
        status=ours,
        tool_status=status if finished else "started (no header.json: the log was never finished)",
        error=error,
        samples_expected=expected,
        samples_recorded=recorded,
    )
    return None if facts.complete else facts


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if source.is_zip():
        header, samples, finished = _samples_of_archive(source)
    else:
        header = source.json()
        samples = as_list(header.get("samples"))
        finished = True
    spec = header["eval"]
    model = text_or_none(spec.get("model"))
    config = as_dict(spec.get("model_generate_config"))
    plan = as_dict(header.get("plan"))
    plan_config = as_dict(plan.get("config"))
    chosen = config.get("temperature", plan_config.get("temperature"))
    run_temperature = temperature(source.name, chosen)
    ended = tool_run(header, finished, len(samples))
    if not samples:
        if ended is not None:
            raise InputError(f"{source.name}: the Inspect log holds no samples: {ended.line()}")
        raise InputError(
            f"{source.name}: the Inspect log holds no samples (was it written with --no-log-samples?)"
        )
    by_task: dict[str, list[tuple[int, str | None, SampleFacts, Any]]] = {}
    for position, sample in enumerate(samples):
        task_id, epoch, answer, facts, metadata = _sample(
            f"{source.name}: sample {position + 1}", sample
        )
        by_task.setdefault(task_id, []).append((epoch, answer, facts, metadata))
    tool = ToolReport(
        tool="inspect",
        granularity="sample",
        generation={
            key: value for key, value in {**plan_config, **config}.items() if value is not None
        },
    )
    runs = []
    epochs = _count(as_dict(spec.get("config")).get("epochs")) or (1 if ended else None)
    for task_id, entries in by_task.items():
        entries.sort(key=lambda entry: entry[0])
        problem = _problem(task_id, entries[0][3])
        if problem is not None and problem.benchmark == "mbpp":
            task_id = problem.task_id
        runs.append(
            replace(
                task_run(
                    task_id=task_id,
                    answers=[answer for _, answer, _, _ in entries],
                    facts=[facts for _, _, facts, _ in entries],
                    options=options,
                    source=source.name,
                    source_format="inspect",
                    model=model,
                    temperature=run_temperature,
                    tool=tool,
                    problem=problem,
                    problem_file=f"{source.name} (sample metadata)" if problem else None,
                    extra={
                        "task": spec.get("task"),
                        "epochs": tuple(e for e, _, _, _ in entries),
                        **({"tool_run_file": ended} if ended else {}),
                    },
                ),
                tool_run=None
                if ended is None
                else replace(
                    ended,
                    samples_expected=epochs,
                    samples_recorded=len(entries),
                ),
            )
        )
    return runs


FORMAT = Format(
    name="inspect",
    title="Inspect logs (.eval archives and .json logs)",
    command="skyt-tui analyze logs/2026-01-01T00-00-00_humaneval_XXXX.eval",
    keeps="task, model, temperature and the generation config; how the run ended (status, "
    "error, samples expected and recorded); per sample the prompt sent, the answer "
    "(output.completion, or the first choice's message in older releases), epoch, stop reason, token counts and the scorer's verdict "
    "(shown beside skyt-tui's); the task's prompt, test and entry point (human-eval) or prompt and "
    "test_list (MBPP) from sample metadata",
    loses="the message transcript and events, tool calls, every scorer but the first, "
    "samples without an answer (recorded as failed)",
    recognise=recognise,
    load=load,
)
