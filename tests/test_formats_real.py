"""Files written by the tools themselves (tests/fixtures/formats/real) read with no conversion,
skyt-tui's pass rate beside each tool's (issue 23's done-when), and — slow, when the tools are
installed — the same files written afresh by the tools against the project's fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "formats" / "real"
EVALPLUS_DATASET = ROOT / "tests" / "fixtures" / "formats" / "evalplus" / "StudyPlus.jsonl"


def summary(capsys, *args: str) -> dict:
    assert main(["analyze", *args, "--json", "--no-repair"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["sources"]
    return entry


def test_a_real_inspect_log_zstd_members_and_all(capsys):
    entry = summary(capsys, str(REAL / "inspect.eval"))
    assert entry["format"] == "inspect" and entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(6 / 9)
    assert entry["tool_pass_rate"] == pytest.approx(5 / 9)
    assert entry["disagreements"] == 1  # the prose-then-function answer Inspect's scorer fails


def test_a_real_promptfoo_results_file(capsys):
    entry = summary(capsys, str(REAL / "promptfoo-results.jsonl"))
    assert entry["format"] == "promptfoo" and entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(6 / 9)
    assert entry["tool_pass_rate"] == pytest.approx(5 / 9)
    assert entry["disagreements"] == 1


def test_a_real_lm_eval_samples_file(capsys):
    [samples] = (REAL / "lm-eval").glob("samples_*.jsonl")
    entry = summary(capsys, str(samples))
    assert entry["format"] == "lm-eval" and entry["samples"] == 9
    assert entry["pass_rate"] == pytest.approx(entry["tool_pass_rate"]) == pytest.approx(2 / 3)
    assert entry["disagreements"] == 0


def test_a_real_evalplus_results_file(capsys):
    entry = summary(
        capsys, str(REAL / "evalplus_eval_results.json"), "--problems", str(EVALPLUS_DATASET)
    )
    assert entry["format"] == "evalplus" and entry["samples"] == 9
    assert entry["evalplus"]["plus"]["skyt"] == pytest.approx(entry["evalplus"]["plus"]["tool"])
    assert entry["evalplus"]["base"]["skyt"] == pytest.approx(entry["evalplus"]["base"]["tool"])
    assert entry["disagreements"] == 0


@pytest.mark.slow
def test_the_tools_write_files_that_are_read_as_they_are(tmp_path):
    """Runs each installed tool (paths in SKYT_INSPECT_PYTHON, SKYT_PROMPTFOO,
    SKYT_LM_EVAL_PYTHON) against the fake server; skipped when none is installed."""
    tools = {
        "--inspect-python": os.environ.get("SKYT_INSPECT_PYTHON"),
        "--promptfoo": os.environ.get("SKYT_PROMPTFOO"),
        "--lm-eval-python": os.environ.get("SKYT_LM_EVAL_PYTHON"),
    }
    given = [
        arg for flag, path in tools.items() if path and Path(path).exists() for arg in (flag, path)
    ]
    if not given:
        pytest.skip(
            "no evaluation tool installed (SKYT_INSPECT_PYTHON, SKYT_PROMPTFOO, SKYT_LM_EVAL_PYTHON)"
        )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "coming_from.py"), *given],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "samples · pass" in done.stdout
