"""A test's outcome does not depend on the tests before it: after a run's time runs out, the test
it was on runs again first in a fresh process, and the tests after it run in a fresh process.

The oracle once marked every test after a timeout as timed out (40 tests of the CodeGen-16B
human-eval samples; 11 of them pass when run alone). Waits here are `time.sleep`, wall clock,
with a timeout of 2 s: generous margins on a loaded machine.
"""

from __future__ import annotations

import pytest

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sources.humaneval import Problem, problem_contract
from skyt_tui.engine.versions import ORACLE_VERSION

TIMEOUT_S = 2.0


def calls_contract():
    return contract_from_dict(
        {
            "schema_version": 1,
            "id": "slow_calls",
            "title": "three calls",
            "difficulty": "easy",
            "prompt": "Write f(x) returning x + 1.",
            "entry": {"name": "f"},
            "oracle": {"timeout_s": TIMEOUT_S},
            "tests": [
                {"kind": "call", "args": [1], "expected": 2},
                {"kind": "call", "args": [2], "expected": 3},
                {"kind": "call", "args": [3], "expected": 4},
            ],
        }
    )


SLOW_BUT_EACH_IN_TIME = """
import time
def f(x):
    if x in (1, 2):
        time.sleep(1.2)  # each alone in time (2 s), the two together not
    return x + 1
"""
LOOPS_ON_TWO = """
def f(x):
    while x == 2:
        pass
    return x + 1
"""


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as oracle:
        yield oracle


def test_a_test_that_passes_alone_is_not_timed_out_by_the_test_before_it(oracle):
    verdict = oracle.check(calls_contract(), SLOW_BUT_EACH_IN_TIME)
    # run 1: test 1 passes at 1.2 s, test 2 is cut at 2 s; run 2: test 2 first, then test 3
    assert verdict.pass_vector() == (True, True, True)
    assert verdict.passed and verdict.status == "ok"
    assert verdict.runs == 2
    assert verdict.oracle_version == ORACLE_VERSION == "4"


def test_the_tests_after_a_timeout_run_in_a_fresh_process(oracle):
    verdict = oracle.check(calls_contract(), LOOPS_ON_TWO)
    # run 1: test 1 passes, test 2 loops; run 2: test 2 alone, loops: timed out on its own;
    # run 3: test 3 passes
    assert verdict.pass_vector() == (True, False, True)
    assert [t.error_type for t in verdict.tests] == [None, "Timeout", None]
    assert not verdict.passed and verdict.status == "timeout"
    assert verdict.runs == 3
    # the timeout of test 2 decided the verdict after 2 runs (oracle version 4: a reason counts
    # the runs until then, the same with or without every outcome); test 3 took a third
    assert "test 2" in verdict.reason and "2 sandbox runs" in verdict.reason
    assert verdict.duration_s >= 2 * TIMEOUT_S


def test_a_program_that_never_loads_in_time_is_one_run(oracle):
    verdict = oracle.check(calls_contract(), "while True:\n    pass\n\ndef f(x):\n    return x\n")
    assert verdict.status == "timeout" and verdict.runs == 1
    assert [t.error_type for t in verdict.tests] == ["Timeout"] * 3


def test_checks_after_a_timed_out_check_run_in_a_fresh_process(oracle):
    problem = Problem(
        task_id="Toy/1",
        prompt="def f(x):\n",
        entry_point="f",
        canonical_solution="    return x + 1\n",
        test=(
            "def check(candidate):\n"
            "    assert candidate(1) == 2\n"
            "    assert candidate(2) == 3\n"
            "    assert candidate(3) == 4\n"
            "    assert candidate(4) == 5\n"
        ),
    )
    contract = problem_contract(problem, TIMEOUT_S)
    verdict = oracle.check(contract, LOOPS_ON_TWO)
    assert verdict.pass_vector() == (True, False, True, True)
    assert verdict.tests[1].error_type == "Timeout"
    assert verdict.runs == 3
