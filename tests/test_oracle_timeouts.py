"""A test's outcome does not depend on the tests before it: after a run's time runs out, the test
it was on runs again first in a fresh process, and the tests after it run in a fresh process.

The oracle once marked every test after a timeout as timed out (40 tests of the CodeGen-16B
human-eval samples; 11 of them pass when run alone). Waits here are `time.sleep`, wall clock,
with a timeout of 2 s: generous margins on a loaded machine.
"""

from __future__ import annotations

import pytest

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.engine.oracle.judge import RERUN_CHUNKS, Oracle, _chunks
from skyt_tui.engine.sources.humaneval import Problem, problem_contract
from skyt_tui.engine.versions import ORACLE_VERSION

TIMEOUT_S = 2.0


def calls_contract(count=3, timeout_s=TIMEOUT_S):
    """f(x) = x + 1 on x = 1 .. count, each test a call."""
    return contract_from_dict(
        {
            "schema_version": 1,
            "id": "slow_calls",
            "title": f"{count} calls",
            "difficulty": "easy",
            "prompt": "Write f(x) returning x + 1.",
            "entry": {"name": "f"},
            "oracle": {"timeout_s": timeout_s},
            "tests": [
                {"kind": "call", "args": [x], "expected": x + 1} for x in range(1, count + 1)
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
EXITS_WHEN_RUN_AGAIN = """
import os, time
def f(x):
    if x == 1:
        time.sleep(1.0)
    if x == 2:
        time.sleep(1.2)  # with test 1 before it, past the 2 s limit; alone in time
    if x == 3:
        os._exit(0)
    while x == 4:  # (a contract of four tests)
        pass
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
    # run 1: test 1 passes at 1.2 s, test 2 is cut at 2 s; then test 2 and test 3 each in a run
    # of its own, side by side (oracle version 5; before, one run of both)
    assert verdict.pass_vector() == (True, True, True)
    assert verdict.passed and verdict.status == "ok"
    assert verdict.runs == 3
    assert verdict.oracle_version == ORACLE_VERSION == "5"


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
    # run 1: check 1 passes, check 2 loops after it; then checks 2, 3 and 4 each in a run of
    # its own, side by side; check 2 times out alone
    assert verdict.runs == 4


LOOPS_FROM_TWO = """
def f(x):
    while x >= 2:
        pass
    return x + 1
"""


def test_the_chunks_of_tests_after_a_timeout():
    assert _chunks([], 4) == []
    assert _chunks([1], 4) == [[1]]
    assert _chunks([1, 2], 4) == [[1], [2]]
    assert _chunks([1, 2, 3, 4, 5], 4) == [[1, 2], [3], [4], [5]]
    assert _chunks(list(range(10)), 4) == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    assert RERUN_CHUNKS == 4


class Recorded:
    """The pool's submissions and the reads of their results, in the order they happened."""

    def __init__(self, oracle, monkeypatch):
        self.events = []
        pool = oracle._pool
        submit = pool.submit

        def recording_submit(payload, timeout_s, *, first=False):
            future = submit(payload, timeout_s, first=first)
            tests = tuple(t["i"] for t in payload["tests"])
            self.events.append(("sent", tests))
            result = future.result

            def recording_result(timeout=None):
                self.events.append(("read", tests))
                return result(timeout)

            future.result = recording_result
            return future

        monkeypatch.setattr(pool, "submit", recording_submit)


def test_the_tests_after_a_timeout_run_side_by_side_and_split_again(monkeypatch):
    with Oracle(workers=2) as oracle:
        recorded = Recorded(oracle, monkeypatch)
        verdict = oracle.check(calls_contract(6, 1.5), LOOPS_FROM_TWO)
    # run 1: test 1 passes, test 2 loops after it. Tests 2-6 go out in four runs at once:
    # [2, 3], [4], [5], [6]; each loops on its first test, alone: timed out. Test 3, left by
    # the first, goes out again alone.
    assert verdict.pass_vector() == (True, False, False, False, False, False)
    assert [t.error_type for t in verdict.tests] == [None] + ["Timeout"] * 5
    assert verdict.status == "timeout" and verdict.runs == 6
    assert "test 2" in verdict.reason and "2 sandbox runs" in verdict.reason
    assert recorded.events == [
        ("sent", (0, 1, 2, 3, 4, 5)),
        ("read", (0, 1, 2, 3, 4, 5)),
        ("sent", (1, 2)),
        ("sent", (3,)),
        ("sent", (4,)),
        ("sent", (5,)),
        ("read", (1, 2)),
        ("sent", (2,)),
        ("read", (3,)),
        ("read", (4,)),
        ("read", (5,)),
        ("read", (2,)),
    ]


def test_where_only_the_verdict_is_read_one_run_goes_out_at_a_time(monkeypatch):
    with Oracle(workers=2) as oracle:
        recorded = Recorded(oracle, monkeypatch)
        decided = oracle.check(calls_contract(), SLOW_BUT_EACH_IN_TIME, verdict_only=True)
        every = oracle.check(calls_contract(), SLOW_BUT_EACH_IN_TIME)
    # nothing decides it before its last test: the same runs, sent one at a time
    assert recorded.events[:6] == [
        ("sent", (0, 1, 2)),
        ("read", (0, 1, 2)),
        ("sent", (1,)),
        ("read", (1,)),
        ("sent", (2,)),
        ("read", (2,)),
    ]
    assert recorded.events[6:9] == [("sent", (0, 1, 2)), ("read", (0, 1, 2)), ("sent", (1,))]
    assert ("sent", (2,)) in recorded.events[9:11]
    same = ("passed", "status", "reason", "runs", "unrun")
    assert [getattr(decided, k) for k in same] == [getattr(every, k) for k in same]
    assert decided.passed and decided.runs == 3 and decided.unrun == 0


def test_a_rerun_that_ends_otherwise_gives_the_status_when_nothing_decided_it():
    """A run after a timeout that ends otherwise than "ok" gives the verdict its status."""
    with Oracle(workers=2) as oracle:
        verdict = oracle.check(calls_contract(), EXITS_WHEN_RUN_AGAIN)
    # run 1: test 1 passes, test 2 is cut; then test 2 (passes alone) and test 3 (exits)
    assert verdict.status == "exited" and verdict.runs == 3
    assert verdict.pass_vector() == (True, True, False) and not verdict.passed
    assert "3 sandbox runs" in verdict.reason


def test_a_test_a_rerun_left_without_a_result_ran_and_is_not_unrun():
    """Run 1: test 1 passes, test 2 is cut. Then tests 2, 3 and 4 each alone: 2 passes, 3 exits
    (its run ends: no result), 4 loops alone and decides the verdict. Where only the verdict is
    read, test 3 still counts as run (it failed with no result), not as left unrun."""
    contract = calls_contract(4)
    with Oracle(workers=2) as oracle:
        every = oracle.check(contract, EXITS_WHEN_RUN_AGAIN)
        decided = oracle.check(contract, EXITS_WHEN_RUN_AGAIN, verdict_only=True)
    for verdict in (every, decided):
        assert verdict.status == "timeout" and verdict.runs == 4 and verdict.unrun == 0
        assert verdict.reason.startswith("test 4 'test 4': timeout after 2 s (4 sandbox runs")
        assert verdict.pass_vector() == (True, True, False, False)
        assert verdict.tests[2].error_message.startswith("no result")
        assert verdict.tests[3].error_type == "Timeout"

    def seen(verdict):
        return [(t.index, t.passed, t.actual, t.error_type, t.error_message) for t in verdict.tests]

    assert seen(every) == seen(decided)
    assert every.reason == decided.reason and every.passed == decided.passed
