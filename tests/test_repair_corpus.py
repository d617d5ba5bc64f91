"""Repair on real SKYT samples: never farther from the canon, never a behaviour change."""

import pytest

from skyt_tui.engine.repair import repair
from tests.corpus import require
from tests.repair_helpers import OutputVerifier, skyt_experiment

FILES = [
    "balanced_brackets_temp1.0_20260123_110545.json",
    "merge_sort_temp1.0_20260123_125922.json",
    "fibonacci_basic_temp1.0_20260119_120218.json",
    "gcd_temp1.0_20260123_112850.json",
    "is_palindrome_temp1.0_20260123_184937.json",
]
DISTINCT_PER_FILE = 6
"""Distinct programs repaired per file, to keep the test fast; bench/repair_effect.py runs them all."""


@pytest.mark.corpus
@pytest.mark.parametrize("name", FILES)
def test_repair_is_monotonic_and_keeps_behaviour_on_real_samples(name):
    experiment = skyt_experiment(require("skyt-msr2026", "outputs", name))
    verifier = OutputVerifier(experiment.entry, experiment.inputs, experiment.expected)
    behaviours = verifier.behaviours(list(experiment.codes))
    canon = next(code for code, b in zip(experiment.codes, behaviours) if b.passes_all)
    results = {}
    for code, behaviour in zip(experiment.codes, behaviours):
        if not behaviour.passes_all or code in results or len(results) >= DISTINCT_PER_FILE:
            continue
        results[code] = result = repair(
            code, canon, kept_names=experiment.kept_names, verify=verifier.same_as(code)
        )
        assert result.d_post <= result.d_pre
        assert all(step.d_after < step.d_before for step in result.steps)
        assert len(result.steps) <= 5
        assert verifier.behaviours([result.code])[0] == behaviour
        for kept in experiment.kept_names:
            assert (kept in code) <= (kept in result.code)
    assert any(r.steps for r in results.values()), (
        "expected at least one sample to move towards the canon"
    )
