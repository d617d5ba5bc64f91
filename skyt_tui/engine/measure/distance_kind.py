"""The distance a run is measured with, by kind: `levenshtein` (the normalised Levenshtein distance,
`distance`) or `tree` (the normalised tree edit distance, `tree_distance`), as `--distance` and a
study's `distance` name them (docs/metrics.md).

Whatever depends on the kind asks it here rather than deciding by its name: the distances to the
canon and between samples, whether R_pairwise under it is a structural repeatability (a study row's
`R_structural`), and the note to give when it is measured by a slower fallback.
`analysis.pipeline` measures every run's d_pre, d_post and R_pairwise through its kind. The module
that measures a kind (numpy, rapidfuzz, the compiled tree edit distance) loads when a distance is
first measured, so the CLI can ask a kind for its note without loading either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from skyt_tui.engine.versions import DEFAULT_DISTANCE, DISTANCE_FUNCTIONS, distance_version

if TYPE_CHECKING:
    import numpy as np


class _Measures(NamedTuple):
    distance: Callable[[str, str], float]
    distances_to: Callable[[Sequence[str], str], list[float]]
    pairwise_matrix: Callable[[Sequence[str]], np.ndarray]
    mean_pairwise: Callable[[Sequence[str]], float]
    fallback_note: Callable[[], str | None]
    measure_to: Callable[[Sequence[str], str], tuple[list[float], list[bool]]]
    measure_pairwise: Callable[[Sequence[str]], tuple[np.ndarray, int]]
    measure_mean_pairwise: Callable[[Sequence[str]], tuple[float, int]]


@cache
def _levenshtein() -> _Measures:
    from skyt_tui.engine.measure import distance

    return _Measures(
        distance.distance,
        distance.distances_to,
        distance.pairwise_matrix,
        distance.mean_pairwise_streamed,
        lambda: None,
        distance.measure_to,
        distance.measure_pairwise,
        distance.measure_mean_pairwise,
    )


@cache
def _tree() -> _Measures:
    from skyt_tui.engine.measure import tree_distance

    def fallback_note() -> str | None:
        slow = tree_distance.implementation() == tree_distance.PURE_PYTHON
        return tree_distance.FALLBACK_NOTE if slow else None

    def measure_to(texts: Sequence[str], anchor: str) -> tuple[list[float], list[bool]]:
        return tree_distance.tree_distances_to(texts, anchor), [False] * len(texts)

    return _Measures(
        tree_distance.tree_distance,
        tree_distance.tree_distances_to,
        tree_distance.tree_pairwise_matrix,
        tree_distance.tree_mean_pairwise,
        fallback_note,
        measure_to,
        lambda texts: (tree_distance.tree_pairwise_matrix(texts), 0),
        lambda texts: (tree_distance.tree_mean_pairwise(texts), 0),
    )


@dataclass(frozen=True)
class DistanceKind:
    """One kind of distance: every distance of a run is measured by the same one, in [0, 1]."""

    name: str
    """`levenshtein` or `tree`: a key of `versions.DISTANCE_FUNCTIONS`."""
    structural: bool
    """R_pairwise under this distance is a structural repeatability: a study row's `R_structural`
    (`R_pairwise_tree` in the summary CSV)."""
    repair_measured: bool
    """The repair search measures by this kind (it searches by Levenshtein), so a repaired
    sample's d_post is the search's own; under any other kind d_post is the repaired text
    measured by the kind, or d_pre when that is smaller (docs/repair.md)."""
    _measures: Callable[[], _Measures] = field(repr=False, compare=False)

    def distance(self, a: str, b: str) -> float:
        """The distance between two normalised texts."""
        return self._measures().distance(a, b)

    def distances_to(self, texts: Sequence[str], anchor: str) -> list[float]:
        """The distance from each text to one anchor (d_pre, d_post to the canon)."""
        return self._measures().distances_to(texts, anchor)

    def pairwise_matrix(self, texts: Sequence[str]) -> np.ndarray:
        """The symmetric N×N float64 matrix of distances between the texts."""
        return self._measures().pairwise_matrix(texts)

    def mean_pairwise(self, texts: Sequence[str]) -> float:
        """The mean distance over all pairs i < j, without holding the N×N matrix."""
        return self._measures().mean_pairwise(texts)

    def measure_to(self, texts: Sequence[str], anchor: str) -> tuple[list[float], list[bool]]:
        """`distances_to`, and for each whether it is the bound 1.0 rather than measured (a pair
        too long to measure in bounded time: `distance.measure_to`)."""
        return self._measures().measure_to(texts, anchor)

    def measure_pairwise(self, texts: Sequence[str]) -> tuple[np.ndarray, int]:
        """`pairwise_matrix`, and how many of its pairs i < j are the bound 1.0."""
        return self._measures().measure_pairwise(texts)

    def measure_mean_pairwise(self, texts: Sequence[str]) -> tuple[float, int]:
        """`mean_pairwise`, and how many of the pairs are the bound 1.0."""
        return self._measures().measure_mean_pairwise(texts)

    def version(self, level: str) -> str:
        """The distance version a result measured at `level` records (`nodoc/ast-ted-normalized-v2`)."""
        return distance_version(level, self.name)

    def fallback_note(self) -> str | None:
        """One line to tell the user when this kind is measured here by a slower fallback (the tree
        distance without its compiled extension); None when it is not."""
        return self._measures().fallback_note()


KINDS: dict[str, DistanceKind] = {
    "levenshtein": DistanceKind(
        "levenshtein", structural=False, repair_measured=True, _measures=_levenshtein
    ),
    "tree": DistanceKind("tree", structural=True, repair_measured=False, _measures=_tree),
}
"""Every kind, by the name `--distance` takes (`versions.DISTANCE_FUNCTIONS` versions each)."""
assert set(KINDS) == set(DISTANCE_FUNCTIONS)


def distance_kind(name: str = DEFAULT_DISTANCE) -> DistanceKind:
    """The kind of this name; ValueError naming the kinds for any other."""
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown distance {name!r}; choose one of {', '.join(DISTANCE_FUNCTIONS)}"
        ) from None


def distance(a: str, b: str, kind: str = DEFAULT_DISTANCE) -> float:
    """The distance between two normalised texts, measured by the kind of this name."""
    return distance_kind(kind).distance(a, b)
