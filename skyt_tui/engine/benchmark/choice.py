"""`bench sample --method auto`: choose the anchor method by validation, then draw its sample
(docs/benchmark.md).

Rule: every method of `validation.METHODS` is validated at the sample's size on the systems with
a score for every item — on the time split (trained on the systems released before the date
that holds out a share closest to `HOLDOUT`, at least `irt.MIN_SYSTEMS` before it, tested on the
later ones) where release dates give one, else on `DRAWS` random splits holding out `HOLDOUT`
of the systems. The method with the lowest median MAE over the draws is chosen (ties: the
earlier one in `METHODS`); the sample records every candidate's MAE and coverage and why.
Newer systems are what a benchmark's estimates are for, hence the time split first. Fewer than
`irt.MIN_SYSTEMS` complete systems: stratified, and the sample says why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from skyt_tui.engine.benchmark import irt
from skyt_tui.engine.benchmark.anchors import choose_anchors, complete_rows
from skyt_tui.engine.benchmark.items import Item, ScoreMatrix
from skyt_tui.engine.benchmark.sampler import (
    DEFAULT_SEED,
    AnchorSample,
    MethodChoice,
    SampleConfig,
)
from skyt_tui.engine.benchmark.validation import (
    METHODS,
    TIME_SPLIT_AUTO,
    ValidationConfig,
    _complete,
    _dates,
    _random_splits,
    _run,
    held_out_count,
    time_split_systems,
)

DRAWS = 50
"""Draws per method: the time split is one fixed split, on which irt is deterministic and the
other methods redraw their anchors; without one, the number of random splits."""
HOLDOUT = 0.5


def choose_method(
    items: Sequence[Item],
    scores: ScoreMatrix | None,
    config: SampleConfig,
    seed: int = DEFAULT_SEED,
    benchmark_version: int | None = None,
    release_dates: Mapping[str, str | None] | None = None,
) -> AnchorSample:
    """The sample of the method that validates best, with `choice` saying why (module docstring)."""
    size = config.size_for(len(items)) if items else 0
    if scores is None or int(complete_rows(scores).sum()) < irt.MIN_SYSTEMS:
        # choose_anchors says why no model can be fitted and falls back to stratified
        fallback = choose_anchors(
            items, scores, dataclasses.replace(config, mode="irt"), seed, benchmark_version
        )
        return dataclasses.replace(fallback, config=config)
    data = _complete(items, scores)
    validation = ValidationConfig(draws=DRAWS, holdout=HOLDOUT, seed=seed)
    dates = _dates(data, release_dates)
    found: tuple[np.ndarray, np.ndarray, str] | None = None
    note: str | None = "no release dates (SYSTEMS.jsonl with release_date)"
    if release_dates:
        found, note, _ = time_split_systems(data.used, release_dates, TIME_SPLIT_AUTO, HOLDOUT)
    if found is not None:
        train, test, date = found
        splits = [(train, test)] * DRAWS
        rule, n_train, n_test = "time split", len(train), len(test)
    else:
        n_held = held_out_count(len(data.used), HOLDOUT)
        splits = _random_splits(len(data.used), n_held, DRAWS, seed)
        rule, date, n_train, n_test = "random splits", None, len(data.used) - n_held, n_held
    # The later-systems calibration runs on the time split (one fixed split: once); random splits
    # go without it, as in `bench validate`.
    results = _run(data, METHODS, [size], splits, validation, dates if found else None)
    mae = {result.method: result.mae.median for result in results}
    chosen = min(METHODS, key=lambda method: (mae[method], METHODS.index(method)))
    choice = MethodChoice(
        rule=rule,
        date=date,
        n_train=n_train,
        n_test=n_test,
        draws=DRAWS,
        mae=mae,
        coverage={result.method: result.coverage for result in results},
        chosen=chosen,
        note=None if found is not None else note,
    )
    sample = choose_anchors(
        items,
        scores,
        dataclasses.replace(config, mode=chosen),
        seed,
        benchmark_version,
        release_dates,
    )
    return dataclasses.replace(sample, config=config, choice=choice)
