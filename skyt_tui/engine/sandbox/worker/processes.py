"""The zygote's view of processes: exits, process groups, children left behind, a uid's count."""

from __future__ import annotations

import os
import signal
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .checker import Checker


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
