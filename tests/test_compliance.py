"""Coding-standard contracts (issue 24, observation 2): MISRA C and Power of 10 rules read on the
syntax tree, code patterns matched with formatting, comments and docstrings set aside, one
compliance record per sample, separate from its verdict."""

from __future__ import annotations

import json
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.coding_rules import CODING_RULES, pattern_tokens, skyt_rule_id
from skyt_tui.engine.contracts.contract import (
    CallTest,
    Constraints,
    Contract,
    Entry,
    contract_from_dict,
    contract_to_toml_dict,
    load_contract,
)
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.oracle.compliance import check_compliance
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.rule_checks import RULE_CHECKS

ROOT = Path(__file__).resolve().parents[1]
STRICT = ROOT / "tests" / "fixtures" / "strict"


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as instance:
        yield instance


def contract(*rules: str, required: tuple[str, ...] = (), forbidden: tuple[str, ...] = ()):
    return Contract(
        id="c",
        version=1,
        title="c",
        prompt="p",
        difficulty="easy",
        entry=Entry("function", "f"),
        tests=(CallTest("t", (1,), {}, 1),),
        constraints=Constraints(
            coding_rules=rules, required_patterns=required, forbidden_patterns=forbidden
        ),
    )


def broken(code: str, *rules: str, **patterns) -> list[tuple[str, int | None]]:
    record = check_compliance(contract(*rules, **patterns), textwrap.dedent(code))
    assert record is not None
    assert record.compliant == (not record.violations)
    return [(v.rule, v.line) for v in record.violations]


def test_every_rule_id_has_a_check_and_skyts_names_map_to_them():
    assert set(RULE_CHECKS) == set(CODING_RULES)
    assert skyt_rule_id("rule_15_4") == "MISRA-15.4" and skyt_rule_id("p10_1") == "P10-1"
    assert skyt_rule_id("rule_8_7") == "MISRA-8.7" and skyt_rule_id("goto") is None


def test_a_contract_without_rules_has_no_compliance_record():
    assert check_compliance(contract(), "def f(x):\n    return x\n") is None


class TestRules:
    def test_misra_15_4_no_continue_one_break_per_loop(self):
        code = """
        def f(xs):
            for x in xs:
                if x:
                    break
            while xs:
                if xs[0]:
                    break
                if xs[-1]:
                    break
                xs.pop()
            for x in xs:
                continue
        """
        assert broken(code, "MISRA-15.4") == [("MISRA-15.4", 10)]
        record = check_compliance(contract("MISRA-15.4"), textwrap.dedent(code))
        assert record.violations[0].message == (
            "the loop at line 6 has 2 breaks (8, 10); continue at line 13"
        )
        # one break in each of two nested loops is one per loop
        nested = (
            "def f(a):\n    for x in a:\n        for y in x:\n            break\n        break\n"
        )
        assert broken(nested, "MISRA-15.4") == []

    def test_misra_15_5_one_return_at_the_end(self):
        assert broken("def f(x):\n    y = x\n    return y\n", "MISRA-15.5") == []
        assert broken("def f(x):\n    if x:\n        return 1\n    return 2\n", "MISRA-15.5") == [
            ("MISRA-15.5", 4)
        ]
        assert broken("def f(x):\n    for y in x:\n        return y\n", "MISRA-15.5") == [
            ("MISRA-15.5", 3)
        ]
        # a nested function's return is its own
        inner = "def f(x):\n    def g():\n        return 1\n    y = g()\n    return y\n"
        assert broken(inner, "MISRA-15.5") == []

    @pytest.mark.parametrize("rule", ["MISRA-17.2", "P10-1"])
    def test_no_recursion_direct_mutual_or_through_self(self, rule):
        assert broken("def f(n):\n    return f(n - 1)\n", rule) == [(rule, 2)]
        mutual = "def f(n):\n    return g(n)\n\n\ndef g(n):\n    return f(n)\n"
        assert broken(mutual, rule) == [(rule, 2)]
        method = "class C:\n    def m(self):\n        return self.m()\n"
        assert broken(method, rule) == [(rule, 3)]
        # a call of another object's method of the same name is not recursion
        other = "class C:\n    def get(self, d):\n        return d.get(1)\n"
        assert broken(other, rule) == []

    def test_misra_14_2_loop_counter_not_assigned(self):
        assert broken("for i in range(3):\n    j = i + 1\n", "MISRA-14.2") == []
        assert broken("for i in range(3):\n    i += 1\n", "MISRA-14.2") == [("MISRA-14.2", 2)]
        nested = "for i, j in x:\n    for j in y:\n        pass\n"
        assert broken(nested, "MISRA-14.2") == [("MISRA-14.2", 2)]
        # a comprehension's own variable is another scope
        assert broken("for i in x:\n    y = [i for i in x]\n", "MISRA-14.2") == []

    def test_misra_12_1_explicit_precedence(self):
        assert broken("m = a + (b * c)\n", "MISRA-12.1") == []
        assert broken("m = a + b * c\n", "MISRA-12.1") == [("MISRA-12.1", 1)]
        assert broken("m = a + b - c\n", "MISRA-12.1") == []  # one precedence
        assert broken("ok = (n % i) == 0\n", "MISRA-12.1") == []
        assert broken("ok = n % i == 0\n", "MISRA-12.1") == [("MISRA-12.1", 1)]
        assert broken("ok = a or b and c\n", "MISRA-12.1") == [("MISRA-12.1", 1)]
        assert broken("ok = not a == b\n", "MISRA-12.1") == [("MISRA-12.1", 1)]
        assert broken("ok = not a and b\n", "MISRA-12.1") == []  # `not` as an operand is unary
        assert broken("m = x if a == b else y\n", "MISRA-12.1") == [("MISRA-12.1", 1)]
        # parentheses in the source count even spread over lines, with a comment inside
        assert broken("m = a + (  # why\n    b * c\n)\n", "MISRA-12.1") == []
        record = check_compliance(contract("MISRA-12.1"), "mid = left + (right - left) // 2\n")
        assert record.violations[0].message == (
            "line 1: `(right - left) // 2` as an operand of + needs parentheses"
        )

    def test_p10_2_bounded_loops(self):
        assert broken("while left <= right:\n    left += 1\n", "P10-2") == []
        assert broken("while stack:\n    stack.pop()\n", "P10-2") == []
        assert broken("while True:\n    break\n", "P10-2") == [("P10-2", 1)]
        assert broken("while x > 0:\n    y = 1\n", "P10-2") == [("P10-2", 1)]
        endless = "import itertools\nfor i in itertools.count():\n    break\n"
        assert broken(endless, "P10-2") == [("P10-2", 2)]
        assert (
            broken("from itertools import repeat\nfor x in repeat(1, 3):\n    pass\n", "P10-2")
            == []
        )

    def test_p10_4_at_most_60_lines_formatting_aside(self):
        body = "".join(f"    x{i} = {i}\n" for i in range(59))
        assert broken(f"def f():\n{body}", "P10-4") == []  # 60 lines
        assert broken(f"def f():\n{body}    return 1\n", "P10-4") == [("P10-4", 1)]
        # a docstring, comments, blank lines and a call spread over lines do not count
        spread = (
            'def f():\n    """Doc."""\n    # note\n\n' + body + "    y = g(\n        1,\n    )\n"
        )
        assert broken(spread, "P10-4") == [("P10-4", 1)]
        assert broken(spread.replace("    y = g(\n        1,\n    )\n", ""), "P10-4") == []

    def test_p10_6_smallest_scope(self):
        assert broken("def f(x):\n    y = x\n    return y\n", "P10-6") == []
        early = "def f(a):\n    for i in a:\n        m = i\n        if m:\n            return m\n    return -1\n"
        assert broken(early, "P10-6") == []
        late = "def f(a):\n    for i in a:\n        m = i\n    return m\n"
        assert broken(late, "P10-6") == [("P10-6", 4)]
        assert broken("def f():\n    global G\n    G = 1\n", "P10-6") == [("P10-6", 2)]

    def test_p10_7_parameters_tested_and_results_used(self):
        assert broken("def f(n):\n    if n < 0:\n        n = 0\n    return n\n", "P10-7") == []
        assert broken("def f(n):\n    return n + 1\n", "P10-7") == [("P10-7", 1)]
        method = "class C:\n    def get(self, key):\n        return key in self.d or None\n"
        assert broken(method, "P10-7") == [("P10-7", 2)]  # self is not a parameter to check
        discarded = "def g(n):\n    assert n\n    return n\n\n\ndef f(n):\n    assert n\n    g(n)\n"
        assert broken(discarded, "P10-7") == [("P10-7", 8)]

    @pytest.mark.parametrize("rule", ["MISRA-21.3", "P10-3"])
    def test_no_collections(self, rule):
        assert broken("from collections import OrderedDict\n", rule) == [(rule, 1)]
        assert broken("import collections.abc\n", rule) == [(rule, 1)]
        assert broken("import heapq\n", rule) == []


class TestPatterns:
    def test_formatting_comments_and_docstrings_do_not_decide(self):
        code = '''
        def f(left, right):
            """Continue until done; the low end first."""
            while (left <= right):  # continue, low, high
                left = left + 1
            return left
        '''
        found = broken(
            code, required=("while left <= right",), forbidden=("continue", "low", "high")
        )
        assert found == []
        assert broken(code, required=("while left < right",)) == [("required-pattern", None)]

    def test_a_pattern_is_whole_tokens(self):
        assert broken("lowest = 1\n", forbidden=("low",)) == []
        assert broken("low = 1\nx = low\n", forbidden=("low",)) == [("forbidden-pattern", 1)]
        assert broken("s = 'while'\n", forbidden=("while",)) == []

    def test_redundant_parentheses_in_a_pattern_or_the_code_do_not_decide(self):
        assert pattern_tokens("left + ((right - left) // 2)") == pattern_tokens(
            "left + (right - left) // 2"
        )
        required = ("left + ((right - left) // 2)",)
        assert broken("m = left + (right - left) // 2\n", required=required) == []
        assert broken("m = left + ((right - left) // 2)\n", required=required) == []
        assert broken("m = (left + right) // 2\n", required=required) == [
            ("required-pattern", None)
        ]

    def test_the_line_of_a_forbidden_pattern_is_the_programs(self):
        code = 'def f(xs):\n    """Doc\n    string."""\n    for x in xs:\n        continue\n'
        record = check_compliance(contract(forbidden=("continue",)), code)
        (violation,) = record.violations
        assert (violation.line, violation.pattern, violation.message) == (
            5,
            "continue",
            "contains continue at line 5",
        )

    def test_an_unfinished_fragment_is_matched_as_written(self):
        assert pattern_tokens("[x for x") == ("[", "x", "for", "x")
        assert broken("y = [x for x in z]\n", forbidden=("[x for x",)) == [("forbidden-pattern", 1)]


def test_a_program_that_does_not_parse_is_not_compliant():
    record = check_compliance(contract("P10-1"), "def f(:\n")
    assert not record.compliant and record.violations[0].rule == "parse"


def test_hostile_programs_are_read_without_recursion_and_in_bounded_time():
    chain = "".join(f"def f{i}():\n    return f{i + 1}()\n" for i in range(3000))
    chain += "def f3000():\n    return f0()\n"
    nested = "x = " + "(" * 90 + "1" + " + 1)" * 90 + "\n"
    long_sum = "x = " + " + ".join(["a * b"] * 5000) + "\n"
    started = time.perf_counter()
    record = check_compliance(contract(*CODING_RULES, forbidden=("low",)), chain)
    assert not record.compliant
    assert {"MISRA-17.2", "P10-1"} <= {v.rule for v in record.violations}
    for code in (nested, long_sum):
        record = check_compliance(contract(*CODING_RULES, required=("x",)), code)
        assert record is not None
    assert time.perf_counter() - started < 60


class TestContractFormat:
    DOC = {
        "id": "c",
        "prompt": "p",
        "difficulty": "easy",
        "entry": {"name": "f"},
        "tests": [{"kind": "call", "args": [1], "expected": 1}],
    }

    def test_rules_and_patterns_round_trip_and_are_absent_when_empty(self):
        doc = {
            **self.DOC,
            "constraints": {
                "coding_rules": ["MISRA-15.4", "P10-2"],
                "required_patterns": ["while a <= b"],
                "forbidden_patterns": ["continue"],
            },
        }
        loaded = contract_from_dict(doc)
        assert loaded.constraints.coding_rules == ("MISRA-15.4", "P10-2")
        assert contract_from_dict(contract_to_toml_dict(loaded)) == loaded
        plain = contract_to_toml_dict(contract_from_dict(self.DOC))
        assert not {"coding_rules", "required_patterns", "forbidden_patterns"} & set(
            plain["constraints"]
        )  # so a contract without them keeps its content hash

    @pytest.mark.parametrize(
        "constraints, message",
        [
            (
                {"coding_rules": ["MISRA-15.44"]},
                "constraints.coding_rules: unknown rule 'MISRA-15.44'",
            ),
            ({"coding_rules": ["P10-1", "P10-1"]}, "names a rule twice"),
            ({"required_patterns": ["# only a comment"]}, "holds no code to match"),
            ({"forbidden_patterns": ["x" * 501]}, "at most 500 characters"),
            ({"forbidden_patterns": [3]}, "must be a list of strings"),
        ],
    )
    def test_bad_rules_are_one_line_errors_naming_the_key(self, constraints, message):
        with pytest.raises(ContractError, match=message.replace("(", r"\(").replace(")", r"\)")):
            contract_from_dict({**self.DOC, "constraints": constraints}, "my.toml")


def fixture_samples():
    contracts = {p.stem: load_contract(p) for p in sorted(STRICT.glob("*.toml"))}
    lines = (STRICT / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return contracts, [json.loads(line) for line in lines]


def test_the_projects_strict_samples_break_the_rules_they_are_written_to_break():
    contracts, samples = fixture_samples()
    for sample in samples:
        record = check_compliance(contracts[sample["contract_id"]], sample["code"])
        assert sorted(v.key for v in record.violations) == sorted(sample["expect"]), sample["note"]
    compliant = {name: [] for name in contracts}
    for sample in samples:
        compliant[sample["contract_id"]].append(not sample["expect"])
    assert {name: (sum(v), len(v)) for name, v in compliant.items()} == {
        "binary_search_strict": (3, 10),
        "is_prime_strict": (2, 9),
    }


def test_compliance_is_recorded_beside_the_verdict_never_deciding_it(oracle):
    contracts, samples = fixture_samples()
    strict = contracts["binary_search_strict"]
    codes = [s["code"] for s in samples if s["contract_id"] == strict.id]
    verdicts = oracle.check_many([(strict, code) for code in codes])
    assert all(v.passed and v.passed_all for v in verdicts)  # every sample is correct …
    assert [v.compliance.compliant for v in verdicts] == [True] * 3 + [
        False
    ] * 7  # … not all comply
    assert verdicts[3].to_dict()["compliance"] == {
        "compliant": False,
        "violations": [
            {
                "rule": "MISRA-12.1",
                "line": 5,
                "message": "line 5: `(right - left) // 2` as an operand of + needs parentheses",
            }
        ],
    }
    plain = replace(strict, constraints=Constraints(fixed_names=strict.constraints.fixed_names))
    assert oracle.check(plain, codes[3]).compliance is None
    syntax = oracle.check(strict, "def binary_search(arr, target)\n")
    assert syntax.compliance is not None and syntax.compliance.violations[0].rule == "parse"


def _run(contract_: Contract, codes: list[str]):
    from skyt_tui.engine.sources.recorded import RunInput

    return RunInput(
        id="strict-run",
        contract_id=contract_.id,
        model="hand-written",
        temperature=0.0,
        codes=tuple(codes),
        kept_names=frozenset(),
        source="test",
        source_format="jsonl",
        extra={"contract": contract_},
    )


def test_the_canon_is_the_first_sample_that_passes_and_complies(oracle):
    """SKYT's rule for its strict contracts; without a compliant sample, the first passing one."""
    from skyt_tui.engine.analysis.pipeline import analyze_runs

    contracts, samples = fixture_samples()
    strict = contracts["binary_search_strict"]
    codes = [s["code"] for s in samples if s["contract_id"] == strict.id]
    reordered = codes[3:] + codes[:3]  # seven non-compliant samples, then three compliant ones
    (analysis,) = analyze_runs([_run(strict, reordered)], oracle=oracle, repair_samples=False)
    assert analysis.canon.sample_index == 7
    assert analysis.metrics.compliance_rate == pytest.approx(0.3)
    assert analysis.metrics.pass_rate == analysis.metrics.pass_all_rate == 1.0
    (none_comply,) = analyze_runs([_run(strict, codes[3:])], oracle=oracle, repair_samples=False)
    assert none_comply.canon.sample_index == 0 and none_comply.metrics.compliance_rate == 0.0
    plain = replace(strict, constraints=Constraints(fixed_names=strict.constraints.fixed_names))
    (no_rules,) = analyze_runs([_run(plain, reordered)], oracle=oracle, repair_samples=False)
    assert no_rules.canon.sample_index == 0 and no_rules.metrics.compliance_rate is None


def test_repair_never_makes_a_compliant_sample_break_a_rule(oracle, isolated_home):
    """The canon (established from an earlier run) writes `(left + right) // 2`, which the
    contract forbids; the midpoint transformer would bring the compliant sample to it, and is
    refused, while the same repair without the rules takes that step."""
    from skyt_tui.engine.analysis.canon import Provenance
    from skyt_tui.engine.analysis.pipeline import analyze_runs

    contracts, samples = fixture_samples()
    strict = contracts["binary_search_strict"]
    by_note = {s["note"]: s["code"] for s in samples if s["contract_id"] == strict.id}
    canon_code = by_note["the overflow-prone midpoint"]
    compliant = by_note["compliant"].replace(
        '    """Index of target in the sorted list arr, or -1."""\n', ""
    )
    assert check_compliance(strict, compliant).compliant

    def earlier_run(_contract):
        return canon_code, Provenance(run_id="earlier", sample_index=0)

    (analysis,) = analyze_runs(
        [_run(strict, [compliant])],
        oracle=oracle,
        canon_mode="store",
        store_canon_provider=earlier_run,
        repair_workers=1,
    )
    (detail,) = analysis.details
    assert analysis.canon.code.strip() == canon_code.strip()
    assert "midpoint" not in [step.transformer for step in detail.repair.steps]
    assert check_compliance(strict, detail.repair.code).compliant
    assert detail.verdict_after is None or detail.verdict_after.compliance.compliant
    assert analysis.samples[0].d_post > 0

    plain = replace(
        strict, id="plain", constraints=Constraints(fixed_names=strict.constraints.fixed_names)
    )
    (unruled,) = analyze_runs(
        [_run(plain, [compliant])],
        oracle=oracle,
        canon_mode="store",
        store_canon_provider=earlier_run,
        repair_workers=1,
    )
    assert "midpoint" in [step.transformer for step in unruled.details[0].repair.steps]
    assert unruled.samples[0].d_post == 0.0


def test_a_skyt_template_brings_its_rules_patterns_and_what_is_not_checked():
    from skyt_tui.engine.contracts.describe import describe_compliance
    from skyt_tui.engine.sources.importers import skyt_template_to_contract

    template = {
        "id": "binary_search_strict",
        "prompt": "Write binary_search(arr, target).",
        "constraints": {
            "function_name": "binary_search",
            "misra_c_rules": {"rule_15_4": "No continue", "rule_8_7": "Encapsulate data"},
            "nasa_power_of_10": {"p10_1": "No recursion", "p10_9": "Safe arithmetic"},
            "required_patterns": ["while left <= right"],
            "forbidden_patterns": ["continue"],
        },
        "oracle_requirements": {"test_cases": [{"input": [[1], 1], "expected": 0}]},
    }
    contract = skyt_template_to_contract(template, key="binary_search_strict")
    c = contract.constraints
    assert c.coding_rules == ("MISRA-15.4", "P10-1")
    assert (c.required_patterns, c.forbidden_patterns) == (("while left <= right",), ("continue",))
    assert contract.source["unchecked_rules"] == ["MISRA-8.7", "P10-9"]
    assert contract.source["rule_texts"]["MISRA-15.4"] == "No continue"
    assert contract_from_dict(contract_to_toml_dict(contract)) == contract
    assert ("not checked", "MISRA-8.7 (Encapsulate data); P10-9 (Safe arithmetic)") in (
        describe_compliance(contract)
    )


@pytest.mark.corpus
def test_skyts_strict_templates_import_with_their_rules():
    from skyt_tui.engine.sources.importers import import_skyt_templates
    from tests.corpus import require

    contracts = {
        c.id: c for c in import_skyt_templates(require("skyt-msr2026", "templates-strict.json"))
    }
    search = contracts["binary_search_strict"]
    assert search.constraints.coding_rules == (
        "MISRA-15.4", "MISRA-17.2", "MISRA-12.1", "P10-1", "P10-2", "P10-4", "P10-6", "P10-7",
    )  # fmt: skip
    assert search.constraints.required_patterns == (
        "left + (right - left) // 2",
        "while left <= right",
    )
    assert search.source["unchecked_rules"] == ["P10-9"]
    assert contracts["lru_cache_strict"].source["unchecked_rules"] == ["MISRA-8.7", "MISRA-8.9"]
    assert not contracts["quick_sort"].constraints.has_compliance_rules
    assert {c.oracle.pass_threshold for c in contracts.values()} == {0.8}


@pytest.mark.parametrize(
    "constraints, message",
    [
        (
            {"misra_c_rules": ["rule_15_4"]},
            r"t\.json: binary_search_strict\.constraints\.misra_c_rules: must be an object",
        ),
        (
            {"required_patterns": ["x", 3]},
            r"constraints\.required_patterns: must be a list of code fragments",
        ),
        (
            {"forbidden_patterns": "continue"},
            r"constraints\.forbidden_patterns: has the wrong type",
        ),
    ],
)
def test_a_bad_skyt_rule_is_one_error_naming_file_and_field(constraints, message):
    from skyt_tui.engine.errors import InputError
    from skyt_tui.engine.sources.importers import skyt_template_to_contract

    template = {
        "id": "binary_search_strict",
        "prompt": "p",
        "constraints": {"function_name": "binary_search", **constraints},
        "oracle_requirements": {"test_cases": [{"input": [[1], 1], "expected": 0}]},
    }
    with pytest.raises(InputError, match=message):
        skyt_template_to_contract(template, key="binary_search_strict", file="t.json")
