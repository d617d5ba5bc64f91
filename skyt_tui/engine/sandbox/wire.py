"""Tagged JSON: how Python values cross the sandbox boundary, and their canonical text.

JSON has no tuple, set, bytes, nan or big-integer form, and Python's own
`repr`/`eval` would execute code, so values travel as JSON with one-key tag
objects for everything JSON cannot say exactly:

    None, bool, str, list      as themselves
    int                        a JSON number when |x| < 2**63, else {"$int": "-0x1f..."}
    float                      a JSON number (repr, exact), nan/inf as {"$float": "nan"|"inf"|"-inf"}
    tuple / set / frozenset    {"$tuple": [...]}, {"$set": [...]}, {"$frozenset": [...]}
    dict                       a JSON object when every key is a str not starting with "$",
                               else {"$dict": [[key, value], ...]}
    bytes / bytearray          {"$bytes": base64}, {"$bytearray": base64}
    complex, Fraction, Decimal {"$complex": [re, im]}, {"$fraction": [n, d]}, {"$decimal": "1.10"}
    anything else              {"$unencodable": "module.Type"} (decodes to an `Unencodable`
                               that equals nothing), or an error when encoding is strict

Set elements and `$dict` pairs are sorted by their canonical text, so equal
values always encode to the same canonical JSON (`canonical`), which is what
the OER metric compares. Decoding builds only the plain types above: a
sample can send any bytes it likes, but never an object with its own `__eq__`.

Decoding is bounded wherever the bytes come from a sample (`Budget`): at
most `MAX_VALUES` JSON values per sample, integers of at most `MAX_INT_BITS`
bits, decimals of at most `MAX_DECIMAL_CHARS` characters, a cap on the
super-linear work (fraction reduction), and no set or dict whose elements
share one hash more than `MAX_EQUAL_HASHES` times (crafted collisions would
make building it quadratic). Every step is then linear or bounded, so no
result can stall the app that decodes it; past a bound, decoding raises
`TooLarge`.

This module imports only the standard library: the sandbox worker imports it
inside the sandbox (as `_skyt_sandbox.wire`, see `worker/__init__.py`), where
skyt_tui itself is not importable.
"""

from __future__ import annotations

import base64
import decimal
import fractions
import json
import math
import numbers
import re
from typing import Any

MAX_DEPTH = 100
INT_LIMIT = 1 << 63
MAX_VALUES = 4_000_000
"""JSON values (containers, numbers, strings, keys) one sample's results may hold in all. The
largest a benchmark's own reference gives on its own inputs: MBPP+'s Mbpp/630 (get_coordinates),
3,663,294 values in all (`scripts/benchmark_outputs.py`); 250,000 refused it (issue 35). Counting
them before parsing costs the parent time in proportion (a hostile sample at the bound: seconds),
so the bound is kept near the largest benchmark need."""
MAX_INT_BITS = 1 << 23
"""8,388,608 bits (a 2 MiB hex text): HumanEval+'s HumanEval/139 (special_factorial) returns
integers of more than 65,536 bits, the former bound, on EvalPlus's inputs (issue 35); parsing a
hex integer is linear, and the results' bytes bound them all."""
MAX_DECIMAL_CHARS = 1000
MAX_WORK = 1 << 24
"""Super-linear work units per sample: reducing a fraction of n- and d-bit parts costs n*d/4096."""
MAX_EQUAL_HASHES = 32
MAX_JSON_NUMBER_CHARS = 40
"""The encoder writes ints below 2**63 and float reprs as JSON numbers; anything longer is forged."""
PRECISE_COUNT_BYTES = 1 << 20
_JSON_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, or an unterminated one running to the end. Possessive quantifiers and the
unterminated alternative make every match attempt from a `"` succeed without backtracking, so
removing strings is one linear pass however the quotes and backslashes are arranged (a pattern
that could fail from a quote would rescan the rest of the body from every later quote)."""
_TAGS = frozenset(
    {
        "$int",
        "$float",
        "$tuple",
        "$set",
        "$frozenset",
        "$dict",
        "$bytes",
        "$bytearray",
        "$complex",
        "$fraction",
        "$decimal",
        "$unencodable",
    }
)


class EncodeError(TypeError):
    """A value that cannot be represented (strict encoding), or is cyclic or too deep."""


class DecodeError(ValueError):
    """Bytes that are not a well-formed tagged-JSON value."""


class TooLarge(DecodeError):
    """A well-formed value past a decoding bound (values, digits, work, hash collisions)."""


class Budget:
    """What decoding one sample's results may still cost; shared by all of its frames."""

    __slots__ = ("values", "work")

    def __init__(self, values: int = MAX_VALUES, work: int = MAX_WORK) -> None:
        self.values = values
        self.work = work

    def spend(self, *, values: int = 0, work: int = 0) -> None:
        self.values -= values
        self.work -= work
        if self.values < 0:
            raise TooLarge(f"the results hold more than {MAX_VALUES:,} values")
        if self.work < 0:
            raise TooLarge("the results need too much arithmetic to decode (huge fractions)")


class Unencodable:
    """Stands for a value the sample returned that has no tagged-JSON form; equals nothing."""

    __slots__ = ("type_name",)

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<unencodable {self.type_name}>"


def _type_name(value: Any) -> str:
    kind = type(value)
    module = getattr(kind, "__module__", "")
    name = getattr(kind, "__qualname__", getattr(kind, "__name__", "?"))
    if not isinstance(name, str) or not isinstance(module, str):
        return "?"
    return name if module in ("builtins", "sample") else f"{module}.{name}"


def encode(value: Any, *, strict: bool = False) -> Any:
    """The JSON-able tagged form of `value`.

    Exact builtin types are encoded directly; subclasses of them (namedtuple,
    IntEnum, defaultdict, numpy scalars registered as numbers) as their base
    type, since Python's own `==` treats them so. Anything else becomes an
    `$unencodable` marker, or raises `EncodeError` when `strict`.
    """
    return _encode(value, strict, 0, set())


def _encode(value: Any, strict: bool, depth: int, active: set[int]) -> Any:
    if depth > MAX_DEPTH:
        raise EncodeError(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -INT_LIMIT < value < INT_LIMIT else {"$int": hex(value)}
    if kind is float:
        return _encode_float(value)
    if kind in (list, tuple, set, frozenset, dict):
        return _encode_container(value, kind, strict, depth, active)
    if kind is bytes or kind is bytearray:
        return {"$" + kind.__name__: base64.b64encode(bytes(value)).decode("ascii")}
    if kind is complex:
        return {"$complex": [_encode_float(value.real), _encode_float(value.imag)]}
    if kind is fractions.Fraction:
        return {
            "$fraction": [
                _encode(value.numerator, strict, depth + 1, active),
                _encode(value.denominator, strict, depth + 1, active),
            ]
        }
    if kind is decimal.Decimal:
        return {"$decimal": str(value)}
    if kind is Unencodable and not strict:
        return {"$unencodable": value.type_name}
    return _encode_foreign(value, strict, depth, active)


def _encode_float(value: float) -> Any:
    value = float(value)
    if math.isfinite(value):
        return value
    return {"$float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _encode_container(value: Any, kind: type, strict: bool, depth: int, active: set[int]) -> Any:
    marker = id(value)
    if marker in active:
        raise EncodeError("value contains itself")
    active.add(marker)
    try:
        if kind is list:
            return [_encode(item, strict, depth + 1, active) for item in value]
        if kind is tuple:
            return {"$tuple": [_encode(item, strict, depth + 1, active) for item in value]}
        if kind is set or kind is frozenset:
            items = [_encode(item, strict, depth + 1, active) for item in value]
            items.sort(key=canonical)
            return {"$" + kind.__name__: items}
        if all(type(key) is str and not key.startswith("$") for key in value):
            return {key: _encode(item, strict, depth + 1, active) for key, item in value.items()}
        pairs = [
            [_encode(key, strict, depth + 1, active), _encode(item, strict, depth + 1, active)]
            for key, item in value.items()
        ]
        pairs.sort(key=lambda pair: canonical(pair[0]))
        return {"$dict": pairs}
    finally:
        active.discard(marker)


def _encode_foreign(value: Any, strict: bool, depth: int, active: set[int]) -> Any:
    """Subclasses of builtin types and numeric types from other libraries."""
    for base in (
        bool,
        int,
        float,
        str,
        bytes,
        bytearray,
        complex,
        list,
        tuple,
        set,
        frozenset,
        dict,
    ):
        if isinstance(value, base):
            convert: Any = base  # a builtin type, applied to its own subclass's instance
            source: Any = value
            if base in (list, tuple, set, frozenset, dict):
                plain = convert(source.items()) if base is dict else convert(source)
                return _encode_container(plain, base, strict, depth, active)
            return _encode(convert(value), strict, depth, active)
    if isinstance(value, numbers.Integral):
        return _encode(int(value), strict, depth, active)
    if isinstance(value, numbers.Real):
        return _encode_float(float(value))
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):
        return _encode(value.tolist(), strict, depth + 1, active)
    if strict:
        raise EncodeError(f"a value of type {_type_name(value)} cannot cross the sandbox boundary")
    return {"$unencodable": _type_name(value)}


def canonical(encoded: Any) -> str:
    """The one text of an encoded value: sorted keys, no spaces, ASCII only."""
    return json.dumps(
        encoded, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )


def dumps(value: Any, *, strict: bool = False) -> str:
    return canonical(encode(value, strict=strict))


def _reject_constant(name: str) -> Any:
    raise DecodeError(f"{name} is not allowed in tagged JSON")


def _bounded_int(text: str) -> int:
    if len(text) > MAX_JSON_NUMBER_CHARS:
        raise DecodeError(f"a JSON integer of {len(text)} digits (big integers travel as $int)")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_JSON_NUMBER_CHARS:
        raise DecodeError(f"a JSON number of {len(text)} characters")
    return float(text)


def count_values(body: bytes, limit: int = MAX_VALUES) -> int:
    """How many JSON values `body` holds, without parsing it (an upper bound).

    Every value after the first in a container follows a `,` or a `:`, and
    every container opens with `[` or `{`, so counting those bytes bounds the
    count from above; it is exact unless strings contain them, and where the
    quick count exceeds `limit` on a moderate body, strings are removed and
    the count repeated (one linear pass, see `_JSON_STRING`). A larger body
    past the limit is reported as such.
    """
    quick = body.count(b",") + body.count(b":") + body.count(b"[") + body.count(b"{") + 1
    if quick <= limit or len(body) > PRECISE_COUNT_BYTES:
        return quick
    bare = _JSON_STRING.sub(b'""', body)
    return bare.count(b",") + bare.count(b":") + bare.count(b"[") + bare.count(b"{") + 1


def parse_json(text: str | bytes, budget: Budget | None = None) -> Any:
    """`json.loads` that refuses NaN/Infinity literals and reports one error type.

    With a `budget` (bytes from a sample), the values are counted before
    parsing, and JSON numbers longer than any the encoder writes are refused.
    """
    try:
        if budget is None:
            return json.loads(text, parse_constant=_reject_constant)
        raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        budget.spend(values=count_values(raw, max(budget.values, 0)))
        return json.loads(
            raw,
            parse_constant=_reject_constant,
            parse_int=_bounded_int,
            parse_float=_bounded_float,
        )
    except DecodeError:
        raise
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise DecodeError(f"invalid JSON ({str(exc)[:120]})") from None


def loads(text: str | bytes, budget: Budget | None = None) -> Any:
    return decode(parse_json(text, budget), budget)


def decode(obj: Any, budget: Budget | None = None) -> Any:
    """Plain Python values from the tagged form; raises DecodeError on anything malformed.

    With a `budget`, integers, decimals and fraction arithmetic are bounded
    (values were counted when the JSON was parsed) and `TooLarge` says which
    bound was passed.
    """
    try:
        return _decode(obj, 0, budget)
    except RecursionError:
        raise DecodeError("value nested too deeply") from None


def _decode(obj: Any, depth: int, budget: Budget | None) -> Any:
    if depth > MAX_DEPTH + 2:
        raise DecodeError(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(obj)
    if obj is None or kind in (bool, int, float, str):
        return obj
    if kind is list:
        return [_decode(item, depth + 1, budget) for item in obj]
    if kind is not dict:
        raise DecodeError(f"unexpected JSON type {kind.__name__}")
    if len(obj) == 1:
        ((key, payload),) = obj.items()
        if key in _TAGS:
            return _decode_tagged(key, payload, depth, budget)
    for key in obj:
        if key.startswith("$"):
            raise DecodeError(f"unknown tag {key[:40]!r}")
    return {key: _decode(item, depth + 1, budget) for key, item in obj.items()}


def _decode_tagged(tag: str, payload: Any, depth: int, budget: Budget | None) -> Any:
    try:
        if tag == "$int":
            text = _expect(payload, str, tag)
            if not text.lstrip("-").startswith("0x"):
                raise DecodeError("$int must be hexadecimal")
            if budget is not None:
                if len(text) > MAX_INT_BITS // 4 + 3:
                    raise TooLarge(f"an integer of more than {MAX_INT_BITS:,} bits")
                budget.spend(work=len(text) // 64)
            return int(text, 16)
        if tag == "$float":
            if payload not in ("nan", "inf", "-inf"):
                raise DecodeError("$float must be nan, inf or -inf")
            return float(payload)
        if tag in ("$tuple", "$set", "$frozenset"):
            items = [_decode(item, depth + 1, budget) for item in _expect(payload, list, tag)]
            if tag == "$tuple":
                return tuple(items)
            check_hashes(items, tag)
            if budget is not None:
                budget.spend(work=len(items))
            return set(items) if tag == "$set" else frozenset(items)
        if tag == "$dict":
            pairs = []
            for pair in _expect(payload, list, tag):
                if type(pair) is not list or len(pair) != 2:
                    raise DecodeError("$dict entries must be [key, value] pairs")
                pairs.append(
                    (_decode(pair[0], depth + 1, budget), _decode(pair[1], depth + 1, budget))
                )
            check_hashes([key for key, _ in pairs], tag)
            if budget is not None:
                budget.spend(work=len(pairs))
            return dict(pairs)
        if tag in ("$bytes", "$bytearray"):
            text = _expect(payload, str, tag)
            if budget is not None:
                budget.spend(work=len(text) // 64)
            raw = base64.b64decode(text, validate=True)
            return raw if tag == "$bytes" else bytearray(raw)
        if tag == "$complex":
            parts = _expect(payload, list, tag)
            if len(parts) != 2:
                raise DecodeError("$complex needs [real, imag]")
            real, imag = (_decode(part, depth + 1, budget) for part in parts)
            if type(real) is not float or type(imag) is not float:
                raise DecodeError("$complex parts must be floats")
            return complex(real, imag)
        if tag == "$fraction":
            parts = _expect(payload, list, tag)
            if len(parts) != 2:
                raise DecodeError("$fraction needs [numerator, denominator]")
            numerator, denominator = (_decode(part, depth + 1, budget) for part in parts)
            if type(numerator) is not int or type(denominator) is not int or denominator <= 0:
                raise DecodeError("$fraction parts must be integers, denominator positive")
            if budget is not None:
                budget.spend(work=numerator.bit_length() * denominator.bit_length() // 4096)
            return fractions.Fraction(numerator, denominator)
        if tag == "$decimal":
            text = _expect(payload, str, tag)
            if budget is not None and len(text) > MAX_DECIMAL_CHARS:
                raise TooLarge(f"a decimal of more than {MAX_DECIMAL_CHARS:,} characters")
            number = decimal.Decimal(text)
            if number.is_snan():
                raise DecodeError("$decimal must not be a signalling NaN")
            return number
        return Unencodable(_expect(payload, str, tag)[:200])
    except DecodeError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise DecodeError(f"malformed {tag}: {str(exc)[:80]}") from None


def check_hashes(items: Any, what: str = "a set") -> None:
    """Refuse elements built to share one hash: each would make building the set scan all others.

    Counting hashes is itself safe: a dict keyed by hash values (ints) cannot
    be flooded the same way, as an int's hash is itself (modulo 2**61 - 1).
    Raises TypeError for unhashable elements, as building the set would.
    """
    counts: dict[int, int] = {}
    for item in items:
        code = hash(item)
        seen = counts.get(code, 0) + 1
        if seen > MAX_EQUAL_HASHES:
            raise TooLarge(f"{what} whose elements share one hash (built to collide)")
        counts[code] = seen


def _expect(payload: Any, kind: type, tag: str) -> Any:
    if type(payload) is not kind:
        raise DecodeError(f"{tag} needs a JSON {'string' if kind is str else 'array'}")
    return payload


class _Literal(str):
    """Text `show` emits as it is (brackets, separators), as opposed to a value to render."""


def show(encoded: Any, limit: int = 80) -> str:
    """A one-line, Python-like display of an *encoded* value, cut to `limit` characters.

    Works from the tagged form, so sets show sorted by canonical text (the same
    text in every process) and the work is bounded by `limit`, not by the size
    of the value: a 16 MiB string or a 60,000-bit integer costs no more than a
    short one. Strings show as `repr` does, with control characters escaped.
    """
    pieces: list[str] = []
    size = 0
    stack: list[Any] = [encoded]
    while stack and size <= limit:
        item = stack.pop()
        if isinstance(item, _Literal):
            piece = str(item)
        else:
            piece, children = _show_one(item, limit)
            stack.extend(reversed(children))
        pieces.append(piece)
        size += len(piece)
    text = " ".join("".join(pieces).split())
    if stack or len(text) > limit:
        return text[: limit - 1] + "…"
    return text


def _show_one(item: Any, limit: int) -> tuple[str, list[Any]]:
    """The text before `item`'s children, and its children interleaved with literals."""
    kind = type(item)
    if item is None or kind is bool or kind is int or kind is float:
        return repr(item), []
    if kind is str:
        return repr(item[: limit + 1]), []
    if kind is list:
        return "", _sequence("[", item, "]")
    if kind is not dict:
        return "?", []
    if len(item) == 1:
        ((tag, payload),) = item.items()
        if tag in _TAGS:
            return _show_tagged(tag, payload, limit)
    children: list[Any] = [_Literal("{")]
    for position, (key, value) in enumerate(item.items()):
        children += [
            _Literal((", " if position else "") + repr(str(key)[: limit + 1]) + ": "),
            value,
        ]
    return "", [*children, _Literal("}")]


def _sequence(opening: str, items: Any, closing: str, one: str = "") -> list[Any]:
    if not isinstance(items, list):
        return [_Literal(opening + "…" + closing)]
    children: list[Any] = [_Literal(opening)]
    for position, value in enumerate(items):
        if position:
            children.append(_Literal(", "))
        children.append(value)
    return [*children, _Literal((one if len(items) == 1 else "") + closing)]


def _show_tagged(tag: str, payload: Any, limit: int) -> tuple[str, list[Any]]:
    if tag == "$int":
        try:
            number = int(str(payload), 16)
        except ValueError:
            return "?", []
        bits = number.bit_length()
        return (repr(number) if bits <= 1024 else f"<int of {bits:,} bits>"), []
    if tag == "$float":
        return str(payload), []
    if tag == "$tuple":
        return "", _sequence("(", payload, ")", one=",")
    if tag in ("$set", "$frozenset"):
        empty = not (isinstance(payload, list) and payload)
        if tag == "$set":
            return ("set()", []) if empty else ("", _sequence("{", payload, "}"))
        return (
            ("frozenset()", [])
            if empty
            else ("frozenset(", [*_sequence("{", payload, "}"), _Literal(")")])
        )
    if tag == "$dict":
        children: list[Any] = [_Literal("{")]
        for position, pair in enumerate(payload if isinstance(payload, list) else []):
            if not (isinstance(pair, list) and len(pair) == 2):
                continue
            children += [
                _Literal(", ") if position else _Literal(""),
                pair[0],
                _Literal(": "),
                pair[1],
            ]
        return "", [*children, _Literal("}")]
    if tag in ("$bytes", "$bytearray"):
        head = str(payload)[: (limit // 3 + 2) * 4]
        try:
            text = repr(base64.b64decode(head))
        except ValueError:
            text = "b'?'"
        return (text if tag == "$bytes" else f"bytearray({text})"), []
    if tag == "$complex":
        try:
            real, imag = (
                float(part["$float"]) if isinstance(part, dict) else float(part) for part in payload
            )
            return repr(complex(real, imag)), []
        except (TypeError, ValueError, KeyError):
            return "?", []
    if tag == "$fraction":
        if isinstance(payload, list) and len(payload) == 2:
            return "Fraction(", [payload[0], _Literal(", "), payload[1], _Literal(")")]
        return "?", []
    if tag == "$decimal":
        return f"Decimal({str(payload)[: limit + 1]!r})", []
    return f"<unencodable {str(payload)[: limit + 1]}>", []


def short_repr(value: Any, limit: int = 80) -> str:
    """A one-line display of a decoded value, cut to `limit` characters (see `show`)."""
    try:
        encoded = encode(value)
    except EncodeError:
        return f"<{_type_name(value)}>"
    return show(encoded, limit)
