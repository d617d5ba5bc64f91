"""Hostile input at the borders around the sandbox (issue 26): the parent's parsers, the store,
the command line's output and the paths it builds from names. Samples that run go through
tests/test_hostile.py (both isolation modes); these are the parts that need no sandbox.

Each section is one class of issue 26; every test feeds the bound itself (the longest, deepest,
largest input the class allows) and checks that the product refuses it with one line or handles
it, never with a traceback, a hang or a write outside the store.
"""

from __future__ import annotations

import ast
import json
import time

import pytest

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import Entry
from skyt_tui.engine.measure.normalize import normalize
from skyt_tui.engine.measure.tree_distance import MAX_TREE_NODES, tree_distance, tree_of
from skyt_tui.engine.oracle.constraints import is_recursive
from skyt_tui.engine.sandbox import wire
from skyt_tui.engine.sources import extract

# -- 1. parsers of sample-controlled bytes in the parent are linear ------------------------------

FORGED_FRAMES = {
    "escaped quotes, never closed": b'"' + b'\\",' * 340_000,
    "a quote then commas": b'"' + b"," * ((1 << 20) - 1),
    "quotes and backslashes": b'\\"' * (1 << 19),
    "only quotes": b'"' * (1 << 20),
}


@pytest.mark.parametrize("name", sorted(FORGED_FRAMES))
def test_counting_the_values_of_a_forged_frame_is_one_pass(name):
    """A 1 MiB frame (the size up to which strings are removed before counting) is counted in
    one pass, whatever the arrangement of quotes and backslashes: each of these backtracked
    for minutes to hours (quadratically) before."""
    body = FORGED_FRAMES[name]
    assert len(body) <= wire.PRECISE_COUNT_BYTES
    start = time.monotonic()
    wire.count_values(body, limit=10)
    assert time.monotonic() - start < 5


def test_counting_still_sees_through_strings():
    assert wire.count_values(b'["a,b:c[", "d\\",{", 1]', limit=0) == 4
    assert wire.count_values(b'{"k": "v\\\\", "w": [1, 2]}', limit=0) == 7  # keys count too


@pytest.mark.parametrize(
    "line",
    ["```" + " " * 200_000 + "`", "```" + "\t " * 100_000 + "x`", "~" * 200_000 + "`"],
)
def test_a_long_fence_line_in_an_answer_is_matched_in_one_pass(line):
    """An LLM answer (outside text) with a long almost-fence line: quadratic before."""
    start = time.monotonic()
    extract.extract_code(line + "\ndef f():\n    return 1\n", entry="f")
    assert time.monotonic() - start < 5


# -- 2. syntax trees of any depth: iterative walks or a bound, per sample ------------------------

DEEP = {
    "elif chain": lambda n: (
        "def f(x):\n    if x == 0:\n        return 0\n"
        + "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(1, n))
    ),
    "operator chain": lambda n: "def f(x):\n    return " + " + ".join(["x"] * n) + "\n",
    "attribute chain": lambda n: "def f(x):\n    return x" + ".a" * n + "\n",
    "conditional chain": lambda n: "def f(x):\n    return " + "1 if x else " * n + "0\n",
    "lambda chain": lambda n: "f = " + "lambda: " * n + "0\n",
    "subscript chain": lambda n: "def f(x):\n    return x" + "[0]" * n + "\n",
    "nested lists": lambda n: "def f(x):\n    return " + "[" * n + "x" + "]" * n + "\n",
}


def _deepest_accepted(make):
    low, high = 1, 400
    while low < high:
        middle = (low + high + 1) // 2
        try:
            syntax.parse(make(middle))
            low = middle
        except SyntaxError:
            high = middle - 1
    return low


def _from_deep_stack(frames, work):
    return work() if frames == 0 else _from_deep_stack(frames - 1, work)


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_program_at_the_depth_bound_is_normalized_even_from_a_deep_stack(shape):
    """The bound leaves every recursive walk (ast.unparse, the renaming visitors, the repair
    transformers) the stack it needs, from 300 frames down (the app's worker threads and the
    CLI start far higher up); one level more is a parse error, the same on every path."""
    make = DEEP[shape]
    n = _deepest_accepted(make)
    assert syntax.depth(ast.parse(make(n))) == syntax.MAX_DEPTH
    at_bound = _from_deep_stack(300, lambda: normalize(make(n)))
    assert not at_bound.parse_error
    assert tree_of(at_bound.texts["nodoc"]) is not None
    assert normalize(make(n + 1)).parse_error


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_program_nested_thousands_deep_is_one_parse_error(shape):
    """Far past the interpreter's recursion limit (the parser itself gives up at ~3,000)."""
    for n in (1_500, 5_000):
        code = DEEP[shape](n)
        with pytest.raises(SyntaxError):
            syntax.parse(code)
        normalized = normalize(code)
        assert normalized.parse_error
        assert tree_distance(normalized.texts["nodoc"], "def f(x):\n    return x\n") == 1.0


def test_parse_errors_of_every_kind_are_syntax_errors():
    for code in (
        "def f(:\n",
        "x = '\0'\n",
        "(" * 300 + ")" * 300,
        "f = " + "lambda: " * 3000 + "0",
    ):
        with pytest.raises(SyntaxError):
            syntax.parse(code)


def test_the_recursion_rule_follows_a_call_chain_of_any_length():
    """`style` checks walk the call graph: 20,000 functions calling the next (RecursionError at
    ~1,000 before); the last one calling the first makes it recursive."""
    chain = "".join(f"def f{k}(n):\n    return f{k + 1}(n)\n" for k in range(20_000))
    entry = Entry(kind="function", name="f0")
    assert not is_recursive(ast.parse(chain + "def f20000(n):\n    return n\n"), entry)
    assert is_recursive(ast.parse(chain + "def f20000(n):\n    return f0(n)\n"), entry)


# -- 4. size: a documented limit per sample, bounded distance work -------------------------------


def test_the_tree_distance_measures_trees_up_to_its_bound_only():
    def program(functions, name):
        return "".join(
            f"def {name}{i}(x):\n    y = x + {i}\n    return y * 2\n" for i in range(functions)
        )

    small = tree_of(program(10, "a"))
    assert small is not None and small.size < MAX_TREE_NODES
    big = program(MAX_TREE_NODES // 10, "b")
    assert tree_of(big) is None
    start = time.monotonic()
    assert tree_distance(big, program(MAX_TREE_NODES // 10, "c")) == 1.0
    assert tree_distance(big, big) == 0.0
    assert time.monotonic() - start < 5


def test_extraction_of_a_huge_answer_tries_no_parse():
    """A 3 MB answer without fences: extraction cuts and parses it up to 128 times otherwise."""
    answer = "Here it is:\n" + "def f(x):\n    return x\n" * 140_000 + "x = (\n"
    start = time.monotonic()
    found = extract.extract_code(answer, entry="f")
    assert found.method == "unfenced-unparsed"
    assert time.monotonic() - start < 10


def test_the_oracle_refuses_a_program_over_the_limit_before_running_it():
    from skyt_tui.engine.contracts.catalog import get_contract
    from skyt_tui.engine.oracle.plan import Plan

    contract = get_contract("fibonacci_iterative")
    code = contract.reference + "#" * syntax.MAX_PROGRAM_CHARS
    verdict, _ = Plan(contract).early_verdict(code, "reduced")
    assert verdict is not None and verdict.status == "too_large"
    assert f"(limit {syntax.MAX_PROGRAM_CHARS:,})" in verdict.reason


def test_analysis_refuses_a_huge_sample_and_measures_the_rest(tmp_path, monkeypatch, capsys):
    """Without the oracle (the sandboxed path is in test_hostile.py): the CSV and the JSON mark
    the refused sample, one line on stderr says so, and N counts the others."""
    from skyt_tui.cli import main

    good = "def f(x):\n    return x + 1\n"
    huge = good + "# " + "x" * 5_000_000
    rows = [
        {"contract_id": "c", "model": "m", "temperature": 0.0, "code": code}
        for code in (good, huge, good.replace("x", "y"))
    ]
    source = tmp_path / "samples.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    csv_path = tmp_path / "samples.csv"
    start = time.monotonic()
    assert main(["analyze", str(source), "--no-oracle", "--json", "--csv", str(csv_path)]) == 0
    assert time.monotonic() - start < 30
    captured = capsys.readouterr()
    [run] = json.loads(captured.out)["runs"]
    assert run["metrics"]["n"] == 2 and run["metrics"]["n_failed"] == 1
    reason = f"the program has {len(huge):,} characters (limit 50,000)"
    assert run["refused"] == [{"index": 1, "reason": reason}]
    assert captured.err.splitlines() == [
        f"skyt-tui: warning: run c_m_t0: sample 1 refused: {reason}"
    ]
    lines = csv_path.read_text().splitlines()
    assert [line.split(",")[3] for line in lines[1:]] == ["ok", "refused", "ok"]
