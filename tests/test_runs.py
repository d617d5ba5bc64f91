"""Stored runs: ids, whole-directory creation, the sample log, states, locks, the analysis cache, report."""

import csv
import json
import re
from datetime import UTC, datetime

import pytest

from skyt_tui.cli import main
from skyt_tui.engine import store
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.errors import InputError, NotFoundError, StoreError
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.run_store import SampleRecord
from tests.run_helpers import CONTRACT_ID, install_contract

WHEN = datetime(2026, 11, 22, 10, 15, 0, tzinfo=UTC)


def ok(index, code):
    return SampleRecord(index=index, status="ok", response=code, code=code, extraction="unfenced")


def failed(index):
    return SampleRecord(
        index=index,
        status="failed",
        attempts=3,
        error="HTTP 500: internal error (gave up after 3 attempts)",
    )


@pytest.fixture
def contract(isolated_home):
    install_contract(isolated_home)
    return get_contract(CONTRACT_ID)


def make(contract, samples=(), n=4, **kw):
    values = {
        "contract_id": CONTRACT_ID,
        "contract": contract,
        "provider": "openai",
        "model": "m1",
        "temperature": 0.7,
        "n": n,
    }
    values.update(kw)
    return run_store.create_run(samples=samples, **values)


def test_run_ids_sort_by_time_and_name_contract_and_temperature():
    run_id = run_store.new_run_id("fibonacci_iterative", 0.7, WHEN, "ab12")
    assert run_id == "20261122-101500-fibonacci_iterative-t0.7-ab12"
    assert run_store.new_run_id("gcd", None, WHEN, "0000") == "20261122-101500-gcd-0000"
    assert re.fullmatch(r"\d{8}-\d{6}-gcd-t1-[0-9a-f]{4}", run_store.new_run_id("gcd", 1.0))


def test_create_and_load_round_trip(contract):
    meta = make(
        contract,
        [ok(0, "def f(x):\n    return x + 1"), failed(1)],
        seed=5,
        label="L",
        note="N",
        request={"max_tokens": 100},
        created=WHEN,
    )
    assert meta.id.startswith("20261122-101500-add_one-t0.7-")
    run = run_store.load_run(meta.id)
    assert run.meta == meta and run.meta.contract_hash == contract.content_hash()
    assert run.contract_object() == contract
    assert (run.n_ok, run.n_failed, run.missing_indexes) == (1, 1, [2, 3])
    document = json.loads((run.directory / "run.json").read_text())
    assert document["schema_version"] == store.SCHEMA_VERSION and document["kind"] == "run"
    assert [p.name for p in run.directory.parent.iterdir()] == [meta.id], (
        "staging directory left behind"
    )


def test_ids_are_unique_even_in_the_same_second(contract):
    ids = {make(contract, created=WHEN).id for _ in range(20)}
    assert len(ids) == 20


def test_the_log_is_append_only_and_a_later_record_supersedes(contract):
    meta = make(contract, n=3)
    path = run_store.run_path(meta.id) / "samples.jsonl"
    run_store.append_sample(meta.id, failed(1))
    run_store.append_sample(meta.id, ok(0, "a = 1"))
    first = path.read_bytes()
    run_store.append_sample(meta.id, ok(1, "b = 2"))
    assert path.read_bytes().startswith(first)
    run = run_store.load_run(meta.id)
    assert [(s.index, s.status, s.code) for s in run.samples] == [
        (0, "ok", "a = 1"),
        (1, "ok", "b = 2"),
    ]
    line = path.read_text().splitlines()[0]
    assert line == run_store._sample_line(failed(1)), (
        "bulk and appended lines must be the same bytes"
    )


def test_a_torn_last_line_is_skipped_and_repaired(contract):
    meta = make(contract, n=3)
    run_store.append_sample(meta.id, ok(0, "a = 1"))
    path = run_store.run_path(meta.id) / "samples.jsonl"
    with path.open("ab") as handle:
        handle.write(b'{"index": 1, "status": "ok", "co')
    assert [s.index for s in run_store.load_run(meta.id).samples] == [0]
    run_store.append_sample(meta.id, ok(1, "b = 2"))
    assert [s.index for s in run_store.load_run(meta.id).samples] == [0, 1]


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda d: (d / "run.json").write_text("{"), "run.json: corrupt JSON at line 1"),
        (
            lambda d: (d / "run.json").write_text(
                '{"schema_version": 1, "kind": "run", "id": "x"}'
            ),
            "corrupt run file: contract_id",
        ),
        (
            lambda d: (d / "samples.jsonl").write_text(
                '{"kind": "sample", "index": 9, "status": "ok", "code": ""}\n'
            ),
            "index 9 is beyond the run's n = 4",
        ),
        (
            lambda d: (d / "samples.jsonl").write_text(
                '{"kind": "sample", "index": 0, "status": "done"}\n'
            ),
            "unknown status 'done'",
        ),
        (
            lambda d: (d / "samples.jsonl").write_text('not json\n{"kind": "sample"}\n'),
            "samples.jsonl: corrupt record at line 1",
        ),
    ],
)
def test_damage_is_reported_by_file_and_listed_not_hidden(contract, damage, message):
    meta = make(contract)
    directory = run_store.run_path(meta.id)
    damage(directory)
    with pytest.raises(StoreError, match=re.escape(message)) as caught:
        run_store.load_run(meta.id)
    assert str(directory) in str(caught.value)
    listed = run_store.list_runs()
    assert [(s.id, s.state) for s in listed] == [(meta.id, "damaged")] and message in listed[
        0
    ].error


def test_resolve_run_id_exact_prefix_latest_and_errors(contract):
    a = make(contract, created=datetime(2026, 1, 1, tzinfo=UTC), id_suffix="aaaa")
    b = make(contract, created=datetime(2026, 1, 2, tzinfo=UTC), id_suffix="bbbb")
    assert run_store.resolve_run_id(a.id) == a.id and run_store.resolve_run_id("20260102") == b.id
    assert run_store.resolve_run_id("latest") == b.id
    with pytest.raises(InputError, match="ambiguous, matches 2 runs"):
        run_store.resolve_run_id("2026010")
    with pytest.raises(NotFoundError, match="run 'x': not found"):
        run_store.resolve_run_id("x")
    with pytest.raises(InputError, match="not a valid run id"):
        run_store.run_path("../etc")


def test_states_and_the_per_run_lock(contract):
    meta = make(contract, n=2)
    assert run_store.run_state(meta) == run_store.INTERRUPTED, (
        "status running with nobody holding the lock = killed"
    )
    with run_store.run_lock(meta.id):
        assert run_store.run_state(meta) == run_store.RUNNING
        with pytest.raises(
            StoreError,
            match=rf"run {meta.id}: another skyt-tui process is adding samples to it \(pid \d+\)",
        ):
            with run_store.run_lock(meta.id):
                pass
    assert (
        run_store.run_state(run_store.set_status(meta.id, run_store.ABORTED)) == run_store.ABORTED
    )
    assert (
        run_store.run_state(run_store.set_status(meta.id, run_store.COMPLETE)) == run_store.COMPLETE
    )


CODES = [
    "def f(x):\n    return x + 1",
    "def f(x):\n    return x + 1",
    "def f(x):\n    # one more\n    return x + 1",
]


def test_analysis_counts_failed_samples_apart(contract):
    meta = make(contract, [ok(0, CODES[0]), failed(1), ok(2, CODES[1]), ok(3, CODES[2])])
    analysis = analyses.analyze_stored_run(meta.id)
    metrics = analysis["metrics"]
    assert (metrics["n"], metrics["n_failed"]) == (3, 1)
    assert metrics["R_raw"] == 2 / 3 and metrics["R_sig"]["nodoc"] == 1.0
    assert [s["index"] for s in analysis["samples"]] == [0, 2, 3], (
        "analysis speaks the run's sample indexes"
    )


def test_analysis_cache_is_reused_and_invalidated(contract, monkeypatch):
    meta = make(contract, [ok(0, CODES[0]), ok(1, CODES[2])])
    calls = []
    real = analyses.analyze_stream  # what analyses the runs the cache does not hold
    monkeypatch.setattr(
        analyses, "analyze_stream", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    first = analyses.analyze_stored_run(meta.id)
    assert analyses.analyze_stored_run(meta.id) == first and len(calls) == 1
    run_store.append_sample(meta.id, ok(2, CODES[1]))
    assert analyses.analyze_stored_run(meta.id)["metrics"]["n"] == 3 and len(calls) == 2, (
        "new sample"
    )
    analyses.analyze_stored_run(meta.id, tau=0.2)
    assert len(calls) == 3, "other tau"
    analyses.analyze_stored_run(meta.id, tau=0.2)
    assert len(calls) == 3
    monkeypatch.setattr(analyses, "NORMALIZATION_VERSION", "999")
    analyses.analyze_stored_run(meta.id, tau=0.2)
    assert len(calls) == 4, "pipeline version changed"
    canon = run_store.locations.canon_dir() / f"{CONTRACT_ID}.json"
    assert canon.exists(), "the first analysis established the contract's canon"
    canon.write_text("{}")
    analysis = analyses.analyze_stored_run(meta.id, tau=0.2)
    assert len(calls) == 5, "canon changed"
    assert analysis["canon"]["status"] == "corrupt" and analysis["metrics"]["R_anchor_pre"] is None
    cached = store.read_json(run_store.run_path(meta.id) / "analysis.json", kind="analysis")
    assert cached["key"]["versions"]["normalization"] == "999" and cached["key"]["level"] == "nodoc"


def test_report_json_csv_and_table(contract, capsys, tmp_path):
    meta = make(contract, [ok(0, CODES[0]), failed(1), ok(2, CODES[1])], n=3)
    assert main(["report", meta.id[:20], "--json", "--samples"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"] == {"n": 3, "ok": 2, "failed": 1, "truncated": 0, "missing": 0}
    assert report["run"]["id"] == meta.id and "contract" not in report["run"]
    assert [(r["index"], r["status"]) for r in report["samples"]] == [
        (0, "ok"),
        (1, "failed"),
        (2, "ok"),
    ]
    assert report["samples"][0]["code"] == CODES[0] and report["samples"][1]["error"].startswith(
        "HTTP 500"
    )
    assert report["samples"][0]["d_pre"] == 0.0 and report["metrics"]["n_failed"] == 1
    assert report["canon"]["status"] == "established" and report["canon"]["sample_index"] == 0
    out = tmp_path / "samples.csv"
    assert main(["report", meta.id, "--csv", str(out)]) == 0
    rows = list(csv.DictReader(out.open()))
    assert (
        [r["index"] for r in rows] == ["0", "1", "2"]
        and rows[1]["status"] == "failed"
        and rows[0]["d_pre"] == "0.0"
    )
    assert {"d_pre", "d_post", "passed", "error"} <= set(rows[0])
    capsys.readouterr()
    assert main(["report", meta.id]) == 0
    text = capsys.readouterr().out
    assert (
        "R_sig[nodoc]" in text
        and "sample 1 failed after 3 attempts" in text
        and "R_anchor_post" in text
    )


def test_runs_list_json_and_empty(contract, capsys):
    assert main(["runs", "list"]) == 0
    assert "no runs stored yet" in capsys.readouterr().out
    meta = make(contract, [ok(0, CODES[0])], n=2, label="first try")
    assert main(["runs", "list", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["runs"]
    assert (entry["id"], entry["state"], entry["ok"], entry["n"], entry["label"]) == (
        meta.id,
        "interrupted",
        1,
        2,
        "first try",
    )


def test_an_empty_store_points_at_the_demos_runs_after_skyt_tui_demo(contract, capsys, monkeypatch):
    """After `skyt-tui demo` the user's own store is still empty: `runs list` and `report latest`
    said "no runs stored yet; try `skyt-tui demo`", sending the user round in a circle. They now
    say where the demo's runs are and how to open them."""
    assert main(["report", "latest"]) == 2
    assert "try `skyt-tui demo`" in capsys.readouterr().err
    monkeypatch.setenv("SKYT_STORE", "demo")
    make(contract, [ok(0, CODES[0])], n=1)
    make(contract, [ok(0, CODES[0])], n=1)
    monkeypatch.delenv("SKYT_STORE")
    assert run_store.run_ids() == []
    hint = "the demo's 2 runs are in its own store (`SKYT_STORE=demo skyt-tui runs list`"
    assert main(["runs", "list"]) == 0
    assert hint in capsys.readouterr().out
    assert main(["report", "latest"]) == 2
    err = capsys.readouterr().err
    assert hint in err and "try `skyt-tui demo`" not in err and len(err.splitlines()) == 1
    monkeypatch.setenv("SKYT_STORE", "demo")  # in the demo's store, its runs are found
    assert main(["report", "latest"]) == 0


def test_bad_report_options(contract, capsys):
    meta = make(contract)
    assert main(["report", meta.id, "--tau", "2"]) == 2
    assert "--tau must be within [0, 1]" in capsys.readouterr().err
