"""Python values in TOML: plain TOML where it is faithful, a Python literal otherwise.

TOML has no None, tuple, set or bytes, so a contract field `expected` may instead
be written `expected_py = "(1, 2)"`, read with `ast.literal_eval` (literals only,
nothing is executed). `to_toml_fields` picks the form when writing.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from skyt_tui.engine.syntax import literal_eval


class LiteralError(ValueError):
    pass


def parse_literal(text: str) -> Any:
    if not isinstance(text, str):
        raise LiteralError("must be a string holding a Python literal")
    try:
        return literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc) or type(exc).__name__
        if reason.startswith("malformed node or string"):  # names the node's object address
            reason = "it holds a call, a name or an operation, which a literal cannot"
        elif reason.startswith("Exceeds the limit"):  # Python's advice names a sys setting
            reason = f"an integer of more than {sys.get_int_max_str_digits():,} digits"
        raise LiteralError(f"not a Python literal ({reason})") from None


def is_toml_faithful(value: Any) -> bool:
    """True when writing `value` to TOML and reading it back gives an equal value of the same types."""
    if isinstance(value, bool | str):
        return True
    if isinstance(value, int):
        # TOML integers are 64-bit; larger ones go to a _py literal
        return -(2**63) <= value < 2**63
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return all(is_toml_faithful(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and is_toml_faithful(item) for key, item in value.items())
    return False


def literal_text(value: Any) -> str:
    """`repr(value)`, made canonical: set elements and dict items sorted, infinities as 1e999.

    A set's repr follows its insertion history and a dict's its insertion order,
    so equal values can print differently; sorting the element texts makes equal
    values give equal text (and equal contract hashes). `inf` is not a literal
    but `1e999` reads back as it.
    """
    if isinstance(value, float) and math.isinf(value):
        return "1e999" if value > 0 else "-1e999"
    if type(value) is set:
        return (
            "{" + ", ".join(sorted(literal_text(item) for item in value)) + "}"
            if value
            else "set()"
        )
    if type(value) is list:
        return "[" + ", ".join(literal_text(item) for item in value) + "]"
    if type(value) is tuple:
        inner = ", ".join(literal_text(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if type(value) is dict:
        items = sorted((literal_text(k), literal_text(v)) for k, v in value.items())
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    return repr(value)


def literal_round_trips(value: Any) -> bool:
    try:
        back = parse_literal(literal_text(value))
    except LiteralError:
        return False
    return same_value(back, value)


def same_value(a: Any, b: Any) -> bool:
    """Structural equality that also distinguishes types (1 vs True vs 1.0) and treats nan == nan."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    equal: bool = a == b
    return equal


def to_toml_fields(name: str, value: Any) -> dict[str, Any]:
    """`{name: value}` when TOML can hold it, else `{name + "_py": repr(value)}`."""
    if is_toml_faithful(value):
        return {name: value}
    if not literal_round_trips(value):
        raise LiteralError(
            f"{name}: value {value!r:.60} cannot be written as TOML or as a Python literal"
        )
    return {f"{name}_py": literal_text(value)}
