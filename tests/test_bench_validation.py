"""Correlations in numpy and the repeated-draw validation of the anchor sample."""

import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from skyt_tui.engine.benchmark.correlation import (
    kendall_rows,
    mae_rows,
    pearson_rows,
    rank_rows,
    spearman_rows,
)
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix, load_inputs
from skyt_tui.engine.benchmark.sampler import SampleConfig
from skyt_tui.engine.benchmark.validation import (
    ValidationConfig,
    held_out_count,
    percent,
    validate_sample,
)
from skyt_tui.engine.errors import InputError
from tests.corpus import require


def test_pearson_literal_examples():
    assert pearson_rows([1, 2, 3], [2, 4, 6])[0] == pytest.approx(1.0)
    assert pearson_rows([1, 2, 3], [3, 2, 1])[0] == pytest.approx(-1.0)
    # x = [1,2,3,4], y = [1,3,2,4]: centred x = [-1.5,-.5,.5,1.5], y = [-1.5,.5,-.5,1.5]
    # Σxy = 2.25-.25-.25+2.25 = 4, Σx² = Σy² = 5 → r = 0.8
    assert pearson_rows([1, 2, 3, 4], [1, 3, 2, 4])[0] == pytest.approx(0.8)


def test_constant_input_has_no_correlation():
    assert math.isnan(pearson_rows([0.5, 0.5, 0.5], [1, 2, 3])[0])
    assert math.isnan(spearman_rows([1, 1, 1], [1, 2, 3])[0])
    assert math.isnan(kendall_rows([1, 2, 3], [7, 7, 7])[0])
    # 0.1+0.2+0.3 and 0.3+0.2+0.1 differ in the last bit; still constant
    assert math.isnan(pearson_rows([(0.1 + 0.2 + 0.3) / 3, (0.3 + 0.2 + 0.1) / 3], [1, 2])[0])


def test_ranks_average_ties():
    np.testing.assert_array_equal(rank_rows([[10, 20, 20, 5]]), [[2, 3.5, 3.5, 1]])


def test_kendall_tau_b_with_ties_literal():
    # x = [1,2,2,3], y = [1,2,3,3]. Pairs (6): (0,1) C, (0,2) C, (0,3) C, (1,2) x-tie,
    # (1,3) C, (2,3) C & y-tie → sign products: 1,1,1,0,1,0 → 4.
    # untied in x: 5, untied in y: 5 → τ_b = 4 / sqrt(25) = 0.8
    assert kendall_rows([1, 2, 2, 3], [1, 2, 3, 3])[0] == pytest.approx(0.8)


def test_mae_literal():
    assert mae_rows([0.5, 0.25], [0.25, 0.25])[0] == pytest.approx(0.125)


@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.integers(3, 12)),
        elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]),
    ),
    st.integers(0, 2**31),
)
def test_agree_with_scipy(x, seed):
    stats = pytest.importorskip("scipy.stats")
    y = np.round(np.clip(x + np.random.default_rng(seed).normal(0, 0.3, x.shape), 0, 1), 1)
    for row, (p, s, k) in enumerate(
        zip(pearson_rows(x, y), spearman_rows(x, y), kendall_rows(x, y))
    ):
        constant = np.ptp(x[row]) == 0 or np.ptp(y[row]) == 0
        if constant:
            assert math.isnan(p) and math.isnan(s) and math.isnan(k)
            continue
        assert p == pytest.approx(stats.pearsonr(x[row], y[row])[0], abs=1e-9)
        assert s == pytest.approx(stats.spearmanr(x[row], y[row])[0], abs=1e-9)
        assert k == pytest.approx(stats.kendalltau(x[row], y[row])[0], abs=1e-9)


def synthetic(n_items=300, n_systems=30, noise=0.0, seed=0):
    """Systems with abilities 0..1; item score = ability (+ noise) so subset means track full means."""
    rng = np.random.default_rng(seed)
    items = tuple(
        Item(id=f"i{n:04d}", difficulty=("easy", "medium", "hard")[n % 3]) for n in range(n_items)
    )
    ability = np.linspace(0.05, 0.95, n_systems)
    scores = np.clip(ability[:, None] + rng.normal(0, noise, (n_systems, n_items)), 0, 1)
    matrix = ScoreMatrix(
        systems=tuple(f"s{k:02d}" for k in range(n_systems)),
        item_ids=tuple(i.id for i in items),
        scores=scores,
    )
    return items, matrix


def test_perfectly_consistent_benchmark_validates_with_r_one():
    items, matrix = synthetic()
    report = validate_sample(items, matrix, SampleConfig(floor=40), ValidationConfig(draws=20))
    assert report.pearson.median == pytest.approx(1.0)
    assert report.mae.median == pytest.approx(0.0, abs=1e-12)
    assert report.share_above == 1.0 and report.trustworthy
    assert report.verdict == "trustworthy: r > 0.9 in 100% of draws"
    assert report.n_held_out == 15 and report.n_choose == 15
    assert len(report.sample_check.points) == 30 and report.sample_check.pearson == pytest.approx(
        1.0
    )


def test_pure_noise_is_not_trustworthy():
    rng = np.random.default_rng(1)
    items, matrix = synthetic()
    noise = ScoreMatrix(matrix.systems, matrix.item_ids, rng.random(matrix.scores.shape))
    report = validate_sample(items, noise, SampleConfig(floor=40), ValidationConfig(draws=50))
    assert report.share_above < 0.2 and not report.trustworthy
    assert report.verdict.startswith("NOT trustworthy at this size: r > 0.9 in only ")
    assert report.verdict.endswith("of draws; raise --floor")


def test_small_sample_and_few_systems_are_warned_and_never_trusted():
    items, matrix = synthetic(n_systems=12)
    report = validate_sample(items, matrix, SampleConfig(floor=0), ValidationConfig(draws=10))
    assert report.sample_size == 3 and report.n_held_out == 6
    assert any("only 3 items" in warning for warning in report.warnings)
    assert any("only 6 held-out systems" in warning for warning in report.warnings)
    assert report.share_above == 1.0 and not report.trustworthy
    assert "too few to trust it" in report.verdict


def test_systems_with_missing_scores_are_excluded_and_named():
    items, matrix = synthetic(n_systems=25)
    scores = matrix.scores.copy()
    scores[3, 7] = np.nan
    report = validate_sample(
        items,
        ScoreMatrix(matrix.systems, matrix.item_ids, scores),
        SampleConfig(floor=40),
        ValidationConfig(draws=5),
    )
    assert report.systems_excluded == {"s03": 1} and "s03" not in report.systems_used
    assert "1 system lacks scores for some items and was left out: s03" in report.warnings, (
        report.warnings
    )


def test_too_few_complete_systems_is_an_error():
    items, matrix = synthetic(n_systems=3)
    scores = matrix.scores.copy()
    scores[0, 0] = np.nan
    with pytest.raises(InputError, match="at least 3 systems with a score for every item; 2 of 3"):
        validate_sample(items, ScoreMatrix(matrix.systems, matrix.item_ids, scores))


def test_validation_is_deterministic_and_seed_dependent():
    items, matrix = synthetic(noise=0.3)
    config = SampleConfig(floor=10)
    first = validate_sample(items, matrix, config, ValidationConfig(draws=30, seed=4))
    assert validate_sample(items, matrix, config, ValidationConfig(draws=30, seed=4)) == first
    assert (
        validate_sample(items, matrix, config, ValidationConfig(draws=30, seed=5)).draws_pearson
        != first.draws_pearson
    )


def test_held_out_count_and_percent_format():
    assert held_out_count(45, 0.5) == 22
    assert held_out_count(4, 0.5) == 3
    assert held_out_count(10, 1.0) == 10
    assert percent(0.955) == "95.5%" and percent(1.0) == "100%" and percent(0.005) == "0.5%"


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"draws": 0}, "--draws"),
        ({"holdout": 0.0}, "--holdout-systems"),
        ({"threshold": 1.5}, "--threshold"),
        ({"seed": -1}, "--seed"),
    ],
)
def test_bad_validation_config(kwargs, key):
    with pytest.raises(InputError, match=f"^{key}: "):
        ValidationConfig(**kwargs)


@pytest.mark.corpus
def test_livecodebench_validation_runs_in_seconds_and_the_floor_matters():
    folder = require("benchmarks", "livecodebench-2024-04")
    data = load_inputs(folder / "issues.jsonl", folder / "results.csv", folder / "systems.jsonl")
    assert data.scores.scores.shape == (45, 400) and data.scores.n_results == 18000
    started = time.perf_counter()
    one_percent = validate_sample(data.items, data.scores, SampleConfig(floor=0))
    at_floor = validate_sample(data.items, data.scores, SampleConfig())
    assert time.perf_counter() - started < 10
    assert one_percent.sample_size == 4 and at_floor.sample_size == 50
    assert not one_percent.trustworthy and one_percent.share_above < 0.2
    assert at_floor.share_above > one_percent.share_above + 0.5
    assert at_floor.pearson.median > 0.9 > one_percent.pearson.median
