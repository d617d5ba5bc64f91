"""Which executor runs the analysis's independent work: chosen once per process (docs/scaling.md).

The local executor is today's machine: one warm sandbox pool (`oracle.judge.Oracle`), repair
searches on this machine's processes, per-run work in this process. The Ray executor
(`ray_executor`) runs the same functions on a Ray cluster. The pipeline asks the current
executor for its oracle (`oracle()`), maps its per-run stages over it (`map`) and hands it the
repair searches (`repair`); what comes back is the same either way, in the same order.

`choose_executor` is called by the command line (`--executor`, `--ray-address`, settings.toml's
`run.executor`) and by the app's analysis process before any work starts; without it, the
executor is the local one. Nothing here imports Ray.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from skyt_tui.engine.errors import SkytError

if TYPE_CHECKING:
    from skyt_tui.engine.contracts.contract import Contract
    from skyt_tui.engine.oracle.judge import Oracle
    from skyt_tui.engine.oracle.outputs import Call, CallsResult
    from skyt_tui.engine.oracle.verdicts import Verdict
    from skyt_tui.engine.repair.parallel import RepairTask
    from skyt_tui.engine.repair.pipeline import RepairResult

EXECUTORS = ("local", "ray")
RAY_EXTRA = "pip install 'skyt-tui[ray]'"


class ExecutorError(SkytError):
    """The chosen executor cannot run here: the ray extra is missing, no cluster is reachable,
    a node cannot sandbox as asked, or the cluster was lost."""


class Judge(Protocol):
    """What the pipeline needs of an oracle: `Oracle` on this machine, `RayOracle` on a cluster."""

    @property
    def isolation(self) -> str: ...

    @property
    def layers(self) -> tuple[str, ...]: ...

    @property
    def workers(self) -> int: ...

    def check(self, contract: Contract, code: str, *, verdict_only: bool = False) -> Verdict: ...

    def check_many(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> list[Verdict]: ...

    def check_iter(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> Iterator[Verdict]: ...

    def calls_iter(
        self, jobs: Sequence[tuple[Contract, str, Sequence[Call]]]
    ) -> Iterator[CallsResult]: ...

    def close(self) -> None: ...


class Executor:
    """The local executor: everything on this machine, as skyt-tui always ran."""

    name = "local"
    per_run = False
    """True when `stream` runs each call where the work is (a cluster's node): the analysis then
    hands out one run per call (`analysis.stream`); here, runs are analysed in batches."""

    def __init__(self) -> None:
        self._shared: Judge | None = None
        self._lock = threading.Lock()

    def open_oracle(
        self,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Any = None,
        without: tuple[str, ...] = (),
    ) -> Judge:
        """A new oracle of this executor's (the caller closes it); `limits` is a `sandbox.Limits`."""
        from skyt_tui.engine.oracle.judge import Oracle

        return Oracle(workers=workers, isolation=isolation, limits=limits, without=without)

    def oracle(self) -> Judge:
        """The process's shared oracle (one warm pool), made on first use and closed with the executor."""
        with self._lock:
            if self._shared is None:
                self._shared = self.open_oracle()
            return self._shared

    def owns(self, judge: object) -> bool:
        """True when `judge` is this executor's shared oracle (its repair may then run here too)."""
        return judge is not None and judge is self._shared

    def map(
        self,
        function: Callable[..., Any],
        arguments: Sequence[tuple[Any, ...]],
        *,
        weights: Sequence[int] | None = None,
    ) -> list[Any]:
        """`[function(*args) for args in arguments]`, in order; `weights` (e.g. samples per run)
        let a distributed executor cut the work into even pieces."""
        return [function(*args) for args in arguments]

    def stream(
        self,
        function: Callable[..., Any],
        arguments: Iterable[tuple[Any, ...]],
        *,
        judged: bool = True,
    ) -> Iterator[Any]:
        """`function(executor, *args)` for each of `arguments`, the results in order, each as
        soon as it and those before it are done. `executor` is the executor where the call runs:
        this one here, a node's on a cluster (whose oracle is that node's judge). `arguments`
        are read as calls go out, and a distributed executor has a bounded number out at once,
        however many there are. `judged`: the calls use the oracle."""
        for args in arguments:
            yield function(self, *args)

    def repair(
        self,
        tasks: Sequence[RepairTask],
        contracts: Sequence[Contract],
        progress: Callable[[int], None],
    ) -> list[RepairResult] | None:
        """Repair results in task order, each task verified against its contract; None when the
        searches should run on this machine's repair processes (the pipeline's own choice)."""
        return None

    def describe(self, judge: object = None) -> list[str]:
        """Lines for people: where the work of `judge` (default: the shared oracle) runs and how
        it is isolated there; the local executor says nothing (the commands say the isolation)."""
        return []

    def close(self) -> None:
        with self._lock:
            shared, self._shared = self._shared, None
        if shared is not None:
            shared.close()


_chosen: tuple[str, str | None] = ("local", None)
_current: Executor | None = None
_current_lock = threading.Lock()


def choose_executor(kind: str, address: str | None = None) -> None:
    """Make `kind` ("local" or "ray", at `address`) the executor of this process's analyses.

    A different choice closes the executor in use; the new one starts on first use (or at
    once with `current_executor()`, which reports an unreachable cluster in one line).
    """
    global _chosen, _current
    if kind not in EXECUTORS:
        raise ExecutorError(f"executor must be one of {', '.join(EXECUTORS)}, not {kind!r}")
    with _current_lock:
        if (kind, address) == _chosen:
            return
        _chosen = (kind, address)
        previous, _current = _current, None
    if previous is not None:
        previous.close()


def chosen_executor() -> tuple[str, str | None]:
    """(kind, address) chosen for this process."""
    return _chosen


def current_executor() -> Executor:
    """The chosen executor, started on first use and closed when the process exits."""
    global _current
    with _current_lock:
        if _current is None:
            kind, address = _chosen
            if kind == "ray":
                from skyt_tui.engine.executor.ray_executor import RayExecutor

                _current = RayExecutor.connect(address)
            else:
                _current = Executor()
            atexit.register(_current.close)
        return _current


_local: Executor | None = None


def local_oracle() -> Oracle:
    """This machine's shared oracle whatever the chosen executor: for the work that runs here
    only (a witness's expected output, docs/probe.md). With the local executor it is that
    executor's shared oracle, so there is one warm pool."""
    global _local
    from skyt_tui.engine.oracle.judge import Oracle

    if _chosen[0] == "local":
        executor = current_executor()
    else:
        with _current_lock:
            if _local is None:
                _local = Executor()
                atexit.register(_local.close)
            executor = _local
    judge = executor.oracle()
    if not isinstance(judge, Oracle):  # the local executor's oracle is always one
        raise ExecutorError("this machine's oracle is not a sandbox pool")
    return judge
