"""The per-sample facts metrics are computed from.

`SampleAnalysis` is what every metric reads. Normalization fills `signatures`
and `parse_error`; the oracle fills `passed`, `pass_vector` and `outputs`; the
canon and repair stages fill `d_pre`, `d_post` and `repair_steps`. A field left
as None means that stage did not run, and the metrics depending on it are
reported as not computed rather than as zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SampleAnalysis:
    index: int
    """Position in generation order (0-based)."""
    signatures: dict[str, str]
    """SHA-256 of the normalized text at each level (raw, format, nodoc, alpha)."""
    parse_error: bool = False
    passed: bool | None = None
    """Oracle verdict under the contract's pass threshold; None = oracle not run."""
    pass_vector: tuple[bool, ...] | None = None
    """Per-test pass/fail, in contract test order (R_behavioral)."""
    outputs: tuple[str, ...] | None = None
    """Per-test output key: canonical JSON of the actual value, or `!ErrorType` (OER)."""
    d_pre: float | None = None
    """Distance to the canon before repair, at the run's level."""
    d_post: float | None = None
    """Distance to the canon after repair."""
    repair_steps: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    passed_all: bool | None = None
    """Passed every test, out-of-domain input and constraint; None = oracle not run."""
    compliant: bool | None = None
    """Keeps the contract's coding rules and patterns; None = no rules, or oracle not run."""
    limited: str | None = None
    """What the analysis did not do for this sample and why (a program too long to parse: not
    normalized, never canon, not repaired; a distance that is a bound), or None. The sample
    counts in N and in every rate all the same."""
    d_bound: bool = False
    """d_pre and d_post are the bound 1.0 rather than measured (a pair too long to measure,
    `distance.MAX_DISTANCE_CELLS`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "signatures": dict(sorted(self.signatures.items())),
            "parse_error": self.parse_error,
            "passed": self.passed,
            "passed_all": self.passed_all,
            "compliant": self.compliant,
            "pass_vector": list(self.pass_vector) if self.pass_vector is not None else None,
            "outputs": list(self.outputs) if self.outputs is not None else None,
            "d_pre": self.d_pre,
            "d_post": self.d_post,
            "repair_steps": list(self.repair_steps),
            "limited": self.limited,
            "d_bound": self.d_bound,
        }
