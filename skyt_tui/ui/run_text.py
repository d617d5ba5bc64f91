"""How runs and their metrics read on screen: 3-decimal cells, pre→post pairs, distance bars, headlines.

Only `Text` built from plain strings: run labels, model names and errors may come
from anywhere, so nothing here is parsed as markup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.text import Text

from skyt_tui.engine.demo import DEMO_LABEL
from skyt_tui.engine.measure import registry
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.report import fmt3
from skyt_tui.engine.runs.run_store import ABORTED, INTERRUPTED, RUNNING, RunMeta, RunSummary
from skyt_tui.ui import run_data

if TYPE_CHECKING:  # the records bring the metrics module (numpy): loaded with the first analysis
    from skyt_tui.engine.runs.analysis_record import OracleSummary, StoredAnalysis

BAR_WIDTH = 10
PENDING = "…"


def temperature(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def pre_post(metrics: Mapping[str, float | None], pre: str, post: str) -> str:
    """`0.417→0.500`; `–` for a value that was not computed (one `–` when neither was)."""
    if metrics.get(pre) is None and metrics.get(post) is None:
        return "–"
    return f"{fmt3(metrics.get(pre))}→{fmt3(metrics.get(post))}"


ANCHOR_METRICS = registry.needing("canon")
"""The metrics measured against the canon: not shown without one (`measure.registry`)."""
SHOWN_METRICS = registry.app_values()
"""The metrics the app shows of a run (the Runs list, a run's headline), as the registry marks
them (`app`, `app_headline` and their pairs)."""
PARTIAL_MARK = "~"
"""Before a metric of a run whose samples are not all in (running, interrupted): these are partial."""


def shown_metrics(analysis: StoredAnalysis) -> dict[str, float | None]:
    """The `SHOWN_METRICS` of the analysis with what is not true left out (None): nothing measured
    against a canon when there is none, and nothing at all when no sample produced code (the engine
    reports 0.000 for those)."""
    metrics = analysis.metrics
    if not metrics.n:
        return dict.fromkeys(SHOWN_METRICS)
    shown: dict[str, float | None] = {name: getattr(metrics, name) for name in SHOWN_METRICS}
    if metrics.canon != "established":
        shown.update((name, None) for name in SHOWN_METRICS if name in ANCHOR_METRICS)
    return shown


def analysed_count(analysis: StoredAnalysis) -> int:
    """Samples the analysis saw (code or a failure): fewer than the run's N means partial metrics."""
    return analysis.metrics.n + analysis.metrics.n_failed


def is_partial(analysis: StoredAnalysis | None, requested: int | None) -> bool:
    return analysis is not None and requested is not None and analysed_count(analysis) < requested


def metric_cell(metrics: Mapping[str, float | None], metric: registry.Metric) -> str:
    """One metric as a table cell: `pre→post` for a metric shown with its pair, else 3 decimals."""
    if metric.pair is not None:
        return pre_post(metrics, metric.pair, metric.name)
    return fmt3(metrics.get(metric.name))


def metric_cells(
    analysis: StoredAnalysis | None, requested: int | None = None
) -> tuple[str | Text, ...]:
    """The Runs list's metric columns (`registry.app_columns`: R_raw, R_anchor pre→post, rescue,
    μ pre→post, P_τ pre→post, pass rate); with `requested` (the run's N), metrics of fewer samples
    are marked partial (`~`, dimmed)."""
    columns = registry.app_columns()
    if analysis is None:
        return (PENDING,) * len(columns)
    m = shown_metrics(analysis)
    cells = tuple(metric_cell(m, metric) for metric in columns)
    if not is_partial(analysis, requested):
        return cells
    return tuple(
        cell if cell.startswith("–") else Text(PARTIAL_MARK + cell, style="dim italic")
        for cell in cells
    )


STATE_STYLES = {
    "running": "bold cyan",
    "interrupted": "yellow",
    "failed": "bold red",
    "complete": "green",
    "damaged": "bold red",
    "incomplete": "bold yellow",
}


def run_state(summary: RunSummary) -> str:
    """running | interrupted | failed (stopped on an error, or no sample produced code) | complete | damaged."""
    if summary.meta is None:
        return "damaged"
    if summary.state == RUNNING:
        return "running"
    if summary.state == ABORTED or (summary.n_ok == 0 and summary.n_failed > 0):
        return "failed"
    if summary.state == INTERRUPTED:
        return "interrupted"
    if summary.state == "incomplete":
        return "incomplete"  # imported from a tool run that errored or was cut short
    return "complete"


def state_cell(summary: RunSummary) -> Text:
    """The state word, with the samples stored so far while a run is not complete (`running 5/8`)."""
    state = run_state(summary)
    text = Text(state, style=STATE_STYLES[state])
    if summary.meta is not None and state in ("running", "interrupted"):
        text.append(f" {summary.n_ok + summary.n_failed}/{summary.meta.n}", style="dim")
    elif summary.meta is not None and state == "incomplete":
        ended = summary.meta.origin.get("tool_run") or {}
        expected = ended.get("samples_expected")
        if isinstance(expected, int):
            text.append(f" {summary.meta.n}/{expected}", style="dim")
    return text


def n_cell(summary: RunSummary) -> Text:
    """Effective/requested N: samples with code out of the samples asked for."""
    if summary.meta is None:
        return Text("–")
    style = "bold red" if summary.n_ok == 0 and summary.n_failed else ""
    return Text(f"{summary.n_ok}/{summary.meta.n}", style=style)


def metrics_text(analysis: StoredAnalysis, requested: int | None = None) -> Text:
    """The headline metrics on one line, names dimmed; partial metrics (fewer samples than `requested`)
    say so first."""
    m = shown_metrics(analysis)
    parts = [
        (metric.header, metric_cell(m, metric))
        for metric in registry.app_headline()
        if not (metric.app_if_rules and m.get(metric.name) is None)
    ]
    text = Text()
    if is_partial(analysis, requested):
        text.append(
            f"partial, {analysed_count(analysis)} of {counted(requested, 'sample')}: ",
            style="bold yellow",
        )
    for position, (name, value) in enumerate(parts):
        if position:
            text.append(" · ", style="dim")
        text.append(name + " ", style="dim")
        text.append(value, style="bold")
    return text


def distance_bar(d_pre: float | None, d_post: float | None, width: int = BAR_WIDTH) -> Text:
    """d_post as a solid bar, the part repair removed (d_pre − d_post) shaded after it, on a fixed 0–1 scale."""
    if d_pre is None:
        return Text("–", style="dim")
    post = d_pre if d_post is None else d_post
    pre_cells = round(min(max(d_pre, 0.0), 1.0) * width)
    post_cells = min(round(min(max(post, 0.0), 1.0) * width), pre_cells)
    text = Text()
    text.append("█" * post_cells, style="bold")
    text.append("░" * (pre_cells - post_cells), style="dim")
    text.append("·" if pre_cells == 0 else "")
    text.append(" " * (width - max(pre_cells, 1)))
    return text


ID_WIDTH = 24
"""The most cells a contract id takes in a list; the detail beside it shows the whole id."""


def short_id(text: str, width: int = ID_WIDTH) -> str:
    """`text` shortened in the middle to `width` characters: ids that share a prefix (an
    importer's namespace) or a suffix (a content hash) stay told apart by the other end."""
    if len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail :]


def run_line(meta: RunMeta, created: bool = True) -> Text:
    """`contract · provider/model · T 0.7 · N 20 · created`, for headers."""
    line = f"{meta.contract_id} · {meta.provider}/{meta.model or '–'} · T {temperature(meta.temperature)} · N {meta.n}"
    return Text(printable(line + (f" · {meta.created[:19].replace('T', ' ')}" if created else "")))


def label_text(meta: RunMeta | None) -> Text:
    """The run's label; a demo run's "hand-written examples (not model output)" stands out."""
    label = run_data.run_label(meta)
    if not label:
        return Text()
    return Text(printable(label), style="bold yellow" if run_data.is_demo(meta) else "italic")


def verdict_text(oracle: OracleSummary | None, passed: bool) -> Text:
    """A sample's failing tests (name, error, what it returned) and the oracle's reason.

    Every text here can come from the sample (exception names and messages,
    returned values), or from a record stored before they were escaped at the
    source, so each is shown printable: a control character as `\\x1b`, never raw.
    """
    text = Text()
    for test in oracle.tests if oracle is not None else ():
        if not test.passed:
            text.append(f"  ✗ {printable(test.name or test.kind)}: ", style="red")
            text.append(printable(failure_text(test)) + "\n")
    reason = oracle.reason if oracle is not None else None
    if reason and not passed:
        text.append(f"  {printable(reason)}\n", style="red")
    elif reason and oracle is not None and oracle.passed_all is False:
        text.append(f"  {printable(reason)}\n", style="yellow")
    return text


def failure_text(test: Any) -> str:
    """`kind message (got value)` of a failed test, each said once: a message that starts with
    its exception's name or already quotes the value is not repeated, and a call that raised
    has no value to show (its outcome's `{"$raised": …}` is the oracle's encoding)."""
    kind = test.error_type or "wrong result"
    message = str(test.error_message or "")
    error = message if message.startswith(f"{kind}:") else f"{kind} {message}".strip()
    actual = test.actual
    if actual is None:
        return error
    shown = actual if isinstance(actual, str) else str(actual)
    if shown.startswith('{"$raised"') or f"got {shown}" in message:
        return error
    return f"{error} (got {shown})"


def compliance_text(oracle: OracleSummary | None) -> Text:
    """The contract's coding rules the sample breaks, one line each (empty without rules)."""
    compliance = oracle.compliance if oracle is not None else None
    text = Text()
    if compliance is None:
        return text
    if compliance.compliant:
        text.append("  ✓ keeps the contract's coding rules\n", style="green")
        return text
    for violation in compliance.violations:
        text.append(f"  ✗ {printable(violation.rule)}: ", style="red")
        text.append(printable(violation.message) + "\n")
    return text


def isolation_text(isolation: str | None) -> Text:
    """How the oracle was confined; reduced isolation is a warning (docs/oracle.md)."""
    if isolation == "reduced":
        return Text("⚠ reduced isolation (no bubblewrap sandbox)", style="bold yellow")
    if isolation is None:
        return Text("oracle not run", style="dim")
    return Text(f"oracle isolation: {isolation}", style="dim")


def canon_text(
    analysis: StoredAnalysis, run_id: str | None = None, *, demo_canon: bool = False
) -> Text:
    """Where the run's canon comes from; `demo_canon` (the canon is a demo run's sample while this run is
    not a demo run) says loudly that the run is measured against hand-written example code."""
    canon = analysis.canon
    status = canon.status
    if canon.established:
        where = "this run" if canon.run_id == run_id else f"run {canon.run_id}"
        text = Text(f"canon: sample {canon.sample_index} of {where}", style="dim")
        if demo_canon:
            text.append(
                f" ⚠ a demo run: {DEMO_LABEL}; this run is measured against it "
                "(re-establish the canon from a real run in section 3)",
                style="bold yellow",
            )
        return text
    reason = canon.reason or ""
    return Text(
        f"canon: {status or 'not computed'}" + (f" — {reason}" if reason else ""), style="yellow"
    )


Z95 = 1.959963984540054


def wilson_interval(share: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a share observed on n samples (honest at small n and at 0 or 1)."""
    if n <= 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def sort_key(column: str, summary: RunSummary, analysis: StoredAnalysis | None) -> tuple[Any, ...]:
    """Runs without a value (no analysis yet, no canon) sort after the others (before them, descending)."""
    meta = summary.meta
    if meta is None:
        return (1, "")
    if column in ("when", "contract", "model", "T"):
        value: Any = {
            "when": meta.created,
            "contract": meta.contract_id,
            "model": meta.model or "–",
            "T": meta.temperature if meta.temperature is not None else -1.0,
        }[column]
        return (0, value)
    if column == "state":
        return (0, run_state(summary))
    if column == "N":
        return (0, summary.n_ok, meta.n)
    metric = {m.header: m.name for m in registry.app_columns()}[column]
    value = shown_metrics(analysis).get(metric) if analysis is not None else None
    return (0, value) if value is not None else (1, 0.0)
