"""Repair searches on worker processes, verdicts from the parent's oracle.

The search is CPU-bound pure-Python AST work (parse, transform, unparse,
measure), so threads of one process share one core. Here each worker process
runs whole repair tasks; when a search needs verdicts it sends the candidate
programs up its pipe and waits, and a thread of the parent answers with the
caller's `verify` (the sandboxed oracle): generated code still runs only in
the sandbox, never in a repair worker, which only parses it.

Results do not depend on the number of workers or on which worker ran what:
repair is a pure function of its task and the verdicts.

A worker runs the tasks of its unit on several threads
(`TASKS_IN_FLIGHT`), with one verdict request out at a time: while it is
out, the other searches go on computing and file their requests, which
leave together in the next message, answered by one oracle call
(`BatchVerifier`). The worker computes while the oracle runs, and one round
trip serves several searches; the search's CPU work is the same. Verdicts,
hence results, are the same. Each worker keeps one
`RewriteCache` per task group (the analysis groups by contract), and a group
goes to one worker whole — largest first, to whichever worker is free — so
that its repairs meet one cache; only a group larger than a worker's share is
cut into consecutive blocks.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from skyt_tui import locations
from skyt_tui.engine.repair.pipeline import RepairResult, RewriteCache, repair


@dataclass(frozen=True)
class RepairTask:
    code: str
    canon_code: str
    kept_names: frozenset[str]
    level: str = "nodoc"
    max_steps: int = 5
    allowed: tuple[str, ...] = ()
    group: Hashable = None
    """Tasks of one group share a rewrite cache (they must share the transformer registry and kept names' meaning)."""
    broken_before: frozenset[str] | None = None
    """The coding rules and patterns of the contract the sample breaks (None: the contract has
    none): a candidate that breaks any other is refused (`accepts`)."""

    def run(
        self, verify: Callable[[Sequence[str]], Sequence[bool]], rewrites: RewriteCache | None
    ) -> RepairResult:
        return repair(
            self.code,
            self.canon_code,
            kept_names=self.kept_names,
            verify=verify,
            level=self.level,
            max_steps=self.max_steps,
            allowed=self.allowed,
            rewrites=rewrites,
        )


Outcome = tuple[bool, frozenset[str] | None]
"""What a repair search needs of a candidate's verdict: (passes the oracle, the keys of the
coding rules and patterns it breaks, None when its contract has none). Every executor caches
this per (contract version, program) and decides with `accepts`."""


def accepts(outcome: Outcome, broken_before: frozenset[str] | None) -> bool:
    """A repair candidate is kept only when it passes and breaks no rule the sample kept (so a
    compliant sample stays compliant): the one rule, on this machine and on a cluster."""
    passed, broken = outcome
    return passed and (broken is None or broken <= (broken_before or frozenset()))


class RepairWorkerError(RuntimeError):
    """A repair worker process failed (its traceback is in the message) or died."""


TaskVerifier = Callable[[int, Sequence[str]], Sequence[bool]]
"""verify(task_index, programs) → one pass/fail per program."""

BatchVerifier = Callable[[Sequence[tuple[int, Sequence[str]]]], Sequence[Sequence[bool]]]
"""verify_many([(task_index, programs), ...]) → one answer list per request, all in one go."""

TASKS_IN_FLIGHT = 8
"""Searches a worker runs at once (threads), whose verdict requests it sends up together."""


class StartedWorkers:
    """Worker processes started ahead (`start_workers`), for the next `repair_in_processes`:
    a worker's interpreter start and imports then overlap the caller's work before the repair.
    Those not taken are stopped by `close`."""

    def __init__(self, count: int) -> None:
        self.idle = [_WorkerProcess() for _ in range(count)]

    def take(self, count: int) -> list[_WorkerProcess]:
        taken, self.idle = self.idle[:count], self.idle[count:]
        return taken

    def close(self) -> None:
        for worker in self.idle:
            worker.stop()
        self.idle = []


def start_workers(count: int) -> StartedWorkers:
    """Start `count` repair worker processes now, for a later `repair_in_processes(started=...)`."""
    return StartedWorkers(count)


def repair_in_processes(
    tasks: Sequence[RepairTask],
    verify: TaskVerifier,
    *,
    workers: int = 2,
    progress: Callable[[int], None] | None = None,
    verify_many: BatchVerifier | None = None,
    started: StartedWorkers | None = None,
) -> list[RepairResult]:
    """Run every task on `workers` worker processes; results in task order.

    `verify` is called from helper threads of this process; `progress(done)`
    from the calling thread, after each finished task. `verify_many`, when
    given, answers a worker's gathered requests at once (default: `verify`
    on each). `started`: processes started ahead, taken first.
    """
    if not tasks:
        return []
    if verify_many is None:

        def verify_many(
            requests: Sequence[tuple[int, Sequence[str]]],
        ) -> list[Sequence[bool]]:
            return [verify(index, programs) for index, programs in requests]

    results: list[RepairResult | None] = [None] * len(tasks)
    chunks = work_units(tasks, workers)
    lock = threading.Lock()
    events: queue.SimpleQueue[BaseException | None] = queue.SimpleQueue()
    """None per finished task, or the error that stopped a helper thread."""

    def next_chunk() -> list[int] | None:
        with lock:
            return chunks.pop(0) if chunks else None

    def serve(worker: _WorkerProcess) -> None:
        try:
            while (chunk := next_chunk()) is not None:
                for index, result in _run_remote(worker, chunk, tasks, verify_many):
                    results[index] = result
                    events.put(None)
        except BaseException as error:  # handed to the calling thread, which raises it
            events.put(error)

    count = max(1, min(workers, len(chunks)))
    workers_started = started.take(count) if started is not None else []
    workers_started += [_WorkerProcess() for _ in range(count - len(workers_started))]
    threads = [
        threading.Thread(target=serve, args=(worker,), name="skyt-repair", daemon=True)
        for worker in workers_started
    ]
    finished = False
    try:
        for thread in threads:
            thread.start()
        for done in range(1, len(tasks) + 1):
            event = events.get()
            if event is not None:
                raise event
            if progress is not None:
                progress(done)
        finished = True
    finally:
        for worker in workers_started:
            worker.stop(kill=not finished)
        for thread in threads:
            thread.join(timeout=5)
    return results  # type: ignore[return-value]


def work_units(tasks: Sequence[RepairTask], workers: int) -> list[list[int]]:
    """Task indexes in the order workers take them: each group whole (blocks of at most a worker's share), largest first."""
    share = max(1, -(-len(tasks) // max(1, workers)))
    groups: dict[Hashable, list[int]] = {}
    for index, task in enumerate(tasks):
        groups.setdefault(task.group, []).append(index)
    units = [
        indexes[start : start + share]
        for indexes in groups.values()
        for start in range(0, len(indexes), share)
    ]
    return sorted(units, key=len, reverse=True)


def _run_remote(
    worker: _WorkerProcess,
    chunk: Sequence[int],
    tasks: Sequence[RepairTask],
    verify_many: BatchVerifier,
) -> Iterator[tuple[int, RepairResult]]:
    """Hand a unit of tasks to a worker, answer its verdict requests, yield (index, result) as they finish."""
    connection = worker.connection
    try:
        connection.send([(index, tasks[index]) for index in chunk])
    except OSError:
        raise RepairWorkerError(f"a repair worker process died{worker.last_words()}") from None
    remaining = len(chunk)
    while remaining:
        try:
            kind, payload = connection.recv()
        except (EOFError, OSError):
            raise RepairWorkerError(f"a repair worker process died{worker.last_words()}") from None
        if kind == "verify":
            answers = verify_many(payload)
            if len(answers) != len(payload):
                raise ValueError(f"verifier answered {len(answers)} of {len(payload)} requests")
            connection.send([[bool(answer) for answer in found] for found in answers])
        elif kind == "done":
            remaining -= 1
            yield payload
        else:
            raise RepairWorkerError(f"repair worker failed:\n{payload}")


class _WorkerProcess:
    """One `python -m skyt_tui.engine.repair.parallel` child, talking pickles over two pipes.

    A plain subprocess rather than multiprocessing's spawn: spawn re-imports the
    caller's main script, which breaks callers whose script is not guarded by
    `if __name__ == "__main__"`. The child imports this package from where the
    parent found it.
    """

    def __init__(self) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        package_root = str(locations.package_dir().parent)
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                filter(None, [package_root, os.environ.get("PYTHONPATH")])
            ),
        }
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "skyt_tui.engine.repair.parallel",
                str(to_child_read),
                str(from_child_write),
            ],
            pass_fds=(to_child_read, from_child_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            env=env,
            cwd=package_root,  # `-m` puts the working directory first on the path: import the parent's code
            close_fds=True,
        )
        os.close(to_child_read)
        os.close(from_child_write)
        self.connection = _Duplex(
            Connection(from_child_read, writable=False), Connection(to_child_write, readable=False)
        )

    def last_words(self) -> str:
        """The end of the child's stderr, for an error message."""
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return ""
        self.stderr.seek(0)
        text = self.stderr.read().decode("utf-8", "replace").strip()
        tail = text.splitlines()[-1] if text else ""
        return f" (exit code {self.process.returncode}{': ' + tail if tail else ''})"

    def stop(self, *, kill: bool = False) -> None:
        """Ask the child to finish (or kill it, when a task may still be running) and reap it."""
        if kill:
            self.process.kill()
        else:
            try:
                self.connection.send(None)
            except (OSError, ValueError):
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.connection.close()
        self.stderr.close()


class _Duplex:
    """send/recv over a pair of one-way connections."""

    def __init__(self, incoming: Connection, outgoing: Connection) -> None:
        self.incoming = incoming
        self.outgoing = outgoing

    def send(self, message: object) -> None:
        self.outgoing.send(message)

    def recv(self) -> Any:
        return self.incoming.recv()

    def close(self) -> None:
        self.incoming.close()
        self.outgoing.close()


class _Gather:
    """A worker's searches in flight: one verdict request out at a time, carrying every request filed.

    A thread that needs verdicts files its request; if no request is out, it
    sends all filed ones in one message and, lock released, waits for the
    answer while the other threads go on computing (and file theirs for the
    next message). Sends happen under the lock, so messages never
    interleave; only the thread whose request is out reads the connection.
    """

    def __init__(self, connection: _Duplex) -> None:
        self.connection = connection
        self.changed = threading.Condition(threading.Lock())
        self.filed: list[tuple[int, int, list[str]]] = []
        self.answers: dict[int, list[bool]] = {}
        self.tickets = 0
        self.out = False
        self.failure: BaseException | None = None

    def verify(self, index: int, programs: Sequence[str]) -> list[bool]:
        with self.changed:
            self.tickets += 1
            ticket = self.tickets
            self.filed.append((ticket, index, list(programs)))
            while ticket not in self.answers:
                if self.failure is not None:
                    raise RepairWorkerError("the parent stopped answering") from self.failure
                if not self.out:
                    self._exchange()
                else:
                    self.changed.wait()
            return self.answers.pop(ticket)

    def send(self, message: object) -> None:
        with self.changed:
            self.connection.send(message)

    def _exchange(self) -> None:
        """Send the filed requests and wait for the answer, the lock released meanwhile (called holding it)."""
        filed, self.filed = self.filed, []
        self.out = True
        try:
            self.connection.send(("verify", [(index, programs) for _, index, programs in filed]))
            self.changed.release()
            try:
                replies: list[list[bool]] = self.connection.recv()
            finally:
                self.changed.acquire()
        except BaseException as error:
            self.failure = error
            raise
        finally:
            self.out = False
            self.changed.notify_all()
        for (ticket, _, _), reply in zip(filed, replies):
            self.answers[ticket] = reply


def _worker(connection: _Duplex) -> None:
    """A repair worker: run units of tasks until told to stop, asking the parent for verdicts."""
    caches: dict[Hashable, RewriteCache] = {}

    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        _run_unit(connection, message, caches)


def _run_unit(
    connection: _Duplex,
    unit: list[tuple[int, RepairTask]],
    caches: dict[Hashable, RewriteCache],
) -> None:
    """Run one unit's tasks on up to `TASKS_IN_FLIGHT` threads; report each as it finishes."""
    pending = list(reversed(unit))
    count = max(1, min(TASKS_IN_FLIGHT, len(unit)))
    gather = _Gather(connection)
    take = threading.Lock()

    def run() -> None:
        while True:
            with take:
                if not pending:
                    return
                index, task = pending.pop()
                rewrites = caches.setdefault(task.group, RewriteCache())
            try:
                result = task.run(partial(gather.verify, index), rewrites)
            except RepairWorkerError:
                return
            except Exception:  # reported to the parent, which raises it
                gather.send(("error", traceback.format_exc()))
                return
            gather.send(("done", (index, result)))

    threads = [threading.Thread(target=run, name="skyt-repair-task") for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    from skyt_tui.engine.repair.parallel import _Duplex as Duplex
    from skyt_tui.engine.repair.parallel import _worker as worker

    worker(
        Duplex(
            Connection(int(sys.argv[1]), writable=False),
            Connection(int(sys.argv[2]), readable=False),
        )
    )
