"""The contract loader: every test kind parses, files round-trip, bad files give one located line."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skyt_tui.engine.contracts import catalog
from skyt_tui.engine.contracts.contract import (
    UNCHECKED,
    CallTest,
    CheckTest,
    Contract,
    Entry,
    RaisesTest,
    StatefulTest,
    contract_from_dict,
    load_contract,
    write_contract,
)
from skyt_tui.engine.contracts.values import same_value
from skyt_tui.engine.errors import ContractError

FUNCTION_CONTRACT = '''
id = "demo"
title = "Demo"
difficulty = "medium"
prompt = "Write f(x)."
reference = """
def f(x, scale=1):
    if x < 0:
        raise ValueError(x)
    return x * scale
"""

[entry]
name = "f"

[constraints]
fixed_names = ["x"]
style = "iterative"
forbidden_calls = ["sorted", "list.sort"]
forbidden_imports = ["bisect"]
forbidden_nodes = ["Lambda"]

[oracle]
pass_threshold = 0.5
timeout_s = 2.0

[out_of_domain]
policy = "must_raise"
raises = "ValueError"
inputs = [{ args = [-1] }, { kwargs = { x = -2 } }]

[rescue]
max_transformations = 3
transformers = ["rename_locals"]

[[tests]]
kind = "call"
name = "plain"
args = [2]
kwargs = { scale = 3 }
expected = 6

[[tests]]
kind = "call"
name = "tolerance"
args = [0.1]
expected = 0.1
rel_tol = 1e-9
abs_tol = 1e-12

[[tests]]
kind = "call"
name = "python literals"
args_py = "[(1, 2)]"
expected_py = "{1, 2}"

[[tests]]
kind = "raises"
args = [-5]
raises = "ValueError"

[[tests]]
kind = "check"
code = """
def check(candidate):
    assert candidate(4) == 4
"""
'''

CLASS_CONTRACT = '''
id = "counter"
difficulty = "hard"
prompt = "Write class Counter."

[entry]
kind = "class"
name = "Counter"

[[tests]]
kind = "stateful"
name = "steps"
init = { args = [10], kwargs = { step = 2 } }
steps = [
    { call = "bump", expected_py = "None" },
    { call = "bump" },
    { call = "value", expected = 14 },
    { call = "ratio", expected = 1.4, rel_tol = 1e-6 },
    { call = "reset", args = [0], kwargs = { hard = true }, raises = "RuntimeError" },
]

[[tests]]
kind = "check"
code = """
def check(candidate):
    assert candidate(0).value() == 0
"""
'''


def write(tmp_path: Path, text: str, name: str = "c.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_function_contract_parses_every_function_test_kind(tmp_path):
    contract = load_contract(write(tmp_path, FUNCTION_CONTRACT))
    assert contract.entry == Entry("function", "f")
    assert contract.difficulty == "medium"
    assert contract.constraints.forbidden_calls == ("sorted", "list.sort")
    assert contract.oracle.pass_threshold == 0.5
    assert contract.out_of_domain.policy == "must_raise"
    assert [i.args for i in contract.out_of_domain.inputs] == [(-1,), ()]
    assert contract.rescue.max_transformations == 3
    call, tolerant, literal, raises, check = contract.tests
    assert (
        isinstance(call, CallTest)
        and call.args == (2,)
        and call.kwargs == {"scale": 3}
        and call.expected == 6
    )
    assert (tolerant.rel_tol, tolerant.abs_tol) == (1e-9, 1e-12)
    assert literal.args == ((1, 2),) and literal.expected == {1, 2}
    assert isinstance(raises, RaisesTest) and raises.raises == "ValueError"
    assert isinstance(check, CheckTest) and "def check(candidate)" in check.code
    assert contract.kept_names == frozenset({"f", "x"})


def test_class_contract_parses_stateful_steps(tmp_path):
    contract = load_contract(write(tmp_path, CLASS_CONTRACT))
    stateful = contract.tests[0]
    assert isinstance(stateful, StatefulTest)
    assert stateful.init_args == (10,) and stateful.init_kwargs == {"step": 2}
    first, unchecked, value, ratio, reset = stateful.steps
    assert first.expected is None
    assert unchecked.expected is UNCHECKED
    assert value.expected == 14
    assert ratio.rel_tol == 1e-6
    assert reset.args == (0,) and reset.kwargs == {"hard": True} and reset.raises == "RuntimeError"
    assert reset.expected is UNCHECKED


@pytest.mark.parametrize("text", [FUNCTION_CONTRACT, CLASS_CONTRACT])
def test_write_then_load_gives_an_equal_contract(tmp_path, text):
    original = load_contract(write(tmp_path, text))
    out = tmp_path / "out" / "copy.toml"
    write_contract(original, out)
    again = load_contract(out)
    assert again == original
    assert again.content_hash() == original.content_hash()
    assert out.read_text().startswith("schema_version = 1\n")


def test_content_hash_ignores_the_file_path(tmp_path):
    a = load_contract(write(tmp_path, FUNCTION_CONTRACT, "a.toml"))
    b = load_contract(write(tmp_path, FUNCTION_CONTRACT, "b.toml"))
    assert a.path != b.path and a.content_hash() == b.content_hash()


python_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.binary(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        | st.sets(st.integers(-5, 5), max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=python_values)
def test_any_literal_expected_value_survives_a_file_round_trip(tmp_path, value):
    base = contract_from_dict(
        {
            "id": "v",
            "difficulty": "easy",
            "prompt": "p",
            "entry": {"name": "f"},
            "tests": [{"kind": "call", "args": [1], "expected": 0}],
        }
    )
    contract = Contract(
        **{**base.__dict__, "tests": (CallTest(name="", args=(value,), kwargs={}, expected=value),)}
    )
    path = tmp_path / "v.toml"
    write_contract(contract, path)
    loaded = load_contract(path).tests[0]
    assert same_value(loaded.expected, value)
    assert same_value(loaded.args[0], value)


MINIMAL = """
id = "m"
difficulty = "easy"
prompt = "Write f."
entry = { name = "f" }
"""

CALL_TEST = """
[[tests]]
kind = "call"
args = [1]
expected = 1
"""

BAD_FILES = {
    # passed `contracts validate`; a run then ended in a traceback once repair read the name
    "unknown repair transformer": (
        MINIMAL + '[rescue]\ntransformers = ["rename_locals", "nonexistent"]\n' + CALL_TEST,
        "rescue.transformers",
        "unknown transformer 'nonexistent'; repair has rename_locals, docstrings",
    ),
    # passed `contracts validate`; a run failed once every sample had been asked for
    "unknown AST node type": (
        MINIMAL + '[constraints]\nforbidden_nodes = ["For", "NotANode"]\n' + CALL_TEST,
        "constraints.forbidden_nodes",
        "'NotANode' is not a Python AST node type",
    ),
    "an ast name that is no node type": (
        MINIMAL + '[constraints]\nforbidden_nodes = ["parse"]\n' + CALL_TEST,
        "constraints.forbidden_nodes",
        "'parse' is not a Python AST node type",
    ),
    # passed `contracts validate`; probing then called an entry point the reference lacks
    "reference without the entry point": (
        MINIMAL + 'reference = "def other(x):\\n    return x\\n"\n' + CALL_TEST,
        "reference",
        "defines no 'f' (the entry point)",
    ),
    # the reasons named an object's address and a sys setting
    "_py literal that is a call": (
        MINIMAL + CALL_TEST.replace("expected = 1", "expected_py = \"__import__('os')\""),
        "tests[0].expected_py",
        "not a Python literal (it holds a call, a name or an operation, which a literal cannot)",
    ),
    "_py integer too long to read": (
        MINIMAL + CALL_TEST.replace("expected = 1", f'expected_py = "{"9" * 5000}"'),
        "tests[0].expected_py",
        "not a Python literal (an integer of more than 4,300 digits)",
    ),
    "missing id": (MINIMAL.replace('id = "m"\n', "") + CALL_TEST, "id", "missing required key"),
    "bad difficulty": (
        MINIMAL.replace('"easy"', '"extreme"') + CALL_TEST,
        "difficulty",
        "must be one of easy, medium, hard; got 'extreme'",
    ),
    "unknown top-level key": (MINIMAL + 'promtp = "typo"\n' + CALL_TEST, "promtp", "unknown key"),
    "unknown key in a test": (
        MINIMAL + CALL_TEST.replace("expected = 1", "expected = 1\nexpect = 2"),
        "tests[0].expect",
        "unknown key",
    ),
    "expected missing": (
        MINIMAL + CALL_TEST.replace("expected = 1\n", ""),
        "tests[0].expected",
        "missing required key",
    ),
    "bad _py literal": (
        MINIMAL + CALL_TEST.replace("expected = 1", 'expected_py = "open(1)"'),
        "tests[0].expected_py",
        "not a Python literal",
    ),
    "both value and _py": (
        MINIMAL + CALL_TEST.replace("expected = 1", 'expected = 1\nexpected_py = "1"'),
        "tests[0].expected",
        "not both",
    ),
    "stateful test on a function": (
        MINIMAL + '[[tests]]\nkind = "stateful"\nsteps = [{ call = "get" }]\n',
        "tests[0].kind",
        "stateful tests need [entry] kind",
    ),
    "call test on a class": (
        MINIMAL.replace('{ name = "f" }', '{ kind = "class", name = "F" }') + CALL_TEST,
        "tests[0].kind",
        "call tests need [entry] kind",
    ),
    "non-list args": (
        MINIMAL + CALL_TEST.replace("args = [1]", 'args = "1"'),
        "tests[0].args",
        "must be a list of positional arguments",
    ),
    "non-list args_py": (
        MINIMAL + CALL_TEST.replace("args = [1]", 'args_py = "5"'),
        "tests[0].args_py",
        "must be a list of positional arguments",
    ),
    "invalid TOML syntax": (MINIMAL + "[[tests]\n", "", "invalid TOML"),
    "empty tests": (MINIMAL + "tests = []\n", "tests", "at least one test"),
    "no tests at all": (MINIMAL, "tests", "at least one test"),
    "unknown test kind": (
        MINIMAL + CALL_TEST.replace('"call"', '"fuzz"'),
        "tests[0].kind",
        "must be one of call, raises, stateful, check",
    ),
    "check without check()": (
        MINIMAL + '[[tests]]\nkind = "check"\ncode = "def test(candidate): pass  # def check"\n',
        "tests[0].code",
        "must define check(candidate)",
    ),
    "check code does not parse": (
        MINIMAL + '[[tests]]\nkind = "check"\ncode = "def check(candidate):\\n    assert ("\n',
        "tests[0].code",
        "is not valid Python",
    ),
    "reference does not parse": (
        MINIMAL + 'reference = "def f(:"\n' + CALL_TEST,
        "reference",
        "is not valid Python",
    ),
    "empty steps": (
        MINIMAL.replace('{ name = "f" }', '{ kind = "class", name = "F" }')
        + '[[tests]]\nkind = "stateful"\nsteps = []\n',
        "tests[0].steps",
        "non-empty array",
    ),
    "step with result and exception": (
        MINIMAL.replace('{ name = "f" }', '{ kind = "class", name = "F" }')
        + '[[tests]]\nkind = "stateful"\nsteps = [{ call = "pop", expected = 1, raises = "IndexError" }]\n',
        "tests[0].steps[0].raises",
        "not both",
    ),
    "must_return without a value": (
        MINIMAL
        + '[out_of_domain]\npolicy = "must_return"\ninputs = [{ args = [-1] }]\n'
        + CALL_TEST,
        "out_of_domain.return_value",
        "needs return_value",
    ),
    "pass threshold zero": (
        MINIMAL + "[oracle]\npass_threshold = 0.0\n" + CALL_TEST,
        "oracle.pass_threshold",
        "must be above 0",
    ),
    "entry name not a Python name": (
        MINIMAL.replace('name = "f"', 'name = "my-func"') + CALL_TEST,
        "entry.name",
        "is not a Python name",
    ),
    "newer schema": (
        "schema_version = 99\n" + MINIMAL + CALL_TEST,
        "schema_version",
        "newer than this skyt-tui",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_file_gives_one_line_naming_file_key_and_reason(tmp_path, case):
    text, key, reason = BAD_FILES[case]
    path = write(tmp_path, text, "bad.toml")
    with pytest.raises(ContractError) as caught:
        load_contract(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    if key:
        assert f": {key}: " in message
    assert reason in message


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ContractError, match="no such file"):
        load_contract(tmp_path / "absent.toml")


def _contract_file(directory: Path, file_name: str, contract_id: str, title: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    text = MINIMAL.replace('id = "m"', f'id = "{contract_id}"\ntitle = "{title}"') + CALL_TEST
    return write(directory, text, file_name)


def test_duplicate_ids_in_one_folder_are_reported_on_the_second_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path))
    user = tmp_path / "contracts"
    _contract_file(user, "a.toml", "twin", "first")
    _contract_file(user, "b.toml", "twin", "second")
    entries = [e for e in catalog.scan_contracts() if e.origin == "user"]
    good = [e for e in entries if e.contract is not None]
    bad = [e for e in entries if e.contract is None]
    assert [e.contract.title for e in good] == ["first"]
    assert len(bad) == 1 and bad[0].path.name == "b.toml"
    assert bad[0].error == f"{user / 'b.toml'}: id: 'twin' is already used by a.toml"


def test_user_contract_shadows_the_bundled_one_with_the_same_id(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path))
    bundled = catalog.get_contract("gcd")
    assert bundled.title != "my gcd"
    _contract_file(tmp_path / "contracts", "mine.toml", "gcd", "my gcd")
    assert catalog.get_contract("gcd").title == "my gcd"
    origins = {e.id: e.origin for e in catalog.scan_contracts()}
    assert origins["gcd"] == "user" and origins["is_prime"] == "bundled"


def test_invalid_user_file_is_listed_with_its_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path))
    path = write(tmp_path, MINIMAL, "broken.toml")
    (tmp_path / "contracts").mkdir()
    path.rename(tmp_path / "contracts" / "broken.toml")
    entry = next(e for e in catalog.scan_contracts() if e.id == "broken")
    assert entry.contract is None and entry.error.endswith(
        "tests: a contract needs at least one test"
    )
    with pytest.raises(ContractError):
        catalog.get_contract("broken")
    assert catalog.find_contract("broken") is None


def test_float_tolerance_values_are_read_as_floats(tmp_path):
    tolerant = load_contract(write(tmp_path, FUNCTION_CONTRACT)).tests[1]
    assert math.isclose(tolerant.expected, 0.1) and isinstance(tolerant.rel_tol, float)


def test_equal_sets_give_equal_files_whatever_their_insertion_history(tmp_path):
    first, second = {0, 8}, {8, 0}
    assert first == second and repr(first) != repr(second)
    base = load_contract(write(tmp_path, MINIMAL + CALL_TEST))
    hashes = set()
    for value in (first, second):
        contract = Contract(
            **{**base.__dict__, "tests": (CallTest(name="", args=(), kwargs={}, expected=value),)}
        )
        hashes.add(contract.content_hash())
    assert len(hashes) == 1


def test_nan_and_infinity_survive_where_toml_or_a_literal_can_hold_them(tmp_path):
    base = load_contract(write(tmp_path, MINIMAL + CALL_TEST))
    for value in (float("nan"), float("inf"), (float("-inf"), 1.5)):
        contract = Contract(
            **{**base.__dict__, "tests": (CallTest(name="", args=(), kwargs={}, expected=value),)}
        )
        write_contract(contract, tmp_path / "n.toml")
        assert same_value(load_contract(tmp_path / "n.toml").tests[0].expected, value)


def test_integers_beyond_64_bits_are_written_as_python_literals(tmp_path):
    base = load_contract(write(tmp_path, MINIMAL + CALL_TEST))
    big = 2**64 + 1
    contract = Contract(
        **{
            **base.__dict__,
            "tests": (CallTest(name="", args=(2**63 - 1,), kwargs={}, expected=big),),
        }
    )
    write_contract(contract, tmp_path / "big.toml")
    text = (tmp_path / "big.toml").read_text()
    assert f'expected_py = "{big}"' in text and f"{2**63 - 1}" in text
    assert load_contract(tmp_path / "big.toml").tests[0].expected == big


def test_a_carriage_return_newline_survives_a_file_round_trip(tmp_path):
    """Found by the property test above: tomli_w's multi-line strings turned "\\r\\n" into "\\n"."""
    base = contract_from_dict(
        {
            "id": "v",
            "difficulty": "easy",
            "prompt": "p",
            "entry": {"name": "f"},
            "tests": [{"kind": "call", "args": ["a\r\nb"], "expected": "x\r\n"}],
        }
    )
    path = tmp_path / "v.toml"
    write_contract(base, path)
    loaded = load_contract(path).tests[0]
    assert loaded.expected == "x\r\n" and loaded.args == ("a\r\nb",)


def test_the_transformers_a_contract_may_name_are_repairs():
    from skyt_tui.engine.contracts.contract import REPAIR_TRANSFORMERS
    from skyt_tui.engine.repair import TRANSFORMERS

    assert tuple(TRANSFORMERS) == REPAIR_TRANSFORMERS


@pytest.mark.parametrize(
    "reference",
    [
        "def f(x):\n    return x\n",
        "class f:\n    pass\n",
        "f = abs\n",
        "from math import fabs as f\n",
        "try:\n    from m import f\nexcept ImportError:\n    def f(x):\n        return x\n",
    ],
)
def test_a_reference_that_binds_the_entry_point_is_kept(tmp_path, reference):
    text = MINIMAL + f"reference = {json.dumps(reference)}\n" + CALL_TEST
    assert load_contract(write(tmp_path, text, "ok.toml")).reference == reference
