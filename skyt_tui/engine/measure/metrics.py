"""Repeatability metrics of one run, as pure functions of its sample records (docs/metrics.md).

Definitions follow SKYT's metrics note ("SKYT Middleware - Metrics Definitions", a design note
the project started from, not part of this repository; docs/metrics.md states every definition
used here), with the changes docs/metrics.md describes: R_anchor_pre is measured (not 0 by
definition), and rescue is also reported relative to the non-canonical samples. Every value is a plain float at full
precision; sums use `math.fsum` over a fixed order and the bootstrap draws from
one seeded generator, so recomputation is bit-identical in any process.

N counts the samples that produced code, whatever their size; generation failures are
reported as `n_failed` and excluded, so that a run of failed requests does not look
"repeatable" through many identical empty outputs. A sample the analysis could not measure in
full (`SampleAnalysis.limited`, `d_bound`) is in N and in every rate, by the rules of
docs/metrics.md ("Samples the analysis cannot afford").
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.normalize import LEVELS, NORMALIZATION_VERSION
from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.versions import DEFAULT_TAU  # noqa: F401 (re-exported)

BOOTSTRAP_DRAWS = 1000
BOOTSTRAP_SEED = 20260119
PAIRWISE_BOOTSTRAP_BUDGET = 1_000_000_000
"""Multiply-adds allowed for the R_pairwise interval (draws·N²): all draws up to N = 1,000."""
CANON_NOT_COMPUTED = "not_computed"
CANON_NONE = "none"
CANON_ESTABLISHED = "established"


@dataclass(frozen=True)
class RunMetrics:
    n: int
    level: str
    tau: float
    n_failed: int = 0
    n_limited: int = 0
    distance_bounds: int = 0
    R_raw: float = 0.0
    R_sig: dict[str, float] = field(default_factory=dict)
    distinct: dict[str, int] = field(default_factory=dict)
    entropy_bits: dict[str, float] = field(default_factory=dict)
    R_pairwise: float | None = None
    canon: str = CANON_NOT_COMPUTED
    R_anchor_pre: float | None = None
    R_anchor_post: float | None = None
    Delta_rescue: float | None = None
    rescue_rate: float | None = None
    rescue_of_noncanonical: float | None = None
    mu_pre: float | None = None
    mu_post: float | None = None
    Delta_mu: float | None = None
    P_tau_pre: float | None = None
    P_tau_post: float | None = None
    Delta_P_tau: float | None = None
    R_anchor_mean: float | None = None
    pass_rate: float | None = None
    pass_all_rate: float | None = None
    R_behavioral: float | None = None
    OER: float | None = None
    compliance_rate: float | None = None
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    anchor_sensitivity: dict[str, float | int] | None = None
    versions: dict[str, str] = field(default_factory=dict)
    invariant_violations: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if isinstance(value, dict):
                value = {
                    k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(value.items())
                }
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


def _share(count: int, n: int) -> float:
    return count / n if n else 0.0


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def modal_share(keys: Sequence[Any]) -> float:
    """Share of the most common key: R_raw over raw signatures, R_behavioral over pass vectors."""
    if not keys:
        return 0.0
    return max(Counter(keys).values()) / len(keys)


def entropy_bits(keys: Sequence[Any]) -> float:
    """Shannon entropy (bits) of the key distribution; 0 when all equal."""
    n = len(keys)
    if n == 0:
        return 0.0
    counts = sorted(Counter(keys).values())
    return -math.fsum((c / n) * math.log2(c / n) for c in counts) + 0.0


def mean_pairwise_distance(matrix: np.ndarray) -> float:
    n = matrix.shape[0]
    if n < 2:
        return 0.0
    upper = matrix[np.triu_indices(n, k=1)]
    return math.fsum(upper.tolist()) / len(upper)


def compute_metrics(
    samples: Sequence[SampleAnalysis],
    *,
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
    pairwise: np.ndarray | None = None,
    pairwise_mean: float | None = None,
    canon: str = CANON_NOT_COMPUTED,
    n_failed: int = 0,
    pairwise_bounds: int = 0,
    versions: dict[str, str] | None = None,
    bootstrap_draws: int = BOOTSTRAP_DRAWS,
    seed: int = BOOTSTRAP_SEED,
) -> RunMetrics:
    """All metrics computable from `samples` (ordered by index).

    `pairwise` is the N×N distance matrix at `level` (for R_pairwise and its
    interval); for large runs the caller may give only `pairwise_mean`, the mean
    distance over all pairs, and R_pairwise then has no interval; `pairwise_bounds` of its
    pairs are the bound 1.0 rather than measured (`distance.measure_pairwise`). `canon`
    says whether the canon stage ran and found a canon: with `none`, R_anchor is 0
    and every distance counts as 1.0, as the metrics note prescribes.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if not 0.0 <= tau <= 1.0:
        raise ValueError(f"tau must be within [0, 1]; got {tau}")
    samples = sorted(samples, key=lambda s: s.index)
    n = len(samples)
    all_versions = {"normalization": NORMALIZATION_VERSION, **(versions or {})}

    signatures = {lvl: [s.signatures[lvl] for s in samples] for lvl in LEVELS}
    r_sig = {lvl: modal_share(signatures[lvl]) for lvl in LEVELS}
    values: dict[str, Any] = {
        "R_raw": r_sig["raw"],
        "R_sig": r_sig,
        "distinct": {lvl: len(set(signatures[lvl])) for lvl in LEVELS},
        "entropy_bits": {lvl: entropy_bits(signatures[lvl]) for lvl in LEVELS},
    }
    if n == 1:
        values["R_raw"] = 1.0
    if pairwise is not None:
        if pairwise.shape != (n, n):
            raise ValueError(f"pairwise matrix is {pairwise.shape}, expected {(n, n)}")
        values["R_pairwise"] = (1.0 - mean_pairwise_distance(pairwise)) if n else 0.0
    elif pairwise_mean is not None:
        values["R_pairwise"] = (1.0 - pairwise_mean) if n else 0.0

    values.update(_anchor_metrics(samples, canon, tau))
    values.update(_behaviour_metrics(samples))
    if canon != CANON_NOT_COMPUTED and any(s.passed is not None for s in samples):
        values["anchor_sensitivity"] = anchor_sensitivity(samples, level)

    metrics = RunMetrics(
        n=n,
        level=level,
        tau=tau,
        n_failed=n_failed,
        n_limited=sum(s.limited is not None for s in samples),
        distance_bounds=sum(s.d_bound for s in samples) + pairwise_bounds,
        canon=canon,
        versions=all_versions,
        **values,
    )
    ci = bootstrap_intervals(
        samples, metrics, pairwise, level=level, draws=bootstrap_draws, seed=seed
    )
    metrics = replace(metrics, ci=ci)
    return replace(metrics, invariant_violations=tuple(check_invariants(metrics, samples)))


def _distances(
    samples: Sequence[SampleAnalysis], canon: str
) -> tuple[list[float], list[float]] | None:
    if canon == CANON_NOT_COMPUTED:
        return None
    if canon == CANON_NONE:
        return [1.0] * len(samples), [1.0] * len(samples)
    if any(s.d_pre is None for s in samples):
        return None
    d_pre = [float(s.d_pre) for s in samples if s.d_pre is not None]  # every one, by now
    d_post = [float(s.d_post) if s.d_post is not None else d for s, d in zip(samples, d_pre)]
    return d_pre, d_post


def _anchor_metrics(samples: Sequence[SampleAnalysis], canon: str, tau: float) -> dict[str, Any]:
    distances = _distances(samples, canon)
    if distances is None:
        return {}
    d_pre, d_post = distances
    n = len(samples)
    r_pre = _share(sum(d == 0.0 for d in d_pre), n)
    r_post = _share(sum(d == 0.0 for d in d_post), n)
    rescued = sum(pre > 0.0 and post == 0.0 for pre, post in zip(d_pre, d_post))
    noncanonical = sum(pre > 0.0 for pre in d_pre)
    mu_pre, mu_post = _mean(d_pre), _mean(d_post)
    p_pre = _share(sum(d <= tau for d in d_pre), n)
    p_post = _share(sum(d <= tau for d in d_post), n)
    if canon == CANON_NONE:
        r_pre = r_post = 0.0
    return {
        "R_anchor_pre": r_pre,
        "R_anchor_post": r_post,
        "Delta_rescue": r_post - r_pre,
        "rescue_rate": _share(rescued, n),
        "rescue_of_noncanonical": _share(rescued, noncanonical),
        "mu_pre": mu_pre,
        "mu_post": mu_post,
        "Delta_mu": mu_post - mu_pre,
        "P_tau_pre": p_pre,
        "P_tau_post": p_post,
        "Delta_P_tau": p_post - p_pre,
        "R_anchor_mean": (1.0 - mu_pre) if n else 0.0,
    }


def _longest(rows: Sequence[tuple[object, ...] | None]) -> int:
    return max((len(row) for row in rows if row is not None), default=0)


def behaviour_keys(
    samples: Sequence[SampleAnalysis],
) -> tuple[list[tuple[bool, ...]], list[tuple[str, ...]]]:
    """Pass vectors and output keys, padded so samples that never ran a test compare as failing.

    The two are padded to their own lengths: a contract's constraints have a pass
    vector entry but no output, so outputs are shorter than pass vectors there.
    """
    t_vector = _longest([s.pass_vector for s in samples])
    t_output = _longest([s.outputs for s in samples])
    vectors = [
        s.pass_vector
        if s.pass_vector is not None and len(s.pass_vector) == t_vector
        else (False,) * t_vector
        for s in samples
    ]
    outputs = [
        s.outputs
        if s.outputs is not None and len(s.outputs) == t_output
        else ("!not-run",) * t_output
        for s in samples
    ]
    return vectors, outputs


ERROR_PREFIX = "!"
"""An output key starting with this is no value: an exception, a failed compile or load, a timeout,
a test that never ran (`analysis.pipeline.output_key`)."""
TIMED_OUT = frozenset({"!Timeout", "!CpuLimit"})
"""Output keys of a test stopped for running too long (wall clock or CPU time)."""
ERROR_OUTPUT = "!error"
TIMEOUT_OUTPUT = "!timeout"


def compared_output(key: str) -> str:
    """One test's output as Ouyang et al. compare outputs: a value as itself, every timeout as one
    output, and every other error (any exception, a failed compile or load, a crash, a test that
    never ran) as one output, whatever its type — their harness records an exception as the
    process's non-zero exit ("execution error: 1") and a timeout as "Timeout"."""
    if not key.startswith(ERROR_PREFIX):
        return key
    return TIMEOUT_OUTPUT if key in TIMED_OUT else ERROR_OUTPUT


def agreeing_tests(outputs: Sequence[Sequence[str]]) -> list[bool]:
    """Per test case: did every sample give the same output (`compared_output`)? Rows are one
    sample's keys each, one per test. OER is their share (`output_equivalence_rate`);
    `literature.output_equivalence` counts the ones agreeing on a value (OER_ow)."""
    tests = len(outputs[0]) if outputs else 0
    if any(len(row) != tests for row in outputs):
        raise ValueError("every sample needs one output per test case")
    return [len({compared_output(row[i]) for row in outputs}) == 1 for i in range(tests)]


def output_equivalence_rate(outputs: Sequence[Sequence[str]]) -> float:
    """OER, Ouyang et al.'s output equivalence rate: the share of test cases on which every sample
    gives the same output, every exception one output and every timeout one (their
    syntactic_similarity_OER.py lines 148–154, `len(output_set) == 1`, over the first sample's
    test count, lines 176 and 188); 0.0 without test cases. The one definition of OER: a run's
    `RunMetrics.OER`, which study rows and every report read."""
    agreeing = agreeing_tests(outputs)
    return _share(sum(agreeing), len(agreeing))


def _behaviour_metrics(samples: Sequence[SampleAnalysis]) -> dict[str, Any]:
    if not samples or all(s.passed is None for s in samples):
        return {}
    n = len(samples)
    vectors, outputs = behaviour_keys(samples)
    values: dict[str, Any] = {
        "pass_rate": _share(sum(bool(s.passed) for s in samples), n),
        "pass_all_rate": _share(sum(bool(s.passed_all) for s in samples), n),
        "R_behavioral": modal_share(vectors),
        "OER": output_equivalence_rate(outputs),
    }
    if any(s.compliant is not None for s in samples):
        values["compliance_rate"] = _share(sum(bool(s.compliant) for s in samples), n)
    return values


def anchor_sensitivity(samples: Sequence[SampleAnalysis], level: str) -> dict[str, float | int]:
    """R_anchor_pre if each oracle-passing sample in turn were the anchor.

    d(x, anchor) == 0 exactly when the normalized texts are equal, i.e. when the
    signatures at the run's level are equal, so no distances are needed.
    """
    n = len(samples)
    counts = Counter(s.signatures[level] for s in samples)
    anchors = [s for s in samples if s.passed and not s.parse_error]
    if not anchors:
        return {"min": 0.0, "max": 0.0, "n_anchors": 0, "argmin": -1, "argmax": -1}
    shares = [(counts[s.signatures[level]] / n, s.index) for s in anchors]
    low = min(shares, key=lambda item: (item[0], item[1]))
    high = max(shares, key=lambda item: (item[0], -item[1]))
    return {
        "min": low[0],
        "max": high[0],
        "n_anchors": len(anchors),
        "argmin": low[1],
        "argmax": high[1],
    }


WILSON_Z = 1.959963984540054
"""The standard normal's 97.5th percentile (`scipy.stats.norm.ppf(0.975)`), for 95% intervals."""


def wilson_interval(k: int, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n, as `scipy.stats.binomtest(k, n)
    .proportion_ci(method="wilson")` computes it (tests/test_metrics.py compares the two; scipy
    itself costs a second to import, which every `analyze` would pay). It always contains k/n."""
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    centre = (k + z2 / 2) / (n + z2)
    half = z * math.sqrt(k * (n - k) / n + z2 / 4) / (n + z2)
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap_intervals(
    samples: Sequence[SampleAnalysis],
    metrics: RunMetrics,
    pairwise: np.ndarray | None,
    *,
    level: str,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, tuple[float, float]]:
    """95% intervals for the R metrics (docs/metrics.md, `ci`).

    The shares of samples (R_anchor_pre/post, pass_rate, and the modal shares R_raw, R_sig at
    the level and R_behavioral: the modal key's share) get the Wilson score interval of k of N.
    A resample's modal share is the largest of its shares, so it lies above the run's on
    average, and a percentile interval of those maxima can lie wholly above the value (20
    different programs, R_raw 0.05: [0.10, 0.25]); a percentile interval of a share that is 0 or
    1 is that point. R_pairwise, a mean over pairs, gets a percentile interval, resampling the
    samples with replacement from one seeded generator (reproducible in any process); a
    resample's R_pairwise is over the pairs of different samples it holds (two copies of one
    sample are not a pair of programs that agree).
    """
    n = len(samples)
    if n < 2 or draws <= 0:
        return {}

    def modal(keys: Sequence[Any]) -> tuple[float, float]:
        return wilson_interval(max(Counter(keys).values()), n)

    intervals: dict[str, tuple[float, float]] = {
        "R_raw": modal([s.signatures["raw"] for s in samples]),
        f"R_sig_{level}": modal([s.signatures[level] for s in samples]),
    }
    # c·D·c costs draws·N² multiply-adds: above ~1e9 the draws are cut, and under 50 the interval is left out.
    pair_draws = min(draws, PAIRWISE_BOOTSTRAP_BUDGET // (n * n))
    if pairwise is not None and pairwise.shape == (n, n) and pair_draws >= 50:
        # Each resample's count of each sample (draws × n), from the seeded index matrix.
        index = np.random.default_rng(seed).integers(0, n, size=(draws, n))
        offsets = index + n * np.arange(draws, dtype=np.int64)[:, None]
        counts = np.bincount(offsets.ravel(), minlength=n * draws).reshape(draws, n)
        counts = counts[:pair_draws].astype(np.float64)
        # Sum of D over all ordered pairs of a resample = c·D·c with c the per-sample counts.
        # einsum without `optimize` runs numpy's own loops (no BLAS threads), so the
        # summation order, and hence every bit of the result, is fixed.
        # Ordered pairs of different samples: n² − Σ c², each weighted c_i·c_j as c·D·c weighs
        # them (D's diagonal is 0). A resample of one sample repeated has none: left out.
        sums = np.einsum("ij,ij->i", np.einsum("ij,jk->ik", counts, pairwise), counts)
        pairs = float(n * n) - np.einsum("ij,ij->i", counts, counts)
        kept = pairs > 0
        intervals["R_pairwise"] = _interval(1.0 - sums[kept] / pairs[kept])
    distances = _distances(samples, metrics.canon)
    if distances is not None:
        if metrics.canon == CANON_NONE:  # 0 by definition, not a share that was measured
            intervals["R_anchor_pre"] = intervals["R_anchor_post"] = (0.0, 0.0)
        else:
            d_pre, d_post = distances
            intervals["R_anchor_pre"] = wilson_interval(sum(d == 0.0 for d in d_pre), n)
            intervals["R_anchor_post"] = wilson_interval(sum(d == 0.0 for d in d_post), n)
    if metrics.R_behavioral is not None:
        vectors, _ = behaviour_keys(samples)
        intervals["R_behavioral"] = modal(vectors)
        intervals["pass_rate"] = wilson_interval(sum(bool(s.passed) for s in samples), n)
    return dict(sorted(intervals.items()))


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.quantile(values, (0.025, 0.975))  # one partition for both ends
    return float(low), float(high)


def check_invariants(metrics: RunMetrics, samples: Sequence[SampleAnalysis] = ()) -> list[str]:
    """Violations of the metrics' invariants (docs/metrics.md); an empty list means all hold."""
    problems = []
    unit = [m.name for m in registry.computed_in(registry.METRICS_MODULE) if m.bounded]
    for name in unit:
        value = getattr(metrics, name)
        if value is not None and not 0.0 <= value <= 1.0:
            problems.append(f"{name} = {value} is outside [0, 1]")
    for name, value in [*metrics.R_sig.items()]:
        if not 0.0 <= value <= 1.0:
            problems.append(f"R_sig[{name}] = {value} is outside [0, 1]")
    for name, (low, high) in metrics.ci.items():
        if not 0.0 <= low <= high <= 1.0:
            problems.append(f"ci[{name}] = ({low}, {high}) is not an interval within [0, 1]")
    if (
        metrics.mu_pre is not None
        and metrics.mu_post is not None
        and metrics.mu_post > metrics.mu_pre
    ):
        problems.append(f"mu_post {metrics.mu_post} > mu_pre {metrics.mu_pre}")
    if (
        metrics.P_tau_pre is not None
        and metrics.P_tau_post is not None
        and metrics.P_tau_post < metrics.P_tau_pre
    ):
        problems.append(f"P_tau_post {metrics.P_tau_post} < P_tau_pre {metrics.P_tau_pre}")
    for s in samples:
        if s.d_pre is not None and s.d_post is not None and s.d_post > s.d_pre:
            problems.append(f"sample {s.index}: d_post {s.d_post} > d_pre {s.d_pre}")
    problems += _count_violations(metrics, samples)
    return problems


def _count_violations(metrics: RunMetrics, samples: Sequence[SampleAnalysis]) -> list[str]:
    """The counts agree with the samples: N is the number of sample records, every rate is a
    count of them over N (a sample left out of N but counted elsewhere would break this)."""
    if not samples:
        return []
    problems = []
    n = metrics.n
    if n != len(samples):
        problems.append(f"n = {n} but {len(samples)} samples were measured")
    for name, count in (
        ("pass_rate", sum(bool(s.passed) for s in samples)),
        ("pass_all_rate", sum(bool(s.passed_all) for s in samples)),
        ("n_limited", sum(s.limited is not None for s in samples)),
    ):
        value = getattr(metrics, name)
        expected = count if name == "n_limited" else _share(count, len(samples))
        if value is not None and value != expected:
            problems.append(f"{name} = {value} but {count} of the {len(samples)} samples count")
    return problems
