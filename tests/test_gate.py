"""The CI gate: thresholds, one line, exit 0/1 (2 for bad input)."""

import json

import pytest

from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.gate import Threshold, evaluate, parse_threshold
from skyt_tui.engine.measure.metrics import RunMetrics
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.run_store import SampleRecord
from tests.run_helpers import CONTRACT_ID, install_contract, run_cli

METRICS = RunMetrics(
    n=20,
    level="nodoc",
    tau=0.1,
    R_anchor_post=0.85,
    R_anchor_pre=0.5,
    pass_rate=0.95,
    R_raw=0.4,
    n_failed=1,
    R_sig={"alpha": 0.9},
    canon="established",
)


def metrics(**values):
    return RunMetrics(n=20, level="nodoc", tau=0.1, **values)


def test_all_thresholds_met():
    result = evaluate(
        "r1",
        METRICS,
        [
            Threshold("R_anchor_post", 0.8, "min"),
            Threshold("pass_rate", 0.9, "min"),
            Threshold("n_failed", 1, "max"),
        ],
    )
    assert result.passed
    assert (
        result.line()
        == "PASS r1: R_anchor_post 0.850 ≥ 0.800; pass_rate 0.950 ≥ 0.900; n_failed 1 ≤ 1"
    )


def test_failures_are_named_alone():
    result = evaluate(
        "r1",
        METRICS,
        [
            Threshold("R_anchor_post", 0.9, "min"),
            Threshold("pass_rate", 0.9, "min"),
            Threshold("R_sig.alpha", 0.95, "min"),
        ],
    )
    assert not result.passed
    assert result.line() == "FAIL r1: R_anchor_post 0.850 < 0.900; R_sig.alpha 0.900 < 0.950"


def test_values_that_look_equal_at_three_decimals_are_shown_in_full():
    result = evaluate("r1", metrics(R_raw=0.79999), [Threshold("R_raw", 0.8, "min")])
    assert result.line() == "FAIL r1: R_raw 0.79999 < 0.8"


def test_a_metric_not_computed_fails_and_an_incomplete_run_fails():
    result = evaluate(
        "r1",
        metrics(R_anchor_post=None, canon="not_computed"),
        [Threshold("R_anchor_post", 0.8, "min")],
    )
    assert result.line() == "FAIL r1: R_anchor_post not computed (canon: not_computed)"
    result = evaluate(
        "r1", METRICS, [Threshold("R_raw", 0.1, "min")], complete=False, progress=(3, 20)
    )
    assert result.line() == "FAIL r1: run is not complete (3 of 20 samples); resume it first"


def test_bad_thresholds():
    assert parse_threshold("R_raw=0.5", "min") == Threshold("R_raw", 0.5, "min")
    for text, message in (
        ("R_raw", "expected METRIC=VALUE"),
        ("R_raw=high", "'high' is not a number"),
        ("=1", "expected"),
    ):
        with pytest.raises(InputError, match=message):
            parse_threshold(text, "min")
    with pytest.raises(InputError, match="unknown metric 'R_magic'"):
        evaluate("r1", METRICS, [Threshold("R_magic", 0.5, "min")])
    with pytest.raises(InputError, match="give at least one threshold"):
        evaluate("r1", METRICS, [])


@pytest.fixture
def stored_run(isolated_home):
    install_contract(isolated_home)
    codes = ["def f(x):\n    return x + 1"] * 3 + ["def f(x):\n    return 1 + x"]
    samples = [SampleRecord(index=i, status="ok", response=c, code=c) for i, c in enumerate(codes)]
    meta = run_store.create_run(
        contract_id=CONTRACT_ID,
        contract=get_contract(CONTRACT_ID),
        provider="replay",
        model="m",
        temperature=0.0,
        n=4,
        samples=samples,
        status=run_store.COMPLETE,
    )
    return meta.id


def test_cli_gate_exit_codes(isolated_home, stored_run):
    passing = run_cli(isolated_home, "gate", stored_run, "--min-r-raw", "0.75", "--max-failed", "0")
    assert (
        passing.returncode == 0
        and passing.stdout == f"PASS {stored_run}: R_raw 0.750 ≥ 0.750; n_failed 0 ≤ 0\n"
    )
    failing = run_cli(isolated_home, "gate", stored_run, "--min-r-raw", "0.8")
    assert failing.returncode == 1 and failing.stdout == f"FAIL {stored_run}: R_raw 0.750 < 0.800\n"
    generic = run_cli(
        isolated_home,
        "gate",
        "latest",
        "--min",
        "R_sig.format=0.75",
        "--max",
        "R_pairwise=1",
        "--json",
    )
    data = json.loads(generic.stdout)
    assert (
        generic.returncode == 0
        and data["passed"]
        and [c["metric"] for c in data["runs"][0]["checks"]] == ["R_sig.format", "R_pairwise"]
    )


def test_cli_gate_on_r_anchor_says_why_when_not_computed(isolated_home, stored_run):
    result = run_cli(isolated_home, "gate", stored_run, "--min-r-anchor", "0.8")
    r_anchor = analyses.stored_analysis(stored_run).metrics.R_anchor_post
    if r_anchor is None:
        assert result.returncode == 1 and result.stdout.startswith(
            f"FAIL {stored_run}: R_anchor_post not computed"
        )
    else:
        expected = 0 if r_anchor >= 0.8 else 1
        assert result.returncode == expected


def test_cli_gate_bad_input_exits_2(isolated_home, stored_run):
    for args, message in (
        (["--min", "R_raw"], "expected METRIC=VALUE"),
        ([], "give at least one threshold"),
        (["--min", "nope=1"], "unknown metric 'nope'"),
        (["--min-r-anchor", "80"], "--min-r-anchor: a share between 0 and 1 (e.g. 0.8); got 80"),
        (["--min-pass-rate", "nan"], "--min-pass-rate: a share between 0 and 1"),
        (["--max-failed", "-1"], "--max-failed: a number of samples, 0 or more; got -1"),
    ):
        result = run_cli(isolated_home, "gate", stored_run, *args)
        assert (
            result.returncode == 2
            and message in result.stderr
            and len(result.stderr.strip().splitlines()) == 1
        )


@pytest.mark.parametrize(
    ("text", "kind", "said"),
    [
        ("R_raw=80", "min", "R_raw is a share, between 0 and 1"),
        ("R_raw=-1", "min", "R_raw is a share, between 0 and 1"),
        ("mu_post=2", "max", "mu_post is a distance, between 0 and 1"),
        ("Delta_mu=-1.5", "min", "Delta_mu is a difference, between -1 and 1"),
        ("n_failed=-1", "max", "n_failed is a count, 0 or more"),
    ],
)
def test_a_bound_no_value_of_the_metric_can_take_is_refused(text, kind, said):
    """`--min R_raw=80` failed every run (exit 1) where `--min-r-raw 80` was refused (exit 2)."""
    with pytest.raises(InputError, match=said):
        parse_threshold(text, kind)


def test_bounds_a_metric_can_take_are_kept():
    assert parse_threshold("R_sig.alpha=0.9", "min").bound == 0.9
    assert parse_threshold("Delta_mu=-0.5", "min").bound == -0.5
    assert parse_threshold("n_failed=3", "max").bound == 3.0
