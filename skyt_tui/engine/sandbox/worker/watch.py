"""The watch over one job: the zygote waits for the job's processes, collects what they write,
enforces the deadline and the output, result and disk caps, then kills and reaps them all."""

from __future__ import annotations

import os
import selectors
import signal
import time
from typing import TYPE_CHECKING, Any

from .processes import exit_info, group_alive, kill_escaped_children

if TYPE_CHECKING:
    from .checker import Checker
    from .zygote import Zygote


class Watch:
    """Waits for one job's processes: collects their pipes, enforces deadline and caps."""

    TICK_S = 0.05
    """How often a running job's disk use is measured (and the longest wait without a pidfd)."""

    def __init__(
        self,
        zygote: Zygote,
        job: dict[str, Any],
        deadline: float,
        sample_pid: int,
        checker: Checker | None,
        sample_fd: int,
        output_fd: int,
        checker_fd: int | None,
    ) -> None:
        self.zygote = zygote
        self.limits = zygote.limits
        self.deadline = deadline
        self.pids = [sample_pid]
        self.checker = checker
        self.checker_finished = checker is None
        """The checker closed this job's result pipe: its checks are done."""
        self.checker_exit: dict[str, int | None] | None = None
        """The warm checker ended during the job."""
        self.checker_killed = False
        self.exits: dict[int, dict[str, int | None]] = {}
        self.streams = {"sample": bytearray(), "checker": bytearray()}
        self.output = bytearray()
        self.output_total = 0
        self.timed_out = False
        self.limit: str | None = None
        self.selector = selectors.DefaultSelector()
        self.pipes = {
            fd: role
            for fd, role in ((sample_fd, "sample"), (output_fd, "output"), (checker_fd, "checker"))
            if fd is not None
        }
        for fd, role in self.pipes.items():
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ, role)
        self.pidfds: list[int] = []
        for pid in self.pids:
            try:
                pidfd = os.pidfd_open(pid)
            except (AttributeError, OSError):
                continue
            self.pidfds.append(pidfd)
            self.selector.register(pidfd, selectors.EVENT_READ, "exit")
        self.checker_pidfd = checker.pidfd if checker is not None else None
        if self.checker_pidfd is not None:  # the checker's own: not closed with the job's
            self.selector.register(self.checker_pidfd, selectors.EVENT_READ, "exit")
        os.set_blocking(zygote.jobs_fd, False)
        self.selector.register(zygote.jobs_fd, selectors.EVENT_READ, "parent")

    def run(self) -> None:
        """Return when every process exited, the deadline passed or a cap was hit."""
        next_disk_check = time.monotonic() + self.TICK_S
        polled = len(self.pidfds) == len(self.pids) and (
            self.checker is None or self.checker_pidfd is not None
        )
        while True:
            self.reap()
            if all(pid in self.exits for pid in self.pids) and (
                self.checker_finished or self.checker_exit is not None
            ):
                return
            now = time.monotonic()
            if now >= self.deadline:
                self.timed_out = True
                return
            wait = min(self.deadline - now, self.TICK_S if polled else 0.005)
            for key, _ in self.selector.select(wait):
                if key.data == "parent":
                    if self.zygote.parent_gone():
                        self.stop_everything()
                        os._exit(0)
                elif key.data == "exit":
                    self.selector.unregister(key.fd)
                    if key.fd == self.checker_pidfd:
                        self.checker_pidfd = None
                elif self.read(key.fd, key.data) == "eof":
                    self.selector.unregister(key.fd)
                if self.limit:
                    return
            if time.monotonic() >= next_disk_check:
                next_disk_check = time.monotonic() + self.TICK_S
                if self.zygote.over_disk_limit():
                    self.limit = "disk"
                    return

    def read(self, fd: int, role: str) -> str:
        """One read: "data", "again" (nothing available) or "eof"."""
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return "again"
        except OSError:
            return "eof"
        if not chunk:
            if role == "checker":
                self.checker_finished = True
            return "eof"
        if role == "output":
            self.output_total += len(chunk)
            room = self.limits["output_keep"] - len(self.output)
            if room > 0:
                self.output += chunk[:room]
            if self.output_total > self.limits["output_bytes"]:
                self.limit = self.limit or "output"
        else:
            stream = self.streams[role]
            stream += chunk
            if len(stream) > self.limits["result_bytes"]:
                self.limit = self.limit or "result"
        return "data"

    def reap(self) -> None:
        for pid in self.pids:
            if pid not in self.exits:
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    self.exits[pid] = {"code": None, "signal": None}
                    continue
                if done:
                    self.exits[pid] = exit_info(status)
        if self.checker is not None and self.checker_exit is None and not self.checker.alive():
            self.checker_exit = self.checker.exit

    def stop_everything(self) -> None:
        """SIGKILL the job's process groups, reap every child, keep what was written, close the
        pipes. A checker still inside this job's checks is killed first (and never reused), so
        it cannot report on a sample that is already gone."""
        checker = self.checker
        if checker is not None and not self.checker_finished and self.checker_exit is None:
            try:
                os.killpg(checker.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.checker_killed = True
        for pid in self.pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for _ in range(500):
            self.reap_all()
            alive = [pid for pid in self.pids if group_alive(pid)]
            if not alive:
                break
            for pid in alive:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.001)
        # the warm checker is the zygote's, whether or not this job used it: spare it
        kill_escaped_children(self.zygote.checker)
        for fd, role in self.pipes.items():
            while not (self.limit and role != "output") and self.read(fd, role) == "data":
                pass
        self.selector.close()
        for fd in [*self.pipes, *self.pidfds]:
            os.close(fd)
        self.pipes, self.pidfds = {}, []
        os.set_blocking(self.zygote.jobs_fd, True)

    def reap_all(self) -> None:
        """Collect every exited child (the zygote is subreaper for the samples' orphans too)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            if pid in self.pids and pid not in self.exits:
                self.exits[pid] = exit_info(status)
            elif self.checker is not None and pid == self.checker.pid:
                self.checker.reaped(status)
                self.checker_exit = self.checker_exit or self.checker.exit
