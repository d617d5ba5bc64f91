"""Study statistics: each number worked out by hand (or by the textbook formula) in the test."""

from __future__ import annotations

import math

import pytest

from skyt_tui.engine.studies.stats import (
    cohens_h,
    compare_rates,
    holm,
    wilcoxon_paired,
    wilson_interval,
    with_holm,
)


def test_wilcoxon_paired_all_positive_differences():
    # 6 contracts, a beats b on every one: W- = 0, the exact two-sided p = 2 / 2^6 = 1/32.
    a = {f"c{i}": 0.9 for i in range(6)}
    b = {f"c{i}": 0.9 - 0.1 * (i + 1) for i in range(6)}
    result = wilcoxon_paired(a, b, label_a="T=0", label_b="T=0.7", metric="R_raw")
    assert result.n == 6 and result.n_nonzero == 6
    assert result.p_value == pytest.approx(1 / 32)
    assert result.rank_biserial == pytest.approx(1.0)
    assert result.paired_over == "contract"
    assert result.keys == tuple(f"c{i}" for i in range(6))
    assert result.mean_a == pytest.approx(0.9)
    assert result.median_difference == pytest.approx(0.35)


def test_wilcoxon_pairs_only_shared_keys_and_drops_zero_differences():
    a = {"x": 1.0, "y": 0.5, "z": 0.2, "only_a": 0.0}
    b = {"x": 1.0, "y": 0.3, "z": 0.6, "only_b": 1.0}
    result = wilcoxon_paired(a, b, label_a="a", label_b="b", metric="m")
    assert result.keys == ("x", "y", "z")
    assert result.n == 3 and result.n_nonzero == 2
    # differences y: +0.2 (rank 1), z: -0.4 (rank 2) → r = (1 - 2) / 3
    assert result.rank_biserial == pytest.approx(-1 / 3)


def test_wilcoxon_identical_groups_give_p_one():
    a = {"x": 0.5, "y": 0.7}
    result = wilcoxon_paired(a, dict(a), label_a="a", label_b="b", metric="m")
    assert result.p_value == 1.0 and result.rank_biserial == 0.0 and result.statistic is None


def test_holm_step_down_worked_example():
    # sorted p: 0.01 ×3 = 0.03; 0.02 ×2 = 0.04; 0.04 ×1 = 0.04 (running max)
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_with_holm_fills_adjusted_p_values():
    a = {f"c{i}": 1.0 for i in range(6)}
    b = {f"c{i}": 0.5 - 0.01 * i for i in range(6)}
    results = with_holm(
        [
            wilcoxon_paired(a, b, label_a="a", label_b="b", metric="m"),
            wilcoxon_paired(a, b, label_a="a", label_b="b", metric="m"),
        ]
    )
    assert [r.p_holm for r in results] == pytest.approx([2 / 32, 2 / 32])


def test_wilson_interval_textbook_formula():
    # 8 successes of 10, z = 1.959964: centre (p + z²/2n)/(1 + z²/n), half-width z√(p(1-p)/n + z²/4n²)/(1 + z²/n)
    z = 1.959963984540054
    p, n = 0.8, 10
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    rate = wilson_interval(8, 10)
    assert rate.rate == 0.8
    assert rate.low == pytest.approx(centre - half, abs=1e-9)
    assert rate.high == pytest.approx(centre + half, abs=1e-9)
    assert rate.low == pytest.approx(0.4902, abs=1e-4)


def test_wilson_interval_rejects_bad_counts():
    with pytest.raises(ValueError):
        wilson_interval(3, 0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_cohens_h_worked_example():
    # h(1, 0) = 2·asin(1) = π; h(0.5, 0.5) = 0
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)
    assert cohens_h(0.5, 0.5) == 0.0
    assert cohens_h(0.25, 0.75) == pytest.approx(
        2 * math.asin(0.5) - 2 * math.asin(math.sqrt(0.75))
    )


def test_compare_rates_fisher_exact_by_hand():
    # table [[3, 0], [0, 3]]: hypergeometric, P(this table) = 1/C(6,3) = 1/20; two-sided doubles it.
    result = compare_rates(3, 3, 0, 3, label_a="a", label_b="b", what="passing samples")
    assert result.p_value == pytest.approx(2 / 20)
    assert result.cohens_h == pytest.approx(math.pi)
    assert result.to_dict()["n"] == 6
