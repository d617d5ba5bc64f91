"""A one-dimensional two-parameter logistic (2PL) IRT model of a benchmark's scores: the fit, the
anchor choice and the p-IRT estimate of a system's full score from a few items (docs/benchmark.md).

Model: system s solves item i with probability σ(a_i θ_s + d_i), abilities θ ~ N(0, 1).
The fit maximises the log posterior (`log_posterior`): the marginal log likelihood, θ integrated
over a fixed 41-point grid with N(0, 1) weights, plus weak normal priors a ~ N(1, 0.5²) and
d ~ N(0, 5²) (an item nobody solves keeps a finite intercept), on the box 0.05 ≤ a ≤ 8,
|d| ≤ 25 (discriminations stay positive, so a higher score on any item never lowers an
estimate). EM with one projected Newton step per item as M step, accelerated by SQUAREM, never
lowering the objective, until no component of the projected gradient exceeds 1e-6. The fixed
N(0, 1) population fixes the scale of θ: nothing is rescaled (rescaling the abilities to mean 0,
sd 1 after every step, as this fit did before, moves it to a point that is not a maximum —
on LiveCodeBench 2024-04 a log posterior of −4121.8 against −4078.9). Fractional scores (pass@1
over several samples) enter as expected counts. The fit is deterministic: no randomness, a
fixed start.

Anchor choice (after tinyBenchmarks, Polo et al. 2024, and metabench, Kipnis et al. 2025): at each
of k quantiles of the fitted abilities, the not yet chosen item of largest Fisher information
a²p(1−p), divided by the item's dispersion (how far its scores stray from the model: an item the
model describes well tells more about θ).

Estimate (p-IRT-EAP, skyt-tui's variant of tinyBenchmarks' p-IRT, which takes the maximum-
likelihood θ instead — `tinybenchmarks`): the posterior of θ on the grid from the scored
items; the full score is
(sum of the observed scores + the model's predicted sum over the unscored items at the posterior
mean θ) / N — with k anchors out of N items, (k/N) × anchor mean + (1 − k/N) × predicted mean.
The interval is normal, from the variance of the unscored items' total: ability uncertainty,
per-item spread (Bernoulli spread × the fitted dispersion), the model's system-level misfit, and
the anchor set's own misfit measured on the fit systems (`anchor_misfit`) — all of it scaled
up for a system the model fits worse than the fit systems (`person_fit`).
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
"""Prior sd of a new system's ability, on the scale of the fit's N(0, 1) population. Wider than
the population because a system estimated later is usually newer, often stronger than every
fit system: on LiveCodeBench's time split (train before 2023-08-30, test after) the interval
coverage at 25 anchors rose from 85% to 92% (before 2023-04-30: 57% → 67%), at the price of
0.001 in median MAE on random splits (measured with the fit before issue 25, which rescaled
the abilities to mean 0, sd 1 at every step)."""
DISCRIMINATION_PRIOR = (1.0, 0.5)
"""Normal prior on a (mean, sd)."""
INTERCEPT_SD = 5.0
"""Normal prior sd on d around 0: weak, but keeps an item nobody (or everybody) solves finite."""
ITEM_SHRINK = 2.0
"""Pseudo-count pulling each item's dispersion towards the overall one (few systems per item)."""
MIN_DISCRIMINATION = 0.05
MAX_DISCRIMINATION = 8.0
MAX_INTERCEPT = 25.0
MAX_ITERATIONS = 500
GRADIENT_TOLERANCE = 1e-6
"""The fit stops when no component of the projected gradient of the log posterior exceeds this."""
MAX_HALVINGS = 40
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


def log_prior(a: np.ndarray, d: np.ndarray) -> float:
    """log p(a, d) up to its constant: a_i ~ N(DISCRIMINATION_PRIOR), d_i ~ N(0, INTERCEPT_SD²)."""
    mean_a, sd_a = DISCRIMINATION_PRIOR
    return float(-0.5 * np.sum(((a - mean_a) / sd_a) ** 2) - 0.5 * np.sum((d / INTERCEPT_SD) ** 2))


_LOG_GRID_WEIGHTS = -0.5 * GRID**2 - math.log(float(np.exp(-0.5 * GRID**2).sum()))
"""log of the N(0, 1) population's weights on GRID (normalised to sum 1)."""


def _e_step(y: np.ndarray, a: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Posterior weights of every system over GRID, the log marginal likelihood
    Σ_s log Σ_g π_g Π_i p_gi^y (1 − p_gi)^(1−y) of a complete score matrix, and p_gi.

    With every item scored, Σ_i y log p + (1 − y) log(1 − p) = Σ_i log p − Σ_i (1 − y)(θ a + d)
    (log(1 − σ(x)) = log σ(x) − x): a sum over the grid plus two numbers per system, no
    systems × items × grid product."""
    logits = GRID[:, None] * a[None, :] + d[None, :]
    log_p = log_expit(logits)
    misses = 1.0 - y
    log_joint = (
        log_p.sum(axis=1)[None, :]
        - np.outer(misses @ a, GRID)
        - (misses @ d)[:, None]
        + _LOG_GRID_WEIGHTS[None, :]
    )
    top = log_joint.max(axis=1, keepdims=True)
    weights = np.exp(log_joint - top)
    total = weights.sum(axis=1, keepdims=True)
    log_marginal = float(np.sum(top[:, 0] + np.log(total[:, 0])))
    posterior: np.ndarray = weights / total
    return posterior, log_marginal, np.exp(log_p)


def log_posterior(scores: np.ndarray, a: np.ndarray, d: np.ndarray) -> float:
    """The fit's objective: log marginal likelihood (θ ~ N(0, 1) on GRID) + `log_prior`."""
    return _e_step(np.asarray(scores, dtype=np.float64), a, d)[1] + log_prior(a, d)


def _gradient(
    y: np.ndarray, weights: np.ndarray, a: np.ndarray, d: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """∂ log posterior / ∂(a, d) at (a, d), from the E step's weights and p at the same point
    (Fisher's identity: the marginal score is the expected complete-data score), and the
    complete-data curvature (n_g p(1 − p) per grid point and item) for the Newton step."""
    mean_a, sd_a = DISCRIMINATION_PRIOR
    expected_n = weights.sum(axis=0)
    expected_r = weights.T @ y
    residual = expected_r - expected_n[:, None] * p
    grad_a = GRID @ residual - (a - mean_a) / sd_a**2
    grad_d = residual.sum(axis=0) - d / INTERCEPT_SD**2
    curvature: np.ndarray = expected_n[:, None] * p * (1.0 - p)
    return grad_a, grad_d, curvature


def projected_gradient(
    grad_a: np.ndarray, grad_d: np.ndarray, a: np.ndarray, d: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The gradient with the components that point out of the box of bounds set to 0: all zero at
    a maximum on the box (a parameter held at a bound may have a gradient pushing outwards)."""
    return (
        _project(grad_a, a, MIN_DISCRIMINATION, MAX_DISCRIMINATION),
        _project(grad_d, d, -MAX_INTERCEPT, MAX_INTERCEPT),
    )


def _project(grad: np.ndarray, value: np.ndarray, low: float, high: float) -> np.ndarray:
    outward = ((value <= low) & (grad < 0)) | ((value >= high) & (grad > 0))
    projected: np.ndarray = np.where(outward, 0.0, grad)
    return projected


def _newton_step(
    grad_a: np.ndarray, grad_d: np.ndarray, curvature: np.ndarray, a: np.ndarray, d: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """One projected Newton step per item on the complete-data log posterior (the EM M step).

    A parameter held at its bound with the gradient pushing outwards stays there and the other
    one takes its own one-dimensional Newton step: clipping the joint 2 × 2 step instead would
    leave the free parameter off its optimum (it was computed for a move the bound forbids).
    """
    _, sd_a = DISCRIMINATION_PRIOR
    h_aa = (GRID * GRID) @ curvature + 1.0 / sd_a**2
    h_ad = GRID @ curvature
    h_dd = curvature.sum(axis=0) + 1.0 / INTERCEPT_SD**2
    det = h_aa * h_dd - h_ad * h_ad
    step_a = (h_dd * grad_a - h_ad * grad_d) / det
    step_d = (h_aa * grad_d - h_ad * grad_a) / det
    hold_a = ((a <= MIN_DISCRIMINATION) & (grad_a < 0)) | ((a >= MAX_DISCRIMINATION) & (grad_a > 0))
    hold_d = ((d <= -MAX_INTERCEPT) & (grad_d < 0)) | ((d >= MAX_INTERCEPT) & (grad_d > 0))
    step_a = np.where(hold_a, 0.0, np.where(hold_d, grad_a / h_aa, step_a))
    step_d = np.where(hold_d, 0.0, np.where(hold_a, grad_d / h_dd, step_d))
    return (
        np.clip(a + step_a, MIN_DISCRIMINATION, MAX_DISCRIMINATION),
        np.clip(d + step_d, -MAX_INTERCEPT, MAX_INTERCEPT),
    )


@dataclass
class _Point:
    """Item parameters with what the E step gives at them: posterior weights, the objective, its
    gradient and the complete-data curvature."""

    a: np.ndarray
    d: np.ndarray
    weights: np.ndarray
    objective: float
    grad_a: np.ndarray
    grad_d: np.ndarray
    curvature: np.ndarray

    @classmethod
    def at(cls, y: np.ndarray, a: np.ndarray, d: np.ndarray) -> _Point:
        weights, log_marginal, p = _e_step(y, a, d)
        grad_a, grad_d, curvature = _gradient(y, weights, a, d, p)
        return cls(a, d, weights, log_marginal + log_prior(a, d), grad_a, grad_d, curvature)

    def stationarity(self) -> float:
        """The largest component of the projected gradient (0 at a maximum on the box)."""
        free_a, free_d = projected_gradient(self.grad_a, self.grad_d, self.a, self.d)
        return max(float(np.max(np.abs(free_a))), float(np.max(np.abs(free_d))))

    def em(self, y: np.ndarray) -> _Point:
        """The EM map: one projected Newton step of the M step from here."""
        return _Point.at(y, *_newton_step(self.grad_a, self.grad_d, self.curvature, self.a, self.d))


def _clip(a: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (
        np.clip(a, MIN_DISCRIMINATION, MAX_DISCRIMINATION),
        np.clip(d, -MAX_INTERCEPT, MAX_INTERCEPT),
    )


def _squarem(y: np.ndarray, start: _Point) -> _Point:
    """One SQUAREM iteration (Varadhan & Roland 2008, scheme S3) on the EM map F, never lowering
    the objective: from x₀, r = F(x₀) − x₀ and v = F(F(x₀)) − 2F(x₀) + x₀ give the extrapolation
    x₀ − 2αr + α²v with α = −|r|/|v| (at most −1), projected on the bounds and followed by one
    EM step; α moves halfway towards −1 while that lowers the objective, and at α = −1 it is
    F(F(F(x₀))), plain EM. EM alone creeps along the ridge where a shift or stretch of every
    ability is offset by the items' intercepts and slopes (hundreds of steps on LiveCodeBench);
    the extrapolation takes it in a dozen. If even plain EM lowers the objective, the first EM
    step is halved until it does not."""
    first = start.em(y)
    second = first.em(y)
    r = np.concatenate([first.a - start.a, first.d - start.d])
    v = np.concatenate([second.a - first.a, second.d - first.d]) - r
    r_norm, v_norm = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    alpha = min(-r_norm / v_norm, -1.0) if v_norm > 0 else -1.0
    n_items = len(start.a)
    x0 = np.concatenate([start.a, start.d])
    while alpha < -1.0:
        jumped = x0 - 2.0 * alpha * r + alpha * alpha * v
        candidate = _Point.at(y, *_clip(jumped[:n_items], jumped[n_items:])).em(y)
        if candidate.objective >= start.objective and np.isfinite(candidate.objective):
            return candidate
        alpha = max((alpha - 1.0) / 2.0, -1.0)
    third = second.em(y)
    best = max((third, second, first), key=lambda point: point.objective)
    if best.objective >= start.objective:
        return best
    # A Newton step of the M step can overshoot the marginal maximum: halve it until it does not.
    for halving in range(1, MAX_HALVINGS + 1):
        share = 0.5**halving
        shorter = _Point.at(
            y, start.a + share * (first.a - start.a), start.d + share * (first.d - start.d)
        )
        if shorter.objective >= start.objective:
            return shorter
    return start


@one_blas_thread
def fit(
    scores: np.ndarray,
    item_ids: Sequence[str],
    systems: Sequence[str],
    max_iterations: int = MAX_ITERATIONS,
) -> IrtModel:
    """Fit the 2PL on a complete systems × items matrix of scores in [0, 1] (no NaN): the
    maximum of `log_posterior` on the box of bounds (module docstring)."""
    y = np.asarray(scores, dtype=np.float64)
    if y.ndim != 2 or y.shape != (len(systems), len(item_ids)):
        raise ValueError(f"scores have shape {y.shape}, expected {(len(systems), len(item_ids))}")
    if np.isnan(y).any():
        raise ValueError("the IRT fit needs a score for every item from every system")
    if len(systems) < 2:
        raise ValueError("the IRT fit needs at least two systems")
    item_means = np.clip(y.mean(axis=0), 0.02, 0.98)
    point = _Point.at(
        y, np.full(y.shape[1], DISCRIMINATION_PRIOR[0]), np.log(item_means / (1.0 - item_means))
    )
    converged = False
    iteration = 0
    for iteration in range(1, max_iterations + 1):  # noqa: B007 - the count is reported
        if point.stationarity() < GRADIENT_TOLERANCE:
            converged = True
            break
        after = _squarem(y, point)
        if not after.objective > point.objective:
            # Not even three EM steps raise the objective: it is as high as double precision
            # resolves; stop where it is (reported as not converged if the gradient is not small).
            converged = point.stationarity() < GRADIENT_TOLERANCE
            break
        point = after
    a, d, weights = point.a, point.d, point.weights
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


def person_fit(model: IrtModel, observed: np.ndarray, ability: np.ndarray) -> np.ndarray:
    """Per row: the mean over its scored items of (y − p)² / (p(1 − p) × the item's dispersion)
    at `ability` — about 1 for a system the model describes as well as it describes the items'
    fit systems, more for one whose scores stray from it (NaN with nothing scored)."""
    y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
    scored = ~np.isnan(y)
    p = model.probabilities(ability)
    spread = np.maximum(p * (1.0 - p), 1e-12) * model.item_dispersion[None, :]
    squares = np.where(scored, (np.where(scored, y, 0.0) - p) ** 2 / spread, 0.0)
    counts = scored.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        fit: np.ndarray = np.where(counts > 0, squares.sum(axis=1) / np.maximum(counts, 1), np.nan)
    return fit


def _estimate_arrays(
    model: IrtModel,
    observed: np.ndarray,
    anchor_misfit: float,
    anchors: int,
    person_reference: float = 0.0,
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
    if person_reference > 0:
        # A system the model fits worse on its scored items than it fits the fit systems on the
        # same anchors is unlike them: everything above is scaled by how much worse.
        ratio = person_fit(model, y, ability) / person_reference
        variance = variance * np.maximum(np.nan_to_num(ratio, nan=1.0), 1.0)
    score = (np.where(scored, y, 0.0).sum(axis=1) + predicted) / model.n_items
    sd = np.sqrt(variance) / model.n_items
    return score, sd, ability, ability_sd, scored.sum(axis=1)


@one_blas_thread
def estimate_sd(
    model: IrtModel,
    observed: np.ndarray,
    anchor_misfit: float = 0.0,
    anchors: int = 0,
    person_reference: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(p-IRT estimate, its sd) per row of `observed`, before any interval calibration."""
    score, sd, *_ = _estimate_arrays(model, observed, anchor_misfit, anchors, person_reference)
    return score, sd


@one_blas_thread
@one_blas_thread
def estimate(
    model: IrtModel,
    observed: np.ndarray,
    level: float = DEFAULT_LEVEL,
    anchor_misfit: float = 0.0,
    anchors: int = 0,
    person_reference: float = 0.0,
    scale: float = 1.0,
) -> tuple[Estimate, ...]:
    """p-IRT estimates for each row of `observed` (rows × the model's items, NaN = not scored).

    `anchor_misfit` (a variance in mean-score units, from `anchor_misfit`) widens the interval
    by what the anchor set missed on the fit systems; `anchors` is that set's size;
    `person_reference` (from `person_reference`) widens it for a system the model fits worse
    than the fit systems; `scale` multiplies its half-width.
    """
    score, sd, ability, ability_sd, counts = _estimate_arrays(
        model, observed, anchor_misfit, anchors, person_reference
    )
    half = normal_quantile(0.5 + level / 2.0) * sd * scale
    return tuple(
        Estimate(
            score=float(score[row]),
            low=float(max(0.0, score[row] - half[row])),
            high=float(min(1.0, score[row] + half[row])),
            sd=float(sd[row] * scale),
            ability=float(ability[row]),
            ability_sd=float(ability_sd[row]),
            observed=int(counts[row]),
            n_items=model.n_items,
        )
        for row in range(len(score))
    )


def person_reference(model: IrtModel, scores: np.ndarray, anchors: np.ndarray) -> float:
    """The fit systems' mean `person_fit` on the anchors, each at its ability from the anchors
    alone: what a new system's own fit on its anchors is compared with (0 without anchors)."""
    if len(anchors) == 0:
        return 0.0
    y = np.asarray(scores, dtype=np.float64)
    observed = np.full_like(y, np.nan)
    observed[:, anchors] = y[:, anchors]
    _, _, ability, *_ = _estimate_arrays(model, observed, 0.0, len(anchors))
    fit = person_fit(model, observed, ability)
    return float(np.nanmean(fit)) if np.isfinite(fit).any() else 0.0


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
