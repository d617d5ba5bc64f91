"""Values at and beyond the boundaries of a parameter's type, and inputs that differ from the
examples the way the examples differ from each other (docs/probe.md).

A parameter's shape comes from its annotation (`signature`) or, without one, from the types its
example values share. For each shape a fixed, ordered list of the usual suspects - zero, one,
negatives, halves, large integers; the empty string, one character, whitespace only, both cases,
digits and punctuation, letters of other alphabets, long text; the empty list, one element,
duplicates, sorted and unsorted, very long, deeply nested - and the same kinds built from the
examples' own values (their characters, their items, their scale), so the suspects speak the
task's language as well as the type's. None of it is chosen per task.

Extrapolation: for two examples that differ in an argument, the same step once more (numbers
`b + (b - a)`, sizes `len(b) + (len(b) - len(a))` filled from b's own items), and the step
backwards from a.

Every value here is only a candidate: `generate` sends it to the domain the examples imply, to
the wide tier beyond it, or nowhere, as it does with its own edits.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from skyt_tui.engine.probe.signature import ANY, Shape

if TYPE_CHECKING:
    from skyt_tui.engine.probe.generate import Profile

LONG = (100, 1_000)
"""Lengths of the "very long" strings and lists."""
MAX_NESTING = 30
"""How deep the "deeply nested" lists go."""
INTS = (0, 1, -1, 2, -2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 16, 25, 64, 97, 100, 101, 1000, -10,
        -1000, 12345, 10**6 + 3, -(10**6), 10**9 + 7, 10**18 + 9)  # fmt: skip
FLOATS = (0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.1, 0.25, 3.0, 3.7, -3.7, 10.0, 100.5,
          1e-6, 1e6, 12345.678, -0.0)  # fmt: skip
STRINGS = ("", " ", "a", "A", "z", "0", "ab", "ba", "aa", "Ab", "abc", "aba", "abba", "aaa",
           "hello", "Hello", "HELLO", "hello world", "Hello World", "hello  world", " hello",
           "hello ", "   ", "\t", "\n", " \t\n", "a b c", "a,b", "a.b!", "a-b_c", "?", "123",
           "007", "a1b2", "x y z", "AbCdEf", "é", "Ünïcödé", "ß", "日本語", "Ωmega")  # fmt: skip


def shape_of(profile: Profile) -> Shape:
    """A parameter's shape from what its example values share (bool beside int is an int)."""
    kinds = {_KIND.get(name, "any") for name in profile.types}
    if kinds == {"int", "bool"}:
        kinds = {"int"}
    if kinds <= {"int", "float"} and len(kinds) == 2:
        return Shape("number")
    optional = "none" in kinds and len(kinds) == 2
    kinds.discard("none") if optional else None
    if len(kinds) != 1:
        return ANY
    [kind] = kinds
    items: tuple[Shape, ...] = ()
    if kind in ("list", "tuple", "set", "dict") and profile.items is not None:
        items = (shape_of(profile.items),)
    return Shape(kind, items, variadic=kind == "tuple", optional=optional)


_KIND = {
    "int": "int",
    "float": "float",
    "str": "str",
    "bool": "bool",
    "NoneType": "none",
    "list": "list",
    "tuple": "tuple",
    "dict": "dict",
    "set": "set",
}


def boundary_values(
    shape: Shape, profile: Profile | None, rng: random.Random, depth: int = 0
) -> list[Any]:
    """The suspects of `shape`, most telling first; `profile` (the examples' values at this
    position, or None) supplies their characters, items and scale."""
    kind = shape.kind
    out: list[Any] = [None] if shape.optional else []
    if kind == "bool":
        return out + [True, False]
    if kind == "int":
        return out + _ints(profile)
    if kind == "float":
        return out + _floats(profile)
    if kind == "number":
        return out + _ints(profile)[:12] + _floats(profile)[:12]
    if kind == "str":
        return out + _strings(profile, rng)
    if kind == "none":
        return [None]
    if kind in ("list", "set", "tuple") and depth < 3:
        if kind == "tuple" and not shape.variadic and shape.items:
            return out + _fixed_tuples(shape, profile, rng, depth)
        items = _item_pool(shape.item(), profile, rng, depth)
        made = _sequences(items, profile, rng, depth)
        if kind == "set":
            return out + [set(_hashable(value)) for value in made if _hashable(value) is not None]
        if kind == "tuple":
            return out + [tuple(value) for value in made]
        return out + made
    if kind == "dict" and depth < 3:
        keys = _item_pool(shape.item(0), profile.items if profile else None, rng, depth)
        values = _item_pool(shape.item(1), profile.items if profile else None, rng, depth)
        return out + _dicts(keys, values, rng)
    if kind == "any":
        return out + [0, 1, -1, 2.5, "", "a", [], [1], None, True, (), {}]
    return out


def _scale(profile: Profile | None) -> int:
    if profile is None or profile.high is None or profile.low is None:
        return 10
    bound = max(abs(profile.low), abs(profile.high), 1.0)
    return int(min(bound, 10**18))


def _ints(profile: Profile | None) -> list[int]:
    scale = _scale(profile)
    relative = [scale + 1, scale * 2, scale * 10 + 1, scale * 100, -scale, -scale - 1]
    return list(dict.fromkeys([*INTS[:20], *relative, *INTS[20:]]))


def _floats(profile: Profile | None) -> list[float]:
    scale = float(_scale(profile))
    relative = [scale + 0.5, scale * 2.0, -scale, scale / 3.0, scale * 10.0 + 0.25]
    return list(dict.fromkeys([*FLOATS[:12], *relative, *FLOATS[12:]]))


def _strings(profile: Profile | None, rng: random.Random) -> list[str]:
    """The fixed suspects, then text of the examples' own characters: one, a few, long, padded
    with spaces, whitespace between, each of their characters alone."""
    alphabet = sorted(profile.alphabet) if profile is not None else []
    out = list(STRINGS)
    if alphabet:
        out += ["".join(rng.choice(alphabet) for _ in range(size)) for size in (1, 2, 3, 6, 15, 40)]
        out += [alphabet[0] * 5, "".join(alphabet), "".join(reversed(alphabet))]
        out += [" " + "".join(alphabet) + " ", " ".join(alphabet)]
        out += alphabet[:16]
        out += ["".join(rng.choice(alphabet) for _ in range(size)) for size in LONG]
    words = [value for value in (profile.values if profile else []) if isinstance(value, str)]
    if words:
        out += [" ".join(words), (words[0] + " ") * 30, words[0] * LONG[0]]
    out += ["ab" * (LONG[1] // 2), "a" * LONG[0]]
    return list(dict.fromkeys(out))


def _item_pool(shape: Shape, profile: Profile | None, rng: random.Random, depth: int) -> list[Any]:
    """Values for a container's items: the examples' items first, then the item shape's
    suspects."""
    seen = list(profile.items.values) if profile is not None and profile.items else []
    return (
        seen[:16] + boundary_values(shape, profile.items if profile else None, rng, depth + 1)[:40]
    )


def _sequences(
    items: list[Any], profile: Profile | None, rng: random.Random, depth: int
) -> list[list[Any]]:
    """Empty, one element, two equal, two in either order, sorted and reversed runs, one with
    duplicates, shuffled, very long ones (random items, one item repeated), deeply nested."""
    if not items:
        return [[]]
    head = [items[i % len(items)] for i in range(5)]
    out: list[list[Any]] = [[]]
    out += [[item] for item in items[:12]]
    out += [[head[0], head[0]], [head[0], head[1]], [head[1], head[0]], head[:3] + head[:1]]
    mixed = [rng.choice(items) for _ in range(8)]
    out.append(mixed)
    try:
        ordered = sorted(mixed)
        out += [ordered, ordered[::-1], sorted(set(ordered)) if _hashable(ordered) else ordered]
    except TypeError:
        pass
    out.append(mixed + mixed[:3])
    for size in LONG:
        out.append([rng.choice(items) for _ in range(size)])
    out.append([head[0]] * LONG[0])
    if depth == 0 and profile is not None and profile.items and "list" in profile.items.types:
        nested: list[Any] = [head[0]]
        for _ in range(MAX_NESTING):
            nested = [nested]
        out.append(nested)
    return out


def _fixed_tuples(
    shape: Shape, profile: Profile | None, rng: random.Random, depth: int
) -> list[tuple[Any, ...]]:
    pools = [
        boundary_values(element, profile.items if profile else None, rng, depth + 1)[:12]
        for element in shape.items
    ]
    if any(not pool for pool in pools):
        return []
    out = [tuple(pool[0] for pool in pools)]
    for _ in range(16):
        out.append(tuple(rng.choice(pool) for pool in pools))
    return out


def _dicts(keys: list[Any], values: list[Any], rng: random.Random) -> list[dict[Any, Any]]:
    keys = [key for key in keys if _hashable(key) is not None]
    if not keys or not values:
        return [{}]
    out: list[dict[Any, Any]] = [{}, {keys[0]: values[0]}]
    for size in (2, 3, 5, 20):
        out.append({rng.choice(keys): rng.choice(values) for _ in range(size)})
    return out


def _hashable(value: Any) -> Any:
    try:
        hash(value) if not isinstance(value, list) else [hash(v) for v in value]
    except TypeError:
        return None
    return value


def extrapolations(first: Sequence[Any], second: Sequence[Any]) -> list[list[Any]]:
    """Inputs one step beyond two examples the way they differ: each argument that differs
    moved by the same step again past `second` and back before `first`, the other arguments
    as in `second` (as in `first`)."""
    out = []
    for position, (a, b) in enumerate(zip(first, second)):
        for value, base in ((_step(a, b), second), (_step(b, a), first)):
            if value is not _NOTHING:
                out.append([*base[:position], value, *base[position + 1 :]])
    return out


_NOTHING = object()


def _step(a: Any, b: Any) -> Any:
    """b moved by (b - a) once more; _NOTHING when a and b do not differ in a way that steps."""
    if type(a) is not type(b) or a == b:
        return _NOTHING
    if isinstance(a, int) and not isinstance(a, bool):
        return b + (b - a)
    if isinstance(a, float):
        value = b + (b - a)
        return value if math.isfinite(value) else _NOTHING
    if isinstance(a, str | list | tuple) and len(b) > len(a) and len(b) > 0:
        grow = len(b) - len(a)
        extra = (b * (grow // len(b) + 1))[:grow]
        return b + extra
    if isinstance(a, str | list | tuple) and len(b) < len(a):
        shrink = len(a) - len(b)
        return b[: max(0, len(b) - shrink)]
    return _NOTHING


def conforms(shape: Shape, value: Any, depth: int = 0) -> bool:
    """Is `value` of `shape` (items checked `MAX_CONFORM_DEPTH` levels down)?"""
    if shape.kind == "any" or (shape.optional and value is None):
        return True
    kind = shape.kind
    if kind == "number":
        return type(value) in (int, float)
    if kind in _TYPES:
        return type(value) is _TYPES[kind]
    if kind in ("list", "set", "tuple", "dict") and type(value).__name__ != kind:
        return False
    if depth >= MAX_CONFORM_DEPTH:
        return True
    if kind == "dict":
        return all(
            conforms(shape.item(0), key, depth + 1) and conforms(shape.item(1), item, depth + 1)
            for key, item in value.items()
        )
    if kind == "tuple" and not shape.variadic and shape.items:
        return len(value) == len(shape.items) and all(
            conforms(element, item, depth + 1) for element, item in zip(shape.items, value)
        )
    return all(conforms(shape.item(), item, depth + 1) for item in value)


MAX_CONFORM_DEPTH = 4
_TYPES: dict[str, type] = {"int": int, "float": float, "str": str, "bool": bool, "none": type(None)}
