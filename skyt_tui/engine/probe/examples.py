"""The example inputs of a contract: what its tests call the entry point with (docs/probe.md).

Call and raises tests give their arguments directly. A human-eval `check(candidate)` body is
read on its syntax tree, never run: every `candidate(...)` call whose arguments are literals
(constants, signed numbers, lists, tuples, sets, dicts of them) is an example; a call whose
arguments are computed (a loop variable, a helper's result) is counted as skipped. The walk is
iterative and bounded (`MAX_LITERAL_NODES` per value, `MAX_DEPTH` levels, `MAX_CODE_CHARS`
of check code), so a hostile check body costs linear time at most.

The tolerance outputs are compared with comes from the tests too: the largest `rel_tol` and
`abs_tol` of the call tests, or in a check body the bound of `abs(candidate(...) - x) < tol`
and the tolerances of `math.isclose(candidate(...), ...)`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from skyt_tui.engine.contracts.contract import CallTest, CheckTest, Contract, RaisesTest
from skyt_tui.engine.oracle.outputs import Call
from skyt_tui.engine.syntax import parse_ast

MAX_LITERAL_NODES = 20_000
MAX_DEPTH = 50
MAX_CODE_CHARS = 200_000
MAX_EXAMPLES = 2_000


class NotLiteral(ValueError):
    """The expression is not a literal this reader accepts."""


@dataclass(frozen=True)
class Examples:
    calls: tuple[Call, ...]
    """Distinct example calls in test order."""
    raising: frozenset[int]
    """Positions in `calls` that come from raises tests (inputs the contract says are rejected)."""
    rel_tol: float | None
    abs_tol: float | None
    tolerance_from: str
    """"tests" (call tests' rel_tol/abs_tol), "check" (read from a check body) or "none"."""
    skipped: int
    """`candidate(...)` calls in check bodies whose arguments are not literals."""


_SCALARS = (int, float, str, bytes, bool, complex, type(None))


def literal_value(node: ast.AST) -> Any:
    """The value of a literal expression, built bottom-up without recursion (raises NotLiteral)."""
    results: list[Any] = []
    stack: list[tuple[ast.AST, bool, int]] = [(node, False, 0)]
    count = 0
    while stack:
        current, expanded, depth = stack.pop()
        if not expanded:
            count += 1
            if count > MAX_LITERAL_NODES or depth > MAX_DEPTH:
                raise NotLiteral("too large")
            if isinstance(current, ast.Constant):
                if type(current.value) not in _SCALARS:
                    raise NotLiteral(type(current.value).__name__)
                results.append(current.value)
            elif (
                isinstance(current, ast.UnaryOp)
                and isinstance(current.op, ast.USub | ast.UAdd)
                and isinstance(current.operand, ast.Constant)
                and type(current.operand.value) in (int, float, complex)
            ):
                value: Any = current.operand.value
                results.append(-value if isinstance(current.op, ast.USub) else value)
            elif isinstance(current, ast.List | ast.Tuple | ast.Set | ast.Dict):
                children = _children(current)
                stack.append((current, True, depth))
                stack.extend((child, False, depth + 1) for child in reversed(children))
            else:
                raise NotLiteral(type(current).__name__)
            continue
        children = _children(current)
        values = results[len(results) - len(children) :] if children else []
        del results[len(results) - len(children) :]
        results.append(_build(current, values))
    return results[0]


def _children(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise NotLiteral("** in a dict")
        return [*node.keys, *node.values]  # type: ignore[list-item]
    elts: list[ast.expr] = node.elts  # type: ignore[attr-defined]
    if any(isinstance(item, ast.Starred) for item in elts):
        raise NotLiteral("* in a literal")
    return list(elts)


def _build(node: ast.AST, values: list[Any]) -> Any:
    if isinstance(node, ast.List):
        return values
    if isinstance(node, ast.Tuple):
        return tuple(values)
    try:
        if isinstance(node, ast.Set):
            return set(values)
        half = len(values) // 2
        return dict(zip(values[:half], values[half:]))
    except TypeError:
        raise NotLiteral("unhashable element") from None


def _check_examples(code: str) -> tuple[list[Call], int, float | None, float | None]:
    """Literal `candidate(...)` calls of a check body, the count skipped, and its tolerances."""
    if len(code) > MAX_CODE_CHARS:
        return [], 0, None, None
    try:
        module = parse_ast(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], 0, None, None
    checks = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args
    ]
    if not checks:
        return [], 0, None, None
    name = checks[0].args.args[0].arg
    calls: list[Call] = []
    skipped = 0
    rel_tol: float | None = None
    abs_tol: float | None = None
    for node in ast.walk(checks[0]):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            try:
                args = tuple(literal_value(arg) for arg in node.args)
                kwargs = tuple(
                    (kw.arg, literal_value(kw.value)) for kw in node.keywords if kw.arg is not None
                )
                if any(kw.arg is None for kw in node.keywords):
                    raise NotLiteral("**kwargs")
            except NotLiteral:
                skipped += 1
                continue
            calls.append(Call(args, kwargs))
        elif isinstance(node, ast.Compare) and _calls_candidate(node.left, name):
            bound = _abs_bound(node)
            if bound is not None:
                abs_tol = max(abs_tol or 0.0, bound)
        elif isinstance(node, ast.Call) and _is_isclose(node) and _calls_candidate(node, name):
            for keyword in node.keywords:
                if keyword.arg in ("rel_tol", "abs_tol"):
                    try:
                        value = literal_value(keyword.value)
                    except NotLiteral:
                        continue
                    if isinstance(value, int | float) and not isinstance(value, bool):
                        if keyword.arg == "rel_tol":
                            rel_tol = max(rel_tol or 0.0, float(value))
                        else:
                            abs_tol = max(abs_tol or 0.0, float(value))
    return calls, skipped, rel_tol, abs_tol


def _calls_candidate(node: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        for n in ast.walk(node)
    )


def _abs_bound(node: ast.Compare) -> float | None:
    """`abs(...) < tol` or `abs(...) <= tol`: tol."""
    left = node.left
    if not (
        isinstance(left, ast.Call)
        and isinstance(left.func, ast.Name)
        and left.func.id == "abs"
        and len(node.ops) == 1
        and isinstance(node.ops[0], ast.Lt | ast.LtE)
    ):
        return None
    try:
        value = literal_value(node.comparators[0])
    except NotLiteral:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _is_isclose(node: ast.Call) -> bool:
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr == "isclose") or (
        isinstance(func, ast.Name) and func.id == "isclose"
    )


def example_calls(contract: Contract) -> Examples:
    """The contract's example inputs (see the module docstring); stateful tests give none."""
    calls: list[Call] = []
    raising: set[int] = set()
    seen: dict[str, int] = {}
    skipped = 0
    rel_tol: float | None = None
    abs_tol: float | None = None
    source = "none"

    def add(call: Call, raises: bool) -> None:
        key = repr((call.args, call.kwargs))
        if key in seen or len(calls) >= MAX_EXAMPLES:
            return
        seen[key] = len(calls)
        if raises:
            raising.add(len(calls))
        calls.append(call)

    for test in contract.tests:
        if isinstance(test, CallTest):
            add(Call(tuple(test.args), tuple(test.kwargs.items())), False)
            if test.rel_tol is not None:
                rel_tol, source = max(rel_tol or 0.0, test.rel_tol), "tests"
            if test.abs_tol is not None:
                abs_tol, source = max(abs_tol or 0.0, test.abs_tol), "tests"
        elif isinstance(test, RaisesTest):
            add(Call(tuple(test.args), tuple(test.kwargs.items())), True)
        elif isinstance(test, CheckTest):
            found, missed, rel, abs_ = _check_examples(test.code)
            skipped += missed
            for call in found:
                add(call, False)
            if rel is not None:
                rel_tol, source = max(rel_tol or 0.0, rel), "check"
            if abs_ is not None:
                abs_tol, source = max(abs_tol or 0.0, abs_), "check"
    return Examples(tuple(calls), frozenset(raising), rel_tol, abs_tol, source, skipped)
