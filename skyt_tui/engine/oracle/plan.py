"""A contract compiled for the sandbox: the job payload, the slots to judge, and how each frame
that comes back is judged into a verdict."""

from __future__ import annotations

import ast
import functools
import signal
from dataclasses import dataclass, replace
from typing import Any

from skyt_tui.engine.contracts.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    Contract,
    RaisesTest,
    StatefulTest,
    Step,
    is_ast_node_type,
)
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.oracle.asserts import AssertCall, recognise
from skyt_tui.engine.oracle.compliance import Compliance, check_compliance, not_checked
from skyt_tui.engine.oracle.constraints import (
    forbidden_calls_used,
    forbidden_imports_used,
    forbidden_nodes_used,
    is_recursive,
)
from skyt_tui.engine.oracle.verdicts import (
    TestOutcome,
    Verdict,
    actual_text,
    raised_matches,
    raised_type,
    show_value,
    values_match,
)
from skyt_tui.engine.printable import printable
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sandbox.pool import Limits, RunResult
from skyt_tui.engine.sandbox.worker.framing import FRAME_HEADER
from skyt_tui.engine.syntax import MAX_JUDGED_CHARS, parse_ast, too_large
from skyt_tui.engine.versions import ORACLE_VERSION

DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Prechecks:
    """What the oracle reads from a program's syntax tree before it runs."""

    constraint_outcomes: list[TestOutcome]
    compliance: Compliance | None


@dataclass(frozen=True)
class RunRead:
    """One sandbox run judged: its status, and the outcomes of the tests it finished."""

    status: str
    reason: str
    outcomes: dict[int, TestOutcome]
    loaded: bool
    """The program loaded and found its entry point (the tests started)."""
    output: str
    elapsed: float


TOO_LONG = frozenset({"timeout", "cpu_limit"})
"""Statuses of a run stopped for running too long: the test it was on gets no result."""


@dataclass(frozen=True)
class _Slot:
    index: int
    name: str
    kind: str
    test: Any


class Plan:
    """A contract compiled for the sandbox: the job payload (minus the program) and the slots to judge."""

    def __init__(self, contract: Contract, *, compare_asserts: bool = True) -> None:
        """`compare_asserts`: check bodies that are one assert on one call of the candidate are
        sent as calls and judged here (`asserts`); False runs every body in the checker, as
        before (tests compare the two)."""
        try:
            self._build(contract, compare_asserts)
        except wire.EncodeError as exc:
            raise ContractError(
                f"{contract.path or contract.id}: a test value cannot be sent to the sandbox ({exc})"
            ) from None

    def _build(self, contract: Contract, compare_asserts: bool) -> None:
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
        self.assert_calls = _assert_calls(contract) if compare_asserts and checks else {}
        if self.assert_calls:  # every check is one: the checker has nothing left to run
            tests += [
                {"i": i, "op": "check_call", "args": call.args, "kwargs": call.kwargs}
                for i, call in self.assert_calls.items()
            ]
            checks = []
        constraints = contract.constraints
        unknown = [name for name in constraints.forbidden_nodes if not is_ast_node_type(name)]
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

    def early_verdict(self, code: str, isolation: str) -> tuple[Verdict | None, Prechecks]:
        """A verdict without running anything (too large to send, does not parse), plus what is
        read from the syntax tree before the run: constraint outcomes and compliance. A program
        too long for this process to parse (`syntax.too_large`) is judged in the sandbox all the
        same; its constraints and coding rules, read from a tree, are not checked (so it fails a
        contract that has constraints)."""
        if len(code) > MAX_JUDGED_CHARS:
            reason = (
                f"the program has {len(code):,} characters "
                f"(the sandbox is sent at most {MAX_JUDGED_CHARS:,})"
            )
            checks = Prechecks(
                self.constraint_outcomes(None, reason), not_checked(self.contract, reason)
            )
            return self.finish("too_large", reason, {}, checks, isolation, 0.0, ""), checks
        unparsed = too_large(code)
        if unparsed is not None:
            why = f"not checked: {unparsed}"
            return None, Prechecks(
                self.constraint_outcomes(None, why), not_checked(self.contract, why)
            )
        try:
            tree = parse_ast(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            line = getattr(exc, "lineno", None)
            message = f"{getattr(exc, 'msg', None) or exc}" + (f" (line {line})" if line else "")
            outcomes = {
                slot.index: _failed(slot, "SyntaxError", message) for slot in self.sandboxed
            }
            checks = Prechecks(
                self.constraint_outcomes(None),
                not_checked(self.contract, "the program does not parse, so no rule can be checked"),
            )
            return self.finish(
                "syntax_error", f"syntax error: {message}", outcomes, checks, isolation, 0.0, ""
            ), checks
        return None, Prechecks(
            self.constraint_outcomes(tree), check_compliance(self.contract, code, tree)
        )

    # after running ----------------------------------------------------------------------------

    def verdict(
        self,
        result: RunResult,
        checks: Prechecks,
        isolation: str,
        limits: Limits = DEFAULT_LIMITS,
    ) -> Verdict:
        """The verdict of one sandbox run of the whole payload."""
        run = self.read(result, limits)
        return self.finish(
            run.status,
            run.reason,
            run.outcomes,
            checks,
            isolation,
            run.elapsed,
            run.output,
        )

    @property
    def order(self) -> list[int]:
        """The sandboxed slots in the order a run reaches them: the sample's call and stateful
        tests (and out-of-domain inputs), then the checks (the checker starts once the sample
        has run its own tests and serves)."""
        return [t["i"] for t in self.payload["tests"]] + [c["i"] for c in self.payload["checks"]]

    def payload_for(self, indices: set[int]) -> dict[str, Any]:
        """The payload restricted to these slots (a later run's share of the tests)."""
        return {
            **self.payload,
            "tests": [t for t in self.payload["tests"] if t["i"] in indices],
            "checks": [c for c in self.payload["checks"] if c["i"] in indices],
        }

    def job(self, code: str, *, indices: set[int] | None = None) -> dict[str, Any]:
        """The sandbox job for `code`: every test, or those in `indices` (a later run). The same
        job whether or not only the verdict is read: a job cut short at a failed check could end
        otherwise than the whole one (a later check that ends the sample), and the verdict would
        differ (`Oracle._judge`)."""
        payload = self.payload if indices is None else self.payload_for(indices)
        return {**payload, "program": code}

    def missing(self, outcomes: dict[int, TestOutcome]) -> frozenset[int]:
        """The sandboxed slots without an outcome."""
        return frozenset(slot.index for slot in self.sandboxed if slot.index not in outcomes)

    def timed_out(self, index: int, reason: str) -> TestOutcome:
        """The outcome of a test that was still running when its run's time ran out."""
        return _failed(self.slots[index], "Timeout", f"no result: {reason}")

    def read(
        self,
        result: RunResult,
        limits: Limits = DEFAULT_LIMITS,
        payload: dict[str, Any] | None = None,
    ) -> RunRead:
        """Judge what one sandbox run of `payload` (default: every test) sent back."""
        payload = payload or self.payload
        budget = wire.Budget()
        sample_frames, sample_broken, too_large = _frames(
            result.sample_stream, budget, len(payload["tests"]) + 2
        )
        checker_frames, checker_broken, checker_too_large = _frames(
            result.checker_stream, budget, len(payload["checks"]) + 2
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
                sample_frames[1:], outcomes, budget, payload
            )
            too_large = too_large or judged_too_large
        elif first and first.get("t") not in ("load_error", "no_entry", "sandbox_error"):
            protocol = f"unexpected {str(first.get('t'))[:20]!r} frame from the sample"
        if sample_broken and protocol is None:
            protocol = sample_broken
        checks_done = self.read_checker_frames(checker_frames, outcomes, payload)
        tests_done = any(f.get("t") == "tests_done" for f in sample_frames)
        if self.assert_calls and not tests_done and _ended_by_itself(result):
            tests_done = self.checks_left_behind(first, outcomes, payload)
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
        return RunRead(
            status,
            reason,
            outcomes,
            first.get("t") == "loaded",
            result.output.decode("utf-8", "replace"),
            result.elapsed_s,
        )

    def checks_left_behind(
        self, first: dict[str, Any], outcomes: dict[int, TestOutcome], payload: dict[str, Any]
    ) -> bool:
        """The outcomes of the checks judged here (`assert_calls`) that a sample which ended by
        itself (crashed, exited, killed by the OOM killer; not stopped by the zygote) did not
        answer, as the checker would have given them: it would have waited for the sample to
        serve and found it gone ("ended before answering") or, once it had served, found it
        gone in the call it was on and then the pipe closed (the same words: `check.SampleClient.request`).
        Returns whether the sample had finished its own tests (it then served the checker,
        which ran every check to the end)."""
        own = [t["i"] for t in payload["tests"] if t["op"] != "check_call"]
        served = first.get("t") == "loaded" and all(i in outcomes for i in own)
        pending = [
            t["i"] for t in payload["tests"] if t["op"] == "check_call" and t["i"] not in outcomes
        ]
        for index in pending:
            message = "the sample process ended before answering"
            passed, calls, error = self.assert_calls[index].boundary(message)
            outcomes[index] = self.check_outcome(self.slots[index], passed, calls, error, 0.0)
        return served

    def read_sample_frames(
        self,
        frames: list[dict[str, Any]],
        outcomes: dict[int, TestOutcome],
        budget: wire.Budget,
        payload: dict[str, Any] | None = None,
    ) -> tuple[str | None, str | None]:
        """Judge each test frame in order: (protocol violation, result too large to decode).

        A frame out of sequence, or one that does not decode, is a protocol
        violation; a result past a decoding bound makes the sample `too_large`
        and ends the judging (its budget is spent).
        """
        expected = [t["i"] for t in (payload or self.payload)["tests"]]
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
        self,
        frames: list[dict[str, Any]],
        outcomes: dict[int, TestOutcome],
        payload: dict[str, Any] | None = None,
    ) -> bool:
        checks = (payload or self.payload)["checks"]
        check_indices = {check["i"] for check in checks}
        for frame in frames:
            if frame.get("t") == "checks_done":
                return True
            index = frame.get("i")
            if frame.get("t") != "check" or type(index) is not int or index not in check_indices:
                continue
            slot = self.slots[index]
            raw_error = frame.get("x")
            error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
            outcomes[slot.index] = self.check_outcome(
                slot, bool(frame.get("passed")), frame.get("calls", []), error, _seconds(frame)
            )
        return not checks

    @staticmethod
    def check_outcome(
        slot: _Slot,
        passed: bool,
        calls: Any,
        error: dict[str, Any] | None,
        seconds: float,
    ) -> TestOutcome:
        """A check's outcome: the candidate's results as the checker logged them, and the error
        the check stopped on (from the checker, or as `asserts` rebuilt it here)."""
        actual = actual_text(calls)
        if passed:
            return TestOutcome(slot.index, slot.name, slot.kind, True, actual, None, None, seconds)
        error = error or {}
        return TestOutcome(
            slot.index,
            slot.name,
            slot.kind,
            False,
            actual,
            str(error.get("type", "Error")),
            _check_message(error),
            seconds,
        )

    def judge(self, slot: _Slot, frame: dict[str, Any], budget: wire.Budget) -> TestOutcome:
        seconds = _seconds(frame)
        assert_call = self.assert_calls.get(slot.index)
        if assert_call is not None:
            passed, calls, error = assert_call.judge(frame, budget, self.contract.entry.name)
            return self.check_outcome(slot, passed, calls, error, seconds)
        if slot.kind == "stateful":
            return self.judge_stateful(slot, frame, seconds, budget)
        if "x" in frame:
            raised = frame["x"]
            actual = actual_text({"$raised": raised_type(raised)})
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
            if expected_name is not None and raised_matches(raised, expected_name):
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
                raised_type(raised),
                message,
                seconds,
            )
        encoded = frame["r"]
        value = wire.decode(encoded, budget)
        actual = actual_text(encoded)
        test = slot.test
        if isinstance(test, CallTest):
            ok = values_match(value, test.expected, test.rel_tol, test.abs_tol)
            expected_text = show_value(test.expected)
        elif isinstance(test, RaisesTest):
            ok, expected_text = False, f"{test.raises} to be raised"
        elif self.contract.out_of_domain.policy == "must_return":
            ok = values_match(value, self.contract.out_of_domain.return_value)
            expected_text = show_value(self.contract.out_of_domain.return_value)
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
            actual = actual_text({"$raised": raised_type(raised), "$at": "init"})
            return TestOutcome(
                slot.index,
                slot.name,
                slot.kind,
                False,
                actual,
                raised_type(raised),
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
                actuals.append({"$raised": raised_type(raised)})
                if step.raises is None or not raised_matches(raised, step.raises):
                    expected = f"expected {step.raises}, raised " if step.raises else "raised "
                    problem = (raised_type(raised), expected + _exception_text(raised))
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
                        f"expected {show_value(step.expected)}, got {wire.show(encoded, 60)}",
                    )
            if problem and failure is None:
                failure = (problem[0], f"step {number} {_step_text(step)}: {problem[1]}")
        actual = actual_text(actuals)
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
        checks: Prechecks,
        isolation: str,
        duration: float,
        output: str,
        runs: int = 1,
        unrun: frozenset[int] = frozenset(),
        ended: tuple[str, str] | None = None,
    ) -> Verdict:
        """The verdict from the outcomes of the runs; a slot in `unrun` (a verdict decided early,
        `Oracle` with `verdict_only`) was not run and has no outcome in it at all. `ended`: how
        the run that left the tests without a result ended, where that is not `status` (a
        verdict an earlier test decided)."""
        ended_status, ended_reason = ended or (status, reason)
        missing_reason = ended_reason or "no result"
        tests = []
        for slot in self.sandboxed:
            outcome = outcomes.get(slot.index)
            if outcome is None:
                if slot.index in unrun:
                    continue
                outcome = _failed(slot, _missing_type(ended_status), f"no result: {missing_reason}")
            tests.append(outcome)
        tests.extend(checks.constraint_outcomes)
        tests = [_printable_outcome(outcome) for outcome in tests]
        contract_tests = [outcome for outcome in tests if outcome.index < self.test_count]
        passed_tests = sum(outcome.passed for outcome in contract_tests)
        fraction = passed_tests / self.test_count if self.test_count else 0.0
        threshold = self.contract.oracle.pass_threshold
        others_ok = all(outcome.passed for outcome in tests if outcome.index >= self.test_count)
        # SKYT's rule, to the bit: pass_rate >= required_pass_rate, a float division, no rounding.
        passed = status == "ok" and others_ok and fraction >= threshold and not unrun
        passed_all = status == "ok" and all(outcome.passed for outcome in tests) and not unrun
        if status == "ok":
            failing = next((o for o in tests if not o.passed), None)
            if passed:
                reason = f"passed {passed_tests}/{self.test_count}"
                if failing is None:
                    reason += " tests"
                else:
                    reason += (
                        f", threshold {threshold:g}; first failure: test {failing.index + 1} "
                        f"{failing.name!r}"
                    )
            elif failing is not None:
                reason = f"test {failing.index + 1} {failing.name!r}: {failing.error_message or failing.error_type}"
                if threshold < 1.0 and others_ok:
                    reason = (
                        f"passed {passed_tests}/{self.test_count}, threshold {threshold:g}; "
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
            passed_all=passed_all,
            threshold=threshold,
            compliance=checks.compliance,
            runs=runs,
            unrun=len(unrun),
        )

    def deciding(self, outcomes: dict[int, TestOutcome]) -> int | None:
        """At threshold 1.0, the test that decides a failing verdict once every test before it
        (by index, the order a reason names them in) has its outcome: the first that failed,
        raised or timed out; None while undecided (or at another threshold)."""
        if self.contract.oracle.pass_threshold < 1.0:
            return None
        for slot in self.sandboxed:
            outcome = outcomes.get(slot.index)
            if outcome is None:
                return None
            if not outcome.passed:
                return slot.index
        return None


def _assert_calls(contract: Contract) -> dict[int, AssertCall]:
    """Every check of the contract as an `AssertCall`, by test index; empty unless all are one
    (a check left to the checker keeps them all there, so the calls reach the sample in the
    order they always did, and a sample that dies mid-test fails the rest as the checker saw)."""
    found: dict[int, AssertCall] = {}
    for index, test in enumerate(contract.tests):
        if isinstance(test, CheckTest):
            call = _recognised(test.code)
            if call is None:
                return {}
            found[index] = call
    return found


@functools.lru_cache(maxsize=4096)
def _recognised(code: str) -> AssertCall | None:
    return recognise(code)


def _encoded_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    return [wire.encode(list(args), strict=True), wire.encode(dict(kwargs), strict=True)]


def _call_text(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [show_value(a) for a in args] + [f"{k}={show_value(v)}" for k, v in kwargs.items()]
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


def _ended_by_itself(result: RunResult) -> bool:
    """The sample process ended on its own, not by the zygote's hand (the clock or a cap the
    zygote enforces, which would have stopped the checker too) or a lost worker."""
    return not (result.timed_out or result.lost or result.limit in ("output", "result", "disk"))


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
        if offset + FRAME_HEADER.size > len(stream):
            return frames, "a truncated frame", None
        (length,) = FRAME_HEADER.unpack_from(stream, offset)
        offset += FRAME_HEADER.size
        body = stream[offset : offset + length]
        if len(body) < length:
            return frames, "a truncated frame", None
        offset += length
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
