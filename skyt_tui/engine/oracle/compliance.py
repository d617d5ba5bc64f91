"""Compliance: does a sample keep its contract's coding-standard rules and code patterns?

Separate from correctness: a sample can pass every test and break a rule, and
the verdict's `passed` never reads this. The rules (`constraints.coding_rules`)
are read on the program's syntax tree (`rule_checks`). Patterns
(`required_patterns`, `forbidden_patterns`) are matched as token sequences on the
program as skyt-tui formats it without docstrings (the `nodoc` level), so
spacing, line breaks, comments, docstrings, quoting and redundant parentheses
do not decide: `while (left <= right):` contains `while left <= right`, and a
comment mentioning `continue` does not contain `continue`. A pattern is a whole
token sequence: `low` is not found in `lower`. Parsing only; nothing runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from skyt_tui.engine.contracts.coding_rules import code_tokens, pattern_tokens
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.measure.normalize import strip_docstrings
from skyt_tui.engine.oracle.rule_checks import RULE_CHECKS, Program
from skyt_tui.engine.printable import printable
from skyt_tui.engine.syntax import parse_ast

PARSE_RULE = "parse"
REQUIRED = "required-pattern"
FORBIDDEN = "forbidden-pattern"


@dataclass(frozen=True)
class Violation:
    """One broken rule: its id (a rule id, `required-pattern`, `forbidden-pattern` or
    `parse`), the first line of the program that breaks it (None when no one line does),
    what is wrong there, and the pattern for a pattern rule."""

    rule: str
    line: int | None
    message: str
    pattern: str | None = None

    @property
    def key(self) -> str:
        """What identifies the rule across programs (a pattern rule is one per pattern)."""
        return self.rule if self.pattern is None else f"{self.rule}:{self.pattern}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rule": self.rule, "line": self.line, "message": self.message}
        if self.pattern is not None:
            out["pattern"] = self.pattern
        return out


@dataclass(frozen=True)
class Compliance:
    """A sample's compliance record: one violation per broken rule, in the contract's order."""

    compliant: bool
    violations: tuple[Violation, ...] = ()

    @property
    def broken(self) -> frozenset[str]:
        return frozenset(v.key for v in self.violations)

    def to_dict(self) -> dict[str, Any]:
        return {"compliant": self.compliant, "violations": [v.to_dict() for v in self.violations]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Compliance:
        return cls(
            compliant=bool(data["compliant"]),
            violations=tuple(
                Violation(
                    rule=str(v["rule"]),
                    line=v.get("line"),
                    message=str(v.get("message", "")),
                    pattern=v.get("pattern"),
                )
                for v in data.get("violations") or ()
            ),
        )


def not_checked(contract: Contract, why: str) -> Compliance | None:
    """The record of a program whose rules cannot be read (it does not parse, it is too large)."""
    if not contract.constraints.has_compliance_rules:
        return None
    return Compliance(False, (Violation(PARSE_RULE, None, printable(why)[:200]),))


def check_compliance(
    contract: Contract, code: str, tree: ast.Module | None = None
) -> Compliance | None:
    """The compliance record of `code` under `contract`, or None when the contract has no
    coding rules or patterns. `tree` is the program's parse when the caller has one."""
    constraints = contract.constraints
    if not constraints.has_compliance_rules:
        return None
    if tree is None:
        try:
            tree = parse_ast(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            return not_checked(contract, "the program does not parse, so no rule can be checked")
    program = Program(code, tree)
    violations: list[Violation] = []
    for rule in constraints.coding_rules:
        try:
            finding = RULE_CHECKS[rule](program)
        except RecursionError:
            violations.append(Violation(rule, None, "the program is nested too deeply to check"))
            continue
        if finding is not None:
            violations.append(Violation(rule, finding.line, printable(finding.message)[:300]))
    if constraints.required_patterns or constraints.forbidden_patterns:
        violations.extend(_pattern_violations(contract, code))
    return Compliance(not violations, tuple(violations))


def _formatted(code: str) -> tuple[str, dict[int, int]] | None:
    """The program at the `nodoc` level, and its statements' lines → the program's lines."""
    try:
        stripped = strip_docstrings(parse_ast(code))
        text = ast.unparse(stripped)
        formatted = parse_ast(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    lines: dict[int, int] = {}
    for ours, theirs in zip(ast.walk(formatted), ast.walk(stripped)):
        if type(ours) is not type(theirs):
            break  # the round trip changed the shape here: lines past it stay unknown
        if isinstance(ours, ast.stmt) and hasattr(theirs, "lineno"):
            lines.setdefault(ours.lineno, theirs.lineno)
    return text, lines


def _find(haystack: list[str], needle: tuple[str, ...]) -> int | None:
    """Where `needle` first occurs in `haystack` as a contiguous run (Knuth-Morris-Pratt)."""
    fallback = [0] * len(needle)
    k = 0
    for i in range(1, len(needle)):
        while k and needle[i] != needle[k]:
            k = fallback[k - 1]
        if needle[i] == needle[k]:
            k += 1
        fallback[i] = k
    k = 0
    for i, text in enumerate(haystack):
        while k and text != needle[k]:
            k = fallback[k - 1]
        if text == needle[k]:
            k += 1
            if k == len(needle):
                return i - k + 1
    return None


def _pattern_violations(contract: Contract, code: str) -> list[Violation]:
    constraints = contract.constraints
    formatted = _formatted(code)
    if formatted is None:
        return [Violation(PARSE_RULE, None, "the program cannot be formatted to match patterns")]
    text, lines = formatted
    tokens = code_tokens(text)
    texts = [token for token, _ in tokens]
    found: list[Violation] = []
    for pattern in constraints.required_patterns:
        if _find(texts, pattern_tokens(pattern)) is None:
            found.append(
                Violation(REQUIRED, None, f"does not contain {printable(pattern)}", pattern)
            )
    for pattern in constraints.forbidden_patterns:
        at = _find(texts, pattern_tokens(pattern))
        if at is not None:
            line = lines.get(tokens[at][1])
            where = f" at line {line}" if line is not None else ""
            found.append(
                Violation(FORBIDDEN, line, f"contains {printable(pattern)}{where}", pattern)
            )
    return found
