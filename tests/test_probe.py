"""Probing (docs/probe.md): example inputs, generation within the domain, determinism, the
sandbox's limits during probing, behaviour classes and witnesses, a witness as a test."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import (
    ArgDomain,
    CheckTest,
    Contract,
    Domain,
    contract_from_dict,
    contract_to_toml_dict,
)
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.oracle.outputs import Call
from skyt_tui.engine.probe.examples import example_calls, literal_value
from skyt_tui.engine.probe.generate import generate_inputs

ROOT = Path(__file__).resolve().parents[1]

CONTRACT = {
    "schema_version": 1,
    "id": "magnitude",
    "title": "Magnitude",
    "difficulty": "easy",
    "prompt": "Write f(x) returning the absolute value of x.",
    "entry": {"kind": "function", "name": "f"},
    "oracle": {"timeout_s": 2.0},
    "reference": "def f(x):\n    return x if x >= 0 else -x\n",
    "tests": [
        {"kind": "call", "args": [-2], "expected": 2},
        {"kind": "call", "args": [3], "expected": 3},
    ],
}
RIGHT = "def f(x):\n    return abs(x)\n"
RIGHT_TOO = "def f(x):\n    if x < 0:\n        return -x\n    return x\n"
WRONG = "def f(x):\n    return 2 if x == -2 else x\n"
"""Passes both tests (f(-2) = 2, f(3) = 3) and is wrong on every other negative number."""


def contract(**changes) -> Contract:
    return contract_from_dict({**CONTRACT, **changes})


# ---- example inputs ----------------------------------------------------------------------


def test_check_body_calls_become_examples_and_computed_ones_are_skipped():
    code = (
        "import math\n"
        "def check(candidate):\n"
        "    assert candidate([1, 2.5], -3) == 1\n"
        "    assert candidate(('a', {'k': None}), x=-1.5) is None\n"
        "    assert abs(candidate([0.5], 1) - 0.25) < 1e-6\n"
        "    for i in range(3):\n"
        "        assert candidate([i], 1) == i\n"
        "    assert candidate(*[1, 2]) == 0\n"
    )
    found = example_calls(replace(contract(), tests=(CheckTest("check", code),)))
    assert found.calls == (
        Call(([1, 2.5], -3)),
        Call((("a", {"k": None}),), (("x", -1.5),)),
        Call(([0.5], 1)),
    )
    assert found.skipped == 2  # candidate([i], 1) and candidate(*[1, 2])
    assert (found.abs_tol, found.tolerance_from) == (1e-6, "check")


def test_literal_reading_is_iterative_and_bounded():
    import ast

    deep = "[" * 150 + "]" * 150  # deeper than MAX_DEPTH (50), as deep as the parser allows
    with pytest.raises(ValueError):  # NotLiteral: deeper than MAX_DEPTH, refused, no RecursionError
        literal_value(ast.parse(deep, mode="eval").body)
    assert literal_value(ast.parse("{1: (2, -3.5), 'a': {True, None}}", mode="eval").body) == {
        1: (2, -3.5),
        "a": {True, None},
    }
    with pytest.raises(ValueError):
        literal_value(ast.parse("[x for x in y]", mode="eval").body)


# ---- generation and the domain ----------------------------------------------------------


def test_generation_keeps_types_and_the_examples_shared_properties():
    base = contract()
    examples = [Call(([3, 1, 2], "abba")), Call(([5, 0], "ab"))]
    generated = generate_inputs(base, examples, max_inputs=150, seed=1)
    assert 0 < len(generated.calls) <= 150
    keys = {json.dumps([list(c.args)]) for c in generated.calls}
    assert len(keys) == len(generated.calls), "distinct inputs"
    assert not {json.dumps([list(c.args)]) for c in examples} & keys, "no example repeated"
    for call in generated.calls:
        numbers, text = call.args
        assert type(numbers) is list and all(type(n) is int for n in numbers)
        assert all(n >= 0 for n in numbers), "no example is negative, so neither is an input"
        assert type(text) is str and set(text) <= {"a", "b", "A", "B", " "}, (
            "the examples' characters, their letters in either case, and the space"
        )
        assert len(text) <= 2 * 4 + 4 and len(numbers) <= 2 * 3 + 4
    assert any(set(c.args[1]) & {"A", "B"} for c in generated.calls)
    lengths = {len(call.args[0]) for call in generated.calls}
    assert 1 in lengths and max(lengths) > 3, "shorter and longer lists than the examples"
    assert 0 not in lengths and all(call.args[1] for call in generated.calls), (
        "no example is empty, so neither is an input"
    )
    assert generated.rejected + len(generated.wide) > 0, (
        "candidates outside the domain: rejected, or kept apart in the wide tier"
    )


def test_generation_is_deterministic_for_a_seed_and_across_processes():
    base = contract()
    examples = [Call(([1.5, -2.0], "xy", {"a": 1})), Call(([0.0], "z", {"b": 2}))]
    first = generate_inputs(base, examples, max_inputs=80, seed=7)
    again = generate_inputs(base, examples, max_inputs=80, seed=7)
    other = generate_inputs(base, examples, max_inputs=80, seed=8)
    assert first == again and first.calls != other.calls
    script = (
        "import json\n"
        "from skyt_tui.engine.contracts.contract import contract_from_dict\n"
        "from skyt_tui.engine.oracle.outputs import Call\n"
        "from skyt_tui.engine.probe.generate import generate_inputs\n"
        "from skyt_tui.engine.contracts.values import literal_text\n"
        f"c = contract_from_dict({CONTRACT!r})\n"
        "ex = [Call(([1.5, -2.0], 'xy', {'a': 1})), Call(([0.0], 'z', {'b': 2}))]\n"
        "g = generate_inputs(c, ex, max_inputs=80, seed=7)\n"
        "print(json.dumps([literal_text(x.args) for x in g.calls + g.wide]))\n"
    )
    from skyt_tui.engine.contracts.values import literal_text

    texts = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"},
            check=True,
        )
        texts.append(json.loads(done.stdout))
    assert first.wide, "the wide tier too"
    assert texts[0] == texts[1] == [literal_text(x.args) for x in first.calls + first.wide]


def test_a_declared_domain_replaces_the_inferred_one():
    declared = contract(
        domain={"args": [{"type": "int", "min": -5, "max": 5}]},
    )
    calls = generate_inputs(declared, [Call((3,))], max_inputs=50, seed=0).calls
    values = {call.args[0] for call in calls}
    assert values and all(type(v) is int and -5 <= v <= 5 for v in values)
    assert any(v < 0 for v in values), "negatives allowed by the declaration, not by the examples"
    inferred = generate_inputs(contract(), [Call((3,))], max_inputs=50, seed=0).calls
    assert all(call.args[0] >= 0 for call in inferred)


def test_domain_table_round_trips_and_contracts_without_one_keep_their_hash():
    from skyt_tui.engine.contracts.catalog import get_contract

    # The content hash of the bundled factorial contract as it was before the domain field.
    assert get_contract("factorial").content_hash() == FACTORIAL_HASH_BEFORE_DOMAIN
    assert "domain" not in contract_to_toml_dict(contract())
    with_domain = contract(
        domain={
            "args": [
                {"type": "list", "max_len": 4, "sorted": True, "items": {"type": "int", "min": 0}}
            ],
            "guard": "def guard(x):\n    return True\n",
        }
    )
    assert with_domain.domain == Domain(
        args=(
            ArgDomain(type="list", max_len=4, sorted=True, items=ArgDomain(type="int", min=0.0)),
        ),
        guard="def guard(x):\n    return True\n",
    )
    back = contract_from_dict({"schema_version": 1, **contract_to_toml_dict(with_domain)})
    assert back.domain == with_domain.domain
    assert back.content_hash() == with_domain.content_hash() != contract().content_hash()


@pytest.mark.parametrize(
    ("domain", "message"),
    [
        ({"guard": "def check(x):\n    return 1\n"}, "domain.guard: must define guard(...)"),
        ({"guard": "def guard(:\n"}, "domain.guard: is not valid Python"),
        ({"args": [{"min": 3, "max": 1}]}, "domain.args[0].max: must not be below min"),
        ({"args": [{"type": "integer"}]}, "domain.args[0].type: must be one of"),
        ({"args": [{"typ": "int"}]}, "domain.args[0].typ: unknown key"),
        ({"args": 3}, "domain.args: must be an array of tables"),
    ],
)
def test_bad_domain_is_one_located_error(domain, message):
    with pytest.raises(ContractError) as refused:
        contract(domain=domain)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


FACTORIAL_HASH_BEFORE_DOMAIN = "878a8d6290cac79781f31d0881bf0491d6989b16b85ff47633c2fbc4c86bb7a9"


# ---- probing in the sandbox ---------------------------------------------------------------


@pytest.fixture(scope="module", params=["auto", "reduced"])
def oracle(request):
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.sandbox.pool import SandboxError

    try:
        with Oracle(workers=2, isolation=request.param) as the_oracle:
            yield the_oracle
    except SandboxError as exc:  # pragma: no cover - a machine without the isolation asked for
        pytest.skip(str(exc))


def probe(oracle, the_contract, codes, **settings):
    from skyt_tui.engine.probe.behaviour import ProbeSettings, probe_contracts

    passed = [v.passed for v in oracle.check_many([(the_contract, c) for c in codes])]
    return probe_contracts(
        oracle, [(the_contract, codes, passed)], ProbeSettings(max_inputs=60, **settings)
    )[0]


def test_a_sample_that_passes_but_behaves_differently_is_flagged_with_a_witness(oracle):
    found = probe(oracle, contract(), [RIGHT, WRONG, RIGHT_TOO])
    right, wrong, right_too = found.samples
    assert [s.status for s in found.samples] == ["probed"] * 3
    assert (right.differs_from_reference, right_too.differs_from_reference) == (False, False)
    assert wrong.differs_from_reference is True
    assert right.behaviour == right_too.behaviour == 1 and wrong.behaviour == 2
    assert found.classes == ((0, 2), (1,)) and found.reference_class == 1
    shown = wrong.witness.to_dict("f")
    x = json.loads(shown["args_py"])[0]
    assert x < 0 and x != -2
    assert (shown["sample"], shown["reference"]) == (str(x), str(-x))
    assert shown["call"] == f"f({x})"
    figures = found.figures()
    assert figures["plausible_but_wrong"] == 1 and figures["behaviour_classes"] == 2
    assert figures["behaviourally_unlike"] == [1]


def test_inputs_outside_the_guard_or_where_the_reference_raises_are_not_disagreements(oracle):
    guarded = contract(domain={"guard": "def guard(x):\n    return x >= 0\n"})
    found = probe(oracle, guarded, [RIGHT, WRONG])
    assert [s.differs_from_reference for s in found.samples] == [False, False]
    assert found.guard_rejected > 0
    assert found.generated + found.generated_wide - found.guard_rejected == found.counted
    raising = contract(
        reference="def f(x):\n    if x < 0 and x != -2:\n        raise ValueError(x)\n    return abs(x)\n"
    )
    found = probe(oracle, raising, [RIGHT, WRONG])
    assert [s.differs_from_reference for s in found.samples] == [False, False]
    assert 0 < found.counted < found.generated + found.generated_wide
    assert found.reference_excluded > 0


def test_without_a_reference_samples_are_compared_with_the_majority(oracle):
    found = probe(oracle, contract(reference=None), [RIGHT, WRONG, RIGHT_TOO])
    assert [s.differs_from_reference for s in found.samples] == [None, None, None]
    assert found.samples[1].witness.against == "majority"
    assert found.samples[0].witness is None and found.classes == ((0, 2), (1,))
    # the summary `analyze --probe` and `oracle --probe` print said "0 differ from the reference
    # (0.000)" of samples never compared with one
    from rich.console import Console

    from skyt_tui.cli.probe_output import print_probe
    from skyt_tui.engine.probe.report import probe_summary

    summary = probe_summary([found])
    assert (summary["plausible_but_wrong"], summary["plausible_but_wrong_share"]) == (None, None)
    with_reference = probe_summary([found, probe(oracle, contract(), [RIGHT, WRONG])])
    assert with_reference["plausible_but_wrong"] == 1
    assert with_reference["plausible_but_wrong_share"] == 0.5  # of the 2 probed against it
    console = Console(record=True, width=200)
    print_probe(console, [found], [["a.py", "b.py", "c.py"]])
    said = console.export_text()
    assert "no reference to compare with, 1 from the passing samples' majority" in said
    assert "from the reference" not in said


HANGS = "def f(x):\n    while x < -2:\n        pass\n    return abs(x)\n"
FLOODS = "def f(x):\n    if x < -2:\n        print('x' * 100000 * 40)\n    return abs(x)\n"


def test_a_probe_that_hangs_or_floods_is_that_samples_alone(oracle):
    quick = contract(oracle={"timeout_s": 1.0})
    found = probe(oracle, quick, [RIGHT, HANGS, FLOODS, RIGHT_TOO])
    right, hangs, floods, right_too = found.samples
    assert (right.differs_from_reference, right_too.differs_from_reference) == (False, False)
    assert hangs.differs_from_reference is True and hangs.run_status == "timeout"
    assert "no result (timeout" in hangs.witness.to_dict("f")["sample"]
    assert floods.differs_from_reference is True and floods.run_status == "output_limit"
    assert right.behaviour == right_too.behaviour != hangs.behaviour


def test_probing_twice_gives_identical_records(oracle):
    first = probe(oracle, contract(), [RIGHT, WRONG], seed=3)
    again = probe(oracle, contract(), [RIGHT, WRONG], seed=3)
    assert json.dumps(first.to_dict()) == json.dumps(again.to_dict())
    assert [s.to_dict("f") for s in first.samples] == [s.to_dict("f") for s in again.samples]


def test_failing_samples_and_class_entry_points_are_not_probed(oracle):
    found = probe(oracle, contract(), ["def f(x):\n    return 0\n", RIGHT])
    assert found.samples[0].status == "failed the tests" and found.samples[0].behaviour is None


def test_r_behavioral_on_probes_refines_the_tests_grouping():
    from skyt_tui.engine.probe.behaviour import r_behavioral_probe

    vectors = [(True, True)] * 3 + [(True, False)]
    assert r_behavioral_probe(vectors, [1, 1, 2, None]) == 0.5
    assert r_behavioral_probe(vectors, [1, 1, 1, None]) == 0.75
    assert r_behavioral_probe([], []) == 0.0


def test_sizes_the_examples_share_are_kept_and_small_integers_stay_above_one():
    examples = [Call(("0101", "1100", 5)), Call(("1", "0", 11)), Call(("111000", "101010", 3))]
    calls = generate_inputs(contract(), examples, max_inputs=120, seed=0).calls
    assert calls and all(
        len(a) == len(b) and a and set(a + b) <= {"0", "1"} for a, b, _ in (c.args for c in calls)
    )
    assert all(n >= 2 for *_, n in (c.args for c in calls)), "no example below 3: none below 2"
    assert max(n for *_, n in (c.args for c in calls)) > 22, "numbers go beyond twice the examples"


# ---- beyond the inferred domain: the wide tier and the samples' majority -----------------------


def list_contract(reference: str | None) -> Contract:
    return contract(
        id="largest",
        prompt="Write f(xs) returning the largest number of the list xs, or 0 when it is empty.",
        reference=reference,
        tests=[
            {"kind": "call", "args": [[3, 1, 2]], "expected": 3},
            {"kind": "call", "args": [[5, 4]], "expected": 5},
        ],
    )


LARGEST = [
    "def f(xs):\n    return max(xs, default=0)\n",
    "def f(xs):\n    return max(xs) if xs else 0\n",
    "def f(xs):\n    return sorted(xs)[-1] if xs else 0\n",
    "def f(xs):\n    if not xs:\n        return 0\n    return max(xs)\n",
]
RAISES_ON_EMPTY = "def f(xs):\n    return max(xs)\n"
"""Passes both tests and every input in the inferred domain (no example is empty)."""


def test_the_wide_tier_goes_beyond_the_inferred_domain_and_not_beyond_a_declared_one():
    from skyt_tui.engine.contracts.values import literal_text
    from skyt_tui.engine.probe.generate import WIDE_SHARE

    examples = [Call(([3, 1, 2],)), Call(([5, 4],))]
    generated = generate_inputs(list_contract(None), examples, max_inputs=100, seed=0)
    wide = [c.args[0] for c in generated.wide]
    assert 0 < len(wide) <= 100 // WIDE_SHARE
    assert not {literal_text(c.args) for c in generated.wide} & {
        literal_text(c.args) for c in generated.calls
    }, "an input is in one tier only"
    assert [] in wide and all(c.args[0] for c in generated.calls), "empty only in the wide tier"
    assert any(type(n) is int and n < 0 for xs in wide for n in xs)
    assert all(n >= 0 for c in generated.calls for n in c.args[0])
    assert generated == generate_inputs(list_contract(None), examples, max_inputs=100, seed=0)
    declared = contract(domain={"args": [{"type": "int", "min": -5, "max": 5}]})
    assert generate_inputs(declared, [Call((3,))], max_inputs=50, seed=0).wide == ()


NONE_ON_EMPTY = "def f(xs):\n    return max(xs) if xs else None\n"
"""Passes both tests and returns None on an empty list, where the reference returns 0."""


def test_beyond_the_domain_an_input_counts_where_most_samples_agree_with_the_reference(oracle):
    """An input beyond the inferred domain counts where at least 90% of the samples that reach
    it return what the reference returns; a sample that returns something else there is flagged,
    one that raises is not (probe-4: it refuses an input the examples do not vouch for, which
    says nothing of its answers)."""
    found = probe(oracle, list_contract(LARGEST[0]), [*LARGEST * 5, NONE_ON_EMPTY, RAISES_ON_EMPTY])
    *right, none, raises = found.samples
    assert all(s.differs_from_reference is False for s in right)
    assert none.differs_from_reference is True and none.behaviour == 2
    shown = none.witness.to_dict("f")
    assert shown["call"] == "f([])" and shown["sample"] == "None" and shown["reference"] == "0"
    assert raises.differs_from_reference is False and raises.witness is None
    assert raises.behaviour == right[0].behaviour
    assert found.counted_wide > 0 and found.counted == found.to_dict()["counted"]
    split = probe(oracle, list_contract(LARGEST[0]), [*LARGEST * 2, NONE_ON_EMPTY])
    assert [s.differs_from_reference for s in split.samples] == [False] * 9, (
        "8 of 9 samples (89%) return 0 on []: the input is not counted, no one is flagged"
    )


HANGS_ON_NEGATIVES = (
    "def f(xs):\n    while min(xs, default=0) < 0:\n        pass\n    return max(xs, default=0)\n"
)
NONE_ON_NEGATIVES = (
    "def f(xs):\n    return max(xs, default=0) if all(x >= 0 for x in xs) else None\n"
)


def test_where_the_reference_hangs_samples_are_compared_with_their_majority(oracle):
    found = probe(oracle, list_contract(HANGS_ON_NEGATIVES), [*LARGEST * 3, NONE_ON_NEGATIVES])
    assert 0 < found.reference_hung and found.counted_majority > 0
    *right, odd = found.samples
    assert all(s.differs_from_majority is False and not s.differs_from_reference for s in right)
    assert odd.differs_from_majority is True and odd.differs_from_reference is False
    shown = odd.witness.to_dict("f")
    assert shown["against"] == "majority" and shown["sample"] == "None"
    assert any(n < 0 for n in json.loads(shown["args_py"])[0])


SLOW_S = 0.05
SLOW = f"import time\n\ndef f(x):\n    if abs(x) <= 30:\n        time.sleep({SLOW_S})\n    return abs(x)\n"
"""Right on every input, but too slow to answer all of the domain's (|x| <= 30, the contract's
own examples widened) within one timeout; instant beyond it, where a run has a quarter of the
timeout and a sample's "no result" is no difference (so a slow sample there says nothing about
reruns, and made this test depend on how many of its inputs fit in 0.5 s)."""


def test_a_sample_that_runs_out_of_time_is_run_again_from_where_it_stopped(oracle):
    found = probe(oracle, contract(), [RIGHT, SLOW])
    domain = [call for call in found.inputs if abs(call.args[0]) <= 30]
    assert SLOW_S * len(domain) > 2.0 + 0.3, "more of the domain's inputs than one timeout allows"
    right, slow = found.samples
    assert slow.run_status == "ok" and slow.differs_from_reference is False
    assert slow.behaviour == right.behaviour and slow.witness is None


HANGS_ON_NEGATIVES_WRONG_AT_3 = (
    "def f(x):\n    while x < 0:\n        pass\n    return x + (x == 3)\n"
)


def test_inputs_after_a_hang_are_run_not_reported_as_no_result(oracle):
    """probe-3: after a sample hangs on an input (in a run of its own) whose counting the
    majority decides, it is run again from the next input, up to SAMPLE_RESTARTS times, so
    what it returns after the hang is known; inputs it never reaches are NOT_RUN and never
    compared. Before, every input after the hang was "no result" and, where the hanging input
    itself was not counted (most samples hang there), an input the sample answers at once became
    its witness (HumanEval/13, line 1307 of the CodeGen-16B samples:
    `greatest_common_divisor(0, 15)`)."""
    from skyt_tui.engine.oracle.outputs import MISSING, RETURNED
    from skyt_tui.engine.probe.behaviour import (
        MODAL,
        NOT_RUN,
        SAMPLE_RESTARTS,
        _run_samples,
        _same,
        _Work,
    )

    quick = contract(oracle={"timeout_s": 1.0})
    calls = tuple(Call((x,)) for x in (1, -5, 2, 3, -6, 4))
    work = _Work(quick, [HANGS_ON_NEGATIVES_WRONG_AT_3], [True], calls=calls)
    work.kinds = (MODAL,) * len(calls)
    outputs = [{}]
    _run_samples(oracle, [work], outputs)
    status, _, outs = outputs[0][0]
    assert SAMPLE_RESTARTS == 2
    # run 1 answers 1 and hangs on -5; run 2 from -5 hangs there at once; run 3 from 2 answers 2
    # and 3, then hangs on -6 with the time left; run 4 from -6 hangs there at once; no run is
    # left for 4
    assert [(o.status, o.value) for o in outs] == [
        (RETURNED, 1),
        (MISSING, None),
        (RETURNED, 2),
        (RETURNED, 4),
        (MISSING, None),
        (NOT_RUN, None),
    ]
    assert status == "timeout"
    reference = tuple(
        next(iter(oracle.calls_iter([(quick, quick.reference or "", calls)]))).outputs
    )
    # the hanging inputs not counted (as where most samples hang): the witness is the wrong
    # answer at 3, not an input after the hang; an input never reached is not compared
    assert _same(outs, reference, [0, 2, 3, 5], None, None) == 3
    assert _same(outs, reference, [0, 2, 5], None, None) is None
    assert _same(outs, reference, [0, 1], None, None) == 1  # the hang itself, where counted


def test_a_sample_hanging_where_the_reference_answered_is_not_run_past_it(oracle):
    """probe-4: a sample that hangs again, in a run of its own, on an input in the domain the
    reference answered differs from the reference there whatever it does after: it is not run
    again past it (two runs, not four), its later inputs are NOT_RUN, and its witness is that
    input. The open inputs (beyond the domain, or where the reference gave no result) run apart
    with a quarter of the timeout, past a hang at once, and there "no result" is no difference."""
    from skyt_tui.engine.oracle.outputs import MISSING, RETURNED
    from skyt_tui.engine.probe.behaviour import (
        MAJORITY,
        NOT_RUN,
        REFERENCE,
        SLOWDOWN,
        _run_samples,
        _same,
        _Work,
    )

    quick = contract(oracle={"timeout_s": 1.0})
    runs = []

    class Counting:
        def calls_iter(self, jobs):
            runs.extend((len(calls), c.oracle.timeout_s) for c, _, calls in jobs)
            return oracle.calls_iter(jobs)

    calls = tuple(Call((x,)) for x in (1, -5, 2, 3))
    work = _Work(quick, [HANGS_ON_NEGATIVES_WRONG_AT_3], [True], calls=calls)
    work.kinds = (REFERENCE,) * 4
    outputs = [{}]
    _run_samples(Counting(), [work], outputs)
    assert runs == [(4, 1.0), (3, 1.0)], "the run, and the one again from the hang: no more"
    outs = outputs[0][0][2]
    assert [o.status for o in outs] == [RETURNED, MISSING, NOT_RUN, NOT_RUN]

    runs.clear()
    calls = tuple(Call((x,)) for x in (1, 2, -5, 3))
    work = _Work(quick, [HANGS_ON_NEGATIVES_WRONG_AT_3], [True], calls=calls)
    work.kinds = (REFERENCE, REFERENCE, MAJORITY, MAJORITY)
    outputs = [{}]
    _run_samples(Counting(), [work], outputs)
    assert sorted(runs) == sorted([(2, 1.0), (2, 1.0 / SLOWDOWN), (1, 1.0 / SLOWDOWN)])
    outs = outputs[0][0][2]
    assert [(o.status, o.value) for o in outs] == [
        (RETURNED, 1),
        (RETURNED, 2),
        (MISSING, None),
        (RETURNED, 4),
    ]
    majority = tuple(outs[:2]) + (outs[3], outs[3])
    assert _same(outs, majority, [0, 1, 2, 3], None, None, open_from=2) is None, (
        "no result on an open input is no difference"
    )
    assert _same(outs, majority, [0, 1, 2, 3], None, None) == 2
