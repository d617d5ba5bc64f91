"""Normalized Levenshtein distance and the pairwise matrix."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.measure.distance import (
    DISTANCE_VERSION,
    distance,
    distance_version,
    distances_to,
    mean_pairwise_streamed,
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


def test_a_distance_by_kind_is_the_kinds_own_function():
    """`distance_kind` is the one place a distance is chosen by its name (`--distance`): each kind
    measures with its own module, bit for bit, and says whether R_pairwise under it is structural."""
    from skyt_tui.engine.measure import distance_kind as kinds
    from skyt_tui.engine.measure import tree_distance
    from skyt_tui.engine.versions import DISTANCE_FUNCTIONS

    texts = ["def f(x):\n    return x + 1", "def f(y):\n    return y + 1", "x = 1", "x = 1"]
    own = {
        "levenshtein": (distance, distances_to, pairwise_matrix, mean_pairwise_streamed),
        "tree": (
            tree_distance.tree_distance,
            tree_distance.tree_distances_to,
            tree_distance.tree_pairwise_matrix,
            tree_distance.tree_mean_pairwise,
        ),
    }
    assert set(kinds.KINDS) == set(DISTANCE_FUNCTIONS) == set(own)
    for name, (one, to, matrix, mean) in own.items():
        kind = kinds.distance_kind(name)
        assert kind.name == name and kind.structural == (name == "tree")
        assert kinds.distance(texts[0], texts[2], name) == one(texts[0], texts[2])
        assert kind.distances_to(texts, texts[0]) == to(texts, texts[0])
        assert np.array_equal(kind.pairwise_matrix(texts), matrix(texts))
        assert kind.mean_pairwise(texts) == mean(texts)
        assert kind.version("nodoc") == f"nodoc/{DISTANCE_FUNCTIONS[name]}"
    assert kinds.distance("a", "b") == distance("a", "b")  # levenshtein unless told
    assert kinds.distance_kind("levenshtein").fallback_note() is None
    with pytest.raises(ValueError, match="unknown distance 'cosine'; choose one of levenshtein"):
        kinds.distance_kind("cosine")


def test_the_tree_kind_notes_its_fallback_only_when_it_runs(monkeypatch):
    from skyt_tui.engine.measure import tree_distance
    from skyt_tui.engine.measure.distance_kind import distance_kind

    monkeypatch.setattr(tree_distance, "_compiled", None)
    assert distance_kind("tree").fallback_note() == tree_distance.FALLBACK_NOTE
    monkeypatch.setattr(tree_distance, "_compiled", object())
    assert distance_kind("tree").fallback_note() is None


# --- pairs too long to measure in full (issue 36) ----------------------------------------------


def test_a_long_pair_is_measured_in_a_band_or_bounded_and_counted():
    """Past 10^10 cells: near-equal texts, however long, are measured exactly in a band; any
    other pair is at its bound 1.0 (equal texts at 0), and `measure_*` count the bounds."""
    import time

    from skyt_tui.engine.measure.distance import (
        LONG_TEXT,
        measure_mean_pairwise,
        measure_pairwise,
        measure_to,
    )

    base = "".join(chr(97 + (i * 7919) % 23) for i in range(LONG_TEXT + 20_000))
    near = base[:60_000] + "XY" + base[60_000:]  # two insertions
    other = "".join(chr(97 + (i * 104_729) % 19) for i in range(LONG_TEXT + 30_000))
    short = "def f(x):\n    return x\n"
    texts = [short, base, near, other, base]
    start = time.monotonic()
    values, bounds = measure_to(texts, base)
    assert values[0] == distance(short, base) and values[1] == values[4] == 0.0
    assert values[2] == 2 / len(near) and values[3] == 1.0
    assert bounds == [False, False, False, True, False]
    matrix, pair_bounds = measure_pairwise(texts)
    assert pair_bounds == 3  # other against base, near and base again
    assert matrix[1, 2] == 2 / len(near) and matrix[3, 1] == matrix[1, 3] == 1.0
    assert np.array_equal(matrix, matrix.T) and not matrix.diagonal().any()
    mean, streamed_bounds = measure_mean_pairwise(texts)
    assert streamed_bounds == 3
    assert mean == pytest.approx(matrix[np.triu_indices(5, k=1)].mean(), rel=1e-12)
    assert time.monotonic() - start < 60


def test_runs_of_short_texts_are_measured_as_before_bit_for_bit():
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    from skyt_tui.engine.measure.distance import measure_mean_pairwise, measure_pairwise

    texts = [f"def f(x):\n    return x + {i % 7} * {i % 3}\n" for i in range(40)]
    expected = cdist(texts, texts, scorer=Levenshtein.normalized_distance, dtype=np.float64)
    np.fill_diagonal(expected, 0.0)
    matrix, bounds = measure_pairwise(texts)
    assert bounds == 0 and np.array_equal(matrix, expected)
    assert measure_mean_pairwise(texts) == (mean_pairwise_streamed(texts), 0)
