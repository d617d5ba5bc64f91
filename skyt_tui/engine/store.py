"""Durable, versioned files: atomic JSON/TOML writes, append-only JSONL, a lock.

Rules every writer in skyt-tui follows (docs/state.md):
- a whole-file write goes to a temp file in the same directory, is fsynced and
  renamed over the target, so readers see the old or the new file, never half;
- JSONL logs are only appended to, one record a line, fsynced per record;
- every document carries `schema_version`; a newer version than this build
  understands is refused rather than misread;
- a corrupt file raises `StoreError` naming it and is never overwritten;
- writers hold `store_lock()` so two skyt-tui processes cannot interleave;
- inside the store, a write never follows a link it did not make: each folder
  on the way from the store's root is opened without following links, the
  file itself too (a link, a device or a file with other hard links is
  refused with one line naming it), so a link planted in the store cannot
  turn a write into one outside it;
- everything read (the store's own files or someone else's) is bounded: a
  regular file of at most `MAX_READ_BYTES`, JSON and TOML nested at most
  `MAX_NESTING` levels, each failure one error naming the file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import stat
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import tomli_w

from skyt_tui import locations
from skyt_tui.engine.errors import InputError, SkytError, StoreError
from skyt_tui.engine.printable import counted

SCHEMA_VERSION = 1
LOCK_TIMEOUT_S = 10.0
MAX_READ_BYTES = 256 << 20
"""The largest file read (a store file, a recorded-samples file, a contract): past it, one error."""
MAX_NESTING = 200
"""The deepest JSON or TOML document read (arrays and tables): every document skyt-tui writes
nests a few levels plus a contract's values (at most 100, what the sandbox accepts); a deeper
one would break the recursive code that later walks it, so it is refused when read."""
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


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


def link_refusal(path: Path | str, what: str = "a symbolic link") -> StoreError:
    """One line for a file in the store that skyt-tui did not make and will not write through."""
    return StoreError(
        f"{path}: is {what}, which skyt-tui never makes in its store; it does not write "
        f"through it (remove it and try again)"
    )


def _store_parts(path: Path) -> list[str] | None:
    """`path`'s components below the store's root (the home directory), or None outside it.

    The root itself may be a link (a store moved to another disk); below it, nothing is."""
    root = os.path.abspath(locations.home_dir())
    target = os.path.abspath(path)
    if target == root:
        return []
    if target.startswith(root.rstrip(os.sep) + os.sep):
        return target[len(root.rstrip(os.sep)) + 1 :].split(os.sep)
    return None


def in_store(path: Path) -> bool:
    return _store_parts(Path(path)) is not None


@contextlib.contextmanager
def open_directory(directory: Path, *, create: bool = True) -> Iterator[int]:
    """A descriptor of `directory`, made when missing (`create`). Inside the store each folder on
    the way from its root is opened without following links, so what is written through the
    descriptor lands in the store; a link (or a file) where a folder should be is a `StoreError`
    naming it. Outside the store (an export the user asked for) the path is taken as it is."""
    directory = Path(directory)
    parts = _store_parts(directory)
    try:
        if parts is None:
            if create:
                directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        else:
            root = Path(os.path.abspath(locations.home_dir()))
            if create:
                root.mkdir(parents=True, exist_ok=True)
            fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            walked = root
            for part in parts:
                walked = walked / part
                try:
                    fd = _step(fd, part, walked, create)
                except BaseException:
                    os.close(fd)
                    raise
    except OSError as exc:
        raise write_failure(directory, exc) from None
    try:
        yield fd
    finally:
        os.close(fd)


def _step(parent: int, name: str, path: Path, create: bool) -> int:
    """The descriptor of folder `name` in `parent` (closed here), without following a link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW
    try:
        child = os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.mkdir(name, 0o777, dir_fd=parent)
        child = _open_dir_entry(parent, name, path, flags)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        child = _open_dir_entry(parent, name, path, flags)
    os.close(parent)
    return child


def _open_dir_entry(parent: int, name: str, path: Path, flags: int) -> int:
    info = os.lstat(name, dir_fd=parent)
    if stat.S_ISLNK(info.st_mode):
        raise link_refusal(path)
    if not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{path}: is not a folder (skyt-tui keeps a folder there)")
    return os.open(name, flags, dir_fd=parent)


def _refuse_planted(directory: int, name: str, path: Path, *, appending: bool = False) -> None:
    """Refuse a link (or anything but a regular file) at a name the store is about to replace,
    and, for a file appended to, one with other hard links."""
    try:
        info = os.lstat(name, dir_fd=directory)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise link_refusal(path)
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path}: is not a regular file; skyt-tui does not write to it")
    if appending and info.st_nlink > 1:
        raise link_refusal(path, f"a file with {counted(info.st_nlink - 1, 'other hard link')}")


def check_writable(*paths: Path) -> None:
    """Refuse, before anything is written, the store files a multi-file write would be refused
    at (a link on the way or at the file, a device, a hard-linked log): so such a write is
    refused whole rather than half done."""
    for path in map(Path, paths):
        if in_store(path):
            with open_directory(path.parent) as directory:
                _refuse_planted(directory, path.name, path, appending=True)


def open_for_update(path: Path, *, flags: int = os.O_RDWR | os.O_APPEND) -> int:
    """A descriptor of the store file `path` (created 0644 less the umask when missing) to append to
    or lock: never through a link, never a device or FIFO, never a file with other hard links (a
    write would reach the other name); each refusal one `StoreError` naming the file."""
    path = Path(path)
    with open_directory(path.parent) as directory:
        try:
            fd = os.open(
                path.name, flags | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW, 0o644, dir_fd=directory
            )
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise link_refusal(path) from None
            raise write_failure(path, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path}: is not a regular file; skyt-tui does not write to it")
        if info.st_nlink > 1 and in_store(path):
            raise link_refusal(path, f"a file with {counted(info.st_nlink - 1, 'other hard link')}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all; a refused write is one `StoreError` line.

    The temp file is made in the target's folder (reached without links inside the store),
    fsynced and renamed over the target; a link at the target inside the store is refused."""
    from skyt_tui.engine.filemode import new_file_mode

    path = Path(path)
    with open_directory(path.parent) as directory:
        if in_store(path):
            _refuse_planted(directory, path.name, path)
        temp = f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600, dir_fd=directory
            )
        except OSError as exc:
            raise write_failure(path, exc) from None
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                os.fchmod(handle.fileno(), new_file_mode())
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=directory)
            if isinstance(exc, OSError):
                raise write_failure(path, exc) from None
            raise
        with contextlib.suppress(OSError):
            os.fsync(directory)


class AtomicWriter:
    """A file written in parts, whole or not at all (`atomic_write_bytes` for text that comes in
    pieces): the parts go to a temporary file in the target's folder, which `close(commit=True)`
    fsyncs and renames over the target; `close(commit=False)` removes it."""

    def __init__(self, path: Path) -> None:
        from skyt_tui.engine.filemode import new_file_mode

        self.path = Path(path)
        self._mode = new_file_mode()
        with open_directory(self.path.parent) as directory:
            if in_store(self.path):
                _refuse_planted(directory, self.path.name, self.path)
            self._directory = os.dup(directory)
        self._temp = f".{self.path.name}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(
                self._temp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW,
                0o600,
                dir_fd=self._directory,
            )
        except OSError as exc:
            os.close(self._directory)
            raise write_failure(self.path, exc) from None
        self._handle = os.fdopen(fd, "w", encoding="utf-8", newline="")

    def write(self, text: str) -> None:
        try:
            self._handle.write(text)
        except OSError as exc:
            self.close(commit=False)
            raise write_failure(self.path, exc) from None

    def close(self, *, commit: bool) -> None:
        """Rename the whole into place (`commit`), or drop what was written."""
        if self._handle.closed:
            return
        try:
            if commit:
                try:
                    self._handle.flush()
                    os.fchmod(self._handle.fileno(), self._mode)
                    os.fsync(self._handle.fileno())
                    self._handle.close()
                    os.replace(
                        self._temp,
                        self.path.name,
                        src_dir_fd=self._directory,
                        dst_dir_fd=self._directory,
                    )
                except OSError as exc:
                    commit = False
                    raise write_failure(self.path, exc) from None
                with contextlib.suppress(OSError):
                    os.fsync(self._directory)
        finally:
            if not commit:
                with contextlib.suppress(OSError):
                    self._handle.close()
                with contextlib.suppress(OSError):
                    os.unlink(self._temp, dir_fd=self._directory)
            os.close(self._directory)


def make_dirs(directory: Path) -> None:
    """Make `directory` and its parents (inside the store: without following a link)."""
    with open_directory(Path(directory)):
        pass


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


def read_bytes(path: Path, *, error: type[SkytError] = StoreError, pipes: bool = False) -> bytes:
    """A file's bytes, at most `MAX_READ_BYTES`: a folder, a larger file and (unless `pipes`, for
    input the user names: a FIFO from `<(…)`) anything but a regular file are one `error` naming
    it, so a planted FIFO or device cannot block or fill a reader. A missing file raises
    `FileNotFoundError`, for callers to say what is missing."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            if info.st_size > MAX_READ_BYTES:
                raise error(
                    f"{path}: cannot read: {info.st_size:,} bytes, more than the "
                    f"{MAX_READ_BYTES >> 20} MiB skyt-tui reads from one file"
                )
        elif pipes and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
            os.set_blocking(fd, True)
        else:
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise error(f"{path}: cannot read: {kind}")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_READ_BYTES:
        raise error(f"{path}: cannot read: more than {MAX_READ_BYTES >> 20} MiB")
    return data


def read_text(path: Path, *, error: type[SkytError] = InputError, pipes: bool = True) -> str:
    """`read_bytes` as UTF-8 text (by default a file the user named, so pipes are fine); other
    bytes are one `error` naming the file and the byte."""
    data = read_bytes(path, error=error, pipes=pipes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start})") from None


def nesting(value: Any, limit: int = MAX_NESTING) -> int:
    """How deeply lists and dicts nest in `value` (a scalar: 0), without recursion; the walk stops
    as soon as it passes `limit`."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        if level > deepest:
            deepest = level
            if deepest > limit:
                return deepest
        stack.extend((child, level) for child in children if isinstance(child, dict | list))
    return deepest


class JsonProblem(ValueError):
    """Why a text is not acceptable JSON (`str` is the reason), with the position when known."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(reason)
        self.line, self.column = line, column

    def at(self) -> str:
        return f" at line {self.line} column {self.column}" if self.line is not None else ""


def loads_json(text: str | bytes) -> Any:
    """`json.loads`, bounded: malformed JSON, bytes that are not UTF-8, a number past Python's
    digit limit and nesting past `MAX_NESTING` (or past the parser's recursion limit, 100,000
    levels would otherwise be a `RecursionError`) each raise `JsonProblem`."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JsonProblem(exc.msg, exc.lineno, exc.colno) from None
    except UnicodeDecodeError as exc:
        raise JsonProblem(f"not UTF-8 text (byte {exc.start})") from None
    except RecursionError:
        raise JsonProblem(f"nested deeper than {MAX_NESTING} levels") from None
    except ValueError as exc:
        raise JsonProblem(str(exc)) from None
    if nesting(value) > MAX_NESTING:
        raise JsonProblem(f"nested deeper than {MAX_NESTING} levels")
    return value


def parse_json(
    text: str | bytes,
    where: str | Path,
    *,
    error: type[SkytError] = InputError,
    what: str = "invalid JSON",
) -> Any:
    """`loads_json` of text from `where`; a problem is one `error`: "WHERE: WHAT at line L column
    C: REASON"."""
    try:
        return loads_json(text)
    except JsonProblem as exc:
        raise error(f"{where}: {what}{exc.at()}: {exc}") from None


def parse_toml(
    text: str, where: str | Path, *, error: type[SkytError] = InputError
) -> dict[str, Any]:
    """`tomllib.loads` of text from a file, bounded like `parse_json`; one `error` naming `where`."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: invalid TOML: {exc}") from None
    except RecursionError:
        raise error(f"{where}: invalid TOML: nested deeper than {MAX_NESTING} levels") from None
    except ValueError as exc:
        raise error(f"{where}: invalid TOML: {exc}") from None
    if nesting(document) > MAX_NESTING:
        raise error(f"{where}: invalid TOML: nested deeper than {MAX_NESTING} levels")
    return document


def read_json_file(path: Path) -> Any:
    """A JSON document someone else wrote (recorded samples, SKYT templates): any problem with it
    (missing, unreadable, too large, not UTF-8, invalid, too deep) is one `InputError` naming it."""
    path = Path(path)
    try:
        text = read_text(path, error=InputError)
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None
    return parse_json(text, path)


def read_json(path: Path, kind: str | None = None) -> dict[str, Any]:
    """Read a versioned JSON document; any damage raises `StoreError` naming the file."""
    path = Path(path)
    document = parse_json(_stored_text(path), path, error=StoreError, what="corrupt JSON")
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
    """Read a TOML document of the store; any damage raises `StoreError` naming the file."""
    path = Path(path)
    return parse_toml(_stored_text(path), path, error=StoreError)


def _stored_text(path: Path) -> str:
    """A file of the store as text, read by `read_bytes` (bounded); not UTF-8 is a `StoreError`."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"{path}: corrupt file: not UTF-8 ({exc.reason} at byte {exc.start})"
        ) from None


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one record as one line and fsync it before returning (never through a link)."""
    path = Path(path)
    line = json.dumps(
        {"schema_version": SCHEMA_VERSION, **record}, sort_keys=True, ensure_ascii=False
    )
    if "\n" in line:
        raise StoreError(
            f"{path}: refusing to append a record that serialises to more than one line"
        )
    data = (line + "\n").encode("utf-8")
    fd = open_for_update(path)
    size = None
    try:
        _repair_torn_tail(fd)
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


def _repair_torn_tail(fd: int) -> None:
    """If a crash left a final line without newline, end it so the next record starts clean.

    The torn fragment stays in the file (nothing is deleted); `read_jsonl` skips a
    torn line only when it is the last one, and reports it otherwise.
    """
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        os.write(fd, b"\n")


def read_jsonl(
    path: Path, *, allow_torn_tail: bool = True, damaged: list[str] | None = None
) -> list[dict[str, Any]]:
    """Read every record; a torn line (crash mid-append) is skipped, other damage raises.

    Each skipped torn line is reported in `damaged` ("FILE: line N: …") when a list
    is given, so a caller can tell a log that lost a record from a whole one.
    """
    path = Path(path)
    raw = read_bytes(path)
    records: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    ends_clean = raw.endswith(b"\n") or raw == b""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        is_last = number == len(lines) and not ends_clean
        try:
            record = loads_json(line)
            if not isinstance(record, dict):
                raise JsonProblem("not a JSON object")
        except JsonProblem as exc:
            if allow_torn_tail and (is_last or _is_torn_fragment(lines, number)):
                if damaged is not None:
                    damaged.append(
                        f"{path}: line {number}: torn record (a write that did not finish)"
                    )
                if is_last:
                    break
                continue
            raise StoreError(f"{path}: corrupt record at line {number}: {exc}") from None
        version = record.get("schema_version")
        if isinstance(version, int) and version > SCHEMA_VERSION:
            raise StoreError(
                f"{path}: line {number} has schema_version {version}, written by a newer skyt-tui"
            )
        records.append(record)
    return records


def _is_torn_fragment(lines: list[bytes], number: int) -> bool:
    """A fragment that `_repair_torn_tail` closed: unparseable and not valid JSON start-to-end.

    Only a line that begins a JSON object but never closes it counts (the shape a
    crash mid-append leaves); anything else is corruption and is reported.
    """
    line = lines[number - 1].strip()
    return line.startswith(b"{") and not line.endswith(b"}")


@contextlib.contextmanager
def file_lock(
    path: Path, *, timeout_s: float, busy: Callable[[str], str], what: str = "the store"
) -> Iterator[None]:
    """An exclusive `flock` on the store file `path`, our pid written in it, for the duration.

    The one lock of skyt-tui: the store's (`store_lock`) and each run's (`run_store.run_lock`).
    The file is opened like every store write (`open_for_update`: no link, no device, no
    other hard link), so a planted `.lock` cannot make the pid land elsewhere. When another
    process holds it past `timeout_s`, `busy(holder)` is the one-line `StoreError` (holder:
    " (pid N)" or ""); 0 tries once.
    """
    fd = open_for_update(Path(path), flags=os.O_RDWR)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise StoreError(f"{path}: cannot lock {what}: {exc.strerror}") from None
                if time.monotonic() >= deadline:
                    raise StoreError(busy(_holder(fd))) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def lock_held(path: Path) -> bool:
    """Whether another process holds `file_lock(path)` now (a missing file, a link or anything
    but a regular file is not a lock skyt-tui holds)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EAGAIN, errno.EACCES)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    try:
        pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""


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

    def busy(holder: str) -> str:
        return (
            f"{lock_path}: the store is locked by another skyt-tui process{holder}; "
            f"try again when it finishes"
        )

    with file_lock(lock_path, timeout_s=timeout_s, busy=busy):
        _held.depth = 1
        try:
            yield
        finally:
            _held.depth = 0
