"""The metric registry: every metric defined once, and every list of metrics read from it."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.literature import literature_metrics
from skyt_tui.engine.measure.metrics import CANON_ESTABLISHED, RunMetrics, compute_metrics
from skyt_tui.engine.measure.records import SampleAnalysis

ROOT = Path(__file__).resolve().parents[1]
LEVELS = ("raw", "format", "nodoc", "alpha")

# The lists as they were written out by hand before the registry (issue 22): a view may gain
# metrics, but those it had keep their order, so no existing column, row or header moves.
REPORT_ROWS = (
    "R_raw", "R_pairwise", "R_anchor_pre", "R_anchor_post", "Delta_rescue", "rescue_rate",
    "rescue_of_noncanonical", "mu_pre", "mu_post", "Delta_mu", "P_tau_pre", "P_tau_post",
    "Delta_P_tau", "R_anchor_mean", "pass_rate", "R_behavioral", "OER",
)  # fmt: skip
STUDY_METRICS = (
    "R_raw", "R_sig", "R_pairwise", "R_structural", "R_anchor_pre", "R_anchor_post",
    "R_anchor_mean", "Delta_rescue", "rescue_rate", "rescue_of_noncanonical", "mu_pre", "mu_post",
    "Delta_mu", "std_distance_pre", "std_distance_post", "P_tau_pre", "P_tau_post", "Delta_P_tau",
    "pass_rate", "R_behavioral", "OER", "OER_ow", "test_pass_rate_mean", "test_pass_rate_variance",
    "test_pass_rate_max_diff", "LCS", "LED",
    *(f"R_repair_at_{t:g}_pre" for t in (0.05, 0.1, 0.15, 0.2)),
    *(f"R_repair_at_{t:g}_post" for t in (0.05, 0.1, 0.15, 0.2)),
)  # fmt: skip
OWN_COLUMNS = (
    "run_id", "provider", "label", "level", "distance", "tau", "n", "n_failed", "canon", "R_sig",
    "R_pairwise", "R_anchor_mean", "rescue_of_noncanonical", "mu_pre", "mu_post", "P_tau_pre",
    "P_tau_post", "Delta_P_tau", "pass_rate", "OER", "OER_ow", "tests", "test_pass_rate_mean",
    "test_pass_rate_variance", "test_pass_rate_max_diff", "LCS", "LED",
)  # fmt: skip
BOUNDED = (
    "R_raw", "R_pairwise", "R_anchor_pre", "R_anchor_post", "rescue_rate",
    "rescue_of_noncanonical", "mu_pre", "mu_post", "P_tau_pre", "P_tau_post", "R_anchor_mean",
    "pass_rate", "R_behavioral", "OER",
)  # fmt: skip
APP_COLUMNS = ("R_raw", "R_anchor", "rescue", "μ", "P_τ", "pass", "comply")
APP_VALUES = (
    "R_raw", "R_pairwise", "R_anchor_pre", "R_anchor_post", "rescue_rate", "mu_pre", "mu_post",
    "P_tau_pre", "P_tau_post", "pass_rate", "compliance_rate",
)  # fmt: skip


def keeps_order(old, new):
    """Every name of `old` is in `new`, in the same order (new names may come anywhere)."""
    kept = [name for name in new if name in old]
    return kept == list(old)


def test_names_are_unique_and_entries_complete():
    names = [m.name for m in registry.REGISTRY]
    assert len(names) == len(set(names))
    for m in registry.REGISTRY:
        assert m.description.strip() and m.direction in ("higher", "lower", "neither")
        assert m.computed_in in (
            registry.METRICS_MODULE,
            registry.LITERATURE_MODULE,
            registry.STUDY_MODULE,
            registry.PROBE_MODULE,
        )
        assert m.pair is None or registry.is_registered(m.pair)
        assert not m.study_table or m.study_row, m.name
        assert m.run_after is None or registry.is_registered(m.run_after)
        assert not m.app_study or m.study_table, m.name  # the Studies section tabulates it
        if m.app or m.app_headline or m.bench_score:  # read from a run's own metrics
            assert m.computed_in == registry.METRICS_MODULE and not m.per_level, m.name
        assert not (m.app and m.app_headline), m.name
        if m.bench_score:  # an item score: a share where higher is better
            assert m.higher_is_better and m.unit == "share", m.name


def test_every_view_keeps_its_metrics_in_their_order():
    from skyt_tui.engine.runs.report import SUMMARY_METRICS
    from skyt_tui.engine.studies import study_report

    assert keeps_order(REPORT_ROWS, SUMMARY_METRICS)
    assert keeps_order(STUDY_METRICS, study_report.METRICS)
    assert keeps_order(OWN_COLUMNS, study_report.OWN_COLUMNS)
    assert study_report.CSV_COLUMNS[: len(study_report.SKYT_COLUMNS)] == study_report.SKYT_COLUMNS
    assert keeps_order(
        BOUNDED, [m.name for m in registry.computed_in(registry.METRICS_MODULE) if m.bounded]
    )
    assert keeps_order(APP_COLUMNS, [m.header for m in registry.app_columns()])


def samples():
    """Four samples with oracle verdicts, compliance with coding rules and distances to an
    established canon."""
    rows = [
        (True, (True, True), ("1", "2"), 0.0, 0.0, True),
        (True, (True, True), ("1", "2"), 0.2, 0.0, False),
        (False, (True, False), ("1", "!ValueError"), 0.4, 0.3, True),
        (False, (True, False), ("1", "!Timeout"), 0.5, 0.5, False),
    ]
    return [
        SampleAnalysis(
            index=i,
            signatures={level: f"s{i % 2}" for level in LEVELS},
            passed=passed,
            passed_all=passed,
            compliant=compliant,
            pass_vector=vector,
            outputs=outputs,
            d_pre=d_pre,
            d_post=d_post,
        )
        for i, (passed, vector, outputs, d_pre, d_post, compliant) in enumerate(rows)
    ]


def test_each_metric_is_in_the_output_of_the_module_that_computes_it():
    run = compute_metrics(samples(), canon=CANON_ESTABLISHED, pairwise_mean=0.3).to_dict()
    literature = literature_metrics(samples(), ["x = 1", "x = 2", "x = 1", "y = 3"])
    for m in registry.computed_in(registry.METRICS_MODULE):
        assert m.name in run and run[m.name] is not None, m.name
        assert isinstance(run[m.name], dict) == m.per_level, m.name
    for m in registry.computed_in(registry.LITERATURE_MODULE):
        assert m.name in literature and literature[m.name] is not None, m.name


def test_each_metric_is_emitted_by_one_module():
    """OER was a key of a run's metrics and of the literature metrics, two emissions of one
    name that study rows, reports and scripts could read either way; now each metric the run
    computes is a key of its `RunMetrics` and of no other module's output."""
    run = compute_metrics(samples(), canon=CANON_ESTABLISHED, pairwise_mean=0.3).to_dict()
    literature = literature_metrics(samples(), ["x = 1", "x = 2", "x = 1", "y = 3"])
    assert set(run) & set(literature) == set()
    for m in registry.REGISTRY:
        outputs = [
            name for name, keys in (("run", run), ("literature", literature)) if m.name in keys
        ]
        assert len(outputs) <= 1, (m.name, outputs)


def test_every_metric_a_run_computes_is_registered():
    """A metric added to RunMetrics without a registry entry would be in `report --json` but in
    no table, no study row and no gate explanation."""
    not_metrics = {"level", "tau", "canon", "ci", "anchor_sensitivity", "versions"}
    not_metrics |= {"invariant_violations"}
    fields = {f.name for f in dataclasses.fields(RunMetrics)} - not_metrics
    assert fields == {m.name for m in registry.computed_in(registry.METRICS_MODULE)}


def test_the_probe_metrics_are_registered_and_in_a_probed_runs_figures():
    """The probe's per-run figures (docs/probe.md) were a list of their own, beside the registry."""
    from skyt_tui.engine.contracts.contract import contract_from_dict
    from skyt_tui.engine.probe.behaviour import ContractProbe, ProbeSettings, SampleProbe
    from skyt_tui.engine.probe.report import PROBE_METRICS, run_probe_figures

    probe_metrics = registry.computed_in(registry.PROBE_MODULE)
    assert [m.name for m in probe_metrics] == [
        "plausible_but_wrong",
        "plausible_but_wrong_share",
        "unlike_majority",
        "behaviour_classes",
        "R_behavioral_probe",
    ]
    assert all(m.needs == "probe" for m in probe_metrics)
    assert registry.needing("probe") == {m.name for m in probe_metrics}
    assert PROBE_METRICS == tuple((m.name, m.direction, m.description) for m in probe_metrics)
    contract = contract_from_dict(
        {
            "schema_version": 1,
            "id": "c",
            "title": "C",
            "difficulty": "easy",
            "prompt": "p",
            "entry": {"kind": "function", "name": "f"},
            "reference": "def f(x):\n    return x\n",
            "tests": [{"kind": "call", "args": [1], "expected": 1}],
        }
    )
    probe = ContractProbe(
        contract=contract,
        settings=ProbeSettings(),
        samples=(
            SampleProbe("probed", differs_from_reference=False, behaviour=1),
            SampleProbe("probed", differs_from_reference=True, behaviour=2),
        ),
        classes=((0,), (1,)),
        reference_class=1,
        examples=1,
        skipped_examples=0,
        generated=3,
        rejected=0,
        guard_rejected=0,
        counted=3,
        reference_status="ok",
        rel_tol=None,
        abs_tol=None,
        tolerance_from="none",
    )
    figures = run_probe_figures(probe, [(True,), (True,)], [0, 1], 0)
    for m in probe_metrics:
        assert figures[m.name] is not None, m.name
    assert (figures["plausible_but_wrong"], figures["behaviour_classes"]) == (1, 2)
    assert figures["plausible_but_wrong_share"] == figures["R_behavioral_probe"] == 0.5


def test_a_study_row_has_every_study_row_metric(tmp_path):
    from skyt_tui.engine.runs import run_store
    from skyt_tui.engine.studies.study import Study
    from skyt_tui.engine.studies.study_report import CSV_COLUMNS, run_row

    codes = ["x = 1", "x = 2", "x = 1", "y = 3"]
    stored = run_store.create_run(
        contract_id="c",
        provider="replay",
        model="m",
        temperature=0.0,
        n=4,
        samples=[
            run_store.SampleRecord(index=i, status=run_store.OK, code=code, response=code)
            for i, code in enumerate(codes)
        ],
        status=run_store.COMPLETE,
        created=datetime(2026, 1, 1, tzinfo=UTC),
    )
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

    analysis = StoredAnalysis.from_document(
        {
            "id": stored.id,
            "metrics": compute_metrics(
                samples(), canon=CANON_ESTABLISHED, pairwise_mean=0.3
            ).to_dict(),
            "samples": [s.to_dict() for s in samples()],
        }
    )
    row = run_row(run_store.load_run(stored.id), analysis, Study(name="s", distance="tree"))
    for m in registry.study_row_metrics():
        assert row.value(m.name) is not None, m.name
        assert m.csv_header in CSV_COLUMNS
    assert row.value("R_structural") == row.value("R_pairwise")
    assert row.value("mean_distance_pre") == row.value("mu_pre")


def test_curated_selections_name_registered_metrics_the_right_way_round():
    from skyt_tui.cli.analyze_cmd import TABLE_METRICS
    from skyt_tui.cli.gate_cmd import SHORTCUTS

    assert all(registry.is_registered(name) for name in TABLE_METRICS)
    for _flag, name, kind, _help in SHORTCUTS:  # --min on a metric where higher is better
        assert registry.metric(name).direction == ("higher" if kind == "min" else "lower")


ADDED = """
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.registry import METRICS_MODULE, Metric

views = dict(report=True, study_row=True, study_table=True, app_study=True, bench_score=True)
added = (
    Metric("R_added", "a metric added in a test", "higher", "share", METRICS_MODULE, app=True,
           label="added", **views),
    Metric("R_headline", "another one", "higher", "share", METRICS_MODULE, app_headline=True),
)
registry.REGISTRY = (*registry.REGISTRY, *added)
registry._BY_NAME.update((m.name, m) for m in added)

import json
from skyt_tui.cli.bench_cmd.imports import score_choices
from skyt_tui.engine.benchmark.from_runs import SCORE_METRICS
from skyt_tui.engine.runs.report import SUMMARY_METRICS
from skyt_tui.engine.studies import study_report
from skyt_tui.ui import run_text
from skyt_tui.ui.screens import runs, studies

print(json.dumps({
    "report RUN rows": SUMMARY_METRICS,
    "study --metric": study_report.METRICS,
    "study CSV": study_report.CSV_COLUMNS,
    "app values": run_text.SHOWN_METRICS,
    "Runs list columns": runs.METRIC_COLUMNS,
    "Runs list widths": list(runs.METRIC_WIDTHS),
    "run headline": [m.name for m in registry.app_headline()],
    "Studies cycle": studies.SHOWN_METRICS,
    "bench item scores": SCORE_METRICS,
    "bench --score help": score_choices(),
}))
"""
"""A fresh interpreter registers two metrics before anything reads the registry, then reads
every list of metrics each view derives from it."""
MARKED_FOR = {
    "report RUN rows": ("R_added",),
    "study --metric": ("R_added",),
    "study CSV": ("R_added",),
    "app values": ("R_added", "R_headline"),
    "Runs list columns": ("added",),
    "Runs list widths": ("added",),
    "run headline": ("R_added", "R_headline"),
    "Studies cycle": ("R_added",),
    "bench item scores": ("R_added",),
    "bench --score help": ("R_added",),
}


def test_a_metric_marked_for_a_view_appears_in_every_list_derived_for_it():
    """The app's values (once `run_text.SHOWN_METRICS`, written out: a metric marked `app` showed
    "–" unless also added there), the Studies section's cycle (a second `SHOWN_METRICS`), the
    benchmark's item scores and the `--score` help that repeated them as prose are read from the
    registry, as the report, study and CSV lists were: a metric registered and marked for a view
    is in each list made for it, and in none it is not marked for."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", ADDED], capture_output=True, text=True, cwd=ROOT, check=True
    )
    lists = json.loads(done.stdout)
    assert set(lists) == set(MARKED_FOR)
    for view, names in lists.items():
        shown = names if isinstance(names, list) else names.replace(",", " ").split()
        for added in ("R_added", "R_headline", "added"):
            assert (added in shown) == (added in MARKED_FOR[view]), (view, added)


def test_each_list_of_the_app_and_the_benchmark_is_the_registrys_selection():
    from skyt_tui.engine.benchmark.from_runs import DEFAULT_SCORE, SCORE_METRICS
    from skyt_tui.ui import run_text
    from skyt_tui.ui.screens import studies

    assert run_text.SHOWN_METRICS == registry.app_values() == APP_VALUES
    assert studies.SHOWN_METRICS == registry.app_study_metrics()
    assert studies.SHOWN_METRICS[0] == "R_raw"  # the metric the section opens on
    assert SCORE_METRICS == registry.bench_score_metrics() and DEFAULT_SCORE in SCORE_METRICS
    assert [m.name for m in registry.app_headline()][-1] == "R_pairwise"


def test_the_app_columns_and_widths_come_from_the_registry():
    from skyt_tui.ui.run_text import ANCHOR_METRICS, metric_cells
    from skyt_tui.ui.screens.runs import METRIC_COLUMNS, METRIC_WIDTHS, PRIORITY

    assert METRIC_COLUMNS == APP_COLUMNS
    assert set(METRIC_COLUMNS) <= set(PRIORITY)
    metrics = compute_metrics(samples(), canon=CANON_ESTABLISHED, pairwise_mean=0.3).to_dict()
    from skyt_tui.engine.runs.analysis_record import StoredAnalysis

    document = {"id": "run", "level": "nodoc", "metrics": {"level": "nodoc", "tau": 0.1} | metrics}
    cells = metric_cells(StoredAnalysis.from_document(document))
    assert [len(cell) for cell in cells] == [METRIC_WIDTHS[h] for h in METRIC_COLUMNS]
    assert cells[1] == "0.250→0.500"  # R_anchor pre→post
    assert {"R_anchor_pre", "mu_post", "Delta_P_tau", "R_anchor_mean"} <= ANCHOR_METRICS
    assert "pass_rate" not in ANCHOR_METRICS and "R_raw" not in ANCHOR_METRICS


@pytest.mark.parametrize(
    "name, value, shown",
    [("R_raw", 2 / 3, "0.667"), ("n_failed", 3, "3"), ("tests", 7.0, "7"), ("OER", None, "–")],
)
def test_values_are_shown_by_their_unit(name, value, shown):
    assert registry.metric(name).show(value) == shown


def test_the_gate_explains_a_missing_metric_that_needs_a_canon():
    from skyt_tui.engine.gate import Threshold, _check
    from skyt_tui.engine.measure.metrics import RunMetrics

    metrics = RunMetrics(n=3, level="nodoc", tau=0.1, canon="none", R_sig={"raw": None})
    assert _check(metrics, Threshold("R_anchor_mean", 0.5, "min")).text == (
        "R_anchor_mean not computed (canon: none)"
    )
    assert _check(metrics, Threshold("pass_rate", 0.5, "min")).text == "pass_rate not computed"
    assert _check(metrics, Threshold("R_sig.raw", 0.5, "min")).text == "R_sig.raw not computed"
    judged = RunMetrics(n=3, level="nodoc", tau=0.1, canon="established", pass_rate=1.0)
    assert _check(judged, Threshold("compliance_rate", 0.5, "min")).text == (
        "compliance_rate not computed (the run's contract has no coding rules)"
    )


def test_the_metrics_docs_name_every_metric():
    docs = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    docs += (ROOT / "docs" / "studies.md").read_text(encoding="utf-8")
    for m in registry.REGISTRY:
        name = re.sub(r"_\d+(\.\d+)?(?=(_pre|_post)?$)", "_τ", m.name)
        stem = name.removesuffix("_pre").removesuffix("_post")
        assert f"`{name}" in docs or f"`{stem}" in docs or name in docs, m.name


def test_the_oracle_room_computes_no_run_metric():
    """It once had pass_rate, r_behavioral and output_equivalence_rate of its own, called by
    tests only, with an OER that differed from the reported one."""
    from skyt_tui.engine.oracle import verdicts

    for name in ("pass_rate", "r_behavioral", "output_equivalence_rate"):
        assert not hasattr(verdicts, name)
