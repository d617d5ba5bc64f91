"""Normalized Levenshtein distance and the pairwise matrix."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.measure.distance import (
    DISTANCE_VERSION,
    distance,
    distance_version,
    distances_to,
    pairwise_matrix,
)


def test_worked_examples():
    assert distance("", "") == 0.0
    assert distance("", "abc") == 1.0
    assert distance("abc", "abc") == 0.0
    assert distance("kitten", "sitting") == 3 / 7
    assert distance("return a", "return b") == 1 / 8


def test_version_names_level_and_function():
    assert DISTANCE_VERSION == "nodoc/levenshtein-normalized-v1"
    assert distance_version("alpha").startswith("alpha/")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text("ab c\n", max_size=25), min_size=1, max_size=12))
def test_matrix_matches_pairwise_function_exactly(texts):
    matrix = pairwise_matrix(texts)
    assert matrix.dtype == np.float64
    for i, a in enumerate(texts):
        for j, b in enumerate(texts):
            assert matrix[i, j] == distance(a, b)
            assert matrix[i, j] == matrix[j, i]
            assert 0.0 <= matrix[i, j] <= 1.0
    assert distances_to(texts, texts[0]) == [distance(texts[0], t) for t in texts]


def test_empty_inputs():
    assert pairwise_matrix([]).shape == (0, 0)
    assert distances_to([], "x") == []


def test_streamed_mean_equals_the_matrix_mean():
    import math
    import random

    from skyt_tui.engine.measure import distance as d
    from skyt_tui.engine.measure.metrics import mean_pairwise_distance

    rng = random.Random(3)
    texts = ["".join(rng.choice("ab c") for _ in range(rng.randint(0, 30))) for _ in range(700)]
    assert math.isclose(
        d.mean_pairwise_streamed(texts),
        mean_pairwise_distance(pairwise_matrix(texts)),
        rel_tol=1e-12,
    )
    assert d.mean_pairwise_streamed(texts[:1]) == 0.0
