"""`skyt-tui contracts list|show|validate|import-*` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skyt_tui.cli import main
from tests.corpus import require
from tests.test_contracts import BAD_FILES

ROOT = Path(__file__).resolve().parents[1]

GOOD = """
id = "{id}"
title = "{title}"
difficulty = "easy"
prompt = "Write `f`."
entry = {{ name = "f" }}

[[tests]]
kind = "call"
name = "one"
args = [1]
expected = 1
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "120")
    return tmp_path / "home"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_json_has_bundled_contracts_and_invalid_user_files(home, capsys):
    user = home / "contracts"
    user.mkdir(parents=True)
    (user / "mine.toml").write_text(GOOD.format(id="mine", title="Mine"))
    (user / "broken.toml").write_text('id = "broken"\n')
    code, out, _ = run(capsys, "contracts", "list", "--json")
    assert code == 0
    rows = {row["id"]: row for row in json.loads(out)["contracts"]}
    assert rows["lru_cache"]["entry"] == {"kind": "class", "name": "LRUCache"}
    assert rows["lru_cache"]["kinds"] == ["stateful"] and rows["lru_cache"]["origin"] == "bundled"
    assert (
        rows["mine"]["origin"] == "user"
        and rows["mine"]["tests"] == 1
        and rows["mine"]["error"] is None
    )
    assert (
        rows["broken"]["error"].endswith("broken.toml: difficulty: missing required key")
        or "missing required key" in rows["broken"]["error"]
    )
    assert "title" not in rows["broken"]


def test_list_table_shows_ids_and_the_invalid_files(home, capsys):
    (home / "contracts").mkdir(parents=True)
    (home / "contracts" / "broken.toml").write_text("not = [toml\n")
    code, out, _ = run(capsys, "contracts", "list")
    assert code == 0
    assert "fibonacci_iterative" in out and "LRUCache (class)" in out
    assert "1 invalid contract file:" in out and "broken.toml: invalid TOML" in out


def test_show_prints_prompt_tests_and_reference_without_eating_brackets(home, capsys):
    code, out, _ = run(capsys, "contracts", "show", "balanced_brackets")
    assert code == 0
    assert 'so "([)]" is not balanced' in out
    assert "is_balanced('([)]') → False" in out
    assert "def is_balanced(s):" in out


def test_show_renders_each_test_kind_readably(home, capsys):
    _, out, _ = run(capsys, "contracts", "show", "lru_cache")
    assert (
        "obj = LRUCache(2)" in out
        and "obj.put(1, 1) → None" in out
        and "obj.put(2, 2)   (result not checked)" in out
    )
    assert "obj = LRUCache(capacity=2)" in out
    _, out, _ = run(capsys, "contracts", "show", "min_stack")
    assert "obj.pop() raises IndexError" in out
    _, out, _ = run(capsys, "contracts", "show", "newton_sqrt")
    assert "newton_sqrt(2) ≈ 1.4142135623730951  (rel_tol=1e-09, abs_tol=0)" in out
    assert "raise ValueError for newton_sqrt(-4); newton_sqrt(-0.5)" in out
    _, out, _ = run(capsys, "contracts", "show", "roman_numerals")
    assert (
        "int_to_roman(0) raises ValueError" in out and "int_to_roman(number=2024) → 'MMXXIV'" in out
    )
    _, out, _ = run(capsys, "contracts", "show", "merge_sort")
    assert "check(merge_sort) with the code below" in out and "def check(candidate):" in out


def test_show_json_is_the_contract_document(home, capsys):
    code, out, _ = run(capsys, "contracts", "show", "factorial", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["id"] == "factorial" and doc["origin"] == "bundled"
    assert doc["tests"][5]["expected_py"] == "15511210043330985984000000"
    assert len(doc["content_hash"]) == 64


def test_show_by_path_and_unknown_id(home, capsys, tmp_path):
    path = tmp_path / "x.toml"
    path.write_text(GOOD.format(id="x", title="By path"))
    code, out, _ = run(capsys, "contracts", "show", str(path))
    assert code == 0 and "By path" in out
    code, _, err = run(capsys, "contracts", "show", "no_such_contract")
    assert (
        code == 2
        and err
        == "skyt-tui: error: contract 'no_such_contract': not found (see `skyt-tui contracts list`)\n"
    )


def test_validate_reports_each_file_and_exits_2_when_any_is_bad(home, capsys, tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(GOOD.format(id="good", title="Good"))
    bad = tmp_path / "bad.toml"
    bad.write_text(
        GOOD.format(id="bad", title="Bad").replace('difficulty = "easy"', 'difficulty = "trivial"')
    )
    code, out, _ = run(capsys, "contracts", "validate", str(good))
    assert code == 0 and f"ok     {good} (good)" in out
    code, out, err = run(
        capsys, "contracts", "validate", str(good), str(bad), str(tmp_path / "absent.toml")
    )
    assert code == 2
    assert err.splitlines() == [
        f"skyt-tui: error: {bad}: difficulty: must be one of easy, medium, hard; got 'trivial'",
        f"skyt-tui: error: {tmp_path / 'absent.toml'}: no such file",
    ]
    assert "1 valid, 2 invalid" in out


def test_validate_a_folder_finds_duplicate_ids(home, capsys, tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "a.toml").write_text(GOOD.format(id="same", title="A"))
    (folder / "b.toml").write_text(GOOD.format(id="same", title="B"))
    code, out, err = run(capsys, "contracts", "validate", str(folder), "--json")
    assert code == 2
    document = json.loads(out)
    assert document["kind"] == "contract_validation" and document["valid"] is False
    results = document["results"]
    assert [r["ok"] for r in results] == [True, False]
    assert results[1]["error"] == f"{folder / 'b.toml'}: id: 'same' is already used by a.toml"


def test_bundled_contracts_all_validate(home, capsys):
    code, out, _ = run(capsys, "contracts", "validate", str(ROOT / "contracts"))
    assert code == 0 and " 0 invalid" in out


@pytest.mark.corpus
def test_import_skyt_into_the_store_then_again_is_skipped(home, capsys):
    templates = require("skyt-msr2026", "templates.json")
    code, out, _ = run(capsys, "contracts", "import-skyt", str(templates))
    assert code == 0
    assert len(list((home / "contracts").glob("*.toml"))) == 10
    assert "10 contracts in" in out and "10 written" in out
    code, out, _ = run(capsys, "contracts", "import-skyt", str(templates))
    assert code == 0 and "(identical content, skipped)" in out and "10 unchanged" in out
    code, _, err = run(capsys, "contracts", "import-skyt", str(templates), "--difficulty", "hard")
    assert code == 2 and "exists with different content; use --force to overwrite" in err
    code, out, _ = run(
        capsys,
        "contracts",
        "import-skyt",
        str(templates),
        "--difficulty",
        "hard",
        "--force",
        "--json",
    )
    assert code == 0
    assert {c["action"] for c in json.loads(out)["contracts"]} == {"overwritten"}
    _, out, _ = run(capsys, "contracts", "list", "--json")
    rows = {row["id"]: row for row in json.loads(out)["contracts"]}
    assert rows["slugify"]["origin"] == "user" and rows["slugify"]["difficulty"] == "hard"


@pytest.mark.corpus
def test_import_humaneval_to_an_out_folder(home, capsys, tmp_path):
    problems = require("humaneval-codegen16b", "problems.jsonl")
    out_dir = tmp_path / "he"
    code, out, _ = run(
        capsys, "contracts", "import-humaneval", str(problems), "--out", str(out_dir), "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert len(report["contracts"]) == 80 and report["out_dir"] == str(out_dir)
    assert not (home / "contracts").exists()
    code, out, _ = run(capsys, "contracts", "validate", str(out_dir))
    assert code == 0 and "80 valid, 0 invalid" in out


def test_exit_code_2_end_to_end_in_a_subprocess(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("id = 3\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": str(tmp_path / "home")}
    result = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "contracts", "validate", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert result.returncode == 2
    assert result.stderr == f"skyt-tui: error: {bad}: id: must be a string, not an integer\n"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_validate_gives_exit_2_and_one_line_for_every_bad_file_kind(home, capsys, tmp_path, case):
    text, key, reason = BAD_FILES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, out, err = run(capsys, "contracts", "validate", str(path))
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith(f"skyt-tui: error: {path}: ")
    assert reason in err
    assert "0 valid, 1 invalid" in out
