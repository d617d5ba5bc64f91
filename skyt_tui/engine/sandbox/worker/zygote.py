"""The zygote: the worker's main process, which runs every job and never runs sample code.

It reads jobs from the app, forks each job's sample process S, hands the job's checks to the
warm checker C (`checker.Checker`), watches them (`watch.Watch`: the wall clock, the output,
result and disk caps, whole process groups killed), relays the raw bytes back and cleans up.
One fork gives every sample a pristine interpreter with the usual modules already imported.

Each S and C process is confined before it runs anything from a job (`Zygote.confine`): its own
session, rlimits, a dedicated unprivileged uid when the zygote is root, no_new_privs, a Landlock
domain and a seccomp filter (`kernel.Kernel`), each where the kernel supports it.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import platform
import resource
import signal
import socket
import stat
import sys
import time
from collections.abc import Sequence
from typing import Any

from .checker import CHECK_MODULES, Checker
from .cleanup import MAX_WORKDIR_ENTRIES, disk_usage, remove_contents, remove_tree
from .confine import confine, job_cpu_seconds
from .framing import FRAME_HEADER, encode_frame, read_frame, write_all, write_frame
from .kernel import (
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    Kernel,
    expand_allowed,
)
from .processes import count_processes
from .sample import SampleHarness, flush_stdio
from .watch import Watch

PRELOADED_MODULES = (
    "abc",
    "array",
    "base64",
    "binascii",
    "bisect",
    "calendar",
    "cmath",
    "collections",
    "collections.abc",
    "contextlib",
    "copy",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "encodings.idna",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "glob",
    "hashlib",
    "heapq",
    "inspect",
    "io",
    "itertools",
    "json",
    "locale",
    "math",
    "numbers",
    "operator",
    "pathlib",
    "pprint",
    "queue",
    "random",
    "re",
    "secrets",
    "shutil",
    "signal",
    "socket",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "types",
    "typing",
    "unicodedata",
    "weakref",
    "zlib",
)
"""Imported once in the zygote, so a sample's `import` of them costs nothing (and works even
where the unprivileged sample uid cannot read the interpreter's directory)."""


CHECKER_START_TIMEOUT_S = 20.0
"""How long the zygote waits for its first checker to start (an interpreter's start, imports)."""


class ZygoteBroken(Exception):
    """The zygote cannot safely run another job; it exits and the parent starts a new one."""


class Zygote:
    """The worker's main process: it confines and forks every job's processes, and serves jobs.

    It is set up step by step, each step relying on the ones before: who samples run as; the
    private root (reduced isolation as root), which moves the working directory onto its own
    tmpfs; the working directory; the Landlock rulesets, which point at it; the seccomp filter;
    what to sweep after each job, given the layers now in force; the zygote's own process flags;
    and the preloaded modules.
    """

    def __init__(self, config: dict[str, Any], jobs_fd: int, reply_fd: int) -> None:
        self.config = config
        self.jobs_fd = jobs_fd
        self.reply_fd = reply_fd
        self.pending = b""
        self.kernel = Kernel()
        self.pid = os.getpid()
        self.limits = config["limits"]
        self.uid, self.checker_uid = sample_uids(config)
        self.package_fd = open_package_folder()  # before a private root may hide the folder
        self.workdir: str = config["workdir"]
        self.tmpfs: dict[str, Any] | None = config.get("tmpfs")
        self.private_ipc = bool(config.get("private_ipc"))
        self.namespaces = self.enter_namespaces(config)
        self.oom_volunteer = bool(config.get("memory_cgroup"))
        self.checker: Checker | None = None
        self.prepare_workdir()
        self.nproc_base = self.processes_before_jobs()
        self.landlock_abi, self.rulesets = self.landlock_rulesets(config)
        self.seccomp, self.deny_memfd = self.seccomp_filter(config)
        self.sweep_owned, self.sweep_dirs, self.sweep_ipc = self.sweeps(config)
        self.imports = self.import_scope()
        self.set_process_flags()
        preload_modules()
        # the warm checker starts with the first job that has checks (`warm_checker`): a pool
        # judging call tests, or checks the app compares itself (oracle.asserts), never needs one
        self.checker_started = False
        self.checker_exec = self.package_fd is not None
        self.checker_problem = (
            None if self.checker_exec else "the worker's folder could not be opened"
        )

    def prepare_workdir(self) -> None:
        """Make the working directory, empty and owned by the sample uid; keep its inode
        (`reset_workdir` checks it) and its tmpfs's use before any job (the disk meter's zero)."""
        os.makedirs(self.workdir, mode=0o700, exist_ok=True)
        self.workdir_ino = os.lstat(self.workdir).st_ino
        self.reset_workdir()
        self.disk_base = self.tmpfs_use() if self.tmpfs else (0, 0)

    def processes_before_jobs(self) -> int:
        """What RLIMIT_NPROC must allow beyond a job's own processes: nothing for a uid of the
        samples' own, else everything the zygote's uid already runs."""
        return 0 if self.uid is not None else count_processes(os.getuid())

    def landlock_rulesets(self, config: dict[str, Any]) -> tuple[int, dict[str, int]]:
        """The Landlock ABI here (0: none, or switched off) and the rulesets of the sample
        ("sample") and of the checker ("checker")."""
        abi = self.kernel.landlock_abi() if config.get("landlock", True) else 0
        if not abi:
            return 0, {}
        if not config.get("landlock_scope", True):  # as a kernel before Landlock's scopes (tests)
            abi = min(abi, 5)
        return abi, self.build_rulesets(abi, config["read_paths"], config["hidden_paths"])

    def seccomp_filter(self, config: dict[str, Any]) -> tuple[bool, bool]:
        """Whether samples get the seccomp filter, and whether it refuses memfd (memory outside
        RLIMIT_AS, which only a memory cgroup would count); the filter is built here, once."""
        seccomp = bool(self.kernel.seccomp_available and config.get("seccomp", True))
        deny_memfd = seccomp and not self.oom_volunteer
        if seccomp:
            self.kernel.prepare_seccomp(deny_memfd=deny_memfd)
        return seccomp, deny_memfd

    def sweeps(self, config: dict[str, Any]) -> tuple[list[str], list[str], bool]:
        """What `after_job` empties beyond the working directory: the shared dirs whose entries
        the sample uid owns (without namespaces or Landlock it could write there), the dirs to
        empty, and whether to empty the IPC namespace.

        What the layers in force already forbid needs no sweep: with Landlock a sample cannot
        write the private /dev/shm, with seccomp it cannot make IPC objects.
        """
        owned = (
            [path for path in config.get("shared_dirs", ()) if os.path.isdir(path)]
            if self.uid is not None and not self.namespaces and not self.rulesets
            else []
        )
        emptied = ["/dev/shm"] if self.namespaces and not self.rulesets else []
        return owned, emptied, self.private_ipc and not self.seccomp

    def import_scope(self) -> str:
        """ "all", or "preloaded" when the sample uid cannot read the standard library."""
        if self.uid is None or self.stdlib_readable_as_sample():
            return "all"
        return "preloaded"

    def set_process_flags(self) -> None:
        """Subreaper for the samples' orphans, never dumpable, killed with the app: each where
        the kernel allows."""
        for option, value in (
            (PR_SET_CHILD_SUBREAPER, 1),
            (PR_SET_DUMPABLE, 0),
            (PR_SET_PDEATHSIG, signal.SIGKILL),
        ):
            try:
                self.kernel.prctl(option, value)
            except OSError:
                pass

    def hello(self) -> dict[str, Any]:
        return {
            "t": "hello",
            "pid": self.pid,
            "uid_drop": self.uid is not None,
            "landlock": self.landlock_abi if self.rulesets else 0,
            "seccomp": bool(self.seccomp),
            "no_memfd": self.deny_memfd,
            "namespaces": self.namespaces,
            "private_ipc": self.private_ipc,
            "tmpfs_workdir": bool(self.tmpfs),
            "imports": self.imports,
            "python": platform.python_version(),
            "checker": "exec" if self.checker_exec else "fork",
            "checker_problem": self.checker_problem,
            "scope": self.job_scopes(),
        }

    def job_scopes(self) -> list[str]:
        """What keeps every job process (sample, its children, the check child) from signalling
        or naming a process outside its job (`confine.job_scope`): Landlock's scopes (ABI >= 6),
        the seccomp filter that names each process's own pid, or both."""
        scopes = ["landlock"] if self.rulesets and self.landlock_abi >= 6 else []
        return scopes + (["seccomp"] if self.seccomp else [])

    def start_checker(self) -> tuple[bool, str | None]:
        """Start the first warm checker, as a fresh interpreter (`Checker`); whether that
        works here, and if not, why (later checkers are then forks of the zygote, as before).
        Called for the first job with checks, before its clock starts; the app is told the
        outcome (a "checker" message) where it differs from what the hello said."""
        if self.package_fd is None:
            return False, "the worker's folder could not be opened"
        self.checker_exec = True
        checker = self.checker = Checker(self)
        ready = checker.wait_ready(CHECKER_START_TIMEOUT_S)
        if ready == b"E":
            return True, None
        if ready == b"F":
            problem = "the exec of a fresh interpreter failed"
        else:
            dead = checker.stop()
            self.checker = None
            problem = f"the exec'd checker did not start ({dead or 'no answer'})"
        sys.stderr.write(f"sandbox worker: {problem}; the checker is a fork of the zygote\n")
        os.close(self.package_fd)
        self.package_fd = None
        return False, problem

    def checker_command(self, channel_fd: int) -> list[str]:
        """The exec'd checker's command line: the interpreter without site (its `sys.path` is
        the zygote's, in the settings), the worker's entry script through the folder's fd, the
        channel's fd and the settings `confine` needs, all the zygote's own values."""
        assert self.package_fd is not None
        preload = [*CHECK_MODULES, *(PRELOADED_MODULES if self.imports == "preloaded" else ())]
        settings = dict(
            self.confinement("checker"),
            deny_memfd=self.deny_memfd,
            path=list(sys.path),
            preload=preload,
        )
        folder = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
        return [
            sys.executable,
            "-S",
            "-s",
            "-P",
            "-B",
            f"/proc/self/fd/{self.package_fd}/{folder}/entry.py",
            "checker",
            str(channel_fd),
            json.dumps(settings, separators=(",", ":")),
        ]

    def stdlib_readable_as_sample(self) -> bool:
        """Can the sample uid read the standard library (pyenv under /root, for one, it cannot)?"""
        uid = self.uid
        assert uid is not None
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.listdir(os.path.dirname(os.__file__))
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0

    def build_rulesets(self, abi: int, read_paths: list[str], hidden: list[str]) -> dict[str, int]:
        fds = []
        for path in expand_allowed(read_paths, hidden):
            try:
                fds.append(os.open(path, os.O_PATH | os.O_CLOEXEC))
            except OSError:
                continue
        dev_fds = {}
        for path, writable in (
            ("/dev/null", True),
            ("/dev/zero", False),
            ("/dev/urandom", False),
            ("/dev/random", False),
        ):
            try:
                dev_fds[os.open(path, os.O_PATH | os.O_CLOEXEC)] = writable
            except OSError:
                continue
        work_fd = os.open(self.workdir, os.O_PATH | os.O_CLOEXEC)
        try:
            return {
                "sample": self.kernel.landlock_ruleset(abi, fds, dev_fds, work_fd),
                "checker": self.kernel.landlock_ruleset(abi, fds, dev_fds, None),
            }
        finally:
            for fd in [*fds, *dev_fds, work_fd]:
                os.close(fd)

    def enter_namespaces(self, config: dict[str, Any]) -> bool:
        """Reduced isolation as root: what bubblewrap would give, from private namespaces.

        A private IPC namespace (no object a sample makes reaches the host or
        outlives the zygote), and a private mount namespace with a new root:
        only the system and interpreter dirs (read-only, as bubblewrap binds
        them), a minimal /dev with a small private /dev/shm, a /proc showing
        only the processes of one's own uid, and a fresh size- and inode-capped
        tmpfs as /tmp, where the working directory lives (so the disk limit
        holds by construction). /home, /run, /var and the rest of the host do
        not exist there. It all ends with the zygote. False when the kernel
        refuses the namespaces (a container without CAP_SYS_ADMIN), and when the pool did not ask
        for them or the zygote is not root.
        """
        if not config.get("namespaces") or os.geteuid() != 0:
            return False
        kernel = self.kernel
        try:
            kernel.unshare(kernel.CLONE_NEWNS | kernel.CLONE_NEWIPC)
        except OSError:
            return False
        self.private_ipc = True
        try:
            self.build_root(config)
        except OSError as exc:  # the kernel refused a mount: go on without the private root
            sys.stderr.write(f"sandbox worker: no private root ({exc}); plain reduced isolation\n")
            return False
        self.workdir = config["namespace_workdir"]
        self.tmpfs = config["namespace_tmpfs"]
        return True

    def build_root(self, config: dict[str, Any]) -> None:
        """The new root of `enter_namespaces`, then chroot into it."""
        kernel = self.kernel
        kernel.mount("none", "/", None, kernel.MS_REC | kernel.MS_PRIVATE, None)
        root = config["namespace_root"]
        os.makedirs(root, mode=0o755, exist_ok=True)
        flags = kernel.MS_NOSUID | kernel.MS_NODEV
        kernel.mount("tmpfs", root, "tmpfs", flags, "size=1m,nr_inodes=4096,mode=0755")
        read_only = kernel.MS_REMOUNT | kernel.MS_BIND | kernel.MS_RDONLY | flags
        # the sample's /tmp first: an interpreter installed under /tmp (a venv a CI job made
        # there) is bound into it below, where a tmpfs mounted after the binds would hide it
        tmpfs = config["namespace_tmpfs"]
        os.makedirs(root + tmpfs["path"], mode=0o755, exist_ok=True)
        kernel.mount(
            "tmpfs",
            root + tmpfs["path"],
            "tmpfs",
            flags,
            f"size={tmpfs['bytes']},nr_inodes={tmpfs['inodes']},mode=0755",
        )
        for kind, path, target in config["layout"]:
            inside = root + path
            os.makedirs(os.path.dirname(inside), mode=0o755, exist_ok=True)
            if kind == "symlink":
                os.symlink(target, inside)
            elif kind == "dir":
                os.makedirs(inside, mode=0o755, exist_ok=True)
            elif kind == "bind":
                os.makedirs(inside, mode=0o755, exist_ok=True)
                kernel.mount(path, inside, None, kernel.MS_BIND | kernel.MS_REC, None)
                kernel.mount("none", inside, None, read_only, None)
            else:
                kernel.mount(
                    "tmpfs", inside, "tmpfs", flags | kernel.MS_RDONLY, "size=4k,mode=0755"
                )
        os.mkdir(root + "/dev", 0o755)
        for name in ("null", "zero", "full", "random", "urandom"):
            if os.path.exists("/dev/" + name):
                os.close(os.open(f"{root}/dev/{name}", os.O_CREAT | os.O_WRONLY, 0o666))
                kernel.mount("/dev/" + name, f"{root}/dev/{name}", None, kernel.MS_BIND, None)
        for name, target in (
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ):
            os.symlink(target, f"{root}/dev/{name}")
        os.mkdir(root + "/dev/shm", 0o1777)
        kernel.mount(
            "tmpfs",
            root + "/dev/shm",
            "tmpfs",
            flags | kernel.MS_NOEXEC,
            "size=1m,nr_inodes=64,mode=1777",
        )
        os.mkdir(root + "/proc", 0o555)
        try:
            kernel.mount(
                "proc", root + "/proc", "proc", flags | kernel.MS_NOEXEC, "hidepid=invisible"
            )
        except OSError:
            kernel.mount("proc", root + "/proc", "proc", flags | kernel.MS_NOEXEC, "hidepid=2")
        kernel.mount("none", root, None, kernel.MS_REMOUNT | kernel.MS_RDONLY | flags, None)
        os.chroot(root)
        os.chdir("/")

    def tmpfs_use(self) -> tuple[int, int]:
        """Bytes and inodes in use on the working directory's own tmpfs."""
        assert self.tmpfs is not None
        info = os.statvfs(self.tmpfs["path"])
        return (info.f_blocks - info.f_bfree) * info.f_frsize, info.f_files - info.f_ffree

    def over_disk_limit(self) -> bool:
        """Has the job written more than its disk limit (or made too many files)?

        On the working directory's own tmpfs, the file system's counters say
        (a sample cannot hide anything from them); elsewhere a walk counts,
        and a walk that cannot see everything counts as over the limit.
        """
        if self.tmpfs:
            used, inodes = self.tmpfs_use()
            return bool(
                used - self.disk_base[0] > self.limits["disk_bytes"]
                or inodes - self.disk_base[1] > MAX_WORKDIR_ENTRIES
            )
        return bool(disk_usage(self.workdir, MAX_WORKDIR_ENTRIES) > self.limits["disk_bytes"])

    def reset_workdir(self) -> None:
        """Empty the working directory (same inode: the Landlock rule points at it)."""
        info = os.lstat(self.workdir)
        if info.st_ino != self.workdir_ino or not stat.S_ISDIR(info.st_mode):
            raise ZygoteBroken("the working directory was replaced")
        os.chmod(self.workdir, 0o700)
        remove_contents(self.workdir)
        if self.uid is not None:
            os.chown(self.workdir, self.uid, self.uid)

    def after_job(self) -> None:
        """Leave nothing of the job for the next one: files, shared memory, IPC objects.

        (Its processes are gone already: `Watch.stop_everything`.)
        """
        self.reset_workdir()
        for path in self.sweep_dirs:
            remove_contents(path)
        for directory in self.sweep_owned:  # no Landlock: the sample could write there
            for entry in os.scandir(directory):
                if entry.stat(follow_symlinks=False).st_uid == self.uid:
                    remove_tree(entry.path)
        if self.sweep_ipc:
            self.remove_ipc_objects()

    def remove_ipc_objects(self) -> None:
        """Empty the worker's private IPC namespace (seccomp refuses IPC to samples; this is the
        layer beneath). Removing takes the creator's uid (or CAP_SYS_ADMIN, which the zygote
        does not keep), so a child with the sample uid does it."""
        objects = self.kernel.ipc_objects()
        if not objects:
            return
        pid = os.fork()
        if pid == 0:
            try:
                if self.uid is not None:
                    os.setgroups([])
                    os.setresgid(self.uid, self.uid, self.uid)
                    os.setresuid(self.uid, self.uid, self.uid)
                self.kernel.remove_ipc_objects(objects)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        if self.kernel.ipc_objects():
            raise ZygoteBroken("a sample's IPC objects could not be removed")

    def run_job(self, job: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
        """Fork the job's sample process S; hand the check to the warm checker (see `Checker`)."""
        checks = bool(job.get("checks"))
        checker = self.warm_checker() if checks else None  # started before the job's clock
        start = time.monotonic()
        deadline = start + float(job["timeout_s"])
        sample_results = os.pipe()
        output = os.pipe()
        # with checks: requests to the sample, its replies, the checker's results
        peer = (os.pipe(), os.pipe(), os.pipe()) if checker is not None else None
        sample_pid = os.fork()
        if sample_pid == 0:
            self.child(
                "sample",
                job,
                results_fd=sample_results[1],
                output_fd=output[1],
                peer_in=peer[0][0] if peer is not None else None,
                peer_out=peer[1][1] if peer is not None else None,
            )
        checker_lost = None
        ends = [sample_results[1], output[1]]
        if checker is not None and peer is not None:
            requests, replies, checker_results = peer
            checker_lost = checker.hand_over(
                job, float(job["timeout_s"]), replies[0], requests[1], checker_results[1]
            )
            ends += [*requests, *replies, checker_results[1]]
        for fd in ends:
            os.close(fd)
        pgids = [sample_pid] + ([checker.pid] if checker is not None else [])
        self.send({"t": "started", "pgids": pgids})
        watch = Watch(
            self,
            job,
            deadline,
            sample_pid,
            checker,
            sample_results[0],
            output[0],
            peer[2][0] if peer is not None else None,
        )
        try:
            watch.run()
        finally:
            watch.stop_everything()
        checker_exit = watch.checker_exit or checker_lost
        if checker is not None and (
            watch.checker_killed or checker_exit is not None or not watch.checker_finished
        ):
            # it stopped mid-check (timeout, a limit, killed): never reuse it
            dead = checker.stop()
            checker_exit = checker_exit or dead
            self.checker = None
        header = {
            "t": "result",
            "timed_out": watch.timed_out,
            "limit": watch.limit,
            "sample_exit": watch.exits.get(sample_pid),
            "checker_exit": checker_exit,
            "elapsed": time.monotonic() - start,
            "output_total": watch.output_total,
        }
        blobs = [
            bytes(watch.streams["sample"]),
            bytes(watch.streams["checker"]),
            bytes(watch.output),
        ]
        return header, blobs

    def child(
        self,
        role: str,
        job: dict[str, Any],
        *,
        results_fd: int,
        output_fd: int | None,
        peer_in: int | None,
        peer_out: int | None,
    ) -> None:
        """The forked sample process S: confine, then run its harness; never returns."""
        code = 0
        try:
            keep = [fd for fd in (results_fd, peer_in, peer_out) if fd is not None]
            try:
                self.confine(role, job, output_fd, keep)
            except Exception as exc:
                write_frame(
                    results_fd,
                    {"t": "sandbox_error", "error": f"{type(exc).__name__}: {exc}"[:300]},
                )
                os._exit(71)
            harness = SampleHarness(job, results_fd)
            entry = harness.load()
            if entry is not None:
                harness.run_tests(entry)
                if peer_in is not None and peer_out is not None:
                    harness.serve(peer_in, peer_out)
            flush_stdio()
        except BaseException:
            code = 70
        finally:
            os._exit(code)

    def confinement(self, role: str) -> dict[str, Any]:
        """The settings `confine.confine` applies to a process of `role` ("sample", "checker")."""
        return {
            "zygote_pid": self.pid,
            "workdir": self.workdir,
            "limits": self.limits,
            "nproc_base": self.nproc_base,
            "oom_volunteer": self.oom_volunteer,
            "uid": self.checker_uid if role == "checker" else self.uid,
            "ruleset": self.rulesets.get(role),
            "seccomp": self.seccomp,
            "landlock_scope": "landlock" in self.job_scopes(),
        }

    def confine(
        self, role: str, job: dict[str, Any] | None, output_fd: int | None, keep: list[int]
    ) -> None:
        """Confine this forked process as `role`; the warm checker (no `job`) has no CPU limit
        of its own: its children's is set per job (`Checker.run_apart`)."""
        cpu_s = None if job is None else job_cpu_seconds(job["timeout_s"])
        confine(self.kernel, self.confinement(role), cpu_s, output_fd, keep)

    def warm_checker(self) -> Checker:
        """The checker for the next job: the warm one, or a new one if it is gone or retired
        (the first one started here, `start_checker`)."""
        if not self.checker_started:
            self.checker_started = True
            said = (self.checker_exec, self.checker_problem)
            if self.package_fd is not None:
                self.checker_exec, self.checker_problem = self.start_checker()
            if (self.checker_exec, self.checker_problem) != said:
                self.send(
                    {
                        "t": "checker",
                        "checker": "exec" if self.checker_exec else "fork",
                        "checker_problem": self.checker_problem,
                    }
                )
        checker = self.checker
        if checker is not None and (not checker.alive() or checker.jobs >= Checker.MAX_JOBS):
            checker.stop()
            checker = self.checker = None
        if checker is None:
            checker = self.checker = Checker(self)
        checker.jobs += 1
        return checker

    def renew_checker(self) -> None:
        """Between jobs: replace a checker that is gone or retired now, so that the next job's
        clock does not run while a new one starts (an interpreter's start, when exec'd)."""
        checker = self.checker
        if checker is None and not self.checker_started:
            return  # none started yet: the first job with checks starts one
        if checker is not None and checker.alive() and checker.jobs < Checker.MAX_JOBS:
            return
        if checker is not None:
            checker.stop()
            self.checker = None
        try:
            self.checker = Checker(self)
        except OSError:
            pass  # no process to spare now: the next job with checks tries again

    def checker_main(self, channel: socket.socket) -> None:
        """The warm checker process (see `Checker`), just forked: exec a fresh interpreter
        (`checker.exec_main`); where the kernel refuses, confine this fork and serve jobs
        (its first byte on the channel says which). Never returns."""
        code = 0
        try:
            if self.checker_exec and self.package_fd is not None:
                try:
                    self.exec_checker(channel.fileno())
                except OSError:
                    pass
            try:
                self.confine("checker", None, None, [channel.fileno()])
            except Exception:
                os._exit(71)
            channel.sendall(b"F")
            Checker.serve(channel)
            flush_stdio()
        except BaseException:
            code = 70
        finally:
            os._exit(code)

    def exec_checker(self, channel_fd: int) -> None:
        """In the forked checker: its own session and killed with the zygote at once (so the
        zygote's `killpg` reaches it during the exec), then exec `checker_command` with only
        0-2, the channel, the worker's folder and the checker's Landlock ruleset open."""
        assert self.package_fd is not None
        if os.getsid(0) != os.getpid():
            os.setsid()
        self.kernel.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != self.pid:
            os._exit(0)
        ruleset = self.rulesets.get("checker")
        keep = sorted({channel_fd, self.package_fd, *((ruleset,) if ruleset is not None else ())})
        low = 3
        for fd in keep:
            os.closerange(low, fd)
            os.set_inheritable(fd, True)
            low = fd + 1
        os.closerange(low, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], low))
        command = self.checker_command(channel_fd)
        os.execve(command[0], command, dict(os.environ))

    def send(self, header: dict[str, Any], blobs: Sequence[bytes] = ()) -> None:
        header = dict(header, lens=[len(blob) for blob in blobs])
        write_all(self.reply_fd, encode_frame(header) + b"".join(blobs))

    def parent_gone(self) -> bool:
        """Called when the job pipe is readable during a job: end of file means the app died."""
        try:
            data = os.read(self.jobs_fd, 1 << 16)
        except BlockingIOError:
            return False
        if not data:
            return True
        self.pending += data
        return False

    def next_job(self) -> dict[str, Any] | None:
        while True:
            if len(self.pending) >= FRAME_HEADER.size:
                (length,) = FRAME_HEADER.unpack_from(self.pending)
                if len(self.pending) >= FRAME_HEADER.size + length:
                    body = self.pending[FRAME_HEADER.size : FRAME_HEADER.size + length]
                    self.pending = self.pending[FRAME_HEADER.size + length :]
                    job: dict[str, Any] = json.loads(body)
                    return job
            chunk = os.read(self.jobs_fd, 1 << 20)
            if not chunk:
                return None
            self.pending += chunk

    def serve(self) -> None:
        """Answer each job with its result, then clean up and say "ready" for the next.

        The result goes first, so a sample that leaves a huge tree behind
        cannot delay its own verdict; the parent sends no job until "ready".
        """
        self.send(self.hello())
        try:
            while True:
                job = self.next_job()
                if job is None:
                    return
                header, blobs = self.run_job(job)
                self.send(header, blobs)
                try:
                    self.after_job()
                except Exception as exc:
                    raise ZygoteBroken(f"cleaning up after a job failed: {exc!r}") from None
                self.renew_checker()
                self.send({"t": "ready"})
        finally:
            if self.checker is not None:
                self.checker.stop()


def sample_uids(config: dict[str, Any]) -> tuple[int | None, int | None]:
    """The uids the samples and the checker run as: the pool's, when the zygote is root (the
    checker falls back to the samples' uid); else (None, None), the zygote's own uid."""
    uid = config["sample_uid"] if os.geteuid() == 0 and config.get("sample_uid") else None
    if uid is None:
        return None, None
    checker_uid = config.get("checker_uid")
    return uid, checker_uid if isinstance(checker_uid, int) else uid


def open_package_folder() -> int | None:
    """An fd on the folder holding the worker's folder and `wire` (the private package), through
    which the exec'd checker starts its entry script; None where it cannot be opened."""
    worker = os.path.dirname(os.path.abspath(__file__))
    try:
        return os.open(os.path.dirname(worker), os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


def preload_modules() -> None:
    """Import `PRELOADED_MODULES`, then freeze the heap: forked children share these pages
    instead of copying them on their first garbage collection."""
    for name in PRELOADED_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    gc.collect()
    gc.freeze()


def main() -> int:
    jobs_fd, reply_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    for fd in (jobs_fd, reply_fd):
        os.set_inheritable(fd, False)
    body = read_frame(jobs_fd)
    if body is None:
        return 0
    try:
        zygote = Zygote(json.loads(body), jobs_fd, reply_fd)
    except Exception as exc:
        write_frame(
            reply_fd, {"t": "fatal", "error": f"{type(exc).__name__}: {exc}"[:500], "lens": []}
        )
        return 1
    try:
        zygote.serve()
    except ZygoteBroken as exc:
        sys.stderr.write(f"sandbox worker: {exc}\n")
        return 3
    return 0
