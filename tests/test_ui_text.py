"""The UI's pure helpers: the run form, contracts in words, diffs, distance bars, the scatter, and the adapters."""

import pytest
from rich.text import Text

from skyt_tui.engine.contracts.contract import contract_from_dict
from skyt_tui.ui import bench_data, run_data, run_form, store_watch
from skyt_tui.ui.contract_text import describe_constraints, describe_tests, reflow, short_repr
from skyt_tui.ui.diff_text import unified_diff_text
from skyt_tui.ui.run_request import RunFormError, RunRequest, parse_run_form

GOOD = dict(
    contract_id="c",
    provider="openai",
    model="gpt-4o-mini",
    n="20",
    temperatures="0, 0.5 ,1",
    concurrency="4",
)


@pytest.fixture(autouse=True)
def provider_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-used")


def test_a_missing_key_is_reported_on_the_field_that_can_replace_it():
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**GOOD, environ={})
    assert list(caught.value.errors) == ["target"]
    assert "OPENAI_API_KEY is not set" in caught.value.errors["target"]
    local = parse_run_form(**{**GOOD, "target": "http://localhost:11434/v1"}, environ={})
    assert local.target == "http://localhost:11434/v1", "a local server needs no key"
    with pytest.raises(RunFormError) as caught:
        parse_run_form(
            **{**GOOD, "provider": "anthropic", "target": "http://localhost:1"}, environ={}
        )
    assert "ANTHROPIC_API_KEY is not set" in caught.value.errors["target"]


def test_run_form_parses_a_temperature_sweep():
    assert parse_run_form(**GOOD) == RunRequest(
        "c", "openai", "gpt-4o-mini", 20, (0.0, 0.5, 1.0), 4
    )


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("provider", "gemini", "choose one of openai, anthropic, command, replay"),
        ("model", "   ", "required with openai"),
        ("target", "localhost:11434", "a base URL starts with http:// or https://"),
        ("n", "0", "must be between 1 and 1000"),
        ("n", "2.5", "must be a whole number, not '2.5'"),
        ("n", "", "required"),
        ("temperatures", "", "required"),
        ("temperatures", "0,,1", "empty value between commas"),
        ("temperatures", "3", "3 is outside [0, 2]"),
        ("temperatures", "0.5, 0.5", "0.5 is given twice"),
        ("concurrency", "65", "must be between 1 and 64"),
    ],
)
def test_run_form_names_the_bad_field(field, value, reason):
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**{**GOOD, field: value})
    assert list(caught.value.errors) == [field]
    assert caught.value.errors[field].startswith(reason)


@pytest.mark.parametrize(
    ("provider", "target", "reason"),
    [
        ("command", "", "required: the program that answers"),
        ("replay", "", "required: the file or folder of recorded answers"),
        ("replay", "/no/such/recording.jsonl", "no such file or folder: /no/such/recording.jsonl"),
    ],
)
def test_command_and_replay_need_a_target(provider, target, reason):
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**{**GOOD, "provider": provider, "model": "", "target": target})
    assert caught.value.errors == {"target": reason}


def test_command_and_replay_take_no_model(tmp_path):
    request = parse_run_form(
        **{**GOOD, "provider": "replay", "model": " ", "target": str(tmp_path)}
    )
    assert (request.model, request.target) == ("", str(tmp_path))
    assert run_form.provider_settings(request) == {"source": str(tmp_path), "model": None}
    command = parse_run_form(
        **{**GOOD, "provider": "command", "model": "", "target": "python3 answer.py"}
    )
    assert run_form.provider_settings(command) == {"command": "python3 answer.py"}
    assert run_form.provider_settings(parse_run_form(**GOOD)) == {}
    local = parse_run_form(**{**GOOD, "target": "http://localhost:11434/v1"})
    assert run_form.provider_settings(local) == {"base_url": "http://localhost:11434/v1"}


def test_run_form_reports_all_bad_fields_at_once():
    with pytest.raises(RunFormError) as caught:
        parse_run_form(**{**GOOD, "n": "x", "concurrency": "0"})
    assert set(caught.value.errors) == {"n", "concurrency"}


LRU = {
    "id": "lru",
    "prompt": "Write an LRU cache.",
    "difficulty": "medium",
    "entry": {"kind": "class", "name": "LRUCache"},
    "tests": [
        {
            "kind": "stateful",
            "name": "evicts",
            "init": {"args": [2]},
            "steps": [
                {"call": "put", "args": [1, 1]},
                {"call": "get", "args": [1], "expected": 1},
                {"call": "get", "args": [9], "expected": -1},
                {"call": "boom", "raises": "KeyError"},
            ],
        }
    ],
}

DIVIDE = {
    "id": "divide",
    "prompt": "Divide.",
    "difficulty": "easy",
    "entry": {"name": "divide"},
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
        "--- sample 0",
        "+++ sample 1",
        "@@ -1,2 +1,2 @@",
        " def f(x):",
        "-    return x[0]",
        "+    return x[1]  # [bold]not markup[/bold]",
    ]
    styles = {
        diff.plain[span.start : span.end].rstrip("\n"): str(span.style) for span in diff.spans
    }
    assert styles["-    return x[0]"] == "red"
    assert styles["+    return x[1]  # [bold]not markup[/bold]"] == "green"


def test_identical_texts_say_so():
    assert "identical" in unified_diff_text("a = 1", "a = 1", "sample 0", "sample 4").plain


def test_an_empty_store_has_nothing_and_says_so(isolated_home):
    assert (
        run_data.list_runs() == []
        and bench_data.list_benchmarks() == ()
        and store_watch.store_is_empty()
    )
    assert not store_watch.store_has_runs()
    (isolated_home / "runs" / "r1").mkdir(parents=True)
    assert not store_watch.store_has_runs()  # a directory without run.json is not a run
    (isolated_home / "runs" / "r1" / "run.json").write_text("{}")
    assert store_watch.store_has_runs() and not store_watch.store_is_empty()
    [damaged] = run_data.list_runs()
    assert damaged.meta is None and "corrupt" in damaged.error  # listed with its error, not dropped


def test_distance_bar_shows_what_repair_removed():
    from skyt_tui.ui.run_text import distance_bar

    # d_pre 0.5 → 5 of 10 cells, d_post 0.2 → 2 solid, 3 shaded
    assert distance_bar(0.5, 0.2, width=10).plain == "██░░░     "
    assert distance_bar(0.0, 0.0, width=10).plain == "·         "
    assert distance_bar(1.0, 1.0, width=10).plain == "█" * 10
    assert distance_bar(None, None).plain == "–"


def test_metric_cells_use_three_decimals_and_mark_what_is_missing():
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis
    from skyt_tui.ui.run_text import metric_cells

    def analysed(metrics):
        document = {
            "id": "run",
            "level": "nodoc",
            "metrics": {"level": "nodoc", "tau": 0.1} | metrics,
        }
        return StoredAnalysis.from_document(document)

    metrics = {
        "R_raw": 2 / 3,
        "R_anchor_pre": 0.25,
        "R_anchor_post": 0.5,
        "rescue_rate": 0.25,
        "mu_pre": 0.1234,
        "mu_post": 0.1,
        "P_tau_pre": None,
        "P_tau_post": None,
        "pass_rate": 1.0,
    }
    metrics |= {"n": 3, "n_failed": 0, "canon": "established"}
    assert metric_cells(analysed(metrics)) == (
        "0.667",
        "0.250→0.500",
        "0.250",
        "0.123→0.100",
        "–",
        "1.000",
        "–",  # compliance: the contract has no coding rules
    )
    assert metric_cells(analysed(metrics | {"compliance_rate": 0.75}))[-1] == "0.750"
    # without a canon nothing measured against one; without code nothing at all (issue 14.2)
    assert metric_cells(analysed(metrics | {"canon": "none"})) == (
        "0.667",
        "–",
        "–",
        "–",
        "–",
        "1.000",
        "–",
    )
    assert metric_cells(analysed(metrics | {"n": 0, "n_failed": 3})) == ("–",) * 7
    assert metric_cells(analysed(metrics), requested=5)[0] == Text("~0.667")
    assert metric_cells(None) == ("…",) * 7


def test_scatter_puts_points_on_a_shared_range_with_the_diagonal():
    from skyt_tui.ui.widgets.scatter import Y_AXIS, plot_range, scatter_text

    assert plot_range([0.2, 0.6]) == (pytest.approx(0.18), pytest.approx(0.62))
    lines = scatter_text(
        [(0.2, 0.2), (0.6, 0.6), (0.6, 0.2)], width=Y_AXIS + 1 + 21, height=13
    ).plain.splitlines()
    plot = [line[Y_AXIS:] for line in lines[:11]]
    # 21 columns × 11 rows over [0.18, 0.62]: x 0.6 → column round(0.42 / 0.44 × 20) = 19, y 0.6 → row
    # 10 − round(0.42 / 0.44 × 10) = 0; 0.2 → column round(0.9) = 1, row 10 − round(0.45) = 10;
    # the diagonal crosses the middle at row 5, column 10
    assert (plot[0][19], plot[10][1], plot[10][19], plot[5][10]) == ("●", "●", "●", "·")
    assert sum(line.count("●") for line in plot) == 3
    assert (
        lines[0].startswith(" 0.62 ┤")
        and lines[10].startswith(" 0.18 ┤")
        and lines[12].endswith("0.62")
    )


def test_ui_modules_keep_the_engine_free_of_textual():
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, skyt_tui.engine.runs.matrices, skyt_tui.engine.runs.report, skyt_tui.engine.demo; "
        "assert 'textual' not in sys.modules"
    )
    subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1]
    )


def test_one_line_chart_draws_the_method_and_study_charts():
    """Two series over three x positions, worked by hand: ticks at the top, middle and bottom, `*`
    where the two meet, the x labels under their columns."""
    from skyt_tui.ui.widgets import method_chart, study_chart
    from skyt_tui.ui.widgets.line_chart import Series, legend_text, line_chart_text

    series = [
        Series("a", (0.0, 0.5, 1.0), "a", "bold"),
        Series("b", (1.0, None, 1.0), "b", "bold"),
    ]
    chart = line_chart_text("title", ["0", "1", "2"], "x", series, height=3, step=2)
    assert chart.plain.split("\n") == [
        "title",
        " 1.00 ┤b   *",
        " 0.50 ┤  a  ",
        " 0.00 ┤a    ",
        "      └─────",
        "       0 1 2  x",
    ]
    assert legend_text(series, "two meet").plain == "a a   b b   * two meet"
    nan = float("nan")
    drawn = method_chart.chart_text("r", [4, 10], {"irt": [0.0, 1.0], "random": [nan, 1.0]}, 3)
    assert drawn.plain.split("\n")[1:4] == [" 1.00 ┤    *", " 0.50 ┤     ", " 0.00 ┤i    "]
    studied = study_chart.chart_text("R_raw", [0.0, 1.0], {"m1": [0.0, 1.0], "m2": [None, 1.0]})
    assert studied.plain.endswith("0     1  T\n1 m1   2 m2   * two meet")
