"""Contract tests as readable lines, for the CLI and the app."""

from __future__ import annotations

from typing import Any

from skyt_tui.engine.contracts.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    Contract,
    RaisesTest,
    StatefulTest,
    Test,
)
from skyt_tui.engine.printable import printable


def call_text(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    parts = [repr(arg) for arg in args] + [f"{key}={value!r}" for key, value in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def tolerance_text(rel: float | None, abs_: float | None) -> str:
    bounds = []
    if rel is not None:
        bounds.append(f"rel_tol={rel:g}")
    if abs_ is not None:
        bounds.append(f"abs_tol={abs_:g}")
    return f"  ({', '.join(bounds)})" if bounds else ""


def describe_test(contract: Contract, test: Test) -> list[str]:
    """A test as readable lines: the call and what must come back."""
    entry = contract.entry.name
    if isinstance(test, CallTest):
        approx = "≈" if test.rel_tol is not None or test.abs_tol is not None else "→"
        return [
            f"{call_text(entry, test.args, test.kwargs)} {approx} {test.expected!r}{tolerance_text(test.rel_tol, test.abs_tol)}"
        ]
    if isinstance(test, RaisesTest):
        return [f"{call_text(entry, test.args, test.kwargs)} raises {test.raises}"]
    if isinstance(test, StatefulTest):
        lines = [f"obj = {call_text(entry, test.init_args, test.init_kwargs)}"]
        for step in test.steps:
            call = call_text(f"obj.{step.method}", step.args, step.kwargs)
            if step.raises is not None:
                lines.append(f"{call} raises {step.raises}")
            elif step.expected is UNCHECKED:
                lines.append(f"{call}   (result not checked)")
            else:
                lines.append(
                    f"{call} → {step.expected!r}{tolerance_text(step.rel_tol, step.abs_tol)}"
                )
        return lines
    assert isinstance(test, CheckTest)
    return [f"check({entry}) with the code below"]


def describe_compliance(contract: Contract) -> list[tuple[str, str]]:
    """(label, text) of the contract's coding rules and patterns, and of the rules its source
    named that skyt-tui does not check (kept in `[source] unchecked_rules`); empty without any."""
    c = contract.constraints
    rows: list[tuple[str, str]] = []
    if c.coding_rules:
        rows.append(("coding rules", ", ".join(c.coding_rules)))
    if c.required_patterns:
        rows.append(("required patterns", " · ".join(c.required_patterns)))
    if c.forbidden_patterns:
        rows.append(("forbidden patterns", " · ".join(c.forbidden_patterns)))
    unchecked = contract.source.get("unchecked_rules")
    if isinstance(unchecked, list) and unchecked:
        texts = contract.source.get("rule_texts")
        texts = texts if isinstance(texts, dict) else {}
        shown = [f"{rule} ({texts[rule]})" if rule in texts else str(rule) for rule in unchecked]
        rows.append(("not checked", "; ".join(shown)))
    return [(label, printable(text)) for label, text in rows]
