"""A stored probe as typed records, for readers such as the app (docs/probe.md).

A run's probe is stored as `probe.json` (`runs.probes.probe_stored_run` writes it, and
`load_stored_probe` adds whether its key still holds); that format does not change.
`StoredProbe.from_document` reads it once into frozen records: the per-run figures
(`probe.report.run_probe_figures`), each probed sample's record (`probe.behaviour.SampleProbe`,
as stored) and the key's staleness. The file is outside input: a field of the wrong type is read
as missing, and nothing here raises on a document of any shape. Every text in it may come from a
sample: escaping it stays the reader's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _ints(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(item for item in (_int(v) for v in value) if item is not None)


def _strs(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        return ()
    return tuple(item for item in value if isinstance(item, str))


@dataclass(frozen=True)
class WitnessRecord:
    """An input on which a sample differs, with both outputs, as stored (`Witness.to_dict`)."""

    call: str | None = None
    """The call as text, `entry(args)`."""
    sample: str | None = None
    """What the sample gave on it."""
    against: str = "reference"
    """What the sample is compared with: "reference" or "majority"."""
    expected: str | None = None
    """What `against` gave on it (the document's entry named by `against`)."""
    args_py: str | None = None
    kwargs_py: str | None = None
    expected_py: str | None = None

    @classmethod
    def from_dict(cls, values: Any) -> WitnessRecord | None:
        """None when `values` is no witness (missing, null, empty or not a mapping)."""
        if not isinstance(values, Mapping) or not values:
            return None
        against = _str(values.get("against")) or "reference"
        return cls(
            call=_str(values.get("call")),
            sample=_str(values.get("sample")),
            against=against,
            expected=_str(values.get(against)),
            args_py=_str(values.get("args_py")),
            kwargs_py=_str(values.get("kwargs_py")),
            expected_py=_str(values.get("expected_py")),
        )


@dataclass(frozen=True)
class SampleProbeRecord:
    """One probed sample's record (`SampleProbe.to_dict`, with the sample's run index)."""

    index: int
    status: str | None = None
    """"probed", or why not: "failed the tests", "no inputs", "time budget"."""
    differs_from_reference: bool | None = None
    differs_from_majority: bool | None = None
    witness: WitnessRecord | None = None
    behaviour: int | None = None
    """Its behaviour class (1-based); None when it was not probed."""
    run_status: str | None = None

    @classmethod
    def from_row(cls, row: Any) -> SampleProbeRecord | None:
        """A row of the document's `samples` ({"index", "probe"}); None without a whole-number
        index or a probe mapping."""
        if not isinstance(row, Mapping):
            return None
        index, probe = _int(row.get("index")), row.get("probe")
        if index is None or not isinstance(probe, Mapping):
            return None
        return cls(
            index=index,
            status=_str(probe.get("status")),
            differs_from_reference=_bool(probe.get("differs_from_reference")),
            differs_from_majority=_bool(probe.get("differs_from_majority")),
            witness=WitnessRecord.from_dict(probe.get("witness")),
            behaviour=_int(probe.get("behaviour")),
            run_status=_str(probe.get("run_status")),
        )


@dataclass(frozen=True)
class ProbeFigures:
    """The per-run figures (`run_probe_figures`); None where the document lacks the field. The
    probe's settings and tolerance are not read here (the settings are the key's)."""

    probe_version: str | None = None
    contract: str | None = None
    examples: int | None = None
    skipped_examples: int | None = None
    generated: int | None = None
    generated_wide: int | None = None
    documented: int | None = None
    rejected: int | None = None
    guard_rejected: int | None = None
    reference_excluded: int | None = None
    reference_hung: int | None = None
    counted: int | None = None
    counted_wide: int | None = None
    counted_majority: int | None = None
    reference: str | None = None
    """"ok", the reference job's status, or "none" (compared with the majority)."""
    probed: int | None = None
    plausible_but_wrong: int | None = None
    """None without a reference."""
    plausible_but_wrong_share: float | None = None
    unlike_majority: int | None = None
    behaviour_classes: int | None = None
    modal_class_share: float | None = None
    classes: tuple[tuple[int, ...], ...] = ()
    """Each behaviour class's members (sample indexes), in class order."""
    reference_class: int | None = None
    R_behavioral: float | None = None
    R_behavioral_probe: float | None = None
    behaviourally_unlike: tuple[int, ...] = ()
    canon_class: int | None = None
    canon_unlike_rest: bool | None = None
    note: str | None = None

    @classmethod
    def from_dict(cls, values: Any) -> ProbeFigures:
        values = _mapping(values)
        ints = {
            name: _int(values.get(name))
            for name in (
                "examples",
                "skipped_examples",
                "generated",
                "generated_wide",
                "documented",
                "rejected",
                "guard_rejected",
                "reference_excluded",
                "reference_hung",
                "counted",
                "counted_wide",
                "counted_majority",
                "probed",
                "plausible_but_wrong",
                "unlike_majority",
                "behaviour_classes",
                "reference_class",
                "canon_class",
            )
        }
        classes = values.get("classes")
        return cls(
            probe_version=_str(values.get("probe_version")),
            contract=_str(values.get("contract")),
            reference=_str(values.get("reference")),
            plausible_but_wrong_share=_float(values.get("plausible_but_wrong_share")),
            modal_class_share=_float(values.get("modal_class_share")),
            classes=tuple(_ints(members) for members in classes)
            if isinstance(classes, list | tuple)
            else (),
            R_behavioral=_float(values.get("R_behavioral")),
            R_behavioral_probe=_float(values.get("R_behavioral_probe")),
            behaviourally_unlike=_ints(values.get("behaviourally_unlike")),
            canon_unlike_rest=_bool(values.get("canon_unlike_rest")),
            note=_str(values.get("note")),
            **ints,
        )


@dataclass(frozen=True)
class StoredProbe:
    """A run's stored probe: its figures, its samples' records, and whether its key still holds."""

    figures: ProbeFigures
    samples: tuple[SampleProbeRecord, ...] = ()
    """In the stored order (the run's passing samples, by index); malformed rows are left out."""
    entry: str | None = None
    contract_id: str | None = None
    contract_version: int | None = None
    key_probe_version: str | None = None
    """The probe version the stored probe was made with (its key's)."""
    stale: bool = False
    """Its key no longer holds (`load_stored_probe`): shown as such, never used."""
    stale_because: tuple[str, ...] = ()
    """The key's fields that changed: `samples_sha256`, `contract_hash`, `settings`,
    `probe_version`, `oracle_version`."""
    document: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The stored document this record was read from, for what writes that format out again
    (`report --json`'s probe figures); not to be changed."""
    by_index: Mapping[int, SampleProbeRecord] = field(init=False, repr=False, compare=False)
    """Run sample index → its probe record (of two rows with one index, the later counts)."""

    def __post_init__(self) -> None:
        by_index = MappingProxyType({record.index: record for record in self.samples})
        object.__setattr__(self, "by_index", by_index)

    @property
    def older_version(self) -> bool:
        """Stale because it was made with another probe version."""
        return "probe_version" in self.stale_because

    @property
    def stored_figures(self) -> Mapping[str, Any] | None:
        """The per-run figures as the document stores them (its `run`, every field kept, the
        probe's settings and tolerance too), for writing that format out again; None when the
        document has no figures mapping. Read them through `figures`."""
        stored = self.document.get("run")
        return stored if isinstance(stored, Mapping) else None

    @classmethod
    def from_document(cls, document: Any) -> StoredProbe:
        """The records of a stored probe document (as `load_stored_probe` or `probe_stored_run`
        return it); any shape reads, what is missing or of the wrong type is left out."""
        values = _mapping(document)
        rows = values.get("samples")
        records = (
            tuple(r for r in (SampleProbeRecord.from_row(row) for row in rows) if r is not None)
            if isinstance(rows, list | tuple)
            else ()
        )
        return cls(
            figures=ProbeFigures.from_dict(values.get("run")),
            samples=records,
            entry=_str(values.get("entry")),
            contract_id=_str(values.get("contract_id")),
            contract_version=_int(values.get("contract_version")),
            key_probe_version=_str(_mapping(values.get("key")).get("probe_version")),
            stale=values.get("stale") is True,
            stale_because=_strs(values.get("stale_because")),
            document=values,
        )


def read_probe(probe: StoredProbe | Mapping[str, Any] | None) -> StoredProbe | None:
    """A probe as its record: a record as it is, a document read (`StoredProbe.from_document`)."""
    if probe is None or isinstance(probe, StoredProbe):
        return probe
    return StoredProbe.from_document(probe)
