"""Significance tests and intervals for comparing runs (studies), on scipy.stats.

Each result names its n and what was paired or compared, so a reported p-value
always says what it is about. The distributions come from scipy; what is
written here is only bookkeeping (pairing, effect sizes, Holm's step-down).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from scipy import stats as scipy_stats


@dataclass(frozen=True)
class PairedComparison:
    """Wilcoxon signed-rank test of `a` against `b` over the keys both have."""

    a: str
    b: str
    metric: str
    paired_over: str
    """What one pair is, e.g. "contract"."""
    keys: tuple[str, ...]
    n: int
    """Pairs used (keys both groups have)."""
    n_nonzero: int
    """Pairs whose difference is not zero (the ones the test ranks)."""
    mean_a: float
    mean_b: float
    median_difference: float
    """Median of a − b."""
    statistic: float | None
    p_value: float
    rank_biserial: float
    """Matched-pairs rank-biserial correlation in [-1, 1]: positive when a tends to exceed b."""
    p_holm: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["keys"] = list(self.keys)
        return out


def wilcoxon_paired(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    label_a: str,
    label_b: str,
    metric: str,
    paired_over: str = "contract",
) -> PairedComparison:
    """Paired comparison over the keys present in both `a` and `b`.

    Pairs with a zero difference are dropped before ranking (Wilcoxon's
    treatment); with no non-zero pair left the groups do not differ and p = 1.
    The effect size is the matched-pairs rank-biserial correlation
    r = (W+ − W−) / (W+ + W−) over the same ranks the test uses.
    """
    keys = tuple(sorted(set(a) & set(b)))
    differences = [a[key] - b[key] for key in keys]
    nonzero = [d for d in differences if d != 0.0]
    mean_a = math.fsum(a[key] for key in keys) / len(keys) if keys else math.nan
    mean_b = math.fsum(b[key] for key in keys) / len(keys) if keys else math.nan
    median = float(statistics.median(differences)) if differences else math.nan
    if not nonzero:
        statistic, p_value, effect = None, 1.0, 0.0
    else:
        result = scipy_stats.wilcoxon(differences, zero_method="wilcox")
        statistic, p_value = float(result.statistic), float(result.pvalue)
        ranks = scipy_stats.rankdata([abs(d) for d in nonzero])
        positive = math.fsum(r for r, d in zip(ranks, nonzero) if d > 0)
        negative = math.fsum(r for r, d in zip(ranks, nonzero) if d < 0)
        effect = (positive - negative) / (positive + negative)
    return PairedComparison(
        a=label_a,
        b=label_b,
        metric=metric,
        paired_over=paired_over,
        keys=keys,
        n=len(keys),
        n_nonzero=len(nonzero),
        mean_a=mean_a,
        mean_b=mean_b,
        median_difference=median,
        statistic=statistic,
        p_value=p_value,
        rank_biserial=effect,
    )


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values, in the order given.

    The i-th smallest p (0-based) is multiplied by m − i; a running maximum
    keeps the adjusted values in the same order as the raw ones; capped at 1.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def with_holm(comparisons: Sequence[PairedComparison]) -> list[PairedComparison]:
    """The comparisons with `p_holm` filled in, as one family."""
    adjusted = holm([c.p_value for c in comparisons])
    return [replace(c, p_holm=p) for c, p in zip(comparisons, adjusted)]


@dataclass(frozen=True)
class Rate:
    successes: int
    n: int
    rate: float
    low: float
    high: float
    confidence: float = 0.95

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Rate:
    """The rate with its Wilson score interval (scipy's binomtest, method "wilson")."""
    if n <= 0:
        raise ValueError("a rate needs n > 0")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], not {successes}")
    interval = scipy_stats.binomtest(successes, n).proportion_ci(
        confidence_level=confidence, method="wilson"
    )
    return Rate(successes, n, successes / n, float(interval.low), float(interval.high), confidence)


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin(√p1) − 2·asin(√p2): the effect size of a difference of two rates."""
    for p in (p1, p2):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"a rate must lie in [0, 1], not {p}")
    return 2.0 * math.asin(math.sqrt(p1)) - 2.0 * math.asin(math.sqrt(p2))


POOLED_NOTE = (
    "pooled across contracts: the samples of one contract are clustered, not independent, so the "
    "Wilson intervals are too narrow and the Fisher p-values too small; the Wilcoxon test, paired "
    "over contracts, respects the clustering"
)
"""What the two rates of a `RateComparison` are: every sample of every contract counted as one."""


@dataclass(frozen=True)
class RateComparison:
    """Two rates pooled over every sample of a group's contracts (`POOLED_NOTE`)."""

    a: str
    b: str
    what: str
    """What is counted, e.g. "samples passing the oracle"."""
    rate_a: Rate
    rate_b: Rate
    odds_ratio: float
    p_value: float
    cohens_h: float
    p_holm: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["n"] = self.rate_a.n + self.rate_b.n
        out["pooling"] = POOLED_NOTE
        return out


def compare_rates(
    successes_a: int,
    n_a: int,
    successes_b: int,
    n_b: int,
    *,
    label_a: str,
    label_b: str,
    what: str,
) -> RateComparison:
    """Two rates: Wilson intervals, Fisher's exact test (two-sided) and Cohen's h."""
    rate_a = wilson_interval(successes_a, n_a)
    rate_b = wilson_interval(successes_b, n_b)
    table = [[successes_a, n_a - successes_a], [successes_b, n_b - successes_b]]
    result = scipy_stats.fisher_exact(table, alternative="two-sided")
    return RateComparison(
        a=label_a,
        b=label_b,
        what=what,
        rate_a=rate_a,
        rate_b=rate_b,
        odds_ratio=float(result.statistic),
        p_value=float(result.pvalue),
        cohens_h=cohens_h(rate_a.rate, rate_b.rate),
    )
