"""New inputs from a contract's example inputs, within its input domain (docs/probe.md).

Every argument of every example is mutated by its type (numbers around and beyond it and the
boundaries the examples show; strings and containers emptied, shortened, lengthened, reversed,
sorted, shuffled, joined with another example's, elements edited) one argument at a time, then
in random chains of mutations over several arguments, until `max_inputs` distinct new inputs are
found or `MAX_ATTEMPTS_PER_INPUT` tries per wanted input are spent.

The domain: a contract's declared `[domain]` arguments (docs/contracts.md) where it gives them;
otherwise each argument keeps what all the examples share - its types, the sign of numbers (no
negatives unless an example is negative, no zero unless an example is zero or below), the
characters of strings, sortedness of lists, non-emptiness, integers of at least 2 when every
example is, floats above 0 when every example is, numbers up to `MAGNITUDE` times the largest, sizes up to about twice
the largest example, and equal sizes of arguments that have one size in every example.
The contract's `guard` is applied later, in the sandbox (`behaviour`).

Deterministic: one `random.Random` seeded with the seed and the contract id; inputs are ordered
and deduplicated by their canonical literal text (`contracts.values.literal_text`), never by
hash order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skyt_tui.engine.contracts.contract import ArgDomain, Contract
from skyt_tui.engine.contracts.values import literal_text
from skyt_tui.engine.oracle.outputs import Call
from skyt_tui.engine.probe.boundary import boundary_values, conforms, extrapolations, shape_of
from skyt_tui.engine.probe.signature import Bound, EntrySignature, Shape, entry_signature

DEFAULT_MAX_INPUTS = 200
MAX_ATTEMPTS_PER_INPUT = 30
MAX_MUTATION_DEPTH = 4
MAGNITUDE = 10
"""Numbers go up to this many times the largest example (or 20 beyond it)."""
MAX_GENERATED_CHARS = 20_000
"""An input whose literal text is longer than this is not generated."""
WIDE_SHARE = 2
"""The wide tier has at most `max_inputs // WIDE_SHARE` inputs beside the domain's `max_inputs`."""
WIDE_MAX_NUMBER = 2**63
"""Numbers of the wide tier stay within this magnitude."""
WIDE_CHARACTERS = "Aa0 ,.-_!?'\t\n"
"""Characters the wide tier writes into strings: both cases, a digit, spaces and punctuation
(plain ASCII: the integer boundaries, other alphabets and foreign list items an earlier
version had were chosen after seeing HumanEval+'s inputs, so they were taken out)."""
WIDE_ANY_TYPES = frozenset({"bool", "NoneType", "int", "float", "str", "list", "tuple", "dict"})


@dataclass
class Profile:
    """What all the examples' values at one argument position share."""

    types: set[str] = field(default_factory=set)
    low: float | None = None
    high: float | None = None
    min_len: int | None = None
    max_len: int | None = None
    alphabet: set[str] = field(default_factory=set)
    sorted_lists: bool = True
    sorted_seen: int = 0
    items: Profile | None = None
    values: list[Any] = field(default_factory=list)

    def add(self, value: Any, depth: int = 0) -> None:
        self.types.add(type(value).__name__)
        if len(self.values) < 64:
            self.values.append(value)
        if _is_number(value) and not isinstance(value, complex):
            number = float(value)
            if math.isfinite(number):
                self.low = number if self.low is None else min(self.low, number)
                self.high = number if self.high is None else max(self.high, number)
        if isinstance(value, str | list | tuple | dict | set):
            size = len(value)
            self.min_len = size if self.min_len is None else min(self.min_len, size)
            self.max_len = size if self.max_len is None else max(self.max_len, size)
        if isinstance(value, str):
            self.alphabet.update(value)
        if isinstance(value, list) and len(value) >= 2:
            try:
                ordered = all(a <= b for a, b in zip(value, value[1:]))
            except TypeError:
                ordered = False
            self.sorted_seen += 1
            self.sorted_lists = self.sorted_lists and ordered
        if isinstance(value, list | tuple | set | dict) and depth < MAX_MUTATION_DEPTH:
            self.items = self.items or Profile()
            for item in value.values() if isinstance(value, dict) else value:
                self.items.add(item, depth + 1)

    def letters(self) -> set[str]:
        """The examples' characters, and where they have letters, those letters in both cases
        and the space: text the examples imply, written differently."""
        if not any(ch.isalpha() for ch in self.alphabet):
            return self.alphabet
        return self.alphabet | {ch.swapcase() for ch in self.alphabet} | {" "}

    def admits(self, value: Any, depth: int = 0, wide: bool = False) -> bool:
        """Is `value` in the domain the examples imply (`wide`: beyond it, by the relaxations of
        the wide tier: other signs, small and large numbers, bools and floats for integers, any
        plain value among heterogeneous items, empty and long sizes, other characters, any
        order)?"""
        if not self._admits_type(value, wide):
            return False
        if _is_number(value) and not isinstance(value, complex):
            if not math.isfinite(float(value)) or self.low is None or self.high is None:
                return self.low is None or (wide and math.isfinite(float(value)))
            if wide:
                return bool(abs(value) <= WIDE_MAX_NUMBER)
            if self.low >= 0 and value < 0:
                return False  # no negatives unless an example is negative
            if isinstance(value, int) and self.low >= 2 and value < 2:
                return False  # examples from 2 up: 0 and 1 are likely outside (factorize(1))
            if isinstance(value, float) and self.low > 0 and value == 0:
                return False
            bound = max(abs(self.low), abs(self.high))
            if abs(value) > max(MAGNITUDE * bound, bound + 20):
                return False
        if isinstance(value, str | list | tuple | dict | set) and self.max_len is not None:
            if isinstance(value, tuple) and self.min_len == self.max_len != len(value):
                return False
            if not wide:
                if len(value) > 2 * self.max_len + 4:
                    return False
                if self.min_len and not value:
                    return False  # never empty when no example is
        if isinstance(value, str) and self.alphabet and not wide:
            if not set(value) <= self.letters():
                return False
        if isinstance(value, list) and self.sorted_seen >= 2 and self.sorted_lists and not wide:
            try:
                if any(a > b for a, b in zip(value, value[1:])):
                    return False
            except TypeError:
                return False
        if isinstance(value, list | tuple | set | dict) and value:
            if self.items is None or depth >= MAX_MUTATION_DEPTH:
                return self.items is None and depth < MAX_MUTATION_DEPTH
            items = value.values() if isinstance(value, dict) else value
            return all(self.items.admits(item, depth + 1, wide) for item in items)
        return True

    def _admits_type(self, value: Any, wide: bool) -> bool:
        name = type(value).__name__
        if name in self.types:
            return True
        if not wide:
            return False
        if len(self.types) >= 2:
            return name in WIDE_ANY_TYPES  # heterogeneous examples: any plain value
        if "int" in self.types:
            return name in ("bool", "float")  # bool is an int in Python; a float beside it
        return "float" in self.types and name == "int"


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | complex) and not isinstance(value, bool)


def admits_declared(spec: ArgDomain, value: Any, depth: int = 0) -> bool:
    """Does `value` lie in a contract's declared argument domain?"""
    kind = spec.type
    if kind is not None:
        ok = {
            "int": type(value) is int,
            "float": type(value) is float,
            "number": type(value) in (int, float),
            "str": type(value) is str,
            "bool": type(value) is bool,
            "list": type(value) is list,
            "tuple": type(value) is tuple,
            "dict": type(value) is dict,
            "none": value is None,
        }[kind]
        if not ok:
            return False
    if _is_number(value) and not isinstance(value, complex):
        if spec.min is not None and value < spec.min:
            return False
        if spec.max is not None and value > spec.max:
            return False
    if isinstance(value, str | list | tuple | dict):
        if spec.min_len is not None and len(value) < spec.min_len:
            return False
        if spec.max_len is not None and len(value) > spec.max_len:
            return False
    if (
        isinstance(value, str)
        and spec.alphabet is not None
        and not set(value) <= set(spec.alphabet)
    ):
        return False
    if isinstance(value, list | tuple):
        try:
            if spec.sorted and any(a > b for a, b in zip(value, value[1:])):
                return False
        except TypeError:
            return False
        if spec.unique and len({literal_text(item) for item in value}) != len(value):
            return False
        if spec.items is not None and depth < 8:
            return all(admits_declared(spec.items, item, depth + 1) for item in value)
    return True


class Mutator:
    """Type-aware edits of one value, drawing on the other examples' values at its position."""

    def __init__(self, rng: random.Random, profile: Profile) -> None:
        self.rng = rng
        self.profile = profile

    def all(self, value: Any, depth: int = 0) -> list[Any]:
        """Every edit of `value` this mutator knows, in a fixed order."""
        rng = self.rng
        if isinstance(value, bool):
            return [not value]
        if isinstance(value, int):
            ilow, ihigh = int(self.profile.low or 0), int(self.profile.high or 0)
            return [value + 1, value - 1, 0, 1, -1, 2, value * 2, value // 2, -value,
                    value + rng.randint(2, 12), value * 3 + 1, ihigh, ihigh + 1, ilow, ilow - 1,
                    ihigh * 2, ihigh * MAGNITUDE, value * MAGNITUDE + 1, value + ihigh,
                    rng.randint(min(ilow, 0), max(ihigh * MAGNITUDE, 10))]  # fmt: skip
        if isinstance(value, float):
            low, high = self.profile.low or 0.0, self.profile.high or 0.0
            return [value + 0.5, value - 0.5, value * 2, value / 2, 0.0, -value, float(round(value)),
                    value + 0.1, value - 0.1, value + 1.0, value - 1.0, high, low, high + 1.0,
                    rng.uniform(min(low, 0.0), max(high * 2, 1.0)), value + 1e-9, value * 1.5]  # fmt: skip
        if isinstance(value, str):
            return self._string(value)
        if isinstance(value, list):
            return self._sequence(value, depth)
        if isinstance(value, tuple):
            return [tuple(edited) for edited in self._elements(list(value), depth)]
        if isinstance(value, dict):
            keys = sorted(value, key=literal_text)
            out: list[Any] = [{}]
            for key in keys:
                out.append({k: v for k, v in value.items() if k != key})
                sub = Mutator(self.rng, self.profile.items or Profile())
                if depth < MAX_MUTATION_DEPTH:
                    for edited in sub.pick(value[key], 2, depth + 1):
                        out.append({**value, key: edited})
            return out
        return []

    def wide(self, value: Any, depth: int = 0) -> list[Any]:
        """Edits beyond the examples' domain, in a fixed order: other signs, zero and one, larger
        scales, bools and floats for integers; empty, long and
        differently written strings; empty and long containers, one element edited this way."""
        rng = self.rng
        if isinstance(value, bool):
            return [int(value)]
        if isinstance(value, int):
            scale = max(abs(value), 1)
            return [-value, -1, 0, 1, -scale - 1, scale * 100 + 1, scale * 10_000 + 3,
                    scale * 1_000_000 + 7, True, False, value + 0.5, float(value)]  # fmt: skip
        if isinstance(value, float):
            return [-value, 0.0, -0.0, value * 1e6, value / 1e6, 1e-9, float(int(value)) + 0.5,
                    int(value), round(value, 1) + 0.05]  # fmt: skip
        if isinstance(value, str):
            out: list[Any] = ["", value * 10, value.title(), value.capitalize(), value + "\n"]
            for char in rng.sample(WIDE_CHARACTERS, 4):
                i = rng.randrange(len(value) + 1)
                out.append(value[:i] + char + value[i:])
            return out
        if isinstance(value, list):
            out = [[], value * 10, value * 100]
            out += self._elements(value, depth, wide=True)
            return out
        if isinstance(value, tuple):
            return [tuple(edited) for edited in self._elements(list(value), depth, wide=True)]
        if isinstance(value, dict):
            sub = Mutator(self.rng, self.profile.items or Profile())
            out = [{}]
            if depth < MAX_MUTATION_DEPTH:
                for key in sorted(value, key=literal_text):
                    for edited in sub.pick(value[key], 2, depth + 1, wide=True):
                        out.append({**value, key: edited})
            return out
        return []

    def pick(self, value: Any, count: int, depth: int = 0, wide: bool = False) -> list[Any]:
        options = self.wide(value, depth) if wide else self.all(value, depth)
        return self.rng.sample(options, min(count, len(options))) if options else []

    def _string(self, value: str) -> list[Any]:
        rng = self.rng
        alphabet = sorted(self.profile.letters()) or list("ab ")
        others = [v for v in self.profile.values if isinstance(v, str) and v != value]
        out: list[Any] = ["", value[:1], value[1:], value[:-1], value[::-1], value + value,
                          value.upper(), value.lower(), value.swapcase(), value.capitalize(),
                          value + " ", " " + value,
                          "".join(sorted(value)), rng.choice(alphabet),
                          rng.choice(alphabet) * rng.randint(2, 6)]  # fmt: skip
        if value:
            i = rng.randrange(len(value))
            out += [value[:i] + value[i + 1 :], value[:i] + value[i] + value[i:],
                    value[:i] + rng.choice(alphabet) + value[i + 1 :],
                    value[:i] + rng.choice(alphabet) + value[i:],
                    value[:i] + value[i].swapcase() + value[i + 1 :]]  # fmt: skip
            if len(value) > 1:
                j = rng.randrange(len(value) - 1)
                out.append(value[:j] + value[j + 1] + value[j] + value[j + 2 :])
            chars = list(value)
            rng.shuffle(chars)
            out.append("".join(chars))
        if others:
            other = rng.choice(others)
            out += [value + other, other + " " + value, value + " " + other]
        return out

    def _sequence(self, value: list[Any], depth: int) -> list[Any]:
        rng = self.rng
        others = [v for v in self.profile.values if isinstance(v, list) and v != value]
        out: list[Any] = [[], value[:1], value[1:], value[:-1], value[::-1], value + value,
                          value[: len(value) // 2], value[len(value) // 2 :]]  # fmt: skip
        try:
            out += [sorted(value), sorted(value, reverse=True)]
        except TypeError:
            pass
        if value:
            shuffled = list(value)
            rng.shuffle(shuffled)
            out.append(shuffled)
            i = rng.randrange(len(value))
            out += [value[:i] + value[i + 1 :], value[:i] + [value[i]] + value[i:],
                    [value[i]] * len(value), value + [value[i]], [value[i]] + value]  # fmt: skip
        out += self._elements(value, depth)
        if others:
            other = rng.choice(others)
            out += [value + other, other + value]
        return out

    def _elements(self, value: list[Any], depth: int, wide: bool = False) -> list[list[Any]]:
        """`value` with one element edited (each position, two edits each, at most 8 positions;
        `wide`: by the wide tier's edits)."""
        if depth >= MAX_MUTATION_DEPTH or not value:
            return []
        sub = Mutator(self.rng, self.profile.items or Profile())
        positions = sorted(self.rng.sample(range(len(value)), min(8, len(value))))
        out = []
        for i in positions:
            for edited in sub.pick(value[i], 2, depth + 1, wide):
                out.append(value[:i] + [edited] + value[i + 1 :])
        return out


@dataclass(frozen=True)
class Generated:
    calls: tuple[Call, ...]
    """Inputs in the domain (declared, or the one the examples imply), in generation order."""
    examples: int
    """Example inputs the generation started from (raises tests' inputs excluded)."""
    rejected: int
    """Candidates outside the domain and outside the wide tier."""
    wide: tuple[Call, ...] = ()
    """Inputs beyond the inferred domain (the wide tier), shortest literal text first: counted
    only where the reference and a large majority of the samples agree (`behaviour`)."""
    documented: int = 0
    """Calls written in the entry point's docstring (`signature`), among `calls` (first) and
    the examples generation started from."""


Signature = tuple[int, tuple[str, ...]]


def generate_inputs(
    contract: Contract,
    examples: Sequence[Call],
    *,
    max_inputs: int = DEFAULT_MAX_INPUTS,
    seed: int = 0,
) -> Generated:
    """At most `max_inputs` new distinct inputs in the domain, and at most `max_inputs //
    WIDE_SHARE` beyond it, deterministic for (seed, contract).

    The domain's inputs come in this order: the calls the entry point's docstring writes; then,
    taken in turn, the boundary values of each argument's shape (`boundary`) and the examples'
    extrapolations, and the examples' single edits (shuffled); then random chains of edits. The
    wide tier takes the boundary values and extrapolations beyond the domain first."""
    rng = random.Random(f"skyt-probe:{seed}:{contract.id}")
    wide_rng = random.Random(f"skyt-probe-wide:{seed}:{contract.id}")
    signature = entry_signature(contract)
    seen = {_key(call) for call in examples}
    documented = [
        call
        for call in (signature.docstring_calls if signature else ())
        if _key(call) not in seen and not seen.add(_key(call))  # type: ignore[func-returns-value]
    ][:max_inputs]
    seeds = [*examples, *documented]
    groups: dict[Signature, list[Call]] = {}
    for call in seeds:
        groups.setdefault((len(call.args), tuple(k for k, _ in call.kwargs)), []).append(call)
    accepted: list[Call] = list(documented)
    beyond: dict[str, Call] = {}
    first_wide: list[str] = []
    rejected = 0
    if max_inputs <= 0:
        return Generated((), len(examples), 0)
    if not seeds:
        return _from_signature_alone(contract, signature, rng, max_inputs)
    same_size: dict[Signature, list[tuple[int, int]]] = {}
    checks: dict[Signature, list[Callable[[Any, bool], bool]]] = {}
    profiles: dict[Signature, list[Profile]] = {}
    for signature_key, calls in groups.items():
        width = signature_key[0] + len(signature_key[1])
        found = [Profile() for _ in range(width)]
        for call in calls:
            for position, value in enumerate(_values(call)):
                found[position].add(value)
        profiles[signature_key] = found
        same_size[signature_key] = _same_sizes(calls) if len(calls) >= 2 else []
        checks[signature_key] = [
            _admit_declared(contract.domain.args[p])
            if p < signature_key[0] and p < len(contract.domain.args)
            else _admit_inferred(
                found[p],
                _annotated(signature, signature_key, p),
                _stated(signature, signature_key, p, found[p]),
                _stated(signature, signature_key, p, found[p].items, prose_only=True),
            )
            for p in range(width)
        ]
    max_wide = max_inputs // WIDE_SHARE

    def tier(group: Signature, values: list[Any], key: str) -> str | None:
        """ "domain", "wide" or None (neither)."""
        if len(key) > MAX_GENERATED_CHARS:
            return None
        if all(check(value, False) for check, value in zip(checks[group], values)) and all(
            len(values[a]) == len(values[b]) for a, b in same_size[group]
        ):
            return "domain"
        if all(check(value, True) for check, value in zip(checks[group], values)):
            return "wide"
        return None

    def offer(group: Signature, values: list[Any], domain: bool = True) -> str | None:
        """Add a candidate to the domain's inputs (unless `domain` is false) or the wide tier's
        candidates; its key when it went to the wide tier's."""
        nonlocal rejected
        call = _call(group, values)
        key = _key(call)
        if key in seen:
            return None
        seen.add(key)
        where = tier(group, values, key)
        if where == "domain" and domain:
            accepted.append(call)
        elif where == "wide":
            beyond[key] = call
            return key
        elif where is None:
            rejected += 1
        return None

    systematic: list[tuple[Signature, list[Any]]] = []
    for group, calls in groups.items():
        for call in calls:
            values = _values(call)
            for position, value in enumerate(values):
                for edited in Mutator(rng, profiles[group][position]).all(value):
                    systematic.append(
                        (group, [*values[:position], edited, *values[position + 1 :]])
                    )
        for a in calls:  # inputs that differ in the ways the examples do: arguments swapped
            for b in calls:
                if a is not b:
                    for position in range(len(_values(a))):
                        mixed = _values(a)
                        mixed[position] = _values(b)[position]
                        systematic.append((group, mixed))
    rng.shuffle(systematic)
    telling = _telling(groups, profiles, signature, rng)
    for origin, (group, values) in _alternate(telling, systematic):
        full = len(accepted) >= max_inputs
        if full and origin == "edit":
            continue
        key = offer(group, values, domain=not full)
        if key is not None and origin == "telling":
            first_wide.append(key)
    group_keys = sorted(groups, key=repr)
    attempts = 0
    while len(accepted) < max_inputs and attempts < MAX_ATTEMPTS_PER_INPUT * max_inputs:
        attempts += 1
        group = group_keys[attempts % len(group_keys)]
        values = _values(rng.choice(groups[group]))
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(len(values))
            options = Mutator(rng, profiles[group][position]).all(values[position])
            if options:
                values[position] = rng.choice(options)
        offer(group, values)
    wide = _wide_tier(groups, profiles, beyond, first_wide, wide_rng, max_wide, offer)
    return Generated(tuple(accepted), len(examples), rejected, wide, len(documented))


TELLING_SHARE = 2
"""Of the wide tier, up to `max_wide // TELLING_SHARE` inputs are boundary values and
extrapolations beyond the domain (in their order); the rest is drawn as before."""


def _telling(
    groups: dict[Signature, list[Call]],
    profiles: dict[Signature, list[Profile]],
    signature: EntrySignature | None,
    rng: random.Random,
) -> list[tuple[Signature, list[Any]]]:
    """Boundary values of each argument's shape put into the examples (one argument at a time,
    the arguments in turn), then the examples' extrapolations, in this order."""
    out: list[tuple[Signature, list[Any]]] = []
    for group, calls in sorted(groups.items(), key=lambda item: repr(item[0])):
        width = len(profiles[group])
        per_position = []
        for position in range(width):
            shape = _annotated(signature, group, position) or shape_of(profiles[group][position])
            per_position.append(boundary_values(shape, profiles[group][position], rng))
        for index in range(max((len(values) for values in per_position), default=0)):
            for position, values in enumerate(per_position):
                if index < len(values):
                    base = _values(calls[(index + position) % len(calls)])
                    out.append((group, [*base[:position], values[index], *base[position + 1 :]]))
        for a, b in zip(calls, calls[1:]):
            out.extend((group, values) for values in extrapolations(_values(a), _values(b)))
    return out


def _alternate(
    telling: list[tuple[Signature, list[Any]]], edits: list[tuple[Signature, list[Any]]]
) -> list[tuple[str, tuple[Signature, list[Any]]]]:
    """The two lists taken in turn, one of each (the rest of the longer one at the end)."""
    out: list[tuple[str, tuple[Signature, list[Any]]]] = []
    for i in range(max(len(telling), len(edits))):
        if i < len(telling):
            out.append(("telling", telling[i]))
        if i < len(edits):
            out.append(("edit", edits[i]))
    return out


def _from_signature_alone(
    contract: Contract, signature: EntrySignature | None, rng: random.Random, max_inputs: int
) -> Generated:
    """No example to start from: where every parameter is annotated, its shape's boundary values
    (combined at random), all in the wide tier - counted only where the reference and most
    samples agree - unless a declared domain admits them."""
    if (
        signature is None
        or not signature.shapes
        or any(shape is None or shape.kind == "any" for shape in signature.shapes)
    ):
        return Generated((), 0, 0)
    pools = [boundary_values(shape, None, rng) for shape in signature.shapes if shape is not None]
    declared = contract.domain.args
    found: dict[str, Call] = {}
    for attempt in range(MAX_ATTEMPTS_PER_INPUT * max_inputs):
        if len(found) >= max_inputs // WIDE_SHARE:
            break
        values = [pool[attempt % len(pool)] if attempt < len(pool) else rng.choice(pool)
                  for pool in pools]  # fmt: skip
        if not all(
            conforms(shape, value) for shape, value in zip(signature.shapes, values) if shape
        ):
            continue
        if any(not admits_declared(spec, value) for spec, value in zip(declared, values)):
            continue
        call = Call(tuple(values))
        key = _key(call)
        if len(key) <= MAX_GENERATED_CHARS:
            found.setdefault(key, call)
    wide = tuple(found[key] for key in sorted(found, key=lambda k: (len(k), k)))
    return Generated((), 0, 0, wide)


def _wide_tier(
    groups: dict[Signature, list[Call]],
    profiles: dict[Signature, list[Profile]],
    beyond: dict[str, Call],
    first: list[str],
    rng: random.Random,
    max_wide: int,
    offer: Callable[[Signature, list[Any], bool], str | None],
) -> tuple[Call, ...]:
    """At most `max_wide` inputs beyond the domain: the boundary values and extrapolations
    beyond it (`first`, up to `max_wide // TELLING_SHARE`, in their order), then the domain's
    candidates that fell outside it but inside the wide tier, each example with one argument
    edited by the wide tier's edits, and chains of two or three edits of either kind; drawn by
    `rng` (its own, so the domain's inputs do not depend on the wide tier), shortest literal
    text first (the reference's time and a sample's hang are least likely to cut the rest)."""
    if max_wide <= 0:
        return ()
    telling = {key: beyond.pop(key) for key in first[: max_wide // TELLING_SHARE]}
    for signature, calls in groups.items():
        for call in calls:
            values = _values(call)
            for position, value in enumerate(values):
                for edited in Mutator(rng, profiles[signature][position]).wide(value):
                    offer(signature, [*values[:position], edited, *values[position + 1 :]], False)
    signatures = sorted(groups, key=repr)
    chained: dict[str, Call] = {}
    attempts = 0
    room = max_wide - len(telling)
    while len(chained) < room // 4 and attempts < MAX_ATTEMPTS_PER_INPUT * max_wide:
        attempts += 1
        signature = signatures[attempts % len(signatures)]
        values = _values(rng.choice(groups[signature]))
        for _ in range(rng.randint(2, 3)):
            position = rng.randrange(len(values))
            mutator = Mutator(rng, profiles[signature][position])
            options = mutator.wide(values[position]) + mutator.all(values[position])
            if options:
                values[position] = rng.choice(options)
        key = offer(signature, values, False)
        if key is not None:
            chained[key] = beyond.pop(key)
    keys = sorted(beyond)
    rng.shuffle(keys)
    picked = {key: beyond[key] for key in keys[: room - len(chained)]}
    picked.update(chained)
    picked.update(telling)
    return tuple(picked[key] for key in sorted(picked, key=lambda k: (len(k), k)))


def _same_sizes(calls: Sequence[Call]) -> list[tuple[int, int]]:
    """Pairs of arguments that are sized (strings, lists, tuples) and of one size in every example:
    a relation the examples keep, so generated inputs keep it too (e.g. two bit strings to xor)."""
    rows = [_values(call) for call in calls]
    width = len(rows[0])
    sized = [p for p in range(width) if all(isinstance(row[p], str | list | tuple) for row in rows)]
    return [
        (a, b)
        for i, a in enumerate(sized)
        for b in sized[i + 1 :]
        if all(len(row[a]) == len(row[b]) for row in rows)
    ]


def _admit_declared(spec: ArgDomain) -> Callable[[Any, bool], bool]:
    """A declared argument's domain: the wide tier does not go beyond it."""
    return lambda value, wide: admits_declared(spec, value)


def _admit_inferred(
    profile: Profile,
    shape: Shape | None,
    bounds: Sequence[Bound] = (),
    item_bounds: Sequence[Bound] = (),
) -> Callable[[Any, bool], bool]:
    """The domain the examples imply; beyond it (the wide tier) still within the parameter's
    annotated type, where it has one (a bool is no `int`, an int no `float`); in neither tier a
    number outside a bound the docstring states for it ("base numbers are less than 10"), or a
    list with such an item ("a list of positive integers")."""

    def admits(value: Any, wide: bool) -> bool:
        if bounds and isinstance(value, int | float):  # a bool too: False is 0
            if not all(bound.holds(value) for bound in bounds):
                return False
        if item_bounds and isinstance(value, list | tuple):
            numbers = [item for item in value if isinstance(item, int | float)]
            if not all(bound.holds(item) for item in numbers for bound in item_bounds):
                return False
        if wide and shape is not None and not conforms(shape, value):
            return False
        return profile.admits(value, 0, wide)

    return admits


def _stated(
    signature: EntrySignature | None,
    group: Signature,
    position: int,
    profile: Profile | None,
    prose_only: bool = False,
) -> tuple[Bound, ...]:
    """The docstring's bounds that hold for a numeric argument (or, given its items' profile,
    for the numbers in a list argument: `prose_only`): those naming its parameter, and the prose
    ones, each only where every example keeps it (a bound the examples break is about something
    else)."""
    if signature is None or not signature.bounds or profile is None or not profile.values:
        return ()
    if not profile.types <= {"int", "float"}:
        return ()
    name = signature.names[position] if position < min(group[0], len(signature.names)) else None
    return tuple(
        bound
        for bound in signature.bounds
        if (bound.name is None or (bound.name == name and not prose_only))
        and profile.low is not None
        and profile.high is not None
        and bound.holds(profile.low)
        and bound.holds(profile.high)  # an interval holds for all when it does at both ends
    )


def _annotated(signature: EntrySignature | None, group: Signature, position: int) -> Shape | None:
    """The annotation's shape of a positional argument, or None (none, or one it cannot read)."""
    if signature is None or position >= min(group[0], len(signature.shapes)):
        return None
    shape = signature.shapes[position]
    return shape if shape is not None and shape.kind != "any" else None


def _values(call: Call) -> list[Any]:
    return [*call.args, *(value for _, value in call.kwargs)]


def _call(signature: tuple[int, tuple[str, ...]], values: Iterable[Any]) -> Call:
    items = list(values)
    count = signature[0]
    return Call(tuple(items[:count]), tuple(zip(signature[1], items[count:])))


def _key(call: Call) -> str:
    return literal_text((call.args, call.kwargs))
