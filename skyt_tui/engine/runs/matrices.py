"""A run's samples as normalized texts, before and after repair, and their pairwise distance matrices.

A stored analysis keeps numbers, not texts: `stored_run_texts` rebuilds the
pre-repair texts from the stored samples (via `normalize`) and the post-repair
texts from the analysis' repaired code, so the heatmap and the sample diffs of
the app can show any normalization level. Samples are normalized lazily, one at
a time, so a 10,000-sample run costs nothing until its texts are asked for.

Repair is made at the analysis' level; at another level the post-repair texts
are the repaired programs normalized at that level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from skyt_tui.engine.measure.distance import pairwise_matrix
from skyt_tui.engine.measure.normalize import LEVELS, Normalized, normalize
from skyt_tui.engine.runs import analyses, run_store

if TYPE_CHECKING:
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis


class RunTexts:
    """The samples of one analysed run that have code, in generation order (matrix position = list position)."""

    def __init__(
        self,
        *,
        run_id: str,
        level: str,
        labels: Sequence[str],
        codes: Sequence[str],
        repaired: Sequence[str | None],
        d_pre: Sequence[float | None],
        d_post: Sequence[float | None],
        canon_code: str | None,
        kept_names: frozenset[str],
        repair_ran: bool,
        normalized: Sequence[Normalized] | None = None,
    ) -> None:
        if not len(labels) == len(codes) == len(repaired) == len(d_pre) == len(d_post):
            raise ValueError("labels, codes, repaired code and distances must be one per sample")
        self.run_id = run_id
        self.level = level
        self.labels = tuple(labels)
        self.codes = tuple(codes)
        self.repaired = tuple(repaired)
        self.d_pre = tuple(d_pre)
        self.d_post = tuple(d_post)
        self.canon_code = canon_code
        self.kept_names = kept_names
        self.repair_ran = repair_ran
        """False when there was no canon (or no oracle): nothing was repaired, so there is no "after"."""
        self._pre: dict[int, Normalized] = (
            dict(enumerate(normalized)) if normalized is not None else {}
        )
        self._post: dict[int, Normalized] = {}
        self._canon: Normalized | None = None
        self._matrices: dict[tuple[str, bool], np.ndarray] = {}

    def head(self, count: int) -> RunTexts:
        """The first `count` samples only (a heatmap of 10,000 samples would not fit any screen)."""
        if count >= len(self):
            return self
        return RunTexts(
            run_id=self.run_id,
            level=self.level,
            labels=self.labels[:count],
            codes=self.codes[:count],
            repaired=self.repaired[:count],
            d_pre=self.d_pre[:count],
            d_post=self.d_post[:count],
            canon_code=self.canon_code,
            kept_names=self.kept_names,
            repair_ran=self.repair_ran,
            normalized=[self._pre[p] for p in range(count)]
            if all(p in self._pre for p in range(count))
            else None,
        )

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def n_repaired(self) -> int:
        return sum(code is not None for code in self.repaired)

    def text(self, position: int, level: str, post: bool = False) -> str:
        """One sample's normalized text at `level`; after repair its repaired program's (itself when unchanged)."""
        _check_level(level)
        repaired = self.repaired[position]
        if post and repaired is not None:
            if position not in self._post:
                self._post[position] = normalize(repaired, self.kept_names)
            return self._post[position].texts[level]
        if position not in self._pre:
            self._pre[position] = normalize(self.codes[position], self.kept_names)
        return self._pre[position].texts[level]

    def texts(self, level: str, post: bool = False) -> list[str]:
        return [self.text(position, level, post) for position in range(len(self))]

    def canon_text(self, level: str) -> str | None:
        _check_level(level)
        if self.canon_code is None:
            return None
        if self._canon is None:
            self._canon = normalize(self.canon_code, self.kept_names)
        return self._canon.texts[level]

    def _matrix_key(self, level: str, post: bool) -> tuple[str, bool]:
        return level, post and self.n_repaired > 0

    def matrix_ready(self, level: str, post: bool = False) -> bool:
        """True when `matrix(level, post)` returns at once (computed before, or there is none)."""
        return (post and not self.repair_ran) or self._matrix_key(level, post) in self._matrices

    def matrix(self, level: str, post: bool = False) -> np.ndarray | None:
        """Pairwise distances at `level`; None after repair when repair did not run."""
        if post and not self.repair_ran:
            return None
        key = self._matrix_key(level, post)
        if key not in self._matrices:
            self._matrices[key] = pairwise_matrix(self.texts(level, post=key[1]))
        return self._matrices[key]

    def order_by_canon(self) -> list[int] | None:
        """Positions sorted by d_pre (ties by position); None when the run has no canon distances."""
        if not self.d_pre or any(d is None for d in self.d_pre):
            return None
        return sorted(range(len(self)), key=lambda position: (self.d_pre[position], position))


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(
            f"unknown normalization level {level!r}; choose one of {', '.join(LEVELS)}"
        )


def stored_run_texts(run: run_store.StoredRun, analysis: StoredAnalysis) -> RunTexts:
    """The texts of a stored run from its samples and its analysis (`analyses.stored_analysis`)."""
    records = {record.index: record for record in run.samples}
    contract = run.contract_object()
    kept = contract.kept_names if contract is not None else frozenset()
    labels, codes, repaired, d_pre, d_post = [], [], [], [], []
    for sample in analysis.samples:
        record = records.get(sample.index)
        if record is None or record.code is None:
            raise ValueError(
                f"run {run.id}: the analysis has sample {sample.index}, the stored run has no code for it"
            )
        labels.append(str(sample.index))
        codes.append(record.code)
        repaired.append(sample.repair.repaired_code if sample.repair is not None else None)
        d_pre.append(sample.facts.d_pre)
        d_post.append(sample.facts.d_post)
    established = analysis.canon.established
    return RunTexts(
        run_id=run.id,
        level=analysis.level,
        labels=labels,
        codes=codes,
        repaired=repaired,
        d_pre=d_pre,
        d_post=d_post,
        canon_code=analysis.canon.code if established else None,
        kept_names=kept,
        repair_ran=established and analysis.oracle.ran,
    )


def analysis_run_texts(analysis: Any) -> RunTexts:
    """The texts of an in-memory `RunAnalysis` (the `analyze` command, the app's development path)."""
    details = {detail.index: detail for detail in analysis.details}
    repaired = []
    for sample in analysis.samples:
        result = details[sample.index].repair if sample.index in details else None
        repaired.append(result.code if result is not None and result.steps else None)
    established = analysis.canon.status == "established"
    kept = frozenset(
        analysis.run.kept_names
        | (analysis.contract.kept_names if analysis.contract else frozenset())
    )
    return RunTexts(
        run_id=analysis.run.id,
        level=analysis.level,
        labels=[str(sample.index) for sample in analysis.samples],
        codes=[details[sample.index].code for sample in analysis.samples],
        repaired=repaired,
        d_pre=[sample.d_pre for sample in analysis.samples],
        d_post=[sample.d_post for sample in analysis.samples],
        canon_code=analysis.canon.code if established else None,
        kept_names=kept,
        repair_ran=established and bool(analysis.oracle_info),
        normalized=analysis.normalized,
    )


@dataclass(frozen=True)
class RunMatrices:
    pre: np.ndarray
    post: np.ndarray | None
    """None when repair did not run (no canon); equal to `pre` when it changed no sample."""
    labels: tuple[str, ...]
    order: tuple[int, ...]
    """Positions by distance to the canon (generation order when there is none)."""


def run_matrices(run_id: str, level: str = "nodoc") -> RunMatrices:
    """The pairwise matrices of a stored run at `level`, before and after repair (analysing it if needed)."""
    run = run_store.load_run(run_store.resolve_run_id(run_id))
    texts = stored_run_texts(run, analyses.stored_analysis(run))
    pre = texts.matrix(level)
    assert pre is not None
    order = texts.order_by_canon() or list(range(len(texts)))
    return RunMatrices(
        pre=pre, post=texts.matrix(level, post=True), labels=texts.labels, order=tuple(order)
    )
