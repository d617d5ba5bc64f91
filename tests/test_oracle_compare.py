"""Pure parts of the oracle: value comparison, constraint analysis, pass@k (the behaviour metrics are
the measure room's: tests/test_metrics.py)."""

import ast
import functools
import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skyt_tui.engine.contracts.contract import Entry, load_contract
from skyt_tui.engine.oracle.constraints import (
    forbidden_calls_used,
    forbidden_imports_used,
    forbidden_nodes_used,
    is_recursive,
)
from skyt_tui.engine.oracle.plan import Plan, Prechecks
from skyt_tui.engine.oracle.verdicts import (
    pass_at_k,
    values_match,
)
from skyt_tui.engine.sandbox.pool import ProcessExit, RunResult
from skyt_tui.engine.sandbox.wire import Unencodable


@pytest.mark.parametrize(
    "actual, expected, tolerance, result",
    [
        (2, 2.0, {}, True),
        (2.0, 2, {}, True),
        (True, 1, {}, False),
        (1, True, {}, False),
        (True, True, {}, True),
        (0.1 + 0.2, 0.3, {}, False),
        (0.1 + 0.2, 0.3, {"rel_tol": 1e-9}, True),
        (0.3001, 0.3, {"abs_tol": 1e-3}, True),
        (0.302, 0.3, {"abs_tol": 1e-3}, False),
        (float("nan"), float("nan"), {}, True),
        (float("nan"), 1.0, {"abs_tol": 10.0}, False),
        ([1.0001, 2], [1, 2.0001], {"abs_tol": 1e-3}, True),
        ([1.0001, 2], (1, 2.0001), {"abs_tol": 1e-3}, False),
        ((1, [2.5]), (1, [2.5]), {}, True),
        ({"a": 1.0001}, {"a": 1}, {"abs_tol": 1e-3}, True),
        ({"a": 1}, {"b": 1}, {}, False),
        ({1: "x"}, {True: "x"}, {}, False),
        ({1, 2}, frozenset({2, 1}), {}, True),
        ({True}, {1}, {}, False),
        ({(1, 2.0)}, {(1, 2)}, {}, True),
        ("ab", b"ab", {}, False),
        (None, 0, {}, False),
        (None, None, {}, True),
        (0, None, {}, False),
        ([], (), {}, False),
        (Unencodable("Liar"), 1, {}, False),
        (Unencodable("Liar"), None, {}, False),
        (10**400, 10**400, {"rel_tol": 1e-9}, True),
    ],
)
def test_values_match(actual, expected, tolerance, result):
    assert (
        values_match(actual, expected, tolerance.get("rel_tol"), tolerance.get("abs_tol")) is result
    )


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(plain)
def test_every_value_matches_itself(value):
    assert values_match(value, value)
    assert values_match(value, value, 1e-9, 0.0)


def tree(code):
    return ast.parse(code)


@pytest.mark.parametrize(
    "code, entry, recursive",
    [
        ("def f(n):\n    return 1 if n < 2 else f(n - 1) * n\n", Entry("function", "f"), True),
        (
            "def f(n):\n    return g(n)\ndef g(n):\n    return f(n - 1) if n else 0\n",
            Entry("function", "f"),
            True,
        ),
        (
            "def f(n):\n    def go(k):\n        return go(k - 1) if k else 0\n    return go(n)\n",
            Entry("function", "f"),
            True,
        ),
        (
            "def f(n):\n    total = 1\n    for k in range(n):\n        total *= k + 1\n    return total\n",
            Entry("function", "f"),
            False,
        ),
        (
            "def helper(n):\n    return helper(n - 1)\ndef f(n):\n    return n\n",
            Entry("function", "f"),
            False,
        ),
        (
            "class T:\n    def walk(self, n):\n        return self.walk(n - 1) if n else 0\n",
            Entry("class", "T"),
            True,
        ),
        ("class T:\n    def walk(self, n):\n        return n\n", Entry("class", "T"), False),
    ],
)
def test_is_recursive(code, entry, recursive):
    assert is_recursive(tree(code), entry) is recursive


def test_forbidden_calls_resolve_import_aliases_and_methods():
    code = tree(
        "from math import factorial as f\nimport math as m\nx = f(3) + m.gcd(4, 6)\nlst.sort()\nsorted(lst)\n"
    )
    assert forbidden_calls_used(code, ["math.factorial", "math.gcd", "sort", "min"]) == [
        "math.factorial",
        "math.gcd",
        "sort",
    ]
    assert forbidden_calls_used(tree("sorted(x)"), ["sort"]) == []
    assert forbidden_calls_used(tree("x.sorted()"), ["sorted"]) == ["sorted"]


def test_forbidden_imports():
    code = tree(
        "import os.path\nfrom collections import deque\nm = __import__('re')\nimportlib.import_module('json')\n"
    )
    assert forbidden_imports_used(code, ["os", "collections.deque", "re", "json", "sys"]) == [
        "collections.deque",
        "json",
        "os",
        "re",
    ]
    assert forbidden_imports_used(tree("import osmosis"), ["os"]) == []


def test_forbidden_nodes():
    code = tree("while x:\n    y = [i for i in z]\n")
    assert forbidden_nodes_used(code, ["While", "ListComp", "Lambda"]) == ["ListComp", "While"]


@pytest.mark.parametrize(
    "n, c, k, expected",
    [
        (10, 0, 1, 0.0),
        (10, 10, 5, 1.0),
        (10, 1, 1, 0.1),
        (10, 2, 5, 1 - 56 / 252),  # 1 - C(8,5)/C(10,5)
        (100, 3, 10, 1 - math.comb(97, 10) / math.comb(100, 10)),
        (5, 1, 5, 1.0),
    ],
)
def test_pass_at_k(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-15)


def test_pass_at_k_needs_k_at_most_n():
    with pytest.raises(ValueError):
        pass_at_k(5, 1, 10)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                ["t", "i", "r", "x", "steps", "init_x", "$set", "$tuple", "type", "mro"]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=8,
)
frame = st.fixed_dictionaries(
    {
        "t": st.sampled_from(
            ["loaded", "load_error", "no_entry", "call", "stateful", "tests_done", "sandbox_error"]
        ),
        "i": st.integers(0, 2),
    },
    optional={"r": json_values, "x": json_values, "steps": json_values, "init_x": json_values},
)
frames = st.tuples(st.booleans(), st.lists(st.one_of(frame, json_values), max_size=6)).map(
    lambda pair: ([{"t": "loaded"}] if pair[0] else []) + pair[1]
)


@settings(max_examples=150, deadline=None)
@given(frames, st.sampled_from(["calls", "stack"]))
@example([{"t": "loaded"}, {"t": "call", "i": 0, "x": "boom"}], "calls")
@example([{"t": "load_error", "x": [1]}], "calls")
@example(
    [{"t": "loaded"}, {"t": "stateful", "i": 0, "steps": ["a", 1, None, {}, [], 2, 3, 4]}], "stack"
)
def test_any_stream_a_sample_writes_gives_a_verdict_never_a_crash(stream_frames, name):
    plan = fixture_plan(name)
    stream = b"".join(
        len(body).to_bytes(4, "big") + body
        for body in (json.dumps(frame).encode() for frame in stream_frames)
    )
    result = RunResult(stream, b"", b"", 0, ProcessExit(0, None), None, False, None, None, 0.01)
    verdict = plan.verdict(result, Prechecks([], None), "reduced")
    assert len(verdict.tests) == len(plan.sandboxed)
    assert isinstance(verdict.reason, str)


@functools.cache
def fixture_plan(name):
    return Plan(load_contract(Path(__file__).parent / "fixtures" / "oracle" / f"{name}.toml"))
