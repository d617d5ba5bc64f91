"""The repair stage of an analysis (`pipeline._analyze`): every sample to repair becomes a search,
identical ones (by text, or by syntax tree: `one_search_per_tree`) share one, the searches run on
worker processes, threads here or the executor's cluster, and each candidate is verified on the
analysis's oracle by one rule (docs/repair.md)."""

from __future__ import annotations

import ast
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

from skyt_tui.engine import syntax
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.executor.choice import Executor, Judge
from skyt_tui.engine.measure.metrics import CANON_ESTABLISHED
from skyt_tui.engine.measure.normalize import Normalized
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.repair import RepairResult, RewriteCache
from skyt_tui.engine.repair.parallel import (
    Outcome,
    RepairTask,
    StartedWorkers,
    TaskVerifier,
    accepts,
    repair_in_processes,
)


class Samples(Protocol):
    """A run's samples as the pipeline prepared them (`pipeline._Prepared`)."""

    @property
    def codes(self) -> tuple[str, ...]: ...
    @property
    def normalized(self) -> tuple[Normalized, ...]: ...
    @property
    def kept(self) -> frozenset[str]: ...


class Canon(Protocol):
    """A run's canon as the pipeline found it (`pipeline.CanonInfo`)."""

    @property
    def status(self) -> str: ...
    @property
    def code(self) -> str | None: ...
    @property
    def texts(self) -> dict[str, str]: ...


RepairKey = tuple[str, str, str, frozenset[str]]
"""(contract hash, sample code, canon code, kept names): samples with equal keys share one repair."""

PROCESS_REPAIR_MIN_TASKS = 24
"""Fewer repair tasks than this run in threads of this process: starting worker processes costs ~0.5 s."""


def repair_all(
    prepared: Sequence[Samples],
    contracts: list[Contract | None],
    verdicts: list[list[Verdict] | None],
    canons: Sequence[Canon],
    level: str,
    oracle: Judge,
    report: Callable[[str, int, int], None],
    workers: int | None = None,
    executor: Executor | None = None,
    known: dict[tuple[str, str], Verdict] | None = None,
    started: StartedWorkers | None = None,
) -> list[dict[int, RepairResult]]:
    """Repair every oracle-passing, non-canonical sample; identical samples share one repair.

    `known` ((contract hash, program) → a verdict with every test's outcome) holds the samples'
    own verdicts; the candidates' are added as they come in, so the re-check of the repaired
    programs finds most of them there.

    Many tasks run on worker processes (`repair.parallel`), a few on threads
    here, or all on the executor's cluster when `oracle` is its own; the
    results are the same. The searches of one contract share rewrites, and a
    candidate program is sent to the oracle once per contract (per unit of
    searches on a cluster). A candidate is accepted when the oracle passes it
    and it breaks no coding rule or pattern of the contract that the sample kept
    (so a compliant sample stays compliant; `repair.parallel.accepts`, the rule
    of every executor).
    """
    known = {} if known is None else known
    tasks: dict[RepairKey, tuple[Contract, str, str, frozenset[str]]] = {}
    broken_before: dict[RepairKey, frozenset[str] | None] = {}
    """The rules each sample breaks (a function of the contract version and the code, so of the key)."""
    forms: dict[RepairKey, tuple[str, str]] = {}
    """The sample's and the canon's `format` texts: equal trees have equal ones (`one_search_per_tree`)."""
    wanted: list[dict[int, RepairKey]] = []
    for p, contract, vs, canon in zip(prepared, contracts, verdicts, canons):
        positions: dict[int, RepairKey] = {}
        if contract is not None and vs is not None and canon.status == CANON_ESTABLISHED:
            assert canon.code is not None  # an established canon has its code
            digest = contract.content_hash()
            for position, (code, verdict, norm) in enumerate(zip(p.codes, vs, p.normalized)):
                if (
                    verdict.passed
                    and not norm.parse_error
                    and norm.texts[level] != canon.texts[level]
                ):
                    key = (digest, code, canon.code, p.kept)
                    tasks.setdefault(key, (contract, code, canon.code, p.kept))
                    broken_before[key] = verdict.broken
                    forms[key] = (norm.texts["format"], canon.texts.get("format", canon.code))
                    positions[position] = key
        wanted.append(positions)

    every_key = sorted(tasks, key=lambda k: (k[0], k[1], k[2], sorted(k[3])))
    searched_as = one_search_per_tree(every_key, forms, broken_before, level)
    keys = [key for key in every_key if searched_as[key] == key]
    repair_tasks = [
        RepairTask(
            code=code,
            canon_code=canon_code,
            kept_names=kept,
            level=level,
            max_steps=contract.rescue.max_transformations,
            allowed=tuple(contract.rescue.transformers),
            # rewrites depend on no contract detail: group by the task, not its version
            group=contract.id,
            broken_before=broken_before[key],
        )
        for key in keys
        for contract, code, canon_code, kept in [tasks[key]]
    ]
    verdict_cache: dict[tuple[str, str], Outcome] = {
        key: (verdict.passed, verdict.broken) for key, verdict in known.items()
    }
    """(contract hash, program) → (passes the oracle, the coding rules it breaks); it starts with
    every sample's verdict, so a candidate that is another sample's program is not run again."""
    cache_lock = threading.Lock()

    def keep(group: str, programs: Sequence[str], found: Sequence[Verdict]) -> None:
        """Cache each verdict's outcome, and the verdict itself when every test ran (a passing one
        always: nothing decides it early), for the re-check of repaired programs (`known`)."""
        with cache_lock:
            for program, verdict in zip(programs, found):
                verdict_cache[(group, program)] = (verdict.passed, verdict.broken)
                if not verdict.early:
                    known.setdefault((group, program), verdict)

    def accepted(index: int, program: str) -> bool:
        return accepts(verdict_cache[(keys[index][0], program)], repair_tasks[index].broken_before)

    def verify(index: int, programs: Sequence[str]) -> list[bool]:
        contract = tasks[keys[index]][0]
        group = keys[index][0]
        with cache_lock:
            pending = [
                program
                for program in dict.fromkeys(programs)
                if (group, program) not in verdict_cache
            ]
        if pending:
            found = oracle.check_many(
                [(contract, program) for program in pending], dedupe=True, verdict_only=True
            )
            keep(group, pending, found)
        with cache_lock:
            return [accepted(index, program) for program in programs]

    def verify_many(requests: Sequence[tuple[int, Sequence[str]]]) -> list[list[bool]]:
        """A repair worker's gathered requests: the programs not yet known go to the oracle in one call."""
        wanted: dict[tuple[str, str], Contract] = {}
        with cache_lock:
            for index, programs in requests:
                group = keys[index][0]
                for program in programs:
                    if (group, program) not in verdict_cache:
                        wanted.setdefault((group, program), tasks[keys[index]][0])
        if wanted:
            found = oracle.check_many(
                [(contract, program) for (_, program), contract in wanted.items()],
                dedupe=True,
                verdict_only=True,
            )
            for (group, program), verdict in zip(wanted, found):
                keep(group, [program], [verdict])
        with cache_lock:
            return [
                [accepted(index, program) for program in programs] for index, programs in requests
            ]

    report("repair", 0, len(keys))
    workers = (os.cpu_count() or 1) if workers is None else workers
    remote = None
    if executor is not None and executor.owns(oracle):
        remote = executor.repair(
            repair_tasks,
            [tasks[key][0] for key in keys],
            lambda done: report("repair", done, len(keys)),
        )
    if remote is not None:
        found = remote
    elif workers > 1 and len(repair_tasks) >= PROCESS_REPAIR_MIN_TASKS:
        found = repair_in_processes(
            repair_tasks,
            verify,
            workers=workers,
            progress=lambda done: report("repair", done, len(keys)),
            verify_many=verify_many,
            started=started,
        )
    else:
        found = repair_in_threads(
            repair_tasks,
            verify,
            max(2, oracle.workers * 2),
            lambda done: report("repair", done, len(keys)),
        )
    results = dict(zip(keys, found))
    for key in every_key:  # a sample searched as another: its own text where nothing changed it
        if key not in results:
            shared = results[searched_as[key]]
            results[key] = shared if shared.steps else replace(shared, code=key[1])
    return [{position: results[key] for position, key in positions.items()} for positions in wanted]


def one_search_per_tree(
    keys: Sequence[RepairKey],
    forms: dict[RepairKey, tuple[str, str]],
    broken_before: dict[RepairKey, frozenset[str] | None],
    level: str,
) -> dict[RepairKey, RepairKey]:
    """Each key's search: its own, or an earlier key's (in `keys`' order) whose sample and canon
    have the same syntax trees (their texts differ in formatting and comments only), with the
    same contract, kept names and broken rules.

    Repair reads a program only through its tree (rewrites, and distances at a normalized
    level), so those searches take the same steps, candidates and verdicts; only a result that
    kept no step differs, by being the sample's own text (`repair_all` gives it that). Trees
    are compared exactly (`ast.dump`), and only where the `format` texts already agree. At the
    `raw` level a distance reads the text itself: every key is its own search."""
    if level == "raw":
        return {key: key for key in keys}
    trees: dict[str, str] = {}

    def tree(code: str) -> str:
        if code not in trees:
            trees[code] = ast.dump(syntax.parse(code))
        return trees[code]

    seen: dict[tuple[Any, ...], list[RepairKey]] = {}
    chosen: dict[RepairKey, RepairKey] = {}
    for key in keys:
        digest, code, canon_code, kept = key
        alike = seen.setdefault((digest, forms[key], kept, broken_before[key]), [])
        chosen[key] = next(
            (
                other
                for other in alike
                if tree(other[1]) == tree(code) and tree(other[2]) == tree(canon_code)
            ),
            key,
        )
        if chosen[key] == key:
            alike.append(key)
    return chosen


def repair_in_threads(
    tasks: list[RepairTask], verify: TaskVerifier, threads: int, progress: Callable[[int], None]
) -> list[RepairResult]:
    """Tasks on threads of this process; a group's tasks run in one thread and share its rewrite cache."""
    groups: dict[Any, list[int]] = {}
    for index, task in enumerate(tasks):
        groups.setdefault(task.group, []).append(index)
    results: list[RepairResult | None] = [None] * len(tasks)

    def run_group(indexes: list[int]) -> int:
        rewrites = RewriteCache()
        for index in indexes:
            results[index] = tasks[index].run(partial(verify, index), rewrites)
        return len(indexes)

    done = 0
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for count in pool.map(run_group, list(groups.values())):
            done += count
            progress(done)
    return results  # type: ignore[return-value]
