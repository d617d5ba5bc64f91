"""A benchmark's files under `benchmarks/<name>/`: imported versions, sample and rotation logs.

    versions/<n>/version.json   manifest: content hash, counts, sources, import time
    versions/<n>/items.jsonl    one item a line, sorted by id
    versions/<n>/results.json   systems × items score matrix (null = no score), if imported
    versions/<n>/systems.jsonl  one system a line, if imported
    samples.jsonl               every anchor sample drawn (append-only; the last is current)
    rotations.jsonl             every rotation (append-only; replayed to get the state)

A version directory is written under a temporary name and renamed into place, so
a version is either complete or absent. Nothing here is ever deleted.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.benchmark.items import BenchmarkData, Item, ScoreMatrix, SystemInfo
from skyt_tui.engine.benchmark.items import option_error as _error
from skyt_tui.engine.errors import NotFoundError, StoreError

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
"""A benchmark name, matched whole (`fullmatch`)."""


@dataclass(frozen=True)
class VersionInfo:
    """The manifest of one imported version of a benchmark."""

    version: int
    content_hash: str
    n_items: int
    strata: dict[str, int]
    n_systems: int
    n_results: int
    sources: dict[str, str]
    imported_at: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "content_hash": self.content_hash,
            "n_items": self.n_items,
            "strata": self.strata,
            "n_systems": self.n_systems,
            "n_results": self.n_results,
            "sources": self.sources,
            "imported_at": self.imported_at,
        }


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name or ""):
        raise _error(
            f"{name!r} must start with a letter or digit and use only letters, digits, _ . -",
            key="benchmark name",
        )
    return name


def bench_dir(name: str) -> Path:
    return locations.benchmarks_dir() / check_name(name)


def versions_dir(name: str) -> Path:
    return bench_dir(name) / "versions"


def samples_log(name: str) -> Path:
    return bench_dir(name) / "samples.jsonl"


def rotations_log(name: str) -> Path:
    return bench_dir(name) / "rotations.jsonl"


def benchmark_names() -> tuple[str, ...]:
    root = locations.benchmarks_dir()
    if not root.is_dir():
        return ()
    return tuple(
        sorted(
            path.name
            for path in root.iterdir()
            if (path / "versions").is_dir() and NAME_PATTERN.fullmatch(path.name)
        )
    )


def _version_dirs(name: str) -> list[tuple[int, Path]]:
    root = versions_dir(name)
    if not root.is_dir():
        return []
    return sorted(
        (int(path.name), path) for path in root.iterdir() if path.name.isdigit() and path.is_dir()
    )


def list_versions(name: str) -> tuple[VersionInfo, ...]:
    infos = []
    for number, path in _version_dirs(name):
        try:
            manifest = store.read_json(path / "version.json", kind="bench_version")
        except FileNotFoundError:
            raise StoreError(
                f"{path}: corrupt benchmark version: version.json is missing"
            ) from None
        infos.append(_version_info(path / "version.json", manifest, number))
    return tuple(infos)


def _version_info(path: Path, manifest: dict[str, Any], number: int) -> VersionInfo:
    try:
        info = VersionInfo(
            version=int(manifest["version"]),
            content_hash=str(manifest["content_hash"]),
            n_items=int(manifest["n_items"]),
            strata={str(k): int(v) for k, v in manifest["strata"].items()},
            n_systems=int(manifest["n_systems"]),
            n_results=int(manifest["n_results"]),
            sources={str(k): str(v) for k, v in manifest.get("sources", {}).items()},
            imported_at=manifest.get("imported_at"),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StoreError(f"{path}: corrupt benchmark manifest: {exc!r}") from None
    if info.version != number:
        raise StoreError(
            f"{path}: corrupt benchmark manifest: says version {info.version}, lives in folder {number}"
        )
    return info


def require_versions(name: str) -> tuple[VersionInfo, ...]:
    versions = list_versions(name)
    if not versions:
        raise NotFoundError(
            f"benchmark {name!r}: not found (import it with `skyt-tui bench import {name} ISSUES.jsonl`)"
        )
    return versions


def write_version(
    name: str, data: BenchmarkData, sources: dict[str, str], imported_at: str | None
) -> VersionInfo:
    """Write `data` as the next version; the caller holds `store.store_lock()`."""
    root = versions_dir(name)
    store.make_dirs(root)
    existing = [number for number, _ in _version_dirs(name)]
    number = max(existing, default=0) + 1
    info = VersionInfo(
        version=number,
        content_hash=data.content_hash(),
        n_items=len(data.items),
        strata=data.strata(),
        n_systems=len(data.scores.systems) if data.scores is not None else len(data.systems),
        n_results=data.scores.n_results if data.scores is not None else 0,
        sources=sources,
        imported_at=imported_at,
    )
    incoming = root / f".incoming-{number}-{os.getpid()}"
    incoming.mkdir()
    _write_jsonl(incoming / "items.jsonl", (item.to_dict() for item in data.items))
    if data.systems:
        _write_jsonl(incoming / "systems.jsonl", (system.to_dict() for system in data.systems))
    if data.scores is not None:
        _write_scores(incoming / "results.json", data.scores)
    store.write_json(incoming / "version.json", info.to_dict(), kind="bench_version")
    os.rename(incoming, root / str(number))
    store.fsync_dir(root)
    return info


def _write_jsonl(path: Path, records: Any) -> None:
    lines = [
        json.dumps(
            {"schema_version": store.SCHEMA_VERSION, **record}, sort_keys=True, ensure_ascii=False
        )
        for record in records
    ]
    store.atomic_write_text(path, "\n".join(lines) + "\n")


def _write_scores(path: Path, matrix: ScoreMatrix) -> None:
    rows = []
    for row, missing in zip(matrix.scores.tolist(), np.isnan(matrix.scores).any(axis=1)):
        rows.append([None if value != value else value for value in row] if missing else row)
    document = {
        "schema_version": store.SCHEMA_VERSION,
        "kind": "bench_results",
        "systems": list(matrix.systems),
        "item_ids": list(matrix.item_ids),
        "scores": rows,
    }
    store.atomic_write_text(
        path, json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    )


def read_version(name: str, number: int, with_scores: bool = True) -> BenchmarkData:
    """One stored version; `with_scores=False` skips the score matrix (the slow part on big benchmarks)."""
    path = versions_dir(name) / str(number)
    if not (path / "version.json").is_file():
        raise NotFoundError(f"benchmark {name!r}: no version {number}")
    items = tuple(Item.from_dict(_strip(record)) for record in _read_records(path / "items.jsonl"))
    systems: tuple[SystemInfo, ...] = ()
    if (path / "systems.jsonl").is_file():
        systems = tuple(
            SystemInfo.from_dict(_strip(record)) for record in _read_records(path / "systems.jsonl")
        )
    scores = (
        _read_scores(path / "results.json", items)
        if with_scores and (path / "results.json").is_file()
        else None
    )
    return BenchmarkData(items=items, scores=scores, systems=systems)


def _strip(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key != "schema_version"}


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        records = store.read_jsonl(path, allow_torn_tail=False)
    except FileNotFoundError:
        raise StoreError(f"{path}: corrupt benchmark version: file is missing") from None
    for number, record in enumerate(records, start=1):
        if "id" not in record and "system" not in record:
            raise StoreError(f"{path}: corrupt record {number}: no id")
    return records


def _read_scores(path: Path, items: tuple[Item, ...]) -> ScoreMatrix:
    document = store.read_json(path, kind="bench_results")
    try:
        systems = tuple(str(name) for name in document["systems"])
        item_ids = tuple(str(item_id) for item_id in document["item_ids"])
        scores = np.array(document["scores"], dtype=np.float64).reshape(len(systems), len(item_ids))
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"{path}: corrupt score matrix: {exc}") from None
    if item_ids != tuple(item.id for item in items):
        raise StoreError(f"{path}: corrupt score matrix: its item ids do not match items.jsonl")
    return ScoreMatrix(systems=systems, item_ids=item_ids, scores=scores)


def read_log(path: Path, kind: str, torn: list[str] | None = None) -> list[dict[str, Any]]:
    """Records of an append-only log, oldest first; [] when the log does not exist yet. A torn
    line (a write that did not finish) is skipped and, with `torn`, named there."""
    try:
        records = store.read_jsonl(path, damaged=torn)
    except FileNotFoundError:
        return []
    for number, record in enumerate(records, start=1):
        if record.get("kind") != kind:
            raise StoreError(
                f"{path}: corrupt record {number}: kind is {record.get('kind')!r}, expected {kind!r}"
            )
    return records


def append_log(path: Path, kind: str, record: dict[str, Any]) -> None:
    store.append_jsonl(path, {"kind": kind, **record})
