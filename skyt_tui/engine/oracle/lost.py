"""The verdict of a job whose sandbox was lost for good, judged by the usual rules (docs/oracle.md).

Locally, a sample whose worker dies mid-job gets a `worker_lost` FAIL from the pool's report.
A distributed executor that loses the machine running a job, again and again, gives up the
same way rather than retrying forever: this builds that verdict, with the contract's own
constraint outcomes, without running anything.
"""

from __future__ import annotations

from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.oracle.plan import Plan
from skyt_tui.engine.oracle.verdicts import Verdict
from skyt_tui.engine.sandbox.pool import RunResult


def lost_verdict(contract: Contract, code: str, reason: str, isolation: str) -> Verdict:
    """`worker_lost` with `reason`, or the verdict that needs no sandbox (too large, syntax error)."""
    plan = Plan(contract)
    early, checks = plan.early_verdict(code, isolation)
    if early is not None:
        return early
    lost = RunResult(b"", b"", b"", 0, None, None, False, None, reason, 0.0)
    return plan.verdict(lost, checks, isolation)
