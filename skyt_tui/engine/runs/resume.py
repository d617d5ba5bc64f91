"""The runs an `analyze --resume` has finished, kept in the store until it finishes (docs/scaling.md).

`analyze` stores nothing of its own. With `--resume` it keeps each run's output as the run
finishes, in `resume/<key>.json`, and takes every run it finds kept there instead of analysing
it again: an analysis stopped midway (Ctrl-C, a lost driver, a lost cluster), run again with
`--resume`, judges only what it had not finished, and prints what an uninterrupted run prints.
When the command has written its whole output, it removes what it kept.

The key digests everything a run's output depends on: the run as read (its samples, model,
temperature, source, what the source recorded, its contract's content and where it came from),
the options that shape the output, every pipeline version and skyt-tui's, and the oracle's
isolation and layers. Change any of them and the run is analysed again. A kept file that is
damaged or does not hold is said in one line and not used: the run is analysed again, and its
file replaced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.errors import StoreError
from skyt_tui.engine.runs.analyses import analysis_versions
from skyt_tui.engine.sources.run_input import RunInput

KIND = "analyze-run"
KEY_FORMAT = 2
"""Changes when what the key covers or what a kept file holds changes: every kept run is then
analysed again. 2: `limited` lines (issue 36) and the source part's `derived` and `tool_run`."""


def _plain(value: Any) -> Any:
    """JSON for what `json.dumps` cannot write itself (the key's canonical form)."""
    if isinstance(value, Contract):
        return {"$contract": value.content_hash(), "source": value.source}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            "$" + type(value).__name__: {
                field.name: getattr(value, field.name) for field in dataclasses.fields(value)
            }
        }
    if isinstance(value, set | frozenset):
        return sorted(json.dumps(item, sort_keys=True, default=_plain) for item in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, bytes):
        return {"$bytes": value.hex()}
    return {"$" + type(value).__name__: repr(value)}


def run_key(run: RunInput, settings: dict[str, Any], oracle: dict[str, Any]) -> str | None:
    """The key of `run`'s output under `settings` (the options that shape it) and the oracle's
    record; None when the run holds something without a stable form (it is then not kept)."""
    document = {
        "format": KEY_FORMAT,
        "versions": analysis_versions(settings["level"], settings["distance"]),
        "settings": settings,
        "oracle": oracle,
        "run": run,
    }
    try:
        text = json.dumps(document, sort_keys=True, default=_plain, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def path_of(key: str) -> Path:
    return locations.resume_dir() / f"{key}.json"


def check_writable() -> None:
    """Stop before any work, in one line, when the store cannot keep runs (read-only, full)."""
    folder = locations.resume_dir()
    store.make_dirs(folder)
    probe = folder / f".writable-{os.getpid()}"
    store.atomic_write_text(probe, "")
    with contextlib.suppress(OSError):
        probe.unlink()


def kept(key: str) -> dict[str, Any] | None:
    """The output kept under `key`, None when there is none; StoreError naming the file when it
    is damaged or not for this key."""
    path = path_of(key)
    try:
        document = store.read_json(path, kind=KIND)
    except FileNotFoundError:
        return None
    output = document.get("output")
    if document.get("key") != key or not isinstance(output, dict):
        raise StoreError(f"{path}: kept for another analysis")
    return output


def keep(key: str, output: dict[str, Any]) -> None:
    """Keep a finished run's output (atomically: a run is kept whole or not at all)."""
    store.write_json(path_of(key), {"key": key, "output": output}, kind=KIND)


def forget(keys: Iterable[str]) -> None:
    """Remove what was kept under `keys` (the command that kept them has finished)."""
    for key in keys:
        with contextlib.suppress(FileNotFoundError, OSError):
            path_of(key).unlink()
