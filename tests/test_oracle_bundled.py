"""Every bundled contract's reference passes its own oracle, and wrong variants fail.

Wrong variants come from `tests/fixtures/variants/<contract_id>/wrong_*.py` when
present; otherwise they are derived mechanically from the reference (the entry
point's body replaced by `return None`, and by a `raise`), so every contract,
including ones added later, has at least one sample its oracle must reject.
"""

import ast
from pathlib import Path

import pytest

from skyt_tui.engine.contracts.contract import load_contract
from skyt_tui.engine.oracle.judge import Oracle

ROOT = Path(__file__).resolve().parents[1]
CONTRACTS = sorted((ROOT / "contracts").glob("*.toml"))
VARIANTS = ROOT / "tests" / "fixtures" / "variants"


@pytest.fixture(scope="module")
def oracle():
    with Oracle(workers=2) as instance:
        yield instance


def gutted(reference: str, entry_name: str, body: str) -> str:
    """The reference with the entry function's body (or each method of the entry class) replaced."""
    module = ast.parse(reference)
    replacement = ast.parse(body).body
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry_name:
            node.body = replacement
        elif isinstance(node, ast.ClassDef) and node.name == entry_name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name != "__init__":
                    item.body = replacement
    return ast.unparse(module)


def wrong_variants(contract) -> list[tuple[str, str]]:
    folder = VARIANTS / contract.id
    files = sorted(folder.glob("wrong_*.py")) if folder.is_dir() else []
    if files:
        return [(path.name, path.read_text(encoding="utf-8")) for path in files]
    return [
        ("return None", gutted(contract.reference, contract.entry.name, "return None")),
        ("raise", gutted(contract.reference, contract.entry.name, "raise RuntimeError('wrong')")),
    ]


def test_there_are_bundled_contracts():
    assert CONTRACTS, "contracts/*.toml is empty"


@pytest.mark.parametrize("path", CONTRACTS, ids=[p.stem for p in CONTRACTS])
def test_reference_passes_and_wrong_variants_fail(oracle, path):
    contract = load_contract(path)
    assert contract.reference, f"{path.name} has no reference solution"
    variants = wrong_variants(contract)
    verdicts = oracle.check_many(
        [(contract, contract.reference)] + [(contract, code) for _, code in variants]
    )
    reference, wrong = verdicts[0], verdicts[1:]
    assert reference.passed, f"{contract.id}: reference fails: {reference.reason}"
    assert reference.status == "ok"
    for (name, _), verdict in zip(variants, wrong):
        assert not verdict.passed, f"{contract.id}: wrong variant {name} passes"


def test_mechanical_variant_replaces_only_the_entry():
    code = "def helper(x):\n    return x\n\ndef entry(x):\n    return helper(x) + 1\n"
    assert (
        gutted(code, "entry", "return None")
        == "def helper(x):\n    return x\n\ndef entry(x):\n    return None"
    )
