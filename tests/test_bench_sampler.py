"""Anchor sample: size rules, proportional allocation, stratum floors, seed determinism."""

import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skyt_tui.engine.benchmark.items import Item
from skyt_tui.engine.benchmark.sampler import (
    SampleConfig,
    allocate,
    ceil_share,
    default_floor,
    select_sample,
)
from skyt_tui.engine.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def make_items(easy: int, medium: int, hard: int) -> list[Item]:
    items = [Item(id=f"e{i:04d}", difficulty="easy") for i in range(easy)]
    items += [Item(id=f"m{i:04d}", difficulty="medium") for i in range(medium)]
    items += [Item(id=f"h{i:04d}", difficulty="hard") for i in range(hard)]
    return sorted(items, key=lambda item: item.id)


def test_livecodebench_shape_one_percent_is_four_items_one_per_stratum_at_least():
    # 400 items: easy 142, medium 168, hard 90. 1% = 4 → quotas 1.42, 1.68, 0.90:
    # floors 1, 1, 0 → hard is raised to 1 (≥ 1 per stratum); the 4th goes to the
    # largest remainder among the rest, medium (0.68 > 0.42).
    assert allocate({"easy": 142, "medium": 168, "hard": 90}, 4) == {
        "easy": 1,
        "hard": 1,
        "medium": 2,
    }


def test_default_floor_of_fifty_on_livecodebench_shape():
    # 50 → quotas 17.75, 21.0, 11.25: floors 17, 21, 11 (49); the remaining one goes to easy (.75).
    assert allocate({"easy": 142, "medium": 168, "hard": 90}, 50) == {
        "easy": 18,
        "hard": 11,
        "medium": 21,
    }


def test_total_below_number_of_strata_is_raised_and_total_above_items_is_clamped():
    assert allocate({"easy": 10, "medium": 10, "hard": 10}, 1) == {
        "easy": 1,
        "hard": 1,
        "medium": 1,
    }
    assert allocate({"easy": 2, "medium": 3}, 99) == {"easy": 2, "medium": 3}
    assert allocate({"easy": 0, "medium": 3}, 2) == {"medium": 2}
    assert allocate({}, 5) == {}


def test_minimum_one_per_stratum_is_paid_for_by_the_largest_stratum():
    # quotas .04, .04, .04, 3.88 → 1, 1, 1, 3 = 6 > 4: the big stratum gives two back.
    assert allocate({"a": 1, "b": 1, "c": 1, "d": 97}, 4) == {"a": 1, "b": 1, "c": 1, "d": 1}


def test_ties_go_to_the_alphabetically_first_stratum():
    assert allocate({"hard": 5, "easy": 5}, 3) == {"easy": 2, "hard": 1}


def test_sample_size_rate_floor_and_clamp():
    assert default_floor(400) == 50
    assert default_floor(100_000) == 1000
    assert SampleConfig().size_for(400) == 50
    assert SampleConfig(floor=0).size_for(400) == 4
    # not 8 from 0.07*100 = 7.000000000000001
    assert SampleConfig(rate=0.07, floor=0).size_for(100) == 7
    assert SampleConfig(floor=500).size_for(400) == 400
    assert SampleConfig(rate=0.0, floor=0).size_for(400) == 1
    assert SampleConfig().size_for(30) == 30
    assert ceil_share(0.01, 401) == 5


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"rate": 1.5}, "--rate"),
        ({"rate": -0.1}, "--rate"),
        ({"floor": -1}, "--floor"),
        ({"mode": "kmeans"}, "mode"),
    ],
)
def test_bad_sample_config_is_one_clear_error(kwargs, key):
    with pytest.raises(InputError, match=f"^{key}: "):
        SampleConfig(**kwargs)


def test_select_sample_records_allocation_seed_and_config():
    items = make_items(142, 168, 90)
    sample = select_sample(items, SampleConfig(floor=0), seed=7)
    assert sample.size == 4 and sample.requested_size == 4
    assert sample.allocation == {"easy": 1, "hard": 1, "medium": 2}
    assert sample.strata == {"easy": 142, "hard": 90, "medium": 168}
    assert sample.seed == 7 and sample.config == SampleConfig(floor=0)
    assert list(sample.ids) == sorted(sample.ids)


def test_random_mode_draws_the_same_size_without_strata_guarantee():
    items = make_items(1, 1, 998)
    sample = select_sample(items, SampleConfig(floor=10, mode="random"), seed=0)
    assert sample.size == 10
    assert sum(sample.allocation.values()) == 10


def test_stratified_never_misses_a_stratum_even_if_tiny():
    items = make_items(1, 1, 998)
    sample = select_sample(items, SampleConfig(floor=10), seed=0)
    assert sample.allocation == {"easy": 1, "hard": 8, "medium": 1}


def test_sample_roundtrips_through_its_record():
    sample = select_sample(
        make_items(20, 20, 20), SampleConfig(floor=6), seed=3, benchmark_version=2
    )
    assert type(sample).from_dict(sample.to_dict()) == sample


def test_same_seed_same_ids_across_processes():
    code = (
        "from skyt_tui.engine.benchmark.items import Item\n"
        "from skyt_tui.engine.benchmark.sampler import SampleConfig, select_sample\n"
        "items = [Item(id=f'i{n:05d}', difficulty=('easy','medium','hard')[n % 3]) for n in range(5000)]\n"
        "print(','.join(select_sample(items, SampleConfig(), seed=11).ids))\n"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(hash_seed), "PATH": "/usr/bin:/bin"},
        ).stdout
        for hash_seed in (1, 2)
    }
    assert len(runs) == 1
    items = [
        Item(id=f"i{n:05d}", difficulty=("easy", "medium", "hard")[n % 3]) for n in range(5000)
    ]
    assert runs.pop().strip() == ",".join(select_sample(items, SampleConfig(), seed=11).ids)


def test_different_seeds_give_different_samples():
    items = make_items(100, 100, 100)
    assert select_sample(items, seed=0).ids != select_sample(items, seed=1).ids


def test_input_order_does_not_matter_once_items_are_sorted():
    items = make_items(30, 40, 50)
    shuffled = sorted(items, key=lambda item: item.id[::-1])
    assert (
        select_sample(sorted(shuffled, key=lambda item: item.id), seed=5).ids
        == select_sample(items, seed=5).ids
    )


strata_sizes = st.dictionaries(
    st.sampled_from(["easy", "medium", "hard", "x", "y"]),
    st.integers(min_value=0, max_value=400),
    min_size=1,
)


@settings(max_examples=300, deadline=None)
@given(strata_sizes, st.integers(min_value=0, max_value=1500))
def test_allocation_properties(sizes, total):
    alloc = allocate(sizes, total)
    nonempty = {name: size for name, size in sizes.items() if size > 0}
    n_items = sum(nonempty.values())
    assert set(alloc) == set(nonempty)
    if not nonempty:
        return
    expected_total = min(max(total, len(nonempty)), n_items)
    assert sum(alloc.values()) == expected_total
    for name, size in nonempty.items():
        quota = expected_total * size / n_items
        assert 1 <= alloc[name] <= size
        assert alloc[name] <= max(1, math.ceil(quota))
    if all(
        expected_total * size >= n_items for size in nonempty.values()
    ):  # every quota ≥ 1: no floor bumps
        for name, size in nonempty.items():
            quota = expected_total * size / n_items
            assert math.floor(quota) <= alloc[name] <= math.ceil(quota)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 60),
    st.integers(0, 60),
    st.integers(0, 60),
    st.floats(0.0, 1.0),
    st.one_of(st.none(), st.integers(0, 200)),
    st.sampled_from(["stratified", "random"]),
    st.integers(0, 2**32),
)
def test_sample_properties(easy, medium, hard, rate, floor, mode, seed):
    items = make_items(easy, medium, hard)
    if not items:
        return
    config = SampleConfig(rate=rate, floor=floor, mode=mode)
    sample = select_sample(items, config, seed)
    ids = set(sample.ids)
    assert len(ids) == sample.size  # no duplicates
    assert ids <= {item.id for item in items}
    nonempty = sum(1 for count in (easy, medium, hard) if count)
    if mode == "random":
        assert sample.size == config.size_for(len(items))
    else:
        assert sample.size == max(config.size_for(len(items)), nonempty)
        assert all(sample.allocation[name] >= 1 for name, count in sample.strata.items() if count)
    assert select_sample(items, config, seed) == sample  # determinism
