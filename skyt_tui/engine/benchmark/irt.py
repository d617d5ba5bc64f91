"""A one-dimensional two-parameter logistic (2PL) IRT model of a benchmark's scores: the fit, the
anchor choice and the p-IRT estimate of a system's full score from a few items (docs/benchmark.md).

Model: system s solves item i with probability σ(a_i θ_s + d_i), abilities θ ~ N(0, 1).
Fitted by marginal maximum likelihood with EM on a fixed quadrature grid: the E step is two
matrix products, the M step one Newton step per item on (a_i, d_i) under weak normal priors
(an item nobody solves keeps a finite intercept), followed by a rescaling that keeps the fitted
systems' ability distribution at mean 0 and sd 1. Fractional scores (pass@1 over several
samples) enter as expected counts. Discriminations are kept positive, so a higher score on any
item never lowers an estimate. The fit is deterministic: no randomness, a fixed start.

Anchor choice (after tinyBenchmarks, Polo et al. 2024, and metabench, Kipnis et al. 2025): at each
of k quantiles of the fitted abilities, the not yet chosen item of largest Fisher information
a²p(1−p), divided by the item's dispersion (how far its scores stray from the model: an item the
model describes well tells more about θ).

Estimate (p-IRT): the posterior of θ on the grid from the scored items; the full score is
(sum of the observed scores + the model's predicted sum over the unscored items at the posterior
mean θ) / N — with k anchors out of N items, (k/N) × anchor mean + (1 − k/N) × predicted mean.
The interval is normal, from the variance of the unscored items' total: ability uncertainty,
per-item spread (Bernoulli spread × the fitted dispersion), the model's system-level misfit, and
the anchor set's own misfit measured on the fit systems (`anchor_misfit`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

P = ParamSpec("P")
R = TypeVar("R")
_controller: list[ThreadpoolController] = []


def expit(x: np.ndarray) -> np.ndarray:
    """σ(x) (scipy's, imported on first use: scipy costs a second at start-up on a busy machine)."""
    from scipy.special import expit as scipy_expit

    return np.asarray(scipy_expit(x))


def log_expit(x: np.ndarray) -> np.ndarray:
    """log σ(x), accurate far into both tails."""
    from scipy.special import log_expit as scipy_log_expit

    return np.asarray(scipy_log_expit(x))


def normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))


def one_blas_thread(function: Callable[P, R]) -> Callable[P, R]:
    """Run with a single BLAS thread: the products here are small, and a threaded BLAS on a busy
    machine spends 10–20× longer waiting for its threads than computing (measured: a 32 × 400 ×
    41 product took 18 ms threaded, 1 ms on one thread, at load 8 on 2 cores)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not _controller:
            from threadpoolctl import ThreadpoolController

            _controller.append(ThreadpoolController())  # scans the loaded libraries once
        with _controller[0].limit(limits=1, user_api="blas"):
            return function(*args, **kwargs)

    return wrapper


GRID = np.linspace(-5.0, 5.0, 41)
"""Quadrature points for θ, on the N(0, 1) scale of the prior."""
ESTIMATE_PRIOR_SD = 1.5
"""Prior sd of a new system's ability (the fit systems are N(0, 1) by construction). Wider than
the fit's because a system estimated later is usually newer, often stronger than every fit
system: on LiveCodeBench's time split (train before 2023-08-30, test after) the interval
coverage at 25 anchors rose from 85% to 92% (before 2023-04-30: 57% → 67%), at the price of
0.001 in median MAE on random splits."""
DISCRIMINATION_PRIOR = (1.0, 0.5)
"""Normal prior on a (mean, sd)."""
INTERCEPT_SD = 5.0
"""Normal prior sd on d around 0: weak, but keeps an item nobody (or everybody) solves finite."""
ITEM_SHRINK = 2.0
"""Pseudo-count pulling each item's dispersion towards the overall one (few systems per item)."""
MIN_DISCRIMINATION = 0.05
MAX_DISCRIMINATION = 8.0
MAX_INTERCEPT = 25.0
MAX_ITERATIONS = 200
TOLERANCE = 1e-4
MIN_SYSTEMS = 10
"""Fewer complete systems than this: no model is fitted (the caller falls back to stratified)."""
DEFAULT_LEVEL = 0.95
ROUND = 12
"""Decimals kept when parameters are stored, so a stored model reads back to the same numbers."""


def _floats(values: np.ndarray) -> list[float]:
    return [round(float(value), ROUND) for value in values]


@dataclass(frozen=True, eq=False)
class IrtModel:
    """Fitted item parameters (aligned with `item_ids`) and what they were fitted on."""

    item_ids: tuple[str, ...]
    discrimination: np.ndarray
    intercept: np.ndarray
    item_dispersion: np.ndarray
    """Per item: Σ_s (y − p)² / Σ_s p(1 − p) over the fit systems, shrunk towards `dispersion`."""
    systems: tuple[str, ...]
    abilities: np.ndarray
    """Posterior-mean ability of each fit system, aligned with `systems`."""
    dispersion: float
    """Σ (y − p)² / Σ p(1 − p) over all fit scores: below 1 for pass@1 averaged over samples."""
    system_misfit: float
    """Mean over the fit systems of (mean score − the model's mean at their ability)²."""
    iterations: int
    converged: bool

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def probabilities(self, theta: np.ndarray | float) -> np.ndarray:
        """P(solve) at abilities `theta` (T of them) for every item: shape (T, N)."""
        theta = np.atleast_1d(np.asarray(theta, dtype=np.float64))
        return expit(theta[:, None] * self.discrimination[None, :] + self.intercept[None, :])

    def information(self, theta: np.ndarray | float) -> np.ndarray:
        """Fisher information a²p(1−p) / dispersion of each item at each ability: shape (T, N)."""
        p = self.probabilities(theta)
        info: np.ndarray = (
            self.discrimination[None, :] ** 2 * p * (1.0 - p) / self.item_dispersion[None, :]
        )
        return info

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IrtModel):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": "2pl",
            "item_ids": list(self.item_ids),
            "discrimination": _floats(self.discrimination),
            "intercept": _floats(self.intercept),
            "item_dispersion": _floats(self.item_dispersion),
            "systems": list(self.systems),
            "abilities": _floats(self.abilities),
            "dispersion": round(self.dispersion, ROUND),
            "system_misfit": round(self.system_misfit, ROUND),
            "iterations": self.iterations,
            "converged": self.converged,
        }

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> IrtModel:
        if record.get("model") != "2pl":
            raise ValueError(f"unknown IRT model {record.get('model')!r}")
        item_ids = tuple(str(item_id) for item_id in record["item_ids"])
        arrays = {
            name: np.asarray(record[name], dtype=np.float64)
            for name in ("discrimination", "intercept", "item_dispersion")
        }
        for name, values in arrays.items():
            if values.shape != (len(item_ids),) or not np.all(np.isfinite(values)):
                raise ValueError(f"{name}: expected {len(item_ids)} finite numbers")
        if np.any(arrays["discrimination"] <= 0) or np.any(arrays["item_dispersion"] <= 0):
            raise ValueError("discriminations and dispersions must be positive")
        systems = tuple(str(system) for system in record["systems"])
        abilities = np.asarray(record["abilities"], dtype=np.float64)
        if abilities.shape != (len(systems),):
            raise ValueError("abilities do not match systems")
        return cls(
            item_ids=item_ids,
            discrimination=arrays["discrimination"],
            intercept=arrays["intercept"],
            item_dispersion=arrays["item_dispersion"],
            systems=systems,
            abilities=abilities,
            dispersion=float(record["dispersion"]),
            system_misfit=float(record["system_misfit"]),
            iterations=int(record["iterations"]),
            converged=bool(record["converged"]),
        )


def _posterior(log_likelihood: np.ndarray, sd: float = 1.0) -> np.ndarray:
    """Normalised posterior weights over GRID from log-likelihoods (rows × grid points), under an
    N(0, sd²) prior on θ."""
    log_post = log_likelihood - 0.5 * (GRID / sd)[None, :] ** 2
    log_post -= log_post.max(axis=1, keepdims=True)
    # Weights below e^-700 become exactly 0: subnormal numbers would slow every later product
    # tenfold, and they are far below what the sums can resolve.
    weights = np.where(log_post > -700.0, np.exp(np.maximum(log_post, -700.0)), 0.0)
    posterior: np.ndarray = weights / weights.sum(axis=1, keepdims=True)
    return posterior


def _log_likelihood(
    scores: np.ndarray, scored: np.ndarray, a: np.ndarray, d: np.ndarray
) -> np.ndarray:
    """Σ over scored items of y log p + (1−y) log(1−p), per row of `scores`, at each grid point."""
    logits = GRID[:, None] * a[None, :] + d[None, :]
    log_p = log_expit(logits)
    hits = np.where(scored, scores, 0.0)
    misses = np.where(scored, 1.0 - scores, 0.0)
    # log(1 − σ(x)) = log σ(x) − x
    log_likelihood: np.ndarray = hits @ log_p.T + misses @ (log_p - logits).T
    return log_likelihood


@one_blas_thread
def fit(
    scores: np.ndarray,
    item_ids: Sequence[str],
    systems: Sequence[str],
    max_iterations: int = MAX_ITERATIONS,
) -> IrtModel:
    """Fit the 2PL on a complete systems × items matrix of scores in [0, 1] (no NaN)."""
    y = np.asarray(scores, dtype=np.float64)
    if y.ndim != 2 or y.shape != (len(systems), len(item_ids)):
        raise ValueError(f"scores have shape {y.shape}, expected {(len(systems), len(item_ids))}")
    if np.isnan(y).any():
        raise ValueError("the IRT fit needs a score for every item from every system")
    if len(systems) < 2:
        raise ValueError("the IRT fit needs at least two systems")
    scored = np.ones_like(y, dtype=bool)
    mean_a, sd_a = DISCRIMINATION_PRIOR
    item_means = np.clip(y.mean(axis=0), 0.02, 0.98)
    a = np.full(y.shape[1], mean_a)
    d = np.log(item_means / (1.0 - item_means))
    converged = False
    iteration = 0
    for iteration in range(1, max_iterations + 1):  # noqa: B007 - the count is reported
        weights = _posterior(_log_likelihood(y, scored, a, d))
        expected_n = weights.sum(axis=0)
        expected_r = weights.T @ y
        p = expit(GRID[:, None] * a[None, :] + d[None, :])
        residual = expected_r - expected_n[:, None] * p
        grad_a = GRID @ residual - (a - mean_a) / sd_a**2
        grad_d = residual.sum(axis=0) - d / INTERCEPT_SD**2
        curvature = expected_n[:, None] * p * (1.0 - p)
        h_aa = (GRID * GRID) @ curvature + 1.0 / sd_a**2
        h_ad = GRID @ curvature
        h_dd = curvature.sum(axis=0) + 1.0 / INTERCEPT_SD**2
        det = h_aa * h_dd - h_ad * h_ad
        new_a = a + (h_dd * grad_a - h_ad * grad_d) / det
        new_d = d + (h_aa * grad_d - h_ad * grad_a) / det
        # Keep the fit systems' ability distribution at mean 0, sd 1 (the prior's scale):
        # θ' = (θ − μ)/σ leaves aθ + d unchanged when a' = aσ and d' = d + aμ.
        total = float(expected_n.sum())
        mu = float(expected_n @ GRID) / total
        sigma = math.sqrt(max(float(expected_n @ (GRID - mu) ** 2) / total, 1e-6))
        new_d = np.clip(new_d + new_a * mu, -MAX_INTERCEPT, MAX_INTERCEPT)
        new_a = np.clip(new_a * sigma, MIN_DISCRIMINATION, MAX_DISCRIMINATION)
        change = max(float(np.max(np.abs(new_a - a))), float(np.max(np.abs(new_d - d))))
        a, d = new_a, new_d
        if change < TOLERANCE:
            converged = True
            break
    weights = _posterior(_log_likelihood(y, scored, a, d))
    abilities = weights @ GRID
    fitted = expit(abilities[:, None] * a[None, :] + d[None, :])
    squared = (y - fitted) ** 2
    bernoulli = fitted * (1.0 - fitted)
    dispersion = float(squared.sum() / bernoulli.sum()) if bernoulli.sum() > 0 else 1.0
    dispersion = max(dispersion, 1e-3)
    item_dispersion = (squared.sum(axis=0) + ITEM_SHRINK * dispersion) / (
        bernoulli.sum(axis=0) + ITEM_SHRINK
    )
    return IrtModel(
        item_ids=tuple(item_ids),
        discrimination=a,
        intercept=d,
        item_dispersion=np.maximum(item_dispersion, 1e-3),
        systems=tuple(systems),
        abilities=abilities,
        dispersion=dispersion,
        system_misfit=float(np.mean((y.mean(axis=1) - fitted.mean(axis=1)) ** 2)),
        iterations=iteration,
        converged=converged,
    )


def select_anchors(model: IrtModel, k: int) -> np.ndarray:
    """Indices (sorted) of k items: the most informative one at each of k ability quantiles."""
    n_items = model.n_items
    k = min(max(int(k), 0), n_items)
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    targets = np.quantile(model.abilities, (np.arange(k) + 0.5) / k)
    information = model.information(targets)
    taken = np.zeros(n_items, dtype=bool)
    picks = np.empty(k, dtype=np.int64)
    for row in range(k):
        pick = int(np.argmax(np.where(taken, -np.inf, information[row])))
        taken[pick] = True
        picks[row] = pick
    return np.sort(picks)


@dataclass(frozen=True)
class Estimate:
    """A system's estimated mean score over all N items, from the items it was scored on."""

    score: float
    low: float
    high: float
    sd: float
    ability: float
    ability_sd: float
    observed: int
    n_items: int


def _estimate_arrays(
    model: IrtModel, observed: np.ndarray, anchor_misfit: float, anchors: int
) -> tuple[np.ndarray, ...]:
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    if y.shape[1] != model.n_items:
        raise ValueError(f"observed scores have {y.shape[1]} items, the model {model.n_items}")
    scored = ~np.isnan(y)
    weights = _posterior(
        _log_likelihood(y, scored, model.discrimination, model.intercept), ESTIMATE_PRIOR_SD
    )
    ability = weights @ GRID
    ability_sd = np.sqrt(np.maximum(weights @ (GRID * GRID) - ability * ability, 0.0))
    p_grid = model.probabilities(GRID)
    unscored = (~scored).astype(np.float64)
    predicted_grid = unscored @ p_grid.T
    spread_grid = unscored @ (p_grid * (1.0 - p_grid)).T
    predicted = (unscored * model.probabilities(ability)).sum(axis=1)
    posterior_mean = (weights * predicted_grid).sum(axis=1)
    posterior_var = (weights * predicted_grid * predicted_grid).sum(axis=1) - posterior_mean**2
    n_unscored = unscored.sum(axis=1)
    # The anchor set's misfit was measured with N − anchors items unscored; fewer unscored
    # items carry proportionally less of it.
    misfit_scale = n_unscored / max(model.n_items - anchors, 1)
    variance = (
        np.maximum(posterior_var, 0.0)
        + model.dispersion * (weights * spread_grid).sum(axis=1)
        + n_unscored * n_unscored * model.system_misfit
        + (misfit_scale * model.n_items) ** 2 * anchor_misfit
    )
    score = (np.where(scored, y, 0.0).sum(axis=1) + predicted) / model.n_items
    sd = np.sqrt(variance) / model.n_items
    return score, sd, ability, ability_sd, scored.sum(axis=1)


@one_blas_thread
def estimate_arrays(
    model: IrtModel,
    observed: np.ndarray,
    level: float = DEFAULT_LEVEL,
    anchor_misfit: float = 0.0,
    anchors: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high) per row of `observed`, as arrays: `estimate` without the objects."""
    score, sd, *_ = _estimate_arrays(model, observed, anchor_misfit, anchors)
    half = normal_quantile(0.5 + level / 2.0) * sd
    return score, np.maximum(score - half, 0.0), np.minimum(score + half, 1.0)


@one_blas_thread
def estimate(
    model: IrtModel,
    observed: np.ndarray,
    level: float = DEFAULT_LEVEL,
    anchor_misfit: float = 0.0,
    anchors: int = 0,
) -> tuple[Estimate, ...]:
    """p-IRT estimates for each row of `observed` (rows × the model's items, NaN = not scored).

    `anchor_misfit` (a variance in mean-score units, from `anchor_misfit`) widens the interval
    by what the anchor set missed on the fit systems; `anchors` is that set's size.
    """
    score, sd, ability, ability_sd, counts = _estimate_arrays(
        model, observed, anchor_misfit, anchors
    )
    half = normal_quantile(0.5 + level / 2.0) * sd
    return tuple(
        Estimate(
            score=float(score[row]),
            low=float(max(0.0, score[row] - half[row])),
            high=float(min(1.0, score[row] + half[row])),
            sd=float(sd[row]),
            ability=float(ability[row]),
            ability_sd=float(ability_sd[row]),
            observed=int(counts[row]),
            n_items=model.n_items,
        )
        for row in range(len(score))
    )


def anchor_misfit(model: IrtModel, scores: np.ndarray, anchors: np.ndarray) -> float:
    """Extra variance (mean-score units) the anchor set leaves unexplained on the fit systems.

    Each fit system is estimated from the anchors alone and compared with its true mean; what
    the squared errors exceed the modelled variance by, on average, is added to every later
    interval made from these anchors (0 when the model already accounts for it).
    """
    y = np.asarray(scores, dtype=np.float64)
    observed = np.full_like(y, np.nan)
    observed[:, anchors] = y[:, anchors]
    score, sd, *_ = _estimate_arrays(model, observed, 0.0, len(anchors))
    return max(0.0, float(np.mean((score - y.mean(axis=1)) ** 2 - sd * sd)))
