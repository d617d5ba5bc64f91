"""The repeatability metrics as pure functions of sample records: small runs worked by hand, the
invariants under monotone repair (hypothesis), a seeded bootstrap, bit-identical recomputation."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.measure.metrics import (
    CANON_ESTABLISHED,
    CANON_NONE,
    anchor_sensitivity,
    check_invariants,
    compute_metrics,
    entropy_bits,
    modal_share,
)
from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.versions import LEVELS


def sample(
    index,
    sig,
    *,
    d_pre=None,
    d_post=None,
    passed=None,
    vector=None,
    outputs=None,
    parse_error=False,
):
    sigs = {level: sig for level in ("raw", "format", "nodoc", "alpha")}
    return SampleAnalysis(
        index=index,
        signatures=sigs,
        parse_error=parse_error,
        passed=passed,
        pass_vector=vector,
        outputs=outputs,
        d_pre=d_pre,
        d_post=d_post,
    )


def test_three_samples_two_identical():
    m = compute_metrics([sample(0, "a"), sample(1, "a"), sample(2, "b")])
    assert m.R_raw == 2 / 3
    assert m.distinct["raw"] == 2
    assert m.entropy_bits["raw"] == -(2 / 3 * math.log2(2 / 3) + 1 / 3 * math.log2(1 / 3))
    assert m.R_anchor_pre is None and m.canon == "not_computed"


def test_signature_levels_are_separate():
    s0 = SampleAnalysis(0, {"raw": "x1", "format": "f", "nodoc": "n", "alpha": "a"})
    s1 = SampleAnalysis(1, {"raw": "x2", "format": "f", "nodoc": "n", "alpha": "a"})
    m = compute_metrics([s0, s1])
    assert (
        m.R_raw == 0.5
        and m.R_sig["format"] == 1.0
        and m.distinct == {"raw": 2, "format": 1, "nodoc": 1, "alpha": 1}
    )


def test_edge_cases_of_the_metrics_note():
    empty = compute_metrics([])
    assert empty.n == 0 and empty.R_raw == 0.0 and empty.R_pairwise is None
    empty = compute_metrics([], pairwise=np.zeros((0, 0)), canon=CANON_ESTABLISHED)
    assert empty.R_pairwise == 0.0 and empty.R_anchor_pre == 0.0 and empty.mu_pre == 0.0
    single = compute_metrics([sample(0, "a")], pairwise=np.zeros((1, 1)))
    assert single.R_raw == 1.0 and single.R_pairwise == 1.0


def test_no_canon_means_r_anchor_zero_and_every_distance_one():
    samples = [
        sample(i, "a", d_pre=0.0, d_post=0.0, passed=False, vector=(False,), outputs=("1",))
        for i in range(4)
    ]
    m = compute_metrics(samples, canon=CANON_NONE, tau=0.1)
    assert m.R_anchor_pre == 0.0 and m.R_anchor_post == 0.0
    assert m.mu_pre == 1.0 and m.mu_post == 1.0 and m.P_tau_pre == 0.0 and m.rescue_rate == 0.0
    assert m.R_anchor_mean == 0.0


def test_anchor_rescue_and_tau_worked_example():
    # d_pre:  0.0  0.05  0.2  0.5    d_post: 0.0  0.0  0.1  0.5
    samples = [
        sample(0, "c", d_pre=0.0, d_post=0.0),
        sample(1, "x", d_pre=0.05, d_post=0.0),
        sample(2, "y", d_pre=0.2, d_post=0.1),
        sample(3, "z", d_pre=0.5, d_post=0.5),
    ]
    m = compute_metrics(samples, canon=CANON_ESTABLISHED, tau=0.1)
    assert m.R_anchor_pre == 0.25 and m.R_anchor_post == 0.5 and m.Delta_rescue == 0.25
    assert m.rescue_rate == 0.25 and m.rescue_of_noncanonical == 1 / 3
    assert m.mu_pre == math.fsum([0.0, 0.05, 0.2, 0.5]) / 4 and m.mu_post == 0.6 / 4
    assert m.Delta_mu == m.mu_post - m.mu_pre < 0
    assert m.P_tau_pre == 0.5 and m.P_tau_post == 0.75 and m.Delta_P_tau == 0.25
    assert m.R_anchor_mean == 1 - m.mu_pre
    assert m.invariant_violations == ()


def test_all_canonical_means_zero_rescue():
    m = compute_metrics(
        [sample(i, "c", d_pre=0.0, d_post=0.0) for i in range(3)], canon=CANON_ESTABLISHED
    )
    assert m.rescue_rate == 0.0 and m.rescue_of_noncanonical == 0.0 and m.R_anchor_pre == 1.0


def test_behaviour_metrics():
    samples = [
        sample(0, "a", passed=True, vector=(True, True, True), outputs=("1", "2", "3")),
        sample(1, "b", passed=True, vector=(True, True, True), outputs=("1", "2", "3")),
        sample(2, "c", passed=False, vector=(True, False, True), outputs=("1", "5", "!ValueError")),
        sample(3, "d", parse_error=True, passed=False),
    ]
    m = compute_metrics(samples)
    assert m.pass_rate == 0.5
    assert m.R_behavioral == 0.5
    assert m.OER == 0.0  # sample 3 never ran, so no test has one output across all four
    m3 = compute_metrics(samples[:3])
    assert m3.OER == 1 / 3


def test_anchor_sensitivity_uses_every_passing_sample():
    samples = [
        sample(0, "a", passed=True),
        sample(1, "a", passed=True),
        sample(2, "b", passed=True),
        sample(3, "c", passed=False),
    ]
    result = anchor_sensitivity(samples, "nodoc")
    assert result == {"min": 0.25, "max": 0.5, "n_anchors": 3, "argmin": 2, "argmax": 0}


def test_bootstrap_is_seeded_and_bounded():
    samples = [
        sample(i, "ab"[i % 3 == 0], d_pre=0.0 if i % 3 == 0 else 0.3, d_post=0.0) for i in range(12)
    ]
    pairwise = np.array(
        [[0.0 if (i % 3 == 0) == (j % 3 == 0) else 0.3 for j in range(12)] for i in range(12)]
    )
    a = compute_metrics(samples, pairwise=pairwise, canon=CANON_ESTABLISHED)
    b = compute_metrics(samples, pairwise=pairwise, canon=CANON_ESTABLISHED)
    assert a.ci == b.ci and set(a.ci) >= {"R_raw", "R_pairwise", "R_anchor_pre", "R_anchor_post"}
    low, high = a.ci["R_raw"]
    assert 0.0 <= low <= a.R_raw <= high <= 1.0
    # every sample rescued, 12 of 12: a share's interval is Wilson's, not the point (1.0, 1.0)
    # a percentile interval of resamples gives
    low, high = a.ci["R_anchor_post"]
    assert high == 1.0 and 0.75 < low < 0.76
    none = compute_metrics(samples, pairwise=pairwise, canon=CANON_NONE)
    assert none.ci["R_anchor_pre"] == none.ci["R_anchor_post"] == (0.0, 0.0)


def test_invariant_checker_reports_violations():
    bad = compute_metrics([sample(0, "a", d_pre=0.1, d_post=0.3)], canon=CANON_ESTABLISHED)
    assert any("d_post" in problem for problem in bad.invariant_violations)
    assert any("mu_post" in problem for problem in check_invariants(bad))


distances = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcd"), distances, distances, st.booleans()), max_size=25),
    st.floats(0.0, 1.0),
)
def test_invariants_hold_for_monotone_repair(rows, tau):
    samples = [
        sample(i, sig, d_pre=max(a, b), d_post=min(a, b), passed=ok, vector=(ok,), outputs=(sig,))
        for i, (sig, a, b, ok) in enumerate(rows)
    ]
    m = compute_metrics(samples, canon=CANON_ESTABLISHED, tau=tau, bootstrap_draws=50)
    assert m.invariant_violations == ()
    assert modal_share([s.signatures["raw"] for s in samples]) == (
        m.R_raw if len(samples) != 1 else 1.0
    )
    assert entropy_bits(["x"] * 5) == 0.0


def test_recomputation_is_bit_identical_across_hash_seeds(tmp_path):
    script = (
        "import json, numpy as np\n"
        "from skyt_tui.engine.measure.metrics import compute_metrics\n"
        "from skyt_tui.engine.measure.records import SampleAnalysis\n"
        "s=[SampleAnalysis(i,{l:str(i%4) for l in ('raw','format','nodoc','alpha')},passed=i%2==0,"
        "pass_vector=(i%2==0,True),outputs=(str(i%3),'x'),d_pre=(i%5)/7,d_post=(i%5)/14) for i in range(30)]\n"
        "p=np.array([[abs(i-j)/30 for j in range(30)] for i in range(30)])\n"
        "print(json.dumps(compute_metrics(s,pairwise=p,canon='established').to_dict(),sort_keys=True))\n"
    )
    root = Path(__file__).resolve().parents[1]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_large_runs_get_r_pairwise_from_the_mean_and_a_bounded_interval():
    samples = [sample(i, str(i % 3)) for i in range(40)]
    m = compute_metrics(samples, pairwise_mean=0.25)
    assert m.R_pairwise == 0.75 and "R_pairwise" not in m.ci
    from skyt_tui.engine.measure import metrics as metrics_module

    pairwise = np.array([[0.0 if i % 3 == j % 3 else 0.5 for j in range(40)] for i in range(40)])
    original = metrics_module.PAIRWISE_BOOTSTRAP_BUDGET
    try:
        metrics_module.PAIRWISE_BOOTSTRAP_BUDGET = 40 * 40 * 10  # 10 draws < 50: interval left out
        assert "R_pairwise" not in compute_metrics(samples, pairwise=pairwise).ci
    finally:
        metrics_module.PAIRWISE_BOOTSTRAP_BUDGET = original
    assert "R_pairwise" in compute_metrics(samples, pairwise=pairwise).ci


# ---- pass rate, R_behavioral and OER from oracle verdicts -------------------------------------
# (these cases tested the oracle room's own pass_rate / r_behavioral / output_equivalence_rate,
# which nothing reported; they now test the definitions the reports use)


def verdict(vector, actuals, kinds=None, errors=None):
    from skyt_tui.engine.oracle.verdicts import TestOutcome, Verdict

    kinds = kinds or ["call"] * len(vector)
    errors = errors or [None] * len(vector)
    tests = tuple(
        TestOutcome(i, f"t{i}", kind, ok, actual, error, None, 0.0)
        for i, (ok, actual, kind, error) in enumerate(zip(vector, actuals, kinds, errors))
    )
    return Verdict(all(vector), sum(vector) / len(vector), tests, "ok", "", "reduced", "1", 0.0)


def judged(*verdicts):
    """Sample records as the analysis pipeline makes them from verdicts."""
    from skyt_tui.engine.analysis.pipeline import output_keys

    return [
        SampleAnalysis(
            index=i,
            signatures={level: str(i) for level in ("raw", "format", "nodoc", "alpha")},
            passed=v.passed,
            pass_vector=v.pass_vector(),
            outputs=output_keys(v),
        )
        for i, v in enumerate(verdicts)
    ]


def test_behaviour_metrics_of_three_verdicts():
    m = compute_metrics(
        judged(
            verdict([True, True, False], ["1", "2", "3"]),
            verdict([True, True, False], ["1", "2", "4"]),
            verdict([True, True, True], ["1", "5", "4"]),
        )
    )
    assert m.pass_rate == pytest.approx(1 / 3)
    assert m.R_behavioral == pytest.approx(2 / 3)  # two of three share a pass vector
    assert m.OER == pytest.approx(1 / 3)  # only test 0 has one output


def test_behaviour_metrics_of_verdicts_edge_cases():
    none = compute_metrics([])
    assert none.pass_rate is None and none.R_behavioral is None and none.OER is None
    one = compute_metrics(judged(verdict([False, True], [None, "1"])))
    assert one.R_behavioral == 1.0 and one.OER == 1.0
    constrained = compute_metrics(
        judged(
            verdict([True, False], ["1", None], ["call", "constraint"]),
            verdict([True, True], ["1", None], ["call", "constraint"]),
        )
    )
    assert constrained.OER == 1.0  # constraints have no output
    assert constrained.R_behavioral == 0.5  # but they are in the pass vector


def test_oer_counts_every_error_as_one_output_and_a_verdict_of_another_width_as_not_run():
    """OER is Ouyang et al.'s: every exception is one output whatever its type (their harness
    records a non-zero exit), a timeout another; a sample without a full verdict is not run.
    (The oracle room's old OER refused verdicts of different widths.)"""
    raised = compute_metrics(
        judged(
            verdict([False, True], [None, "1"], errors=["ValueError", None]),
            verdict([False, True], [None, "1"], errors=["TypeError", None]),
        )
    )
    assert raised.OER == 1.0  # skyt-tui once keyed an error by its type: 0.5
    timed_out = compute_metrics(
        judged(
            verdict([False], [None], errors=["ValueError"]),
            verdict([False], [None], errors=["Timeout"]),
        )
    )
    assert timed_out.OER == 0.0  # a timeout is not an exception
    same_error = compute_metrics(
        judged(
            verdict([False], [None], errors=["ValueError"]),
            verdict([False], [None], errors=["ValueError"]),
        )
    )
    assert same_error.OER == 1.0
    widths = compute_metrics(judged(verdict([True], ["1"]), verdict([True, True], ["1", "2"])))
    assert widths.OER == 0.0 and widths.R_behavioral == 0.5  # the oracle room's raised ValueError


def test_the_counts_never_disagree_with_the_samples():
    """Issue 36: a sample left out of N but counted elsewhere (the run of three whose middle
    sample was refused reported n 2, n_failed 1, pass_rate 1.0) breaks an invariant."""
    from dataclasses import replace

    samples = [
        SampleAnalysis(index=i, signatures=dict.fromkeys(LEVELS, str(i)), passed=i != 1)
        for i in range(3)
    ]
    metrics = compute_metrics(samples)
    assert (metrics.n, metrics.pass_rate, metrics.invariant_violations) == (3, 2 / 3, ())
    refused = replace(metrics, n=2, n_failed=1, pass_rate=1.0)
    problems = check_invariants(refused, samples)
    assert "n = 2 but 3 samples were measured" in problems
    assert "pass_rate = 1.0 but 2 of the 3 samples count" in problems


def test_limited_samples_and_distance_bounds_are_counted():
    samples = [
        SampleAnalysis(index=0, signatures=dict.fromkeys(LEVELS, "a"), d_pre=0.0, d_post=0.0),
        SampleAnalysis(
            index=1,
            signatures=dict.fromkeys(LEVELS, "b"),
            parse_error=True,
            d_pre=1.0,
            d_post=1.0,
            limited="the program has 9 characters (skyt-tui parses at most 5)",
            d_bound=True,
        ),
    ]
    metrics = compute_metrics(samples, canon=CANON_ESTABLISHED, pairwise_bounds=1)
    assert (metrics.n, metrics.n_limited, metrics.distance_bounds) == (2, 1, 2)
    assert (metrics.R_anchor_pre, metrics.mu_pre, metrics.P_tau_pre) == (0.5, 0.5, 0.5)
    assert metrics.invariant_violations == ()


def test_wilson_interval_is_scipys():
    from scipy.stats import binomtest

    from skyt_tui.engine.measure.metrics import wilson_interval

    for n in (1, 2, 3, 7, 20, 25, 100, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            expected = binomtest(k, n).proportion_ci(method="wilson")
            low, high = wilson_interval(k, n)
            assert low == pytest.approx(expected.low, abs=1e-12)
            assert high == pytest.approx(expected.high, abs=1e-12)
            assert low <= k / n <= high


def test_intervals_contain_their_values_where_resampling_would_not():
    """20 different programs with every pair at distance 1: R_raw 0.05 and R_pairwise 0. A
    resample's modal share is at least 0.05 and mostly 0.10 or more, and its copies of one sample
    made pairs at distance 0: the percentile intervals were about [0.10, 0.20] and above 0."""
    samples = [
        sample(
            i,
            f"s{i}",
            d_pre=1.0,
            d_post=1.0,
            passed=i % 2 == 0,
            vector=tuple(bool(i >> bit & 1) for bit in range(5)),
        )
        for i in range(20)
    ]
    pairwise = np.ones((20, 20)) - np.eye(20)
    metrics = compute_metrics(samples, pairwise=pairwise, canon=CANON_ESTABLISHED)
    assert (metrics.R_raw, metrics.R_pairwise, metrics.R_behavioral) == (0.05, 0.0, 0.05)
    for name, value in (
        ("R_raw", metrics.R_raw),
        ("R_sig_nodoc", metrics.R_sig["nodoc"]),
        ("R_pairwise", metrics.R_pairwise),
        ("R_behavioral", metrics.R_behavioral),
        ("pass_rate", metrics.pass_rate),
    ):
        low, high = metrics.ci[name]
        assert low <= value <= high, (name, value, (low, high))
    assert metrics.ci["R_pairwise"] == (0.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.booleans()), min_size=2, max_size=30))
def test_every_interval_contains_its_value(rows):
    samples = [
        sample(i, sig, d_pre=0.0 if sig == "a" else 0.5, d_post=0.0, passed=ok, vector=(ok,))
        for i, (sig, ok) in enumerate(rows)
    ]
    n = len(samples)
    pairwise = np.array(
        [[0.0 if rows[i][0] == rows[j][0] else 0.5 for j in range(n)] for i in range(n)]
    )
    metrics = compute_metrics(samples, pairwise=pairwise, canon=CANON_ESTABLISHED)
    values = {
        "R_raw": metrics.R_raw,
        "R_sig_nodoc": metrics.R_sig["nodoc"],
        "R_pairwise": metrics.R_pairwise,
        "R_behavioral": metrics.R_behavioral,
    }
    for name, value in values.items():
        low, high = metrics.ci[name]
        assert low <= value <= high, (name, value, (low, high))


@pytest.mark.corpus
def test_a_real_run_of_all_different_programs_has_its_r_raw_in_its_interval(capsys):
    """SKYT's merge_sort at temperature 1.0: 20 different programs, R_raw 0.05, whose percentile
    interval was [0.10, 0.25]."""
    from skyt_tui.cli import main
    from tests.corpus import require

    path = require("skyt-msr2026", "outputs", "merge_sort_temp1.0_20260123_125922.json")
    assert main(["analyze", str(path), "--json"]) == 0
    [run] = json.loads(capsys.readouterr().out)["runs"]
    metrics = run["metrics"]
    assert metrics["R_raw"] == 0.05
    for name, (low, high) in metrics["ci"].items():
        value = metrics["R_sig"][name[6:]] if name.startswith("R_sig_") else metrics[name]
        assert low <= value <= high, (name, value, (low, high))
