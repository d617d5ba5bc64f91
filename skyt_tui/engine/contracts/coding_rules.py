"""The coding-standard rules a contract may name (`[constraints] coding_rules`, docs/contracts.md).

Each id has one meaning in skyt-tui, read on the program's syntax tree by
`oracle.compliance`; the one-line descriptions here are what people see. SKYT's
strict contracts name the same rules as `misra_c_rules.rule_15_4` and
`nasa_power_of_10.p10_1`; `skyt_rule_id` maps those names to these ids.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize

from skyt_tui.engine.syntax import literal_eval, parse_ast

CODING_RULES: dict[str, str] = {
    "MISRA-12.1": "explicit precedence: an operand that is itself an operation binding tighter "
    "than its operator is written in parentheses",
    "MISRA-14.2": "a for loop's counter is not assigned in the loop's body",
    "MISRA-15.4": "no continue, and at most one break per loop",
    "MISRA-15.5": "a single exit point: at most one return per function, as its last statement",
    "MISRA-17.2": "no recursion, direct or through other functions",
    "MISRA-21.3": "no dynamic-memory library: no import of collections (SKYT's reading)",
    "P10-1": "no recursion, direct or through other functions (Python has no goto)",
    "P10-2": "bounded loops: no while loop whose condition is constant or can never change, "
    "no for loop over an endless iterator",
    "P10-3": "no dynamic-memory library: no import of collections (SKYT's reading)",
    "P10-4": "every function is at most 60 lines long, one line per statement and clause",
    "P10-6": "data at the smallest scope: no global or nonlocal, and every name a function "
    "returns is bound in the function's own top-level body",
    "P10-7": "every function tests at least one of its parameters, and no call discards "
    "the value of a program function that returns one",
}
"""Rule id → what skyt-tui checks. MISRA C:2012 and NASA/JPL Power of 10 rules, read for Python."""

PATTERN_MAX_CHARS = 500
PATTERNS_MAX = 100

_SKYT_NAME = re.compile(r"rule_(\d+)_(\d+)|p10_(\d+)")


def skyt_rule_id(name: str) -> str | None:
    """SKYT's key (`rule_15_4` under `misra_c_rules`, `p10_1` under `nasa_power_of_10`) as a
    rule id (`MISRA-15.4`, `P10-1`), whether or not skyt-tui checks it; None for other keys."""
    match = _SKYT_NAME.fullmatch(name)
    if match is None:
        return None
    if match.group(3) is not None:
        return f"P10-{int(match.group(3))}"
    return f"MISRA-{int(match.group(1))}.{int(match.group(2))}"


_LAYOUT_TOKENS = frozenset(
    (
        tokenize.NEWLINE,
        tokenize.NL,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.COMMENT,
        tokenize.ENDMARKER,
    )
)


def _token_text(kind: int, text: str) -> str:
    """Literals in one spelling (`'a'` and `"a"`, `0x10` and `16` are the same token)."""
    if kind in (tokenize.STRING, tokenize.NUMBER):
        try:
            return repr(literal_eval(text))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text
    return text


def code_tokens(text: str) -> list[tuple[str, int]]:
    """The tokens of `text` that carry meaning (no layout, no comments), each with its line.

    Tolerant: an unfinished fragment (`[x for x`) gives the tokens before the point where
    the tokenizer stopped. Linear in the text. Patterns and programs are compared as these.
    """
    found: list[tuple[str, int]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _LAYOUT_TOKENS:
                continue
            if token.type == tokenize.ERRORTOKEN and not token.string.strip():
                continue
            found.append((_token_text(token.type, token.string), token.start[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def pattern_tokens(pattern: str) -> tuple[str, ...]:
    """The token texts a pattern is matched as (empty when it holds no code).

    A pattern is formatted as programs are before matching (`ast.unparse`: redundant
    parentheses, spacing and quoting gone), so `left + ((right - left) // 2)` and
    `while (left <= right)` match what they mean. A clause header (`while a <= b`,
    `for i in range`) is formatted with a body it does not have; a fragment that does not
    parse either way (`[x for x`, `while`) is matched token by token as written.
    """
    text = textwrap.dedent(pattern).strip()
    for candidate, body in ((text, ()), (text + ":\n    pass", (":", "pass"))):
        try:
            formatted = ast.unparse(parse_ast(candidate))
        except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
            continue
        tokens = tuple(token for token, _ in code_tokens(formatted))
        if body and tokens[-len(body) :] != body:
            continue
        return tokens[: len(tokens) - len(body)]
    return tuple(token for token, _ in code_tokens(text))
