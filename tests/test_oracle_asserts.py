"""Check bodies judged in the parent (`oracle.asserts`) give the verdicts the checker gave.

A check that is one assert on one call of the candidate is sent to the sample as a call and its
result compared here; the same samples judged with every check run in the checker
(`Oracle(compare_asserts=False)`, the path before ORACLE_VERSION 4) must give the same verdict,
field for field (times aside): passed, status, reason, each test's actual value, error type and
message — for good answers, wrong ones, every way a call can fail and every way a sample can end.
"""

from __future__ import annotations

import ast
import math

import pytest

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.asserts import literal, recognise
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.plan import Plan
from skyt_tui.engine.sources.humaneval import Problem, problem_contract

TIMEOUT_S = 2.0

CHECK = """
METADATA = {'author': 'x', 'dataset': 'test'}


def check(candidate):
    assert candidate([1, 2, 3], 2) == 2
    assert candidate([1, 2, 3], 3) == True
    assert abs(candidate([1.5, 2.5], 1) - 2.0 / 3.0) < 1e-6
    assert not candidate([], 0)
    assert candidate([7], 7) is True, 'This prints if this assert fails 1 (good for debugging!)'
    assert tuple(candidate([3, 1], 9)) == tuple([1, 3])
    assert candidate(
        [4, 5], 'seven' + 'teen'
    ) == [
        4,
        5,
    ]
    import math
    assert math.isclose(candidate([0.1], 0.2), 0.30000000000000004, rel_tol=1e-9)
    assert candidate((1, 2), 0) != (1, 2)
    assert candidate([1], 1)
"""
"""Ten asserts, each a test of its own (`problem_contract` splits them), every recognised shape."""


def toy_contract():
    problem = Problem(
        task_id="Toy/7",
        prompt="def pick(items, k):\n",
        entry_point="pick",
        canonical_solution="    return k\n",
        test=CHECK,
    )
    return problem_contract(problem, TIMEOUT_S)


REFERENCE = """
def pick(items, k):
    if k == 'seventeen':
        return items
    if k == 0:
        return list(items)
    if k == 1:
        return 2.0 / 3.0 if len(items) == 2 else 1
    if k in (3, 7):
        return True
    if k == 9:
        return sorted(items)
    if k == 0.2:
        return items[0] + k
    return k
"""

SAMPLES = {
    "reference": REFERENCE,
    "echo": "def pick(items, k):\n    return k\n",
    "wrong": "def pick(items, k):\n    return 0\n",
    "one_for_true": "def pick(items, k):\n    return 1 if k == 3 else k\n",
    "list_for_tuple": "def pick(items, k):\n    return list(items) if k == 0 else k\n",
    "set_of_ints": "def pick(items, k):\n    return {1, 3} if k == 9 else k\n",
    "string": "def pick(items, k):\n    return 'text'\n",
    "nan": "def pick(items, k):\n    return float('nan')\n",
    "raises": "def pick(items, k):\n    raise ValueError(f'bad {k}')\n",
    "key_error": "def pick(items, k):\n    return {}[k]\n",
    "own_exception": (
        "class Nope(LookupError):\n    pass\n\ndef pick(items, k):\n    raise Nope('no')\n"
    ),
    "odd_name": (
        "def pick(items, k):\n    raise type('not an identifier', (TypeError,), {})('x')\n"
    ),
    "system_exit": "import sys\ndef pick(items, k):\n    sys.exit(3)\n",
    "generator": "def pick(items, k):\n    return (x for x in items)\n",
    "exits_in_call": (
        "import os\ndef pick(items, k):\n    if k == 1:\n        os._exit(4)\n    return k\n"
    ),
    "segfault_in_call": (
        "import ctypes\ndef pick(items, k):\n"
        "    if k == 1:\n        ctypes.string_at(0)\n    return k\n"
    ),
    "load_error": "raise RuntimeError('at load')\ndef pick(items, k):\n    return k\n",
    "no_entry": "def choose(items, k):\n    return k\n",
    "not_callable": "pick = 5\n",
    "rebinds_itself": (
        "def pick(items, k):\n    global pick\n    pick = lambda items, k: -1\n    return k\n"
    ),
    "recursion": "def pick(items, k):\n    return pick(items, k)\n",
    "loops_on_one": ("def pick(items, k):\n    while k == 1:\n        pass\n    return k\n"),
    "mutates_argument": "def pick(items, k):\n    items.append(items)\n    return k\n",
    "prints": "def pick(items, k):\n    print('k is', k)\n    return k\n",
    "huge_int": "def pick(items, k):\n    return 7 ** 20000\n",
}


def stripped(verdict):
    data = verdict.to_dict()
    data.pop("duration_s")
    for test in data["tests"]:
        test.pop("time_s")
    return data


@pytest.fixture(scope="module")
def both():
    with (
        Oracle(workers=2) as here,
        Oracle(workers=2, compare_asserts=False) as checker,
    ):
        yield here, checker


def test_every_check_of_the_toy_contract_is_recognised():
    contract = toy_contract()
    assert len(contract.tests) == 10
    plan = Plan(contract)
    assert sorted(plan.assert_calls) == list(range(10))
    assert plan.payload["checks"] == []
    assert [t["op"] for t in plan.payload["tests"]] == ["check_call"] * 10
    assert Plan(contract, compare_asserts=False).payload["checks"]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_same_verdict_as_the_checker(both, name):
    here, checker = both
    contract = toy_contract()
    fast, slow = here.check(contract, SAMPLES[name]), checker.check(contract, SAMPLES[name])
    assert stripped(fast) == stripped(slow)


def test_the_reference_passes_and_a_wrong_answer_names_its_assert(both):
    here, _ = both
    contract = toy_contract()
    assert here.check(contract, REFERENCE).passed
    verdict = here.check(contract, SAMPLES["wrong"])
    assert verdict.reason == (
        "test 1 'Toy/7 check[1]': assertion failed at line 6: assert candidate([1, 2, 3], 2) == 2"
    )
    assert verdict.tests[0].actual == "[0]"


NOT_RECOGNISED = {
    "two asserts": "def check(candidate):\n    assert candidate(1) == 1\n    assert candidate(2) == 2\n",
    "a loop": "def check(candidate):\n    for x in range(3):\n        assert candidate(x) == x\n",
    "a free name": "def check(candidate):\n    assert candidate(1) == helper(1)\n",
    "a call in the message": "def check(candidate):\n    assert candidate(1) == 1, str(candidate(1))\n",
    "a computed argument": "def check(candidate):\n    assert candidate(list(range(3))) == 3\n",
    "shadowed abs": "abs = len\ndef check(candidate):\n    assert abs(candidate(1) - 1) < 1\n",
    "is with a number": "def check(candidate):\n    assert candidate(1) is 1\n",
    "tuple of strings": "def check(candidate):\n    assert tuple(candidate(1)) == ('a', 'b')\n",
    "tuple of None": "def check(candidate):\n    assert tuple(candidate(1)) == (None, 1)\n",
    "an import": "import numpy\ndef check(candidate):\n    assert candidate(1) == 1\n",
    "a decorator": "@staticmethod\ndef check(candidate):\n    assert candidate(1) == 1\n",
    "a second parameter": "def check(candidate, other):\n    assert candidate(1) == 1\n",
    "a call on its own line": "def check(candidate):\n    assert (\n        candidate(1) == 1\n    )\n",
    "a chained comparison": "def check(candidate):\n    assert 0 < candidate(1) < 2\n",
    "an unhashable set item": "def check(candidate):\n    assert candidate(1) == {[1]}\n",
    "huge arithmetic": "def check(candidate):\n    assert candidate(1) == 10 ** 100000\n",
    "starred arguments": "def check(candidate):\n    assert candidate(*[1]) == 1\n",
    "not python": "def check(candidate):\n    assert candidate(1) ==\n",
    "deep nesting": "def check(candidate):\n    assert candidate(1) == "
    + "[" * 500
    + "]" * 500
    + "\n",
}


@pytest.mark.parametrize("name", sorted(NOT_RECOGNISED))
def test_anything_more_stays_in_the_checker(name):
    assert recognise(NOT_RECOGNISED[name]) is None


def test_one_check_left_to_the_checker_keeps_them_all_there():
    contract = contract_from_dict(
        {
            "schema_version": 1,
            "id": "mixed_checks",
            "title": "mixed",
            "difficulty": "easy",
            "prompt": "Write f(x).",
            "entry": {"name": "f"},
            "tests": [
                {"kind": "check", "code": "def check(candidate):\n    assert candidate(1) == 2\n"},
                {"kind": "check", "code": NOT_RECOGNISED["a loop"]},
            ],
        }
    )
    plan = Plan(contract)
    assert plan.assert_calls == {} and len(plan.payload["checks"]) == 2


def test_literals_are_evaluated_as_python_does_without_recursion():
    for text in ("[1, -2.5, (3,), {'a': {4}}]", "2.0 / 3.0", "'ab' + 'c'", "-(-1)", "{1: 2}"):
        assert literal(ast.parse(text, mode="eval").body) == eval(text)  # noqa: S307
    deep = ast.parse("[" * 90 + "]" * 90, mode="eval").body
    assert literal(deep) == eval("[" * 90 + "]" * 90)  # noqa: S307
    assert math.isclose(literal(ast.parse("1e-6", mode="eval").body), 1e-6)
