"""IRT anchors: the 2PL fit, the choice of informative items, p-IRT estimates and their intervals;
determinism, monotonicity and no leakage of held-out systems (property tests); LiveCodeBench figures."""

import json
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skyt_tui.engine.benchmark import irt, validation
from skyt_tui.engine.benchmark.anchors import (
    choose_anchors,
    design_arrays,
    estimate_scores,
)
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix, load_inputs
from skyt_tui.engine.benchmark.sampler import AnchorSample, SampleConfig
from skyt_tui.engine.benchmark.validation import ValidationConfig, compare_methods
from tests.corpus import require

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def two_pl(n_systems=30, n_items=60, seed=0, binary=True):
    """Scores drawn from a 2PL model: abilities N(0,1), slopes lognormal, locations N(0,1)."""
    rng = np.random.default_rng(seed)
    ability = np.sort(rng.normal(size=n_systems))
    slope = rng.lognormal(0.0, 0.3, n_items)
    location = rng.normal(0.0, 1.0, n_items)
    chance = 1.0 / (1.0 + np.exp(-slope * (ability[:, None] - location[None, :])))
    scores = (rng.random(chance.shape) < chance).astype(float) if binary else chance
    items = tuple(
        Item(id=f"i{n:03d}", difficulty=("easy", "medium", "hard")[n % 3]) for n in range(n_items)
    )
    systems = tuple(f"s{k:02d}" for k in range(n_systems))
    return items, ScoreMatrix(systems, tuple(item.id for item in items), scores), ability


def test_fit_recovers_the_order_of_abilities_and_keeps_slopes_positive():
    items, scores, ability = two_pl(n_systems=40, n_items=200, binary=False)
    model = irt.fit(scores.scores, scores.item_ids, scores.systems)
    assert model.converged and model.iterations < irt.MAX_ITERATIONS
    assert np.corrcoef(model.abilities, ability)[0, 1] > 0.99
    assert np.all(model.discrimination > 0)
    # The fitted abilities are standardised: mean 0, sd 1 (the prior's scale).
    assert abs(model.abilities.mean()) < 0.1 and 0.8 < model.abilities.std() < 1.1


def test_an_item_nobody_solves_gets_a_finite_low_intercept():
    items, scores, _ = two_pl(n_systems=20, n_items=30)
    matrix = scores.scores.copy()
    matrix[:, 0] = 0.0
    model = irt.fit(matrix, scores.item_ids, scores.systems)
    assert np.isfinite(model.intercept[0]) and model.probabilities(2.0)[0, 0] < 0.1


def test_fit_refuses_missing_scores_and_wrong_shapes():
    items, scores, _ = two_pl(n_systems=12, n_items=9)
    broken = scores.scores.copy()
    broken[0, 0] = np.nan
    with pytest.raises(ValueError, match="needs a score for every item"):
        irt.fit(broken, scores.item_ids, scores.systems)
    with pytest.raises(ValueError, match="shape"):
        irt.fit(scores.scores, scores.item_ids[:-1], scores.systems)


def test_anchors_are_distinct_informative_items_at_ability_quantiles():
    items, scores, _ = two_pl(n_systems=40, n_items=120, binary=False)
    model = irt.fit(scores.scores, scores.item_ids, scores.systems)
    chosen = irt.select_anchors(model, 10)
    assert len(set(chosen.tolist())) == 10 and list(chosen) == sorted(chosen)
    median_target = np.quantile(model.abilities, 0.55)
    information = model.information(median_target)[0]
    # Among the chosen items is the most informative one at the middle quantile (or one at least
    # as informative was taken by an earlier quantile).
    assert information[chosen].max() >= np.sort(information)[-3]
    assert len(irt.select_anchors(model, 500)) == 120 and len(irt.select_anchors(model, 0)) == 0


def test_a_system_scored_on_every_item_gets_its_exact_mean():
    items, scores, _ = two_pl()
    model = irt.fit(scores.scores, scores.item_ids, scores.systems)
    [estimate] = irt.estimate(model, scores.scores[:1])
    assert estimate.score == pytest.approx(scores.scores[0].mean(), abs=1e-12)
    assert estimate.low == pytest.approx(estimate.score) and estimate.high == pytest.approx(
        estimate.score
    )


def test_p_irt_formula_with_anchors():
    """estimate = (Σ anchor scores + Σ over the other items of p_i(θ̂)) / N, θ̂ the posterior mean."""
    items, scores, _ = two_pl(n_items=30)
    model = irt.fit(scores.scores, scores.item_ids, scores.systems)
    observed = np.full(30, np.nan)
    observed[[0, 5, 9]] = [1.0, 0.0, 1.0]
    [estimate] = irt.estimate(model, observed[None, :])
    others = np.ones(30, dtype=bool)
    others[[0, 5, 9]] = False
    predicted = model.probabilities(estimate.ability)[0][others].sum()
    assert estimate.score == pytest.approx((2.0 + predicted) / 30)
    assert estimate.low < estimate.score < estimate.high and estimate.observed == 3


def test_model_round_trips_through_the_sample_record():
    items, scores, _ = two_pl()
    sample = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=8, mode="irt"), seed=3)
    assert sample.chosen_by == "irt" and sample.model is not None and sample.fallback is None
    record = json.loads(json.dumps(sample.to_dict()))
    again = AnchorSample.from_dict(record)
    assert again == sample
    assert again.model.to_dict() == sample.model.to_dict()
    assert sample.allocation == {
        name: sum(1 for i in items if i.id in sample.ids and i.difficulty == name)
        for name in ("easy", "hard", "medium")
    }


def test_a_record_from_before_irt_still_reads():
    record = {
        "ids": ["a"],
        "seed": 0,
        "config": {"rate": 0.01, "floor": None, "mode": "random"},
        "n_items": 3,
        "requested_size": 1,
        "strata": {"easy": 3},
        "allocation": {"easy": 1},
    }
    sample = AnchorSample.from_dict(record)
    assert sample.chosen_by == "random" and sample.model is None


def test_irt_falls_back_to_stratified_below_ten_complete_systems_and_says_so():
    items, scores, _ = two_pl(n_systems=12)
    matrix = scores.scores.copy()
    matrix[:3, 0] = np.nan  # 9 complete systems left
    sample = choose_anchors(
        items,
        ScoreMatrix(scores.systems, scores.item_ids, matrix),
        SampleConfig(rate=0.0, floor=9, mode="irt"),
    )
    assert sample.chosen_by == "stratified" and sample.model is None
    assert sample.fallback == "only 9 systems have a score for every item; IRT needs at least 10"
    assert sample.config.mode == "irt" and "instead of irt" in sample.description
    stratified = choose_anchors(items, None, SampleConfig(rate=0.0, floor=9))
    assert sample.ids == stratified.ids


def test_design_estimate_literal_example():
    # easy: e1 scored 1.0, e2 not; hard: h1 scored 0.0, h2 not. W = ½ each → estimate ½.
    # One item per stratum (< 10): s² → p(1−p) with p = (Σy + ½)/(n + 1): easy ¾, hard ¼, both 3/16.
    # Var = Σ W² (1 − n/N) s² / n = 2 × ¼ × ½ × 3/16 = 3/64; half-width 1.959964 × √(3/64).
    observed = np.array([[1.0, np.nan, 0.0, np.nan]])
    score, low, high = design_arrays(observed, ["easy", "easy", "hard", "hard"], 0.95)
    half = 1.959963984540054 * np.sqrt(3 / 64)
    assert score[0] == pytest.approx(0.5)
    assert low[0] == pytest.approx(0.5 - half) and high[0] == pytest.approx(0.5 + half)
    everything = np.array([[1.0, 0.5, 0.0, 0.25]])
    score, low, high = design_arrays(everything, ["easy", "easy", "hard", "hard"], 0.95)
    assert score[0] == low[0] == high[0] == pytest.approx(0.4375)


scores_strategy = st.integers(min_value=0, max_value=10_000)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=scores_strategy,
    k=st.integers(min_value=1, max_value=12),
    method=st.sampled_from(["irt", "cluster"]),
)
def test_choice_and_estimate_are_deterministic(seed, k, method):
    items, scores, _ = two_pl(n_systems=14, n_items=24, seed=seed)
    config = SampleConfig(rate=0.0, floor=k, mode=method)
    first = choose_anchors(items, scores, config, seed=1)
    second = choose_anchors(items, scores, config, seed=1)
    assert json.dumps(first.to_dict()) == json.dumps(second.to_dict())
    observed = np.where(np.isin(scores.item_ids, first.ids), scores.scores, np.nan)
    matrix = ScoreMatrix(scores.systems, scores.item_ids, observed)
    assert estimate_scores(items, first, matrix) == estimate_scores(items, second, matrix)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=scores_strategy,
    method=st.sampled_from(["irt", "cluster", "stratified", "random"]),
    which=st.integers(min_value=0, max_value=100),
    start=st.floats(min_value=0.0, max_value=1.0),
    step=st.floats(min_value=0.0, max_value=1.0),
)
def test_the_estimate_never_falls_when_an_anchor_score_rises(seed, method, which, start, step):
    items, scores, _ = two_pl(n_systems=14, n_items=24, seed=seed)
    sample = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=6, mode=method), seed=seed)
    columns = [scores.item_ids.index(i) for i in sample.ids]
    rng = np.random.default_rng(seed)
    row = np.full(len(items), np.nan)
    row[columns] = rng.random(len(columns))
    target = columns[which % len(columns)]
    low, high = row.copy(), row.copy()
    low[target] = start
    high[target] = min(1.0, start + step)
    both = ScoreMatrix(("low", "high"), scores.item_ids, np.stack([low, high]))
    lower, higher = estimate_scores(items, sample, both)
    assert higher.score >= lower.score - 1e-12


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=scores_strategy, holdout=st.floats(min_value=0.2, max_value=0.55))
def test_held_out_systems_never_enter_the_fit(seed, holdout):
    items, scores, _ = two_pl(n_systems=24, n_items=20, seed=seed)  # ≥ 11 training systems
    fitted: list[tuple[str, ...]] = []
    real_fit = irt.fit

    def spy(matrix, item_ids, systems, **kwargs):
        fitted.append(tuple(systems))
        rows = [scores.systems.index(name) for name in systems]
        assert np.array_equal(matrix, scores.scores[rows])  # only these systems' scores
        return real_fit(matrix, item_ids, systems, **kwargs)

    config = ValidationConfig(draws=4, holdout=holdout, seed=seed)
    irt.fit = spy
    try:
        compare_methods(items, scores, ("irt",), (5,), config)
    finally:
        irt.fit = real_fit
    n_held = validation.held_out_count(len(scores.systems), holdout)
    splits = validation._random_splits(len(scores.systems), n_held, config.draws, config.seed)
    assert len(fitted) == len(splits)
    for systems, (train, held) in zip(fitted, splits):
        assert set(systems) == {scores.systems[i] for i in train}
        assert not set(systems) & {scores.systems[i] for i in held}


def test_validation_estimates_equal_what_bench_estimate_gives_for_the_same_training_systems():
    """The validation's held-out estimate and `estimate_scores` on a sample chosen from the same
    training systems are the same numbers: validation measures the code `bench estimate` runs."""
    items, scores, _ = two_pl(n_systems=20, n_items=30, seed=5)
    n_held = validation.held_out_count(20, 0.3)
    [(train, held)] = validation._random_splits(20, n_held, 1, 0)
    data = validation._complete(items, scores)
    [result] = validation._run(data, ("irt",), [7], [(train, held)], ValidationConfig(draws=1))
    training = ScoreMatrix(
        tuple(scores.systems[i] for i in train), scores.item_ids, scores.scores[train]
    )
    sample = choose_anchors(items, training, SampleConfig(rate=0.0, floor=7, mode="irt"))
    observed = np.where(np.isin(scores.item_ids, sample.ids), scores.scores[held], np.nan)
    estimates = estimate_scores(
        items,
        sample,
        ScoreMatrix(tuple(scores.systems[i] for i in held), scores.item_ids, observed),
    )
    truth = scores.scores[held].mean(axis=1)
    mae = np.mean([abs(e.score - t) for e, t in zip(estimates, truth)])
    assert result.mae.median == pytest.approx(mae, abs=1e-12)


def test_estimates_are_identical_across_processes(tmp_path):
    code = (
        "import json, sys; sys.path.insert(0, '.');"
        "from tests.test_bench_irt import two_pl;"
        "from skyt_tui.engine.benchmark.anchors import choose_anchors;"
        "from skyt_tui.engine.benchmark.sampler import SampleConfig;"
        "items, scores, _ = two_pl(n_systems=16, n_items=40, seed=2);"
        "s = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=9, mode='irt'));"
        "print(json.dumps(s.to_dict(), sort_keys=True))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


@pytest.mark.slow
def test_ten_thousand_items_by_a_hundred_systems_take_seconds():
    rng = np.random.default_rng(7)
    ability = rng.normal(size=100)
    slope, location = rng.lognormal(0, 0.3, 10_000), rng.normal(0, 1.5, 10_000)
    chance = 1 / (1 + np.exp(-slope * (ability[:, None] - location)))
    scores = (rng.random(chance.shape) < chance).astype(float)
    items = tuple(Item(id=f"i{n:05d}", difficulty="easy") for n in range(10_000))
    matrix = ScoreMatrix(tuple(f"s{k:03d}" for k in range(100)), tuple(i.id for i in items), scores)
    started = time.perf_counter()
    sample = choose_anchors(items, matrix, SampleConfig(rate=0.0, floor=100, mode="irt"))
    observed = np.where(np.isin(matrix.item_ids, sample.ids), scores, np.nan)
    estimates = estimate_scores(
        items, sample, ScoreMatrix(matrix.systems, matrix.item_ids, observed)
    )
    assert len(estimates) == 100
    assert time.perf_counter() - started < 30  # ~2 s on an idle 2-core machine


@pytest.mark.corpus
@pytest.mark.slow
def test_livecodebench_irt_meets_the_issue_figures():
    """100 random 70/30 splits of the 45 systems: with 25 IRT anchors r > 0.9 in ≥ 95% of splits and
    median MAE ≤ 0.02; with 10, r > 0.9 in ≥ 75%; the intervals cover ≥ 90% of held-out systems."""
    folder = require("benchmarks", "livecodebench-2024-04")
    data = load_inputs(folder / "issues.jsonl", folder / "results.csv", folder / "systems.jsonl")
    config = ValidationConfig(draws=100, holdout=0.3, seed=0)
    results = compare_methods(data.items, data.scores, ("irt", "stratified"), (10, 25), config)
    by = {(r.method, r.size): r for r in results}
    assert by["irt", 25].share_above >= 0.95 and by["irt", 25].mae.median <= 0.02
    assert by["irt", 10].share_above >= 0.75
    assert by["irt", 25].coverage >= 0.9 and by["irt", 10].coverage >= 0.9
    assert by["irt", 25].share_above > by["stratified", 25].share_above
    assert by["irt", 25].n_held_out == 13 and by["irt", 25].n_train == 32
