"""What runs as Ray tasks: whole runs of the analysis, per-run stages and units of repair searches.

All are pure functions of their arguments (and of the oracle's verdicts), so a task that Ray
retries after losing its worker or node returns what the first attempt would have: nothing is
counted twice. `on_node` runs one call of `Executor.stream` — in the analysis, one run judged,
canon, distances, repair and metrics (`analysis.stream`) — with this node's executor
(`NodeExecutor`): its oracle is the node's judge (`NodeOracle`, another node's when that one is
lost), and its repair searches run here on threads. `apply_all` runs a pipeline function over a
chunk of runs; `repair_unit` runs a unit of repair searches (`repair.parallel.work_units`) on
threads, as a local repair worker does, asking the judge on its own node for verdicts. Generated
code still runs only in the judges' sandboxes: a task only parses it.

A candidate is accepted as on this machine (`repair.parallel.accepts`): it passes the oracle
and breaks no coding rule or pattern the sample kept. The judge answers both (`NodeJudge.verify`).

As a local repair worker keeps its rewrite caches between units, a Ray worker process keeps
the caches of one repair call (`call`: rewrites per task group; each program's outcome, passed
and rules broken, per contract version) for the units of that call it runs; they only save
work, results do not depend on them.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.executor.choice import Executor, ExecutorError, Judge
from skyt_tui.engine.oracle.outputs import Call, CallsResult
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.repair.parallel import TASKS_IN_FLIGHT, Outcome, RepairTask, accepts
from skyt_tui.engine.repair.pipeline import RepairResult, RewriteCache

CALLS_KEPT = 2
"""Repair calls whose caches a worker process keeps (the current one and the one before)."""


@dataclass
class _CallCaches:
    rewrites: dict[Hashable, RewriteCache] = field(default_factory=dict)
    verdicts: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    """(contract content hash, program) → its outcome: a verdict under one contract version."""


_calls: collections.OrderedDict[str, _CallCaches] = collections.OrderedDict()
_calls_lock = threading.Lock()


def _caches(call: str) -> _CallCaches:
    with _calls_lock:
        caches = _calls.get(call)
        if caches is None:
            caches = _calls[call] = _CallCaches()
            while len(_calls) > CALLS_KEPT:
                _calls.popitem(last=False)
        _calls.move_to_end(call)
        return caches


def apply_all(function: Callable[..., Any], arguments: Sequence[tuple[Any, ...]]) -> list[Any]:
    """`[function(*args) for args in arguments]` on a Ray worker."""
    return [function(*args) for args in arguments]


def contract_keys(contracts: Sequence[Contract]) -> tuple[list[str], dict[str, Contract]]:
    """Each contract's key on the wire (its content hash, computed once per object), and one
    contract per key: what a judge call carries."""
    keys: dict[int, str] = {}
    by_key: dict[str, Contract] = {}
    found = []
    for contract in contracts:
        key = keys.get(id(contract))
        if key is None:
            key = keys[id(contract)] = contract.content_hash()
            by_key.setdefault(key, contract)
        found.append(key)
    return found, by_key


@dataclass(frozen=True)
class ClusterInfo:
    """What the driver's oracle says of the whole cluster, which an analysis records wherever it
    runs: the isolation in force everywhere, the layers every node has, the sandbox workers."""

    isolation: str
    layers: tuple[str, ...]
    workers: int


class NodeJudges:
    """The node judges a task may ask, its own node's first (its jobs need not cross the
    network); a judge found lost is dropped and the next one answers."""

    def __init__(self, judges: dict[str, Any]) -> None:
        from skyt_tui.engine.executor.ray_executor import load_ray

        ray = self._ray = load_ray()
        here = ray.get_runtime_context().get_node_id()
        self._judges = sorted(judges.items(), key=lambda item: (item[0] != here, item[0]))
        self._lock = threading.Lock()

    def ask(
        self,
        method: str,
        contracts: dict[str, Contract],
        jobs: Sequence[tuple[Any, ...]],
        *args: Any,
    ) -> Any:
        """`NodeJudge.<method>(contracts, jobs, *args)` on the first judge still there."""
        while True:
            with self._lock:
                if not self._judges:
                    raise ExecutorError("no node's sandbox pool is left to judge samples")
                node_id, judge = self._judges[0]
            try:
                return self._ray.get(getattr(judge, method).remote(contracts, jobs, *args))
            except self._ray.exceptions.RayActorError:
                with self._lock:  # that node is gone: the next judge answers
                    self._judges = [item for item in self._judges if item[0] != node_id]


class NodeOracle:
    """The oracle of a task on a node (`choice.Judge`): the node judges, as `RayOracle` on the
    driver; its isolation and layers are the cluster's (`ClusterInfo`), so an analysis records
    on a node what it records on the driver."""

    def __init__(self, judges: NodeJudges, cluster: ClusterInfo) -> None:
        self._judges = judges
        self._cluster = cluster

    @property
    def isolation(self) -> str:
        return self._cluster.isolation

    @property
    def layers(self) -> tuple[str, ...]:
        return self._cluster.layers

    @property
    def workers(self) -> int:
        return self._cluster.workers

    def check(self, contract: Contract, code: str, *, verdict_only: bool = False) -> Verdict:
        return self.check_many([(contract, code)], verdict_only=verdict_only)[0]

    def check_many(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> list[Verdict]:
        """Verdicts in input order (`Oracle.check_many`), judged in one call to a node's judge;
        with `dedupe`, a program repeated for the same contract object is sent once;
        `verdict_only` as `Oracle.check_many`."""
        if not jobs:
            return []
        keys, contracts = contract_keys([contract for contract, _ in jobs])
        sent: dict[tuple[str, str], int] = {}
        wire: list[tuple[str, str]] = []
        where: list[int] = []
        for key, (_, code) in zip(keys, jobs):
            seen = (key, code) if dedupe else None
            if seen is not None and seen in sent:
                where.append(sent[seen])
                continue
            if seen is not None:
                sent[seen] = len(wire)
            where.append(len(wire))
            wire.append((key, code))
        verdicts: list[Verdict] = self._judges.ask("judge", contracts, wire, verdict_only)
        if len(verdicts) != len(wire):
            raise ExecutorError(f"a judge answered {len(verdicts)} of {len(wire)} samples")
        return [verdicts[position] for position in where]

    def check_iter(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> Iterator[Verdict]:
        yield from self.check_many(jobs, dedupe=dedupe, verdict_only=verdict_only)

    def calls_iter(
        self, jobs: Sequence[tuple[Contract, str, Sequence[Call]]]
    ) -> Iterator[CallsResult]:
        """What each program returns on its calls (`Oracle.calls_iter`), in input order, from one
        call to a node's judge (`NodeJudge.calls`): probing in a task on a node."""
        if not jobs:
            return
        keys, contracts = contract_keys([contract for contract, _, _ in jobs])
        wire = [(key, code, tuple(calls)) for key, (_, code, calls) in zip(keys, jobs)]
        results: list[CallsResult] = self._judges.ask("calls", contracts, wire)
        if len(results) != len(wire):
            raise ExecutorError(f"a judge answered {len(results)} of {len(wire)} probe jobs")
        yield from results

    def close(self) -> None:
        """The judges are the driver's: it closes them."""


class NodeExecutor(Executor):
    """The executor of a call running on a node (`on_node`): its oracle is the node judges
    (`NodeOracle`); its repair searches run in this task, on threads, verifying their candidates
    on the judges as `repair_unit` does; the rest runs in this process."""

    name = "ray-node"

    def __init__(self, judges: dict[str, Any], cluster: ClusterInfo | None) -> None:
        super().__init__()
        self._judges = NodeJudges(judges) if cluster is not None else None
        self._node_oracle = (
            NodeOracle(self._judges, cluster)
            if self._judges is not None and cluster is not None
            else None
        )

    def oracle(self) -> Judge:
        if self._node_oracle is None:
            raise ExecutorError("this call was sent without the cluster's judges")
        return self._node_oracle

    def owns(self, judge: object) -> bool:
        return judge is not None and judge is self._node_oracle

    def repair(
        self,
        tasks: Sequence[RepairTask],
        contracts: Sequence[Contract],
        progress: Callable[[int], None],
    ) -> list[RepairResult] | None:
        """The searches in this task (one run's: a few dozen), on threads; results in order."""
        if not tasks:
            return []
        if self._judges is None:
            raise ExecutorError("this call was sent without the cluster's judges")
        keys, by_key = contract_keys(contracts)
        unit = [(index, task, key) for index, (task, key) in enumerate(zip(tasks, keys))]
        caches = _CallCaches()
        found = search(unit, NodeVerifier(by_key, self._judges, caches.verdicts), caches.rewrites)
        progress(len(found))
        return [result for _, result in found]

    def close(self) -> None:
        """Nothing of its own to close: the judges are the driver's."""


def on_node(
    function: Callable[..., Any],
    arguments: tuple[Any, ...],
    judges: dict[str, Any],
    cluster: ClusterInfo | None,
) -> Any:
    """One call of `RayExecutor.stream` in a Ray task: `function(this node's executor, *arguments)`."""
    return function(NodeExecutor(judges, cluster), *arguments)


class NodeVerifier:
    """Verdicts for repair candidates from the node judges, remembered per (contract version,
    program) as outcomes (passed, rules broken); each search decides on them with its sample's
    broken rules."""

    def __init__(
        self,
        contracts: dict[str, Contract],
        judges: NodeJudges,
        known: dict[tuple[str, str], Outcome] | None = None,
    ) -> None:
        self._contracts = contracts
        self._judges = judges
        self._known = {} if known is None else known
        self._lock = _calls_lock

    def verify(
        self, key: str, broken_before: frozenset[str] | None, programs: Sequence[str]
    ) -> list[bool]:
        """Whether each program is an acceptable step for a sample under contract `key` that
        breaks `broken_before` (`accepts`)."""
        with self._lock:
            pending = [p for p in dict.fromkeys(programs) if (key, p) not in self._known]
        if pending:
            found: list[Outcome] = self._judges.ask(
                "verify", {key: self._contracts[key]}, [(key, p) for p in pending]
            )
            if len(found) != len(pending):
                raise ExecutorError(f"a judge answered {len(found)} of {len(pending)} candidates")
            with self._lock:
                self._known.update(
                    ((key, p), (bool(passed), None if broken is None else frozenset(broken)))
                    for p, (passed, broken) in zip(pending, found)
                )
        with self._lock:
            return [accepts(self._known[(key, p)], broken_before) for p in programs]


def repair_unit(
    call: str,
    unit: Sequence[tuple[int, RepairTask, str]],
    contracts: dict[str, Contract],
    judges: dict[str, Any],
) -> list[tuple[int, RepairResult]]:
    """Run one unit's searches (task index, task, contract key) on up to `TASKS_IN_FLIGHT`
    threads, sharing a rewrite cache per task group; results as (task index, result)."""
    kept = _caches(call)
    return search(unit, NodeVerifier(contracts, NodeJudges(judges), kept.verdicts), kept.rewrites)


def search(
    unit: Sequence[tuple[int, RepairTask, str]],
    verifier: NodeVerifier,
    caches: dict[Hashable, RewriteCache],
) -> list[tuple[int, RepairResult]]:
    """The searches of (task index, task, contract key) on up to `TASKS_IN_FLIGHT` threads,
    sharing a rewrite cache per task group; results as (task index, result), by index."""
    pending = list(reversed(unit))
    results: list[tuple[int, RepairResult]] = []
    failures: list[BaseException] = []
    take = threading.Lock()

    def run() -> None:
        while True:
            with take:
                if not pending or failures:
                    return
                index, task, key = pending.pop()
                rewrites = caches.setdefault(task.group, RewriteCache())
            try:
                result = task.run(partial(verifier.verify, key, task.broken_before), rewrites)
            except BaseException as error:  # raised in the task's thread below
                with take:
                    failures.append(error)
                return
            with take:
                results.append((index, result))

    count = max(1, min(TASKS_IN_FLIGHT, len(unit)))
    threads = [threading.Thread(target=run, name="skyt-ray-repair") for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return sorted(results, key=lambda item: item[0])
