"""Stored runs for the Runs section and the run's views: listing, reading, their analyses read
into typed records (computed in a child process when not cached), texts for the heatmap,
labels, export and deletion."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui.engine import store
from skyt_tui.engine.demo import DEMO_LABEL
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.runs import run_store
from skyt_tui.engine.runs.report import report_json, sample_rows, samples_csv
from skyt_tui.engine.versions import DEFAULT_TAU

if TYPE_CHECKING:  # the records and matrices load numpy: a quick first screen
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis
    from skyt_tui.engine.runs.matrices import RunTexts

LEVEL = "nodoc"
"""The level the app analyses runs at (the CLI's default too)."""


def list_runs() -> list[run_store.RunSummary]:
    """Every stored run, newest first; damaged ones included with their error."""
    return newest_first(run_store.list_runs())


def newest_first(summaries: Sequence[run_store.RunSummary]) -> list[run_store.RunSummary]:
    """The order the Runs list shows: newest first (damaged runs, without a date, last)."""
    return sorted(summaries, key=lambda s: (s.meta.created if s.meta else "", s.id), reverse=True)


def listed_run_ids() -> list[str]:
    """Every run folder's name, stored runs and damaged ones alike, newest first by id (ids begin
    with their creation time): the order in which the Runs list reads them."""
    ids = set(run_store.run_ids()) | {path.name for path in run_store.broken_run_dirs()}
    return sorted(ids, reverse=True)


def run_summaries(run_ids: Sequence[str]) -> list[run_store.RunSummary]:
    """The summaries of these runs (each read from its files; damaged ones with their error)."""
    return [run_store.run_summary(run_id) for run_id in run_ids]


def load_run(run_id: str) -> run_store.StoredRun:
    return run_store.load_run(run_id)


def analysis_documents(
    run_ids: Sequence[str],
    *,
    on_result: Callable[[str, dict[str, Any]], None] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[dict[str, Any]]:
    """The stored analysis documents of stored runs, in `run_ids` order: cached ones at once, the rest
    in one sandboxed batch computed by a child process (so the event loop never waits for the
    analysis); call from a worker."""
    from skyt_tui.engine.runs.analysis_child import analyze_stored_runs_in_child
    from skyt_tui.engine.settings import load_settings

    where = load_settings().run  # settings.toml's executor: this machine or a Ray cluster
    results = analyze_stored_runs_in_child(
        run_ids,
        level=LEVEL,
        tau=DEFAULT_TAU,
        on_result=on_result,
        progress=progress,
        cancelled=cancelled,
        executor=where.executor,
        ray_address=where.ray_address,
    )
    return [results[run_id] for run_id in run_ids if run_id in results]


def analyze_runs(
    run_ids: Sequence[str],
    *,
    on_result: Callable[[str, StoredAnalysis], None] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> list[StoredAnalysis]:
    """`analysis_documents` read once into typed records (`StoredAnalysis`), each reported to
    `on_result` as it comes."""
    from skyt_tui.engine.runs.analysis_child import analyze_stored_runs_in_child
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

    records: dict[str, StoredAnalysis] = {}

    def arrived(run_id: str, document: dict[str, Any]) -> None:
        records[run_id] = StoredAnalysis.from_document(document)
        if on_result is not None:
            on_result(run_id, records[run_id])

    from skyt_tui.engine.settings import load_settings

    where = load_settings().run  # settings.toml's executor: this machine or a Ray cluster
    documents = analyze_stored_runs_in_child(
        run_ids,
        level=LEVEL,
        tau=DEFAULT_TAU,
        on_result=arrived,
        progress=progress,
        cancelled=cancelled,
        executor=where.executor,
        ray_address=where.ray_address,
    )
    return [
        records[run_id] if run_id in records else StoredAnalysis.from_document(documents[run_id])
        for run_id in run_ids
        if run_id in documents
    ]


def partial_analysis(
    run_id: str, cancelled: Callable[[], bool] | None = None
) -> StoredAnalysis | None:
    """The analysis of a run's samples so far (while it generates: a sandboxed analysis in a child
    process, cached by the samples it saw): its metrics and each sample's verdict; None when it
    has no code yet."""
    run = run_store.load_run(run_id)
    if not run.n_ok:
        return None
    [analysis] = analyze_runs([run_id], cancelled=cancelled)
    return analysis


def analyze_run(
    run: run_store.StoredRun, *, cancelled: Callable[[], bool] | None = None
) -> StoredAnalysis:
    [analysis] = analyze_runs([run.id], cancelled=cancelled)
    return analysis


def run_texts(run: run_store.StoredRun, analysis: StoredAnalysis) -> RunTexts:
    from skyt_tui.engine.runs.matrices import stored_run_texts

    return stored_run_texts(run, analysis)


def tool_verdicts_line(run: run_store.StoredRun, analysis: StoredAnalysis) -> str | None:
    """For a run imported from another tool's file that judged its samples: that tool's pass
    rate beside skyt-tui's and the disagreements (as `report` prints it); else None."""
    from skyt_tui.engine.runs.run_import import stored_tool_verdicts, tool_verdicts_line

    verdicts = stored_tool_verdicts(run, analysis)
    return tool_verdicts_line(verdicts) if verdicts else None


def is_demo(meta: run_store.RunMeta | None) -> bool:
    return meta is not None and (meta.origin.get("kind") == "demo" or meta.label == DEMO_LABEL)


def is_demo_run(run_id: str | None) -> bool:
    """True when `run_id` is a stored demo run (a store filled by an older `skyt-tui demo` has them)."""
    if not run_id:
        return False
    try:
        return is_demo(run_store.load_meta(run_id))
    except SkytError:
        return False


def run_label(meta: run_store.RunMeta | None) -> str:
    """The label a run must carry wherever it is shown (the demo's "hand-written examples (not model output)")."""
    if meta is None:
        return ""
    if is_demo(meta):
        return DEMO_LABEL
    return meta.label


def isolation(analysis: StoredAnalysis | None) -> str | None:
    """'bubblewrap' or 'reduced' when the oracle ran for this analysis, else None."""
    return analysis.oracle.isolation if analysis is not None else None


def export_run(run: run_store.StoredRun, analysis: StoredAnalysis, path: str, kind: str) -> int:
    """Write the run's samples as CSV (`kind` "csv"), or its report as JSON ("json", "json+code"); returns rows."""
    target = Path(path).expanduser()
    if kind == "csv":
        text = samples_csv(sample_rows(run, analysis))
    elif kind in ("json", "json+code"):
        text = report_json(run, analysis, with_text=kind == "json+code")
    else:
        raise ValueError(f"unknown export kind {kind!r}")
    if not target.parent.is_dir():
        raise SkytError(f"{target.parent}: no such directory")
    store.atomic_write_text(target, text)
    return len(run.samples)


def resumable(summary: run_store.RunSummary) -> bool:
    """A stored run with samples missing or failed, not being written right now."""
    return (
        summary.meta is not None
        and summary.state != run_store.RUNNING
        and (summary.n_ok + summary.n_failed < summary.meta.n or summary.n_failed > 0)
    )


def delete_run(run_id: str) -> None:
    """Remove a stored run's folder (refused while a process adds samples to it). Canons keep their own copy
    of the code and their provenance, so a canon fixed from this run stays valid and says where it came from."""
    run_store.remove_run(run_id)
