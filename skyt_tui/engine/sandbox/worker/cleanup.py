"""Files a job left: measure them and remove them, by walks a sample cannot blind or break.

Every walk is iterative and relative to directory fds, follows no symlink and copes with any
depth, name length or mode. The pool (`sandbox.pool`) uses `remove_tree` for the folders a killed
skyt-tui left behind.
"""

from __future__ import annotations

import os
import stat
from typing import Any

MAX_WORKDIR_ENTRIES = 20_000
"""Files and directories a job may make; more counts as over the disk limit."""
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
