"""Anchors that estimate newer systems (issue 25, observation 6): the cluster method, `bench sample`
choosing its method by validation on a time split and saying why, intervals widened for a
system unlike the fit systems and calibrated on later ones; LiveCodeBench's time splits; the
docs' table against bench/anchor_methods.py."""

import dataclasses
import json

import numpy as np
import pytest

from skyt_tui.cli import main
from skyt_tui.engine.benchmark import irt
from skyt_tui.engine.benchmark.anchors import choose_anchors, estimate_scores
from skyt_tui.engine.benchmark.choice import choose_method
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix, load_inputs
from skyt_tui.engine.benchmark.methods import interval_scale, later_windows, parse_dates
from skyt_tui.engine.benchmark.sampler import AnchorSample, SampleConfig
from skyt_tui.engine.benchmark.validation import (
    METHODS,
    ValidationConfig,
    complete_systems,
    time_split_systems,
    validate_on_splits,
)
from tests.corpus import require


def two_pl(n_systems=24, n_items=60, seed=0):
    rng = np.random.default_rng(seed)
    ability = np.sort(rng.normal(size=n_systems))
    slope, location = rng.lognormal(0, 0.3, n_items), rng.normal(0, 1, n_items)
    chance = 1 / (1 + np.exp(-slope * (ability[:, None] - location)))
    scores = rng.binomial(10, chance) / 10
    items = tuple(
        Item(id=f"q{n:02d}", difficulty=("easy", "medium", "hard")[n % 3]) for n in range(n_items)
    )
    systems = tuple(f"sys{k:02d}" for k in range(n_systems))
    return items, ScoreMatrix(systems, tuple(i.id for i in items), scores)


def dates_by_rank(systems, per_year=5):
    return {name: f"{2020 + k // per_year}-01-01" for k, name in enumerate(systems)}


def test_interval_scale_is_the_conformal_rank_of_the_later_errors():
    # n = 19 errors, level 0.9: r = ⌈20 × 0.9⌉ = 18 → the 18th smallest, 2.0; z_0.9 = 1.6449
    errors = [0.1 * k for k in range(1, 18)] + [2.0, 5.0]
    assert interval_scale(errors, 0.9) == pytest.approx(2.0 / 1.6448536269514722)
    assert interval_scale([0.5, 1.0], 0.95) == 1.0  # never narrower
    assert interval_scale([], 0.95) == 1.0
    # r > n: the largest error
    assert interval_scale([1.0, 3.0], 0.95) == pytest.approx(3.0 / 1.959963984540054)


def test_later_windows_fit_on_everything_released_before_each_cut():
    days = parse_dates([f"202{k // 5}-06-01" for k in range(20)] + [None, "bad"])
    windows = later_windows(days)
    # cuts with ≥ 10 systems before: 2022 (10 before) and 2023 (15 before); one window each
    assert [(len(earlier), len(window)) for earlier, window in windows] == [(10, 5), (15, 5)]
    assert set(windows[0][1]) == set(range(10, 15)) and set(windows[1][1]) == set(range(15, 20))
    assert later_windows(parse_dates(["2020-01-01"] * 12)) == []


def test_a_system_the_model_fits_worse_gets_a_wider_interval():
    items, scores = two_pl(n_systems=30, n_items=80, seed=2)
    sample = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=20, mode="irt"))
    assert sample.person_reference > 0
    columns = [scores.item_ids.index(i) for i in sample.ids]
    model = sample.model
    order = np.argsort(model.intercept[columns])  # easiest anchor first
    typical = np.full(len(items), np.nan)
    typical[columns] = scores.scores[15, columns]
    # the same number solved, but the hardest anchors instead of the easiest: a profile the
    # one-dimensional model does not expect
    solved = int(round(np.nansum(typical)))
    odd = np.full(len(items), np.nan)
    odd[columns] = 0.0
    odd[np.array(columns)[order[::-1][:solved]]] = 1.0
    fits = irt.person_fit(model, np.stack([typical, odd]), np.zeros(2))
    assert fits[1] > fits[0]
    rows = ScoreMatrix(("typical", "odd"), scores.item_ids, np.stack([typical, odd]))
    plain = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=20, mode="irt"))
    plain = dataclasses.replace(plain, person_reference=0.0)
    wide = estimate_scores(items, sample, rows)[1]
    narrow = estimate_scores(items, plain, rows)[1]
    assert wide.high - wide.low > narrow.high - narrow.low


def test_cluster_sample_round_trips_and_estimates_by_gp_irt():
    items, scores = two_pl()
    sample = choose_anchors(items, scores, SampleConfig(rate=0.0, floor=12, mode="cluster"))
    assert sample.chosen_by == "cluster" and len(sample.weights) == 12
    assert sum(sample.weights) == pytest.approx(1.0) and sample.lambda_variance > 0
    again = AnchorSample.from_dict(json.loads(json.dumps(sample.to_dict())))
    assert again == sample
    observed = np.where(np.isin(scores.item_ids, sample.ids), scores.scores, np.nan)
    estimates = estimate_scores(
        items, sample, ScoreMatrix(scores.systems, scores.item_ids, observed)
    )
    assert {e.estimator for e in estimates} == {"gp-irt"}
    assert all(e.low <= e.score <= e.high for e in estimates)
    full = estimate_scores(items, sample, scores)
    assert all(e.exact and e.score == pytest.approx(m) for e, m in zip(full, scores.scores.mean(1)))


def test_auto_chooses_the_lowest_time_split_error_and_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SKYT_HOME", str(tmp_path / "home"))
    items, scores = two_pl()
    issues = tmp_path / "issues.jsonl"
    issues.write_text(
        "".join(json.dumps({"id": i.id, "difficulty": i.difficulty}) + "\n" for i in items)
    )
    results = tmp_path / "results.csv"
    results.write_text(
        "system,issue_id,score\n"
        + "".join(
            f"{s},{i},{scores.scores[k, n]}\n"
            for k, s in enumerate(scores.systems)
            for n, i in enumerate(scores.item_ids)
        )
    )
    systems = tmp_path / "systems.jsonl"
    dated = dates_by_rank(scores.systems)
    systems.write_text(
        "".join(json.dumps({"system": s, "release_date": d}) + "\n" for s, d in dated.items())
    )
    argv = [
        "bench",
        "import",
        "b",
        str(issues),
        "--results",
        str(results),
        "--systems",
        str(systems),
    ]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["bench", "sample", "b", "--size", "12"]) == 0  # auto is the default
    out = " ".join(capsys.readouterr().out.split())
    assert main(["bench", "sample", "b", "--size", "12", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    choice = record["choice"]
    assert record["config"]["mode"] == "auto" and record["method"] == choice["chosen"]
    assert choice["rule"] == "time split" and choice["date"] == "2022-01-01"
    assert (choice["n_train"], choice["n_test"]) == (10, 14)
    assert choice["chosen"] == min(METHODS, key=lambda m: (choice["mae"][m], METHODS.index(m)))
    assert set(choice["mae"]) == set(METHODS) == set(choice["coverage"])
    assert (
        f"auto chose {choice['chosen']}: the lowest median MAE on a time split (trained on the 10 "
        f"systems released before 2022-01-01, tested on the 14 released on or after it): "
        f"{choice['mae'][choice['chosen']]:.4f}, against " in out
    )


def test_auto_without_release_dates_validates_on_random_splits_and_says_so():
    items, scores = two_pl()
    sample = choose_method(items, scores, SampleConfig(rate=0.0, floor=12, mode="auto"))
    assert sample.choice.rule == "random splits" and sample.choice.date is None
    assert "no release dates" in sample.choice.message
    assert sample.chosen_by == sample.choice.chosen and sample.config.mode == "auto"


def test_auto_with_too_few_systems_falls_back_to_stratified_and_says_why():
    items, scores = two_pl(n_systems=8)
    sample = choose_method(items, scores, SampleConfig(rate=0.0, floor=12, mode="auto"))
    assert sample.chosen_by == "stratified" and sample.choice is None
    assert sample.fallback == "only 8 systems have a score for every item; IRT needs at least 10"


def livecodebench():
    folder = require("benchmarks", "livecodebench-2024-04")
    data = load_inputs(folder / "issues.jsonl", folder / "results.csv", folder / "systems.jsonl")
    return data.items, data.scores, {s.name: s.release_date for s in data.systems}


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize(
    ("date", "before"),
    [("2023-08-30", 0.0345), ("2023-04-30", 0.0438)],
)
def test_livecodebench_newer_systems_are_estimated_better_and_covered(date, before):
    """k = 25, trained on the systems released before `date`: skyt-tui's best method had median
    MAE 0.0345 / 0.0438 on the later ones and its interval covered 67% of them before 2023-04-30.
    Now the clustered anchors with gp-IRT do better than that, and both model-based methods'
    intervals cover at least 90% of the newer systems."""
    items, scores, dates = livecodebench()
    used = complete_systems(items, scores)
    (train, test, _), _, _ = time_split_systems(used, dates, date, 0.5)
    results = validate_on_splits(
        items,
        scores,
        ("irt", "cluster"),
        [25],
        [(train, test)] * 20,
        ValidationConfig(draws=20),
        dates,
    )
    by = {r.method: r for r in results}
    assert by["cluster"].mae.median < before - 0.003
    assert by["cluster"].coverage >= 0.9 and by["irt"].coverage >= 0.9


@pytest.mark.corpus
@pytest.mark.slow
def test_bench_sample_on_livecodebench_chooses_cluster_on_the_time_split():
    items, scores, dates = livecodebench()
    sample = choose_method(
        items, scores, SampleConfig(rate=0.0, floor=25, mode="auto"), 0, 1, dates
    )
    choice = sample.choice
    assert choice.rule == "time split" and choice.date == "2023-04-30"
    assert (choice.n_train, choice.n_test) == (24, 21)
    assert sample.chosen_by == "cluster" and choice.mae["cluster"] < choice.mae["irt"]
    assert sample.calibration_note.startswith("calibrated on 21 later systems")


@pytest.mark.corpus
@pytest.mark.slow
def test_docs_table_matches_the_bench_script_on_the_time_splits():
    """docs/benchmark.md's newer-systems table is written by `bench/anchor_methods.py
    --write-docs`; here its irt cells on the time splits (deterministic) and the methods auto
    picked there are recomputed (all of it takes many minutes)."""
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location(
        "anchor_methods", root / "bench/anchor_methods.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    items, scores, dates = livecodebench()
    used = complete_systems(items, scores)
    block = script.docs_block()
    labels = dict(script.ROWS)
    cells = {
        row.split(" | ")[0].lstrip("| "): row.strip(" |").split(" | ")[1:]
        for row in block.splitlines()
        if row.startswith("| ")
    }
    for column, date in enumerate(script.TIME_SPLITS, start=1):
        (train, test, _), _, _ = time_split_systems(used, dates, date, 0.3)
        figures = script.evaluate_splits(items, scores, dates, [(train, test)], 0, names=("irt",))
        shown = cells[labels["irt"]][2 * column : 2 * column + 2]
        assert shown == [f"{figures['irt']['mae']:.4f}", script._cover(figures["irt"]["coverage"])]
        [pick] = script.auto_picks(items, scores, dates, used, [(train, test)], 0, script.K)
        assert f"before {date}: {pick} " in block
