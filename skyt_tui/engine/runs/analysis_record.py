"""A stored analysis as typed records, for readers such as the app (docs/json.md).

The analysis of a run is stored (and cached next to it) as the document `RunAnalysis.to_dict()`
writes; that format does not change. `StoredAnalysis.from_document` reads it once into frozen
records: the metrics as `RunMetrics`, each sample's facts as the `SampleAnalysis` the metrics were
computed from, with its oracle verdict and repair, the canon and how the oracle ran. The document
itself stays with the record for what writes the stored format out again (reports, CSV, exports).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.measure.metrics import CANON_ESTABLISHED, RunMetrics
from skyt_tui.engine.measure.records import SampleAnalysis


@dataclass(frozen=True)
class TestSummary:
    """One test of an oracle verdict; every text in it may come from the sample (show it printable)."""

    name: str | None
    kind: str | None
    passed: bool | None
    actual: Any = None
    """What the sample returned, as the oracle recorded it (None when it returned nothing)."""
    error_type: str | None = None
    error_message: str | None = None


@dataclass(frozen=True)
class ViolationSummary:
    """One broken coding rule of a sample: rule id, line (None: no one line), what is wrong."""

    rule: str
    line: int | None = None
    message: str = ""
    pattern: str | None = None


@dataclass(frozen=True)
class ComplianceSummary:
    compliant: bool
    violations: tuple[ViolationSummary, ...] = ()


@dataclass(frozen=True)
class OracleSummary:
    """A sample's oracle verdict, as the analysis stores it."""

    passed: bool | None
    """Passed under the contract's pass threshold."""
    status: str | None = None
    reason: str | None = None
    pass_fraction: float | None = None
    tests: tuple[TestSummary, ...] = ()
    passed_all: bool | None = None
    """Passed every test (None in analyses stored before it was recorded)."""
    threshold: float | None = None
    tests_passed: int | None = None
    tests_total: int | None = None
    compliance: ComplianceSummary | None = None
    """The contract's coding rules (None when it has none)."""

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> OracleSummary:
        """A verdict as the analysis stores it (`oracle`, `oracle_after_repair` of a sample)."""
        compliance = values.get("compliance")
        return cls(
            passed=values.get("passed"),
            status=values.get("status"),
            reason=values.get("reason"),
            pass_fraction=values.get("pass_fraction"),
            tests=tuple(TestSummary(**_known(TestSummary, t)) for t in values.get("tests") or ()),
            passed_all=values.get("passed_all"),
            threshold=values.get("threshold"),
            tests_passed=values.get("tests_passed"),
            tests_total=values.get("tests_total"),
            compliance=None
            if compliance is None
            else ComplianceSummary(
                compliant=bool(compliance["compliant"]),
                violations=tuple(
                    ViolationSummary(**_known(ViolationSummary, v))
                    for v in compliance.get("violations") or ()
                ),
            ),
        )


@dataclass(frozen=True)
class RepairStepSummary:
    transformer: str
    d_before: float | None
    d_after: float | None
    sites: int | None = None
    """Rewrite sites the step changed (None in analyses stored before it was recorded)."""


@dataclass(frozen=True)
class RepairSummary:
    steps: tuple[RepairStepSummary, ...] = ()
    candidates_checked: int = 0
    repaired_code: str | None = None


@dataclass(frozen=True)
class AnalysedSample:
    """One analysed sample: the facts its metrics read, and what a person inspecting it wants."""

    facts: SampleAnalysis
    oracle: OracleSummary | None = None
    repair: RepairSummary | None = None
    oracle_after_repair: OracleSummary | None = None

    @property
    def index(self) -> int:
        return self.facts.index

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> AnalysedSample:
        """A sample as the analysis stores it (an entry of its `samples`)."""
        return cls(
            facts=_facts(values),
            oracle=_verdict(values.get("oracle")),
            repair=_repair(values.get("repair")),
            oracle_after_repair=_verdict(values.get("oracle_after_repair")),
        )


@dataclass(frozen=True)
class CanonSummary:
    """The canon the run was measured against (`analysis.pipeline.CanonInfo`, as stored)."""

    status: str | None = None
    source: str = ""
    sample_index: int | None = None
    run_id: str | None = None
    code: str | None = None
    reason: str = ""

    @property
    def established(self) -> bool:
        return self.status == CANON_ESTABLISHED

    def to_dict(self) -> dict[str, Any]:
        """The canon as the analysis stores it (`CanonInfo.to_dict`), for reports."""
        return {
            "status": self.status,
            "source": self.source,
            "sample_index": self.sample_index,
            "run_id": self.run_id,
            "code": self.code,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class OracleRun:
    """How the oracle ran for the analysis; `isolation` None when it did not run."""

    version: str | None = None
    isolation: str | None = None
    layers: tuple[str, ...] = ()

    @property
    def ran(self) -> bool:
        """The oracle judged the samples (the analysis stores its version only then)."""
        return self.version is not None

    def to_dict(self) -> dict[str, Any]:
        """How the oracle ran as the analysis stores it (empty when it did not), for reports."""
        if not self.ran:
            return {}
        return {"version": self.version, "isolation": self.isolation, "layers": list(self.layers)}


@dataclass(frozen=True)
class StoredAnalysis:
    run_id: str
    contract_id: str | None
    model: str | None
    temperature: float | None
    level: str
    metrics: RunMetrics
    canon: CanonSummary
    oracle: OracleRun
    samples: tuple[AnalysedSample, ...]
    """In index order, as analysed (samples without code are not in it)."""
    document: dict[str, Any] = field(repr=False, compare=False)
    """The stored document this record was read from, for what writes that format out again
    (reports, CSV, exports); not to be changed."""
    limited: Mapping[int, str] = field(default_factory=dict)
    """Run sample index → why the analysis did not parse it (a program over the parse bound; the
    sample is analysed and counted all the same, its record says what was not done)."""
    by_index: Mapping[int, AnalysedSample] = field(init=False, repr=False, compare=False)
    """Run sample index → analysed sample."""

    def __post_init__(self) -> None:
        by_index = MappingProxyType({sample.index: sample for sample in self.samples})
        object.__setattr__(self, "by_index", by_index)

    def sample(self, index: int) -> AnalysedSample | None:
        """The analysed sample with run index `index`, if it was analysed."""
        return self.by_index.get(index)

    @classmethod
    def from_document(cls, document: dict[str, Any]) -> StoredAnalysis:
        """The records of a stored analysis; StoreError naming the run and what is wrong when
        the document is not one the pipeline writes."""
        run_id = document.get("id") if isinstance(document, Mapping) else None
        try:
            return cls(
                run_id=str(document["id"]),
                contract_id=document.get("contract_id"),
                model=document.get("model"),
                temperature=document.get("temperature"),
                level=str(document.get("level") or document["metrics"]["level"]),
                metrics=_metrics(document["metrics"]),
                canon=CanonSummary(**_known(CanonSummary, document.get("canon") or {})),
                oracle=_oracle_run(document.get("oracle") or {}),
                samples=tuple(
                    AnalysedSample.from_dict(sample) for sample in document.get("samples") or ()
                ),
                document=dict(document),
                limited={
                    int(entry["index"]): str(entry["reason"])
                    for entry in document.get("limited") or ()
                },
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StoreError(
                f"analysis of run {run_id!r}: not an analysis this skyt-tui writes ({exc!r})"
            ) from None


def _known(cls: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `values` that are fields of the dataclass `cls` (newer documents may hold more)."""
    names = {f.name for f in fields(cls)}
    return {key: value for key, value in values.items() if key in names}


def _metrics(values: Mapping[str, Any]) -> RunMetrics:
    known = _known(RunMetrics, values)
    if "ci" in known:
        known["ci"] = {name: (low, high) for name, (low, high) in known["ci"].items()}
    if "invariant_violations" in known:
        known["invariant_violations"] = tuple(known["invariant_violations"])
    return RunMetrics(**known)


def _optional_tuple(values: Any) -> tuple[Any, ...] | None:
    return None if values is None else tuple(values)


def _facts(values: Mapping[str, Any]) -> SampleAnalysis:
    return SampleAnalysis(
        index=int(values["index"]),
        signatures=dict(values.get("signatures") or {}),
        parse_error=bool(values.get("parse_error")),
        passed=values.get("passed"),
        passed_all=values.get("passed_all"),
        compliant=values.get("compliant"),
        pass_vector=_optional_tuple(values.get("pass_vector")),
        outputs=_optional_tuple(values.get("outputs")),
        d_pre=values.get("d_pre"),
        d_post=values.get("d_post"),
        repair_steps=tuple(values.get("repair_steps") or ()),
        limited=values.get("limited"),
        d_bound=bool(values.get("d_bound")),
    )


def _verdict(values: Mapping[str, Any] | None) -> OracleSummary | None:
    return None if values is None else OracleSummary.from_dict(values)


def _repair(values: Mapping[str, Any] | None) -> RepairSummary | None:
    if values is None:
        return None
    return RepairSummary(
        steps=tuple(
            RepairStepSummary(**_known(RepairStepSummary, step))
            for step in values.get("steps") or ()
        ),
        candidates_checked=int(values.get("candidates_checked") or 0),
        repaired_code=values.get("repaired_code"),
    )


def _oracle_run(values: Mapping[str, Any]) -> OracleRun:
    return OracleRun(
        version=values.get("version"),
        isolation=values.get("isolation"),
        layers=tuple(values.get("layers") or ()),
    )
