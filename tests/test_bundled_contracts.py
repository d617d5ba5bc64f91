"""The contracts shipped in `contracts/` and their fixtures, checked statically (nothing is run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skyt_tui import locations
from skyt_tui.engine.contracts.contract import (
    DIFFICULTIES,
    CallTest,
    Contract,
    RaisesTest,
    StatefulTest,
    load_contract,
    write_contract,
)

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted(locations.bundled_contracts_dir().glob("*.toml"))
CONTRACTS = {path.stem: load_contract(path) for path in BUNDLED}
VARIANTS = ROOT / "tests" / "fixtures" / "variants"
EXAMPLES = locations.bundled_examples_dir()
BUILTIN_TYPES = {"list", "dict", "set", "str", "tuple", "bytes"}


def defines(module: ast.Module, name: str) -> ast.FunctionDef | ast.ClassDef | None:
    for node in module.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return node
    return None


def called_names(tree: ast.AST) -> set[str]:
    """Dotted names of every call: `sorted`, `math.sqrt`, and `.sort` as `*.sort`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(f"*.{func.attr}")
                if isinstance(func.value, ast.Name):
                    names.add(f"{func.value.id}.{func.attr}")
    return names


def test_the_bundle_is_large_and_spans_every_difficulty_and_test_kind():
    assert len(CONTRACTS) >= 16
    difficulties = [c.difficulty for c in CONTRACTS.values()]
    assert set(difficulties) == set(DIFFICULTIES)
    assert difficulties.count("hard") >= 3
    kinds = {test.kind for c in CONTRACTS.values() for test in c.tests}
    assert kinds == {"call", "raises", "stateful", "check"}
    assert any(
        isinstance(t, CallTest) and t.rel_tol is not None
        for c in CONTRACTS.values()
        for t in c.tests
    )
    assert any(
        s.raises
        for c in CONTRACTS.values()
        for t in c.tests
        if isinstance(t, StatefulTest)
        for s in t.steps
    )
    assert {c.out_of_domain.policy for c in CONTRACTS.values()} == {
        "ignore",
        "must_return",
        "must_raise",
    }
    assert {c.prompt_style for c in CONTRACTS.values()} == {"instruction", "completion"}
    assert {c.constraints.style for c in CONTRACTS.values()} == {"any", "iterative", "recursive"}


def test_the_contracts_the_issue_names_are_all_there():
    assert {
        "fibonacci_iterative",
        "fibonacci_recursive",
        "factorial",
        "gcd",
        "is_prime",
        "is_palindrome",
        "slugify",
        "balanced_brackets",
        "binary_search",
        "merge_sort",
        "quick_sort",
        "lru_cache",
        "roman_numerals",
        "run_length_encoding",
        "flatten_nested",
    } <= set(CONTRACTS)


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_each_contract_is_well_formed(stem):
    contract = CONTRACTS[stem]
    assert contract.id == stem, "the file name is the contract id"
    assert 5 <= len(contract.tests) <= 12
    assert all(test.name for test in contract.tests), "every test has a name"
    assert len({test.name for test in contract.tests}) == len(contract.tests), (
        "test names are unique"
    )
    assert (
        f"`{contract.entry.name}`" in contract.prompt
        or f"def {contract.entry.name}(" in contract.prompt
    )
    assert contract.rescue.max_transformations >= 1
    assert contract.constraints.fixed_names


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_each_reference_parses_and_defines_the_entry_point(stem):
    contract = CONTRACTS[stem]
    assert contract.reference is not None
    module = ast.parse(contract.reference)
    node = defines(module, contract.entry.name)
    assert node is not None
    assert isinstance(node, ast.ClassDef) == (contract.entry.kind == "class")
    if isinstance(node, ast.FunctionDef):
        parameters = [a.arg for a in node.args.args]
        assert parameters == list(contract.constraints.fixed_names)


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_keyword_arguments_in_tests_use_the_fixed_names(stem):
    contract = CONTRACTS[stem]
    fixed = set(contract.constraints.fixed_names)
    for test in contract.tests:
        if isinstance(test, CallTest | RaisesTest):
            assert set(test.kwargs) <= fixed, test.name
        if isinstance(test, StatefulTest):
            assert set(test.init_kwargs) <= fixed
            for step in test.steps:
                assert set(step.kwargs) <= fixed, test.name


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_each_reference_keeps_its_own_constraints(stem):
    contract = CONTRACTS[stem]
    module = ast.parse(contract.reference)
    calls = called_names(module)
    for forbidden in contract.constraints.forbidden_calls:
        owner, _, method = forbidden.rpartition(".")
        if owner in BUILTIN_TYPES:
            assert f"*.{method}" not in calls, forbidden
        else:
            assert forbidden not in calls, forbidden
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(module)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert not imported & set(contract.constraints.forbidden_imports)
    node_names = {type(node).__name__ for node in ast.walk(module)}
    assert not node_names & set(contract.constraints.forbidden_nodes)
    entry = defines(module, contract.entry.name)
    self_calls = contract.entry.name in called_names(entry)
    loops = any(isinstance(node, ast.For | ast.While) for node in ast.walk(entry))
    if contract.constraints.style == "recursive":
        assert self_calls
    if contract.constraints.style == "iterative":
        assert loops and not self_calls


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_each_contract_has_wrong_variants_that_define_the_entry_point(stem):
    contract: Contract = CONTRACTS[stem]
    wrong = sorted((VARIANTS / stem).glob("wrong_*.py"))
    assert wrong, f"no tests/fixtures/variants/{stem}/wrong_*.py"
    for path in wrong:
        module = ast.parse(path.read_text(encoding="utf-8"))
        assert defines(module, contract.entry.name) is not None, path.name
        assert path.read_text(encoding="utf-8") != contract.reference.lstrip("\n")


def test_variant_folders_belong_to_bundled_contracts():
    folders = {path.name for path in VARIANTS.iterdir() if path.is_dir()}
    assert folders == set(CONTRACTS)


EXAMPLE_SETS = sorted(path.name for path in EXAMPLES.iterdir() if path.is_dir())


def test_examples_cover_at_least_five_contracts_and_say_they_are_hand_written():
    assert {
        "fibonacci_iterative",
        "is_palindrome",
        "binary_search",
        "balanced_brackets",
        "lru_cache",
    } <= set(EXAMPLE_SETS)
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    assert "hand-written examples, not model output" in readme


@pytest.mark.parametrize("stem", EXAMPLE_SETS)
def test_each_example_set_looks_like_a_run(stem):
    contract = CONTRACTS[stem]
    files = sorted((EXAMPLES / stem).glob("*.py"))
    assert 10 <= len(files) <= 14
    assert [f.name for f in files] == [f"{n:02d}.py" for n in range(1, len(files) + 1)]
    texts = [f.read_text(encoding="utf-8") for f in files]
    first = ast.parse(texts[0])
    assert defines(first, contract.entry.name) is not None, (
        "the first sample becomes the canon: it must parse"
    )
    assert len(set(texts)) < len(texts), "models repeat themselves: some samples are byte-identical"
    assert len(set(texts)) >= 5, "and some differ"
    parses = 0
    for text in texts:
        try:
            ast.parse(text)
            parses += 1
        except SyntaxError:
            pass
    assert parses >= len(texts) - 2


@pytest.mark.parametrize("stem", sorted(CONTRACTS))
def test_each_contract_survives_a_write_and_load(tmp_path, stem):
    write_contract(CONTRACTS[stem], tmp_path / f"{stem}.toml")
    again = load_contract(tmp_path / f"{stem}.toml")
    assert again == CONTRACTS[stem]
    assert again.content_hash() == CONTRACTS[stem].content_hash()
