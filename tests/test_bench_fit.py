"""The 2PL fit reaches the maximum of its stated objective: the projected gradient is ~0 there (by
finite differences of an objective written here, apart from the engine's), a generic minimiser
on the same objective finds the same point, and with flat priors it agrees with girth's MML fit.

The objective (docs/benchmark.md, irt.py): Σ_s log Σ_g π_g Π_i p^y (1 − p)^(1−y) over the grid
g = −5, −4.75, …, 5 with π ∝ N(0, 1) density summing to 1, plus log N(a; 1, 0.5²) and log N(d; 0, 5²)
per item (constants dropped), on the box 0.05 ≤ a ≤ 8, |d| ≤ 25.
"""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp

from skyt_tui.engine.benchmark import irt
from tests.corpus import require

GRID = np.linspace(-5.0, 5.0, 41)
LOG_WEIGHTS = -0.5 * GRID**2 - logsumexp(-0.5 * GRID**2)
BOUNDS_A, BOUNDS_D = (0.05, 8.0), (-25.0, 25.0)


def objective(scores, a, d, prior=(1.0, 0.5, 5.0)):
    """The log posterior, one system at a time (not the engine's matrix form)."""
    mean_a, sd_a, sd_d = prior
    total = 0.0
    for row in scores:
        per_point = []
        for theta, log_weight in zip(GRID, LOG_WEIGHTS):
            logit = a * theta + d
            # log σ(x) = −log(1 + e^−x); log(1 − σ(x)) = −log(1 + e^x)
            log_p, log_q = -np.logaddexp(0.0, -logit), -np.logaddexp(0.0, logit)
            per_point.append(log_weight + np.sum(row * log_p + (1.0 - row) * log_q))
        total += logsumexp(per_point)
    return total - 0.5 * np.sum(((a - mean_a) / sd_a) ** 2) - 0.5 * np.sum((d / sd_d) ** 2)


def projected_fd_gradient(scores, a, d, step=1e-5):
    """Central differences, one-sided into the box at a bound; components pushing out of the box
    at a bound count as 0 (a maximum on the box may sit there)."""
    values = np.concatenate([a, d])
    n = len(a)
    low = np.array([BOUNDS_A[0]] * n + [BOUNDS_D[0]] * n)
    high = np.array([BOUNDS_A[1]] * n + [BOUNDS_D[1]] * n)
    gradient = np.empty_like(values)
    for index in range(len(values)):
        up, down = values.copy(), values.copy()
        up[index] = min(values[index] + step, high[index])
        down[index] = max(values[index] - step, low[index])
        gradient[index] = (
            objective(scores, up[:n], up[n:]) - objective(scores, down[:n], down[n:])
        ) / (up[index] - down[index])
        if (values[index] <= low[index] and gradient[index] < 0) or (
            values[index] >= high[index] and gradient[index] > 0
        ):
            gradient[index] = 0.0
    return gradient


def two_pl(n_systems, n_items, seed, binary=False):
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=n_systems)
    slope, location = rng.lognormal(0.0, 0.4, n_items), rng.normal(0.0, 1.2, n_items)
    chance = 1.0 / (1.0 + np.exp(-slope * (ability[:, None] - location[None, :])))
    if binary:
        return (rng.random(chance.shape) < chance).astype(float)
    # pass@1 over 10 samples: fractional scores, as LiveCodeBench has
    return rng.binomial(10, chance) / 10.0


def fitted(scores):
    n_systems, n_items = scores.shape
    return irt.fit(scores, [f"i{n}" for n in range(n_items)], [f"s{n}" for n in range(n_systems)])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_fit_is_a_stationary_point_of_its_objective(seed):
    """Before: abilities rescaled to mean 0, sd 1 after every EM step stopped the fit at a point
    where the gradient is far from 0 (the rescaling is not a move the objective allows)."""
    scores = two_pl(30, 12, seed)
    model = fitted(scores)
    gradient = projected_fd_gradient(scores, model.discrimination, model.intercept)
    assert np.max(np.abs(gradient)) < 1e-4, np.max(np.abs(gradient))
    assert model.converged


def test_a_generic_minimiser_on_the_same_objective_finds_the_same_maximum():
    scores = two_pl(25, 8, seed=4)
    n = scores.shape[1]
    model = fitted(scores)
    means = np.clip(scores.mean(axis=0), 0.02, 0.98)
    start = np.concatenate([np.ones(n), np.log(means / (1 - means))])
    result = minimize(
        lambda x: -objective(scores, x[:n], x[n:]),
        start,
        method="L-BFGS-B",
        bounds=[BOUNDS_A] * n + [BOUNDS_D] * n,
        options={"ftol": 1e-14, "gtol": 1e-9, "maxiter": 2000},
    )
    ours = objective(scores, model.discrimination, model.intercept)
    assert ours >= -result.fun - 1e-6  # at least as high as scipy's maximum
    np.testing.assert_allclose(model.discrimination, result.x[:n], atol=2e-3)
    np.testing.assert_allclose(model.intercept, result.x[n:], atol=2e-3)


def test_the_engine_objective_is_the_one_written_here():
    scores = two_pl(12, 7, seed=5)
    rng = np.random.default_rng(1)
    a, d = rng.uniform(0.3, 2.0, 7), rng.normal(0, 1.5, 7)
    assert irt.log_posterior(scores, a, d) == pytest.approx(objective(scores, a, d), abs=1e-9)


def test_with_flat_priors_the_fit_agrees_with_girth(monkeypatch):
    """girth (Ryan C. Sanchez, an independent MML 2PL, test extra): the same maximum-likelihood
    item parameters when the priors are made flat and there are systems enough for the MLE."""
    girth = pytest.importorskip("girth")
    monkeypatch.setattr(irt, "DISCRIMINATION_PRIOR", (1.0, 1e4))
    monkeypatch.setattr(irt, "INTERCEPT_SD", 1e4)
    scores = two_pl(500, 20, seed=0, binary=True)
    model = fitted(scores)
    theirs = girth.twopl_mml(
        scores.T.astype(int), {"max_iteration": 500, "quadrature_bounds": (-5, 5)}
    )
    np.testing.assert_allclose(model.discrimination, theirs["Discrimination"], atol=0.01)
    difficulty = -model.intercept / model.discrimination  # girth: σ(a(θ − b))
    np.testing.assert_allclose(difficulty, theirs["Difficulty"], atol=0.02)


@pytest.mark.corpus
def test_livecodebench_fit_reaches_the_maximum():
    """LiveCodeBench 2024-04: log posterior −4078.9 (plain EM and L-BFGS reach it too); the fit
    with a rescaling per step stopped at −4121.8 with a gradient component of 1.7."""
    from skyt_tui.engine.benchmark.items import load_inputs

    folder = require("benchmarks", "livecodebench-2024-04")
    data = load_inputs(folder / "issues.jsonl", folder / "results.csv", folder / "systems.jsonl")
    scores = data.scores.scores
    model = irt.fit(scores, data.scores.item_ids, data.scores.systems)
    value = objective(scores, model.discrimination, model.intercept)
    assert value == pytest.approx(-4078.919, abs=0.01)
    weights, _, p = irt._e_step(scores, model.discrimination, model.intercept)
    grad_a, grad_d, _ = irt._gradient(scores, weights, model.discrimination, model.intercept, p)
    free_a, free_d = irt.projected_gradient(grad_a, grad_d, model.discrimination, model.intercept)
    assert max(np.max(np.abs(free_a)), np.max(np.abs(free_d))) < 1e-5
