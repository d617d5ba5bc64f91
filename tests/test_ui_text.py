"""The UI's pure helpers: the run form, contracts in words, diffs, and where engine data comes from."""

import pytest
from rich.text import Text

from skyt_tui.engine.contract import contract_from_dict
from skyt_tui.ui import data
from skyt_tui.ui.contract_text import describe_constraints, describe_tests, reflow, short_repr
from skyt_tui.ui.diff_text import unified_diff_text
from skyt_tui.ui.run_request import RunFormError, RunRequest, parse_run_form

GOOD = dict(contract_id="c", provider="openai", model="gpt-4o-mini", n="20", temperatures="0, 0.5 ,1",
            concurrency="4")


def test_run_form_parses_a_temperature_sweep():
    assert parse_run_form(**GOOD) == RunRequest("c", "openai", "gpt-4o-mini", 20, (0.0, 0.5, 1.0), 4)


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("provider", "gemini", "choose one of openai, anthropic, command, replay"),
    ("model", "   ", "required"),
    ("n", "0", "must be between 1 and 1000"),
    ("n", "2.5", "must be a whole number, not '2.5'"),
    ("n", "", "required"),
    ("temperatures", "", "required"),
    ("temperatures", "0,,1", "empty value between commas"),
    ("temperatures", "3", "3 is outside [0, 2]"),
    ("temperatures", "0.5, 0.5", "0.5 is given twice"),
    ("concurrency", "65", "must be between 1 and 64"),
])
def test_run_form_names_the_bad_field(field, value, reason):
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**{**GOOD, field: value})
    assert list(caught.value.errors) == [field]
    assert caught.value.errors[field].startswith(reason)


def test_run_form_reports_all_bad_fields_at_once():
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**{**GOOD, "n": "x", "concurrency": "0"})
    assert set(caught.value.errors) == {"n", "concurrency"}


LRU = {
    "id": "lru", "prompt": "Write an LRU cache.", "difficulty": "medium",
    "entry": {"kind": "class", "name": "LRUCache"},
    "tests": [{"kind": "stateful", "name": "evicts", "init": {"args": [2]}, "steps": [
        {"call": "put", "args": [1, 1]},
        {"call": "get", "args": [1], "expected": 1},
        {"call": "get", "args": [9], "expected": -1},
        {"call": "boom", "raises": "KeyError"},
    ]}],
}

DIVIDE = {
    "id": "divide", "prompt": "Divide.", "difficulty": "easy", "entry": {"name": "divide"},
    "constraints": {"forbidden_calls": ["eval"], "style": "recursive"},
    "out_of_domain": {"policy": "must_raise", "raises": "ValueError", "inputs": [{"args": [1, 0]}]},
    "rescue": {"max_transformations": 2, "transformers": ["rename_locals"]},
    "tests": [
        {"kind": "call", "args": [1, 3], "expected": 0.333, "abs_tol": 0.001},
        {"kind": "raises", "args": [1, 0], "raises": "ZeroDivisionError"},
        {"kind": "call", "kwargs": {"a": 4, "b": 2}, "expected_py": "(2, None)"},
        {"kind": "check", "code": "def check(candidate):\n    assert candidate(4, 2) == 2\n"},
    ],
}


def test_tests_read_as_calls():
    assert describe_tests(contract_from_dict(DIVIDE)) == [
        "1. divide(1, 3) == 0.333  (abs_tol=0.001)",
        "2. divide(1, 0) raises ZeroDivisionError",
        "3. divide(a=4, b=2) == (2, None)",
        "4. check(candidate), 2 lines:",
        "     def check(candidate):",
        "         assert candidate(4, 2) == 2",
    ]


def test_stateful_tests_read_as_a_session():
    assert describe_tests(contract_from_dict(LRU)) == [
        "1. [evicts] obj = LRUCache(2)",
        "     obj.put(1, 1)",
        "     obj.get(1) → 1",
        "     obj.get(9) → -1",
        "     obj.boom() raises KeyError",
    ]


def test_constraints_in_words():
    assert describe_constraints(contract_from_dict(DIVIDE)) == [
        "entry: function divide",
        "style: recursive",
        "forbidden calls: eval",
        "oracle: pass threshold 1, timeout 5 s",
        "out of domain: divide(1, 0) must raise ValueError",
        "repair: at most 2 steps, transformers: rename_locals",
    ]


def test_long_values_are_cut():
    assert short_repr("x" * 100) == repr("x" * 100)[:59] + "…"


def test_reflow_joins_wrapped_lines_but_keeps_code_and_lists():
    assert reflow("Write a\nfunction.\n\nRules:\n- one\n- two\n    x = 1\n") == (
        "Write a function.\n\nRules:\n- one\n- two\n    x = 1"
    )


def test_diff_marks_changed_lines_and_never_parses_markup():
    before = "def f(x):\n    return x[0]\n"
    after = "def f(x):\n    return x[1]  # [bold]not markup[/bold]\n"
    diff = unified_diff_text(before, after, "sample 0", "sample 1")
    assert isinstance(diff, Text)
    assert diff.plain.splitlines() == [
        "--- sample 0", "+++ sample 1", "@@ -1,2 +1,2 @@", " def f(x):", "-    return x[0]",
        "+    return x[1]  # [bold]not markup[/bold]",
    ]
    styles = {diff.plain[span.start:span.end].rstrip("\n"): str(span.style) for span in diff.spans}
    assert styles["-    return x[0]"] == "red"
    assert styles["+    return x[1]  # [bold]not markup[/bold]"] == "green"


def test_identical_texts_say_so():
    assert "identical" in unified_diff_text("a = 1", "a = 1", "sample 0", "sample 4").plain


def test_unconnected_adapters_return_nothing(isolated_home):
    assert data.list_runs() == [] and data.list_benchmarks() == [] and data.stored_run_analyses() == []
    assert not data.store_has_runs()
    (isolated_home / "runs" / "r1").mkdir(parents=True)
    assert not data.store_has_runs()  # a directory without run.json is not a run
    (isolated_home / "runs" / "r1" / "run.json").write_text("{}")
    assert data.store_has_runs()


def test_ui_modules_keep_the_engine_free_of_textual():
    import subprocess
    import sys
    from pathlib import Path

    code = "import sys, skyt_tui.ui.data, skyt_tui.ui.run_request; assert 'textual' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])
