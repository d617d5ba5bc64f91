"""Durable, versioned files: atomic JSON/TOML writes, append-only JSONL, a lock.

Rules every writer in skyt-tui follows (docs/state.md):
- a whole-file write goes to a temp file in the same directory, is fsynced and
  renamed over the target, so readers see the old or the new file, never half;
- JSONL logs are only appended to, one record a line, fsynced per record;
- every document carries `schema_version`; a newer version than this build
  understands is refused rather than misread;
- a corrupt file raises `StoreError` naming it and is never overwritten;
- writers hold `store_lock()` so two skyt-tui processes cannot interleave.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tomli_w

from skyt_tui import locations
from skyt_tui.engine.errors import InputError, StoreError

SCHEMA_VERSION = 1
LOCK_TIMEOUT_S = 10.0


def fsync_dir(directory: Path) -> None:
    """Make a rename or creation inside `directory` durable."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


WRITE_REFUSED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})
"""The errors of a write the system refuses (permissions, a read-only file system, a full disk or
quota): the user's to fix, so one line rather than a traceback."""


def write_failure(path: Path, exc: OSError) -> StoreError:
    """One line for a write the system refused (full disk, quota, permissions, read-only)."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        reason += "; nothing was written (free some space and try again)"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason += "; nothing was written (this needs write access there)"
    return StoreError(f"{path}: cannot write: {reason}")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all; a refused write is one `StoreError` line."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise write_failure(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            from skyt_tui.engine.filemode import new_file_mode

            os.fchmod(handle.fileno(), new_file_mode())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError):
            raise write_failure(path, exc) from None
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def dumps_json(obj: Any) -> str:
    """Canonical JSON: sorted keys, so equal data gives byte-identical files."""
    return json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=True) + "\n"


def write_json(path: Path, obj: dict[str, Any], kind: str) -> None:
    """Write a versioned JSON document atomically."""
    document = {"schema_version": SCHEMA_VERSION, "kind": kind, **obj}
    atomic_write_text(path, dumps_json(document))


def _check_version(path: Path, document: Any, kind: str | None) -> None:
    if not isinstance(document, dict):
        raise StoreError(f"{path}: corrupt file: expected a JSON object at the top level")
    version = document.get("schema_version")
    if not isinstance(version, int):
        raise StoreError(f"{path}: corrupt file: missing or invalid schema_version")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: schema_version {version} was written by a newer skyt-tui "
            f"(this one reads up to {SCHEMA_VERSION}); upgrade skyt-tui"
        )
    if kind is not None and document.get("kind") != kind:
        raise StoreError(
            f"{path}: corrupt file: kind is {document.get('kind')!r}, expected {kind!r}"
        )


def read_json(path: Path, kind: str | None = None) -> dict[str, Any]:
    """Read a versioned JSON document; any damage raises `StoreError` naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"{path}: corrupt file: not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"{path}: corrupt JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    _check_version(path, document, kind)
    checked: dict[str, Any] = document
    return checked


def write_toml(path: Path, obj: dict[str, Any]) -> None:
    document = {"schema_version": SCHEMA_VERSION, **obj}
    text = tomli_w.dumps(document, multiline_strings=True)
    if tomllib.loads(text) != document:
        # multi-line strings cannot hold every string: tomli_w writes "\r\n" in one as a bare
        # newline, which reads back as "\n" (found by hypothesis); single-line escapes can
        text = tomli_w.dumps(document)
    atomic_write_text(path, text)


def read_toml(path: Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"{path}: corrupt file: not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise StoreError(f"{path}: invalid TOML: {exc}") from None


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record as one line and fsync it before returning."""
    path = Path(path)
    line = json.dumps(
        {"schema_version": SCHEMA_VERSION, **record}, sort_keys=True, ensure_ascii=False
    )
    if "\n" in line:
        raise StoreError(
            f"{path}: refusing to append a record that serialises to more than one line"
        )
    data = (line + "\n").encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise write_failure(path, exc) from None
    size = None
    try:
        _repair_torn_tail(fd, path)
        size = os.fstat(fd).st_size
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except OSError as exc:
        if size is not None:  # take back the part of the record that did get written
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
        raise write_failure(path, exc) from None
    finally:
        os.close(fd)


def _repair_torn_tail(fd: int, path: Path) -> None:
    """If a crash left a final line without newline, end it so the next record starts clean.

    The torn fragment stays in the file (nothing is deleted); `read_jsonl` skips a
    torn line only when it is the last one, and reports it otherwise.
    """
    size = os.fstat(fd).st_size
    if size == 0:
        return
    with open(path, "rb") as reader:
        reader.seek(size - 1)
        if reader.read(1) != b"\n":
            os.write(fd, b"\n")


def read_jsonl(
    path: Path, *, allow_torn_tail: bool = True, damaged: list[str] | None = None
) -> list[dict[str, Any]]:
    """Read every record; a torn line (crash mid-append) is skipped, other damage raises.

    Each skipped torn line is reported in `damaged` ("FILE: line N: …") when a list
    is given, so a caller can tell a log that lost a record from a whole one.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from None
    records: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    ends_clean = raw.endswith(b"\n") or raw == b""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        is_last = number == len(lines) and not ends_clean
        try:
            record = json.loads(line.decode("utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            if allow_torn_tail and (is_last or _is_torn_fragment(lines, number)):
                if damaged is not None:
                    damaged.append(
                        f"{path}: line {number}: torn record (a write that did not finish)"
                    )
                if is_last:
                    break
                continue
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise StoreError(f"{path}: corrupt record at line {number}: {reason}") from None
        version = record.get("schema_version")
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: line {number} has schema_version {version}, written by a newer skyt-tui"
            )
        records.append(record)
    return records


def read_jsonl_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Every row of a JSONL file someone else wrote (recorded samples, problems), with its line number.

    Unlike `read_jsonl` (the store's own logs) nothing is forgiven: any line that is
    not a JSON object, torn or not, is one `InputError` naming the file and line.
    Blank lines are skipped.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError.at(path, "no such file")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.at(path, f"not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror}") from None
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError.at(path, f"line {number}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise InputError.at(path, f"line {number}: expected a JSON object")
        rows.append((number, row))
    return rows


def _is_torn_fragment(lines: list[bytes], number: int) -> bool:
    """A fragment that `_repair_torn_tail` closed: unparseable and not valid JSON start-to-end.

    Only a line that begins a JSON object but never closes it counts (the shape a
    crash mid-append leaves); anything else is corruption and is reported.
    """
    line = lines[number - 1].strip()
    return line.startswith(b"{") and not line.endswith(b"}")


_held = threading.local()


@contextlib.contextmanager
def store_lock(timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Exclusive advisory lock on the data directory for the duration of a write.

    Reentrant within one thread: a writer that holds it (an import reading the
    origin index and creating runs) may call writers that take it again.
    """
    depth = getattr(_held, "depth", 0)
    if depth:
        _held.depth = depth + 1
        try:
            yield
        finally:
            _held.depth -= 1
        return
    lock_path = locations.lock_file()
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:  # a read-only store: every writer stops here, before writing anything
        raise write_failure(lock_path.parent, exc) from None
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise StoreError(
                        f"{lock_path}: cannot lock the store: {exc.strerror}"
                    ) from None
                if time.monotonic() >= deadline:
                    holder = _read_holder(lock_path)
                    raise StoreError(
                        f"{lock_path}: the store is locked by another skyt-tui process{holder}; "
                        f"try again when it finishes"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _read_holder(lock_path: Path) -> str:
    try:
        pid = lock_path.read_text().strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""
