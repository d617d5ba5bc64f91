"""What a program returns on given inputs, not whether it is right: the oracle's side of probing
(docs/probe.md).

A job is a program, the contract it was written for (entry point, timeout) and a list of calls.
It runs in the sandbox exactly as a sample's tests do (same worker, same limits, every isolation
layer); what comes back is decoded here, bounded, into one `CallOutput` per call. A call the
program never answered (it hung, crashed or flooded on an earlier call, or the job hit a limit)
has `status` "missing", and the job's status says why, in the oracle's words (timeout,
memory_limit, output_limit, crashed, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from skyt_tui.engine.contracts.contract import CallTest, Contract, OraclePolicy
from skyt_tui.engine.oracle.plan import Plan, _frames, _seconds
from skyt_tui.engine.oracle.verdicts import raised_type
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sandbox.pool import Limits, RunResult

RETURNED = "returned"
RAISED = "raised"
MISSING = "missing"


@dataclass(frozen=True)
class Call:
    """One call of the entry point: positional and keyword arguments."""

    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs_dict(self) -> dict[str, Any]:
        return dict(self.kwargs)


@dataclass(frozen=True)
class CallOutput:
    """What one call gave: a value, an exception type name, or nothing (`status` missing)."""

    status: str
    value: Any = None
    raised: str | None = None
    seconds: float = field(default=0.0, compare=False)
    """How long the call took in the sandbox (not part of what the call gave)."""

    def show(self, limit: int = 80) -> str:
        if self.status == RETURNED:
            return wire.short_repr(self.value, limit)
        if self.status == RAISED:
            return f"raised {self.raised}"
        return "no result"


@dataclass(frozen=True)
class CallsResult:
    """One job's outputs, in call order, and how the job ended (`status` "ok" when it finished)."""

    status: str
    reason: str
    outputs: tuple[CallOutput, ...]


class CallsPlan:
    """Calls compiled for the sandbox, through the oracle's own `Plan` (a contract whose tests
    are the calls, expecting nothing), so payload, limits and status words are the oracle's."""

    def __init__(self, contract: Contract, calls: Sequence[Call]) -> None:
        probe = replace(
            contract,
            tests=tuple(
                CallTest(
                    name=f"call {i + 1}", args=call.args, kwargs=call.kwargs_dict, expected=None
                )
                for i, call in enumerate(calls)
            ),
            out_of_domain=type(contract.out_of_domain)(),
            oracle=OraclePolicy(pass_threshold=1.0, timeout_s=contract.oracle.timeout_s),
            constraints=type(contract.constraints)(),
        )
        self.plan = Plan(probe)
        self.count = len(calls)
        self.timeout_s = contract.oracle.timeout_s

    @property
    def payload(self) -> dict[str, Any]:
        return self.plan.payload

    def result(self, run: RunResult, limits: Limits) -> CallsResult:
        budget = wire.Budget()
        frames, broken, too_large = _frames(run.sample_stream, budget, self.count + 2)
        outputs: list[CallOutput] = [CallOutput(MISSING)] * self.count
        first = frames[0] if frames else {}
        protocol = None
        tests_done = False
        if first.get("t") == "loaded":
            for position, frame in enumerate(frames[1:]):
                if frame.get("t") == "tests_done":
                    tests_done = position == self.count
                    if not tests_done:
                        protocol = "the sample reported the calls done too early"
                    break
                if frame.get("t") != "call" or frame.get("i") != position or position >= self.count:
                    protocol = "unexpected frame from the sample"
                    break
                try:
                    seconds = _seconds(frame)
                    if "x" in frame:
                        outputs[position] = CallOutput(
                            RAISED, raised=raised_type(frame["x"]), seconds=seconds
                        )
                    else:
                        value = wire.decode(frame["r"], budget)
                        outputs[position] = CallOutput(RETURNED, value, seconds=seconds)
                except wire.TooLarge as exc:
                    too_large = str(exc)
                    break
                except Exception:  # the frame is the sample's data: malformed is a violation
                    protocol = f"call {position + 1}: malformed result"
                    break
        elif first and first.get("t") not in ("load_error", "no_entry", "sandbox_error"):
            protocol = "unexpected first frame from the sample"
        sandbox_error = str(first.get("error"))[:200] if first.get("t") == "sandbox_error" else None
        status, reason = self.plan.status(
            run,
            first,
            sandbox_error,
            protocol or broken,
            tests_done,
            True,
            None,
            too_large,
            limits,
        )
        if status == "protocol_error":
            outputs = [CallOutput(MISSING)] * self.count  # nothing a broken stream says is kept
        return CallsResult(status, reason, tuple(outputs))
