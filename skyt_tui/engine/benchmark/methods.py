"""The model-based anchor methods — what each chooses from the training systems and how it then
estimates any system from its scored items — in one place that `bench sample`, validation and
the method choice all run, so that they measure the same code (docs/benchmark.md).

- `irt`: skyt-tui's information-chosen anchors and p-IRT estimate (`irt`).
- `cluster`: tinyBenchmarks' clustered anchors and gp-IRT estimate (`tinybenchmarks`), with an
  interval of skyt-tui's making: sd² = λ² s²_w / (4k) + (1 − λ)² sd²_p, s²_w the weighted
  variance of the system's anchor scores (the anchor mean's share, in tinyBenchmarks' own
  v / (4k) form) and sd_p the p-IRT sd of `irt` on the same anchors.

Both intervals are then calibrated on later systems: each training system released on a date
with at least `irt.MIN_SYSTEMS` systems released before it is estimated by the same method
fitted on those earlier systems alone (leave-later-out; the dates are grouped into at most
`CALIBRATION_CUTS` windows, one fit each). Their absolute standardised errors |estimate −
truth| / sd are kept with the sample; at level L the half-width is multiplied by
max(1, z₍ᵣ₎ / z_L), z₍ᵣ₎ the r-th smallest of the n errors with r = ⌈(n + 1) L⌉ (the largest if
r > n) and z_L the normal quantile of L. Without release dates, or with too few systems before
every date, nothing is calibrated and the sample says so.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from skyt_tui.engine.benchmark import irt, tinybenchmarks
from skyt_tui.engine.benchmark.items import release_day
from skyt_tui.engine.benchmark.tinybenchmarks import LambdaParts
from skyt_tui.engine.printable import counted

MODEL_METHODS = ("irt", "cluster")
CALIBRATION_CUTS = 2
NO_DATES = "no release dates: intervals not calibrated on later systems"


def parse_dates(values: Sequence[str | None]) -> tuple[dt.date | None, ...]:
    """Release dates as dates (`items.release_day`); None where absent or bad."""
    return tuple(release_day(value) for value in values)


def interval_scale(calibration: Sequence[float], level: float) -> float:
    """The factor the half-width is multiplied by at `level` (1 when nothing was calibrated)."""
    if not calibration:
        return 1.0
    errors = sorted(calibration)
    rank = min(len(errors), math.ceil((len(errors) + 1) * level))
    return max(1.0, errors[rank - 1] / irt.normal_quantile(0.5 + level / 2.0))


@dataclass(frozen=True, eq=False)
class Chosen:
    """A model-based method's anchors (column indices, sorted) and what its estimates need."""

    method: str
    anchors: np.ndarray
    model: irt.IrtModel
    misfit: float
    person_reference: float
    weights: np.ndarray | None = None
    """cluster: each anchor's weight (its cluster's share of the items), aligned with anchors."""
    parts: LambdaParts | None = None
    """cluster: b and v of tinyBenchmarks' λ."""
    calibration: tuple[float, ...] = ()
    calibration_note: str = NO_DATES

    def estimate_sd(self, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(estimate, uncalibrated sd) per row of `observed` (rows × items, NaN = not scored)."""
        y = np.atleast_2d(np.asarray(observed, dtype=np.float64))
        k = len(self.anchors)
        score, sd = irt.estimate_sd(self.model, y, self.misfit, k, self.person_reference)
        if self.method != "cluster":
            return score, sd
        assert self.weights is not None and self.parts is not None
        weight = self.parts.weight(k)
        blended = tinybenchmarks.gp_irt(self.model, y, self.anchors, self.weights, weight)
        anchor_scores = y[:, self.anchors]
        scored = ~np.isnan(anchor_scores)
        mean = tinybenchmarks.anchor_mean(y, self.anchors, self.weights)
        mass = np.where(scored, self.weights[None, :], 0.0).sum(axis=1)
        squares = np.where(scored, (anchor_scores - mean[:, None]) ** 2, 0.0) * self.weights
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = np.where(mass > 0, squares.sum(axis=1) / np.where(mass > 0, mass, 1.0), 0.0)
        n_scored = np.maximum(scored.sum(axis=1), 1)
        anchor_var = np.where(mass > 0, spread / (tinybenchmarks.ANCHOR_EFFICIENCY * n_scored), 0.0)
        share = np.where(mass > 0, weight, 0.0)
        variance = share**2 * anchor_var + (1.0 - share) ** 2 * sd**2
        exact = (~np.isnan(y)).all(axis=1)  # scored on every item: its mean, exactly
        return np.where(exact, score, blended), np.where(exact, 0.0, np.sqrt(variance))

    def arrays(
        self, observed: np.ndarray, level: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(estimate, low, high) per row, the interval calibrated at `level`."""
        score, sd = self.estimate_sd(observed)
        half = irt.normal_quantile(0.5 + level / 2.0) * sd * interval_scale(self.calibration, level)
        return score, np.maximum(score - half, 0.0), np.minimum(score + half, 1.0)


class Fits:
    """2PL fits of row subsets of one complete score matrix, each made once (validation draws,
    the method choice and the calibration ask for the same subsets again and again)."""

    def __init__(
        self,
        matrix: np.ndarray,
        item_ids: Sequence[str],
        systems: Sequence[str],
        dates: Sequence[dt.date | None] | None = None,
    ) -> None:
        self.matrix = matrix
        self.item_ids = tuple(item_ids)
        self.systems = tuple(systems)
        self.dates = tuple(dates) if dates is not None else None
        self._models: dict[tuple[int, ...], irt.IrtModel] = {}
        self._parts: dict[tuple[int, ...], LambdaParts] = {}

    def model(self, rows: np.ndarray) -> irt.IrtModel:
        key = tuple(int(row) for row in rows)
        if key not in self._models:
            self._models[key] = irt.fit(
                self.matrix[list(key)], self.item_ids, [self.systems[row] for row in key]
            )
        return self._models[key]

    def lambda_parts(self, rows: np.ndarray) -> LambdaParts:
        key = tuple(int(row) for row in rows)
        if key not in self._parts:
            chosen = np.asarray(key, dtype=np.int64)
            self._parts[key] = tinybenchmarks.lambda_parts(
                self.matrix[chosen], lambda _, sub: self.model(chosen[np.asarray(sub)])
            )
        return self._parts[key]


def later_windows(
    dates: Sequence[dt.date | None],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(earlier, window) index pairs for the leave-later-out calibration: each window holds the
    systems released from one cut date up to the next, `earlier` those released before the cut
    (at least `irt.MIN_SYSTEMS`); at most `CALIBRATION_CUTS` cuts, spread over the candidates."""
    known = [(day, index) for index, day in enumerate(dates) if day is not None]
    days = sorted({day for day, _ in known})
    candidates = [
        day for day in days if sum(1 for other, _ in known if other < day) >= irt.MIN_SYSTEMS
    ]
    if not candidates:
        return []
    if len(candidates) > CALIBRATION_CUTS:
        picks = np.round(np.linspace(0, len(candidates) - 1, CALIBRATION_CUTS)).astype(int)
        candidates = [candidates[int(pick)] for pick in sorted(set(picks.tolist()))]
    windows = []
    for number, cut in enumerate(candidates):
        end = candidates[number + 1] if number + 1 < len(candidates) else None
        earlier = np.array([i for day, i in known if day < cut], dtype=np.int64)
        window = np.array(
            [i for day, i in known if day >= cut and (end is None or day < end)], dtype=np.int64
        )
        windows.append((np.sort(earlier), np.sort(window)))
    return windows


def choose(
    method: str,
    fits: Fits,
    rows: np.ndarray,
    size: int,
    rng: np.random.Generator,
    calibrate: bool = True,
) -> Chosen:
    """`method`'s anchors and estimator from the systems `rows` of `fits` (and, with
    `calibrate`, its calibration on the later ones among them)."""
    if method not in MODEL_METHODS:
        raise ValueError(f"{method!r} is not a model-based method")
    rows = np.asarray(rows, dtype=np.int64)
    model = fits.model(rows)
    training = fits.matrix[rows]
    weights: np.ndarray | None = None
    parts: LambdaParts | None = None
    if method == "irt":
        anchors = irt.select_anchors(model, size)
    else:
        anchors, weights = tinybenchmarks.cluster_anchors(model, size, rng)
        parts = fits.lambda_parts(rows)
    chosen = Chosen(
        method=method,
        anchors=anchors,
        model=model,
        misfit=irt.anchor_misfit(model, training, anchors),
        person_reference=irt.person_reference(model, training, anchors),
        weights=weights,
        parts=parts,
    )
    if not calibrate:
        return chosen
    errors, note = _later_errors(method, fits, rows, size, rng)
    return dataclasses.replace(chosen, calibration=errors, calibration_note=note)


def _later_errors(
    method: str, fits: Fits, rows: np.ndarray, size: int, rng: np.random.Generator
) -> tuple[tuple[float, ...], str]:
    if fits.dates is None or all(fits.dates[row] is None for row in rows):
        return (), NO_DATES
    windows = later_windows([fits.dates[row] for row in rows])
    if not windows:
        return (), (
            f"no release date has {irt.MIN_SYSTEMS} systems released before it: intervals "
            f"not calibrated on later systems"
        )
    errors: list[float] = []
    child = np.random.default_rng(int(rng.integers(2**32)))
    for earlier, window in windows:
        sub = choose(method, fits, rows[earlier], size, child, calibrate=False)
        truth_rows = fits.matrix[rows[window]]
        observed = np.full_like(truth_rows, np.nan)
        observed[:, sub.anchors] = truth_rows[:, sub.anchors]
        score, sd = sub.estimate_sd(observed)
        error = np.abs(score - truth_rows.mean(axis=1))
        errors.extend(float(e / s) for e, s in zip(error, sd) if s > 0)
    systems = sum(len(window) for _, window in windows)
    note = (
        f"calibrated on {counted(systems, 'later system')}: each estimated by the method fitted on the "
        f"systems released before it (leave-later-out, {counted(len(windows), 'fit')})"
    )
    return tuple(sorted(errors)), note
