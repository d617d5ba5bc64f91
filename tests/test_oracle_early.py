"""Verdicts decided early (`Oracle.check_many(..., verdict_only=True)`).

Where only the verdict is read, judging a sample stops once it is decided: at threshold 1.0 at
the first test that fails, raises or times out (no further sandbox run); at any threshold once a
test times out on its own. The verdict (passed, status, reason) is the same either way. Every test's outcome is
still there without the flag. The sample that loops in each of its tests (HumanEval/2 in the
corpus) took one run per test where one decides.
"""

from __future__ import annotations

import time

import pytest

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sources.humaneval import Problem, problem_contract

TIMEOUT_S = 1.5


def calls_contract(threshold: float = 1.0, tests: int = 3):
    return contract_from_dict(
        {
            "schema_version": 1,
            "id": "early_calls",
            "title": "calls",
            "difficulty": "easy",
            "prompt": "Write f(x) returning x + 1.",
            "entry": {"name": "f"},
            "oracle": {"timeout_s": TIMEOUT_S, "pass_threshold": threshold},
            "tests": [
                {"kind": "call", "args": [x], "expected": x + 1} for x in range(1, tests + 1)
            ],
        }
    )


def loop_checks_contract():
    """Checks the parent cannot judge itself (a loop each), so the checker runs them."""
    test = "def check(candidate):\n" + "".join(
        f"    for x in [{x}]:\n        assert candidate(x) == x + 1\n" for x in (1, 2, 3)
    )
    return problem_contract(
        Problem("Toy/9", "def f(x):\n", "f", "    return x + 1\n", test), TIMEOUT_S
    )


LOOPS_ON_TWO = "def f(x):\n    while x == 2:\n        pass\n    return x + 1\n"
FAILS_ONE_LOOPS_TWO = (
    "def f(x):\n    while x == 2:\n        pass\n    return 0 if x == 1 else x + 1\n"
)
LOOPS_ALWAYS = "def f(x):\n    while True:\n        pass\n"
WRONG_ON_TWO = "def f(x):\n    return 0 if x == 2 else x + 1\n"
RIGHT = "def f(x):\n    return x + 1\n"


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as oracle:
        yield oracle


def both(oracle, contract, code):
    return oracle.check(contract, code), oracle.check(contract, code, verdict_only=True)


def test_a_sample_that_loops_in_every_test_takes_one_run(oracle):
    full, early = both(oracle, calls_contract(), LOOPS_ALWAYS)
    assert (full.runs, early.runs) == (3, 1)
    assert early.unrun == 2 and not early.passed and early.status == full.status == "timeout"
    assert early.reason == "test 1 'test 1': timeout after 1.5 s"
    assert full.reason == early.reason  # the runs after the deciding one change nothing
    assert [t.index for t in early.tests] == [0]


def test_a_test_that_times_out_alone_decides_after_its_own_run(oracle):
    full, early = both(oracle, calls_contract(tests=4), LOOPS_ON_TWO)
    # run 1: test 1 passes, test 2 loops; run 2: test 2 alone, loops: decided. Every outcome:
    # tests 3 and 4 in a run each, beside run 2
    assert early.runs == 2 and full.runs == 4
    assert early.status == full.status == "timeout" and early.unrun == 2
    assert early.reason == (
        "test 2 'test 2': timeout after 1.5 s (2 sandbox runs: the tests after a timeout ran in"
        " a fresh process)"
    )
    assert full.reason == early.reason


def test_a_failure_before_a_timeout_decides_without_another_run(oracle):
    start = time.monotonic()
    early = oracle.check(calls_contract(), FAILS_ONE_LOOPS_TWO, verdict_only=True)
    # `runs` counts the sandbox runs; the clock only catches a hang (a loaded machine stretches it)
    assert time.monotonic() - start < 2 * TIMEOUT_S + 15
    assert early.runs == 1 and early.unrun == 2 and early.status == "ok"
    assert early.reason == "test 1 'test 1': expected 2, got 0"
    full = oracle.check(calls_contract(), FAILS_ONE_LOOPS_TWO)
    # every outcome: test 2 still times out on its own, but test 1 decided the verdict
    assert (full.passed, full.status, full.reason) == (False, "ok", early.reason)
    assert full.runs == 3 and full.unrun == 0
    assert [t.passed for t in full.tests] == [False, False, True]
    assert full.tests[1].error_type == "Timeout"


@pytest.mark.parametrize("code", [RIGHT, WRONG_ON_TWO, "def f(x):\n    raise ValueError\n"])
@pytest.mark.parametrize("threshold", [1.0, 0.5])
def test_without_a_timeout_the_verdict_is_the_same(oracle, code, threshold):
    full, early = both(oracle, calls_contract(threshold, tests=4), code)
    assert early == full or (early.duration_s != full.duration_s)
    assert (early.passed, early.status, early.reason, early.unrun) == (
        full.passed,
        full.status,
        full.reason,
        0,
    )


def test_below_threshold_one_only_a_timeout_decides(oracle):
    contract = calls_contract(threshold=0.5, tests=4)
    full, early = both(oracle, contract, FAILS_ONE_LOOPS_TWO)
    assert early.status == full.status == "timeout"
    assert early.runs == 2 and early.unrun == 2


def test_a_failed_check_decides_without_another_run(oracle):
    contract = loop_checks_contract()
    assert len(contract.tests) == 3
    start = time.monotonic()
    early = oracle.check(contract, FAILS_ONE_LOOPS_TWO, verdict_only=True)
    assert time.monotonic() - start < 2 * TIMEOUT_S + 15  # a hang; `runs` says one run
    assert early.status == "ok" and early.runs == 1 and early.unrun == 2
    assert early.reason.startswith("test 1 'Toy/9 check[1]': assertion failed")
    full = oracle.check(contract, FAILS_ONE_LOOPS_TWO)
    assert (full.passed, full.status, full.reason) == (False, "ok", early.reason)
    assert full.unrun == 0 and len(full.tests) == 3


FAILS_ONE_EXITS_ON_TWO = (
    "import os\n\ndef f(x):\n    if x == 2:\n        os._exit(3)\n"
    "    return 0 if x == 1 else x + 1\n"
)


@pytest.mark.parametrize("contract", [calls_contract, loop_checks_contract])
def test_a_test_that_ends_the_process_after_a_failure_ends_it_both_ways(oracle, contract):
    """Observed: with checks in the checker, the early verdict (the checker stopped at check 1)
    said status "ok", every outcome said "exited" (check 2 ended the sample): the verdict
    depended on whether the tests after the deciding one ran. The first run is now the same job
    both ways."""
    full, early = both(oracle, contract(), FAILS_ONE_EXITS_ON_TWO)
    assert (full.passed, full.status, full.reason) == (early.passed, early.status, early.reason)
    assert not early.passed and early.unrun == full.unrun == 0
