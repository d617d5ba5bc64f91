"""Normalized Levenshtein distance between normalized texts (docs/how-it-works.md).

d(a, b) = Levenshtein(a, b) / max(len a, len b), with d("", "") = 0 and
d("", s) = 1. rapidfuzz computes it (bit-parallel C++); pairwise matrices use
`rapidfuzz.process.cdist` on every core. Results are float64 and identical
whether computed pair by pair or as a matrix.

A pair costs time in proportion to len a · len b. Past `MAX_DISTANCE_CELLS` (two texts of
100,000 characters: a program over the parse bound, `syntax.MAX_PROGRAM_CHARS`, against
another long one) the pair is measured within a band: exactly when it is at most
`MAX_DISTANCE_CELLS` / (the longer length) edits apart (near-equal texts, however long), and
otherwise it gets 1.0, the distance's upper bound. The `measure_*` functions say how many
distances are such bounds (docs/metrics.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from skyt_tui.engine.versions import DEFAULT_LEVEL, DISTANCE_FUNCTION, distance_version  # noqa: F401 (re-exported)

DISTANCE_VERSION = distance_version(DEFAULT_LEVEL)


MAX_DISTANCE_CELLS = 10**10
"""The largest len a · len b measured in full (about 1.5 s for two 100,000-character texts); a
longer pair is measured within a band of this cost (`_long_pair`)."""
LONG_TEXT = math.isqrt(MAX_DISTANCE_CELLS)
"""Texts at most this long are measured in full against each other, whatever the pair."""


def distance(a: str, b: str) -> float:
    return _pair(a, b)[0]


def _pair(a: str, b: str) -> tuple[float, bool]:
    """(d(a, b), whether it is the bound 1.0 rather than measured)."""
    if not a and not b:
        return 0.0, False
    if len(a) * len(b) <= MAX_DISTANCE_CELLS:
        return float(Levenshtein.normalized_distance(a, b)), False
    return _long_pair(a, b)


def _long_pair(a: str, b: str) -> tuple[float, bool]:
    """A pair past `MAX_DISTANCE_CELLS`: the edit distance within a band of `MAX_DISTANCE_CELLS`
    cells (rapidfuzz's banded computation, after the common prefix and suffix are set aside),
    exact when the pair is within the band; otherwise the bound 1.0."""
    if a == b:
        return 0.0, False
    longest = max(len(a), len(b))
    band = MAX_DISTANCE_CELLS // longest
    if abs(len(a) - len(b)) <= band:
        edits = int(Levenshtein.distance(a, b, score_cutoff=band))
        if edits <= band:
            return edits / longest, False
    return 1.0, True


def distances_to(texts: Sequence[str], anchor: str) -> list[float]:
    """Distance from each text to one anchor (d_pre / d_post to the canon)."""
    return measure_to(texts, anchor)[0]


def measure_to(texts: Sequence[str], anchor: str) -> tuple[list[float], list[bool]]:
    """`distances_to`, and for each whether it is the bound 1.0 rather than measured."""
    if not texts:
        return [], []
    out = [(0.0, False)] * len(texts)
    short = [i for i, text in enumerate(texts) if len(text) * len(anchor) <= MAX_DISTANCE_CELLS]
    if short:
        row = cdist(
            [anchor],
            [texts[i] for i in short],
            scorer=Levenshtein.normalized_distance,
            dtype=np.float64,
            workers=1,
        )
        for i, value in zip(short, row[0]):
            out[i] = (float(value), False)
    for i in sorted(set(range(len(texts))) - set(short)):
        out[i] = _long_pair(texts[i], anchor)
    return [value for value, _ in out], [bound for _, bound in out]


def _long(texts: Sequence[str]) -> list[int]:
    """Positions of the texts a pair with which may be past `MAX_DISTANCE_CELLS`."""
    return [i for i, text in enumerate(texts) if len(text) > LONG_TEXT]


def _long_pairs(n: int, long: list[int]) -> list[tuple[int, int]]:
    """The pairs i < j with at least one of `long` (every other pair is measured by `cdist`)."""
    chosen = set(long)
    return [(min(i, j), max(i, j)) for i in long for j in range(n) if j not in chosen or j > i]


PAIRWISE_MATRIX_LIMIT = 2000
"""Above this many samples the N×N matrix (8·N² bytes) is not kept; R_pairwise is streamed instead."""
STREAM_BLOCK_ROWS = 256


def mean_pairwise_streamed(texts: Sequence[str], workers: int = -1) -> float:
    return measure_mean_pairwise(texts, workers)[0]


def measure_mean_pairwise(texts: Sequence[str], workers: int = -1) -> tuple[float, int]:
    """Mean distance over all pairs i < j without holding the N×N matrix, and how many of the
    pairs are the bound 1.0 rather than measured.

    Rows are measured in fixed blocks against the samples after them; each
    block's sum is exact to rounding and the block sums are added with
    `math.fsum`, so the result is deterministic for a given list of texts. Pairs with a text
    too long for `cdist`'s every pair (`LONG_TEXT`) are measured one by one, with the bound
    where `measurable` says so.
    """
    texts = list(texts)
    n = len(texts)
    if n < 2:
        return 0.0, 0
    long = _long(texts)
    chosen = set(long)
    short = [text for i, text in enumerate(texts) if i not in chosen]
    partial = _streamed_sums(short, workers)
    pairs = [_pair(texts[i], texts[j]) for i, j in _long_pairs(n, long)]
    partial += [value for value, _ in pairs]
    return math.fsum(partial) / (n * (n - 1) / 2), sum(bound for _, bound in pairs)


def _streamed_sums(texts: list[str], workers: int) -> list[float]:
    n = len(texts)
    partial = []
    for start in range(0, n - 1, STREAM_BLOCK_ROWS):
        stop = min(start + STREAM_BLOCK_ROWS, n - 1)
        block = cdist(
            texts[start:stop],
            texts[start:],
            scorer=Levenshtein.normalized_distance,
            dtype=np.float64,
            workers=workers,
        )
        rows, cols = np.triu_indices(stop - start, k=1, m=n - start)
        partial.append(float(block[rows, cols].sum()))
    return partial


def pairwise_matrix(texts: Sequence[str], workers: int = -1) -> np.ndarray:
    """Symmetric N×N float64 matrix of distances, computed on all cores by default."""
    return measure_pairwise(texts, workers)[0]


def measure_pairwise(texts: Sequence[str], workers: int = -1) -> tuple[np.ndarray, int]:
    """`pairwise_matrix`, and how many of its pairs i < j are the bound 1.0 rather than
    measured."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float64), 0
    texts = list(texts)
    long = _long(texts)
    if not long:
        return _matrix(texts, workers), 0
    chosen = set(long)
    short = [i for i in range(len(texts)) if i not in chosen]
    matrix = np.zeros((len(texts), len(texts)), dtype=np.float64)
    if short:
        matrix[np.ix_(short, short)] = _matrix([texts[i] for i in short], workers)
    bounds = 0
    for i, j in _long_pairs(len(texts), long):
        value, bound = _pair(texts[i], texts[j])
        matrix[i, j] = matrix[j, i] = value
        bounds += bound
    return matrix, bounds


def _matrix(texts: list[str], workers: int) -> np.ndarray:
    # the same list object as queries and choices: rapidfuzz then computes one triangle and mirrors it
    matrix = cdist(
        texts, texts, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=workers
    )
    np.fill_diagonal(matrix, 0.0)
    return matrix
