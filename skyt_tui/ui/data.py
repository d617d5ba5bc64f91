"""Everything the screens ask of the engine, in one module of small adapters.

Connected in this build: the contract catalog (`list_contracts`) and whether the
store holds any runs (`store_has_runs`, from the directory layout of SPEC §10).
NOT connected yet, because their engine parts are being built on other branches:
stored runs and their analyses (`list_runs`, `stored_run_analyses`), canon state
(`canon_state`), benchmarks (`list_benchmarks`), post-repair texts
(`post_repair_texts`) and the run engine (`execute_run`). Each returns an empty
result (or raises `RunEngineUnavailable`) until it is connected here; the screens
already handle both the empty and the filled case, so connecting one means
filling in its function in this file and nothing else.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from skyt_tui import locations
from skyt_tui.engine.analysis import RunAnalysis
from skyt_tui.engine.catalog import CatalogEntry, scan_contracts
from skyt_tui.engine.contract import Contract
from skyt_tui.engine.errors import SkytError
from skyt_tui.ui.run_request import RunRequest

RUN_ENGINE_MODULE = "skyt_tui.engine.runner"


def list_contracts() -> list[CatalogEntry]:
    """Bundled and user contracts, invalid files included with their one-line error."""
    return scan_contracts()


def canon_state(contract: Contract) -> str | None:
    """'ok', 'stale', 'tampered' or 'none' for the contract's canon; None = canon engine not connected (shown as –)."""
    return None


def store_has_runs() -> bool:
    """True when any `runs/<run-id>/run.json` exists, whether or not this build can read it yet."""
    runs = locations.runs_dir()
    if not runs.is_dir():
        return False
    return any((child / "run.json").is_file() for child in runs.iterdir() if child.is_dir())


def list_runs() -> list[Any]:
    """Stored runs with their metrics, newest first. Not connected yet: always empty."""
    return []


def stored_run_analyses() -> list[RunAnalysis]:
    """Analyses of stored runs for the heatmap. Not connected yet: always empty."""
    return []


def post_repair_texts(analysis: RunAnalysis, level: str) -> list[str] | None:
    """Each sample's normalized text after repair; None until the repair engine is connected."""
    return None


def list_benchmarks() -> list[Any]:
    """Stored benchmarks. Not connected yet: always empty."""
    return []


@dataclass(frozen=True)
class SampleProgress:
    """One sample of a run finished (or failed); `message` may hold provider text, so show it unmarked."""

    index: int
    total: int
    failed: bool = False
    passed: bool | None = None
    message: str = ""


@dataclass(frozen=True)
class RunOutcome:
    run_ids: tuple[str, ...]
    n_done: int
    n_failed: int
    cancelled: bool = False


class RunEngineUnavailable(SkytError):
    """The run engine is not part of this build (or not yet connected to the app)."""


RunExecutor = Callable[[RunRequest, Callable[[SampleProgress], None], Callable[[], bool]], RunOutcome]
"""(request, report each sample, is cancelled?) → outcome; runs in a worker thread."""


def run_engine_available() -> bool:
    return importlib.util.find_spec(RUN_ENGINE_MODULE) is not None


def execute_run(request: RunRequest, report: Callable[[SampleProgress], None],
                cancelled: Callable[[], bool]) -> RunOutcome:
    """Generate, check and store a run, reporting each sample. Not connected yet."""
    if not run_engine_available():
        raise RunEngineUnavailable("run engine not available in this build")
    raise RunEngineUnavailable(
        f"{RUN_ENGINE_MODULE} exists but is not connected to the app yet (skyt_tui/ui/data.py: execute_run)"
    )
