"""The Ray executor: the analysis's independent work on an existing Ray cluster (docs/scaling.md).

It connects the way Ray does — `--ray-address` (settings.toml's `run.ray_address`), else
`RAY_ADDRESS`, else `auto` (a cluster started with `ray start` on this machine) — and never
starts a cluster: with none reachable, or without the `ray` extra, it stops with one line. The
oracle is a `RayOracle` (a judge per node). The analysis hands it whole runs (`stream`): each
is one Ray task that judges, repairs and measures the run on its node, verifying on that node's
judge, and the driver gets back the finished run, with a bounded number of runs out at once.
Batches of runs (`--probe`) still go by stage: the per-run stages as Ray tasks over chunks of
runs, repair searches as Ray tasks over units of searches that verify on their node's judge.
Results come back in the order the local executor produces them, and nothing is written on
the workers: the store stays with the command.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from skyt_tui.engine.executor.choice import RAY_EXTRA, Executor, ExecutorError, Judge
from skyt_tui.engine.printable import counted, printable

if TYPE_CHECKING:
    from skyt_tui.engine.contracts.contract import Contract
    from skyt_tui.engine.executor.ray_oracle import RayOracle
    from skyt_tui.engine.repair.parallel import RepairTask
    from skyt_tui.engine.repair.pipeline import RepairResult

CONNECT_TIMEOUT_S = 5.0
"""How long the cluster's address may take to accept a connection before it counts as unreachable."""
TASK_RETRIES = 3
"""Ray retries a task this often when its worker or node is lost (tasks are pure: safe to repeat)."""
SAMPLES_PER_TASK = 400
"""The per-run stages go out in tasks of about this many samples (whole runs)."""
CALLS_IN_FLIGHT_PER_CPU = 2
"""`stream` has at most this many calls (runs) per cluster CPU sent and not yet handed back:
each CPU has one to work on and one waiting, and the driver holds only their references."""


def load_ray() -> Any:
    """The `ray` module, or the one-line reason it is missing."""
    try:
        import ray
    except ImportError:
        raise ExecutorError(f"the Ray executor needs the ray extra: {RAY_EXTRA}") from None
    return ray


def check_reachable(address: str) -> None:
    """A HOST:PORT (or ray://HOST:PORT) address that accepts no connection is one line, at once
    (Ray itself would retry for a minute)."""
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise ExecutorError(
            f"no Ray cluster reachable at {address}: {exc.strerror or exc} "
            "(start one with `ray start --head`, see docs/scaling.md)"
        ) from None


def cluster_messages_to_stderr() -> None:
    """Ray's driver prints the cluster's messages (a node marked dead, a task to be retried) to
    stdout, where this program writes its result (`--json`): send them to stderr instead.

    Ray has no switch for this; its error listener calls `print_to_stdstream` of its worker
    module, which is wrapped here (the kill-a-raylet test checks that stdout stays clean)."""
    import sys

    module = sys.modules.get("ray._private.worker")
    original = getattr(module, "print_to_stdstream", None)
    if original is None or getattr(original, "skyt_to_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        original({**data, "is_err": True}, ignore_prefix)

    to_stderr.skyt_to_stderr = True  # type: ignore[attr-defined]
    module.print_to_stdstream = to_stderr  # type: ignore[union-attr]


class RayExecutor(Executor):
    """The analysis's work on a Ray cluster this process is connected to."""

    name = "ray"
    per_run = True

    def __init__(self, ray: Any, address: str, *, owned: bool) -> None:
        super().__init__()
        self.ray = ray
        self.address = address
        self._owned = owned
        self._opened: list[RayOracle] = []
        self._remote: dict[str, Any] = {}
        self._closed = False

    @classmethod
    def connect(cls, address: str | None = None) -> RayExecutor:
        """Connect to the cluster at `address` (else RAY_ADDRESS, else "auto"); one line if none answers.

        A process already connected (a program embedding skyt-tui that called `ray.init`)
        keeps its connection, and it is left open at exit.
        """
        ray = load_ray()
        if ray.is_initialized():
            return cls(ray, address or "the Ray cluster this process is connected to", owned=False)
        target = address or os.environ.get("RAY_ADDRESS") or "auto"
        check_reachable(target)
        cluster_messages_to_stderr()
        try:
            ray.init(
                address=target,
                log_to_driver=False,
                logging_level=logging.ERROR,
                namespace="skyt-tui",
            )
        except Exception as exc:  # noqa: BLE001 - Ray raises several kinds; all mean "not reachable"
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            reason = lines[0] if lines else type(exc).__name__
            raise ExecutorError(
                printable(f"no Ray cluster reachable at {target}: {reason}")[:400]
            ) from None
        return cls(ray, target, owned=True)

    def open_oracle(
        self,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Any = None,
        without: tuple[str, ...] = (),
    ) -> Judge:
        """A `RayOracle`: a judge per node with `workers` sandbox workers each (default: its CPUs)."""
        from skyt_tui.engine.executor.ray_oracle import RayOracle

        oracle = RayOracle(
            self.ray, workers=workers, isolation=isolation, limits=limits, without=without
        )
        self._opened.append(oracle)
        return oracle

    def cpus(self) -> int:
        """CPUs of the cluster's live nodes."""
        return max(1, int(self.ray.cluster_resources().get("CPU", 1)))

    def map(
        self,
        function: Callable[..., Any],
        arguments: Sequence[tuple[Any, ...]],
        *,
        weights: Sequence[int] | None = None,
    ) -> list[Any]:
        """`function(*args)` for each, as Ray tasks over chunks of about SAMPLES_PER_TASK weight."""
        if not arguments:
            return []
        from skyt_tui.engine.executor.ray_tasks import apply_all

        apply = self._remote_function("apply_all", apply_all)
        chunks = _chunks(len(arguments), weights, SAMPLES_PER_TASK)
        results: list[Any] = []
        calls = [(function, [arguments[i] for i in chunk]) for chunk in chunks]
        for part in self._gather(apply, calls):
            results.extend(part)
        return results

    def stream(
        self,
        function: Callable[..., Any],
        arguments: Iterable[tuple[Any, ...]],
        *,
        judged: bool = True,
    ) -> Iterator[Any]:
        """Each call a Ray task (`ray_tasks.on_node`) given the node's executor, whose oracle is
        the node judges; results in order, at most `CALLS_IN_FLIGHT_PER_CPU` per CPU out."""
        from skyt_tui.engine.executor.ray_oracle import RayOracle
        from skyt_tui.engine.executor.ray_tasks import ClusterInfo, on_node

        judges: dict[str, Any] = {}
        cluster = None
        if judged:
            oracle = self.oracle()
            assert isinstance(oracle, RayOracle)  # this executor's oracles are
            judges = oracle.judges()
            cluster = ClusterInfo(oracle.isolation, oracle.layers, oracle.workers)
        remote = self._remote_function("on_node", on_node)
        calls = ((function, args, judges, cluster) for args in arguments)
        yield from self._gather(remote, calls, window=CALLS_IN_FLIGHT_PER_CPU * self.cpus())

    def repair(
        self,
        tasks: Sequence[RepairTask],
        contracts: Sequence[Contract],
        progress: Callable[[int], None],
    ) -> list[RepairResult] | None:
        """Repair searches as Ray tasks, each unit verifying on its node's judge; results in order."""
        if not tasks:
            return []
        from skyt_tui.engine.executor.ray_tasks import contract_keys, repair_unit
        from skyt_tui.engine.repair.parallel import work_units

        judges = self._shared_judges()
        task_keys, by_key = contract_keys(contracts)
        remote = self._remote_function("repair_unit", repair_unit)
        call = uuid.uuid4().hex
        cpus = self.cpus()
        arguments = []
        for unit in work_units(tasks, cpus):
            used = {task_keys[index] for index in unit}
            payload = [(index, tasks[index], task_keys[index]) for index in unit]
            arguments.append((call, payload, {key: by_key[key] for key in used}, judges))
        results: list[RepairResult | None] = [None] * len(tasks)
        done = 0
        for part in self._gather(remote, arguments, window=cpus, ordered=False):
            for index, result in part:
                results[index] = result
            done += len(part)
            progress(done)
        return results  # type: ignore[return-value]

    def describe(self, judge: object = None) -> list[str]:
        """One line for the cluster, one per node judging (isolation, layers, workers)."""
        from skyt_tui.engine.executor.ray_oracle import RayOracle

        judge = self._shared if judge is None else judge
        if not isinstance(judge, RayOracle):
            return [f"Ray cluster at {self.address}"]
        infos = judge.nodes
        return [f"Ray cluster at {self.address}: {counted(len(infos), 'node')} judging samples"] + [
            info.describe() for info in infos
        ]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        super().close()
        for oracle in self._opened:
            oracle.close()
        if self._owned and self.ray.is_initialized():
            with contextlib.suppress(Exception):
                self.ray.shutdown()

    def _shared_judges(self) -> dict[str, Any]:
        from skyt_tui.engine.executor.ray_oracle import RayOracle

        oracle = self.oracle()
        assert isinstance(oracle, RayOracle)  # this executor's oracles are
        return oracle.judges()

    def _remote_function(self, name: str, function: Callable[..., Any]) -> Any:
        if name not in self._remote:
            self._remote[name] = self.ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(function)
        return self._remote[name]

    def _gather(
        self,
        remote: Any,
        calls: Iterable[tuple[Any, ...]],
        *,
        window: int | None = None,
        ordered: bool = True,
    ) -> Any:
        """Run `remote` on each call's arguments, with at most `window` tasks sent and not yet
        handed back (all at once without one); yield the results in call order, or, not
        `ordered`, as they finish. `calls` are read as tasks go out. A repair task waiting for
        verdicts lends its CPU to Ray, which would start another task (and worker process) on
        it: the window keeps the cluster at one search task per CPU. The tasks left are
        cancelled when the caller stops (an error, Ctrl-C); Ray's lost-work errors are one line."""
        ray = self.ray
        queued = iter(calls)
        out: collections.deque[Any] = collections.deque()
        limit = max(1, window) if window is not None else None
        more = True
        try:
            while True:
                while more and (limit is None or len(out) < limit):
                    call = next(queued, None)
                    if call is None:
                        more = False
                        break
                    out.append(remote.remote(*call))
                if not out:
                    return
                if ordered:
                    ref = out.popleft()
                else:
                    [ref], rest = ray.wait(list(out), num_returns=1)
                    out = collections.deque(rest)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, BaseException):
                        raise cause from None
                    raise
                except ray.exceptions.RayError as exc:
                    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
                    raise ExecutorError(
                        printable(
                            f"the Ray cluster lost a task {TASK_RETRIES + 1} times: "
                            f"{lines[0] if lines else type(exc).__name__}"
                        )[:400]
                    ) from None
                del ref
                yield result
        finally:
            for ref in out:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)


def _chunks(count: int, weights: Sequence[int] | None, target: int) -> list[list[int]]:
    """Consecutive index chunks of about `target` total weight (at least one item each)."""
    chunks: list[list[int]] = []
    current: list[int] = []
    total = 0
    for index in range(count):
        current.append(index)
        total += max(1, weights[index]) if weights is not None else 1
        if total >= target:
            chunks.append(current)
            current, total = [], 0
    if current:
        chunks.append(current)
    return chunks
