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


class StubOracle:
    """Passes every program that contains "pass"; records what it was asked."""

    def __init__(self):
        self.asked = []

    def check_many(self, jobs, dedupe=True, verdict_only=False):
        from types import SimpleNamespace

        self.asked.append([code for _, code in jobs])
        return [SimpleNamespace(passed="pass" in code) for _, code in jobs]


def test_the_canon_rule_skips_failing_and_unparseable_samples():
    codes = ["def f(x): return x  # fail\n", "def f(x: pass\n", "def f(x): return x  # pass\n"]
    oracle = StubOracle()
    assert canon_store.first_canon_sample(CONTRACT, codes, oracle) == 2
    assert oracle.asked == [codes]
    assert canon_store.first_canon_sample(CONTRACT, codes[:2], oracle) is None


def test_every_path_that_picks_a_canon_uses_the_one_rule(isolated_home, monkeypatch):
    """The stored-run path, `canon reestablish` and the analysis all ask `canon.first_canon_candidate`:
    a changed rule (here: the last passing sample) changes what each of them picks."""
    from skyt_tui.engine.runs import analyses, run_store
    from skyt_tui.engine.runs.canon_actions import reestablish_from_run
    from skyt_tui.engine.runs.run_store import SampleRecord
    from tests.run_helpers import CONTRACT_ID, install_contract

    install_contract(isolated_home)
    from skyt_tui.engine.contracts.catalog import get_contract

    contract = get_contract(CONTRACT_ID)
    codes = ["def f(x):\n    return x + 1\n", "def f(x):\n    return 1 + x\n"]
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=contract,
        provider="openai",
        model="m",
        temperature=0.0,
        n=2,
        samples=[
            SampleRecord(index=i, status="ok", response=code, code=code)
            for i, code in enumerate(codes)
        ],
    )

    def last_passing(verdicts_passed, parse_errors, compliant=None):
        passing = [i for i, (p, e) in enumerate(zip(verdicts_passed, parse_errors)) if p and not e]
        return passing[-1] if passing else None

    monkeypatch.setattr(canon_store, "first_canon_candidate", last_passing)

    class PassAll(StubOracle):
        def check_many(self, jobs, dedupe=True, verdict_only=False):
            from types import SimpleNamespace

            return [SimpleNamespace(passed=True) for _ in jobs]

    code, provenance = analyses.first_passing_stored_sample(contract, PassAll())
    assert (code, provenance.sample_index, provenance.run_id) == (codes[1], 1, meta.id)
    canon = reestablish_from_run(CONTRACT_ID, meta.id, oracle=PassAll())
    assert canon.code == codes[1].rstrip() and canon.provenance["sample_index"] == 1


def test_a_canon_history_event_is_read_into_a_record_whatever_its_line_holds():
    """The history log is a file of the store: `CanonEvent` reads a field of the wrong type as
    missing instead of failing (or showing a dict) where the Canon screen and `canon history`
    show it."""
    from skyt_tui.engine.analysis.canon import CanonEvent

    whole = CanonEvent.from_record(
        {
            "event": "reestablished",
            "at": "2026-01-02T03:04:05Z",
            "reason": "the old canon failed the new tests",
            "canon": {"provenance": {"run_id": "r1", "sample_index": 3}, "content_hash": "ab" * 32},
        }
    )
    assert whole == CanonEvent(
        event="reestablished",
        at="2026-01-02T03:04:05Z",
        reason="the old canon failed the new tests",
        run_id="r1",
        sample_index=3,
        content_hash="ab" * 32,
    )
    odd = CanonEvent.from_record(
        {"event": None, "at": 5, "canon": "[red]not a dict", "reason": None}
    )
    assert odd == CanonEvent(
        event=None, at="5", reason="", run_id=None, sample_index=None, content_hash=""
    )
    no_provenance = CanonEvent.from_record({"canon": {"provenance": ["x"]}})
    assert (no_provenance.run_id, no_provenance.sample_index) == (None, None)
    assert (
        CanonEvent.from_record({"canon": {"provenance": {"sample_index": True}}}).sample_index
        is None
    )
