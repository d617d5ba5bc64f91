"""The analysis pipeline: oracle → canon → d_pre → repair → d_post → metrics (docs/how-it-works.md).

`analyze_runs` takes runs of recorded samples and returns one `RunAnalysis`
each. Work is batched across runs: every distinct (contract, program) pair
goes to the sandboxed oracle once, and identical samples share one repair.

Where the canon comes from:
- `canon_mode="run"` (the `analyze` command): from the run's own samples, the
  first in generation order that parses and passes; nothing is stored;
- `canon_mode="store"` (stored runs): the contract's stored canon. When none
  exists yet it is established, write-once, from the earliest stored run of
  the contract that has a passing sample. A stale, tampered or corrupt canon
  is reported and not used: anchor metrics are then not computed.

Stages that cannot run are skipped and their metrics reported as not
computed: no contract → no oracle, hence no canon and no repair.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.analysis.repairs import repair_all
from skyt_tui.engine.contracts.catalog import find_contract
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import ContractError
from skyt_tui.engine.executor.choice import Executor, Judge, current_executor
from skyt_tui.engine.measure.distance import PAIRWISE_MATRIX_LIMIT
from skyt_tui.engine.measure.distance_kind import distance_kind
from skyt_tui.engine.measure.metrics import (
    CANON_ESTABLISHED,
    CANON_NONE,
    CANON_NOT_COMPUTED,
    RunMetrics,
    compute_metrics,
)
from skyt_tui.engine.measure.normalize import Normalized, normalize
from skyt_tui.engine.measure.records import SampleAnalysis
from skyt_tui.engine.oracle.verdicts import TestOutcome, Verdict
from skyt_tui.engine.probe.behaviour import ContractProbe, ProbeSettings, probe_contracts
from skyt_tui.engine.probe.report import run_probe_figures
from skyt_tui.engine.repair import REPAIR_VERSION, RepairResult
from skyt_tui.engine.repair.parallel import (
    StartedWorkers,
    start_workers,
)
from skyt_tui.engine.sources.humaneval import problem_contract
from skyt_tui.engine.sources.recorded import RunInput
from skyt_tui.engine.syntax import NOT_PARSED, not_parsed_line, too_large
from skyt_tui.engine.versions import DEFAULT_DISTANCE, DEFAULT_TAU, ORACLE_VERSION, distance_version

Progress = Callable[[str, int, int], None]
"""progress(stage, done, total): called from the analysing thread."""


@dataclass(frozen=True)
class SampleDetail:
    """What a person inspecting one sample wants beyond the metric inputs."""

    index: int
    code: str
    verdict: Verdict | None = None
    repair: RepairResult | None = None
    verdict_after: Verdict | None = None

    def to_dict(self) -> dict[str, Any]:
        """Deterministic JSON: no timings, so equal inputs give byte-identical output."""
        out: dict[str, Any] = {"index": self.index}
        if self.verdict is not None:
            out["oracle"] = _verdict_summary(self.verdict)
        if self.repair is not None:
            out["repair"] = {
                "steps": [
                    {
                        "transformer": s.transformer,
                        "d_before": s.d_before,
                        "d_after": s.d_after,
                        "sites": s.sites,
                    }
                    for s in self.repair.steps
                ],
                "candidates_checked": self.repair.candidates_checked,
                "repaired_code": self.repair.code if self.repair.steps else None,
            }
        if self.verdict_after is not None:
            out["oracle_after_repair"] = _verdict_summary(self.verdict_after)
        return out


def _verdict_summary(verdict: Verdict) -> dict[str, Any]:
    verdict.require_every_outcome()  # what the analysis stores: every test's outcome
    passed_tests, total = verdict.test_counts()
    out: dict[str, Any] = {
        "passed": verdict.passed,
        "passed_all": verdict.passed_all,
        "threshold": verdict.threshold,
        "tests_passed": passed_tests,
        "tests_total": total,
        "status": verdict.status,
        "reason": verdict.reason,
        "pass_fraction": verdict.pass_fraction,
        "tests": [
            {
                "name": t.name,
                "kind": t.kind,
                "passed": t.passed,
                "actual": t.actual,
                "error_type": t.error_type,
                "error_message": t.error_message,
            }
            for t in verdict.tests
        ],
    }
    if verdict.compliance is not None:
        out["compliance"] = verdict.compliance.to_dict()
    return out


@dataclass(frozen=True)
class LimitedSample:
    """A sample whose program is longer than the app's process parses (`syntax.MAX_PROGRAM_CHARS`).
    It is a sample of its run like any other: judged by the oracle in the sandbox, counted in N
    and in every rate, and measured on its raw text; it is not normalized or repaired, and can
    never become the canon. Listed with the reason (`limited`), and so is each such sample's
    record."""

    index: int
    reason: str

    def line(self, run_id: str) -> str:
        """The one line saying so (the CLI prints it; the app shows it)."""
        return not_parsed_line(run_id, self.index, self.reason)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "reason": self.reason}


@dataclass(frozen=True)
class CanonInfo:
    """The canon a run was measured against."""

    status: str
    """established (used) | none (no sample passed) | not_computed | stale | tampered | corrupt"""
    source: str = ""
    """"run" (from this run's own samples) or "store"."""
    sample_index: int | None = None
    run_id: str | None = None
    code: str | None = None
    texts: dict[str, str] = field(default_factory=dict)
    reason: str = ""
    content_hash: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "source": self.source,
            "sample_index": self.sample_index,
            "run_id": self.run_id,
            "code": self.code,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class RunAnalysis:
    run: RunInput
    level: str
    samples: tuple[SampleAnalysis, ...]
    normalized: tuple[Normalized, ...]
    pairwise: np.ndarray | None
    """N×N distances at the level; None above `distance.PAIRWISE_MATRIX_LIMIT` samples."""
    metrics: RunMetrics
    details: tuple[SampleDetail, ...] = ()
    canon: CanonInfo = CanonInfo(CANON_NOT_COMPUTED)
    contract: Contract | None = None
    oracle_info: dict[str, Any] = field(default_factory=dict)
    limited: tuple[LimitedSample, ...] = ()
    """Samples too long for the app's process to parse: counted and judged, measured on their raw
    text (each also named in its record's `limited` and counted in `metrics.n_limited`)."""
    probe: ContractProbe | None = None
    """The run's probe (`probe=` settings given), its records aligned with `samples`."""

    def probe_figures(self) -> dict[str, Any] | None:
        if self.probe is None:
            return None
        canon_position = next(
            (
                position
                for position, sample in enumerate(self.samples)
                if self.canon.source == "run" and sample.index == self.canon.sample_index
            ),
            None,
        )
        return run_probe_figures(
            self.probe,
            [sample.pass_vector for sample in self.samples],
            [sample.index for sample in self.samples],
            canon_position,
        )

    def summary(self) -> dict[str, Any]:
        """The run's entry in `analyze --json`."""
        probe = self.probe_figures()
        return {
            **({"probe": probe} if probe is not None else {}),
            "id": self.run.id,
            "contract_id": self.run.contract_id,
            "model": self.run.model,
            "temperature": self.run.temperature,
            "n": self.metrics.n,
            "source": self.run.source,
            "metrics": self.metrics.to_dict(),
            "canon": self.canon.to_dict(),
            "oracle": dict(self.oracle_info),
            **({"limited": [r.to_dict() for r in self.limited]} if self.limited else {}),
        }

    def to_dict(self, *, with_samples: bool = True) -> dict[str, Any]:
        out = self.summary()
        out["level"] = self.level
        if with_samples:
            details = {d.index: d for d in self.details}
            entry = self.contract.entry.name if self.contract is not None else ""
            out["samples"] = [
                {
                    **sample.to_dict(),
                    **(details[sample.index].to_dict() if sample.index in details else {}),
                    **(
                        {"probe": self.probe.samples[position].to_dict(entry)}
                        if self.probe is not None
                        else {}
                    ),
                }
                for position, sample in enumerate(self.samples)
            ]
        return out


def shared_oracle() -> Judge:
    """One warm sandbox pool per process (on the chosen executor), closed at exit (CLI commands
    and the app share it)."""
    return current_executor().oracle()


def contract_for(run: RunInput) -> Contract | None:
    """The contract a run's samples are judged by, when one can be found."""
    given = run.extra.get("contract")
    if isinstance(given, Contract):
        return given
    if (
        run.source_format == "skyt"
        and isinstance(run.extra.get("skyt_contract"), dict)
        and run.extra["skyt_contract"]
    ):
        from skyt_tui.engine.sources.importers import skyt_template_to_contract

        try:
            return skyt_template_to_contract(
                run.extra["skyt_contract"], key=run.contract_id, file=run.source
            )
        except ContractError:
            return None
    if run.source_format == "humaneval" and run.extra.get("problem") is not None:
        return problem_contract(run.extra["problem"], file=Path(run.source) / "problems.jsonl")
    return find_contract(run.contract_id)


def analyze_run(run: RunInput, **options: Any) -> RunAnalysis:
    return analyze_runs([run], **options)[0]


def analyze_runs(
    runs: Sequence[RunInput],
    *,
    level: str = "nodoc",
    tau: float = DEFAULT_TAU,
    oracle: Judge | None | bool = True,
    repair_samples: bool = True,
    canon_mode: str = "run",
    store_canon_provider: Callable[[Contract], tuple[str, canon_store.Provenance] | None]
    | None = None,
    progress: Progress | None = None,
    repair_workers: int | None = None,
    distance: str = DEFAULT_DISTANCE,
    executor: Executor | None = None,
    probe: ProbeSettings | None = None,
    contracts: Sequence[Contract | None] | None = None,
    canons: Sequence[CanonInfo | None] | None = None,
) -> list[RunAnalysis]:
    """Analyse runs. `oracle=True` uses the shared sandbox pool, False skips oracle, canon and repair.

    `repair_workers`: processes for the repair search (default: one per core;
    1 keeps it in this process). Results do not depend on it.

    `distance`: "levenshtein" (default) or "tree" (normalised AST tree edit
    distance, `tree_distance`) for d_pre, d_post and R_pairwise. Repair always
    searches by Levenshtein; under the tree distance a repaired sample's d_post
    is its repaired text's tree distance, or its d_pre when that is smaller.

    `executor`: where the work runs (default: the process's, `executor.choice`);
    with `oracle=True` its oracle judges. Results do not depend on it.

    `probe`: also run each run's passing samples on generated inputs (docs/probe.md), on the
    oracle that judged them (this machine's pool, or the Ray cluster's nodes).

    `store_canon_provider(contract)` (store mode) finds the sample that should
    become the canon when the store has none: (code, provenance) of the first
    passing sample of the contract's earliest run, or None.

    `contracts` and `canons` (one per run, None: find it here) are what the caller already
    found: a cluster node analysing one run (`analysis.stream`) gets them from the driver,
    whose catalog and store they come from.
    """
    distance_version(level, distance)  # an unknown distance fails here, before any work
    if canon_mode not in ("run", "store"):
        raise ValueError(f"canon_mode must be 'run' or 'store', not {canon_mode!r}")
    report = progress or (lambda stage, done, total: None)
    executor = executor or current_executor()
    the_oracle = executor.oracle() if oracle is True else (oracle or None)

    if not the_oracle:
        contracts = [None] * len(runs)
    elif contracts is None:
        contracts = [contract_for(run) for run in runs]
    contracts = _dedupe_contracts(list(contracts))
    weights = [len(run.codes) for run in runs]
    started = _start_repair_workers(the_oracle, repair_samples, repair_workers, executor, weights)
    try:
        return _analyze(
            runs,
            contracts,
            weights,
            the_oracle,
            executor,
            started,
            level=level,
            tau=tau,
            canon_mode=canon_mode,
            store_canon_provider=store_canon_provider,
            repair_samples=repair_samples,
            report=report,
            repair_workers=repair_workers,
            distance=distance,
            probe=probe,
            canons=canons,
        )
    finally:
        if started is not None:
            started.close()


PRESTART_MIN_SAMPLES = 200
"""From this many samples the repair worker processes start with the analysis (their imports
overlap normalizing and judging) rather than when the repair begins."""


def _start_repair_workers(
    oracle: Judge | None,
    repair_samples: bool,
    workers: int | None,
    executor: Executor,
    weights: Sequence[int],
) -> StartedWorkers | None:
    workers = (os.cpu_count() or 1) if workers is None else workers
    if (
        oracle is None
        or not repair_samples
        or workers < 2
        or executor.name != "local"
        or sum(weights) < PRESTART_MIN_SAMPLES
    ):
        return None
    return start_workers(workers)


def _analyze(
    runs: Sequence[RunInput],
    contracts: list[Contract | None],
    weights: list[int],
    the_oracle: Judge | None,
    executor: Executor,
    started: StartedWorkers | None,
    *,
    level: str,
    tau: float,
    canon_mode: str,
    store_canon_provider: Callable[[Contract], tuple[str, canon_store.Provenance] | None] | None,
    repair_samples: bool,
    report: Progress,
    repair_workers: int | None,
    distance: str,
    probe: ProbeSettings | None,
    canons: Sequence[CanonInfo | None] | None,
) -> list[RunAnalysis]:
    prepared: list[_Prepared] = executor.map(_prepare, list(zip(runs, contracts)), weights=weights)

    verdicts: list[list[Verdict] | None] = [None] * len(runs)
    if the_oracle is not None:
        jobs = [
            (contract, code)
            for p, contract in zip(prepared, contracts)
            if contract
            for code in p.codes
        ]
        report("oracle", 0, len(jobs))
        flat = the_oracle.check_many(jobs, dedupe=True) if jobs else []
        report("oracle", len(jobs), len(jobs))
        position = 0
        for i, (p, contract) in enumerate(zip(prepared, contracts)):
            if contract:
                verdicts[i] = flat[position : position + len(p.codes)]
                position += len(p.codes)

    given_canons = canons if canons is not None else [None] * len(runs)
    run_canons = [
        known or _canon_for(p, contract, vs, canon_mode, store_canon_provider)
        for p, contract, vs, known in zip(prepared, contracts, verdicts, given_canons)
    ]

    repairs: Sequence[dict[int, RepairResult] | None] = [None] * len(runs)
    known: dict[tuple[str, str], Verdict] = {}
    """(contract hash, program) → its verdict with every test's outcome (see `repairs.repair_all`)."""
    digests = {id(contract): contract.content_hash() for contract in contracts if contract}
    if the_oracle is not None and repair_samples:
        for p, contract, vs in zip(prepared, contracts, verdicts):
            if contract is not None and vs is not None:
                digest = digests[id(contract)]
                for code, verdict in zip(p.codes, vs):
                    known.setdefault((digest, code), verdict)
        repairs = repair_all(
            prepared,
            contracts,
            verdicts,
            run_canons,
            level,
            the_oracle,
            report,
            repair_workers,
            executor,
            known,
            started,
        )

    after: list[dict[int, Verdict]] = [{} for _ in runs]
    if the_oracle is not None:
        # a repaired program was judged as a candidate (every test ran: it passed); the rest,
        # from a cluster's repair tasks, which answer with outcomes only, are judged here
        jobs = [
            (contract, result.code)
            for p, contract, rs in zip(prepared, contracts, repairs)
            if contract and rs
            for result in rs.values()
            if result.steps and (digests[id(contract)], result.code) not in known
        ]
        flat = the_oracle.check_many(jobs, dedupe=True) if jobs else []
        for (contract, code), verdict in zip(jobs, flat):
            known.setdefault((digests[id(contract)], code), verdict)
        for i, (contract, rs) in enumerate(zip(contracts, repairs)):
            for position, result in (rs or {}).items():
                if result.steps:
                    assert contract is not None  # repairs exist only where a contract judged
                    after[i][position] = known[(digests[id(contract)], result.code)]

    probes: list[ContractProbe | None] = [None] * len(runs)
    if the_oracle is not None and probe is not None:
        wanted = [i for i, (contract, vs) in enumerate(zip(contracts, verdicts)) if contract and vs]
        report("probe", 0, len(wanted))
        found = probe_contracts(
            the_oracle,
            [
                (contracts[i], prepared[i].codes, [v.passed for v in verdicts[i] or []])  # type: ignore[misc]
                for i in wanted
            ],
            probe,
        )
        for i, probed in zip(wanted, found):
            probes[i] = probed
        report("probe", len(wanted), len(wanted))

    oracle_info = {}
    if the_oracle is not None:
        oracle_info = {
            "version": ORACLE_VERSION,
            "isolation": the_oracle.isolation,
            "layers": list(the_oracle.layers),
        }
    stages = [
        (
            _Stage(
                prepared[i],
                contracts[i],
                verdicts[i],
                run_canons[i],
                repairs[i],
                after[i],
                level,
                tau,
                oracle_info,
                distance,
            ),
        )
        for i in range(len(runs))
    ]
    finished: list[RunAnalysis] = executor.map(_finish, stages, weights=weights)
    return [
        replace(result, probe=probes[i]) if probes[i] is not None else result
        for i, result in enumerate(finished)
    ]


@dataclass(frozen=True)
class _Prepared:
    run: RunInput
    indexes: tuple[int, ...]
    codes: tuple[str, ...]
    normalized: tuple[Normalized, ...]
    kept: frozenset[str]
    limited: tuple[LimitedSample, ...] = ()


def _dedupe_contracts(contracts: list[Contract | None]) -> list[Contract | None]:
    """Equal contracts become one object, so the oracle's dedupe works across runs."""
    by_hash: dict[str, Contract] = {}
    out: list[Contract | None] = []
    for contract in contracts:
        if contract is None:
            out.append(None)
            continue
        out.append(by_hash.setdefault(contract.content_hash(), contract))
    return out


def _prepare(run: RunInput, contract: Contract | None) -> _Prepared:
    """The samples to analyse: every one that produced code, whatever its size. A program over
    `syntax.MAX_PROGRAM_CHARS` is not parsed here (`normalize` keeps its raw text at every
    level), and is named with the reason."""
    kept = frozenset(run.kept_names | (contract.kept_names if contract else frozenset()))
    generated = [(index, code) for index, code in enumerate(run.codes) if code is not None]
    limited = [
        LimitedSample(index, reason)
        for index, code in generated
        if (reason := too_large(code)) is not None
    ]
    return _Prepared(
        run=run,
        indexes=tuple(index for index, _ in generated),
        codes=tuple(code for _, code in generated),
        normalized=tuple(normalize(code, kept) for _, code in generated),
        kept=kept,
        limited=tuple(limited),
    )


def _canon_for(
    p: _Prepared,
    contract: Contract | None,
    verdicts: list[Verdict] | None,
    mode: str,
    provider: Callable[[Contract], tuple[str, canon_store.Provenance] | None] | None,
) -> CanonInfo:
    if contract is None or verdicts is None:
        return CanonInfo(
            CANON_NOT_COMPUTED, reason="no contract for these samples, so no oracle verdicts"
        )
    if mode == "run":
        position = canon_store.first_canon_candidate(
            [v.passed for v in verdicts],
            [n.parse_error for n in p.normalized],
            canon_store.compliance_of(verdicts),
        )
        if position is None:
            return CanonInfo(
                CANON_NONE, source="run", reason="no sample parses and passes the oracle"
            )
        return CanonInfo(
            CANON_ESTABLISHED,
            source="run",
            sample_index=p.indexes[position],
            run_id=p.run.id,
            code=p.codes[position],
            texts=dict(p.normalized[position].texts),
        )
    return store_canon(
        contract, provider if provider is not None else lambda _: _first_passing_here(p, verdicts)
    )


def store_canon(
    contract: Contract, provider: Callable[[Contract], tuple[str, canon_store.Provenance] | None]
) -> CanonInfo:
    """The contract's stored canon; when the store has none, established (write-once) from the
    sample `provider` finds, if any."""
    state = canon_store.load_canon(contract.id, contract=contract, oracle_version=ORACLE_VERSION)
    if state.status == canon_store.STATUS_MISSING:
        found = provider(contract)
        if found is None:
            return CanonInfo(
                CANON_NONE,
                source="store",
                reason="no stored sample of this contract passes the oracle yet",
            )
        code, provenance = found
        built = canon_store.build_canon(contract, code, provenance, ORACLE_VERSION)
        try:
            canon_store.establish_canon(built)
        except canon_store.CanonExistsError:
            pass  # another process established it first; use what is stored
        state = canon_store.load_canon(
            contract.id, contract=contract, oracle_version=ORACLE_VERSION
        )
    if not state.usable:
        return CanonInfo(
            state.status, source="store", reason=state.reason or f"canon is {state.status}"
        )
    canon = state.canon
    assert canon is not None  # usable implies a canon
    return CanonInfo(
        CANON_ESTABLISHED,
        source="store",
        sample_index=canon.provenance.get("sample_index"),
        run_id=canon.provenance.get("run_id"),
        code=canon.code,
        texts=dict(canon.texts),
        content_hash=canon.content_hash,
    )


def _first_passing_here(
    p: _Prepared, verdicts: list[Verdict]
) -> tuple[str, canon_store.Provenance] | None:
    position = canon_store.first_canon_candidate(
        [v.passed for v in verdicts],
        [n.parse_error for n in p.normalized],
        canon_store.compliance_of(verdicts),
    )
    if position is None:
        return None
    run = p.run
    provenance = canon_store.Provenance(
        run_id=run.id,
        sample_index=p.indexes[position],
        provider=run.extra.get("provider"),
        model=run.model,
        temperature=run.temperature,
    )
    return p.codes[position], provenance


@dataclass(frozen=True)
class _Stage:
    """What finishing one run needs (`_finish`): its samples, their judging and repair, settings."""

    p: _Prepared
    contract: Contract | None
    verdicts: list[Verdict] | None
    canon: CanonInfo
    repairs: dict[int, RepairResult] | None
    after: dict[int, Verdict]
    level: str
    tau: float
    oracle_info: dict[str, Any]
    distance: str = DEFAULT_DISTANCE


def _finish(stage: _Stage) -> RunAnalysis:
    p, contract, verdicts, canon = stage.p, stage.contract, stage.verdicts, stage.canon
    repairs, after, level = stage.repairs, stage.after, stage.level
    kind = distance_kind(stage.distance)
    texts = [n.texts[level] for n in p.normalized]
    d_pre: list[float | None] = [None] * len(texts)
    d_post: list[float | None] = [None] * len(texts)
    bounds = [False] * len(texts)
    if canon.status == CANON_ESTABLISHED:
        canon_text = canon.texts[level]
        measured, bounds = kind.measure_to(texts, canon_text)
        d_pre = list(measured)
        d_post = list(d_pre)
        result: RepairResult | None
        for position, result in (repairs or {}).items():
            if not result.steps:
                continue
            if kind.repair_measured:
                d_post[position] = result.d_post
            else:  # measured by the kind; a repair that moves a sample away keeps its d_pre
                repaired = normalize(result.code, p.kept).texts[level]
                d_post[position] = min(
                    measured[position], kind.distances_to([repaired], canon_text)[0]
                )
    limited = {sample.index: sample.reason for sample in p.limited}
    samples = []
    details = []
    for position, (index, code, norm) in enumerate(zip(p.indexes, p.codes, p.normalized)):
        verdict = verdicts[position] if verdicts is not None else None
        result = (repairs or {}).get(position)
        samples.append(
            SampleAnalysis(
                index=index,
                signatures=norm.signatures,
                parse_error=norm.parse_error,
                passed=verdict.passed if verdict is not None else None,
                passed_all=verdict.passed_all if verdict is not None else None,
                compliant=verdict.compliance.compliant
                if verdict is not None and verdict.compliance is not None
                else None,
                pass_vector=verdict.pass_vector() if verdict is not None else None,
                outputs=output_keys(verdict) if verdict is not None else None,
                d_pre=d_pre[position],
                d_post=d_post[position],
                repair_steps=tuple(step.transformer for step in result.steps)
                if result is not None
                else (),
                limited=_limited_note(limited.get(index), bounds[position]),
                d_bound=bounds[position],
            )
        )
        details.append(
            SampleDetail(
                index=index,
                code=code,
                verdict=verdict,
                repair=result,
                verdict_after=after.get(position),
            )
        )
    pairwise: np.ndarray | None = None
    pairwise_mean: float | None = None
    pairwise_bounds = 0
    if len(texts) <= PAIRWISE_MATRIX_LIMIT:
        pairwise, pairwise_bounds = kind.measure_pairwise(texts)
    else:
        pairwise_mean, pairwise_bounds = kind.measure_mean_pairwise(texts)
    versions = {"distance": kind.version(level)}
    if verdicts is not None:
        versions["oracle"] = ORACLE_VERSION
    if repairs is not None:
        versions["repair"] = REPAIR_VERSION
    metrics = compute_metrics(
        samples,
        level=level,
        tau=stage.tau,
        pairwise=pairwise,
        pairwise_mean=pairwise_mean,
        n_failed=len(p.run.codes) - len(p.codes),
        pairwise_bounds=pairwise_bounds,
        canon=canon.status
        if canon.status in (CANON_ESTABLISHED, CANON_NONE)
        else CANON_NOT_COMPUTED,
        versions=versions,
    )
    return RunAnalysis(
        run=p.run,
        level=level,
        samples=tuple(samples),
        normalized=p.normalized,
        pairwise=pairwise,
        metrics=metrics,
        details=tuple(details),
        canon=canon,
        contract=contract,
        oracle_info=stage.oracle_info,
        limited=p.limited,
    )


def _limited_note(reason: str | None, bound: bool) -> str | None:
    """What a sample's record says the analysis did not do for it, or None."""
    notes = [f"{reason}: {NOT_PARSED}"] if reason is not None else []
    if bound:
        notes.append("d_pre and d_post are the bound 1.0: too long to measure against the canon")
    return "; ".join(notes) or None


def output_keys(verdict: Verdict) -> tuple[str, ...]:
    """Per-test output keys for OER (`output_key`); constraint outcomes have no output and are left out."""
    verdict.require_every_outcome()
    return tuple(output_key(t) for t in verdict.tests if t.kind != "constraint")


def output_key(outcome: TestOutcome) -> str:
    """A test's output for OER: the canonical actual value, or `!` + the error's type when the test
    produced no value of its own — it did not run, timed out, the program did not compile or load
    (`!SyntaxError`, `!LoadError`, …), the call raised (`!ValueError`, also where a `raises` test
    expected it), the class's constructor raised, or a check stopped on an error that is not a
    failed assert (the candidate's exception, or one the check hit on what the candidate returned).
    `measure.metrics.ERROR_PREFIX` marks these keys; the metrics read nothing else from them.
    """
    if outcome.actual is None:
        return f"!{outcome.error_type or 'none'}"
    if outcome.kind == "check":
        if not outcome.passed and outcome.error_type not in (None, "AssertionError"):
            return f"!{outcome.error_type}"
        return outcome.actual
    if outcome.kind in ("call", "raises", "ood", "stateful") and outcome.actual.startswith('{"$'):
        try:
            value = json.loads(outcome.actual)
        except ValueError:
            return outcome.actual
        if isinstance(value, dict) and isinstance(value.get("$raised"), str):
            return f"!{value['$raised']}"
    return outcome.actual
