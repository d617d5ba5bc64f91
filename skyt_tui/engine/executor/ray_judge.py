"""On each Ray node, one actor: a warm sandbox pool that judges batches of samples (docs/scaling.md).

`NodeJudge` is a plain class; `ray_oracle` makes it a Ray actor pinned to its node. It holds an
`oracle.judge.Oracle` — the same warm pool, isolation layers and verdict rules as on one
machine — so a sample judged on a node gets the verdict it gets locally. The verdict is
computed in the actor's process, outside the sandbox, as the local oracle computes it outside
its sandbox. The actor writes nothing but the sandbox's temporary space.

A node whose pool cannot start as asked (`--isolation bubblewrap` where bubblewrap does not
work) does not fail obscurely: `describe()` says why, and the driver refuses the cluster in one
line naming the node. `source_digest()` lets the driver refuse a node whose skyt-tui differs
from its own: the same numbers need the same code.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
import threading
from typing import Any

from skyt_tui import __version__, locations
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.oracle.judge import Oracle
from skyt_tui.engine.oracle.outputs import Call, CallsResult
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.repair.parallel import Outcome
from skyt_tui.engine.versions import ORACLE_VERSION


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 over skyt-tui's Python sources as installed here (paths and contents, sorted)."""
    root = locations.package_dir()
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts or path.is_symlink():
            continue
        digest.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def give_up_oom_preference() -> None:
    """Ray makes its workers the OOM killer's first choice (oom_score_adj 1000), and the sandbox's
    zygotes would inherit it: where they cannot lower it themselves (no CAP_SYS_RESOURCE), a
    sample filling its memory cgroup could get its zygote killed instead of itself. Back to 0,
    as the app is on one machine, so the samples alone volunteer (docs/oracle.md)."""
    path = "/proc/self/oom_score_adj"
    try:
        with open(path) as handle:
            if int(handle.read().strip() or 0) <= 0:
                return
        with open(path, "w") as handle:
            handle.write("0")
    except (OSError, ValueError):
        pass


class NodeJudge:
    """One node's oracle. Calls come from the driver's dispatcher (batches) and from repair tasks
    (candidate programs); the actor runs them on threads, and the pool behind is thread-safe."""

    def __init__(
        self,
        isolation: str,
        workers: int | None,
        limits: Any,
        without: tuple[str, ...],
        store_home: str | None,
    ) -> None:
        """`store_home`: the driver's SKYT_HOME, hidden from samples here too (it is a path on the
        driver's machine, which is this one in a local cluster)."""
        if store_home:
            os.environ["SKYT_HOME"] = store_home
        give_up_oom_preference()
        self.problem: str | None = None
        self.oracle: Oracle | None = None
        self._contracts: dict[str, Contract] = {}
        self._lock = threading.Lock()
        try:
            self.oracle = Oracle(
                workers=workers, isolation=isolation, limits=limits, without=without
            )
        except SkytError as exc:
            self.problem = str(exc)

    def describe(self) -> dict[str, Any]:
        """Who this node is and how it sandboxes (or why it cannot)."""
        from skyt_tui.engine.executor.ray_executor import load_ray

        ray = load_ray()
        oracle = self.oracle
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "address": ray.util.get_node_ip_address(),
            "hostname": socket.gethostname(),
            "pid": os.getpid(),
            "version": __version__,
            "oracle_version": ORACLE_VERSION,
            "source": source_digest(),
            "problem": self.problem,
            "isolation": oracle.isolation if oracle else None,
            "layers": list(oracle.layers) if oracle else [],
            "workers": oracle.workers if oracle else 0,
        }

    def judge(
        self,
        contracts: dict[str, Contract],
        jobs: list[tuple[str, str]],
        verdict_only: bool = False,
    ) -> list[Verdict]:
        """Verdicts of (contract key, program) jobs in order; `contracts` holds every key used;
        `verdict_only` as `Oracle.check_many`."""
        oracle = self._ready()
        known = self._known(contracts)
        return oracle.check_many(
            [(known[key], code) for key, code in jobs], verdict_only=verdict_only
        )

    def calls(
        self, contracts: dict[str, Contract], jobs: list[tuple[str, str, tuple[Call, ...]]]
    ) -> list[CallsResult]:
        """What each (contract key, program, calls) job returns on its calls, in order
        (`Oracle.calls_iter`): probing on this node (docs/probe.md)."""
        oracle = self._ready()
        known = self._known(contracts)
        return list(oracle.calls_iter([(known[key], code, calls) for key, code, calls in jobs]))

    def verify(self, contracts: dict[str, Contract], jobs: list[tuple[str, str]]) -> list[Outcome]:
        """What a repair search asks of the oracle about each job: (passes, the keys of the
        contract's coding rules and patterns it breaks, None when it has none), as the local
        analysis takes it from the same verdict. The answer stays small: a flag and at most the
        contract's own rule keys per program, never the verdict's outputs."""
        oracle = self._ready()
        known = self._known(contracts)
        verdicts = oracle.check_many(
            [(known[key], code) for key, code in jobs], dedupe=True, verdict_only=True
        )
        return [(verdict.passed, verdict.broken) for verdict in verdicts]

    def close(self) -> None:
        if self.oracle is not None:
            self.oracle.close()

    def _ready(self) -> Oracle:
        if self.oracle is None:
            raise SkytError(self.problem or "the sandbox pool did not start")
        return self.oracle

    def _known(self, contracts: dict[str, Contract]) -> dict[str, Contract]:
        """One object per contract key, so the oracle's compiled plans are reused across batches."""
        with self._lock:
            for key, contract in contracts.items():
                self._contracts.setdefault(key, contract)
            return self._contracts
