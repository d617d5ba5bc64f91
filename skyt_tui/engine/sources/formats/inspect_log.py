"""Inspect (inspect_ai) evaluation logs: `.eval` archives and `.json` logs.

A `.eval` file is a zip: `header.json` (or, for a run that never finished,
`_journal/start.json`) holds the eval spec — task, model, generation config — and each
sample is `samples/<id>_epoch_<n>.json`. A `.json` log is one `EvalLog` document with the
same spec and a `samples` list. Per sample: `id`, `epoch`, `input` (the prompt sent),
`output.completion` (the answer), `output.choices[0].stop_reason`, `output.usage`, `scores`
(the scorer's verdict: `C`/`I`, or 1/0), and `metadata` — for human-eval tasks the task's
`prompt`, `test` and `entry_point`, which become the contract (else `--problems`, else the
catalog contract of the sample id). One run per task id; epochs are the samples, in epoch order.
"""

from __future__ import annotations

import re
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import humaneval
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
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport

HEADER = "header.json"
START = "_journal/start.json"
_SAMPLE = re.compile(r"samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json")
PASS_VALUES = ("C", 1, 1.0, True)
FAIL_VALUES = ("I", 0, 0.0, False)


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


def _verdict(scores: Any) -> tuple[bool | None, dict[str, Any] | None]:
    """The first scorer's verdict: pass for C or 1, fail for I or 0, None otherwise."""
    if not isinstance(scores, dict) or not scores:
        return None, None
    name, score = next(iter(scores.items()))
    value = score.get("value") if isinstance(score, dict) else None
    detail = {"scorer": name, "value": value}
    if isinstance(value, bool | int | float | str) and value in PASS_VALUES:
        return True, detail
    if isinstance(value, bool | int | float | str) and value in FAIL_VALUES:
        return False, detail
    return None, detail


def _problem(task_id: str, metadata: Any) -> humaneval.Problem | None:
    if not isinstance(metadata, dict):
        return None
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


def _sample(where: str, sample: Any) -> tuple[str, int, str | None, SampleFacts, Any]:
    if not isinstance(sample, dict) or not isinstance(sample.get("id"), str | int):
        raise InputError(f"{where}: not an Inspect sample (no id)")
    task_id = str(sample["id"])
    epoch = sample.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int):
        raise InputError(f"{where}: epoch must be an integer")
    output = as_dict(sample.get("output"))
    answer = output.get("completion")
    failed = sample.get("error") is not None or output.get("error") is not None
    if failed or not isinstance(answer, str) or not answer:
        answer = None
    choices = as_list(output.get("choices"))
    first = choices[0] if choices and isinstance(choices[0], dict) else {}
    counts = as_dict(output.get("usage"))
    passed, detail = _verdict(sample.get("scores"))
    facts = SampleFacts(
        prompt=messages_text(sample.get("input")),
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


def _samples_of_archive(source: Source) -> tuple[dict[str, Any], list[Any]]:
    archive = ZipMembers(source.data, source.path)
    spec_name = HEADER if HEADER in archive.names else START
    header = archive.json(spec_name)
    if not _is_log(header):
        raise InputError(f"{source.name}: {spec_name} has no eval spec (task, model)")
    found = []
    for name in archive.names:
        match = _SAMPLE.fullmatch(name)
        if match:
            found.append((match.group("id"), int(match.group("epoch")), name))
    samples = [archive.json(name) for _, _, name in sorted(found, key=_order)]
    return header, samples


def _order(item: tuple[str, int, str]) -> tuple[Any, ...]:
    task_id, epoch, _ = item
    parts = re.split(r"(\d+)", task_id)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts), epoch


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if source.is_zip():
        header, samples = _samples_of_archive(source)
    else:
        header = source.json()
        samples = as_list(header.get("samples"))
    spec = header["eval"]
    model = text_or_none(spec.get("model"))
    config = as_dict(spec.get("model_generate_config"))
    plan = as_dict(header.get("plan"))
    plan_config = as_dict(plan.get("config"))
    chosen = config.get("temperature", plan_config.get("temperature"))
    run_temperature = temperature(source.name, chosen)
    if not samples:
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
    for task_id, entries in by_task.items():
        entries.sort(key=lambda entry: entry[0])
        problem = _problem(task_id, entries[0][3])
        runs.append(
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
                extra={"task": spec.get("task"), "epochs": tuple(e for e, _, _, _ in entries)},
            )
        )
    return runs


FORMAT = Format(
    name="inspect",
    title="Inspect logs (.eval archives and .json logs)",
    command="skyt-tui analyze logs/2026-01-01T00-00-00_humaneval_XXXX.eval",
    keeps="task, model, temperature and the generation config; per sample the prompt sent, the "
    "answer (output.completion), epoch, stop reason, token counts and the scorer's verdict "
    "(shown beside skyt-tui's); the task's prompt, test and entry point from sample metadata",
    loses="the message transcript and events, tool calls, every scorer but the first, "
    "samples without an answer (recorded as failed)",
    recognise=recognise,
    load=load,
)
