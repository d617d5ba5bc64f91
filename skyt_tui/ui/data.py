"""Everything the screens ask of the engine, in one module of small adapters.

Screens never import engine modules that touch the store directly; they call
these functions (most of them from worker threads) and render what comes back.
Nothing here formats for the screen except the few one-line labels shared by
several sections.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skyt_tui import locations
from skyt_tui.engine import store
from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.contracts.catalog import CatalogEntry, get_contract, scan_contracts
from skyt_tui.engine.contracts.contract import Contract
from skyt_tui.engine.demo import DEMO_LABEL, DemoResult, create_demo
from skyt_tui.engine.demo import demo_store_has_runs as demo_has_runs
from skyt_tui.engine.errors import SkytError, StoreError
from skyt_tui.engine.generation import run_options
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs import run_store as runs
from skyt_tui.engine.runs.report import metrics_line, report_json, sample_rows, samples_csv
from skyt_tui.engine.versions import DEFAULT_TAU, ORACLE_VERSION
from skyt_tui.ui.run_request import FORM_FIELDS, RunRequest, form_values

if TYPE_CHECKING:  # the benchmark, matrix and provider modules load when first used (numpy, SDKs): a quick first screen
    from skyt_tui.engine import benchmark
    from skyt_tui.engine.generation.runner import RetryEvent
    from skyt_tui.engine.generation.workflow import Generated
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis
    from skyt_tui.engine.runs.matrices import RunTexts

Clock = Callable[[], dt.datetime]
LEVEL = "nodoc"
"""The level the app analyses runs at (the CLI's default too)."""
CANON_NONE = "none"


def wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def list_contracts() -> list[CatalogEntry]:
    """Bundled and user contracts, invalid files included with their one-line error."""
    return scan_contracts()


def load_canon(contract_id: str, contract: Contract | None = None) -> canon_store.CanonState:
    """The stored canon with its integrity judged against the contract (when known) and the current versions."""
    return canon_store.load_canon(contract_id, contract=contract, oracle_version=ORACLE_VERSION)


def canon_state(contract: Contract) -> str:
    """'ok', 'stale', 'tampered', 'corrupt' or 'none' for the contract's canon."""
    return canon_status(load_canon(contract.id, contract))


def canon_status(state: canon_store.CanonState) -> str:
    return CANON_NONE if state.status == canon_store.STATUS_MISSING else state.status


def canon_history(contract_id: str) -> list[dict[str, Any]]:
    return canon_store.canon_history(contract_id)


def canon_states() -> dict[str, canon_store.CanonState]:
    """The canon state of every contract in the catalog and of every stored canon (one catalog scan)."""
    contracts = {
        entry.contract.id: entry.contract
        for entry in scan_contracts()
        if entry.contract is not None
    }
    ids = sorted(set(contracts) | set(canon_store.list_canons()))
    return {contract_id: load_canon(contract_id, contracts.get(contract_id)) for contract_id in ids}


def find_contract(contract_id: str) -> Contract | None:
    try:
        return get_contract(contract_id)
    except SkytError:
        return None


def reestablish_canon(contract_id: str, run_id: str) -> canon_store.Canon:
    """Replace the canon with the first passing sample of the run (runs the oracle: call from a worker)."""
    from skyt_tui.engine.runs.canon_actions import reestablish_from_run

    return reestablish_from_run(contract_id, run_id)


def store_has_runs() -> bool:
    """True when any `runs/<run-id>/run.json` exists, whether or not it can be read."""
    return bool(runs.run_ids())


def store_is_empty() -> bool:
    """No runs and no benchmarks: the app opens on the welcome page."""
    if store_has_runs():
        return False
    directory = locations.benchmarks_dir()
    if not directory.is_dir() or not any(directory.iterdir()):
        return True
    from skyt_tui.engine import benchmark

    return not benchmark.list_benchmarks()


def store_signature() -> tuple[tuple[str, int, int], ...]:
    """A cheap fingerprint of the stored runs and canons (names, sizes, mtimes): changed means reload."""
    entries = []
    for directory, patterns in (
        (locations.runs_dir(), ("*/run.json", "*/samples.jsonl")),
        (locations.canon_dir(), ("*",)),
    ):
        if not directory.is_dir():
            continue
        for pattern in patterns:
            for path in directory.glob(pattern):
                try:
                    stat = path.stat()
                except OSError:
                    continue
                entries.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(entries))


@dataclass(frozen=True)
class StoreSnapshot:
    """What the app watches to stay true while the store changes (its own runs, the CLI, another app):
    each run's files and the canons, as names, sizes and mtimes (a few stat calls per run)."""

    runs: dict[str, tuple[tuple[int, int], ...]]
    canons: tuple[tuple[str, int, int], ...]

    def changed_runs(self, before: StoreSnapshot | None) -> set[str]:
        """Runs added, removed or written since `before` (every run when the canons changed)."""
        if before is None or before.canons != self.canons:
            return set(self.runs) | set(before.runs if before else ())
        return {
            run_id
            for run_id in set(self.runs) | set(before.runs)
            if self.runs.get(run_id) != before.runs.get(run_id)
        }


RUN_WATCHED_FILES = ("run.json", "samples.jsonl")


def _run_files(run_id: str) -> tuple[tuple[int, int], ...]:
    stats = []
    for name in RUN_WATCHED_FILES:
        try:
            stat = (locations.run_dir(run_id) / name).stat()
        except OSError:
            stats.append((-1, 0))
        else:
            stats.append((stat.st_size, stat.st_mtime_ns))
    return tuple(stats)


def _canon_files() -> tuple[tuple[str, int, int], ...]:
    canons = []
    directory = locations.canon_dir()
    if directory.is_dir():
        for path in directory.iterdir():
            try:
                stat = path.stat()
            except OSError:
                continue
            canons.append((path.name, stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(canons))


def store_snapshot() -> StoreSnapshot:
    return StoreSnapshot({run_id: _run_files(run_id) for run_id in runs.run_ids()}, _canon_files())


def run_snapshot(run_id: str) -> tuple[object, ...]:
    """What an open run's view depends on: its files and the canons."""
    return (_run_files(run_id), _canon_files())


def list_runs() -> list[runs.RunSummary]:
    """Every stored run, newest first; damaged ones included with their error."""
    return newest_first(runs.list_runs())


def newest_first(summaries: Sequence[runs.RunSummary]) -> list[runs.RunSummary]:
    """The order the Runs list shows: newest first (damaged runs, without a date, last)."""
    return sorted(summaries, key=lambda s: (s.meta.created if s.meta else "", s.id), reverse=True)


def listed_run_ids() -> list[str]:
    """Every run folder's name, stored runs and damaged ones alike, newest first by id (ids begin
    with their creation time): the order in which the Runs list reads them."""
    ids = set(runs.run_ids()) | {path.name for path in runs.broken_run_dirs()}
    return sorted(ids, reverse=True)


def run_summaries(run_ids: Sequence[str]) -> list[runs.RunSummary]:
    """The summaries of these runs (each read from its files; damaged ones with their error)."""
    return [runs.run_summary(run_id) for run_id in run_ids]


def load_run(run_id: str) -> runs.StoredRun:
    return runs.load_run(run_id)


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
    run = runs.load_run(run_id)
    if not run.n_ok:
        return None
    [analysis] = analyze_runs([run_id], cancelled=cancelled)
    return analysis


def analyze_run(
    run: runs.StoredRun, *, cancelled: Callable[[], bool] | None = None
) -> StoredAnalysis:
    [analysis] = analyze_runs([run.id], cancelled=cancelled)
    return analysis


def run_texts(run: runs.StoredRun, analysis: StoredAnalysis) -> RunTexts:
    from skyt_tui.engine.runs.matrices import stored_run_texts

    return stored_run_texts(run, analysis.document)


def tool_verdicts_line(run: runs.StoredRun, analysis: StoredAnalysis) -> str | None:
    """For a run imported from another tool's file that judged its samples: that tool's pass
    rate beside skyt-tui's and the disagreements (as `report` prints it); else None."""
    from skyt_tui.engine.runs.run_import import stored_tool_verdicts, tool_verdicts_line

    verdicts = stored_tool_verdicts(run, analysis.document)
    return tool_verdicts_line(verdicts) if verdicts else None


def is_demo(meta: runs.RunMeta | None) -> bool:
    return meta is not None and (meta.origin.get("kind") == "demo" or meta.label == DEMO_LABEL)


def is_demo_run(run_id: str | None) -> bool:
    """True when `run_id` is a stored demo run (a store filled by an older `skyt-tui demo` has them)."""
    if not run_id:
        return False
    try:
        return is_demo(runs.load_meta(run_id))
    except SkytError:
        return False


def run_label(meta: runs.RunMeta | None) -> str:
    """The label a run must carry wherever it is shown (the demo's "hand-written examples (not model output)")."""
    if meta is None:
        return ""
    if is_demo(meta):
        return DEMO_LABEL
    return meta.label


def isolation(analysis: StoredAnalysis | None) -> str | None:
    """'bubblewrap' or 'reduced' when the oracle ran for this analysis, else None."""
    return analysis.oracle.isolation if analysis is not None else None


def export_run(run: runs.StoredRun, analysis: StoredAnalysis, path: str, kind: str) -> int:
    """Write the run's samples as CSV (`kind` "csv"), or its report as JSON ("json", "json+code"); returns rows."""
    target = Path(path).expanduser()
    if kind == "csv":
        text = samples_csv(sample_rows(run, analysis.document))
    elif kind in ("json", "json+code"):
        text = report_json(run, analysis.document, with_text=kind == "json+code")
    else:
        raise ValueError(f"unknown export kind {kind!r}")
    if not target.parent.is_dir():
        raise SkytError(f"{target.parent}: no such directory")
    store.atomic_write_text(target, text)
    return len(run.samples)


def list_benchmarks() -> tuple[benchmark.BenchmarkSummary, ...]:
    from skyt_tui.engine import benchmark

    return benchmark.list_benchmarks()


@dataclass(frozen=True)
class BenchmarkView:
    """What the Benchmark section shows of one benchmark at one moment."""

    bench: benchmark.Benchmark
    sample: benchmark.AnchorSample | None
    status: benchmark.RotationStatus
    fingerprints: tuple[benchmark.Fingerprint, ...]
    has_scores: bool


def benchmark_view(name: str, now: dt.datetime) -> BenchmarkView:
    from skyt_tui.engine import benchmark

    bench = benchmark.load_benchmark(name, with_scores=False)
    return BenchmarkView(
        bench=bench,
        sample=benchmark.current_sample(name),
        status=benchmark.rotation_status(name, now),
        fingerprints=benchmark.benchmark_fingerprints(name),
        has_scores=bench.versions[-1].n_results > 0,
    )


CURVE_SIZES = (4, 10, 25, 50, 100)
CURVE_DRAWS = 100


def validate_benchmark(
    name: str, sample: benchmark.AnchorSample | None
) -> benchmark.ValidationReport:
    """Validate the current anchor sample's configuration and seed, every method beside it on the
    same splits, as `bench validate --method all` with the sample's options (seconds: call from a
    worker)."""
    from skyt_tui.engine import benchmark

    config = sample.config if sample is not None else benchmark.SampleConfig()
    if sample is not None and config.mode == "auto":  # validate the method auto chose
        config = dataclasses.replace(config, mode=sample.chosen_by)
    seed = sample.seed if sample is not None else benchmark.ValidationConfig().seed
    return benchmark.validate_benchmark(
        name, config, benchmark.ValidationConfig(seed=seed), methods=benchmark.METHODS
    )


def method_curves(
    name: str, n_items: int, seed: int
) -> tuple[tuple[int, ...], tuple[benchmark.MethodResult, ...]]:
    """Every method at k = 4, 10, 25, 50, 100 (those below the item count), 100 draws."""
    from skyt_tui.engine import benchmark

    sizes = tuple(k for k in CURVE_SIZES if k < n_items) or (n_items,)
    config = benchmark.ValidationConfig(seed=seed, draws=CURVE_DRAWS)
    return sizes, benchmark.compare_benchmark_methods(name, sizes, benchmark.METHODS, config)


def benchmark_estimates(name: str) -> tuple[benchmark.SystemEstimate, ...]:
    """Every system of the current version: measured (scored on every item) or estimated."""
    from skyt_tui.engine import benchmark

    return benchmark.stored_estimates(name)


def preview_rotation(name: str, now: dt.datetime) -> benchmark.RotationPlan:
    from skyt_tui.engine import benchmark

    return benchmark.preview_rotation(name, now, force=True)


def apply_rotation(name: str, now: dt.datetime) -> benchmark.RotationPlan:
    from skyt_tui.engine import benchmark

    return benchmark.apply_rotation(name, now, force=True)


def load_demo(now: dt.datetime) -> DemoResult:
    """`skyt-tui demo` from inside the app, into the demo's own store (a few seconds: oracle and repair
    run; call from a worker)."""
    return create_demo(now=now)


def is_demo_store() -> bool:
    """The app is showing the demo's own store (`SKYT_STORE=demo`), not the user's."""
    return locations.is_demo_store()


def set_demo_store(demo: bool) -> None:
    """Open the demo's store or the user's own, for this process and the analysis processes it starts."""
    if demo:
        os.environ[locations.STORE_ENV] = locations.DEMO_STORE
    else:
        os.environ.pop(locations.STORE_ENV, None)


def demo_store_has_runs() -> bool:
    return demo_has_runs()


def demo_dir() -> str:
    return str(locations.demo_dir())


def data_dir() -> str:
    return str(locations.data_dir())


@dataclass(frozen=True)
class SampleProgress:
    """One sample of a run finished (or failed, or is being retried); `message` may hold provider text: show it unmarked."""

    index: int
    total: int
    failed: bool = False
    passed: bool | None = None
    message: str = ""
    retry: bool = False
    run_id: str = ""
    """The stored run the sample belongs to (empty when the executor does not say)."""
    usage: dict[str, int] | None = None
    """The provider's token counts for this sample, when it reports them."""
    sample: int | None = None
    """The sample's index within its run (`index` is its place in the whole request)."""


@dataclass(frozen=True)
class RunOutcome:
    run_ids: tuple[str, ...]
    n_done: int
    n_failed: int
    cancelled: bool = False
    stopped: str | None = None
    """Why the run stopped early (a bad key, an unknown model), when it did."""
    metrics: tuple[str, ...] = ()
    """One headline line per analysed run."""

    def summary(self) -> str:
        """`finished: 20 samples, 1 failed` (cancelled, or stopped with the reason)."""
        verb = "cancelled" if self.cancelled else "stopped" if self.stopped else "finished"
        return f"{verb}: {counted(self.n_done, 'sample')}, {self.n_failed} failed" + (
            f" — {self.stopped}" if self.stopped else ""
        )


RunExecutor = Callable[[RunRequest, Callable[[SampleProgress], None], threading.Event], RunOutcome]
"""(request, report each sample, cancel event) → outcome; runs in a worker thread."""


def provider_settings(request: RunRequest) -> dict[str, Any]:
    """The settings `make_provider` takes, from the dialog's "where" field (as `skyt-tui run`'s)."""
    return run_options.provider_settings(
        request.provider, request.target.strip(), model=request.model, timeout_s=request.timeout_s
    )


def run_form_defaults() -> tuple[dict[str, str], str | None]:
    """The run dialog's first values: what it last started (its own memory, `run-dialog.toml`),
    over settings.toml's `[run]` defaults (provider, model, base_url, n, temperature); and the
    one-line error of a file that cannot be read (the other's values are still used)."""
    from skyt_tui.engine.settings import load_settings

    values: dict[str, str] = {}
    errors: list[str] = []
    try:
        run = load_settings().run
    except SkytError as exc:
        errors.append(str(exc))
    else:
        values = {"n": str(run.n), "temperatures": f"{run.temperature:g}"}
        if run.provider:
            values["provider"] = run.provider
        if run.model:
            values["model"] = run.model
        provider = run.provider or "openai"
        if (
            run.base_url
            and provider in run_options.HTTP_PROVIDERS
            and run_options.environment_base_url(provider) is None  # the environment comes first
        ):
            values["target"] = run.base_url
    try:
        values |= remembered_run_form()
    except SkytError as exc:
        errors.append(str(exc))
    return values, "; ".join(errors) or None


MAX_REMEMBERED_FIELD = 4096
"""The longest field value the run dialog's memory gives back (a system prompt fits)."""


def remembered_run_form() -> dict[str, str]:
    """What the run dialog last started, as its field texts (empty when it never started one).

    The file is outside input: only known fields holding text of a bounded length are taken;
    a damaged file is a StoreError naming it."""
    path = locations.run_dialog_file()
    try:
        document = store.read_toml(path)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from None
    form = document.get("form", {})
    if not isinstance(form, dict):
        raise StoreError(f"{path}: form: must be a table")
    values: dict[str, str] = {}
    for field in FORM_FIELDS:
        value = form.get(field)
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > MAX_REMEMBERED_FIELD:
            raise StoreError(
                f"{path}: form.{field}: must be text of at most {MAX_REMEMBERED_FIELD} characters"
            )
        values[field] = value
    return values


def remember_run_request(request: RunRequest) -> str | None:
    """Keep the dialog's values for its next start in its own file (`run-dialog.toml`), never in
    settings.toml, whose `[run]` defaults `skyt-tui run` uses; the one-line error when the file
    cannot be written."""
    try:
        store.write_toml(locations.run_dialog_file(), {"form": form_values(request)})
    except (SkytError, OSError) as exc:
        return str(exc)
    return None


def run_form_profiles() -> dict[str, dict[str, str]]:
    """The run dialog's Profile choices: each `[profiles.NAME]` of settings.toml as the form values
    it sets (an unreadable file gives none; `run_form_defaults` reports its error)."""
    from skyt_tui.engine.settings import load_settings

    try:
        profiles = load_settings().profiles
    except SkytError:
        return {}
    out: dict[str, dict[str, str]] = {}
    for name, profile in profiles.items():
        values = {
            "provider": profile.provider,
            "model": profile.model or "",
            "target": profile.base_url or profile.command or "",
        }
        for field, value in (
            ("n", profile.n),
            ("temperatures", profile.temperature),
            ("concurrency", profile.concurrency),
            ("timeout", profile.timeout),
            ("seed", profile.seed),
            ("max_tokens", profile.max_tokens),
        ):
            if value is not None:
                values[field] = f"{value:g}" if isinstance(value, float) else str(value)
        if profile.system is not None:
            values["system"] = profile.system
        out[name] = values
    return out


def profile_table(request: RunRequest) -> dict[str, Any]:
    """A run request as a `[profiles.NAME]` table: provider, model, where, N, temperature,
    concurrency, timeout, seed, max tokens, system prompt (unset values left out)."""
    table: dict[str, Any] = {"provider": request.provider}
    if request.model:
        table["model"] = request.model
    target = request.target.strip()
    if target and request.provider in ("openai", "anthropic"):
        table["base_url"] = target
    elif target and request.provider == "command":
        table["command"] = target
    table["n"] = request.n
    if len(request.temperatures) == 1:
        table["temperature"] = request.temperatures[0]
    table["concurrency"] = request.concurrency
    for key, value in (
        ("timeout", request.timeout_s),
        ("seed", request.seed),
        ("max_tokens", request.max_tokens),
    ):
        if value is not None:
            table[key] = value
    if request.system:
        table["system"] = request.system
    return table


def save_run_profile(name: str, request: RunRequest) -> str | None:
    """Save the dialog's values as `[profiles.NAME]` in settings.toml; the one-line error, if any."""
    from skyt_tui.engine.settings import save_profile

    try:
        save_profile(name, profile_table(request))
    except (SkytError, OSError) as exc:
        return str(exc)
    return None


def load_theme() -> tuple[str | None, str | None]:
    """The theme in settings.toml (None: the default) and the file's error, if any."""
    from skyt_tui.engine.settings import load_settings

    try:
        return load_settings().theme, None
    except SkytError as exc:
        return None, str(exc)


def save_theme(theme: str) -> str | None:
    from skyt_tui.engine.settings import update_setting

    try:
        update_setting("theme", theme)
    except (SkytError, OSError) as exc:
        return str(exc)
    return None


def rerun_request(meta: runs.RunMeta, concurrency: int = 4) -> RunRequest:
    """A new run with a stored run's settings (provider, model, where, N, temperature)."""
    settings = meta.provider_settings
    target = run_options.settings_target(meta.provider, settings)
    timeout = settings.get("timeout_s")
    tokens = meta.request.get("max_tokens")
    return RunRequest(
        contract_id=meta.contract_id,
        provider=meta.provider,
        model=meta.model or "",
        n=meta.n,
        temperatures=(meta.temperature if meta.temperature is not None else 0.0,),
        concurrency=concurrency,
        target=target,
        timeout_s=float(timeout) if isinstance(timeout, int | float) else None,
        seed=meta.seed,
        max_tokens=tokens if isinstance(tokens, int) else None,
        system=str(meta.request.get("system") or ""),
    )


def resume_request(summary: runs.RunSummary, concurrency: int = 4) -> RunRequest:
    """Complete a stored run: its missing samples, and its failed ones again."""
    assert summary.meta is not None
    meta = summary.meta
    return RunRequest(
        contract_id=meta.contract_id,
        provider=meta.provider,
        model=meta.model or "",
        n=meta.n,
        temperatures=(meta.temperature if meta.temperature is not None else 0.0,),
        concurrency=concurrency,
        resume=meta.id,
        retry_failed=summary.n_failed > 0,
    )


def resumable(summary: runs.RunSummary) -> bool:
    """A stored run with samples missing or failed, not being written right now."""
    return (
        summary.meta is not None
        and summary.state != runs.RUNNING
        and (summary.n_ok + summary.n_failed < summary.meta.n or summary.n_failed > 0)
    )


def delete_run(run_id: str) -> None:
    """Remove a stored run's folder (refused while a process adds samples to it). Canons keep their own copy
    of the code and their provenance, so a canon fixed from this run stays valid and says where it came from."""
    runs.remove_run(run_id)


def _resume(
    request: RunRequest, report: Callable[[SampleProgress], None], cancel: threading.Event
) -> RunOutcome:
    from skyt_tui.engine.generation.workflow import resumable_contract, resume_and_analyse

    assert request.resume is not None
    run = runs.load_run(request.resume)
    resumable_contract(run)
    total = run.meta.n

    def sample_done(record: runs.SampleRecord) -> None:
        failed = record.status == runs.FAILED
        report(
            SampleProgress(
                index=record.index,
                total=total,
                failed=failed,
                message=record.error or "" if failed else "",
                run_id=run.id,
                usage=record.usage,
                sample=record.index,
            )
        )

    for sample in run.samples:  # what is already stored shows at once
        if sample.status == runs.OK or not request.retry_failed:
            sample_done(sample)
    analysed = _Analysed()
    generated = resume_and_analyse(
        run,
        analyse=analysed.documents,
        concurrency=request.concurrency,
        cancel=cancel,
        on_sample=sample_done,
        retry_failed=request.retry_failed,
    )
    return _outcome(generated, analysed.records, report, total, request.n, cancel)


class _Analysed:
    """The workflow's analyser for the app (`analyze_runs`, in a child process), keeping the typed
    records of what it analysed."""

    def __init__(self) -> None:
        self.records: dict[str, StoredAnalysis] = {}

    def documents(self, run_ids: Sequence[str]) -> list[dict[str, Any]]:
        found = analyze_runs(run_ids)
        self.records.update((analysis.run_id, analysis) for analysis in found)
        return [analysis.document for analysis in found]


def _outcome(
    generated: Generated,
    records: dict[str, StoredAnalysis],
    report: Callable[[SampleProgress], None],
    total: int,
    n_per_run: int,
    cancel: threading.Event,
    probe_inputs: int | None = None,
) -> RunOutcome:
    """Each analysed sample's verdict (at its place in the whole request: runs of a sweep follow
    each other) and one headline line per analysed run (and its probe's, when asked for)."""
    metrics = []
    for position, outcome in enumerate(generated.outcomes):
        document = generated.analyses.get(outcome.run_id)
        if document is None:
            continue
        for sample in records[outcome.run_id].samples:
            report(
                SampleProgress(
                    index=position * n_per_run + sample.index,
                    total=total,
                    passed=sample.facts.passed,
                )
            )
        metrics.append(f"{outcome.run_id}: {metrics_line(document)}")
        if probe_inputs is not None and not cancel.is_set():
            probed = probe_run(outcome.run_id, probe_inputs)
            metrics.append(f"{outcome.run_id}: {probe_line(probed)}")
    outcomes = generated.outcomes
    return RunOutcome(
        run_ids=tuple(outcome.run_id for outcome in outcomes),
        n_done=sum(outcome.finished for outcome in outcomes),
        n_failed=sum(outcome.failed for outcome in outcomes),
        cancelled=cancel.is_set(),
        stopped=next((outcome.abort_reason for outcome in outcomes if outcome.abort_reason), None),
        metrics=tuple(metrics),
    )


def execute_run(
    request: RunRequest, report: Callable[[SampleProgress], None], cancel: threading.Event
) -> RunOutcome:
    """Generate and store one run per temperature, reporting every sample, then analyse each finished run
    (or complete a stored run, `request.resume`)."""
    from skyt_tui.engine.generation.runner import RunSettings
    from skyt_tui.engine.generation.workflow import sweep_and_analyse

    if request.resume is not None:
        return _resume(request, report, cancel)
    contract = get_contract(request.contract_id)
    total = request.n * len(request.temperatures)
    offset = {"value": -request.n}
    current = {"run_id": ""}

    def started(meta: runs.RunMeta) -> None:
        offset["value"] += request.n
        current["run_id"] = meta.id

    def sample_done(record: runs.SampleRecord) -> None:
        failed = record.status == runs.FAILED
        report(
            SampleProgress(
                index=offset["value"] + record.index,
                total=total,
                failed=failed,
                message=record.error or "" if failed else "",
                run_id=current["run_id"],
                usage=record.usage,
                sample=record.index,
            )
        )

    def retrying(event: RetryEvent) -> None:
        report(
            SampleProgress(
                index=offset["value"] + event.index,
                total=total,
                retry=True,
                message=f"sample {event.index}: {event.error}; retry {event.attempt} in {event.delay_s:.1f} s",
            )
        )

    settings = RunSettings(
        provider=request.provider,
        model=request.model or None,
        temperature=None,
        n=request.n,
        provider_settings=provider_settings(request),
        seed=request.seed,
        max_tokens=request.max_tokens,
        system=request.system or None,
    )
    analysed = _Analysed()
    generated = sweep_and_analyse(
        contract,
        settings,
        list(request.temperatures),
        analyse=analysed.documents,
        concurrency=request.concurrency,
        cancel=cancel,
        on_sample=sample_done,
        on_retry=retrying,
        on_run_start=started,
    )
    return _outcome(
        generated, analysed.records, report, total, request.n, cancel, request.probe_inputs
    )


def probe_run(run_id: str, max_inputs: int | None = None) -> dict[str, Any]:
    """Probe a stored run's passing samples on generated inputs and store it (docs/probe.md)."""
    from skyt_tui.engine.probe.behaviour import ProbeSettings
    from skyt_tui.engine.runs.probes import probe_stored_run

    settings = ProbeSettings() if max_inputs is None else ProbeSettings(max_inputs=max_inputs)
    return probe_stored_run(run_id, settings)


def load_probe(run_id: str) -> dict[str, Any] | None:
    from skyt_tui.engine.runs.probes import load_stored_probe

    return load_stored_probe(run_id)


def witness_as_test(run_id: str, sample_index: int) -> dict[str, Any]:
    """Write the sample's witness as a test: a new contract version (asked for by the user)."""
    from skyt_tui.engine.runs.probes import witness_as_test as add

    return add(run_id, sample_index, write=True)


def probe_line(document: dict[str, Any]) -> str:
    """One headline of a run's probe, for the run's outcome."""
    figures = document.get("run") or {}
    line = (
        f"probe: {counted(figures.get('probed', 0), 'passing sample')}, "
        f"{counted(figures.get('behaviour_classes', 0), 'behaviour class')}"
    )
    if figures.get("plausible_but_wrong"):
        line += f", {counted(figures['plausible_but_wrong'], 'sample', verb='differ')} from the reference"
    return line
