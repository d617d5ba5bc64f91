"""What the entry point's own text says (docs/probe.md): parameter shapes from annotations, calls
written in the docstring, the boundary values of a shape, extrapolations of two examples, and
how they enter generation (domain, wide tier, or neither)."""

from __future__ import annotations

import ast
import random

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.outputs import Call
from skyt_tui.engine.probe.boundary import (
    LONG,
    boundary_values,
    conforms,
    extrapolations,
    shape_of,
)
from skyt_tui.engine.probe.generate import Profile, generate_inputs
from skyt_tui.engine.probe.signature import (
    MAX_DOC_CALLS,
    Shape,
    annotation_shape,
    docstring_calls,
    entry_signature,
)

PROMPT = '''from typing import Dict, List, Optional, Tuple


def f(xs: List[int], pair: Tuple[int, ...], names: Dict[str, float], sep: Optional[str] = None) -> int:
    """Sum the items.
    >>> f([1, 2], (3,), {'a': 1.0})
    6
    For example f([], (), {}, sep='-') ➞ 0, and g([9], (), {}) is another function;
    obj.f([5], (), {}) a method, and f(xs) is not a literal call.
    """
'''


def contract(prompt=PROMPT, reference=None, tests=None):
    return contract_from_dict(
        {
            "schema_version": 1,
            "id": "shapes",
            "title": "shapes",
            "difficulty": "easy",
            "prompt": prompt,
            "prompt_style": "completion",
            "entry": {"kind": "function", "name": "f"},
            "reference": reference,
            "tests": tests or [{"kind": "call", "args": [[1], [2], {}], "expected": 1}],
        }
    )


def shape(text: str) -> Shape:
    return annotation_shape(ast.parse(text, mode="eval").body)


def test_annotations_become_shapes():
    assert shape("List[int]") == Shape("list", (Shape("int"),))
    assert shape("list[str]") == Shape("list", (Shape("str"),))
    assert shape("Tuple[int, ...]") == Shape("tuple", (Shape("int"),), variadic=True)
    assert shape("Tuple[str, int]") == Shape("tuple", (Shape("str"), Shape("int")))
    assert shape("Dict[str, List[float]]") == Shape(
        "dict", (Shape("str"), Shape("list", (Shape("float"),)))
    )
    assert shape("Optional[float]") == Shape("float", optional=True)
    assert shape("Union[int, float]") == Shape("number")
    assert shape("int | None") == Shape("int", optional=True)
    assert shape("'List[int]'") == Shape("list", (Shape("int"),))
    assert shape("typing.List[int]") == Shape("list", (Shape("int"),))
    assert shape("Callable[[int], int]").kind == "any"
    deep = "List[" * 40 + "int" + "]" * 40
    assert (
        shape(deep).kind == "list"
    )  # read down to MAX_SHAPE_DEPTH, "any" below: no recursion error


def test_the_signature_and_the_docstrings_literal_calls_are_read():
    found = entry_signature(contract())
    assert found is not None
    assert found.names == ("xs", "pair", "names", "sep")
    assert found.shapes[0] == Shape("list", (Shape("int"),))
    assert found.shapes[3] == Shape("str", optional=True)
    assert found.docstring_calls == (
        Call(([1, 2], (3,), {"a": 1.0})),
        Call(([], (), {}), (("sep", "-"),)),
    ), "literal calls of f only: not g(...), obj.f(...), nor f(xs)"
    reference = "def f(xs, pair, names, sep=None):\n    return sum(xs)\n"
    assert entry_signature(contract(reference=reference)).shapes == (None, None, None, None), (
        "the reference is read first: unannotated there"
    )
    assert entry_signature(contract(prompt="Write f.", reference=None)) is None


def test_docstring_scanning_is_bounded():
    text = "f(" * 10_000 + "f([1])"
    assert docstring_calls(text, "f") == []  # the first MAX_DOC_CALLS occurrences, none closed
    many = " ".join(f"f({i})" for i in range(MAX_DOC_CALLS + 50))
    assert len(docstring_calls(many, "f")) == MAX_DOC_CALLS
    assert docstring_calls("see f('a)', [1]) and f('(', 2)", "f") == [
        Call(("a)", [1])),
        Call(("(", 2)),
    ], "parentheses inside quoted text do not close the call"
    assert docstring_calls("f(" + "[" * 300 + "]" * 300 + ")", "f") == []


def test_boundary_values_are_the_usual_suspects_of_the_shape_and_of_the_examples():
    rng = random.Random(0)
    profile = Profile()
    for value in ([3, 1, 2], [5, 4]):
        profile.add(value)
    values = boundary_values(Shape("list", (Shape("int"),)), profile, rng)
    assert [] in values and [3] in values
    assert any(len(v) == 2 and v[0] == v[1] for v in values), "two equal items"
    assert any(len(v) >= LONG[1] for v in values), "very long"
    assert any(any(x < 0 for x in v) for v in values if v), "negatives"
    assert all(conforms(Shape("list", (Shape("int"),)), v) for v in values)
    strings = boundary_values(Shape("str"), None, rng)
    assert {"", " ", "   ", "a", "A"} <= set(strings) and any(not s.isascii() for s in strings)
    ints = boundary_values(Shape("int"), None, rng)
    assert {0, 1, -1} <= set(ints) and max(ints) >= 10**18
    assert None in boundary_values(Shape("float", optional=True), None, rng)
    assert boundary_values(Shape("list", (Shape("int"),)), profile, random.Random(0)) == values
    nested = Profile()
    nested.add([[1], [2, 3]])
    deep = boundary_values(shape_of(nested), nested, rng)
    assert any(_depth(v) >= 20 for v in deep), "deeply nested where the examples nest"


def _depth(value) -> int:
    depth = 0
    while isinstance(value, list) and value:
        value, depth = value[0], depth + 1
    return depth


def test_examples_are_extrapolated_the_way_they_differ():
    assert extrapolations([3, "ab"], [5, "ab"]) == [[7, "ab"], [1, "ab"]]
    assert extrapolations([1.0], [2.0]) == [[3.0], [0.0]]
    assert extrapolations([[1, 2]], [[1, 2, 3]]) == [[[1, 2, 3, 1]], [[1]]]
    assert extrapolations([True], [False]) == [], "bools do not step"


def test_generation_uses_the_docstring_and_the_boundaries_and_stays_deterministic():
    prompt = (
        'def f(xs: list[int]) -> int:\n    """Largest item.\n    >>> f([7, 7, 1])\n    7\n    """\n'
    )
    the_contract = contract(
        prompt=prompt, tests=[{"kind": "call", "args": [[3, 1, 2]], "expected": 3}]
    )
    examples = [Call(([3, 1, 2],))]
    generated = generate_inputs(the_contract, examples, max_inputs=60, seed=0)
    assert generated.documented == 1 and generated.calls[0] == Call(([7, 7, 1],))
    domain = [c.args[0] for c in generated.calls]
    wide = [c.args[0] for c in generated.wide]
    assert [] in wide and any(len(xs) >= LONG[0] for xs in wide), "empty and very long: beyond"
    assert any(x < 0 for xs in wide for x in xs) and all(x >= 0 for xs in domain for x in xs)
    assert generated == generate_inputs(the_contract, examples, max_inputs=60, seed=0)


def test_without_literal_examples_the_signature_alone_gives_wide_inputs():
    prompt = 'def f(s: str, n: int) -> str:\n    """Shift s by n."""\n'
    check = "def check(candidate):\n    for i in range(3):\n        assert candidate('a', i)\n"
    the_contract = contract(prompt=prompt, tests=[{"kind": "check", "code": check}])
    generated = generate_inputs(the_contract, [], max_inputs=40, seed=0)
    assert not generated.calls and generated.wide
    assert all(type(c.args[0]) is str and type(c.args[1]) is int for c in generated.wide)
    unannotated = contract(
        prompt='def f(s, n):\n    """Shift."""\n', tests=[{"kind": "check", "code": check}]
    )
    assert generate_inputs(unannotated, [], max_inputs=40, seed=0).wide == ()


def test_the_docstrings_numeric_bounds_are_read():
    from skyt_tui.engine.probe.signature import docstring_bounds

    def said(text, names=("n",)):
        return [
            (b.name, b.low, b.low_inclusive, b.high, b.high_inclusive)
            for b in docstring_bounds(text, names)
        ]

    assert said("Base numbers are less than 10.") == [(None, None, True, 10.0, False)]
    assert said("Assume n > 1 and is not a prime.") == [("n", 1.0, False, None, True)]
    assert said("0 <= n <= 100") == [("n", None, True, 100.0, True), ("n", 0.0, True, None, True)]
    assert said("Given a positive floating point number") == [(None, 0.0, False, None, True)]
    assert said("a non-negative integer, at least two of them") == [
        (None, 2.0, True, None, True),
        (None, 0.0, True, None, True),
    ]
    assert said("between 1 and 10^3") == [(None, 1.0, True, 1000.0, True)]
    assert said("fib4(n) -> fib4(n-1) + fib4(n-2)") == [], "arrows and calls are no comparisons"
    assert said("x > 3", names=("n",)) == [], "a comparison names a parameter"
    assert said("nonpositive") == [] and said("not positive") == []
    assert len(docstring_bounds("less than 1 " * 10_000, ("n",))) <= 32


def test_a_stated_bound_keeps_generated_numbers_and_list_items_inside_it():
    base = (
        "def change_base(x: int, base: int) -> str:\n"
        '    """Change the base of x. Base numbers are less than 10."""\n'
    )
    the_contract = contract(prompt=base, tests=[{"kind": "call", "args": [8, 3], "expected": "22"}])
    the_contract = contract_from_dict(
        {
            "schema_version": 1,
            "id": "change_base",
            "title": "change_base",
            "difficulty": "easy",
            "prompt": base,
            "prompt_style": "completion",
            "entry": {"kind": "function", "name": "change_base"},
            "tests": [
                {"kind": "call", "args": [8, 3], "expected": "22"},
                {"kind": "call", "args": [234, 2], "expected": "11101010"},
            ],
        }
    )
    examples = [Call((8, 3)), Call((234, 2))]
    generated = generate_inputs(the_contract, examples, max_inputs=120, seed=0)
    bases = [c.args[1] for c in generated.calls + generated.wide]
    assert bases and max(bases) < 10, "the bound holds for base: every example keeps it"
    assert max(c.args[0] for c in generated.calls) >= 10, "not for x: an example breaks it"
    positives = contract_from_dict(
        {
            "schema_version": 1,
            "id": "search",
            "title": "search",
            "difficulty": "easy",
            "prompt": 'def search(lst):\n    """A non-empty list of positive integers."""\n',
            "prompt_style": "completion",
            "entry": {"kind": "function", "name": "search"},
            "tests": [{"kind": "call", "args": [[4, 1, 2, 2, 3, 1]], "expected": 2}],
        }
    )
    generated = generate_inputs(positives, [Call(([4, 1, 2, 2, 3, 1],))], max_inputs=120, seed=0)
    items = [x for c in generated.calls + generated.wide for x in c.args[0]]
    assert items and min(items) > 0, "positive integers: no list with 0 or a negative item"
