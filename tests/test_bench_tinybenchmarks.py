"""tinyBenchmarks' clustered anchors, p-IRT and gp-IRT (Polo et al. 2024) as their code computes
them, on skyt-tui's 2PL fit: literal examples worked out here, and checks against scipy."""

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from skyt_tui.engine.benchmark import irt, tinybenchmarks
from skyt_tui.engine.benchmark.irt import IrtModel
from skyt_tui.engine.benchmark.tinybenchmarks import LambdaParts


def model(a, d):
    a, d = np.asarray(a, dtype=float), np.asarray(d, dtype=float)
    n = len(a)
    return IrtModel(
        item_ids=tuple(f"i{k}" for k in range(n)),
        discrimination=a,
        intercept=d,
        item_dispersion=np.ones(n),
        systems=("s",),
        abilities=np.zeros(1),
        dispersion=1.0,
        system_misfit=0.0,
        iterations=1,
        converged=True,
    )


def test_lambda_is_b_squared_over_b_squared_plus_v_over_4k():
    # b = 0.02, v = 0.16, k = 25: v/(4k) = 0.0016; λ = 0.0004 / (0.0004 + 0.0016) = 0.2
    assert LambdaParts(bias=0.02, variance=0.16).weight(25) == pytest.approx(0.2)
    assert LambdaParts(bias=0.0, variance=0.16).weight(25) == 0.0  # a perfect IRT part
    assert LambdaParts(bias=0.0, variance=0.0).weight(5) == 0.0


def test_clusters_are_found_and_weighted_by_their_share_of_the_items():
    # Three tight groups of items in (a, d): 5 near (1, −2), 3 near (2, 0), 2 near (0.5, 3).
    a = [1.0, 1.01, 0.99, 1.0, 1.02, 2.0, 2.01, 1.99, 0.5, 0.51]
    d = [-2.0, -2.01, -1.99, -2.02, -2.0, 0.0, 0.01, -0.01, 3.0, 3.01]
    anchors, weights = tinybenchmarks.cluster_anchors(model(a, d), 3, np.random.default_rng(0))
    assert list(anchors) == sorted(anchors) and len(set(anchors.tolist())) == 3
    groups = {0: range(0, 5), 1: range(5, 8), 2: range(8, 10)}
    found = {next(g for g, members in groups.items() if anchor in members) for anchor in anchors}
    assert found == {0, 1, 2}
    share = {
        next(g for g, m in groups.items() if anchor in m): w for anchor, w in zip(anchors, weights)
    }
    assert share == pytest.approx({0: 0.5, 1: 0.3, 2: 0.2})
    assert weights.sum() == pytest.approx(1.0)


def test_identical_items_still_give_k_distinct_anchors():
    a, d = [1.0] * 6 + [2.0] * 2, [-3.0] * 6 + [1.0] * 2  # six items nobody tells apart
    anchors, weights = tinybenchmarks.cluster_anchors(model(a, d), 4, np.random.default_rng(1))
    assert len(set(anchors.tolist())) == 4 and weights.sum() == pytest.approx(1.0)


def test_ability_mle_agrees_with_scipy_and_stops_at_the_bound_for_all_zero():
    m = model([1.0, 1.5, 0.7, 2.0], [0.5, -1.0, 0.0, -2.0])
    observed = np.array([[1.0, 0.0, 1.0, np.nan], [0.3, 0.7, 0.2, 0.9], [0.0, 0.0, 0.0, 0.0]])
    theta = tinybenchmarks.ability_mle(m, observed)
    for row in range(2):
        y = observed[row]
        scored = ~np.isnan(y)

        def negative(t, y=y, scored=scored):
            p = 1 / (1 + np.exp(-(m.discrimination * t + m.intercept)))
            return -np.sum((y * np.log(p) + (1 - y) * np.log(1 - p))[scored])

        best = minimize_scalar(
            negative, bounds=(-30, 30), method="bounded", options={"xatol": 1e-10}
        )
        assert theta[row] == pytest.approx(best.x, abs=1e-6)
    assert theta[2] == pytest.approx(-30.0)


def test_p_irt_is_scored_sum_plus_predicted_sum_over_n():
    m = model([1.0, 1.5, 0.7, 2.0, 1.2], [0.5, -1.0, 0.0, -2.0, 0.3])
    observed = np.array([[1.0, np.nan, 0.0, np.nan, 1.0]])
    theta = tinybenchmarks.ability_mle(m, observed)[0]
    p = m.probabilities(theta)[0]
    # (k/N) × anchor mean + (1 − k/N) × predicted mean of the others, k = 3, N = 5
    expected = 3 / 5 * (2 / 3) + 2 / 5 * (p[1] + p[3]) / 2
    assert tinybenchmarks.p_irt(m, observed)[0] == pytest.approx(expected)


def test_gp_irt_blends_the_weighted_anchor_mean_and_p_irt():
    m = model([1.0, 1.5, 0.7, 2.0], [0.5, -1.0, 0.0, -2.0])
    observed = np.array([[1.0, np.nan, 0.0, np.nan]])
    anchors, weights = np.array([0, 2]), np.array([0.75, 0.25])
    pirt = tinybenchmarks.p_irt(m, observed)[0]
    # weighted anchor mean 0.75 × 1 + 0.25 × 0 = 0.75; λ = 0.4
    got = tinybenchmarks.gp_irt(m, observed, anchors, weights, 0.4)[0]
    assert got == pytest.approx(0.4 * 0.75 + 0.6 * pirt)
    # an anchor not scored: the weights are renormalised over the scored ones
    assert tinybenchmarks.anchor_mean(np.array([[np.nan, 0, 0.5, 0]]), anchors, weights)[
        0
    ] == pytest.approx(0.5)


def test_lambda_parts_follow_their_validation_scheme():
    """b: every fifth system validates, the model refitted on the others, θ̂ from the even items
    predicting the mean of the odd ones; v: mean per-system variance of the item scores."""
    rng = np.random.default_rng(3)
    ability = rng.normal(size=15)
    chance = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(size=12)[None, :])))
    y = rng.binomial(10, chance) / 10
    fitted_rows = []

    def fit(matrix, rows):
        fitted_rows.append(list(rows))
        return irt.fit(matrix, [f"i{k}" for k in range(12)], [f"s{r}" for r in rows])

    parts = tinybenchmarks.lambda_parts(y, fit)
    assert fitted_rows == [[r for r in range(15) if r % 5]]
    refit = fit(y[[r for r in range(15) if r % 5]], [r for r in range(15) if r % 5])
    validation = y[[0, 5, 10]]
    observed = np.where(np.arange(12) % 2 == 0, validation, np.nan)
    theta = tinybenchmarks.ability_mle(refit, observed)
    odd = np.arange(1, 12, 2)
    errors = np.abs(
        refit.probabilities(theta)[:, odd].mean(axis=1) - validation[:, odd].mean(axis=1)
    )
    assert parts.bias == pytest.approx(errors.mean())
    assert parts.variance == pytest.approx(np.mean([np.var(row) for row in y]))
