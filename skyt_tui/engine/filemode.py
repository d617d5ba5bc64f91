"""The permissions a new file gets: 0666 less the process's umask, as `open()` would give.

`tempfile.mkstemp` (under every atomic write) creates files 0600 whatever the umask; the
store's files are then set to this mode, so a whole-file write and an appended JSONL log
end up with the same permissions (0644 under the usual umask 022).
"""

from __future__ import annotations

import os


def current_umask() -> int:
    """The umask, read without changing it where Linux reports it (/proc, since 4.7)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the classic read-and-restore
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    return 0o666 & ~current_umask()
