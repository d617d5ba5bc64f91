"""The canon: one immutable reference program per contract (docs/canon.md).

The canon is fixed by the first sample, in generation order, that parses and
passes the oracle. It is stored with its normalized texts and signatures at
every level, a snapshot of the contract and its hash, the versions it was made
under and where it came from; a content hash over all of that detects edits.

Write-once: `establish_canon` refuses when a canon exists. A canon made under
other normalization/oracle/distance versions, or for a changed contract, is
*stale*: it is shown but not used until the user re-establishes it, which is
the only way to replace a canon, is logged, and keeps the old one in history.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.contracts.contract import (
    Contract,
    check_contract_id,
    contract_to_toml_dict,
    is_contract_id,
)
from skyt_tui.engine.errors import NotFoundError, SkytError, StoreError
from skyt_tui.engine.measure.normalize import LEVELS, NORMALIZATION_VERSION, normalize
from skyt_tui.engine.versions import CANON_VERSION, DISTANCE_FUNCTION  # noqa: F401 (CANON_VERSION re-exported)

if TYPE_CHECKING:
    from skyt_tui.engine.executor.choice import Judge
    from skyt_tui.engine.oracle.verdicts import Verdict

CANON_KIND = "canon"
STATUS_OK = "ok"
STATUS_STALE = "stale"
STATUS_TAMPERED = "tampered"
STATUS_MISSING = "missing"
STATUS_CORRUPT = "corrupt"


class CanonExistsError(SkytError):
    """A canon is write-once; replacing it needs `canon reestablish`."""


def current_versions(oracle_version: str) -> dict[str, str]:
    return {
        "normalization": NORMALIZATION_VERSION,
        "oracle": oracle_version,
        "distance": DISTANCE_FUNCTION,
    }


@dataclass(frozen=True)
class Provenance:
    run_id: str
    sample_index: int
    provider: str | None = None
    model: str | None = None
    temperature: float | None = None
    established_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "sample_index": self.sample_index,
            "provider": self.provider,
            "model": self.model,
            "temperature": self.temperature,
            "established_at": self.established_at,
        }


@dataclass(frozen=True)
class Canon:
    contract_id: str
    code: str
    texts: dict[str, str]
    signatures: dict[str, str]
    contract_snapshot: dict[str, Any]
    contract_hash: str
    versions: dict[str, str]
    provenance: dict[str, Any]
    content_hash: str = ""

    def body(self) -> dict[str, Any]:
        """Everything the content hash covers."""
        return {
            "contract_id": self.contract_id,
            "code": self.code,
            "texts": dict(sorted(self.texts.items())),
            "signatures": dict(sorted(self.signatures.items())),
            "contract": self.contract_snapshot,
            "contract_hash": self.contract_hash,
            "versions": dict(sorted(self.versions.items())),
            "provenance": self.provenance,
        }

    def compute_hash(self) -> str:
        canonical = json.dumps(self.body(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def to_document(self) -> dict[str, Any]:
        return {**self.body(), "content_hash": self.content_hash}

    def text(self, level: str) -> str:
        return self.texts[level]


@dataclass(frozen=True)
class CanonState:
    """What the store holds for a contract, and whether it may be used."""

    contract_id: str
    status: str
    canon: Canon | None = None
    reasons: tuple[str, ...] = ()
    path: Path | None = field(default=None, compare=False)

    @property
    def usable(self) -> bool:
        return self.status == STATUS_OK and self.canon is not None

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)


def canon_path(contract_id: str) -> Path:
    return locations.canon_dir() / f"{check_contract_id(contract_id)}.json"


def history_path(contract_id: str) -> Path:
    return locations.canon_dir() / f"{check_contract_id(contract_id)}.history.jsonl"


def build_canon(
    contract: Contract, code: str, provenance: Provenance, oracle_version: str
) -> Canon:
    """A canon document for `code` (the caller guarantees it parsed and passed the oracle)."""
    normalized = normalize(code, contract.kept_names)
    if normalized.parse_error:
        raise SkytError(
            f"contract {contract.id}: a sample that does not parse can never become canon"
        )
    if not provenance.established_at:
        provenance = replace(provenance, established_at=_now())
    canon = Canon(
        contract_id=contract.id,
        code=normalized.texts["raw"],
        texts=dict(normalized.texts),
        signatures=dict(normalized.signatures),
        contract_snapshot=contract_to_toml_dict(contract),
        contract_hash=contract.content_hash(),
        versions=current_versions(oracle_version),
        provenance=provenance.to_dict(),
    )
    return replace(canon, content_hash=canon.compute_hash())


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


_DOCUMENT_TYPES = {
    "contract_id": str,
    "code": str,
    "texts": dict,
    "signatures": dict,
    "contract": dict,
    "contract_hash": str,
    "versions": dict,
    "provenance": dict,
    "content_hash": str,
}


def _from_document(document: dict[str, Any], path: Path) -> Canon:
    for key, kind in _DOCUMENT_TYPES.items():
        if key in document and not isinstance(document[key], kind):
            raise StoreError(f"{path}: corrupt canon: {key} is not a JSON {kind.__name__}")
    texts = document.get("texts") or {}
    if not all(isinstance(text, str) for text in texts.values()):
        raise StoreError(f"{path}: corrupt canon: texts must be strings")
    try:
        return Canon(
            contract_id=document["contract_id"],
            code=document["code"],
            texts=document["texts"],
            signatures=document["signatures"],
            contract_snapshot=document["contract"],
            contract_hash=document["contract_hash"],
            versions=document["versions"],
            provenance=document["provenance"],
            content_hash=document["content_hash"],
        )
    except (KeyError, TypeError) as exc:
        raise StoreError(f"{path}: corrupt canon: missing field {exc}") from None


def load_canon(
    contract_id: str, *, contract: Contract | None = None, oracle_version: str | None = None
) -> CanonState:
    """The stored canon and its integrity: ok, stale (versions/contract changed), tampered, corrupt, missing."""
    path = canon_path(contract_id)
    try:
        document = store.read_json(path, kind=CANON_KIND)
        canon = _from_document(document, path)
    except FileNotFoundError:
        return CanonState(contract_id, STATUS_MISSING, path=path)
    except StoreError as exc:
        return CanonState(contract_id, STATUS_CORRUPT, reasons=(str(exc),), path=path)
    if canon.compute_hash() != canon.content_hash:
        return CanonState(
            contract_id,
            STATUS_TAMPERED,
            canon,
            (f"{path}: content does not match its stored hash; not used",),
            path,
        )
    reasons = []
    if oracle_version is not None:
        for name, value in current_versions(oracle_version).items():
            stored = canon.versions.get(name)
            if stored != value:
                reasons.append(f"{name} version {stored} → {value}")
    if contract is not None and canon.contract_hash != contract.content_hash():
        reasons.append("the contract changed since the canon was made")
    if set(canon.texts) != set(LEVELS):
        reasons.append("normalization levels differ")
    if reasons:
        return CanonState(contract_id, STATUS_STALE, canon, tuple(reasons), path)
    return CanonState(contract_id, STATUS_OK, canon, path=path)


def establish_canon(canon: Canon) -> Canon:
    """Store a first canon; refused if any canon (even stale or damaged) exists for the contract."""
    path = canon_path(canon.contract_id)
    with store.store_lock():
        store.check_writable(path, history_path(canon.contract_id))
        if path.exists():
            raise CanonExistsError(
                f"{path}: contract {canon.contract_id} already has a canon; it is write-once "
                f"(use `skyt-tui canon reestablish {canon.contract_id} --from RUN` to replace it)"
            )
        store.write_json(path, canon.to_document(), kind=CANON_KIND)
        store.append_jsonl(
            history_path(canon.contract_id),
            {
                "event": "established",
                "at": canon.provenance.get("established_at", ""),
                "canon": canon.to_document(),
            },
        )
    return canon


def reestablish_canon(canon: Canon, *, reason: str) -> Canon:
    """Replace the canon (explicit user action): the old one goes to history first, then the new is written."""
    path = canon_path(canon.contract_id)
    with store.store_lock():
        old: dict[str, Any] | None = None
        store.check_writable(path, history_path(canon.contract_id))
        if path.exists():
            raw = store.read_bytes(path)
            try:
                old = store.loads_json(raw)
            except store.JsonProblem:
                old = {"unreadable": raw.decode("utf-8", "replace")}
        store.append_jsonl(
            history_path(canon.contract_id),
            {
                "event": "reestablished",
                "at": canon.provenance.get("established_at", ""),
                "reason": reason,
                "previous": old,
                "canon": canon.to_document(),
            },
        )
        store.write_json(path, canon.to_document(), kind=CANON_KIND)
    return canon


def canon_history(contract_id: str) -> list[dict[str, Any]]:
    """The canon's history log as stored, one document per event (`canon history --json`);
    `canon_events` reads it into records."""
    path = history_path(contract_id)
    try:
        return store.read_jsonl(path)
    except FileNotFoundError:
        return []


@dataclass(frozen=True)
class CanonEvent:
    """One event of a canon's history, as `canon history` and the app's Canon section show it.
    The log is a file of the store, so every value is read defensively: a field of the wrong
    type reads as missing (None, or empty text)."""

    event: str | None
    """"established" or "reestablished"."""
    at: str
    """When the canon was established (its provenance's `established_at`), ISO 8601."""
    reason: str
    """Why it was re-established (empty for a first canon)."""
    run_id: str | None
    sample_index: int | None
    content_hash: str
    """The canon's content hash (empty when the log does not hold it)."""

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CanonEvent:
        canon = _mapping(record.get("canon"))
        provenance = _mapping(canon.get("provenance"))
        index = provenance.get("sample_index")
        return cls(
            event=_text(record.get("event")) or None,
            at=_text(record.get("at")),
            reason=_text(record.get("reason")),
            run_id=_text(provenance.get("run_id")) or None,
            sample_index=index if isinstance(index, int) and not isinstance(index, bool) else None,
            content_hash=_text(canon.get("content_hash")),
        )


def canon_events(contract_id: str) -> list[CanonEvent]:
    """The canon's history as records, oldest first (StoreError when the log is damaged)."""
    return [CanonEvent.from_record(record) for record in canon_history(contract_id)]


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def list_canons() -> list[str]:
    """The contract ids with a canon file (a file whose name is not a contract id is not one)."""
    directory = locations.canon_dir()
    if not directory.is_dir():
        return []
    return sorted(p.stem for p in directory.glob("*.json") if is_contract_id(p.stem))


def require_canon(contract_id: str) -> CanonState:
    state = load_canon(contract_id)
    if state.status == STATUS_MISSING:
        raise NotFoundError(
            f"contract {contract_id!r} has no canon yet (run or import samples for it first)"
        )
    return state


def first_canon_candidate(
    verdicts_passed: Sequence[bool | None],
    parse_errors: Iterable[bool],
    compliant: Sequence[bool | None] | None = None,
) -> int | None:
    """The canon rule (docs/canon.md): the position of the first sample, in generation order,
    that parses and passed the oracle; None when none does. With `compliant` (a contract with
    coding rules, as SKYT's strict contracts), the first such sample that also complies, and
    only when none does the first that passes (SKYT then rewrites that one to comply; skyt-tui
    never rewrites a canon).

    `parse_errors` is read only as far as the answer needs, so it may be a generator that
    normalizes each sample when asked.
    """
    first: int | None = None
    for position, (passed, parse_error) in enumerate(zip(verdicts_passed, parse_errors)):
        if passed and not parse_error:
            if compliant is None or compliant[position] is not False:
                return position
            if first is None:
                first = position
    return first


def first_canon_sample(contract: Contract, codes: Sequence[str], oracle: Judge) -> int | None:
    """The canon rule on one run's samples (generation order): the oracle judges them, each
    distinct program once, and the position of the first that parses and passes comes back."""
    verdicts = oracle.check_many(
        [(contract, code) for code in codes], dedupe=True, verdict_only=True
    )
    return first_canon_candidate(
        [verdict.passed for verdict in verdicts],
        (normalize(code, contract.kept_names).parse_error for code in codes),
        compliance_of(verdicts),
    )


def compliance_of(verdicts: Sequence[Verdict]) -> list[bool | None] | None:
    """Each verdict's compliance (None when the contract has no coding rules), for the canon rule."""
    records = [getattr(v, "compliance", None) for v in verdicts]
    if all(record is None for record in records):
        return None
    return [None if record is None else record.compliant for record in records]
