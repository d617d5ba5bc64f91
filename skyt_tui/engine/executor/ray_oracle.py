"""The oracle on a Ray cluster: batches of jobs to one judge per node, verdicts back in order.

`RayOracle` offers what `oracle.judge.Oracle` offers (`check`, `check_many`, `check_iter`,
`calls_iter` for probing, `isolation`, `layers`, `workers`), so the pipeline and the commands
use either. Jobs are cut
into batches and handed by one dispatcher thread to the node judges (`ray_judge.NodeJudge`,
one actor per node pinned to it, owning that node's warm sandbox pool), a few batches in
flight per node so no pool waits; each job's verdict fills its future, and `check_iter`
yields them in input order. So the output does not depend on which node judged what.

Faults: a batch whose node (or actor) is lost goes back to the front of the queue and is
judged elsewhere; its jobs' futures are filled once, so nothing is lost or counted twice. A
batch lost twice is split into single jobs, and a job lost a third time gets a `worker_lost`
FAIL verdict (as a sample that kills its sandbox does locally) instead of a retry loop. When
nodes are lost, nodes that joined since get a judge; with none left, the waiting jobs fail with
one line. `close()` (also at Ctrl-C, through the executor's exit handler) kills judges that
still work, so the cluster stops promptly.
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import threading
import time
from collections.abc import Hashable, Iterable, Iterator, Sequence
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from typing import Any

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.executor.choice import ExecutorError
from skyt_tui.engine.executor.ray_judge import NodeJudge, source_digest
from skyt_tui.engine.oracle.lost import lost_verdict
from skyt_tui.engine.oracle.outputs import MISSING, Call, CallOutput, CallsResult
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.printable import counted, printable

MAX_BATCH = 32
"""Jobs per batch at most: a lost node costs at most its few batches in flight."""
JOBS_PER_WORKER = 4
"""Jobs in flight per sandbox worker of a node (and at least two batches): while a batch comes
back and the next one goes out, the node's pool still has jobs queued."""
SPLIT_AFTER_LOSSES = 2
"""A batch lost this often is split into single jobs; a single job lost once more is a FAIL."""
STARTUP_TIMEOUT_S = 180.0
"""How long a node's judge may take to start its pool (bubblewrap probe, zygotes) and answer."""
CLOSE_TIMEOUT_S = 10.0
POLL_S = 0.05
SANDBOX_ENV = "SKYT_SANDBOX"


@dataclass(frozen=True)
class NodeInfo:
    """One node as its judge reported it."""

    node_id: str
    address: str
    hostname: str
    isolation: str
    layers: tuple[str, ...]
    workers: int
    requested: str = "auto"
    """The isolation asked for (auto, bubblewrap or reduced)."""

    def describe(self) -> str:
        """One line for people: where, how isolated, how many sandbox workers."""
        where = f"node {self.address} ({self.node_id[:8]})"
        workers = counted(self.workers, "sandbox worker")
        if self.isolation == "reduced":
            why = "as asked" if self.requested == "reduced" else "bubblewrap does not work there"
            return f"{where}: reduced isolation, {why} ({', '.join(self.layers)}); {workers}"
        return f"{where}: {self.isolation} ({', '.join(self.layers)}); {workers}"


@dataclass
class _Job:
    key: str
    code: str
    future: Future[Any]
    contract: Contract
    calls: tuple[Call, ...] | None = None
    """A probing job (`calls_iter`): what the program returns on these calls, not a verdict."""


@dataclass
class _Batch:
    jobs: list[_Job]
    call: int
    losses: int = 0
    verdict_only: bool = False


@dataclass
class _Node:
    info: NodeInfo
    handle: Any
    alive: bool = True
    jobs_in_flight: int = 0
    batches: int = 0


@dataclass
class Stats:
    """What the dispatcher did, for tests and the bench: jobs in, verdicts out, batches lost."""

    jobs_submitted: int = 0
    batches_sent: int = 0
    batches_lost: int = 0
    jobs_lost_for_good: int = 0
    nodes_lost: list[str] = field(default_factory=list)
    verdicts_filled: int = 0


class RayOracle:
    """An oracle whose sandbox pools are the Ray cluster's nodes (one judge actor per node)."""

    def __init__(
        self,
        ray: Any,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Any = None,
        without: tuple[str, ...] = (),
    ) -> None:
        self._ray = ray
        requested = isolation
        if requested == "auto":
            requested = os.environ.get(SANDBOX_ENV, "auto").strip().lower() or "auto"
        self._options = (requested, workers, limits, tuple(without), os.environ.get("SKYT_HOME"))
        self._remote_judge = ray.remote(NodeJudge)
        self._nodes: dict[str, _Node] = {}
        self._tried: set[str] = set()
        self._queue: collections.deque[_Batch] = collections.deque()
        self._changed = threading.Condition()
        self._closing = False
        self._broken: str | None = None
        self._calls = 0
        self._stopped: set[int] = set()
        """Calls whose caller stopped reading: their lost batches are not retried."""
        self.stats = Stats()
        self._start_judges(self._fresh_nodes(), first=True)
        self._thread = threading.Thread(target=self._dispatch, name="skyt-ray-oracle", daemon=True)
        self._thread.start()

    def _live(self) -> list[_Node]:
        """The nodes judging now, in the order their judges started (a snapshot: the dispatcher
        adds nodes while other threads read)."""
        return [node for node in list(self._nodes.values()) if node.alive]

    @property
    def nodes(self) -> tuple[NodeInfo, ...]:
        """The nodes judging now, in the order their judges started."""
        return tuple(node.info for node in self._live())

    @property
    def isolation(self) -> str:
        """ "bubblewrap" when every node sandboxes with it, else "reduced" (each verdict says its node's)."""
        modes = {info.isolation for info in self.nodes}
        return "bubblewrap" if modes == {"bubblewrap"} else "reduced"

    @property
    def layers(self) -> tuple[str, ...]:
        """The layers in force on every node (what holds wherever a sample ran)."""
        infos = self.nodes
        if not infos:
            return ()
        return tuple(
            layer for layer in infos[0].layers if all(layer in info.layers for info in infos)
        )

    @property
    def workers(self) -> int:
        return sum(info.workers for info in self.nodes)

    def jobs_in_flight(self) -> dict[str, int]:
        """Jobs sent to each live node and not yet back, by node id."""
        return {node.info.node_id: node.jobs_in_flight for node in self._live()}

    def judges(self) -> dict[str, Any]:
        """Actor handles of the live judges by node id (repair tasks verify on their own node's)."""
        return {node.info.node_id: node.handle for node in self._live()}

    def check(self, contract: Contract, code: str, *, verdict_only: bool = False) -> Verdict:
        return self.check_many([(contract, code)], verdict_only=verdict_only)[0]

    def check_many(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> list[Verdict]:
        """Verdicts in input order (`Oracle.check_many`, on the cluster's nodes)."""
        return list(self.check_iter(jobs, dedupe=dedupe, verdict_only=verdict_only))

    def check_iter(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> Iterator[Verdict]:
        """`check_many`'s verdicts one at a time, in input order, each as soon as it is in.

        `dedupe` and `verdict_only` as `Oracle.check_many` (each node's oracle gets the flag).
        """
        yield from self._run_in_order(
            (
                (contract, code, None, (id(contract), code) if dedupe else None)
                for contract, code in jobs
            ),
            verdict_only,
        )

    def calls_iter(
        self, jobs: Sequence[tuple[Contract, str, Sequence[Call]]]
    ) -> Iterator[CallsResult]:
        """What each program returns on its calls (`Oracle.calls_iter`, on the cluster's nodes),
        in input order, each as soon as it is in: probing's jobs (docs/probe.md). As there, a
        program repeated with the same contract object and calls object runs once."""
        yield from self._run_in_order(
            (contract, code, tuple(calls), (id(contract), code, id(calls)))
            for contract, code, calls in jobs
        )

    def _run_in_order(
        self,
        items: Iterable[tuple[Contract, str, tuple[Call, ...] | None, Hashable | None]],
        verdict_only: bool = False,
    ) -> Iterator[Any]:
        """One job per (contract, code, calls, seen) item, each result in input order: an item
        whose `seen` key an earlier item had is that item's copy and does not run (None: never a
        copy); `calls` None judges the program, else runs those calls (a probing job)."""
        if self._broken:
            raise ExecutorError(self._broken)
        with self._changed:
            self._calls += 1
            call = self._calls
        keys: dict[int, str] = {}
        first_of: dict[Hashable, int] = {}
        entries: list[tuple[str, Any]] = []
        runnable: list[_Job] = []
        for position, (contract, code, calls, seen) in enumerate(items):
            if seen is not None:
                if seen in first_of:
                    entries.append(("copy", first_of[seen]))
                    continue
                first_of[seen] = position
            key = keys.get(id(contract))
            if key is None:
                key = keys[id(contract)] = contract.content_hash()
            job = _Job(key, code, Future(), contract, calls)
            runnable.append(job)
            entries.append(("run", job.future))
        yield from self._in_order(call, entries, runnable, verdict_only)

    def _in_order(
        self,
        call: int,
        entries: list[tuple[str, Any]],
        runnable: list[_Job],
        verdict_only: bool = False,
    ) -> Iterator[Any]:
        """Queue `runnable` in batches and yield each entry's result in input order ("copy"
        entries repeat an earlier position's); `verdict_only` as `check_iter`'s."""
        size = self._batch_size(len(runnable))
        batches = [
            _Batch(runnable[start : start + size], call, verdict_only=verdict_only)
            for start in range(0, len(runnable), size)
        ]
        with self._changed:
            self.stats.jobs_submitted += len(runnable)
            self._queue.extend(batches)
            self._changed.notify_all()
        originals = {entry[1] for entry in entries if entry[0] == "copy"}
        kept: dict[int, Any] = {}
        finished = False
        try:
            for position, entry in enumerate(entries):
                if entry[0] == "copy":
                    verdict = kept[entry[1]]
                else:
                    verdict = entry[1].result()
                if position in originals:
                    kept[position] = verdict
                entries[position] = ("", None)
                yield verdict
            finished = True
        finally:
            if not finished:
                self._drop_call(call)

    def close(self) -> None:
        """Stop dispatching, fail what waits, and end every judge (at once when one still works)."""
        with self._changed:
            if self._closing:
                return
            self._closing = True
            self._changed.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=CLOSE_TIMEOUT_S)
        with self._changed:
            waiting, self._queue = list(self._queue), collections.deque()
        for batch in waiting:
            self._fail(batch, "the oracle was closed")
        every = list(self._nodes.values())
        busy = [node for node in every if node.jobs_in_flight]
        idle = [node for node in every if node.alive and not node.jobs_in_flight]
        if idle:
            try:
                self._ray.get(
                    [node.handle.close.remote() for node in idle], timeout=CLOSE_TIMEOUT_S
                )
            except Exception:  # noqa: BLE001 - a judge that cannot close is killed below
                pass
        for node in every:
            if node.alive or node in busy:
                self._kill(node)

    def __enter__(self) -> RayOracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _batch_size(self, count: int) -> int:
        """Enough batches to keep every worker fed (four per worker), none over MAX_BATCH."""
        workers = max(1, self.workers)
        return max(1, min(MAX_BATCH, math.ceil(count / (4 * workers))))

    def _drop_call(self, call: int) -> None:
        """The caller stopped reading (an error, Ctrl-C): its batches not yet sent are dropped,
        and those in flight are not retried if their node is lost."""
        with self._changed:
            self._stopped.add(call)
            kept = collections.deque(batch for batch in self._queue if batch.call != call)
            dropped = [batch for batch in self._queue if batch.call == call]
            self._queue = kept
        for batch in dropped:
            for job in batch.jobs:
                job.future.cancel()

    def _fresh_nodes(self) -> list[tuple[str, int]]:
        """(node id, CPUs) of the live nodes with CPUs that have no judge yet, nor had one."""
        found = []
        for node in self._ray.nodes():
            node_id = node.get("NodeID")
            cpus = int(node.get("Resources", {}).get("CPU", 0))
            if node.get("Alive") and cpus > 0 and node_id not in self._tried:
                found.append((node_id, cpus))
        return found

    def _start_judges(self, fresh: list[tuple[str, int]], *, first: bool = False) -> None:
        """Start a judge on each node and wait for its report; on the first start, a node that
        cannot judge as asked is an error naming it (later, it is left out)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if first and not fresh:
            raise ExecutorError(
                "the Ray cluster has no node with CPUs to run the sandbox on "
                "(start one with `ray start --address HEAD:PORT --num-cpus N`)"
            )
        requested, workers, limits, without, home = self._options
        started = []
        for node_id, cpus in fresh:
            self._tried.add(node_id)
            per_node = workers or cpus
            handle = self._remote_judge.options(
                num_cpus=0,
                max_concurrency=max(16, JOBS_PER_WORKER * per_node + 16),
                max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(requested, per_node, limits, without, home)
            started.append((node_id, handle))
        asked = [handle.describe.remote() for _, handle in started]
        ready, _ = self._ray.wait(asked, num_returns=len(asked), timeout=STARTUP_TIMEOUT_S)
        alive = {node["NodeID"] for node in self._ray.nodes() if node.get("Alive")}
        problems = []
        mine = source_digest()
        for (node_id, handle), ref in zip(started, asked):
            where = f"node {node_id[:8]}"
            problem = None
            try:
                report = self._ray.get(ref) if ref in ready else None
            except Exception as exc:  # noqa: BLE001 - any failure to start is this node's
                report = None
                if node_id not in alive:
                    self._kill_handle(handle)  # lost while starting: the others go on without it
                    continue
                problem = f"{where}: its judge did not start: {_first_line(exc)}"
            if report is None and problem is None:
                problem = f"{where}: its judge did not answer within {STARTUP_TIMEOUT_S:g} s"
            elif report is not None:
                where = f"node {report['address']} ({node_id[:8]})"
                if report.get("problem"):
                    problem = f"{where}: {report['problem']}"
                elif report.get("source") != mine:
                    problem = (
                        f"{where} runs skyt-tui {report.get('version')} from other sources "
                        f"(digest {str(report.get('source'))[:12]}, here {mine[:12]}): install "
                        "the same skyt-tui on every node"
                    )
            if problem is not None or report is None:
                problems.append(problem or where)
                self._kill_handle(handle)
                continue
            info = NodeInfo(
                node_id=node_id,
                address=str(report["address"]),
                hostname=str(report["hostname"]),
                isolation=str(report["isolation"]),
                layers=tuple(report["layers"]),
                workers=int(report["workers"]),
                requested=requested,
            )
            self._nodes[node_id] = _Node(info, handle)
        if first and not problems and not self._nodes:
            problems.append("every node of the Ray cluster was lost while its judge started")
        if first and problems:
            for node in list(self._nodes.values()):
                self._kill(node)
            raise ExecutorError(printable(problems[0]))

    def _dispatch(self) -> None:
        """The one thread that sends batches, collects verdicts and handles lost nodes."""
        in_flight: dict[Any, tuple[_Node, _Batch]] = {}
        while True:
            with self._changed:
                while not self._closing and not self._queue and not in_flight:
                    self._changed.wait()
                if self._closing:
                    return
                self._send_what_fits(in_flight)
            if not in_flight:
                if self._queue and not self._live():
                    self._revive_or_give_up()
                continue
            ready, _ = self._ray.wait(list(in_flight), num_returns=1, timeout=POLL_S)
            for ref in ready:
                node, batch = in_flight.pop(ref)
                self._collect(ref, node, batch)

    def _send_what_fits(self, in_flight: dict[Any, tuple[_Node, _Batch]]) -> None:
        """Give each live node batches while it has room, the least busy node first (lock held)."""
        while self._queue:
            size = len(self._queue[0].jobs)
            roomy = [
                node
                for node in self._live()
                if node.jobs_in_flight + size <= max(JOBS_PER_WORKER * node.info.workers, 2 * size)
            ]
            if not roomy:
                return
            node = min(roomy, key=lambda n: (n.jobs_in_flight / n.info.workers, n.batches))
            batch = self._queue.popleft()
            contracts = {job.key: job.contract for job in batch.jobs}
            if batch.jobs[0].calls is not None:  # a batch comes from one call: all probing, or none
                ref = node.handle.calls.remote(
                    contracts, [(job.key, job.code, job.calls) for job in batch.jobs]
                )
            else:
                ref = node.handle.judge.remote(
                    contracts, [(job.key, job.code) for job in batch.jobs], batch.verdict_only
                )
            in_flight[ref] = (node, batch)
            node.jobs_in_flight += len(batch.jobs)
            node.batches += 1
            self.stats.batches_sent += 1

    def _collect(self, ref: Any, node: _Node, batch: _Batch) -> None:
        exceptions = self._ray.exceptions
        node.jobs_in_flight -= len(batch.jobs)
        try:
            verdicts = self._ray.get(ref)
        except exceptions.RayTaskError as exc:
            self._fail(batch, f"node {node.info.address}: {_first_line(exc)}")
            return
        except exceptions.RayError as exc:
            self._lose(node, exc)
            self._retry(batch)
            return
        for job, verdict in zip(batch.jobs, verdicts):
            if _settle(job.future, verdict):
                self.stats.verdicts_filled += 1

    def _retry(self, batch: _Batch) -> None:
        """Back to the front of the queue; split, or given up on, after repeated losses."""
        self.stats.batches_lost += 1
        batch.losses += 1
        if batch.losses >= SPLIT_AFTER_LOSSES and len(batch.jobs) > 1:
            again = [
                _Batch([job], batch.call, batch.losses, batch.verdict_only) for job in batch.jobs
            ]
        elif batch.losses > SPLIT_AFTER_LOSSES:
            [job] = batch.jobs
            reason = f"lost with its Ray node {batch.losses} times"
            verdict: Any = (
                lost_verdict(job.contract, job.code, reason, self.isolation)
                if job.calls is None
                else CallsResult("worker_lost", reason, (CallOutput(MISSING),) * len(job.calls))
            )
            if _settle(job.future, verdict):
                self.stats.jobs_lost_for_good += 1
                self.stats.verdicts_filled += 1
            return
        else:
            again = [batch]
        with self._changed:
            if batch.call in self._stopped:
                for job in batch.jobs:
                    job.future.cancel()
                return
            self._queue.extendleft(reversed(again))
            self._changed.notify_all()
        if not self._live():
            self._revive_or_give_up()

    def _lose(self, node: _Node, reason: BaseException) -> None:
        if not node.alive:
            return
        node.alive = False
        self.stats.nodes_lost.append(node.info.node_id)
        self._kill(node)
        try:
            fresh = self._fresh_nodes()
            if fresh:
                self._start_judges(fresh)
        except Exception:  # noqa: BLE001 - a node that cannot join now is simply not used
            pass

    def _revive_or_give_up(self) -> None:
        """No live judge: start judges on nodes that joined since, or fail every waiting job."""
        try:
            self._start_judges(self._fresh_nodes())
        except Exception:  # noqa: BLE001 - nothing to start on
            pass
        if self._live():
            return
        self._broken = "every node of the Ray cluster judging samples was lost"
        with self._changed:
            waiting, self._queue = list(self._queue), collections.deque()
        for batch in waiting:
            self._fail(batch, self._broken)
        time.sleep(POLL_S)

    def _fail(self, batch: _Batch, reason: str) -> None:
        error = ExecutorError(printable(reason))
        for job in batch.jobs:
            with contextlib.suppress(InvalidStateError):
                if not job.future.done():
                    job.future.set_exception(error)

    def _kill(self, node: _Node) -> None:
        node.alive = False
        self._kill_handle(node.handle)

    def _kill_handle(self, handle: Any) -> None:
        try:
            self._ray.kill(handle, no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass


def _settle(future: Future[Any], verdict: Any) -> bool:
    """Fill a job's future once (a retried batch may come back after all); True when filled now."""
    try:
        if future.done():
            return False
        future.set_result(verdict)
    except InvalidStateError:  # cancelled meanwhile by a caller that stopped reading
        return False
    return True


def _first_line(error: BaseException) -> str:
    """The last meaningful line of a Ray error (its traceback's message), bounded."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, BaseException) and str(cause):
        return " ".join(str(cause).split())[:300]
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return (lines[-1] if lines else type(error).__name__)[:300]
