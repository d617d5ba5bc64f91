"""A contract in words for the detail pane: tests as calls, constraints as short lines."""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.contracts.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    Contract,
    RaisesTest,
    StatefulTest,
    Step,
)
from skyt_tui.engine.contracts.describe import describe_compliance
from skyt_tui.engine.printable import counted

MAX_VALUE_CHARS = 60


def reflow(text: str) -> str:
    """Join the hard-wrapped lines of each paragraph so the pane can wrap them to its width.

    Blank lines, indented lines (code) and list items keep their own lines.
    """
    out: list[str] = []
    for line in text.strip("\n").splitlines():
        stripped = line.strip()
        starts_block = (
            not stripped
            or line[:1].isspace()
            or stripped[:1] in "-*`#"
            or stripped[:2].rstrip(".").isdigit()
        )
        if out and out[-1] and not starts_block and not out[-1][:1].isspace():
            out[-1] = f"{out[-1]} {stripped}"
        else:
            out.append(line.rstrip())
    return "\n".join(out)


def short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def call_text(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [short_repr(arg) for arg in args] + [
        f"{key}={short_repr(value)}" for key, value in kwargs.items()
    ]
    return f"{name}({', '.join(parts)})"


def _tolerance(rel_tol: float | None, abs_tol: float | None) -> str:
    bits = [
        f"rel_tol={rel_tol:g}" if rel_tol is not None else "",
        f"abs_tol={abs_tol:g}" if abs_tol is not None else "",
    ]
    bits = [bit for bit in bits if bit]
    return f"  ({', '.join(bits)})" if bits else ""


def _step_text(step: Step) -> str:
    call = call_text(f"obj.{step.method}", step.args, step.kwargs)
    if step.raises is not None:
        return f"{call} raises {step.raises}"
    if step.expected is UNCHECKED:
        return call
    return f"{call} → {short_repr(step.expected)}{_tolerance(step.rel_tol, step.abs_tol)}"


def describe_tests(contract: Contract) -> list[str]:
    """Each test as one or more readable lines, e.g. `fibonacci(10) == 55`."""
    entry = contract.entry.name
    lines: list[str] = []
    for number, test in enumerate(contract.tests, start=1):
        label = f"{number}. " + (f"[{test.name}] " if test.name else "")
        if isinstance(test, CallTest):
            lines.append(
                f"{label}{call_text(entry, test.args, test.kwargs)} == {short_repr(test.expected)}"
                f"{_tolerance(test.rel_tol, test.abs_tol)}"
            )
        elif isinstance(test, RaisesTest):
            lines.append(f"{label}{call_text(entry, test.args, test.kwargs)} raises {test.raises}")
        elif isinstance(test, StatefulTest):
            lines.append(f"{label}obj = {call_text(entry, test.init_args, test.init_kwargs)}")
            lines.extend(f"     {_step_text(step)}" for step in test.steps)
        elif isinstance(test, CheckTest):
            code_lines = test.code.strip("\n").splitlines()
            lines.append(f"{label}check(candidate), {counted(len(code_lines), 'line')}:")
            lines.extend(f"     {line}" for line in code_lines)
    return lines


def describe_constraints(contract: Contract) -> list[str]:
    c = contract.constraints
    lines = [f"entry: {contract.entry.kind} {contract.entry.name}", f"style: {c.style}"]
    if c.fixed_names:
        lines.append(f"fixed names: {', '.join(c.fixed_names)}")
    for label, names in (
        ("forbidden calls", c.forbidden_calls),
        ("forbidden imports", c.forbidden_imports),
        ("forbidden constructs", c.forbidden_nodes),
    ):
        if names:
            lines.append(f"{label}: {', '.join(names)}")
    lines.extend(f"{label}: {text}" for label, text in describe_compliance(contract))
    lines.append(
        f"oracle: pass threshold {contract.oracle.pass_threshold:g}, timeout {contract.oracle.timeout_s:g} s"
    )
    ood = contract.out_of_domain
    if ood.policy != "ignore":
        inputs = "; ".join(call_text(contract.entry.name, i.args, i.kwargs) for i in ood.inputs)
        outcome = (
            f"return {short_repr(ood.return_value)}"
            if ood.policy == "must_return"
            else f"raise {ood.raises or 'an exception'}"
        )
        lines.append(f"out of domain: {inputs} must {outcome}")
    transformers = ", ".join(contract.rescue.transformers) or "all"
    lines.append(
        f"repair: at most {counted(contract.rescue.max_transformations, 'step')}, transformers: {transformers}"
    )
    return lines
