"""Ouyang et al.'s metrics, multi-τ P_τ and the spread of d: worked examples, and agreement
with independent implementations written here (plain dynamic programming, explicit loops)."""

from __future__ import annotations

import math
import random

import pytest

from skyt_tui.engine.measure.literature import (
    code_tokens,
    lcs_ratio,
    led,
    literature_metrics,
    output_equivalence,
    p_tau,
    sample_pass_rates,
    similarity_to_first,
    spread,
)
from skyt_tui.engine.measure.records import SampleAnalysis

SIG = {"raw": "r", "format": "f", "nodoc": "n", "alpha": "a"}


def sample(index, vector=None, outputs=None, d_pre=None, d_post=None):
    return SampleAnalysis(
        index=index,
        signatures=SIG,
        passed=None if vector is None else all(vector),
        pass_vector=vector,
        outputs=outputs,
        d_pre=d_pre,
        d_post=d_post,
    )


def lcs_block_dp(a, b):
    """Longest common substring by the textbook O(n·m) table."""
    best = 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def levenshtein_dp(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def test_code_tokens_drop_layout_and_comments():
    assert code_tokens("def f(x):\n    return x + 1  # add\n") == (
        "def", "f", "(", "x", ")", ":", "return", "x", "+", "1",
    )  # fmt: skip
    # untokenizable code falls back to words and punctuation
    assert code_tokens('x = "abc\n(') == ("x", "=", '"', "abc", "(")


def test_lcs_and_led_worked_example():
    a = code_tokens("return x + 1")  # return x + 1      (4 tokens)
    b = code_tokens("return x + 2 * y")  # return x + 2 * y (6 tokens)
    # longest common block "return x +" = 3 tokens, over the longer 6
    assert lcs_ratio(a, b) == pytest.approx(3 / 6)
    # 1 → 2 substitutes, "*" and "y" are inserted: 3 edits, over 6
    assert led(a, b) == (3, pytest.approx(0.5))
    assert lcs_ratio([], []) == 1.0 and led([], []) == (0, 0.0)


def test_lcs_led_agree_with_dynamic_programming():
    rng = random.Random(7)
    alphabet = ["a", "b", "c", "(", ")"]
    for _ in range(200):
        a = [rng.choice(alphabet) for _ in range(rng.randrange(0, 12))]
        b = [rng.choice(alphabet) for _ in range(rng.randrange(0, 12))]
        longest = max(len(a), len(b))
        expected_lcs = lcs_block_dp(a, b) / longest if longest else 1.0
        assert lcs_ratio(a, b) == pytest.approx(expected_lcs)
        assert led(a, b)[0] == levenshtein_dp(a, b)


def test_similarity_to_first_means_over_later_samples():
    codes = ["return x + 1", "return x + 1", "return x + 2 * y"]
    result = similarity_to_first(codes)
    # sample 1: LCS 1, LED 0; sample 2: LCS 3/6, LED 3/6
    assert result["LCS"] == pytest.approx((1 + 0.5) / 2)
    assert result["LED"] == pytest.approx((0 + 0.5) / 2)
    assert similarity_to_first(["x"])["LCS"] is None


def test_pass_rate_mean_variance_max_diff_worked_example():
    samples = [
        sample(0, (True, True, True, True)),
        sample(1, (True, True, False, False)),
        sample(2, (False, False, False, False)),
        sample(3, None),  # never ran: passed none
    ]
    rates = sample_pass_rates(samples)
    assert rates == [1.0, 0.5, 0.0, 0.0]
    summary = spread(rates)
    # mean 1.5/4 = 0.375; variance ((.625)² + (.125)² + 2·(.375)²)/4 = 0.171875
    assert summary["mean"] == pytest.approx(0.375)
    assert summary["variance"] == pytest.approx(0.171875)
    assert summary["max_diff"] == 1.0
    assert sample_pass_rates([sample(0)]) is None


def test_oer_and_oer_ow_worked_example():
    outputs = [
        ("1", "2", "!ValueError", "5"),
        ("1", "3", "!ValueError", "5"),
        ("1", "2", "7", "!Timeout"),
    ]
    result = output_equivalence(outputs)
    # equal on test 0 only → OER 1/4; tests without an error: 0 and 1, equal on 0 → OER_ow 1/2
    assert result["OER"] == pytest.approx(0.25)
    assert result["OER_ow"] == pytest.approx(0.5)
    assert result["tests_ow"] == 2
    assert output_equivalence([("!Timeout",), ("1",)])["OER_ow"] is None


def oer_by_loops(rows):
    """An independent OER / OER_ow: count by explicit loops over test cases."""
    equal = normal = equal_normal = 0
    for test in range(len(rows[0])):
        values = [row[test] for row in rows]
        same = all(value == values[0] for value in values)
        clean = all(not value.startswith("!") for value in values)
        equal += same
        normal += clean
        equal_normal += same and clean
    return equal / len(rows[0]), (equal_normal / normal if normal else None)


def test_oer_agrees_with_loops_on_random_outputs():
    rng = random.Random(3)
    for _ in range(200):
        tests = rng.randrange(1, 6)
        rows = [
            tuple(rng.choice(["1", "2", "!ValueError", "!Timeout"]) for _ in range(tests))
            for _ in range(rng.randrange(1, 5))
        ]
        result = output_equivalence(rows)
        oer, oer_ow = oer_by_loops(rows)
        assert result["OER"] == pytest.approx(oer)
        assert result["OER_ow"] == (None if oer_ow is None else pytest.approx(oer_ow))


def test_oer_with_constraints_uses_outputs_not_pass_vector_length():
    # a contract with 2 tests + 1 constraint: pass vectors have 3 entries, outputs 2
    samples = [
        sample(0, (True, True, False), ("1", "2")),
        sample(1, (True, True, True), ("1", "3")),
    ]
    metrics = literature_metrics(samples)
    assert metrics["tests"] == 2
    assert metrics["OER"] == pytest.approx(0.5)
    assert metrics["OER_ow"] == pytest.approx(0.5)


def test_p_tau_several_thresholds_and_std_of_d():
    samples = [
        sample(0, (True,), ("1",), d_pre=0.0, d_post=0.0),
        sample(1, (True,), ("1",), d_pre=0.08, d_post=0.0),
        sample(2, (True,), ("1",), d_pre=0.12, d_post=0.12),
        sample(3, (False,), ("2",), d_pre=0.4, d_post=0.4),
    ]
    metrics = literature_metrics(samples)
    assert metrics["P_tau_pre"] == {"0.05": 0.25, "0.1": 0.5, "0.15": 0.75, "0.2": 0.75}
    assert metrics["P_tau_post"]["0.05"] == 0.5
    # d_pre mean 0.15; deviations -.15, -.07, -.03, .25 → variance (.0225+.0049+.0009+.0625)/4
    assert metrics["std_d_pre"] == pytest.approx(math.sqrt(0.0908 / 4))
    assert p_tau([], (0.1,)) == {"0.1": 0.0}


def test_literature_metrics_without_oracle_or_distances():
    metrics = literature_metrics([sample(0), sample(1)], ["a = 1", "a = 2"])
    assert metrics["OER"] is None and metrics["test_pass_rate_mean"] is None
    assert metrics["std_d_pre"] is None and metrics["P_tau_pre"] is None
    assert metrics["LCS"] == pytest.approx(2 / 3)


def test_run_metrics_oer_with_constraints_counts_real_outputs():
    """Old code padded outputs to the pass vector's length (constraints included), so every
    sample's outputs became "!not-run" and OER was 1 whatever the samples returned."""
    from skyt_tui.engine.measure.metrics import compute_metrics

    samples = [
        sample(0, (True, True, False), ("1", "2")),
        sample(1, (True, True, True), ("1", "3")),
    ]
    assert compute_metrics(samples).OER == pytest.approx(0.5)
