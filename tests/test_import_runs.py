"""`skyt-tui import`: recorded samples become stored runs, once, with their model, temperature and id."""

import importlib.util
import json
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.run_import import import_runs
from tests.corpus import require
from tests.run_helpers import CONTRACT_ID, install_contract, run_cli

HAS_IMPORTERS = importlib.util.find_spec("skyt_tui.engine.sources.importers") is not None


def skyt_experiment(path: Path, experiment_id: str, outputs, **extra):
    data = {
        "experiment_id": experiment_id,
        "contract_id": CONTRACT_ID,
        "model": "gpt-x",
        "temperature": 0.5,
        "timestamp": "2026-01-19T13:16:09.121992",
        "raw_outputs": outputs,
        **extra,
    }
    path.write_text(json.dumps(data))
    return path


def test_skyt_file_keeps_model_temperature_id_and_time(tmp_path, isolated_home):
    install_contract(isolated_home)
    source = skyt_experiment(
        tmp_path / "e.json", "add_one_temp0.5_x", ["def f(x):\n    return x + 1", None]
    )
    result = import_runs([source])
    [meta] = result.created
    assert meta.id.startswith("20260119-131609-add_one-t0.5-")
    assert (meta.model, meta.temperature, meta.n, meta.status, meta.provider) == (
        "gpt-x",
        0.5,
        2,
        "complete",
        "replay",
    )
    assert meta.origin["experiment_id"] == "add_one_temp0.5_x" and meta.origin["format"] == "skyt"
    assert meta.contract_id == CONTRACT_ID and meta.contract_hash is not None, (
        "contract taken from the catalog"
    )
    run = run_store.load_run(meta.id)
    assert [(s.status, s.code) for s in run.samples] == [
        ("ok", "def f(x):\n    return x + 1"),
        ("failed", None),
    ]
    assert run.samples[1].error == "no output recorded in the source"
    assert analyses.analyze_stored_run(run)["metrics"]["n_failed"] == 1
    again = import_runs([source])
    assert again.created == () and again.existing == (meta.id,)


def test_jsonl_source_with_overrides_for_missing_model_and_temperature(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_text(
        '{"run_id": "r1", "contract_id": "unknown_c", "code": "x = 1"}\n{"run_id": "r1", "code": "x = 2"}\n'
    )
    with pytest.raises(InputError) as refused:
        import_runs([source], model="local-model", temperature=0.9)
    assert str(refused.value).startswith(f"{source}: line 1: contract 'unknown_c' is not known")
    assert run_store.run_ids() == []
    result = import_runs([source], model="local-model", temperature=0.9, require_contract=False)
    [meta] = result.created
    assert (meta.model, meta.temperature, meta.contract_id, meta.contract) == (
        "local-model",
        0.9,
        "unknown_c",
        None,
    )
    assert meta.origin["contract_origin"].startswith("none")


def test_bad_source_stores_nothing(tmp_path, isolated_home, capsys):
    good = skyt_experiment(tmp_path / "good.json", "g", ["x = 1"])
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["import", str(good), str(bad)]) == 2
    assert "bad.json: invalid JSON at the end of line 1" in capsys.readouterr().err
    assert run_store.run_ids() == []


def test_humaneval_folder_imports_runs_and_their_contracts(tmp_path, isolated_home):
    folder = tmp_path / "he"
    folder.mkdir()
    problem = {
        "task_id": "HumanEval/0",
        "prompt": 'def inc(x):\n    """x + 1"""\n',
        "entry_point": "inc",
        "canonical_solution": "    return x + 1\n",
        "test": "def check(candidate):\n    assert candidate(1) == 2\n",
    }
    (folder / "problems.jsonl").write_text(json.dumps(problem) + "\n")
    (folder / "samples.jsonl").write_text(
        "".join(
            json.dumps({"task_id": "HumanEval/0", "completion": c}) + "\n"
            for c in ("    return x + 1\n", "    return 1 + x\n\ndef extra():\n    pass\n")
        )
    )
    result = import_runs([folder], model="codegen-16B", temperature=0.8)
    [meta] = result.created
    assert (meta.contract_id, meta.model, meta.temperature, meta.origin["task_id"]) == (
        "HumanEval_0",
        "codegen-16B",
        0.8,
        "HumanEval/0",
    )
    codes = [s.code for s in run_store.load_run(meta.id).samples]
    assert codes == [
        problem["prompt"] + "    return x + 1\n",
        problem["prompt"] + "    return 1 + x\n",
    ]
    if HAS_IMPORTERS:
        assert (
            result.contracts_written == ("HumanEval_0",)
            and meta.contract["prompt_style"] == "completion"
        )
        assert (isolated_home / "contracts" / "HumanEval_0.toml").exists()
    else:
        assert meta.contract is None and "no contract importers" in result.contract_problems[0]


@pytest.mark.corpus
def test_skyt_corpus_becomes_240_runs_and_reports_per_sample(isolated_home):
    outputs = require("skyt-msr2026", "outputs")
    result = run_cli(isolated_home, "import", str(outputs), "--json")
    assert result.returncode == 0, result.stderr
    created = json.loads(result.stdout)["created"]
    assert len(created) == 240 and len(set(created)) == 240
    summaries = run_store.list_runs()
    assert len(summaries) == 240 and sum(s.n_ok for s in summaries) == 4505
    by_experiment = {s.meta.origin["experiment_id"]: s.meta for s in summaries}
    recorded = json.loads((outputs / "gcd_temp0.7_20260119_134348.json").read_text())
    meta = by_experiment["gcd_temp0.7_20260119_134348"]
    assert (meta.temperature, meta.model, meta.origin["skyt_contract_id"]) == (
        0.7,
        recorded.get("model"),
        "gcd",
    )
    assert meta.contract_id.startswith("skyt.gcd.") and meta.origin["contract_origin"] == "embedded"
    report = run_cli(isolated_home, "report", meta.id, "--json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert len(data["samples"]) == len(recorded["raw_outputs"])
    assert all("d_pre" in row and "d_post" in row for row in data["samples"])
    assert data["metrics"]["R_raw"] == recorded["metrics"]["R_raw"]
    again = json.loads(run_cli(isolated_home, "import", str(outputs), "--json").stdout)
    assert again["created"] == [] and len(again["existing"]) == 240


def test_import_and_report_are_identical_across_processes_and_hash_seeds(tmp_path):
    codes = [
        "def f(x):\n    return x + 1",
        "def f(x):\n    y = x\n    return y + 1",
        None,
        "def f(x):\n    return 1 + x",
    ]
    source = skyt_experiment(tmp_path / "e.json", "add_one_temp0.5_x", codes)
    reports = []
    for seed in ("1", "2"):
        home = tmp_path / f"home{seed}"
        install_contract(home)
        assert run_cli(home, "import", str(source), PYTHONHASHSEED=seed).returncode == 0
        report = run_cli(home, "report", "latest", "--json", PYTHONHASHSEED=seed)
        assert report.returncode == 0, report.stderr
        reports.append(report.stdout)
    assert reports[0] == reports[1]
    assert json.loads(reports[0])["metrics"]["n_failed"] == 1


def test_a_blank_model_is_refused_and_a_relabel_is_said_not_done(tmp_path, isolated_home, capsys):
    """`import --model ''` stored a run with an empty model; importing the same samples again with
    another `--model` said only "1 already stored", as if the run now had that model."""
    source = tmp_path / "s.jsonl"
    source.write_text('{"run_id": "r1", "contract_id": "gcd", "code": "x = 1"}\n')
    for blank in ("", "  "):
        assert main(["import", str(source), "--model", blank]) == 2
        err = capsys.readouterr().err
        assert "--model: must name a model, not be empty" in err and err.count("\n") == 1
    assert run_store.run_ids() == []
    assert main(["import", str(source), "--model", "m1", "--temperature", "0.5"]) == 0
    [run_id] = run_store.run_ids()
    capsys.readouterr()
    assert main(["import", str(source), "--model", "m1", "--temperature", "0.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["labels_kept"] == []
    assert main(["import", str(source), "--model", "m2", "--temperature", "0.7"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "0 runs; 1 already stored" in out
    assert f"note: run {run_id} was stored before with model 'm1': --model 'm2' does not" in out
    assert "with temperature 0.5: --temperature 0.7 does not change it" in out
    assert run_store.load_meta(run_id).model == "m1" and run_store.run_ids() == [run_id]


def test_report_leaves_attempts_and_truncation_empty_for_imported_samples(
    tmp_path, isolated_home, capsys
):
    """`report --csv` of an imported run gave every sample `truncated` False and `attempts` 1,
    which its source never recorded, where `analyze --csv` of the same file leaves them empty."""
    source = tmp_path / "s.jsonl"
    source.write_text(
        '{"run_id": "r1", "contract_id": "gcd", "code": "def gcd(a, b):\\n    return a"}\n'
        '{"run_id": "r1", "contract_id": "gcd", "code": null}\n'
    )
    assert main(["analyze", str(source), "--csv", str(tmp_path / "a.csv")]) == 0
    assert main(["import", str(source), "--model", "m"]) == 0
    assert main(["report", "latest", "--csv", str(tmp_path / "r.csv")]) == 0
    assert main(["report", "latest"]) == 0
    out = capsys.readouterr().out
    assert "sample 1 failed: no output recorded in the source" in " ".join(out.split())
    import csv

    analysed = list(csv.DictReader((tmp_path / "a.csv").open()))
    reported = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [(r["truncated"], r["attempts"]) for r in reported] == [("", ""), ("", "")]
    assert (analysed[0]["truncated"], analysed[0]["attempts"]) == ("", "")
