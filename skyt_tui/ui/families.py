"""Solution families of a run: its samples grouped by what they are (the alpha signature: the same program up
to formatting, comments and names) and what they do (the oracle's outputs), and what choosing a sample as the
canon would do to the anchor metrics — all from the stored analysis and the pairwise distances, nothing
re-run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.runs.analysis_record import StoredAnalysis
from skyt_tui.engine.runs.probe_record import SampleProbeRecord, StoredProbe, read_probe

FAMILY_LEVEL = "alpha"


@dataclass(frozen=True)
class Family:
    signature: str
    """The alpha-level signature the members share."""
    behaviour: tuple[Any, ...]
    passed: bool | None
    parse_error: bool
    members: tuple[int, ...]
    """Sample indexes, in generation order; the first is the representative."""
    probe: SampleProbeRecord | None = None
    """The representative's probe record (behaviour class, witness) when the run was probed."""

    @property
    def representative(self) -> int:
        return self.members[0]


def behaviour_key(sample: SampleAnalysis) -> tuple[Any, ...]:
    """What a sample does: its outputs on the oracle's tests, else its verdict."""
    if sample.outputs is not None:
        return ("outputs", *[str(o) for o in sample.outputs])
    return ("verdict", sample.passed, sample.parse_error)


def probe_records(
    probe: StoredProbe | Mapping[str, Any] | None,
) -> Mapping[int, SampleProbeRecord]:
    """Sample index → probe record of a stored probe (`runs.probe_record`); empty when there is
    none."""
    record = read_probe(probe)
    return record.by_index if record is not None else {}


def solution_families(
    analysis: StoredAnalysis, probe: StoredProbe | Mapping[str, Any] | None = None
) -> list[Family]:
    """Families of the analysed samples, largest first (ties: earliest representative first).

    With a run's probe, passing samples are also split by their behaviour class on the
    generated inputs: two samples with one program text and one class stay one family.
    """
    records = probe_records(probe)
    groups: dict[tuple[str, tuple[Any, ...]], list[SampleAnalysis]] = {}
    for sample in (analysed.facts for analysed in analysis.samples):
        signature = sample.signatures.get(FAMILY_LEVEL) or ""
        record = records.get(sample.index)
        key = behaviour_key(sample)
        if record is not None and record.behaviour is not None:
            key = (*key, "probe", record.behaviour)
        groups.setdefault((signature, key), []).append(sample)
    families = [
        Family(
            signature=signature,
            behaviour=behaviour,
            passed=members[0].passed,
            parse_error=members[0].parse_error,
            members=tuple(sorted(m.index for m in members)),
            probe=records.get(min(m.index for m in members)),
        )
        for (signature, behaviour), members in groups.items()
    ]
    return sorted(families, key=lambda f: (-len(f.members), f.representative))


@dataclass(frozen=True)
class CanonPreview:
    """The pre-repair anchor metrics if sample `index` were the canon (repair is not previewed)."""

    index: int
    R_anchor_pre: float
    mu_pre: float
    P_tau_pre: float


def preview_canon(matrix: np.ndarray, position: int, index: int, tau: float) -> CanonPreview:
    """From the pairwise distances at the analysis level: the canon's distance to each sample is its row."""
    row = np.asarray(matrix[position], dtype=np.float64)
    n = len(row)
    if not n:
        return CanonPreview(index, 0.0, 0.0, 0.0)
    return CanonPreview(
        index=index,
        R_anchor_pre=float(np.count_nonzero(row == 0.0)) / n,
        mu_pre=float(row.mean()),
        P_tau_pre=float(np.count_nonzero(row <= tau)) / n,
    )


def previews(
    matrix: np.ndarray, labels: Sequence[str], indexes: Sequence[int], tau: float
) -> dict[int, CanonPreview]:
    positions = {int(label): position for position, label in enumerate(labels)}
    return {
        index: preview_canon(matrix, positions[index], index, tau)
        for index in indexes
        if index in positions
    }
