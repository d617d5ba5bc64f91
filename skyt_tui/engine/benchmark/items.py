"""Benchmark items and per-system scores: reading and validating the input files (docs/benchmark.md).

Inputs are ISSUES.jsonl (one item a line), RESULTS.csv (`system,issue_id,score`)
and SYSTEMS.jsonl (one system a line), or a folder of contracts used as items.
Each reader checks the whole file before returning, and every rejection is one
`InputError` line naming file, line and field. Items are kept sorted by id so
that the same content read from a reordered file is the same benchmark.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import math
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError

if TYPE_CHECKING:  # contracts load when contracts are read, not with every benchmark command
    from skyt_tui.engine.contracts.contract import Contract

DIFFICULTIES = ("easy", "medium", "hard")
ITEM_TEXT_FIELDS = ("title", "body", "solution", "repo", "created_at")
_KNOWN_ITEM_FIELDS = frozenset(("id", "difficulty", "number", *ITEM_TEXT_FIELDS))


def option_error(reason: str, key: str | None = None) -> InputError:
    """An error about an argument or setting rather than a file: `key: reason`."""
    return InputError(f"{key}: {reason}" if key else reason)


@dataclass(frozen=True)
class Item:
    """One benchmark item (an issue or problem); `extra` keeps fields skyt-tui does not use."""

    id: str
    difficulty: str
    title: str | None = None
    body: str | None = None
    solution: str | None = None
    repo: str | None = None
    number: int | None = None
    created_at: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def has_text(self) -> bool:
        return bool((self.title or "").strip() or (self.body or "").strip())

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"id": self.id, "difficulty": self.difficulty}
        for name in ("title", "body", "solution", "repo", "number", "created_at"):
            value = getattr(self, name)
            if value is not None:
                record[name] = value
        if self.extra:
            record["extra"] = dict(sorted(self.extra.items()))
        return record

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> Item:
        return cls(
            id=record["id"],
            difficulty=record["difficulty"],
            title=record.get("title"),
            body=record.get("body"),
            solution=record.get("solution"),
            repo=record.get("repo"),
            number=record.get("number"),
            created_at=record.get("created_at"),
            extra=dict(record.get("extra") or {}),
        )


@dataclass(frozen=True)
class SystemInfo:
    """One evaluated system (model/agent); `release_date` as given in SYSTEMS.jsonl."""

    name: str
    release_date: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {"system": self.name}
        if self.release_date is not None:
            record["release_date"] = self.release_date
        if self.extra:
            record["extra"] = dict(sorted(self.extra.items()))
        return record

    @classmethod
    def from_dict(cls, record: dict[str, Any]) -> SystemInfo:
        return cls(
            name=record["system"],
            release_date=record.get("release_date"),
            extra=dict(record.get("extra") or {}),
        )


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Scores as a systems × items array aligned with the benchmark's items; NaN = no score.

    Systems are sorted by name; columns follow `item_ids` (the items' sorted order).
    """

    systems: tuple[str, ...]
    item_ids: tuple[str, ...]
    scores: np.ndarray

    @property
    def n_results(self) -> int:
        return int(np.count_nonzero(~np.isnan(self.scores)))

    def missing_per_system(self) -> dict[str, int]:
        missing = np.isnan(self.scores).sum(axis=1)
        return {name: int(count) for name, count in zip(self.systems, missing)}

    def digest(self) -> str:
        """SHA-256 over systems, item ids and scores (missing written as -1), for version identity."""
        hasher = hashlib.sha256()
        hasher.update(json.dumps([list(self.systems), list(self.item_ids)]).encode("utf-8"))
        canonical = np.where(np.isnan(self.scores), -1.0, self.scores).astype("<f8")
        hasher.update(canonical.tobytes())
        return hasher.hexdigest()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreMatrix):
            return NotImplemented
        return (
            self.systems == other.systems
            and self.item_ids == other.item_ids
            and np.array_equal(self.scores, other.scores, equal_nan=True)
        )

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class BenchmarkData:
    """Everything one import brings: items (sorted by id), optional scores and systems."""

    items: tuple[Item, ...]
    scores: ScoreMatrix | None = None
    systems: tuple[SystemInfo, ...] = ()

    @property
    def item_ids(self) -> tuple[str, ...]:
        return tuple(item.id for item in self.items)

    def strata(self) -> dict[str, int]:
        """Number of items per difficulty, keys sorted."""
        counts: dict[str, int] = {}
        for item in self.items:
            counts[item.difficulty] = counts.get(item.difficulty, 0) + 1
        return dict(sorted(counts.items()))

    def content_hash(self) -> str:
        """Identity of the content, independent of line order and formatting of the input files."""
        hasher = hashlib.sha256()
        for item in self.items:
            hasher.update(
                json.dumps(item.to_dict(), sort_keys=True, ensure_ascii=False).encode("utf-8")
            )
            hasher.update(b"\n")
        hasher.update(b"\x00scores\x00")
        hasher.update((self.scores.digest() if self.scores is not None else "none").encode("ascii"))
        hasher.update(b"\x00systems\x00")
        for system in self.systems:
            hasher.update(
                json.dumps(system.to_dict(), sort_keys=True, ensure_ascii=False).encode("utf-8")
            )
            hasher.update(b"\n")
        return hasher.hexdigest()


def _open_text(path: Path | str, newline: str | None = None) -> io.TextIOBase:
    """The file to read (`-`: standard input, read once through the sources room's reader)."""
    from skyt_tui.engine.sources import files

    if files.is_stdin(path):
        return io.StringIO(files.read_text(path), newline=newline)
    return open(path, encoding="utf-8", newline=newline)  # noqa: SIM115 - closed by the caller


def _jsonl_records(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line; undecodable lines raise located errors."""
    try:
        handle = _open_text(path)
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None
    except IsADirectoryError:
        raise InputError.at(path, "is a directory, not a JSONL file") from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror}") from None
    with handle:
        number = 0
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    value = store.loads_json(line)
                except store.JsonProblem as exc:
                    where = f" (column {exc.column})" if exc.column is not None else ""
                    raise InputError.at(f"{path}:{number}", f"invalid JSON: {exc}{where}") from None
                yield number, value
        except UnicodeDecodeError as exc:
            raise InputError.at(f"{path}:{number + 1}", f"not UTF-8 ({exc.reason})") from None


def _optional_str(where: str, record: dict[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError.at(where, f"must be a string, got {type(value).__name__}", key=name)
    return value


def _item_id(where: str, value: Any, key: str) -> str:
    if value is None:
        raise InputError.at(where, "missing required field", key=key)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError.at(
            where, f"must be a string or an integer, got {type(value).__name__}", key=key
        )
    text = str(value)
    if not text.strip():
        raise InputError.at(where, "must not be empty", key=key)
    return text


def _difficulty(where: str, value: Any) -> str:
    if value is None:
        raise InputError.at(
            where, "missing required field (easy, medium or hard)", key="difficulty"
        )
    if value not in DIFFICULTIES:
        raise InputError.at(
            where, f"unknown difficulty {value!r} (expected easy, medium or hard)", key="difficulty"
        )
    difficulty: str = value
    return difficulty


def read_items_jsonl(path: Path | str) -> tuple[Item, ...]:
    """Read ISSUES.jsonl: `id` and `difficulty` required; `title`, `body`, `solution`, `repo`,
    `created_at` optional strings, `number` an optional integer; other fields kept in `extra`."""
    path = Path(path)
    items: dict[str, Item] = {}
    first_line: dict[str, int] = {}
    for number, record in _jsonl_records(path):
        where = f"{path}:{number}"
        if not isinstance(record, dict):
            raise InputError.at(where, f"expected a JSON object, got {type(record).__name__}")
        item_id = _item_id(where, record.get("id"), "id")
        if item_id in items:
            raise InputError.at(
                where, f"duplicate id {item_id!r} (first on line {first_line[item_id]})", key="id"
            )
        issue_number = record.get("number")
        if issue_number is not None and (
            isinstance(issue_number, bool) or not isinstance(issue_number, int)
        ):
            raise InputError.at(
                where, f"must be an integer, got {type(issue_number).__name__}", key="number"
            )
        texts = {name: _optional_str(where, record, name) for name in ITEM_TEXT_FIELDS}
        items[item_id] = Item(
            id=item_id,
            difficulty=_difficulty(where, record.get("difficulty")),
            number=issue_number,
            extra={
                key: value for key, value in sorted(record.items()) if key not in _KNOWN_ITEM_FIELDS
            },
            **texts,
        )
        first_line[item_id] = number
    if not items:
        raise InputError.at(path, "no items (the file is empty)")
    return tuple(items[item_id] for item_id in sorted(items))


def release_day(value: str | None) -> dt.date | None:
    """A system's release date as the time splits read it (its first 10 characters,
    YYYY-MM-DD); None where it is absent or does not read."""
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None


def read_systems_jsonl(path: Path | str) -> tuple[SystemInfo, ...]:
    """Read SYSTEMS.jsonl: `system` required, `release_date` optional; sorted by name."""
    path = Path(path)
    systems: dict[str, SystemInfo] = {}
    first_line: dict[str, int] = {}
    for number, record in _jsonl_records(path):
        where = f"{path}:{number}"
        if not isinstance(record, dict):
            raise InputError.at(where, f"expected a JSON object, got {type(record).__name__}")
        name = record.get("system")
        if name is None:
            raise InputError.at(where, "missing required field", key="system")
        if not isinstance(name, str) or not name.strip():
            raise InputError.at(where, "must be a non-empty string", key="system")
        if name in systems:
            raise InputError.at(
                where, f"duplicate system {name!r} (first on line {first_line[name]})", key="system"
            )
        release = _optional_str(where, record, "release_date")
        if release is not None and release_day(release) is None:
            # a date that does not read would leave the system out of every time split, unsaid
            raise InputError.at(where, f"{release!r} is not a date YYYY-MM-DD", key="release_date")
        systems[name] = SystemInfo(
            name=name,
            release_date=release,
            extra={
                key: value
                for key, value in sorted(record.items())
                if key not in ("system", "release_date")
            },
        )
        first_line[name] = number
    if not systems:
        raise InputError.at(path, "no systems (the file is empty)")
    return tuple(systems[name] for name in sorted(systems))


def _csv_rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    try:
        handle = _open_text(path, newline="")
    except FileNotFoundError:
        raise InputError.at(path, "no such file") from None
    except IsADirectoryError:
        raise InputError.at(path, "is a directory, not a CSV file") from None
    except OSError as exc:
        raise InputError.at(path, f"cannot read: {exc.strerror}") from None
    with handle:
        reader = csv.reader(handle)
        try:
            for row in reader:
                yield reader.line_num, row
        except UnicodeDecodeError as exc:
            raise InputError.at(
                f"{path}:{reader.line_num + 1}", f"not UTF-8 ({exc.reason})"
            ) from None
        except csv.Error as exc:
            raise InputError.at(f"{path}:{reader.line_num}", f"malformed CSV: {exc}") from None


def read_results_csv(
    path: Path | str, item_ids: Iterable[str], systems: Iterable[SystemInfo] | None = None
) -> ScoreMatrix:
    """Read RESULTS.csv (header `system,issue_id,score`, score in [0, 1]) into a ScoreMatrix.

    Every row must name a known item (and, when SYSTEMS.jsonl is given, a known system);
    a (system, issue_id) pair may appear once. Items a system has no row for stay NaN.
    """
    path = Path(path)
    columns = {item_id: index for index, item_id in enumerate(item_ids)}
    known_systems = None if systems is None else {system.name for system in systems}
    rows = _csv_rows(path)
    header = next((row for _, row in rows if any(cell.strip() for cell in row)), None)
    if header is None:
        raise InputError.at(path, "empty file (expected a header system,issue_id,score)")
    names = [cell.strip() for cell in header]
    missing = [column for column in ("system", "issue_id", "score") if column not in names]
    if missing:
        raise InputError.at(
            f"{path}:1",
            f"header lacks {'column' if len(missing) == 1 else 'columns'} {', '.join(missing)} (expected system,issue_id,score)",
        )
    system_col, item_col, score_col = (
        names.index(column) for column in ("system", "issue_id", "score")
    )
    width = max(system_col, item_col, score_col) + 1

    system_rows: dict[str, int] = {}
    row_of = array("q")
    column_of = array("q")
    score_of = array("d")
    line_of = array("q")
    for number, row in rows:
        if len(row) > len(names) and any(cell.strip() for cell in row[len(names) :]):
            # a cell the header names no column for: a stray comma, or a column gone missing
            raise InputError.at(
                f"{path}:{number}", f"{len(row)} fields, but the header names {len(names)}"
            )
        # The common case takes the short path; any doubt goes to `_row_problem` for the message.
        try:
            system = row[system_col].strip()
            column = columns.get(row[item_col].strip())
            score = float(row[score_col])
        except (IndexError, ValueError):
            column = score = None
        if (
            column is None
            or score is None
            or not 0.0 <= score <= 1.0
            or not system
            or (known_systems is not None and system not in known_systems)
        ):
            problem = _row_problem(
                row, width, system_col, item_col, score_col, columns, known_systems
            )
            if problem is None:
                continue
            reason, key = problem
            raise InputError.at(f"{path}:{number}", reason, key=key)
        index = system_rows.get(system)
        if index is None:
            index = system_rows[system] = len(system_rows)
        row_of.append(index)
        column_of.append(column)
        score_of.append(score)
        line_of.append(number)
    if not score_of:
        raise InputError.at(path, "no result rows after the header")

    ordered = sorted(system_rows)
    rank = {name: index for index, name in enumerate(ordered)}
    remap = np.array([rank[name] for name in system_rows], dtype=np.int64)
    system_index = remap[np.frombuffer(row_of, dtype=np.int64)]
    column_index = np.frombuffer(column_of, dtype=np.int64)
    _refuse_duplicates(
        path,
        system_index * len(columns) + column_index,
        np.frombuffer(line_of, dtype=np.int64),
        ordered,
        list(columns),
    )
    matrix = np.full((len(ordered), len(columns)), np.nan)
    matrix[system_index, column_index] = np.frombuffer(score_of, dtype=np.float64)
    return ScoreMatrix(systems=tuple(ordered), item_ids=tuple(columns), scores=matrix)


def _row_problem(
    row: list[str],
    width: int,
    system_col: int,
    item_col: int,
    score_col: int,
    columns: dict[str, int],
    known_systems: set[str] | None,
) -> tuple[str, str | None] | None:
    """What is wrong with a results row, as (reason, field); None for a blank row to skip."""
    if not any(cell.strip() for cell in row):
        return None
    if len(row) < width:
        return f"expected at least {width} columns, got {len(row)}", None
    system, item_id, raw_score = (
        row[system_col].strip(),
        row[item_col].strip(),
        row[score_col].strip(),
    )
    if not system:
        return "missing value", "system"
    if not item_id:
        return "missing value", "issue_id"
    if known_systems is not None and system not in known_systems:
        return f"unknown system {system!r} (not in the systems file)", "system"
    if item_id not in columns:
        return f"unknown item {item_id!r} (not among the benchmark's items)", "issue_id"
    try:
        score = float(raw_score)
    except ValueError:
        return f"not a number: {raw_score!r}", "score"
    if not math.isfinite(score) or not 0.0 <= score <= 1.0:
        return f"{raw_score} is outside [0, 1]", "score"
    raise AssertionError(f"results row {row!r} has no problem")


def _refuse_duplicates(
    path: Path, cell: np.ndarray, lines: np.ndarray, systems: list[str], item_ids: list[str]
) -> None:
    """Raise on the first row (in file order) that repeats an earlier (system, issue_id) pair."""
    order = np.argsort(cell, kind="stable")
    repeated = np.nonzero(cell[order][1:] == cell[order][:-1])[0]
    if repeated.size == 0:
        return
    later = order[repeated + 1]
    first_repeat = later[np.argmin(lines[later])]
    same = np.nonzero(cell == cell[first_repeat])[0]
    first_seen = int(lines[same].min())
    system, column = divmod(int(cell[first_repeat]), len(item_ids))
    raise InputError.at(
        f"{path}:{int(lines[first_repeat])}",
        f"duplicate score for system {systems[system]!r} and item {item_ids[column]!r} (first on line {first_seen})",
    )


def contract_item(contract: Contract) -> Item:
    """A contract as a benchmark item: id, difficulty, title, prompt as body, reference as
    solution, and the contract's version and content hash (a benchmark of contracts from a folder
    and one made from runs describe a contract alike)."""
    return Item(
        id=contract.id,
        difficulty=contract.difficulty,
        title=contract.title,
        body=contract.prompt,
        solution=contract.reference,
        extra={
            "contract_version": contract.version,
            "contract_hash": contract.content_hash()[:16],
        },
    )


def items_from_contracts(directory: Path | str) -> tuple[Item, ...]:
    """The contracts of a folder as benchmark items (`contract_item`), sorted by id."""
    from skyt_tui.engine.contracts.contract import load_contract

    directory = Path(directory)
    if not directory.is_dir():
        raise InputError.at(directory, "not a directory of contracts")
    items: dict[str, Item] = {}
    origin: dict[str, Path] = {}
    for path in sorted(directory.glob("*.toml")):
        contract = load_contract(path)
        if contract.id in items:
            raise InputError.at(
                path,
                f"duplicate contract id {contract.id!r} (also in {origin[contract.id].name})",
                key="id",
            )
        items[contract.id] = contract_item(contract)
        origin[contract.id] = path
    if not items:
        raise InputError.at(directory, "no contract files (*.toml) found")
    return tuple(items[item_id] for item_id in sorted(items))


def load_inputs(
    issues: Path | str | None = None,
    results: Path | str | None = None,
    systems: Path | str | None = None,
    contracts_dir: Path | str | None = None,
) -> BenchmarkData:
    """Read and cross-check all input files; nothing is written here."""
    if (issues is None) == (contracts_dir is None):
        raise option_error(
            "give either an ISSUES.jsonl file or a contracts directory, not both or neither"
        )
    items = read_items_jsonl(issues) if issues is not None else items_from_contracts(contracts_dir)  # type: ignore[arg-type]
    system_infos = read_systems_jsonl(systems) if systems is not None else ()
    matrix = None
    if results is not None:
        matrix = read_results_csv(
            results, (item.id for item in items), system_infos if systems is not None else None
        )
    return BenchmarkData(items=items, scores=matrix, systems=system_infos)
