"""A pool of warm, sandboxed worker processes that run untrusted programs (docs/oracle.md).

Starting an interpreter costs ~60 ms; forking a warm one ~1 ms. So the pool
starts one *zygote* per core (the `worker` package), once, inside bubblewrap
when it works here (read-only system dirs, private /tmp, no network, own pid
namespace, dies with the app) and as a plain child otherwise ("reduced"
isolation). Each job is sent to an idle zygote, which forks fresh, confined
processes for it and answers with raw bytes; nothing here interprets them.

One dispatcher thread owns every pipe, so `submit` and `run` are safe from
any thread, and zygotes are always spawned from the same long-lived thread
(`--die-with-parent`/PDEATHSIG fire when the *spawning thread* exits). A
zygote that dies or stops answering is killed with its sandbox, its job is
reported as lost, and a fresh one takes its slot.
"""

from __future__ import annotations

import collections
import functools
import json
import os
import re
import selectors
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.sandbox import cgroups
from skyt_tui.engine.sandbox.worker.cleanup import MAX_WORKDIR_ENTRIES, remove_tree
from skyt_tui.engine.sandbox.worker.framing import FRAME_HEADER

ISOLATIONS = ("auto", "bubblewrap", "reduced")
ENV_VAR = "SKYT_SANDBOX"
WORKER_DIR = Path(__file__).resolve().with_name("worker")
WORKER_ENTRY = WORKER_DIR / "entry.py"
WIRE_PATH = Path(__file__).resolve().with_name("wire.py")
SANDBOX_MOUNT = "/skyt-sandbox"
"""Where bubblewrap binds the worker's folder (`worker/`) and `wire.py`, as they sit here."""
SAMPLE_UID_BASE = 1_999_000_000
"""When the app runs as root, samples run as SAMPLE_UID_BASE + a per-pool offset: uids no
account uses, one per worker slot, so RLIMIT_NPROC binds and no sample can touch another's files.
Each slot's warm checker runs as another such uid (the slot's + MAX_WORKERS), so not even a
sample without seccomp can signal it."""
WORKER_ENV = {"PYTHONHASHSEED": "0", "PYTHONUTF8": "1", "PYTHONDONTWRITEBYTECODE": "1"}
"""The whole environment of a worker: fixed hash seed for deterministic set order; no secrets."""
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc")
SHARED_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
"""World-writable host dirs: in reduced isolation without Landlock or namespaces, what a sample
(with its own uid) leaves there is removed after each job."""
STARTUP_TIMEOUT_S = 30.0
QUEUE_DEPTH = 2
"""Jobs sent to a zygote at once: the next one waits in its pipe, so it never idles waiting
for the dispatcher between jobs."""
CLEANUP_TIMEOUT_S = 30.0
"""How long a zygote may take to clean up after a job before it is replaced."""
MAX_WORKERS = 256
BASE_PREFIX = "skyt-sandbox-"
_STALE_BASE = re.compile(r"skyt-sandbox-(\d+)-(\d+)-(\d+)-[A-Za-z0-9_]+")
_pool_counter = iter(range(1 << 30))


class SandboxError(SkytError):
    """The sandbox cannot run (bubblewrap forced but broken, workers failing to start, pool closed)."""


@dataclass(frozen=True)
class Limits:
    """Per-process limits for every sample; the wall-clock timeout comes with each job."""

    memory_bytes: int = 1 << 30
    file_size_bytes: int = 16 << 20
    disk_bytes: int = 64 << 20
    processes: int = 32
    open_files: int = 256
    output_bytes: int = 1 << 20
    output_keep: int = 4096
    result_bytes: int = 64 << 20
    """What one sample's checks may send back (every logged call's output): 16 MiB refused
    HumanEval+'s HumanEval/15 on EvalPlus's inputs (issue 35); MBPP+'s largest is 11.4 MB."""
    grace_s: float = 2.0

    def job_deadline(self, started_at: float, timeout_s: float) -> float:
        """When the pool stops waiting for a started job: its timeout, the grace the worker has to
        report, and one second more for the report to arrive."""
        return started_at + timeout_s + self.grace_s + 1.0


@dataclass(frozen=True)
class ProcessExit:
    code: int | None
    signal: int | None


@dataclass(frozen=True)
class RunResult:
    """What came back from one job, uninterpreted: the oracle decides what it means."""

    sample_stream: bytes
    checker_stream: bytes
    output: bytes
    output_total: int
    sample_exit: ProcessExit | None
    checker_exit: ProcessExit | None
    timed_out: bool
    limit: str | None
    lost: str | None
    elapsed_s: float


@functools.lru_cache(maxsize=1)
def sweep_stale_folders() -> int:
    """Remove `skyt-sandbox-*` folders that a killed skyt-tui left in the temp dir; how many.

    Only folders named by `SandboxPool` (pid namespace, pid and start time of
    the process that made them), owned by this user, that are not symlinks,
    and whose process is gone: another running skyt-tui's folders, or anything
    else, are never touched. Runs once per process, when the first pool starts.
    """
    removed = 0
    directory = tempfile.gettempdir()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        match = _STALE_BASE.fullmatch(entry.name)
        if not match:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        if cgroups.owner_alive(*(int(group) for group in match.groups())):
            continue
        try:
            remove_tree(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


def _lost(reason: str, elapsed: float) -> RunResult:
    return RunResult(b"", b"", b"", 0, None, None, False, None, reason, elapsed)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def python_dirs() -> list[str]:
    """Directories the interpreter needs to start and import from (realpaths, no duplicates)."""
    paths = sysconfig.get_paths()
    candidates = [
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(sys.executable),
        os.path.dirname(os.path.realpath(sys.executable)),
        paths.get("stdlib"),
        paths.get("platstdlib"),
        paths.get("purelib"),
        paths.get("platlib"),
    ]
    return _outermost(os.path.realpath(p) for p in candidates if p and os.path.isdir(p))


def read_paths() -> list[str]:
    system = [os.path.realpath(p) for p in SYSTEM_DIRS if os.path.exists(p)]
    return _outermost([*system, *python_dirs()])


def hidden_paths() -> list[str]:
    """What a sample must never read, even inside readable dirs: skyt-tui's own files and data."""
    candidates = [locations.package_dir(), locations.home_dir(), locations.bundled_contracts_dir()]
    return sorted({os.path.realpath(p) for p in candidates})


def _outermost(paths: Any) -> list[str]:
    result: list[str] = []
    for path in sorted(set(paths), key=len):
        if not any(path == kept or path.startswith(kept.rstrip("/") + "/") for kept in result):
            result.append(path)
    return sorted(result)


def root_layout() -> list[tuple[str, str, str]]:
    """The file system a sample sees, as (kind, path, symlink target) steps in order:
    "symlink", "dir" (a parent to create, 0755), "bind" (read-only) and "hide" (an
    empty tmpfs over skyt-tui's own files inside a bound dir). Nothing else of the
    host is there; /proc, /dev and /tmp are added by whoever builds it."""
    layout: list[tuple[str, str, str]] = []
    bound: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            layout.append(("symlink", path, os.readlink(path)))
        elif os.path.isdir(path):
            layout.append(("bind", path, ""))
            bound.append(path)
    made: set[str] = set()
    for path in python_dirs():
        if not any(path == b or path.startswith(b + "/") for b in bound):
            parents = Path(path).parents
            for parent in sorted((str(p) for p in parents if str(p) != "/"), key=len):
                if parent not in made:
                    layout.append(("dir", parent, ""))
                    made.add(parent)
            layout.append(("bind", path, ""))
            bound.append(path)
    for path in hidden_paths():
        if any(path.startswith(b + "/") for b in bound) and os.path.isdir(path):
            layout.append(("hide", path, ""))
    return layout


def bwrap_command(*, tmp_size: int) -> list[str]:
    """The command starting a worker inside bubblewrap."""
    return [
        *bwrap_prefix(tmp_size=tmp_size),
        sys.executable,
        "-s",
        "-P",
        "-B",
        f"{SANDBOX_MOUNT}/worker/{WORKER_ENTRY.name}",
    ]


def bwrap_prefix(*, tmp_size: int) -> list[str]:
    """bubblewrap up to `--`: system and interpreter dirs read-only, nothing else visible."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed")
    args = [
        bwrap,
        "--unshare-ipc",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
    ]
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]
        for cap in (
            "CAP_SETUID",
            "CAP_SETGID",
            "CAP_KILL",
            "CAP_CHOWN",
            "CAP_DAC_OVERRIDE",
            "CAP_FOWNER",
        ):
            args += ["--cap-add", cap]
    # the sample's /tmp first: an interpreter installed under /tmp (a venv a CI job made there)
    # is bound into it below, where a tmpfs mounted after the binds would hide it
    args += ["--size", str(tmp_size), "--tmpfs", "/tmp"]
    for kind, path, target in root_layout():
        if kind == "symlink":
            args += ["--symlink", target, path]
        elif kind == "dir":  # bwrap would create it 0700, unreadable to the sample uid
            args += ["--perms", "0755", "--dir", path]
        elif kind == "bind":
            args += ["--ro-bind", path, path]
        else:
            args += ["--tmpfs", path]
    args += [
        "--ro-bind",
        str(WORKER_DIR),
        f"{SANDBOX_MOUNT}/worker",
        "--ro-bind",
        str(WIRE_PATH),
        f"{SANDBOX_MOUNT}/wire.py",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--chdir",
        "/tmp",
        "--clearenv",
    ]
    for key, value in WORKER_ENV.items():
        args += ["--setenv", key, value]
    return [*args, "--"]


@functools.lru_cache(maxsize=1)
def _bwrap_probe() -> str | None:
    """None when a bubblewrap sandbox starts the interpreter here, else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    command = [*bwrap_prefix(tmp_size=1 << 20), sys.executable, "-s", "-P", "-c", "pass"]
    try:
        done = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, timeout=20, env={}
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap failed to start: {exc}"
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bubblewrap failed here: {message[-1] if message else f'exit {done.returncode}'}"
    return None


def isolation_available() -> str:
    """What "auto" resolves to: "bubblewrap" when it works here (and SKYT_SANDBOX allows), else "reduced"."""
    return resolve_isolation("auto")


def resolve_isolation(requested: str = "auto") -> str:
    if requested not in ISOLATIONS:
        raise SandboxError(f"isolation must be one of {', '.join(ISOLATIONS)}; got {requested!r}")
    if requested == "auto":
        requested = os.environ.get(ENV_VAR, "auto").strip().lower() or "auto"
        if requested not in ISOLATIONS:
            raise SandboxError(
                f"{ENV_VAR} must be one of {', '.join(ISOLATIONS)}; got {requested!r}"
            )
    if requested == "reduced":
        return "reduced"
    problem = _bwrap_probe()
    if problem is None:
        return "bubblewrap"
    if requested == "bubblewrap":
        raise SandboxError(problem)
    return "reduced"


@dataclass
class _Job:
    frame: bytes
    timeout_s: float
    future: Future[RunResult]
    requeued: bool = False
    urgent: bool = False
    """Sent with `first` (the oracle's runs after a timeout): it waits for a zygote with nothing
    to do rather than in the pipe behind another job (`_assign`)."""


class _Slot:
    """One zygote: its process, pipes, buffers and the job it is running."""

    def __init__(self, index: int, uid: int | None) -> None:
        self.index = index
        self.uid = uid
        self.checker_uid = uid + MAX_WORKERS if uid is not None else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.state = "dead"
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.jobs: collections.deque[_Job] = collections.deque()
        """Sent to the zygote, in order: the first is running (or about to, once the previous
        job's clean-up ends); the others wait in the zygote's pipe (`QUEUE_DEPTH`)."""
        self.head_started = False
        self.started_at = 0.0
        self.deadline = 0.0
        self.pgids: list[int] = []
        self.stderr_tail = b""
        self.hello: dict[str, Any] = {}
        self.failures = 0
        self.oom_kills = 0


class SandboxPool:
    """Warm zygotes, one per worker; `run` sends jobs to whichever is idle."""

    def __init__(
        self,
        *,
        workers: int | None = None,
        isolation: str = "auto",
        limits: Limits = Limits(),
        without: tuple[str, ...] = (),
    ) -> None:
        """`without` ("seccomp", "landlock", "landlock-scope", "cgroup", "namespaces") switches a
        layer off, to test that the others still hold ("landlock-scope": Landlock as on a kernel
        before its scopes, ABI 5)."""
        self.isolation = resolve_isolation(isolation)
        self._without = frozenset(without)
        self.limits = limits
        self.workers = min(max(1, workers or default_workers()), MAX_WORKERS)
        self._closing = False
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._submitted: collections.deque[_Job] = collections.deque()
        self._pending: collections.deque[_Job] = collections.deque()
        self._urgent: collections.deque[_Job] = collections.deque()
        """Submitted with `first`: they go before the other pending jobs (`_drain_wake`)."""
        self._front = 0
        """How many jobs at the head of `_pending` came first (urgent or requeued): an urgent
        job goes after them, before the rest."""
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        sweep_stale_folders()
        self._base = tempfile.mkdtemp(prefix=f"{BASE_PREFIX}{cgroups.owner_tag()}-")
        os.chmod(self._base, 0o711)
        self._cgroups: cgroups.MemoryCgroups | None = None
        self.memory_cgroup_problem = "switched off"
        if "cgroup" not in self._without:
            self._cgroups, self.memory_cgroup_problem = cgroups.MemoryCgroups.create(self.workers)
        uid_offset = ((os.getpid() % 16384) * 4 + next(_pool_counter) % 4) * 2 * MAX_WORKERS
        root = os.geteuid() == 0
        self._slots = [
            _Slot(i, SAMPLE_UID_BASE + uid_offset + i if root else None)
            for i in range(self.workers)
        ]
        self._selector = selectors.DefaultSelector()
        self._ready = threading.Event()
        self._startup_error: str | None = None
        self._thread = threading.Thread(target=self._dispatch, name="skyt-sandbox", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._startup_error:
            self.close()
            raise SandboxError(self._startup_error)

    @property
    def layers(self) -> tuple[str, ...]:
        """The confinement actually in force, as reported by the workers."""
        hello = self._slots[0].hello
        layers = ["bubblewrap"] if self.isolation == "bubblewrap" else []
        if hello.get("namespaces"):
            layers.append("namespaces")
        layers.append("rlimits")
        if self._cgroups is not None:
            layers.append("memory-cgroup")
        if hello.get("tmpfs_workdir"):
            layers.append("tmpfs-workdir")
        if hello.get("uid_drop"):
            layers.append("uid")
        if hello.get("seccomp"):
            layers.append("seccomp")
        if hello.get("no_memfd"):
            layers.append("no-memfd")
        if hello.get("landlock"):
            layers.append(f"landlock-abi{hello['landlock']}")
        layers += [f"scope-{scope}" for scope in hello.get("scope") or ()]
        if hello.get("imports") == "preloaded":
            layers.append("preloaded-imports-only")
        return tuple(layers)

    def submit(
        self, payload: dict[str, Any], timeout_s: float, *, first: bool = False
    ) -> Future[RunResult]:
        """Queue a job; with `first`, before every job not yet handed to a worker (the oracle's
        runs after a timeout: a sample's verdict waits on them, so they do not wait behind the
        whole queue)."""
        body = json.dumps(
            dict(payload, timeout_s=timeout_s),
            separators=(",", ":"),
            ensure_ascii=True,
            allow_nan=False,
        ).encode("ascii")
        job = _Job(FRAME_HEADER.pack(len(body)) + body, float(timeout_s), Future(), urgent=first)
        with self._lock:
            if self._closing:
                raise SandboxError("the sandbox pool is closed")
            (self._urgent if first else self._submitted).append(job)
        self._wake()
        return job.future

    def run(self, jobs: Sequence[tuple[dict[str, Any], float]]) -> list[RunResult]:
        futures = [self.submit(payload, timeout) for payload, timeout in jobs]
        return [future.result() for future in futures]

    def close(self) -> None:
        with self._lock:
            already, self._closing = self._closing, True
        if not already:
            self._wake()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)
        if self._cgroups is not None:
            self._cgroups.close()
        try:
            remove_tree(self._base)
        except OSError:
            pass  # the next start removes it (sweep_stale_folders)

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        with self._lock:
            if self._closed.is_set():
                return
            try:
                os.write(self._wake_w, b"x")
            except OSError:
                pass

    def _dispatch(self) -> None:
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)
        try:
            for slot in self._slots:
                self._spawn(slot)
            while True:
                if self._closing:
                    break
                self._step()
        except BaseException as exc:  # never leave callers waiting on a dead dispatcher
            self._startup_error = self._startup_error or f"sandbox dispatcher failed: {exc!r}"
            self._ready.set()
        finally:
            self._shutdown()

    def _step(self) -> None:
        now = time.monotonic()
        deadlines = [s.deadline for s in self._slots if s.state in ("busy", "starting", "cleaning")]
        # (a busy slot's deadline is its first job's: see `_arm`)
        wait = max(0.0, min(deadlines) - now) if deadlines else None
        for key, events in self._selector.select(wait):
            if self._selector.get_map().get(key.fd) is not key:
                continue  # its worker was killed while handling an earlier event
            if key.data is None:
                self._drain_wake()
                continue
            slot, role = key.data
            if role == "stdout":
                self._read_replies(slot, key.fd)
            elif role == "stderr":
                self._read_stderr(slot, key.fd)
            elif role == "stdin" and events & selectors.EVENT_WRITE:
                self._flush(slot)
        now = time.monotonic()
        for slot in self._slots:
            if slot.state == "starting" and now >= slot.deadline:
                self._fail_slot(
                    slot, f"the sandbox worker did not start within {STARTUP_TIMEOUT_S:.0f} s"
                )
            elif slot.state == "busy" and now >= slot.deadline:
                self._fail_slot(
                    slot,
                    "the sandbox worker stopped answering and was restarted"
                    if slot.head_started
                    else "the sandbox worker took too long to clean up after a job",
                )
            elif slot.state == "cleaning" and now >= slot.deadline:
                self._fail_slot(slot, "the sandbox worker took too long to clean up after a job")
        self._assign()
        if not self._ready.is_set() and all(s.state != "starting" for s in self._slots):
            self._ready.set()

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except BlockingIOError:
            pass
        with self._lock:
            while self._urgent:
                self._pending.insert(self._front, self._urgent.popleft())
                self._front += 1
            while self._submitted:
                self._pending.append(self._submitted.popleft())

    def _assign(self) -> None:
        """Fill idle zygotes first, then queue a second job on each (round robin). An urgent job
        is never queued behind another: the oracle's runs after a timeout are of a sample that
        ran out of time, likely to take their whole limit, and two of them queued on one zygote
        would run one after the other while another zygote (restarting after that timeout) is
        about to be free. The jobs behind an urgent one wait with it (the queue's order holds)."""
        for depth in range(QUEUE_DEPTH):
            for slot in self._slots:
                if not self._pending:
                    return
                if depth > 0 and self._pending[0].urgent:
                    return
                if slot.state not in ("idle", "busy", "cleaning") or len(slot.jobs) != depth:
                    continue
                job = self._pending.popleft()
                self._front = max(0, self._front - 1)
                if not job.requeued and not job.future.set_running_or_notify_cancel():
                    continue
                slot.jobs.append(job)
                if slot.state == "idle":
                    slot.state = "busy"
                    self._arm(slot, started=True)
                elif slot.state == "cleaning":
                    slot.state = "busy"
                    self._arm(slot, started=False)
                slot.outbuf += job.frame
                self._flush(slot)

    def _arm(self, slot: _Slot, *, started: bool) -> None:
        """The deadline of the slot's first job: its timeout, plus the previous job's clean-up
        while it has not started yet; and the OOM count before it."""
        job = slot.jobs[0]
        slot.head_started = started
        slot.started_at = time.monotonic()
        slot.deadline = self.limits.job_deadline(slot.started_at, job.timeout_s)
        if not started:
            slot.deadline += CLEANUP_TIMEOUT_S
        slot.pgids = []
        if self._cgroups is not None:
            slot.oom_kills = self._cgroups.oom_kills(slot.index)

    def _spawn(self, slot: _Slot) -> None:
        tmpfs_bytes = self.limits.disk_bytes + (4 << 20)
        tmpfs = {"path": "/tmp", "bytes": tmpfs_bytes, "inodes": MAX_WORKDIR_ENTRIES + 64}
        bubblewrap = self.isolation == "bubblewrap"
        workdir = "/tmp/w" if bubblewrap else os.path.join(self._base, f"w{slot.index}")
        if bubblewrap:
            command = bwrap_command(tmp_size=tmpfs_bytes)
        else:
            command = [sys.executable, "-s", "-P", "-B", str(WORKER_ENTRY)]
        if self._cgroups is not None:
            self._set_memory_limit(slot, cgroups.STARTUP_ALLOWANCE + self.limits.memory_bytes)
            command = self._cgroups.join_command(slot.index, command)
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(WORKER_ENV),
            cwd=self._base,
            close_fds=True,
            start_new_session=True,
        )
        slot.proc = proc
        slot.state = "starting"
        slot.deadline = time.monotonic() + STARTUP_TIMEOUT_S
        slot.inbuf.clear()
        slot.outbuf.clear()
        slot.stderr_tail = b""
        config = {
            "sample_uid": slot.uid,
            "checker_uid": slot.checker_uid,
            "workdir": workdir,
            "read_paths": read_paths(),
            "hidden_paths": hidden_paths(),
            "limits": asdict(self.limits),
            "seccomp": "seccomp" not in self._without,
            "landlock": "landlock" not in self._without,
            "landlock_scope": "landlock-scope" not in self._without,
            "memory_cgroup": self._cgroups is not None,
            "tmpfs": tmpfs if bubblewrap else None,
            "private_ipc": bubblewrap,
            "namespaces": not bubblewrap and "namespaces" not in self._without,
            "namespace_tmpfs": tmpfs,
            "namespace_workdir": "/tmp/w",
            "namespace_root": os.path.join(self._base, f"root{slot.index}"),
            "layout": [] if bubblewrap else root_layout(),
            "shared_dirs": [] if bubblewrap else list(SHARED_DIRS),
        }
        body = json.dumps(config).encode("utf-8")
        slot.outbuf += FRAME_HEADER.pack(len(body)) + body
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        for stream, role in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            os.set_blocking(stream.fileno(), False)
            self._selector.register(stream.fileno(), selectors.EVENT_READ, (slot, role))
        os.set_blocking(proc.stdin.fileno(), False)
        self._flush(slot)

    def _flush(self, slot: _Slot) -> None:
        proc = slot.proc
        if proc is None or proc.stdin is None or proc.stdin.closed:
            return
        fd = proc.stdin.fileno()
        try:
            while slot.outbuf:
                written = os.write(fd, slot.outbuf)
                del slot.outbuf[:written]
        except BlockingIOError:
            pass
        except OSError:
            slot.outbuf.clear()
        key = self._selector.get_map().get(fd)
        if slot.outbuf and key is None:
            self._selector.register(fd, selectors.EVENT_WRITE, (slot, "stdin"))
        elif not slot.outbuf and key is not None:
            self._selector.unregister(fd)

    def _read_stderr(self, slot: _Slot, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, OSError):
            return
        if chunk:
            slot.stderr_tail = (slot.stderr_tail + chunk)[-2000:]
        else:
            self._selector.unregister(fd)

    def _read_replies(self, slot: _Slot, fd: int) -> None:
        try:
            chunk = os.read(fd, 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            reason = "the sandbox worker died"
            if slot.state == "starting":
                tail = slot.stderr_tail.decode("utf-8", "replace").strip().splitlines()
                reason = f"the sandbox worker failed to start: {tail[-1] if tail else 'no message'}"
            self._fail_slot(slot, reason)
            return
        slot.inbuf += chunk
        while True:
            message = self._take_message(slot)
            if message is None:
                return
            self._handle(slot, *message)

    @staticmethod
    def _take_message(slot: _Slot) -> tuple[dict[str, Any], list[bytes]] | None:
        buf = slot.inbuf
        if len(buf) < FRAME_HEADER.size:
            return None
        (length,) = FRAME_HEADER.unpack_from(buf)
        if len(buf) < FRAME_HEADER.size + length:
            return None
        header = json.loads(bytes(buf[FRAME_HEADER.size : FRAME_HEADER.size + length]))
        lens = header.get("lens", [])
        total = FRAME_HEADER.size + length + sum(lens)
        if len(buf) < total:
            return None
        blobs, offset = [], FRAME_HEADER.size + length
        for size in lens:
            blobs.append(bytes(buf[offset : offset + size]))
            offset += size
        del buf[:total]
        return header, blobs

    def _handle(self, slot: _Slot, header: dict[str, Any], blobs: list[bytes]) -> None:
        kind = header.get("t")
        if kind == "hello":
            slot.hello = header
            slot.state = "idle"
            slot.failures = 0
            if self._cgroups is not None:  # the zygote's own pages count too: add them
                self._set_memory_limit(slot, None)
        elif kind == "checker":  # the first checker started: how (`Zygote.warm_checker`)
            slot.hello = {
                **slot.hello,
                "checker": header.get("checker"),
                "checker_problem": header.get("checker_problem"),
            }
        elif kind == "ready" and slot.state == "cleaning":
            slot.state = "idle"
        elif kind == "started" and slot.jobs and not slot.head_started:
            slot.pgids = [int(p) for p in header.get("pgids", [])]
            slot.head_started = True
            slot.started_at = time.monotonic()
            slot.deadline = self.limits.job_deadline(slot.started_at, slot.jobs[0].timeout_s)
        elif kind == "fatal":
            self._fail_slot(slot, f"the sandbox worker could not start: {header.get('error')}")
        elif kind == "started":
            slot.pgids = [int(p) for p in header.get("pgids", [])]
        elif kind == "result" and slot.jobs:
            job = slot.jobs.popleft()
            limit = header.get("limit")
            if self._cgroups is not None and self._cgroups.oom_kills(slot.index) > slot.oom_kills:
                limit = "memory"  # the OOM killer ended a process of this job
            if slot.jobs:
                self._arm(slot, started=False)
            else:
                slot.state = "cleaning"
                slot.deadline = time.monotonic() + CLEANUP_TIMEOUT_S

            def exit_of(item: Any) -> ProcessExit | None:
                return (
                    ProcessExit(item.get("code"), item.get("signal"))
                    if isinstance(item, dict)
                    else None
                )

            job.future.set_result(
                RunResult(
                    sample_stream=blobs[0],
                    checker_stream=blobs[1],
                    output=blobs[2],
                    output_total=int(header.get("output_total", 0)),
                    sample_exit=exit_of(header.get("sample_exit")),
                    checker_exit=exit_of(header.get("checker_exit")),
                    timed_out=bool(header.get("timed_out")),
                    limit=limit,
                    lost=None,
                    elapsed_s=float(header.get("elapsed", 0.0)),
                )
            )

    def _set_memory_limit(self, slot: _Slot, limit: int | None) -> None:
        """`limit`, or the zygote's usage now plus `Limits.memory_bytes`; a cgroup file that
        cannot be written (removed under us) leaves the previous limit, never the dispatcher dead."""
        assert self._cgroups is not None
        try:
            if limit is None:
                limit = self._cgroups.usage(slot.index) + self.limits.memory_bytes
            self._cgroups.set_limit(slot.index, limit)
        except (OSError, ValueError):
            pass

    def _fail_slot(self, slot: _Slot, reason: str) -> None:
        """Kill the zygote (and its sandbox and job), report the job lost, start a fresh one."""
        was_starting = slot.state == "starting"
        self._kill(slot)
        if slot.jobs:
            job = slot.jobs.popleft()
            if slot.head_started or job.requeued:
                job.future.set_result(_lost(reason, time.monotonic() - slot.started_at))
            else:  # it never started: another zygote runs it
                job.requeued = True
                slot.jobs.appendleft(job)
            for waiting in reversed(slot.jobs):
                waiting.requeued = True
                self._pending.appendleft(waiting)
                self._front += 1
            slot.jobs.clear()
        if was_starting:
            slot.failures += 1
            if not self._ready.is_set():
                self._startup_error = self._startup_error or reason
                slot.state = "dead"
                return
        if self._closing or slot.failures >= 3:
            slot.state = "dead"
            if all(s.state == "dead" for s in self._slots):
                self._fail_pending(f"no sandbox worker can run: {reason}")
            return
        self._spawn(slot)

    def _kill(self, slot: _Slot) -> None:
        proc = slot.proc
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                try:
                    self._selector.unregister(stream.fileno())
                except (KeyError, ValueError):
                    pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.isolation == "reduced":
            for pgid in slot.pgids:  # a job's groups outlive a zygote killed mid-job
                try:
                    os.killpg(pgid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        slot.proc = None
        slot.state = "dead"
        slot.pgids = []

    def _fail_pending(self, reason: str) -> None:
        with self._lock:
            self._pending.extend(self._urgent)
            self._pending.extend(self._submitted)
            self._urgent.clear()
            self._submitted.clear()
        self._front = 0
        while self._pending:
            job = self._pending.popleft()
            if job.requeued or job.future.set_running_or_notify_cancel():
                job.future.set_exception(SandboxError(reason))

    def _shutdown(self) -> None:
        self._ready.set()
        for slot in self._slots:
            if slot.proc is not None and slot.proc.stdin is not None:
                try:
                    slot.proc.stdin.close()
                except OSError:
                    pass
        deadline = time.monotonic() + 1.0
        for slot in self._slots:
            if slot.proc is not None:
                try:
                    slot.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
        for slot in self._slots:
            while slot.jobs:
                slot.jobs.popleft().future.set_exception(
                    SandboxError("the sandbox pool was closed")
                )
            self._kill(slot)
        with self._lock:
            self._closing = True
        self._fail_pending("the sandbox pool was closed")
        self._selector.close()
        with self._lock:
            self._closed.set()
            for fd in (self._wake_r, self._wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
