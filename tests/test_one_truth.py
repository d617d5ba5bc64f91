"""Issue 12: one truth per sample — every path judges a recorded sample the same way,
and the store never drops or duplicates a record silently.

Each test below fails on the code before the fix (noted per test).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine import store
from skyt_tui.engine.runs import run_store
from tests.corpus import require
from tests.run_helpers import ROOT, cli_env, install_contract, run_cli

FULL_FUNCTION_STUDY = ROOT / "tests" / "fixtures" / "humaneval_full"


def _analyze_json(*args: str, capsys) -> dict:
    assert main(["analyze", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _same(one: dict, other: dict) -> bool:
    return json.dumps(one, sort_keys=True) == json.dumps(other, sort_keys=True)


def _report_json(home: Path, run_id: str) -> dict:
    result = run_cli(home, "report", run_id, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# --- 1. SKYT files are judged by the contract embedded in them, on every path -------------


@pytest.mark.corpus
def test_skyt_binary_search_same_pass_rate_by_analyze_import_and_replay(isolated_home, capsys):
    """Old code: analyze 1.0, import + report 0.0 (the bundled binary_search judged it)."""
    [experiment] = sorted(require("skyt-msr2026", "outputs").glob("binary_search_temp0.0_*.json"))[
        :1
    ]
    analysed = _analyze_json(str(experiment), capsys=capsys)["runs"][0]
    assert analysed["contract"]["origin"] == "embedded"
    assert analysed["contract_id"].startswith("skyt.binary_search.")
    assert analysed["contract"]["source_file"] == str(experiment.resolve())
    assert analysed["metrics"]["pass_rate"] == 1.0

    assert main(["import", str(experiment), "--json"]) == 0
    [run_id] = json.loads(capsys.readouterr().out)["created"]
    meta = run_store.load_meta(run_id)
    assert meta.contract_id == analysed["contract_id"]
    assert meta.origin["contract_origin"] == "embedded"
    report = _report_json(isolated_home, run_id)
    assert report["metrics"]["pass_rate"] == analysed["metrics"]["pass_rate"]
    # one run of the contract in the store: its stored canon is the run's own, so every
    # metric is the same bytes as analyze's
    assert _same(report["metrics"], analysed["metrics"])

    # the embedded contract is stored beside the bundled one, never in its place
    stored = isolated_home / "contracts" / f"{analysed['contract_id']}.toml"
    assert stored.is_file()
    assert "template_sha256" in stored.read_text()
    assert main(["contracts", "list", "--json"]) == 0
    listed = {c["id"] for c in json.loads(capsys.readouterr().out)["contracts"]}
    assert {"binary_search", analysed["contract_id"]} <= listed

    replay = run_cli(
        isolated_home,
        "run",
        "binary_search",
        "--provider",
        "replay",
        "--replay",
        str(experiment),
        "--json",
    )
    assert replay.returncode == 0, replay.stderr
    [outcome] = json.loads(replay.stdout)["runs"]
    replayed = _report_json(isolated_home, outcome["run_id"])
    assert replayed["run"]["contract_id"] == analysed["contract_id"]
    assert replayed["metrics"]["pass_rate"] == analysed["metrics"]["pass_rate"]
    assert _same(replayed["metrics"], analysed["metrics"])


@pytest.mark.corpus
def test_contract_override_is_explicit_and_reported(isolated_home, capsys):
    [experiment] = sorted(require("skyt-msr2026", "outputs").glob("gcd_temp0.0_*.json"))[:1]
    data = _analyze_json(str(experiment), "--contract", "gcd", capsys=capsys)["runs"][0]
    assert data["contract_id"] == "gcd"
    assert data["contract_override"]["id"] == "gcd"
    assert data["contract_override"]["instead_of"].startswith("skyt.gcd.")
    assert main(["import", str(experiment), "--contract", "gcd", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["contract_override"] == "gcd"
    meta = run_store.load_meta(out["created"][0])
    assert meta.contract_id == "gcd" and meta.origin["contract_override"]["id"] == "gcd"
    report = _report_json(isolated_home, meta.id)
    assert report["provenance"]["contract_override"]["instead_of"].startswith("skyt.gcd.")


# --- 2. one assembly rule for completion-style answers -------------------------------------


def test_full_function_answers_assembled_by_one_rule_on_every_path(isolated_home, capsys):
    """Old code: analyze/import cut whole-function answers at `\\ndef` (pass rate 0.533, not 0.733)."""
    analysed = _analyze_json(str(FULL_FUNCTION_STUDY), "--samples", capsys=capsys)["runs"]
    counts = {"completion": 0, "truncated_at": 0, "full_function": 0}
    for run in analysed:
        for kind, count in run["assembly"].items():
            counts[kind] += count
    assert counts == {"completion": 3, "truncated_at": 3, "full_function": 9}
    assert [s["assembly"] for s in analysed[0]["samples"]] == [
        "full_function",
        "full_function",
        "completion",
        "truncated_at",
        "full_function",
    ]
    passed = sum(run["metrics"]["pass_rate"] * run["n"] for run in analysed)
    assert passed == 11

    assert main(["import", str(FULL_FUNCTION_STUDY), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert imported["assembly"] == counts
    for run_id, run in zip(sorted(imported["created"]), sorted(analysed, key=lambda r: r["id"])):
        report = _report_json(isolated_home, run_id)
        assert report["metrics"]["pass_rate"] == run["metrics"]["pass_rate"]
        assert _same(report["metrics"], run["metrics"])  # judged and repaired alike
        assert report["provenance"]["assembly"] == run["assembly"]


def test_replay_of_full_function_answers_uses_the_same_rule(isolated_home, capsys):
    assert main(["import", str(FULL_FUNCTION_STUDY), "--json"]) == 0
    imported = {
        run_store.load_meta(i).contract_id: i
        for i in json.loads(capsys.readouterr().out)["created"]
    }
    replay = run_cli(
        isolated_home,
        "run",
        "Study_0",
        "--provider",
        "replay",
        "--replay",
        str(FULL_FUNCTION_STUDY),
        "--json",
    )
    assert replay.returncode == 0, replay.stderr
    [outcome] = json.loads(replay.stdout)["runs"]
    replayed = run_store.load_run(outcome["run_id"])
    stored = run_store.load_run(imported["Study_0"])
    assert [s.code for s in replayed.samples] == [s.code for s in stored.samples]
    assert [s.extraction for s in replayed.samples] == [s.extraction for s in stored.samples]


# --- 3. an unknown contract is an error, not a silent loss of the oracle --------------------


def test_jsonl_sample_naming_an_unknown_contract_is_exit_2(tmp_path, isolated_home, capsys):
    """Old code: exit 0, table shows `–` for pass."""
    source = tmp_path / "s.jsonl"
    source.write_text(
        json.dumps({"contract_id": "gcd", "code": "def gcd(a, b):\n    return a"})
        + "\n"
        + json.dumps({"contract_id": "no_such_contract", "code": "x = 1"})
        + "\n"
    )
    for command in ("analyze", "import"):
        assert main([command, str(source)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0
        assert f"{source}: line 2: contract 'no_such_contract' is not known" in err
    assert run_store.run_ids() == []
    assert main(["analyze", str(source), "--no-oracle", "--json"]) == 0
    capsys.readouterr()


# --- 4. concurrent imports are idempotent ---------------------------------------------------


def test_two_concurrent_imports_store_each_run_once(tmp_path, isolated_home):
    """Old code: the origin index was read outside the store lock (both imports stored all)."""
    source = tmp_path / "many.jsonl"
    with source.open("w") as handle:
        for run in range(40):
            for sample in range(3):
                row = {"run_id": f"r{run}", "contract_id": "gcd", "code": f"x = {sample}"}
                handle.write(json.dumps(row) + "\n")
    env = cli_env(isolated_home)
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "skyt_tui", "import", str(source), "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=300) for process in processes]
    assert all(process.returncode == 0 for process in processes), outputs
    created = [json.loads(out)["created"] for out, _ in outputs]
    assert sorted(len(c) for c in created) == [0, 40]
    assert len(run_store.run_ids()) == 40


# --- 5. a damaged record is reported, not dropped -------------------------------------------


def test_torn_record_in_the_middle_marks_the_run_damaged(tmp_path, isolated_home, capsys):
    """Old code: "19 ok, 1 missing · complete" and metrics as if whole."""
    source = tmp_path / "g.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "gcd", "code": f"def gcd(a, b):\n    return {i}"}) + "\n"
            for i in range(20)
        )
    )
    assert main(["import", str(source), "--json"]) == 0
    [run_id] = json.loads(capsys.readouterr().out)["created"]
    path = run_store.run_path(run_id) / run_store.SAMPLES_FILE
    lines = path.read_text().split("\n")
    lines[9] = lines[9][:40]
    path.write_text("\n".join(lines))

    run = run_store.load_run(run_id)
    assert run.state == "damaged" and len(run.samples) == 19
    assert run.damaged == (f"{path}: line 10: torn record (a write that did not finish)",)
    [summary] = run_store.list_runs()
    assert summary.state == "damaged" and "line 10" in (summary.error or "")
    assert main(["report", run_id, "--brief"]) == 0
    out = capsys.readouterr().out
    assert "damaged" in out and "line 10" in out and "not complete" in out
    assert "· complete" not in out


def test_run_folder_without_run_json_is_listed_as_damaged(isolated_home):
    (isolated_home / "runs" / "20260101-000000-lost").mkdir(parents=True)
    [summary] = run_store.list_runs()
    assert summary.state == "damaged" and summary.error.endswith("run.json: missing")


# --- 6. a full disk is one line, exit 2, nothing half-written -------------------------------


def test_full_disk_is_one_line_and_leaves_nothing_half_written(
    tmp_path, isolated_home, monkeypatch, capsys
):
    """Old code: a 23-line traceback and exit 1."""
    install_contract(isolated_home)
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps({"contract_id": "add_one", "code": "def f(x): return x"}) + "\n")

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store.os, "fsync", no_space)
    assert main(["import", str(source)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "No space left on device" in err
    assert str(isolated_home / "runs") in err
    leftovers = [p.name for p in (isolated_home / "runs").iterdir()]
    assert leftovers == []


def test_append_that_fails_takes_its_partial_record_back(tmp_path, monkeypatch):
    path = tmp_path / "log.jsonl"
    store.append_jsonl(path, {"a": 1})
    before = path.read_bytes()
    real_write = os.write

    def short_then_full(fd: int, data: bytes) -> int:
        if len(data) > 10:
            real_write(fd, data[:5])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(store.os, "write", short_then_full)
    with pytest.raises(store.StoreError, match="cannot write: No space left on device"):
        store.append_jsonl(path, {"b": "x" * 40})
    assert path.read_bytes() == before


# --- 7. a run whose every sample failed is failed -------------------------------------------


def test_run_whose_every_sample_failed_is_failed(isolated_home):
    """Old code: status complete."""
    install_contract(isolated_home)
    result = run_cli(
        isolated_home, "run", "add_one", "--provider", "command", "--command", "false", "-n", "2"
    )
    assert result.returncode != 0
    assert "failed, 0 ok, 2 failed of 2" in result.stdout
    [summary] = run_store.list_runs()
    assert summary.state == "failed" and summary.meta.status == "failed"
    report = _report_json(isolated_home, summary.id)
    assert report["state"] == "failed" and report["metrics"]["n"] == 0


# --- also: field mapping for a study's own records -------------------------------------------


def test_field_map_reads_a_studys_own_records(tmp_path, isolated_home, capsys):
    install_contract(isolated_home)
    source = tmp_path / "study.json"
    records = [
        {"problem": "add_one", "out": {"text": "def f(x):\n    return x + 1"}, "llm": "m", "k": 1},
        {"problem": "add_one", "out": {"text": "def f(x):\n    return x"}, "llm": "m", "k": 0},
    ]
    source.write_text(json.dumps({"results": records}))
    data = _analyze_json(
        str(source), "--map", "task=problem,code=out.text,model=llm,sample=k", capsys=capsys
    )
    [run] = data["runs"]
    assert (run["contract_id"], run["model"], run["n"]) == ("add_one", "m", 2)
    assert run["metrics"]["pass_rate"] == 0.5

    mapping = tmp_path / "map.toml"
    mapping.write_text('[map]\ntask = "problem"\ncode = "out.text"\nmodel = "llm"\nsample = "k"\n')
    again = _analyze_json(str(source), "--map", str(mapping), capsys=capsys)
    assert again["runs"][0]["metrics"] == run["metrics"]


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ("task=problem,colour=red", "--map: unknown key 'colour'"),
        ("task", "--map: 'task' is neither KEY=FIELD pairs nor a TOML mapping file"),
        ("code=", "--map: code must name a field"),
        ("task=problem,code=missing", "record 1: field 'missing' is missing"),
    ],
)
def test_bad_field_map_is_one_line(tmp_path, isolated_home, capsys, mapping, message):
    source = tmp_path / "study.json"
    source.write_text(json.dumps([{"problem": "add_one", "out": "x = 1"}]))
    assert main(["analyze", str(source), "--map", mapping, "--no-oracle"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err


# --- the embedded contract's id and provenance -----------------------------------------------


def _template(expected: int) -> dict:
    return {
        "id": "gcd",
        "prompt": "Write gcd(a, b).",
        "constraints": {"function_name": "gcd"},
        "oracle_requirements": {"test_cases": [{"input": [12, 18], "expected": expected}]},
        "created_timestamp": "2026-01-23T11:48:02",
    }


def _experiment(path: Path, template: dict) -> Path:
    path.write_text(
        json.dumps(
            {
                "experiment_id": path.stem,
                "contract_id": "gcd",
                "model": "m",
                "temperature": 0.0,
                "contract": template,
                "raw_outputs": ["def gcd(a, b):\n    return 6"],
            }
        )
    )
    return path


def test_embedded_contract_id_is_namespaced_by_what_judges(tmp_path):
    from skyt_tui.engine.sources.recorded import load_skyt_experiment

    first = load_skyt_experiment(_experiment(tmp_path / "a.json", _template(6)))
    again = _template(6)
    again["created_timestamp"] = "2026-01-24T09:00:00"  # SKYT writes one per file
    second = load_skyt_experiment(_experiment(tmp_path / "b.json", again))
    other = load_skyt_experiment(_experiment(tmp_path / "c.json", _template(7)))
    assert first.contract_id == second.contract_id != other.contract_id
    assert (
        first.contract_id.startswith("skyt.gcd.") and len(first.contract_id) == len("skyt.gcd.") + 8
    )
    contract = first.extra["contract"]
    assert contract.source["file"] == str((tmp_path / "a.json").resolve())
    assert contract.source["original_id"] == "gcd" and len(contract.source["template_sha256"]) == 64
    assert first.extra["skyt_contract_id"] == "gcd"


def test_unusable_embedded_contract_is_an_error_unless_no_oracle(tmp_path, isolated_home, capsys):
    broken = _template(6)
    del broken["oracle_requirements"]
    source = _experiment(tmp_path / "e.json", broken)
    assert main(["analyze", str(source)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"{source}: the embedded contract is not usable" in err
    assert main(["analyze", str(source), "--no-oracle", "--json"]) == 0


def test_store_lock_is_reentrant_within_a_thread(isolated_home):
    with store.store_lock(), store.store_lock(timeout_s=0.1):
        pass
    with store.store_lock(timeout_s=0.1):  # released by the outer hold
        pass
