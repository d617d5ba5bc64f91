"""A CI gate on a stored run: thresholds on its metrics, one verdict, one line why.

A metric is named as in `report --json` (`R_anchor_post`, `pass_rate`, `R_raw`,
`n_failed`, or a dotted path such as `R_sig.alpha`; `measure.registry` defines each). A
metric that was not computed fails the gate (it cannot show the threshold is met), and so
do a run that is not complete and a run without a sample that has code (N = 0: its figures
measure nothing). Comparisons use the full-precision stored value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.measure import registry

if TYPE_CHECKING:
    from skyt_tui.engine.measure.metrics import RunMetrics


@dataclass(frozen=True)
class Threshold:
    metric: str
    bound: float
    kind: str
    """"min": value must be ≥ bound; "max": value must be ≤ bound."""


@dataclass(frozen=True)
class GateCheck:
    threshold: Threshold
    value: float | None
    passed: bool
    text: str


@dataclass(frozen=True)
class GateResult:
    run_id: str
    passed: bool
    checks: tuple[GateCheck, ...]
    reason: str

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'} {self.run_id}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "passed": self.passed,
            "reason": self.reason,
            "checks": [
                {
                    "metric": c.threshold.metric,
                    "kind": c.threshold.kind,
                    "bound": c.threshold.bound,
                    "value": c.value,
                    "passed": c.passed,
                }
                for c in self.checks
            ],
        }


UNIT_RANGES = {"share": (0.0, 1.0), "distance": (0.0, 1.0), "difference": (-1.0, 1.0)}
"""The values a metric of each unit takes (`registry.Unit`); the others: 0 or more."""


def parse_threshold(text: str, kind: str) -> Threshold:
    """`NAME=VALUE` from `--min`/`--max`."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--{kind}: expected METRIC=VALUE, got {text!r}")
    try:
        bound = float(value)
    except ValueError:
        raise InputError(f"--{kind} {name}: {value!r} is not a number") from None
    if bound != bound:
        raise InputError(f"--{kind} {name}: the bound must be a number, not nan")
    name = name.strip()
    head = name.split(".")[0]
    if registry.is_registered(head):  # a bound no value of the metric can take is a typo
        unit = registry.metric(head).unit
        low, high = UNIT_RANGES.get(unit, (0.0, math.inf))
        if not low <= bound <= high:
            within = f"between {low:g} and {high:g}" if high != math.inf else f"{low:g} or more"
            raise InputError(f"--{kind} {name}={value}: {name} is a {unit}, {within}")
    return Threshold(metric=name, bound=bound, kind=kind)


def metric_value(metrics: dict[str, Any], name: str) -> Any:
    value: Any = metrics
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise InputError(
                f"unknown metric {name!r} (see `skyt-tui report RUN --json`, key metrics)"
            )
        value = value[part]
    return value


def _show(value: float, bound: float, count: bool) -> tuple[str, str]:
    if count and float(bound).is_integer():
        return str(int(value)), str(int(bound))
    shown = f"{value:.3f}", f"{bound:.3f}"
    if shown[0] == shown[1] and value != bound:
        return repr(value), repr(bound)
    return shown


def _check(metrics: RunMetrics, threshold: Threshold) -> GateCheck:
    value = metric_value(metrics.to_dict(), threshold.metric)
    if value is None:
        canon = metrics.canon
        name = threshold.metric.split(".")[0]
        needs_canon = name in registry.needing("canon")
        why = f" (canon: {canon})" if canon and needs_canon else ""
        if (
            registry.is_registered(name)
            and registry.metric(name).app_if_rules
            and metrics.pass_rate is not None
        ):
            why = " (the run's contract has no coding rules)"
        return GateCheck(threshold, None, False, f"{threshold.metric} not computed{why}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            f"metric {threshold.metric!r} is not a number (it is {type(value).__name__})"
        )
    count = isinstance(value, int)
    value = float(value)
    passed = value >= threshold.bound if threshold.kind == "min" else value <= threshold.bound
    shown, bound = _show(value, threshold.bound, count)
    if threshold.kind == "min":
        op = "≥" if passed else "<"
    else:
        op = "≤" if passed else ">"
    return GateCheck(threshold, value, passed, f"{threshold.metric} {shown} {op} {bound}")


def evaluate(
    run_id: str,
    metrics: RunMetrics,
    thresholds: list[Threshold],
    *,
    complete: bool = True,
    progress: tuple[int, int] | None = None,
) -> GateResult:
    """The verdict for one run's metrics (its `StoredAnalysis.metrics`) against every threshold;
    a metric is named by its path in the stored metrics (`RunMetrics.to_dict`)."""
    if not thresholds:
        raise InputError("gate: give at least one threshold (e.g. --min-r-anchor 0.8)")
    checks = tuple(_check(metrics, t) for t in thresholds)
    if metrics.n == 0:  # every figure of a run without code is vacuous: nothing shows a bound met
        return GateResult(
            run_id,
            False,
            checks,
            f"no sample of the run has code (N = 0, {metrics.n_failed} failed): nothing to gate",
        )
    if not complete:
        done, n = progress or (0, 0)
        return GateResult(
            run_id, False, checks, f"run is not complete ({done} of {n} samples); resume it first"
        )
    failed = [c for c in checks if not c.passed]
    shown = failed or list(checks)
    return GateResult(run_id, not failed, checks, "; ".join(c.text for c in shown))
