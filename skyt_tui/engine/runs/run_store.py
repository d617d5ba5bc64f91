"""Stored runs: `runs/<run-id>/run.json`, an append-only `samples.jsonl`, a cached analysis.

- `run.json` — what the run is (contract id, hash and snapshot, provider and its
  settings, model, temperature, n, seed, label/note, origin) and its status;
- `samples.jsonl` — one `SampleRecord` a line, appended and fsynced as each
  sample finishes; a later line for the same index supersedes an earlier one
  (only `resume --retry-failed` writes one), so the log is never rewritten;
- `analysis.json` — the last `analyze_run` result with the key it was made
  under (samples digest, level, τ, pipeline versions, contract hash, canon
  digest); any change to one of them recomputes it.
A run directory appears whole: it is built under a dot-name and renamed into
place. Only the process holding a run's lock (`run_lock`) appends to it or
changes its status, so two processes cannot resume the same run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.contracts.contract import (
    CONTRACT_SCHEMA_VERSION,
    Contract,
    check_contract_id,
    contract_from_dict,
    contract_to_toml_dict,
    is_contract_id,
)
from skyt_tui.engine.errors import (
    ContractError,
    InputError,
    NotFoundError,
    SkytError,
    StoreError,
)

if TYPE_CHECKING:
    pass

RUN_KIND = "run"
SAMPLE_KIND = "sample"
ANALYSIS_KIND = "analysis"
RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
ANALYSIS_FILE = "analysis.json"
LOCK_FILE = ".lock"

RUNNING, COMPLETE, INTERRUPTED, ABORTED = "running", "complete", "interrupted", "aborted"
RUN_FAILED = "failed"
"""Every sample finished and none produced code (e.g. a command provider that always exits 1)."""
STATUSES = (RUNNING, COMPLETE, INTERRUPTED, ABORTED, RUN_FAILED)
OK, FAILED = "ok", "failed"


def utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class RunMeta:
    id: str
    contract_id: str
    provider: str
    model: str | None
    temperature: float | None
    n: int
    created: str
    status: str = RUNNING
    seed: int | None = None
    contract_hash: str | None = None
    contract: dict[str, Any] | None = None
    """Snapshot of the contract (its TOML document) the run was made against."""
    provider_settings: dict[str, Any] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)
    """What every request carried besides prompt/model/temperature/seed: max_tokens, system."""
    label: str = ""
    note: str = ""
    origin: dict[str, Any] = field(default_factory=dict)
    """How the run came to be: {"kind": "live"|"import"|"demo", ...}."""
    sweep: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path) -> RunMeta:
        def bad(key: str, reason: str) -> StoreError:
            return StoreError(f"{path}: corrupt run file: {key}: {reason}")

        for key in ("id", "contract_id", "provider", "created", "status"):
            if not isinstance(data.get(key), str) or not data[key]:
                raise bad(key, "missing or not a string")
        if not RUN_ID_PATTERN.fullmatch(data["id"]):
            raise bad("id", "not a run id")
        if not is_contract_id(data["contract_id"]):
            raise bad("contract_id", "not a contract id")
        for key in ("model", "contract_hash", "sweep"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise bad(key, "not a string")
        for key in ("label", "note"):
            if not isinstance(data.get(key, ""), str):
                raise bad(key, "not a string")
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise bad("seed", "not an integer")
        if data["status"] not in STATUSES:
            raise bad("status", f"unknown status {data['status']!r}")
        if not isinstance(data.get("n"), int) or isinstance(data["n"], bool) or data["n"] < 0:
            raise bad("n", "missing or not a non-negative integer")
        temperature = data.get("temperature")
        if temperature is not None and (
            isinstance(temperature, bool) or not isinstance(temperature, int | float)
        ):
            raise bad("temperature", "not a number")
        for key in ("contract", "provider_settings", "request", "origin"):
            if data.get(key) is not None and not isinstance(data[key], dict):
                raise bad(key, "not an object")
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        if temperature is not None:
            values["temperature"] = float(temperature)
        for key in ("provider_settings", "request", "origin"):
            values[key] = values.get(key) or {}
        return cls(**values)


@dataclass(frozen=True)
class SampleRecord:
    index: int
    status: str
    response: str | None = None
    """The full answer text as received (None when nothing usable came back)."""
    code: str | None = None
    """The extracted code; None for a failed sample."""
    extraction: str | None = None
    finish_reason: str | None = None
    truncated: bool = False
    usage: dict[str, int] | None = None
    latency_s: float | None = None
    model: str | None = None
    """The model id the service returned."""
    seed: int | None = None
    """The seed sent with the request; None when none was sent."""
    attempts: int = 1
    error: str | None = None
    finished: str | None = None
    prompt: str | None = None
    """The prompt actually sent, when an imported source recorded it (a live run's is the
    contract's prompt); absent from records written before it existed."""
    recorded_verdict: dict[str, Any] | None = None
    """An imported sample's verdict by the tool that recorded it (`{"tool", "passed",
    "detail"}`), kept beside skyt-tui's own; absent from older records."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path) -> SampleRecord:
        index = data.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise StoreError(
                f"{path}: corrupt sample record: index {index!r} is not a non-negative integer"
            )
        if data.get("status") not in (OK, FAILED):
            raise StoreError(
                f"{path}: corrupt sample record {index}: unknown status {data.get('status')!r}"
            )
        if data["status"] == OK and not isinstance(data.get("code"), str):
            raise StoreError(f"{path}: corrupt sample record {index}: status ok without code")
        for key in (
            "response",
            "code",
            "extraction",
            "finish_reason",
            "model",
            "error",
            "finished",
        ):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise StoreError(f"{path}: corrupt sample record {index}: {key} is not a string")
        for key, kinds in (("latency_s", (int, float)), ("seed", (int,)), ("attempts", (int,))):
            value = data.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
                raise StoreError(f"{path}: corrupt sample record {index}: {key} is not a number")
        usage = data.get("usage")
        if usage is not None and not (
            isinstance(usage, dict)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in usage.values())
        ):
            raise StoreError(f"{path}: corrupt sample record {index}: usage is not token counts")
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in known})


@dataclass(frozen=True)
class StoredRun:
    meta: RunMeta
    samples: tuple[SampleRecord, ...]
    """The current record of each finished index, ordered by index."""
    directory: Path
    damaged: tuple[str, ...] = ()
    """Torn records in samples.jsonl ("FILE: line N: …"); with a sample missing, the run is damaged."""

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def state(self) -> str:
        return run_state(self.meta, self.samples, self.damaged)

    @property
    def finished_indexes(self) -> frozenset[int]:
        return frozenset(s.index for s in self.samples)

    @property
    def missing_indexes(self) -> list[int]:
        done = self.finished_indexes
        return [i for i in range(self.meta.n) if i not in done]

    @property
    def n_ok(self) -> int:
        return sum(1 for s in self.samples if s.status == OK)

    @property
    def n_failed(self) -> int:
        return sum(1 for s in self.samples if s.status == FAILED)

    @property
    def n_truncated(self) -> int:
        return sum(1 for s in self.samples if s.truncated)

    def contract_object(self) -> Contract | None:
        """The contract snapshot as a `Contract` (None for imports whose contract was unavailable)."""
        if self.meta.contract is None:
            return None
        try:
            return contract_from_dict(
                {"schema_version": CONTRACT_SCHEMA_VERSION, **self.meta.contract},
                self.directory / RUN_FILE,
            )
        except ContractError as exc:
            raise StoreError(
                f"{self.directory / RUN_FILE}: corrupt contract snapshot: {exc}"
            ) from None


@dataclass(frozen=True)
class RunSummary:
    id: str
    meta: RunMeta | None
    n_ok: int = 0
    n_failed: int = 0
    n_truncated: int = 0
    state: str = ""
    error: str | None = None


# --- ids, creation ------------------------------------------------------------------------


def _temperature_label(temperature: float | None) -> str:
    return "" if temperature is None else f"-t{temperature:g}"


def new_run_id(
    contract_id: str,
    temperature: float | None,
    when: datetime | None = None,
    suffix: str | None = None,
) -> str:
    """`20261122-101500-fibonacci_iterative-t0.7-ab12`: sorts by creation time, unique by suffix."""
    when = when or datetime.now(UTC)
    suffix = suffix or secrets.token_hex(2)
    return f"{when:%Y%m%d-%H%M%S}-{contract_id}{_temperature_label(temperature)}-{suffix}"


def _sample_line(record: SampleRecord) -> str:
    """Exactly the line `store.append_jsonl` writes for this record."""
    document = {"schema_version": store.SCHEMA_VERSION, "kind": SAMPLE_KIND, **record.to_dict()}
    return json.dumps(document, sort_keys=True, ensure_ascii=False)


def create_run(
    *,
    contract_id: str,
    provider: str,
    model: str | None,
    temperature: float | None,
    n: int,
    contract: Contract | None = None,
    seed: int | None = None,
    provider_settings: dict[str, Any] | None = None,
    request: dict[str, Any] | None = None,
    label: str = "",
    note: str = "",
    origin: dict[str, Any] | None = None,
    sweep: str | None = None,
    samples: Iterable[SampleRecord] = (),
    status: str = RUNNING,
    created: datetime | None = None,
    id_suffix: str | None = None,
) -> RunMeta:
    """Create a run directory whole (metadata and any given samples) and return its metadata."""
    check_contract_id(contract_id)  # it becomes part of the run id, a folder name
    if n < 0:
        raise InputError(f"-n must be at least 0, not {n}")
    created_at = created or datetime.now(UTC)
    records = sorted(samples, key=lambda s: s.index)
    if any(not 0 <= s.index < n for s in records):
        raise InputError(f"sample indexes must lie in [0, {n})")
    meta = RunMeta(
        id="",
        contract_id=contract_id,
        provider=provider,
        model=model,
        temperature=temperature,
        n=n,
        created=created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        status=status,
        seed=seed,
        contract_hash=contract.content_hash() if contract else None,
        contract=contract_to_toml_dict(contract) if contract else None,
        provider_settings=dict(provider_settings or {}),
        request=dict(request or {}),
        label=label,
        note=note,
        origin=dict(origin or {}),
        sweep=sweep,
    )
    runs_dir = locations.runs_dir()
    store.make_dirs(runs_dir)
    with store.store_lock():
        for attempt in range(16):
            if id_suffix is None:
                suffix = secrets.token_hex(2)
            else:
                suffix = (
                    id_suffix
                    if attempt == 0
                    else hashlib.sha256(f"{id_suffix}:{attempt}".encode()).hexdigest()[:4]
                )
            run_id = new_run_id(contract_id, temperature, created_at, suffix)
            if not (runs_dir / run_id).exists():
                break
        else:
            raise StoreError(f"{runs_dir}: cannot find a free run id for {contract_id!r}")
        meta = replace(meta, id=run_id)
        staging = runs_dir / f".new-{run_id}-{secrets.token_hex(4)}"
        try:
            staging.mkdir()
        except OSError as exc:
            raise store.write_failure(runs_dir / run_id, exc) from None
        try:
            if records:
                text = "".join(_sample_line(r) + "\n" for r in records)
                store.atomic_write_text(staging / SAMPLES_FILE, text)
            store.write_json(staging / RUN_FILE, meta.to_dict(), kind=RUN_KIND)
            os.rename(staging, runs_dir / run_id)
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            if isinstance(exc, OSError):
                raise store.write_failure(runs_dir / run_id, exc) from None
            raise
        store.fsync_dir(runs_dir)
    return meta


# --- reading ------------------------------------------------------------------------------


RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
"""A run id (`new_run_id`: time, contract id, temperature, suffix), matched whole."""


def run_path(run_id: str) -> Path:
    """The run's folder; an id that is not a run id (`../x`, a newline) never becomes a path."""
    if not isinstance(run_id, str) or not RUN_ID_PATTERN.fullmatch(run_id):
        raise InputError(f"run {run_id!r}: not a valid run id")
    return locations.run_dir(run_id)


def load_meta(run_id: str) -> RunMeta:
    path = run_path(run_id) / RUN_FILE
    try:
        document = store.read_json(path, kind=RUN_KIND)
    except FileNotFoundError:
        raise NotFoundError(f"run {run_id!r}: not found (see `skyt-tui runs list`)") from None
    return RunMeta.from_dict(document, path)


def load_samples(
    run_id: str, n: int | None = None, damaged: list[str] | None = None
) -> tuple[SampleRecord, ...]:
    """The current record of each finished index; torn lines are listed in `damaged`."""
    path = run_path(run_id) / SAMPLES_FILE
    try:
        rows = store.read_jsonl(path, damaged=damaged)
    except FileNotFoundError:
        return ()
    current: dict[int, SampleRecord] = {}
    for row in rows:
        if row.get("kind") != SAMPLE_KIND:
            raise StoreError(
                f"{path}: corrupt record: kind is {row.get('kind')!r}, expected 'sample'"
            )
        record = SampleRecord.from_dict(row, path)
        if n is not None and record.index >= n:
            raise StoreError(
                f"{path}: corrupt sample record: index {record.index} is beyond the run's n = {n}"
            )
        current[record.index] = record
    return tuple(current[i] for i in sorted(current))


def load_run(run_id: str) -> StoredRun:
    meta = load_meta(run_id)
    damaged: list[str] = []
    samples = load_samples(run_id, meta.n, damaged)
    return StoredRun(meta=meta, samples=samples, directory=run_path(run_id), damaged=tuple(damaged))


def broken_run_dirs() -> list[Path]:
    """Run folders without a run.json (not staging folders): listed as damaged, never skipped."""
    directory = locations.runs_dir()
    if not directory.is_dir():
        return []
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_dir()
        and not p.name.startswith(".")
        and not (RUN_ID_PATTERN.fullmatch(p.name) and os.path.lexists(p / RUN_FILE))
    )


def run_ids(directory: Path | None = None) -> list[str]:
    """The stored runs' ids: folders named like a run id that hold a run.json (anything else
    in runs/ is not a run: `broken_run_dirs` lists the folders among it). `directory`: another
    store's runs folder (the demo's) instead of the open store's."""
    directory = locations.runs_dir() if directory is None else directory
    if not directory.is_dir():
        return []
    return sorted(
        p.name
        for p in directory.iterdir()
        if RUN_ID_PATTERN.fullmatch(p.name) and p.is_dir() and os.path.lexists(p / RUN_FILE)
    )


def no_runs_yet() -> str:
    """What to say when the open store has no run: where to get one, or, after `skyt-tui demo`,
    that the demo's runs are in the demo's own store and how to open it."""
    if not locations.is_demo_store():
        demo_runs = len(run_ids(locations.demo_runs_dir()))
        if demo_runs:
            return (
                f"no runs in your store yet; the demo's {demo_runs} runs are in its own store "
                f"(`{locations.STORE_ENV}={locations.DEMO_STORE} skyt-tui runs list`, "
                f"`{locations.STORE_ENV}={locations.DEMO_STORE} skyt-tui report latest`)"
            )
    return "no runs stored yet; try `skyt-tui demo`, `skyt-tui import SOURCE` or `skyt-tui run`"


def resolve_run_id(text: str, *, skipped: list[str] | None = None) -> str:
    """An exact run id, `latest`, or a unique prefix of one.

    `latest` is the run created last among those whose metadata reads: one damaged run does not
    stop every command that asks for the latest (docs/state.md). Each run left out for that is
    added to `skipped` as "ID: why", for the caller to say."""
    ids = run_ids()
    if text in ids:
        return text
    if text in ("latest", "last"):
        if not ids:
            raise NotFoundError(no_runs_yet())
        created: dict[str, str] = {}
        problems: list[str] = []
        for run_id in ids:
            try:
                created[run_id] = load_meta(run_id).created
            except SkytError as exc:
                problems.append(f"{run_id}: {exc}")
        if skipped is not None:
            skipped.extend(problems)
        if not created:
            raise NotFoundError(f"no stored run can be read ({problems[0]})")
        return max(created, key=lambda i: (created[i], i))
    matches = [i for i in ids if i.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError(f"run {text!r}: not found (see `skyt-tui runs list`)")
    shown = ", ".join(matches[:3]) + (" …" if len(matches) > 3 else "")
    raise InputError(
        f"run {text!r}: ambiguous, matches {len(matches)} runs ({shown}); give more of the id"
    )


DAMAGED = "damaged"
INCOMPLETE = "incomplete"
"""An imported run whose tool stopped on an error or was cut short (`origin.tool_run`): its
samples are all stored, but they are not all the run set out to produce."""


def tool_run_incomplete(origin: dict[str, Any]) -> bool:
    """Whether an imported run's own tool run errored or was cut short (`origin.tool_run`)."""
    ended = origin.get("tool_run") if isinstance(origin, dict) else None
    return isinstance(ended, dict) and ended.get("complete") is False


def run_state(
    meta: RunMeta, samples: tuple[SampleRecord, ...] | None = None, damaged: Sequence[str] = ()
) -> str:
    """complete | failed (no sample produced code) | running (a process holds it) |
    interrupted (killed or cancelled) | aborted | damaged (a torn record lost a sample that is not recorded again later)
    | incomplete (imported from a tool run that stopped on an error or was cut short)."""
    if damaged and samples is not None and not is_locked(meta.id):
        finished = {s.index for s in samples}
        if any(i not in finished for i in range(meta.n)):
            return DAMAGED
    if meta.status == COMPLETE and tool_run_incomplete(meta.origin):
        return INCOMPLETE
    if meta.status in (COMPLETE, RUN_FAILED):
        return meta.status
    if is_locked(meta.id):
        return RUNNING
    if meta.status == ABORTED:
        return ABORTED
    if samples is not None and len(samples) == meta.n and meta.n > 0:
        return COMPLETE
    return INTERRUPTED


def run_summary(run_id: str) -> RunSummary:
    """One stored run's summary; a damaged run is summarised with its error, never dropped."""
    try:
        run = load_run(run_id)
    except NotFoundError:
        path = run_path(run_id) / RUN_FILE
        return RunSummary(id=run_id, meta=None, state=DAMAGED, error=f"{path}: missing")
    except StoreError as exc:
        return RunSummary(id=run_id, meta=None, state=DAMAGED, error=str(exc))
    if run.meta.id != run_id:
        error = f"{run.directory / RUN_FILE}: corrupt run file: id is not {run_id!r}"
        return RunSummary(id=run_id, meta=None, state=DAMAGED, error=error)
    return RunSummary(
        id=run_id,
        meta=run.meta,
        n_ok=run.n_ok,
        n_failed=run.n_failed,
        n_truncated=run.n_truncated,
        state=run.state,
        error="; ".join(run.damaged) if run.state == DAMAGED else None,
    )


def list_runs() -> list[RunSummary]:
    """Every stored run, ordered by id; damaged runs are listed with their error, not dropped."""
    summaries = [
        RunSummary(
            id=p.name,
            meta=None,
            state=DAMAGED,
            error=f"{p / RUN_FILE}: missing"
            if RUN_ID_PATTERN.fullmatch(p.name)
            else f"{p}: not a run id (a folder skyt-tui did not make)",
        )
        for p in broken_run_dirs()
    ]
    summaries += [run_summary(run_id) for run_id in run_ids()]
    summaries.sort(key=lambda summary: summary.id)
    return summaries


def origin_index() -> dict[str, str]:
    """origin key → run id, for imports that must not store the same source twice."""
    index = {}
    for run_id in run_ids():
        try:
            key = load_meta(run_id).origin.get("key")
        except StoreError:
            continue
        if isinstance(key, str):
            index[key] = run_id
    return index


# --- writing a live run -------------------------------------------------------------------


def is_locked(run_id: str) -> bool:
    return store.lock_held(run_path(run_id) / LOCK_FILE)


@contextlib.contextmanager
def run_lock(run_id: str) -> Iterator[None]:
    """Exclusive ownership of one run for as long as samples are being added to it."""
    directory = run_path(run_id)
    if not (directory / RUN_FILE).exists():
        raise NotFoundError(f"run {run_id!r}: not found (see `skyt-tui runs list`)")

    def busy(holder: str) -> str:
        return (
            f"run {run_id}: another skyt-tui process is adding samples to it{holder}; "
            f"wait for it to finish"
        )

    with store.file_lock(directory / LOCK_FILE, timeout_s=0, busy=busy, what="the run"):
        yield


def remove_run(run_id: str) -> None:
    """Remove a stored run's folder (refused while a process adds samples to it): renamed away in
    one step, so every reader sees it gone at once, then deleted."""
    directory = run_path(run_id)
    with run_lock(run_id):
        trash = directory.with_name(f".deleting-{run_id}-{secrets.token_hex(4)}")
        try:
            directory.rename(trash)
        except OSError as exc:
            raise store.write_failure(directory, exc) from None
    shutil.rmtree(trash, ignore_errors=True)


def append_sample(run_id: str, record: SampleRecord) -> None:
    """Append one finished sample and fsync it (call while holding `run_lock`)."""
    store.append_jsonl(run_path(run_id) / SAMPLES_FILE, {"kind": SAMPLE_KIND, **record.to_dict()})


def set_status(run_id: str, status: str) -> RunMeta:
    if status not in STATUSES:
        raise ValueError(f"unknown run status {status!r}")
    meta = replace(load_meta(run_id), status=status)
    with store.store_lock():
        store.write_json(run_path(run_id) / RUN_FILE, meta.to_dict(), kind=RUN_KIND)
    return meta
