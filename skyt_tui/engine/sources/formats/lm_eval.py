"""lm-evaluation-harness `--log_samples` files: `samples_<task>_<date>.jsonl`.

One line per task document: `doc` (for human-eval tasks `task_id`, `prompt`, `test`,
`entry_point`; for MBPP tasks `task_id` — an integer — `text` and `test_list`; either becomes
the contract), `arguments` (`gen_args_0.arg_0` the prompt sent — with `--apply_chat_template`
the chat messages as a JSON text, the last one the assistant's prefill (`gen_prefix`) —,
`arg_1` the generation kwargs: temperature, until, max_gen_toks, do_sample), `resps[0]` the N
answers (the model's raw continuations), `filter` (the task's filter pipeline: `none` takes the
answer as it is), `metrics` and the metric values (lm-eval's own verdict per document:
`pass@1` / `pass_at_1`, or only `pass@k` for k > 1, as humaneval_64 has). The model's name is
in the sibling `results_<date>.json` (`model_name`, `config.model_args`). One run per document.

A document scored only by pass@k for k > 1 is compared by its pass@1: lm-eval's pass@k is the
unbiased estimator 1 - C(n-c, k)/C(n, k) of the c passing samples out of n, which is strictly
increasing in c, so c is read back from it, and the tool's pass@1 is c/n (said so: the metric
is `pass@1 (from pass@k)`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files, humaneval, mbpp
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.tasks import (
    as_dict,
    messages_text,
    task_run,
    temperature,
    text_or_none,
)
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport

KEYS = ("doc_id", "doc", "arguments", "resps")


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    first = source.first_row()
    return first is not None and all(key in first for key in KEYS)


def _results(source: Source) -> tuple[dict[str, Any], str | None]:
    """The sibling results file of the same run (same date stamp), or the only one beside it."""
    if files.is_stdin(source.path):
        return {}, None
    path = Path(source.path)
    stamp = path.stem.rsplit("_", 1)[-1] if path.stem.startswith("samples_") else None
    candidates = sorted(path.parent.glob("results_*.json"))
    chosen = [c for c in candidates if stamp and c.stem == f"results_{stamp}"] or (
        candidates if len(candidates) == 1 else []
    )
    if not chosen:
        return {}, None
    document = files.read_json(chosen[0])
    return (document if isinstance(document, dict) else {}), str(chosen[0])


def _arguments(arguments: Any) -> tuple[str | None, dict[str, Any]]:
    """(prompt, generation kwargs) of the first request: the saved dict form or the old list form."""
    first: Any = None
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        if isinstance(first, dict):
            first = [first.get("arg_0"), first.get("arg_1")]
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
    if not isinstance(first, list) or not first:
        return None, {}
    prompt = first[0]
    if isinstance(prompt, list) and len(prompt) == 1:  # a chat prompt: [the messages as JSON]
        prompt = prompt[0]
    prompt = prompt if isinstance(prompt, str) else None
    kwargs = first[1] if len(first) > 1 and isinstance(first[1], dict) else {}
    return prompt, kwargs


def _prompt_sent(prompt: str | None) -> str | None:
    """The prompt as sent: chat messages (a JSON list, with --apply_chat_template) rendered as
    `role: text` blocks, a plain prompt as it is."""
    if prompt is None or not prompt.lstrip().startswith("[{"):
        return prompt
    try:
        messages = files.loads(prompt, "<prompt>")
    except InputError:
        return prompt
    return messages_text(messages) or prompt


def _estimator(n: int, c: int, k: int) -> float:
    """pass@k of c passing out of n (human-eval's unbiased estimator, as lm-eval computes it)."""
    if n - c < k:
        return 1.0
    product = 1.0
    for m in range(n - c + 1, n + 1):
        product *= 1.0 - k / m
    return 1.0 - product


def passing_from_pass_at_k(value: float, n: int, k: int) -> int | None:
    """The number of passing samples whose pass@k is `value` (None: no count gives it)."""
    if not 1 <= k <= n:
        return None
    best = min(range(n + 1), key=lambda c: abs(_estimator(n, c, k) - value))
    if abs(_estimator(n, best, k) - value) > 1e-6:
        return None
    if k > 1 and best > n - k and value == 1.0:
        return None  # every count from n-k+1 on gives 1.0: not readable back
    return best


def tool_score(row: dict[str, Any], n: int) -> tuple[str, float | None, str | None]:
    """(metric, pass@1, note) of one document: lm-eval's pass@1 when it logged one, else its
    smallest pass@k read back as a count of passing samples."""
    names = [m for m in row.get("metrics", []) if isinstance(m, str)]
    values = {
        m: float(row[m])
        for m in names
        if isinstance(row.get(m), int | float) and not isinstance(row.get(m), bool)
    }
    for name in ("pass@1", "pass_at_1"):
        if name in values:
            return name, values[name], None
    ks = sorted(
        (int(m.split("@", 1)[1]), m) for m in values if m.startswith("pass@") and m[5:].isdigit()
    )
    for k, name in ks:
        count = passing_from_pass_at_k(values[name], n, k)
        if count is not None:
            return (
                f"pass@1 (from {name})",
                count / n,
                f"lm-eval logged only pass@k for k > 1; its {name} {values[name]:.4f} over {n} "
                f"samples means {count} passed: pass@1 {count / n:.4f}",
            )
    if ks:
        return f"pass@1 (from {ks[0][1]})", None, f"{ks[0][1]} cannot be read back as a count"
    return "pass@1", None, None


def _model(results: dict[str, Any]) -> str | None:
    name = text_or_none(results.get("model_name"))
    if name:
        return name
    config = as_dict(results.get("config"))
    args = config.get("model_args")
    if isinstance(args, dict):
        for key in ("model", "pretrained"):
            if isinstance(args.get(key), str) and args[key]:
                return str(args[key])
    if isinstance(args, str):
        for part in args.split(","):
            key, _, value = part.partition("=")
            if key.strip() in ("model", "pretrained") and value.strip():
                return value.strip()
    return text_or_none(config.get("model"))


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    results, results_file = _results(source)
    model = _model(results)
    runs = []
    rows = source.rows()
    first_filter = rows[0][1].get("filter") if rows else None
    for number, row in rows:
        at = f"{source.name}: line {number}"
        if row.get("filter") != first_filter:
            continue  # the same answers again under another filter
        for key in KEYS:
            if key not in row:
                raise InputError(
                    f"{at}: missing {key!r} (not an lm-evaluation-harness sample line?)"
                )
        responses = row["resps"]
        if not isinstance(responses, list) or not responses or not isinstance(responses[0], list):
            raise InputError(f"{at}: resps must be a list of lists of answers")
        answers = responses[0]
        if not all(isinstance(answer, str) for answer in answers):
            raise InputError(f"{at}: resps[0] must hold answer strings")
        doc = row["doc"] if isinstance(row["doc"], dict) else {}
        is_mbpp = mbpp.is_mbpp_row(doc)
        task = (mbpp.mbpp_task_id(doc.get("task_id")) if is_mbpp else None) or (
            text_or_none(doc.get("task_id"))
            or (str(doc["task_id"]) if isinstance(doc.get("task_id"), int) else None)
            or f"doc_{row['doc_id']}"
        )
        prompt, kwargs = _arguments(row["arguments"])
        prompt = _prompt_sent(prompt)
        chosen = kwargs.get("temperature")
        if chosen is None and kwargs.get("do_sample") is False:
            chosen = 0.0
        run_temperature = temperature(at, chosen)
        problem = None
        if is_mbpp:
            problem = mbpp.problem_of_row(doc, f"{at}: doc", task_id=task)
        elif all(isinstance(doc.get(k), str) for k in ("prompt", "test", "entry_point")):
            problem = humaneval.Problem(
                task_id=task,
                prompt=doc["prompt"],
                entry_point=doc["entry_point"],
                canonical_solution=doc.get("canonical_solution") or "",
                test=doc["test"],
            )
        metric, rate, note = tool_score(row, len(answers))
        tool = ToolReport(
            tool="lm-eval",
            granularity="task",
            metric=metric,
            task_pass_rate=rate,
            generation={k: v for k, v in kwargs.items() if v is not None},
            note=note,
        )
        runs.append(
            task_run(
                task_id=task,
                answers=answers,
                facts=[
                    SampleFacts(prompt=prompt, where=f"line {number} resps[0][{i}]")
                    for i in range(len(answers))
                ],
                options=options,
                source=source.name,
                source_format="lm-eval",
                model=model,
                temperature=run_temperature,
                tool=tool,
                problem=problem,
                problem_file=f"{source.name} (doc)" if problem else None,
                extra={
                    "line": number,
                    "filter": row.get("filter"),
                    "results_file": results_file,
                    **(
                        {"answer_rule": "as-recorded"}
                        if row.get("filter") in ("none", "take_first") and is_mbpp
                        else {}
                    ),
                },
            )
        )
    if not runs:
        raise InputError.at(source.name, "no samples (empty file)")
    return runs


FORMAT = Format(
    name="lm-eval",
    title="lm-evaluation-harness --log_samples (samples_<task>_<date>.jsonl)",
    command="skyt-tui analyze results/MODEL/samples_humaneval_DATE.jsonl (results_DATE.json beside it)",
    keeps="per task the document (human-eval's prompt, test, entry point or MBPP's text and "
    "test_list: the contract), the prompt sent (chat messages rendered), the N raw answers, the "
    "generation kwargs (temperature; 0 when do_sample is false, as lm-eval's API models send), "
    "lm-eval's per-task pass@1 — read back from its pass@k when it logged only k > 1 — (shown "
    "beside skyt-tui's); the model name from the sibling results_<date>.json",
    loses="lm-eval's filtered answers (skyt-tui assembles its own programs from the raw ones), "
    "stop reasons and token counts (lm-eval does not log them), the lines of every filter "
    "but the first (the same answers filtered again)",
    recognise=recognise,
    load=load,
)
