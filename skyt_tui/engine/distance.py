"""Normalized Levenshtein distance between normalized texts (SPEC §3).

d(a, b) = Levenshtein(a, b) / max(len a, len b), with d("", "") = 0 and
d("", s) = 1. rapidfuzz computes it (bit-parallel C++); pairwise matrices use
`rapidfuzz.process.cdist` on every core. Results are float64 and identical
whether computed pair by pair or as a matrix.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cdist

from skyt_tui.engine.normalize import LEVELS

DISTANCE_FUNCTION = "levenshtein-normalized-v1"
DEFAULT_LEVEL = "nodoc"


def distance_version(level: str = DEFAULT_LEVEL) -> str:
    """DISTANCE_VERSION names the level and the function, e.g. `nodoc/levenshtein-normalized-v1`."""
    if level not in LEVELS:
        raise ValueError(f"unknown distance level {level!r}; choose one of {', '.join(LEVELS)}")
    return f"{level}/{DISTANCE_FUNCTION}"


DISTANCE_VERSION = distance_version(DEFAULT_LEVEL)


def distance(a: str, b: str) -> float:
    if not a and not b:
        return 0.0
    return float(Levenshtein.normalized_distance(a, b))


def distances_to(texts: Sequence[str], anchor: str) -> list[float]:
    """Distance from each text to one anchor (d_pre / d_post to the canon)."""
    if not texts:
        return []
    row = cdist([anchor], list(texts), scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1)
    return [float(value) for value in row[0]]


def pairwise_matrix(texts: Sequence[str], workers: int = -1) -> np.ndarray:
    """Symmetric N×N float64 matrix of distances, computed on all cores by default."""
    if not texts:
        return np.zeros((0, 0), dtype=np.float64)
    texts = list(texts)
    # the same list object as queries and choices: rapidfuzz then computes one triangle and mirrors it
    matrix = cdist(texts, texts, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=workers)
    np.fill_diagonal(matrix, 0.0)
    return matrix
