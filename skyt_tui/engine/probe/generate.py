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

DEFAULT_MAX_INPUTS = 200
MAX_ATTEMPTS_PER_INPUT = 30
MAX_MUTATION_DEPTH = 4
MAGNITUDE = 10
"""Numbers go up to this many times the largest example (or 20 beyond it)."""
MAX_GENERATED_CHARS = 20_000
"""An input whose literal text is longer than this is not generated."""


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

    def admits(self, value: Any, depth: int = 0) -> bool:
        name = type(value).__name__
        if name not in self.types:
            return False
        if _is_number(value) and not isinstance(value, complex):
            if not math.isfinite(float(value)) or self.low is None or self.high is None:
                return self.low is None
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
            if len(value) > 2 * self.max_len + 4:
                return False
            if self.min_len and not value:
                return False  # never empty when no example is
            if isinstance(value, tuple) and self.min_len == self.max_len != len(value):
                return False
        if isinstance(value, str) and self.alphabet and not set(value) <= self.letters():
            return False
        if isinstance(value, list) and self.sorted_seen >= 2 and self.sorted_lists:
            try:
                if any(a > b for a, b in zip(value, value[1:])):
                    return False
            except TypeError:
                return False
        if isinstance(value, list | tuple | set | dict) and value:
            if self.items is None or depth >= MAX_MUTATION_DEPTH:
                return self.items is None and depth < MAX_MUTATION_DEPTH
            items = value.values() if isinstance(value, dict) else value
            return all(self.items.admits(item, depth + 1) for item in items)
        return True


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

    def pick(self, value: Any, count: int, depth: int = 0) -> list[Any]:
        options = self.all(value, depth)
        return self.rng.sample(options, min(count, len(options))) if options else []

    def _string(self, value: str) -> list[Any]:
        rng = self.rng
        alphabet = sorted(self.profile.letters()) or list("ab ")
        others = [v for v in self.profile.values if isinstance(v, str) and v != value]
        out: list[Any] = ["", value[:1], value[1:], value[:-1], value[::-1], value + value,
                          value.upper(), value.lower(), value.swapcase(), value + " ", " " + value,
                          "".join(sorted(value)), rng.choice(alphabet),
                          rng.choice(alphabet) * rng.randint(2, 6)]  # fmt: skip
        if value:
            i = rng.randrange(len(value))
            out += [value[:i] + value[i + 1 :], value[:i] + value[i] + value[i:],
                    value[:i] + rng.choice(alphabet) + value[i + 1 :],
                    value[:i] + rng.choice(alphabet) + value[i:]]  # fmt: skip
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

    def _elements(self, value: list[Any], depth: int) -> list[list[Any]]:
        """`value` with one element edited (each position, two edits each, at most 8 positions)."""
        if depth >= MAX_MUTATION_DEPTH or not value:
            return []
        sub = Mutator(self.rng, self.profile.items or Profile())
        positions = sorted(self.rng.sample(range(len(value)), min(8, len(value))))
        out = []
        for i in positions:
            for edited in sub.pick(value[i], 2, depth + 1):
                out.append(value[:i] + [edited] + value[i + 1 :])
        return out


@dataclass(frozen=True)
class Generated:
    calls: tuple[Call, ...]
    examples: int
    """Example inputs the generation started from (raises tests' inputs excluded)."""
    rejected: int
    """Candidates outside the domain (declared or inferred)."""


def generate_inputs(
    contract: Contract,
    examples: Sequence[Call],
    *,
    max_inputs: int = DEFAULT_MAX_INPUTS,
    seed: int = 0,
) -> Generated:
    """At most `max_inputs` new distinct inputs in the domain, deterministic for (seed, contract)."""
    rng = random.Random(f"skyt-probe:{seed}:{contract.id}")
    groups: dict[tuple[int, tuple[str, ...]], list[Call]] = {}
    for call in examples:
        groups.setdefault((len(call.args), tuple(k for k, _ in call.kwargs)), []).append(call)
    seen = {_key(call) for call in examples}
    accepted: list[Call] = []
    rejected = 0
    if not examples or max_inputs <= 0:
        return Generated((), len(examples), 0)
    same_size: dict[tuple[int, tuple[str, ...]], list[tuple[int, int]]] = {}
    checks: dict[tuple[int, tuple[str, ...]], list[Callable[[Any], bool]]] = {}
    profiles: dict[tuple[int, tuple[str, ...]], list[Profile]] = {}
    for signature, calls in groups.items():
        width = signature[0] + len(signature[1])
        found = [Profile() for _ in range(width)]
        for call in calls:
            for position, value in enumerate(_values(call)):
                found[position].add(value)
        profiles[signature] = found
        same_size[signature] = _same_sizes(calls) if len(calls) >= 2 else []
        checks[signature] = [
            _admit_declared(contract.domain.args[p])
            if p < signature[0] and p < len(contract.domain.args)
            else found[p].admits
            for p in range(width)
        ]

    def offer(signature: tuple[int, tuple[str, ...]], values: list[Any]) -> None:
        nonlocal rejected
        call = _call(signature, values)
        key = _key(call)
        if key in seen:
            return
        seen.add(key)
        if (
            len(key) > MAX_GENERATED_CHARS
            or not all(check(value) for check, value in zip(checks[signature], values))
            or any(len(values[a]) != len(values[b]) for a, b in same_size[signature])
        ):
            rejected += 1
            return
        accepted.append(call)

    systematic: list[tuple[tuple[int, tuple[str, ...]], list[Any]]] = []
    for signature, calls in groups.items():
        for call in calls:
            values = _values(call)
            for position, value in enumerate(values):
                for edited in Mutator(rng, profiles[signature][position]).all(value):
                    systematic.append(
                        (signature, [*values[:position], edited, *values[position + 1 :]])
                    )
        for a in (
            calls
        ):  # inputs that differ in the ways the examples do: arguments swapped between examples
            for b in calls:
                if a is not b:
                    for position in range(len(_values(a))):
                        mixed = _values(a)
                        mixed[position] = _values(b)[position]
                        systematic.append((signature, mixed))
    rng.shuffle(systematic)
    for signature, values in systematic:
        if len(accepted) >= max_inputs:
            break
        offer(signature, values)
    signatures = sorted(groups, key=repr)
    attempts = 0
    while len(accepted) < max_inputs and attempts < MAX_ATTEMPTS_PER_INPUT * max_inputs:
        attempts += 1
        signature = signatures[attempts % len(signatures)]
        values = _values(rng.choice(groups[signature]))
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(len(values))
            options = Mutator(rng, profiles[signature][position]).all(values[position])
            if options:
                values[position] = rng.choice(options)
        offer(signature, values)
    return Generated(tuple(accepted), len(examples), rejected)


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


def _admit_declared(spec: ArgDomain) -> Callable[[Any], bool]:
    return lambda value: admits_declared(spec, value)


def _values(call: Call) -> list[Any]:
    return [*call.args, *(value for _, value in call.kwargs)]


def _call(signature: tuple[int, tuple[str, ...]], values: Iterable[Any]) -> Call:
    items = list(values)
    count = signature[0]
    return Call(tuple(items[:count]), tuple(zip(signature[1], items[count:])))


def _key(call: Call) -> str:
    return literal_text((call.args, call.kwargs))
