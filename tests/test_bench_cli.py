"""`skyt-tui bench …` end to end: import, sample, validate, status, list, over small files and the corpus."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from skyt_tui.cli import main
from tests.corpus import require

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def demo(tmp_path, monkeypatch):
    """60 items (20 per difficulty), 16 systems whose score on every item is their ability ± noise."""
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    rng = np.random.default_rng(0)
    ids = [f"{difficulty}-{n:02d}" for difficulty in ("easy", "medium", "hard") for n in range(20)]
    issues = tmp_path / "issues.jsonl"
    issues.write_text(
        "".join(
            json.dumps({"id": item_id, "difficulty": item_id.split("-")[0]}) + "\n"
            for item_id in ids
        )
    )
    rows = ["system,issue_id,score"]
    for k in range(16):
        for item_id in ids:
            rows.append(
                f"sys{k:02d},{item_id},{float(np.clip(k / 16 + rng.normal(0, 0.1), 0, 1)):.3f}"
            )
    results = tmp_path / "results.csv"
    results.write_text("\n".join(rows) + "\n")
    assert main(["bench", "import", "demo", str(issues), "--results", str(results)]) == 0
    return tmp_path


def run_json(capsys, *argv):
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_sample_is_stored_with_seed_config_and_ids(demo, capsys):
    argv = ["bench", "sample", "demo", "--method", "stratified", "--floor", "9", "--seed", "3"]
    sample = run_json(capsys, *argv)
    assert sample["size"] == 9 and sample["allocation"] == {"easy": 3, "hard": 3, "medium": 3}
    assert sample["seed"] == 3 and sample["config"] == {
        "floor": 9,
        "mode": "stratified",
        "rate": 0.01,
    }
    assert sample["benchmark_version"] == 1
    again = run_json(capsys, *argv)
    assert again["ids"] == sample["ids"]
    log = (demo / "home/benchmarks/demo/samples.jsonl").read_text().splitlines()
    assert len(log) == 2 and json.loads(log[0])["schema_version"] == 1
    status = run_json(capsys, "bench", "status", "demo")
    assert status["sample"]["ids"] == sample["ids"] and status["rotation"]["history"] == []
    listing = run_json(capsys, "bench", "list")["benchmarks"]
    assert listing[0]["name"] == "demo" and listing[0]["sample"]["size"] == 9


def test_random_sample_flag(demo, capsys):
    sample = run_json(capsys, "bench", "sample", "demo", "--random", "--floor", "5")
    assert sample["config"]["mode"] == "random" and sample["size"] == 5


def test_validate_json_report(demo, capsys):
    report = run_json(capsys, "bench", "validate", "demo", "--floor", "30", "--draws", "40")
    assert (
        report["sample_size"] == 30
        and report["n_held_out"] == 8
        and len(report["draws_pearson"]) == 40
    )
    assert report["pearson"]["median"] > 0.9 and 0 <= report["share_above"] <= 1
    assert any("only 8 held-out systems" in warning for warning in report["warnings"])
    assert len(report["sample_check"]["points"]) == 16
    again = run_json(capsys, "bench", "validate", "demo", "--floor", "30", "--draws", "40")
    assert again == report


def test_validate_human_output_has_verdict_and_warnings(demo, capsys):
    capsys.readouterr()
    assert main(["bench", "validate", "demo", "--floor", "0", "--draws", "20"]) == 0
    out = capsys.readouterr().out
    assert "Pearson r" in out and "share of draws with r > 0.9" in out
    assert "warning: the sample has only 3 items" in out and "NOT trustworthy" in out


def test_validation_results_are_identical_across_processes(demo):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(demo / "home")}
    outputs = {
        subprocess.run(
            [
                sys.executable,
                "-m",
                "skyt_tui",
                "bench",
                "validate",
                "demo",
                "--draws",
                "25",
                "--json",
            ],
            cwd=ROOT,
            env={**env, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_argument_errors_exit_2(demo, capsys):
    capsys.readouterr()
    assert main(["bench", "validate", "demo", "--holdout-systems", "0"]) == 2
    assert "--holdout-systems: 0.0 must be in (0, 1]" in capsys.readouterr().err
    assert main(["bench", "rotate", "demo", "--now", "tomorrow"]) == 2
    assert "--now: 'tomorrow' is not a date" in capsys.readouterr().err
    assert main(["bench", "sample", "demo", "--seed", "-4"]) == 2
    assert not (demo / "home/benchmarks/demo/samples.jsonl").exists()


@pytest.mark.corpus
def test_livecodebench_through_the_cli(tmp_path, monkeypatch, capsys):
    folder = require("benchmarks", "livecodebench-2024-04")
    monkeypatch.setenv("SKYT_HOME", str(tmp_path))
    argv = [
        "bench",
        "import",
        "lcb",
        str(folder / "issues.jsonl"),
        "--results",
        str(folder / "results.csv"),
        "--systems",
        str(folder / "systems.jsonl"),
    ]
    assert main(argv) == 0
    assert main(argv) == 0
    assert "unchanged" in capsys.readouterr().out
    one_percent = run_json(capsys, "bench", "validate", "lcb", "--rate", "0.01", "--floor", "0")
    at_floor = run_json(capsys, "bench", "validate", "lcb")
    assert (one_percent["sample_size"], at_floor["sample_size"]) == (4, 50)
    assert one_percent["systems_excluded"] == {} and len(one_percent["systems_used"]) == 45
    assert not one_percent["trustworthy"] and at_floor["share_above"] > 0.8


def test_a_damaged_rotation_log_marks_its_benchmark_and_lists_the_others(demo, capsys, tmp_path):
    assert main(["bench", "import", "other", "--contracts"]) == 0
    assert main(["bench", "rotate", "other", "--now", "2024-05-03"]) == 0
    log = demo / "home/benchmarks/other/rotations.jsonl"
    log.write_text(log.read_text() + '{"kind": "bench_rotation", oops}\n' + log.read_text())
    listing = run_json(capsys, "bench", "list")["benchmarks"]
    assert [entry["name"] for entry in listing] == ["demo", "other"]
    assert listing[0]["error"] is None
    assert listing[1]["error"] == (
        f"{log}: corrupt record at line 2: Expecting property name enclosed in double quotes"
    )
    capsys.readouterr()
    assert main(["bench", "list"]) == 0
    out = capsys.readouterr().out
    assert "damaged" in out and "demo" in out


def test_a_torn_rotation_record_is_named_by_list_and_status(demo, capsys, monkeypatch):
    """A rotation whose write did not finish is skipped (the log's torn-write recovery), and a
    later rotation appends after it; `bench list` and `bench status` said nothing of the lost
    record."""
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["bench", "rotate", "demo", "--now", "2024-05-03"]) == 0
    log = demo / "home/benchmarks/demo/rotations.jsonl"
    with log.open("a") as handle:
        handle.write('{"kind": "bench_rotation", "period": tru')
    assert main(["bench", "rotate", "demo", "--now", "2024-06-03"]) == 0
    said = f"{log}: line 2: torn record (a write that did not finish)"
    [listed] = run_json(capsys, "bench", "list")["benchmarks"]
    assert listed["torn"] == [said] and listed["rotations"] == 2 and listed["error"] is None
    assert run_json(capsys, "bench", "status", "demo")["torn"] == [said]
    for command in (["bench", "list"], ["bench", "status", "demo"]):
        assert main(command) == 0
        out = " ".join(capsys.readouterr().out.split())
        assert f"warning: {said}; that record is lost" in out


def test_status_shows_the_rotation_history_with_the_apps_columns(demo, capsys, monkeypatch):
    """`bench status` and the app's History tab draw one table: the same columns, the same cells."""
    from skyt_tui.engine import benchmark
    from skyt_tui.ui.bench_text import history_view

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["bench", "rotate", "demo", "--now", "2024-05-03"]) == 0
    assert main(["bench", "rotate", "demo", "--now", "2024-05-20", "--force"]) == 0
    capsys.readouterr()
    assert main(["bench", "status", "demo"]) == 0
    out = capsys.readouterr().out
    history = benchmark.rotation_history("demo")
    rows = benchmark.history_rows(history)
    assert len(rows) == 2 and rows[1][3] == "yes"
    header = next(line for line in out.splitlines() if "at (UTC)" in line)
    assert [name for name in benchmark.HISTORY_COLUMNS if name not in header] == []
    for row in rows:
        assert any(all(cell in line for cell in row) for line in out.splitlines()), row
    from rich.console import Console

    console = Console(width=200, record=True, file=open(os.devnull, "w"))
    console.print(history_view(tuple(history)))
    shown = console.export_text()
    for row in rows:
        assert any(all(cell in line for cell in row) for line in shown.splitlines()), row


def test_a_method_that_fell_back_in_every_draw_gets_no_verdict_of_its_own(demo, capsys):
    """`--holdout-systems 1 --method irt`: no system left to train IRT, so every draw was
    stratified's, and the report still said "trustworthy: r > 0.9 in 100% of draws"."""
    argv = ["bench", "validate", "demo", "--method", "irt", "--draws", "5", "--split-date", "off"]
    report = run_json(capsys, *argv, "--holdout-systems", "1")
    assert report["trustworthy"] is False
    assert report["verdict"].startswith("NOT measured: irt fell back to stratified in 5 of 5 draws")
    assert report["verdict"].endswith("every figure is stratified's")
    stratified = [*argv[:4], "stratified", *argv[5:]]
    kept = run_json(capsys, *stratified, "--holdout-systems", "1")
    assert not kept["verdict"].startswith("NOT measured")


def test_piped_status_and_validate_tables_keep_whole_cells(demo, capsys, monkeypatch):
    """Piped (a CI log, a file, `| less -S`), every table of `bench status` and `bench validate
    --method all` is as wide as its cells, as every other table of the command line is
    (`output.print_table`): the rotation history cut its dates in 80 columns ("2024-0…"), and
    the methods tables folded their names over lines."""
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["bench", "rotate", "demo", "--now", "2024-05-03"]) == 0
    assert main(["bench", "rotate", "demo", "--now", "2024-05-20", "--force"]) == 0
    capsys.readouterr()
    assert main(["bench", "status", "demo"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "at (UTC)" in line)
    assert "pool after" in header and "held-out" in header, header
    for when in ("2024-05-03 00:00", "2024-05-20 00:00"):
        assert any(when in line and "monthly" in line for line in out.splitlines()), out
    argv = ["bench", "validate", "demo", "--method", "all", "--draws", "5", "--floor", "30"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "MAE p95" in line)
    assert "trusted" in header and "cover" in header, header
    for method in ("irt (fell back)", "cluster (fell back)"):  # fewer than 10 training systems
        assert any(method in line and "%" in line for line in out.splitlines()), out
