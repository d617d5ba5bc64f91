"""Row-wise Pearson r, Spearman ρ, Kendall τ-b and MAE in numpy, for thousands of draws at once.

Each function takes two arrays of shape (draws, systems) and returns one value per
row, so a whole validation run is a handful of array operations (scipy.stats works one
pair at a time; the tests check these against it). A row whose x or y
is constant has no correlation: the result is NaN, never a made-up 0.
"""

from __future__ import annotations

import numpy as np

TIE_DECIMALS = 12
"""Means are rounded to this many decimals before ranking, so that two equal means
computed in a different summation order still count as a tie."""


def _rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    if x.shape != y.shape:
        raise ValueError(f"shapes differ: {x.shape} vs {y.shape}")
    return x, y


def _constant(a: np.ndarray) -> np.ndarray:
    rounded = np.round(a, TIE_DECIMALS)
    constant: np.ndarray = rounded.max(axis=1) == rounded.min(axis=1)
    return constant


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = _rows(x, y)
    if x.shape[1] < 2:
        return np.full(x.shape[0], np.nan)
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    numerator = (xc * yc).sum(axis=1)
    denominator = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    undefined = _constant(x) | _constant(y) | (denominator == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = numerator / np.where(undefined, 1.0, denominator)
    clipped: np.ndarray = np.clip(r, -1.0, 1.0)
    clipped[undefined] = np.nan
    return clipped


def rank_rows(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n within each row, ties given their average rank (like scipy's rankdata)."""
    a = np.round(np.atleast_2d(np.asarray(a, dtype=np.float64)), TIE_DECIMALS)
    rows, n = a.shape
    if n == 0:
        return np.zeros_like(a)
    order = np.argsort(a, axis=1, kind="stable")
    ordered = np.take_along_axis(a, order, axis=1)
    starts_group = np.ones((rows, n), dtype=bool)
    starts_group[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends_group = np.ones((rows, n), dtype=bool)
    ends_group[:, :-1] = starts_group[:, 1:]
    position = np.broadcast_to(np.arange(n), (rows, n))
    first = np.maximum.accumulate(np.where(starts_group, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends_group, position, n - 1)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((rows, n))
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=1)
    return ranks


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = _rows(x, y)
    return pearson_rows(rank_rows(x), rank_rows(y))


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall τ-b: (concordant − discordant) / sqrt(pairs untied in x × pairs untied in y)."""
    x, y = _rows(x, y)
    x = np.round(x, TIE_DECIMALS)
    y = np.round(y, TIE_DECIMALS)
    first, second = np.triu_indices(x.shape[1], k=1)
    tau = np.full(x.shape[0], np.nan)
    chunk = max(1, 2_000_000 // max(1, len(first)))  # bounds memory for many systems
    for start in range(0, x.shape[0], chunk):
        rows = slice(start, start + chunk)
        sign_x = np.sign(x[rows, first] - x[rows, second])
        sign_y = np.sign(y[rows, first] - y[rows, second])
        numerator = (sign_x * sign_y).sum(axis=1)
        denominator = np.sqrt(
            np.count_nonzero(sign_x, axis=1).astype(np.float64) * np.count_nonzero(sign_y, axis=1)
        )
        defined = denominator > 0
        tau[rows] = np.where(defined, numerator / np.where(defined, denominator, 1.0), np.nan)
    return tau


def mae_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    x, y = _rows(x, y)
    if x.shape[1] == 0:
        return np.full(x.shape[0], np.nan)
    mae: np.ndarray = np.abs(x - y).mean(axis=1)
    return mae
