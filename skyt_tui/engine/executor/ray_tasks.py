"""What runs as Ray tasks: per-run stages of the analysis and units of repair searches.

Both are pure functions of their arguments (and, for repair, of the oracle's verdicts), so a
task that Ray retries after losing its worker or node returns what the first attempt would
have: nothing is counted twice. `apply_all` runs a pipeline function over a chunk of runs;
`repair_unit` runs a unit of repair searches (`repair.parallel.work_units`) on threads, as a
local repair worker does, asking the judge on its own node for verdicts (another node's when
that one is lost). Generated code still runs only in the judges' sandboxes: a repair task only
parses it.

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
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.executor.choice import ExecutorError
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


class NodeVerifier:
    """Verdicts for repair candidates from the node judges, remembered per (contract version,
    program) as outcomes (passed, rules broken); each search decides on them with its sample's
    broken rules."""

    def __init__(
        self,
        contracts: dict[str, Contract],
        judges: dict[str, Any],
        known: dict[tuple[str, str], Outcome] | None = None,
    ) -> None:
        from skyt_tui.engine.executor.ray_executor import load_ray

        ray = self._ray = load_ray()
        self._contracts = contracts
        here = ray.get_runtime_context().get_node_id()
        self._judges = sorted(judges.items(), key=lambda item: (item[0] != here, item[0]))
        """The judge on this task's node first: its candidates need not cross the network."""
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
            found = self._ask({key: self._contracts[key]}, [(key, p) for p in pending])
            if len(found) != len(pending):
                raise ExecutorError(f"a judge answered {len(found)} of {len(pending)} candidates")
            with self._lock:
                self._known.update(
                    ((key, p), (bool(passed), None if broken is None else frozenset(broken)))
                    for p, (passed, broken) in zip(pending, found)
                )
        with self._lock:
            return [accepts(self._known[(key, p)], broken_before) for p in programs]

    def _ask(self, contracts: dict[str, Contract], jobs: list[tuple[str, str]]) -> list[Outcome]:
        while True:
            with self._lock:
                if not self._judges:
                    raise ExecutorError("no node's sandbox pool is left to verify repairs")
                node_id, judge = self._judges[0]
            try:
                answer: list[Outcome] = self._ray.get(judge.verify.remote(contracts, jobs))
                return answer
            except self._ray.exceptions.RayActorError:
                with self._lock:  # that node is gone: the next judge answers
                    self._judges = [item for item in self._judges if item[0] != node_id]


def repair_unit(
    call: str,
    unit: Sequence[tuple[int, RepairTask, str]],
    contracts: dict[str, Contract],
    judges: dict[str, Any],
) -> list[tuple[int, RepairResult]]:
    """Run one unit's searches (task index, task, contract key) on up to `TASKS_IN_FLIGHT`
    threads, sharing a rewrite cache per task group; results as (task index, result)."""
    kept = _caches(call)
    verifier = NodeVerifier(contracts, judges, kept.verdicts)
    pending = list(reversed(unit))
    results: list[tuple[int, RepairResult]] = []
    caches = kept.rewrites
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
