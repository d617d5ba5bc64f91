"""The analysis pipeline of one run: normalize and sign every sample, then metrics.

Later stages (oracle, canon, repair) plug in here; this module orders them and
turns their per-sample results into `SampleAnalysis` records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skyt_tui.engine.distance import distance_version, pairwise_matrix
from skyt_tui.engine.metrics import DEFAULT_TAU, RunMetrics, compute_metrics
from skyt_tui.engine.normalize import Normalized, normalize
from skyt_tui.engine.records import SampleAnalysis
from skyt_tui.engine.sources import RunInput


@dataclass(frozen=True)
class RunAnalysis:
    run: RunInput
    level: str
    samples: tuple[SampleAnalysis, ...]
    normalized: tuple[Normalized, ...]
    pairwise: np.ndarray
    metrics: RunMetrics

    def to_dict(self, *, with_samples: bool = True) -> dict[str, Any]:
        """JSON form: the summary plus, per sample, its record and normalized text at the level."""
        out = self.summary()
        out["level"] = self.level
        if with_samples:
            out["samples"] = [sample.to_dict() for sample in self.samples]
        return out

    def summary(self) -> dict[str, Any]:
        """The run's entry in `analyze --json`."""
        return {
            "id": self.run.id,
            "contract_id": self.run.contract_id,
            "model": self.run.model,
            "temperature": self.run.temperature,
            "n": self.metrics.n,
            "source": self.run.source,
            "metrics": self.metrics.to_dict(),
        }


def analyze_run(run: RunInput, *, level: str = "nodoc", tau: float = DEFAULT_TAU) -> RunAnalysis:
    generated = [(index, code) for index, code in enumerate(run.codes) if code is not None]
    normalized = tuple(normalize(code, run.kept_names) for _, code in generated)
    samples = tuple(
        SampleAnalysis(index=index, signatures=norm.signatures, parse_error=norm.parse_error)
        for (index, _), norm in zip(generated, normalized)
    )
    pairwise = pairwise_matrix([norm.texts[level] for norm in normalized])
    metrics = compute_metrics(
        samples, level=level, tau=tau, pairwise=pairwise, n_failed=len(run.codes) - len(generated),
        versions={"distance": distance_version(level)},
    )
    return RunAnalysis(run=run, level=level, samples=samples, normalized=normalized, pairwise=pairwise, metrics=metrics)
