"""Normalized Levenshtein distance between normalized texts (docs/how-it-works.md).

d(a, b) = Levenshtein(a, b) / max(len a, len b), with d("", "") = 0 and
d("", s) = 1. rapidfuzz computes it (bit-parallel C++); pairwise matrices use
`rapidfuzz.process.cdist` on every core. Results are float64 and identical
whether computed pair by pair or as a matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from skyt_tui.engine.versions import DEFAULT_LEVEL, DISTANCE_FUNCTION, distance_version  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    import numpy as np

DISTANCE_VERSION = distance_version(DEFAULT_LEVEL)


def distance(a: str, b: str) -> float:
    if not a and not b:
        return 0.0
    return float(Levenshtein.normalized_distance(a, b))


def distances_to(texts: Sequence[str], anchor: str) -> list[float]:
    """Distance from each text to one anchor (d_pre / d_post to the canon)."""
    if not texts:
        return []
    import numpy as np  # here, not at import: a repair worker measures pairs only (0.5 s less)

    row = cdist(
        [anchor], list(texts), scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1
    )
    return [float(value) for value in row[0]]


PAIRWISE_MATRIX_LIMIT = 2000
"""Above this many samples the N×N matrix (8·N² bytes) is not kept; R_pairwise is streamed instead."""
STREAM_BLOCK_ROWS = 256


def mean_pairwise_streamed(texts: Sequence[str], workers: int = -1) -> float:
    """Mean distance over all pairs i < j without holding the N×N matrix.

    Rows are measured in fixed blocks against the samples after them; each
    block's sum is exact to rounding and the block sums are added with
    `math.fsum`, so the result is deterministic for a given list of texts.
    """
    import numpy as np

    texts = list(texts)
    n = len(texts)
    if n < 2:
        return 0.0
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
    return math.fsum(partial) / (n * (n - 1) / 2)


def pairwise_matrix(texts: Sequence[str], workers: int = -1) -> np.ndarray:
    """Symmetric N×N float64 matrix of distances, computed on all cores by default."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0), dtype=np.float64)
    texts = list(texts)
    # the same list object as queries and choices: rapidfuzz then computes one triangle and mirrors it
    matrix = cdist(
        texts, texts, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=workers
    )
    np.fill_diagonal(matrix, 0.0)
    return matrix
