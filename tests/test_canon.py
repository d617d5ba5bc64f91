"""The canon store: write-once, integrity checked against the contract and versions (stale, tampered,
corrupt), re-establishment with history, and the one rule that picks a canon."""

import json

import pytest

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.analysis.canon import (
    CanonExistsError,
    Provenance,
    build_canon,
    establish_canon,
    load_canon,
)
from skyt_tui.engine.contracts.contract import load_contract
from skyt_tui.engine.errors import SkytError
from tests.test_layout import ROOT

CONTRACT = load_contract(ROOT / "contracts" / "fibonacci_iterative.toml")
CODE = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
PROVENANCE = Provenance(
    run_id="run-1",
    sample_index=3,
    provider="replay",
    model="m",
    temperature=0.7,
    established_at="2026-11-22T10:00:00Z",
)


def make(code=CODE, oracle_version="1"):
    return build_canon(CONTRACT, code, PROVENANCE, oracle_version)


def test_establish_and_load():
    canon = establish_canon(make())
    state = load_canon(CONTRACT.id, contract=CONTRACT, oracle_version="1")
    assert state.status == "ok" and state.usable and state.canon == canon
    assert canon.texts["nodoc"].startswith("def fibonacci(n):") and len(canon.signatures) == 4
    assert canon.provenance["sample_index"] == 3 and canon.versions["oracle"] == "1"
    assert canon.contract_hash == CONTRACT.content_hash()
    assert [event["event"] for event in canon_store.canon_history(CONTRACT.id)] == ["established"]


def test_second_establish_is_refused_and_nothing_changes():
    establish_canon(make())
    before = canon_store.canon_path(CONTRACT.id).read_bytes()
    with pytest.raises(CanonExistsError, match="write-once.*canon reestablish"):
        establish_canon(make(CODE.replace("a, b", "x, y")))
    assert canon_store.canon_path(CONTRACT.id).read_bytes() == before


def test_tampered_canon_is_detected_and_not_usable():
    establish_canon(make())
    path = canon_store.canon_path(CONTRACT.id)
    document = json.loads(path.read_text())
    document["code"] = document["code"].replace("a + b", "a - b")
    path.write_text(json.dumps(document))
    state = load_canon(CONTRACT.id, contract=CONTRACT, oracle_version="1")
    assert (
        state.status == "tampered"
        and not state.usable
        and "does not match its stored hash" in state.reason
    )


def test_version_or_contract_change_makes_it_stale():
    establish_canon(make())
    assert load_canon(CONTRACT.id, oracle_version="2").status == "stale"
    assert "oracle version 1 → 2" in load_canon(CONTRACT.id, oracle_version="2").reason
    from dataclasses import replace

    changed = replace(CONTRACT, version=2)
    state = load_canon(CONTRACT.id, contract=changed, oracle_version="1")
    assert state.status == "stale" and "contract changed" in state.reason


def test_corrupt_and_missing():
    assert load_canon("nothing").status == "missing"
    path = canon_store.canon_path(CONTRACT.id)
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    state = load_canon(CONTRACT.id)
    assert state.status == "corrupt" and str(path) in state.reason


def test_reestablish_keeps_the_old_canon_in_history():
    first = establish_canon(make())
    second = canon_store.reestablish_canon(make(CODE.replace("_", "i")), reason="oracle upgraded")
    state = load_canon(CONTRACT.id, oracle_version="1")
    assert state.canon == second
    history = canon_store.canon_history(CONTRACT.id)
    assert [event["event"] for event in history] == ["established", "reestablished"]
    assert (
        history[1]["previous"]["content_hash"] == first.content_hash
        and history[1]["reason"] == "oracle upgraded"
    )


def test_unparseable_code_can_never_become_canon():
    with pytest.raises(SkytError, match="does not parse"):
        make("def fibonacci(n:\n    return n")


def test_first_candidate_in_generation_order():
    assert canon_store.first_canon_candidate([False, True, True], [False, False, False]) == 1
    assert canon_store.first_canon_candidate([True, True], [True, False]) == 1
    assert canon_store.first_canon_candidate([None, False], [False, False]) is None
