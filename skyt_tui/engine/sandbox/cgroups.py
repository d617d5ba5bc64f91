"""Memory cgroups for the sandbox pool: one per worker slot, bounding all memory its samples hold.

RLIMIT_AS bounds a process's address space, but not memory it holds outside
it: a memfd grown with `fallocate`, shared memory, files on a tmpfs. A memory
cgroup counts all of them (and kernel memory), so each worker slot gets one:
its zygote is placed in it before it starts (`join_command`), every process it
forks for a sample inherits it, and the limit is the zygote's own usage plus
`Limits.memory_bytes`. The zygote is shielded from the OOM killer (its samples
volunteer instead), and the number of OOM kills tells the pool that a sample
ran out of memory.

Works with cgroup v2 (the memory controller enabled above our own cgroup) and
with the v1 memory hierarchy, where the process may create cgroups (root, or a
delegated tree); `MemoryCgroups.create` returns None and says why otherwise.
Pool directories are named `skyt-sandbox-<pid namespace>-<pid>-<start time>-<n>`,
so one left by a killed skyt-tui is recognised (its process is gone) and removed
on the next start.
"""

from __future__ import annotations

import itertools
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

JOIN_SCRIPT = (
    'echo $$ > "$1/cgroup.procs" || exit 97; '
    "echo -1000 > /proc/self/oom_score_adj 2>/dev/null; "
    'shift; exec "$@"'
)
"""Run by /bin/sh: join the slot's cgroup, stay out of the OOM killer's way, then become the worker."""
SHELL = "/bin/sh"
STARTUP_ALLOWANCE = 256 << 20
"""Added to the sample limit while a zygote starts, before its own usage is known."""
_NAME = re.compile(r"skyt-sandbox-(\d+)-(\d+)-(\d+)-\d+")
_counter = itertools.count()


@dataclass(frozen=True)
class _Hierarchy:
    version: int
    parent: Path
    """Where pool directories are made (our cgroup in v1, its parent in v2)."""


class MemoryCgroups:
    """One pool's memory cgroups: `slot(i)` directories under one pool directory."""

    def __init__(self, hierarchy: _Hierarchy, root: Path, slots: int) -> None:
        self.version = hierarchy.version
        self.root = root
        self.slots = [root / f"slot{index}" for index in range(slots)]
        self._events: list[int] = []
        """Open fds of each slot's OOM counter file: opening a cgroup file costs ~0.25 ms,
        reading an open one ~2 µs, and the pool reads it around every job."""

    @classmethod
    def create(cls, slots: int) -> tuple[MemoryCgroups | None, str]:
        """The pool's cgroups with a startup limit each, or (None, why not)."""
        if not os.access(SHELL, os.X_OK):
            return None, f"{SHELL} is missing (it places each worker in its cgroup)"
        hierarchy, problem = _find_hierarchy()
        if hierarchy is None:
            return None, problem
        sweep_stale(hierarchy.parent)
        root = hierarchy.parent / f"skyt-sandbox-{owner_tag()}-{next(_counter)}"
        try:
            root.mkdir(mode=0o755)
        except OSError as exc:
            return None, f"cannot create a memory cgroup: {exc.strerror or exc}"
        groups = cls(hierarchy, root, slots)
        try:
            if groups.version == 2:
                (root / "cgroup.subtree_control").write_text("+memory")
            events = "memory.events" if groups.version == 2 else "memory.oom_control"
            for slot in groups.slots:
                slot.mkdir(mode=0o755)
                groups._write_limit(slot, STARTUP_ALLOWANCE)  # raised when its zygote starts
                groups._events.append(os.open(slot / events, os.O_RDONLY | os.O_CLOEXEC))
        except OSError as exc:
            groups.close()
            return None, f"cannot set up a memory cgroup: {exc.strerror or exc}"
        return groups, ""

    def join_command(self, index: int, command: list[str]) -> list[str]:
        """`command`, started inside slot `index`'s cgroup."""
        return [SHELL, "-c", JOIN_SCRIPT, "sh", str(self.slots[index]), *command]

    def set_limit(self, index: int, limit_bytes: int) -> None:
        self._write_limit(self.slots[index], limit_bytes)

    def usage(self, index: int) -> int:
        name = "memory.current" if self.version == 2 else "memory.usage_in_bytes"
        return int((self.slots[index] / name).read_text())

    def oom_kills(self, index: int) -> int:
        """How many processes the OOM killer ended in this slot so far."""
        try:
            text = os.pread(self._events[index], 4096, 0).decode("ascii", "replace")
        except (OSError, IndexError):
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def close(self) -> None:
        """Remove the pool's cgroups (their processes must be gone)."""
        for fd in self._events:
            os.close(fd)
        self._events = []
        for slot in self.slots:
            _rmdir(slot)
        _rmdir(self.root)

    def _write_limit(self, slot: Path, limit_bytes: int) -> None:
        if self.version == 2:
            (slot / "memory.max").write_text(str(limit_bytes))
            swap = slot / "memory.swap.max"
            if swap.exists():
                swap.write_text("0")
            return
        current = int((slot / "memory.limit_in_bytes").read_text())
        memsw = slot / "memory.memsw.limit_in_bytes"
        # v1 keeps memory.limit <= memsw.limit at every step: raise memsw first, lower it last.
        if memsw.exists() and limit_bytes > current:
            memsw.write_text(str(limit_bytes))
        (slot / "memory.limit_in_bytes").write_text(str(limit_bytes))
        if memsw.exists():
            memsw.write_text(str(limit_bytes))


def _find_hierarchy() -> tuple[_Hierarchy | None, str]:
    try:
        membership = Path("/proc/self/cgroup").read_text().splitlines()
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError as exc:
        return None, f"cgroups unreadable: {exc.strerror or exc}"
    v1_path = v2_path = None
    for line in membership:
        number, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if number == "0" and controllers == "":
            v2_path = path
        elif "memory" in controllers.split(","):
            v1_path = path
    v1_mount = v2_mount = None
    for line in mounts:
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        fstype, options = after[0], after[2] if len(after) > 2 else ""
        root, point = fields[3], fields[4]
        if fstype == "cgroup2" and v2_mount is None:
            v2_mount = (root, point)
        elif fstype == "cgroup" and "memory" in options.split(",") and v1_mount is None:
            v1_mount = (root, point)
    if v2_mount is not None and v2_path is not None:
        found = _v2_parent(v2_mount, v2_path)
        if found is not None:
            return _Hierarchy(2, found), ""
    if v1_mount is not None and v1_path is not None:
        directory = _inside(v1_mount, v1_path)
        if directory is not None and os.access(directory, os.W_OK):
            return _Hierarchy(1, directory), ""
        return None, "the memory cgroup is not writable here"
    return None, "no memory cgroup controller is available"


def _inside(mount: tuple[str, str], path: str) -> Path | None:
    root, point = mount
    if not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    directory = Path(point) / path[len(root) :].lstrip("/")
    return directory if directory.is_dir() else None


def _v2_parent(mount: tuple[str, str], path: str) -> Path | None:
    """Where a v2 pool directory can get the memory controller: our cgroup if it is the
    root (no processes rule does not apply there), else its parent, which must enable it."""
    own = _inside(mount, path)
    if own is None:
        return None
    candidate = own if own == Path(mount[1]) else own.parent
    try:
        enabled = (candidate / "cgroup.subtree_control").read_text().split()
    except OSError:
        return None
    if "memory" not in enabled or not os.access(candidate, os.W_OK):
        return None
    return candidate


def owner_tag() -> str:
    return f"{_pid_namespace()}-{os.getpid()}-{_start_time(os.getpid())}"


def _pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _start_time(pid: int) -> int:
    """The process's start time in clock ticks since boot (0 when it does not exist)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return 0


def owner_alive(namespace: int, pid: int, start_time: int) -> bool:
    """Is the process that made a pool still running? Unknown (another pid namespace) counts as yes."""
    if namespace != _pid_namespace():
        return True
    return _start_time(pid) == start_time


def sweep_stale(parent: Path) -> None:
    """Remove pool cgroups under `parent` whose skyt-tui is gone, killing what is left in them
    (its zygotes die with the app, but may not have finished dying)."""
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        match = _NAME.fullmatch(entry.name)
        if not match or not entry.is_dir(follow_symlinks=False):
            continue
        if owner_alive(*(int(group) for group in match.groups())):
            continue
        try:
            slots = [Path(child.path) for child in os.scandir(entry.path) if child.is_dir()]
        except OSError:
            continue
        for slot in slots:
            _empty(slot)
            _rmdir(slot)
        _rmdir(Path(entry.path))


def _empty(slot: Path) -> None:
    """Kill what is left in a dead pool's slot (its sandbox, dying with the app anyway)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            pids = [int(pid) for pid in (slot / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.02)


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass
