"""tinyBenchmarks' anchor design and estimators (Polo et al. 2024, "tinyBenchmarks: evaluating
LLMs with fewer examples"), computed as their released code computes them, on skyt-tui's
one-dimensional 2PL fit (`irt`) instead of their multidimensional py-irt fit (docs/benchmark.md).

- Clustered anchors ("anchor-IRT"): k-means with k clusters on the items' IRT parameters (a, d)
  — five k-means++ starts, the one of least inertia kept —, the item nearest each centre is the
  anchor and its weight the cluster's share of the items. (They take the nearest item per centre
  even if two centres share it; here the second centre takes its next nearest item, so that the
  anchors are k distinct items.)
- p-IRT: θ̂ by maximum likelihood from the scored items (their `fit_theta`; here a safeguarded
  Newton search on [−30, 30], the range their logits are clipped to), then
  (Σ scored y + Σ unscored p_i(θ̂)) / N — with k anchors, (k/N) × anchor mean + (1 − k/N) ×
  predicted mean of the others.
- gp-IRT: λ × (weighted anchor mean) + (1 − λ) × p-IRT, with λ = b² / (b² + v / (4k)): b is the
  mean absolute error of the IRT part on validation systems (every fifth training system, the
  model refitted without them, θ̂ from the even-numbered items, predicting the mean of the odd
  ones), v the mean over the training systems of the variance of their item scores.

`skyt-tui bench sample --method cluster` uses these anchors and the gp-IRT estimate; its interval
is skyt-tui's own (`anchors.cluster_arrays`), since tinyBenchmarks gives none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from skyt_tui.engine.benchmark import irt

KMEANS_STARTS = 5
KMEANS_MAX_ROUNDS = 300
VALIDATION_EVERY = 5
"""Every fifth training system validates the IRT part (their `val_ind = range(0, n, 5)`)."""
THETA_BOUND = 30.0
ANCHOR_EFFICIENCY = 4.0
"""The 4 in v / (4k): tinyBenchmarks' guess of how much better than random anchors do."""


@dataclass(frozen=True)
class LambdaParts:
    """What λ is made of, measured on the training systems."""

    bias: float
    """b: mean absolute error of the IRT prediction on the validation systems."""
    variance: float
    """v: mean over the training systems of the variance of their item scores."""

    def weight(self, k: int) -> float:
        """λ = b² / (b² + v / (4k)): the weight of the anchor mean in gp-IRT."""
        noise = self.variance / (ANCHOR_EFFICIENCY * max(k, 1))
        denominator = self.bias**2 + noise
        return float(self.bias**2 / denominator) if denominator > 0 else 0.0


def _kmeans_once(
    points: np.ndarray, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, float]:
    """Lloyd's k-means from a k-means++ start: (centres, labels, inertia)."""
    n = len(points)
    centres = np.empty((k, points.shape[1]))
    centres[0] = points[rng.integers(n)]
    nearest = ((points - centres[0]) ** 2).sum(axis=1)
    for index in range(1, k):
        total = float(nearest.sum())
        pick = int(rng.choice(n, p=nearest / total)) if total > 0 else int(rng.integers(n))
        centres[index] = points[pick]
        nearest = np.minimum(nearest, ((points - centres[index]) ** 2).sum(axis=1))
    labels = np.full(n, -1)
    for _ in range(KMEANS_MAX_ROUNDS):
        distances = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        new_labels = np.argmin(distances, axis=1)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        counts = np.bincount(labels, minlength=k)
        spread = distances[np.arange(n), labels]
        for empty in np.nonzero(counts == 0)[0]:
            # an empty cluster takes the point farthest from its centre among those whose
            # cluster keeps another point (k ≤ n, so there is one)
            far = int(np.argmax(np.where(counts[labels] > 1, spread, -1.0)))
            counts[labels[far]] -= 1
            labels[far] = empty
            counts[empty] = 1
            spread[far] = -1.0
        for axis in range(points.shape[1]):
            centres[:, axis] = np.bincount(labels, weights=points[:, axis], minlength=k) / counts
    inertia = float(((points - centres[labels]) ** 2).sum())
    return centres, labels, inertia


def cluster_anchors(
    model: irt.IrtModel, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(anchor indices, their weights), both ordered by anchor index; weights sum to 1."""
    points = np.stack([model.discrimination, model.intercept], axis=1)
    n = len(points)
    k = min(max(int(k), 1), n)
    best: tuple[np.ndarray, np.ndarray, float] | None = None
    for _ in range(KMEANS_STARTS):
        found = _kmeans_once(points, k, rng)
        if best is None or found[2] < best[2]:
            best = found
    assert best is not None
    centres, labels, _ = best
    taken = np.zeros(n, dtype=bool)
    anchors = np.empty(k, dtype=np.int64)
    for cluster in range(k):
        distances = ((points - centres[cluster]) ** 2).sum(axis=1)
        order = np.argsort(np.where(taken, np.inf, distances), kind="stable")
        anchors[cluster] = order[0]
        taken[order[0]] = True
    weights = np.bincount(labels, minlength=k).astype(np.float64) / n
    order = np.argsort(anchors)
    return anchors[order], weights[order]


def ability_mle(model: irt.IrtModel, observed: np.ndarray) -> np.ndarray:
    """θ̂ maximising Σ over scored items of y log p + (1 − y) log(1 − p), per row (NaN = not
    scored), on [−30, 30]: the score equation Σ a (y − p(θ)) = 0 falls in θ, so a Newton step
    that leaves the bracket is replaced by bisection."""
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    scored = ~np.isnan(y)
    values = np.where(scored, y, 0.0)
    a, d = model.discrimination, model.intercept

    def score_and_slope(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = irt.expit(theta[:, None] * a[None, :] + d[None, :])
        score = (np.where(scored, a[None, :] * (values - p), 0.0)).sum(axis=1)
        slope = (np.where(scored, a[None, :] ** 2 * p * (1.0 - p), 0.0)).sum(axis=1)
        return score, slope

    low = np.full(len(y), -THETA_BOUND)
    high = np.full(len(y), THETA_BOUND)
    theta = np.zeros(len(y))
    for _ in range(200):
        score, slope = score_and_slope(theta)
        low = np.where(score > 0, theta, low)
        high = np.where(score <= 0, theta, high)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = theta + score / slope
        inside = np.isfinite(newton) & (newton > low) & (newton < high)
        new_theta = np.where(inside, newton, 0.5 * (low + high))
        if np.all(np.abs(new_theta - theta) < 1e-12):
            theta = new_theta
            break
        theta = new_theta
    return theta


def p_irt(model: irt.IrtModel, observed: np.ndarray) -> np.ndarray:
    """tinyBenchmarks' p-IRT per row of `observed` (rows × the model's items, NaN = not scored)."""
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    scored = ~np.isnan(y)
    theta = ability_mle(model, y)
    predicted = model.probabilities(theta)
    estimate: np.ndarray = np.where(scored, y, predicted).sum(axis=1) / model.n_items
    return estimate


def anchor_mean(observed: np.ndarray, anchors: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Σ w_j y_j over the anchors a row was scored on, the weights renormalised over them."""
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))[:, anchors]
    scored = ~np.isnan(y)
    mass = (np.where(scored, weights[None, :], 0.0)).sum(axis=1)
    total = (np.where(scored, y * weights[None, :], 0.0)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean: np.ndarray = np.where(mass > 0, total / np.where(mass > 0, mass, 1.0), np.nan)
    return mean


def gp_irt(
    model: irt.IrtModel,
    observed: np.ndarray,
    anchors: np.ndarray,
    weights: np.ndarray,
    weight: float,
) -> np.ndarray:
    """λ × weighted anchor mean + (1 − λ) × p-IRT (`weight` is λ); p-IRT alone where a row has
    no anchor scored."""
    mean = anchor_mean(observed, anchors, weights)
    pirt = p_irt(model, observed)
    blended: np.ndarray = np.where(np.isnan(mean), pirt, weight * mean + (1.0 - weight) * pirt)
    return blended


def lambda_parts(
    scores: np.ndarray,
    fit: Callable[[np.ndarray, Sequence[int]], irt.IrtModel],
) -> LambdaParts:
    """b and v on a complete training matrix; `fit(matrix, rows)` fits the 2PL on those rows."""
    y = np.asarray(scores, dtype=np.float64)
    n_systems, n_items = y.shape
    validation = np.arange(0, n_systems, VALIDATION_EVERY)
    rest = np.setdiff1d(np.arange(n_systems), validation)
    variance = float(np.var(y, axis=1).mean())
    if len(rest) < 2 or n_items < 2:
        return LambdaParts(bias=0.0, variance=variance)
    model = fit(y[rest], rest.tolist())
    seen, unseen = np.arange(0, n_items, 2), np.arange(1, n_items, 2)
    observed = np.full((len(validation), n_items), np.nan)
    observed[:, seen] = y[np.ix_(validation, seen)]
    theta = ability_mle(model, observed)
    predicted = model.probabilities(theta)[:, unseen].mean(axis=1)
    bias = float(np.mean(np.abs(predicted - y[np.ix_(validation, unseen)].mean(axis=1))))
    return LambdaParts(bias=bias, variance=variance)
