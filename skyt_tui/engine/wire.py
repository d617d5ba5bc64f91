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

This module imports only the standard library: the sandbox worker loads it
by path inside the sandbox, where skyt_tui itself is not importable.
"""

from __future__ import annotations

import base64
import decimal
import fractions
import json
import math
import numbers
from typing import Any

MAX_DEPTH = 100
INT_LIMIT = 1 << 63
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
            if base in (list, tuple, set, frozenset, dict):
                plain = base(value.items()) if base is dict else base(value)
                return _encode_container(plain, base, strict, depth, active)
            return _encode(base(value), strict, depth, active)
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


def canonical_value(value: Any) -> str:
    return canonical(encode(value))


def dumps(value: Any, *, strict: bool = False) -> str:
    return canonical(encode(value, strict=strict))


def _reject_constant(name: str) -> Any:
    raise DecodeError(f"{name} is not allowed in tagged JSON")


def parse_json(text: str | bytes) -> Any:
    """`json.loads` that refuses NaN/Infinity literals and reports one error type."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except DecodeError:
        raise
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise DecodeError(f"invalid JSON ({str(exc)[:120]})") from None


def loads(text: str | bytes) -> Any:
    return decode(parse_json(text))


def decode(obj: Any) -> Any:
    """Plain Python values from the tagged form; raises DecodeError on anything malformed."""
    try:
        return _decode(obj, 0)
    except RecursionError:
        raise DecodeError("value nested too deeply") from None


def _decode(obj: Any, depth: int) -> Any:
    if depth > MAX_DEPTH + 2:
        raise DecodeError(f"value nested deeper than {MAX_DEPTH} levels")
    kind = type(obj)
    if obj is None or kind in (bool, int, float, str):
        return obj
    if kind is list:
        return [_decode(item, depth + 1) for item in obj]
    if kind is not dict:
        raise DecodeError(f"unexpected JSON type {kind.__name__}")
    if len(obj) == 1:
        ((key, payload),) = obj.items()
        if key in _TAGS:
            return _decode_tagged(key, payload, depth)
    for key in obj:
        if key.startswith("$"):
            raise DecodeError(f"unknown tag {key[:40]!r}")
    return {key: _decode(item, depth + 1) for key, item in obj.items()}


def _decode_tagged(tag: str, payload: Any, depth: int) -> Any:
    try:
        if tag == "$int":
            text = _expect(payload, str, tag)
            if not text.lstrip("-").startswith("0x"):
                raise DecodeError("$int must be hexadecimal")
            return int(text, 16)
        if tag == "$float":
            if payload not in ("nan", "inf", "-inf"):
                raise DecodeError("$float must be nan, inf or -inf")
            return float(payload)
        if tag in ("$tuple", "$set", "$frozenset"):
            items = [_decode(item, depth + 1) for item in _expect(payload, list, tag)]
            return {"$tuple": tuple, "$set": set, "$frozenset": frozenset}[tag](items)
        if tag == "$dict":
            result = {}
            for pair in _expect(payload, list, tag):
                if type(pair) is not list or len(pair) != 2:
                    raise DecodeError("$dict entries must be [key, value] pairs")
                result[_decode(pair[0], depth + 1)] = _decode(pair[1], depth + 1)
            return result
        if tag in ("$bytes", "$bytearray"):
            raw = base64.b64decode(_expect(payload, str, tag), validate=True)
            return raw if tag == "$bytes" else bytearray(raw)
        if tag == "$complex":
            parts = _expect(payload, list, tag)
            if len(parts) != 2:
                raise DecodeError("$complex needs [real, imag]")
            real, imag = (_decode(part, depth + 1) for part in parts)
            if type(real) is not float or type(imag) is not float:
                raise DecodeError("$complex parts must be floats")
            return complex(real, imag)
        if tag == "$fraction":
            parts = _expect(payload, list, tag)
            if len(parts) != 2:
                raise DecodeError("$fraction needs [numerator, denominator]")
            numerator, denominator = (_decode(part, depth + 1) for part in parts)
            if type(numerator) is not int or type(denominator) is not int or denominator <= 0:
                raise DecodeError("$fraction parts must be integers, denominator positive")
            return fractions.Fraction(numerator, denominator)
        if tag == "$decimal":
            return decimal.Decimal(_expect(payload, str, tag))
        return Unencodable(_expect(payload, str, tag)[:200])
    except DecodeError:
        raise
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise DecodeError(f"malformed {tag}: {str(exc)[:80]}") from None


def _expect(payload: Any, kind: type, tag: str) -> Any:
    if type(payload) is not kind:
        raise DecodeError(f"{tag} needs a JSON {'string' if kind is str else 'array'}")
    return payload


def short_repr(value: Any, limit: int = 80) -> str:
    """A one-line display of a decoded value, cut to `limit` characters."""
    try:
        text = repr(value)
    except Exception:  # decoded values are plain, but stay safe for Unencodable/huge ints
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
