"""Small CLI defects, each kept fixed: a closed pipe, a missing output folder, file modes,
tables cut to 80 columns when piped."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from skyt_tui.engine import store

ROOT = Path(__file__).resolve().parents[1]
FIB = "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n"


def cli(home, *args, **popen):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(PYTHONPATH=str(ROOT), SKYT_HOME=str(home))
    return subprocess.Popen(
        [sys.executable, "-m", "skyt_tui", *args], cwd=ROOT, env=env, text=True, **popen
    )


@pytest.mark.parametrize(
    "argv", [["runs", "list"], ["contracts", "list"], ["paths"], ["contracts", "list", "--json"]]
)
def test_a_reader_that_goes_away_is_exit_0_without_a_traceback(isolated_home, argv):
    """`skyt-tui runs list | head -1`: the reader has closed the pipe before we write."""
    process = cli(isolated_home, *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0, err
    assert err == ""


def test_report_csv_into_a_missing_folder_is_an_error_and_makes_no_folder(demo_home, capsys):
    target = demo_home / "nonexistent" / "dir" / "x.csv"
    assert main(["report", "latest", "--csv", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"skyt-tui: error: {target}: directory {target.parent} does not exist\n"
    assert not (demo_home / "nonexistent").exists()


def test_analyze_csv_into_a_missing_folder_is_an_error_before_any_work(tmp_path, capsys):
    source = tmp_path / "s.jsonl"
    source.write_text(json.dumps({"contract_id": "fibonacci_iterative", "code": FIB}) + "\n")
    assert main(["analyze", str(source), "--csv", str(tmp_path / "no" / "x.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_atomic_writes_honour_the_umask_like_appended_logs(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        store.atomic_write_text(tmp_path / "a.json", "{}\n")
        store.append_jsonl(tmp_path / "log.jsonl", {"schema_version": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "log.jsonl").stat().st_mode) == 0o644 & ~umask


def test_analysis_table_is_not_cut_to_80_columns_when_piped(isolated_home, tmp_path):
    source = tmp_path / "samples.jsonl"
    source.write_text(
        "".join(
            json.dumps({"contract_id": "fibonacci_iterative", "model": "m", "code": FIB}) + "\n"
            for _ in range(2)
        )
    )
    process = cli(isolated_home, "analyze", str(source), stdout=subprocess.PIPE)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0
    header = next(line for line in out.splitlines() if "R_raw" in line)
    for column in ("run", "model", "R_anchor pre→post", "μ pre→post", "P_τ pre→post", "R_pairwise"):
        assert column in header, header
    assert len(header.rstrip()) > 80
    [row] = [line for line in out.splitlines() if "fibonacci_iterative" in line]
    assert "1.000" in row and "…" not in row
