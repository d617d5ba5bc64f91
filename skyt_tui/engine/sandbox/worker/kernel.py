"""The kernel's confinement interfaces through libc (ctypes): prctl, namespaces and mounts,
System V IPC, a hand-assembled seccomp filter and Landlock rulesets.

Each reports whether the kernel offers it; the zygote (`zygote.Zygote`) decides what to use.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2


class Kernel:
    """prctl, seccomp and Landlock through libc, each reporting whether it is available."""

    X86_64 = {
        "arch": 0xC000003E,
        "socket": 41,
        "execve": 59,
        "execveat": 322,
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "pidfd_send_signal": 424,
        "pidfd_getfd": 438,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "bpf": 321,
        "perf_event_open": 298,
        "userfaultfd": 323,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
        "unshare": 272,
        "setns": 308,
        "setsid": 112,
        "setpgid": 109,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "init_module": 175,
        "finit_module": 313,
        "delete_module": 176,
        "reboot": 169,
        "swapon": 167,
        "swapoff": 168,
        "acct": 163,
        "open_by_handle_at": 304,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "process_madvise": 440,
        "kcmp": 312,
        "kill": 62,
        "tkill": 200,
        "tgkill": 234,
        "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297,
        "clone": 56,
        "clone3": 435,
        "shmget": 29,
        "shmat": 30,
        "shmctl": 31,
        "shmdt": 67,
        "semget": 64,
        "semop": 65,
        "semctl": 66,
        "semtimedop": 220,
        "msgget": 68,
        "msgsnd": 69,
        "msgrcv": 70,
        "msgctl": 71,
        "mq_open": 240,
        "mq_unlink": 241,
        "mq_timedsend": 242,
        "mq_timedreceive": 243,
        "mq_notify": 244,
        "mq_getsetattr": 245,
        "memfd_create": 319,
        "memfd_secret": 447,
        "process_mrelease": 448,
        "prlimit64": 302,
        "sched_setaffinity": 203,
        "sched_setscheduler": 144,
        "sched_setparam": 142,
        "sched_setattr": 314,
        "migrate_pages": 256,
        "move_pages": 279,
        "setpriority": 141,
        "ioprio_set": 251,
        "fcntl": 72,
        "ioctl": 16,
    }
    SYSV_IPC = (
        "shmget",
        "shmat",
        "shmctl",
        "shmdt",
        "semget",
        "semop",
        "semctl",
        "semtimedop",
        "msgget",
        "msgsnd",
        "msgrcv",
        "msgctl",
        "mq_open",
        "mq_unlink",
        "mq_timedsend",
        "mq_timedreceive",
        "mq_notify",
        "mq_getsetattr",
    )
    """System V IPC and POSIX message queues: objects that outlive a process, shared by every
    process of an IPC namespace. No sample needs them; one could leave answers for the next."""
    UNACCOUNTED_MEMORY = ("memfd_create", "memfd_secret")
    """Memory outside RLIMIT_AS; denied where no memory cgroup bounds it."""
    CLONE_NEW_NAMESPACES = 0x7E020000
    CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
    MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
    MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 0x4000, 1 << 18
    IPC_RMID = 0
    EPERM, EACCES, ENOSYS = 1, 13, 38

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.libc.prctl.restype = ctypes.c_int
        self.libc.prctl.argtypes = [
            ctypes.c_int,
            ctypes.c_ulong,
            ctypes.c_ulong,
            ctypes.c_ulong,
            ctypes.c_ulong,
        ]
        self.syscalls = self.X86_64 if os.uname().machine == "x86_64" else None

    def unshare(self, flags: int) -> None:
        if self.libc.unshare(ctypes.c_int(flags)) != 0:
            errno_ = ctypes.get_errno()
            raise OSError(errno_, f"unshare: {os.strerror(errno_)}")

    def mount(
        self, source: str, target: str, fstype: str | None, flags: int, data: str | None
    ) -> None:
        def text(value: str | None) -> bytes | None:
            return None if value is None else os.fsencode(value)

        result = self.libc.mount(
            text(source), text(target), text(fstype), ctypes.c_ulong(flags), text(data)
        )
        if result != 0:
            errno_ = ctypes.get_errno()
            raise OSError(errno_, f"mount {target}: {os.strerror(errno_)}")

    def ipc_objects(self) -> list[tuple[str, int]]:
        """The System V IPC objects of this process's IPC namespace, as (kind, id)."""
        found = []
        for kind in ("shm", "msg", "sem"):
            try:
                with open(f"/proc/sysvipc/{kind}", encoding="ascii") as listing:
                    rows = listing.read().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                if len(fields) > 1 and fields[1].isdigit():
                    found.append((kind, int(fields[1])))
        return found

    def remove_ipc_objects(self, objects: list[tuple[str, int]]) -> None:
        for kind, ident in objects:
            if kind == "shm":
                self.libc.shmctl(ident, self.IPC_RMID, None)
            elif kind == "msg":
                self.libc.msgctl(ident, self.IPC_RMID, None)
            else:
                self.libc.semctl(ident, 0, self.IPC_RMID)

    def prctl(self, option: int, arg: int = 0, arg3: int = 0) -> None:
        result = self.libc.prctl(option, arg, arg3, 0, 0)
        if result < 0:
            errno_ = ctypes.get_errno()
            raise OSError(errno_, f"prctl({option}): {os.strerror(errno_)}")

    def syscall(self, number: int, *args: int) -> int:
        result = int(self.libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args)))
        if result < 0:
            errno_ = ctypes.get_errno()
            raise OSError(errno_, os.strerror(errno_))
        return result

    @property
    def seccomp_available(self) -> bool:
        return self.syscalls is not None

    TARGETING_PID_FIRST = (
        "prlimit64",
        "sched_setaffinity",
        "sched_setscheduler",
        "sched_setparam",
        "sched_setattr",
        "migrate_pages",
        "move_pages",
    )
    """System calls whose first argument names a process: another process's limits, scheduling
    and memory placement are reached by pid (0 is the caller itself)."""
    TARGETING_WHICH_WHO = {"setpriority": 0, "ioprio_set": 1}
    """(which, who, …) calls: allowed for one process (PRIO_PROCESS, IOPRIO_WHO_PROCESS) that is
    the caller; a process group or a whole uid would reach beyond the job."""
    OWNER_COMMANDS = {"fcntl": (8, 15), "ioctl": (0x8901, 0x8902)}
    """F_SETOWN, F_SETOWN_EX; FIOSETOWN, SIOCSPGRP: the owner of a file gets its SIGIO/SIGURG,
    which would carry a signal to any process named here."""
    CLONE_PARENT = 0x00008000
    """A child of the caller's parent: a process the job's own clean-up would not find."""

    def seccomp_program(
        self, deny_memfd: bool = False, *, scope_only: bool = False
    ) -> tuple[bytes, dict[str, list[int]]]:
        """A classic-BPF filter: deny what a sample never needs; reach only itself.

        Returns the program and the instruction indices (by kind: "own", "zero", "group")
        where the process's own pid, 0 and its own process group go, patched per process by
        `install_seccomp`: kill(pid), kill(0) and kill(-pid) (its own group) work while
        kill(parent) fails with EPERM; the same for the other calls that name a process
        (tgkill, sigqueue, prlimit, scheduling, priorities, file owners for SIGIO).

        `scope_only`: only the rules that name a process, for a process stacking a filter of its
        own on an inherited one (the check child: the warm checker's filter names the checker).
        """
        nr = self.syscalls
        assert nr is not None, "no system-call table for this machine (seccomp_available)"
        ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
        allow, kill_process = 0x7FFF0000, 0x80000000
        eperm = 0x00050000 | self.EPERM

        def errno(code: int) -> int:
            return 0x00050000 | code

        prog: list[tuple[int, int, int, int]] = [
            (ld, 0, 0, 4),
            (jeq, 1, 0, nr["arch"]),
            (ret, 0, 0, kill_process),
            (ld, 0, 0, 0),
            (jge, 0, 1, 0x40000000),
            (ret, 0, 0, errno(self.EPERM)),
        ]
        slots: dict[str, list[int]] = {"own": [], "zero": [], "group": []}
        if scope_only:  # every call below `kill` passes at once (read, write, poll, mmap, ...)
            first = min(nr[name] for name in ("kill", *self.TARGETING_PID_FIRST))
            first = min(first, *(nr[name] for name in self.TARGETING_WHICH_WHO))
            prog += [(jge, 1, 0, first), (ret, 0, 0, allow)]
        if not scope_only:
            denied = {
                name: self.EPERM
                for name in (
                    "execve",
                    "execveat",
                    "ptrace",
                    "process_vm_readv",
                    "process_vm_writev",
                    "pidfd_send_signal",
                    "pidfd_getfd",
                    "process_mrelease",
                    "io_uring_setup",
                    "io_uring_enter",
                    "io_uring_register",
                    "bpf",
                    "perf_event_open",
                    "userfaultfd",
                    "keyctl",
                    "add_key",
                    "request_key",
                    "mount",
                    "umount2",
                    "pivot_root",
                    "chroot",
                    "unshare",
                    "setns",
                    "setsid",
                    "setpgid",
                    "kexec_load",
                    "kexec_file_load",
                    "init_module",
                    "finit_module",
                    "delete_module",
                    "reboot",
                    "swapon",
                    "swapoff",
                    "acct",
                    "open_by_handle_at",
                    "open_tree",
                    "move_mount",
                    "fsopen",
                    "fsconfig",
                    "fsmount",
                    "fspick",
                    "mount_setattr",
                    "process_madvise",
                    "kcmp",
                    "tkill",
                )
            }
            denied.update((name, self.EPERM) for name in self.SYSV_IPC)
            if deny_memfd:
                denied.update((name, self.EPERM) for name in self.UNACCOUNTED_MEMORY)
            denied["socket"] = self.EACCES
            denied["clone3"] = self.ENOSYS  # libc falls back to clone(), whose flags we can inspect
            for name in sorted(denied):
                prog += [(jeq, 0, 1, nr[name]), (ret, 0, 0, errno(denied[name]))]
        for name in ("kill", "rt_sigqueueinfo"):  # pid: itself, 0 (its group) or -its group
            base = len(prog)
            prog += [
                (jeq, 0, 6, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 3, 0, 0),
                (jeq, 2, 0, 0),
                (jeq, 1, 0, 0),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
            slots["own"].append(base + 2)
            slots["zero"].append(base + 3)
            slots["group"].append(base + 4)
        for name in ("tgkill", "rt_tgsigqueueinfo"):  # thread group: itself
            base = len(prog)
            prog += [
                (jeq, 0, 4, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 1, 0, 0),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
            slots["own"].append(base + 2)
        for name in self.TARGETING_PID_FIRST:  # pid: 0 or itself
            base = len(prog)
            prog += [
                (jeq, 0, 5, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 2, 0, 0),
                (jeq, 1, 0, 0),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
            slots["own"].append(base + 2)
        for name, one_process in sorted(self.TARGETING_WHICH_WHO.items()):
            base = len(prog)
            prog += [
                (jeq, 0, 7, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 0, 3, one_process),
                (ld, 0, 0, 24),
                (jeq, 2, 0, 0),
                (jeq, 1, 0, 0),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
            slots["own"].append(base + 4)
        if not scope_only:
            for name, (first, second) in sorted(self.OWNER_COMMANDS.items()):
                prog += [
                    (jeq, 0, 5, nr[name]),
                    (ld, 0, 0, 24),
                    (jeq, 1, 0, first),
                    (jeq, 0, 1, second),
                    (ret, 0, 0, eperm),
                    (ret, 0, 0, allow),
                ]
            prog += [
                (jeq, 0, 4, nr["clone"]),
                (ld, 0, 0, 16),
                (jset, 0, 1, self.CLONE_NEW_NAMESPACES | self.CLONE_PARENT),
                (ret, 0, 0, eperm),
                (ret, 0, 0, allow),
            ]
        prog.append((ret, 0, 0, allow))
        program = b"".join(struct.pack("<HBBI", code, jt, jf, k) for code, jt, jf, k in prog)
        return program, slots

    def prepare_seccomp(self, deny_memfd: bool = False) -> None:
        """Build the filters once (in the zygote, in the exec'd checker); a process only patches
        in its pid: the filter every job process gets (`install_seccomp`) and the one a check
        child stacks on the warm checker's (`install_seccomp_scope`)."""
        self._filters = {
            "base": self._compiled(*self.seccomp_program(deny_memfd)),
            "scope": self._compiled(*self.seccomp_program(scope_only=True)),
        }

    @staticmethod
    def _compiled(program: bytes, slots: dict[str, list[int]]) -> tuple[Any, Any, int, Any]:
        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        bpf = ctypes.create_string_buffer(program, len(program))
        fprog = SockFprog(len(program) // 8, ctypes.cast(bpf, ctypes.c_void_p))
        return bpf, fprog, ctypes.addressof(fprog), slots

    def install_seccomp(self, pid: int) -> None:
        """This process's filter: it may name itself, its own group (kill(0), kill(-pid)) and
        nothing else."""
        self._install("base", {"own": pid, "zero": 0, "group": -pid})

    def install_seccomp_scope(self, pid: int) -> None:
        """Stack a filter naming only this process on the inherited one (whose own pid is the
        parent's): neither the parent nor its process group can be named any more."""
        self._install("scope", {"own": pid, "zero": pid, "group": pid})

    def _install(self, which: str, values: dict[str, int]) -> None:
        bpf, _fprog, address, slots = self._filters[which]
        for kind, value in values.items():
            for index in slots[kind]:
                struct.pack_into("<I", bpf, index * 8 + 4, value & 0xFFFFFFFF)
        self.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, address)

    LL_CREATE, LL_ADD_RULE, LL_RESTRICT = 444, 445, 446
    FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
    FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15

    def landlock_abi(self) -> int:
        try:
            return self.syscall(self.LL_CREATE, 0, 0, 1)
        except OSError:
            return 0

    def landlock_ruleset(
        self, abi: int, read_fds: list[int], dev_fds: dict[int, bool], write_fd: int | None
    ) -> int:
        """A ruleset fd: read (and map) beneath `read_fds`, everything beneath `write_fd`."""
        handled = (1 << 13) - 1
        if abi >= 2:
            handled |= 1 << 13
        if abi >= 3:
            handled |= self.FS_TRUNCATE
        if abi >= 5:
            handled |= self.FS_IOCTL_DEV
        file_rights = handled & (
            self.FS_EXECUTE
            | self.FS_WRITE_FILE
            | self.FS_READ_FILE
            | self.FS_TRUNCATE
            | self.FS_IOCTL_DEV
        )

        class RulesetAttr(ctypes.Structure):
            _fields_ = [
                ("fs", ctypes.c_uint64),
                ("net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64),
            ]

        class PathBeneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

        scoped = self.SCOPE_ABSTRACT_UNIX_SOCKET | self.SCOPE_SIGNAL if abi >= 6 else 0
        attr = RulesetAttr(handled, 0b11 if abi >= 4 else 0, scoped)
        size = 8 if abi < 4 else (16 if abi < 6 else 24)
        ruleset = self.syscall(self.LL_CREATE, ctypes.addressof(attr), size, 0)

        def add(fd: int, allowed: int) -> None:
            rule = PathBeneath(allowed, fd)
            self.syscall(self.LL_ADD_RULE, ruleset, 1, ctypes.addressof(rule), 0)

        read_dir = self.FS_EXECUTE | self.FS_READ_FILE | self.FS_READ_DIR
        for fd in read_fds:
            add(
                fd,
                read_dir
                if stat.S_ISDIR(os.fstat(fd).st_mode)
                else self.FS_EXECUTE | self.FS_READ_FILE,
            )
        for fd, writable in dev_fds.items():
            rights = self.FS_READ_FILE | (
                self.FS_WRITE_FILE | self.FS_TRUNCATE | self.FS_IOCTL_DEV if writable else 0
            )
            add(fd, rights & file_rights)
        if write_fd is not None:
            add(write_fd, handled)
        return ruleset

    SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2

    def landlock_scope_ruleset(self) -> int:
        """A ruleset that only scopes (ABI >= 6): no signal and no abstract unix socket reaches
        a process outside the domain it makes. It restricts no file or network access (the
        inherited domain does). Made once per job (a check child's), so its attribute type is
        defined once, not per call."""
        attr = _ScopeAttr(0, 0, self.SCOPE_ABSTRACT_UNIX_SOCKET | self.SCOPE_SIGNAL)
        return self.syscall(self.LL_CREATE, ctypes.addressof(attr), ctypes.sizeof(attr), 0)

    def landlock_restrict(self, ruleset: int) -> None:
        self.syscall(self.LL_RESTRICT, ruleset, 0)


class _ScopeAttr(ctypes.Structure):
    """struct landlock_ruleset_attr (ABI >= 6)."""

    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


def expand_allowed(allowed: list[str], hidden: list[str]) -> list[str]:
    """`allowed` with every `hidden` path carved out (Landlock rules can only add access)."""

    def within(path: str, root: str) -> bool:
        return path == root or path.startswith(root.rstrip("/") + "/")

    result = []
    stack = list(allowed)
    while stack:
        path = stack.pop()
        inside = [h for h in hidden if within(h, path)]
        if not inside:
            result.append(path)
            continue
        if path in inside:
            continue
        try:
            stack.extend(entry.path for entry in os.scandir(path))
        except OSError:
            continue
    return sorted(result)
