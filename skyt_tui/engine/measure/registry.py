"""Every metric skyt-tui reports, defined once: name, label, direction, description, unit, where it is
computed, what it needs, and which views show it (docs/metrics.md, "Adding a metric").

The `report RUN` table, the invariant checks, the gate's explanations, the study rows, tables and
summary CSV, the CLI's tables, the benchmark's item scores, the app's Runs list, a run's headline
and the Studies section all read their metric lists from here, so a metric added here (with its
computation in the module named by `computed_in`) appears everywhere it is marked for, in the same
place with the same name. (`report --json` prints a run's `RunMetrics` as
they are; `tests/test_registry.py` checks that each of its metrics is registered.)

Order matters and is part of the output: the registry's order is the study's (`study report
--metric` choices, the summary CSV's own columns); a run's own metrics (the `report RUN` table, the
invariant checks) follow it too, except where an entry says `run_after`. Two curated selections (the
`analyze` table's columns, the gate's shortcut flags) name their metrics and take labels and
directions from here; tests check that each name they use is registered.

This module imports nothing of the engine, so the CLI can read it without loading numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "neither"]
Unit = Literal["share", "distance", "difference", "spread", "count", "bits", "edits"]
Needs = Literal["code", "oracle", "canon", "probe"]

METRICS_MODULE = "skyt_tui.engine.measure.metrics"
LITERATURE_MODULE = "skyt_tui.engine.measure.literature"
STUDY_MODULE = "skyt_tui.engine.studies.study_report"
PROBE_MODULE = "skyt_tui.engine.probe.report"
"""Probe figures: reported only for a probed run (`run_probe_figures`, docs/probe.md)."""

DEFAULT_TAUS = (0.05, 0.10, 0.15, 0.20)
"""SKYT's summary reports P_τ (its R_repair_at_τ) at these four thresholds."""
BOUNDED_UNITS = frozenset({"share", "distance"})
"""Units whose values lie in [0, 1]."""


@dataclass(frozen=True)
class Metric:
    name: str
    """The key in `report --json` metrics, in study rows and the CSV headers."""
    description: str
    """One line: what the number is."""
    direction: Direction
    """Which way is better for repeatability (or correctness): higher, lower, or neither."""
    unit: Unit
    """share / distance: in [0, 1]; difference: in [-1, 1]; spread: a std, variance or range;
    count: a whole number; bits: an entropy; edits: a mean number of token edits."""
    computed_in: str
    """The module whose output holds it under this name."""
    needs: Needs = "code"
    """What must have run: only the samples' code, the oracle, the canon (and so the oracle), or
    a probe (the oracle, then the passing samples on generated inputs)."""
    label: str = ""
    """A short header for narrow tables (the app's Runs list); the name when empty."""
    pair: str | None = None
    """The metric shown before this one as `pair→this` (pre→post) in narrow tables."""
    per_level: bool = False
    """A value per normalization level (a dict keyed by level in a run's metrics)."""
    report: bool = False
    """A row of `report RUN`'s metrics table (and a bootstrap interval there when it has one)."""
    study_row: bool = False
    """A value of every study row: `study report --json` runs and the summary CSV."""
    study_table: bool = False
    """Can be tabulated and compared: `study report --metric`."""
    app: bool = False
    """A column of the app's Runs list (with `label` as header)."""
    app_if_rules: bool = False
    """With `app`: the column is shown only while a listed run's contract has coding rules
    (compliance; other runs have no value)."""
    app_headline: bool = False
    """In a run's headline in the app after the `app` columns (`app_headline`), without a column
    of its own in the Runs list."""
    app_study: bool = False
    """One of the study metrics the app's Studies section cycles through with `m`."""
    bench_score: bool = False
    """Usable as a benchmark item's score (`bench import --from-runs --score`): a share of one
    run's samples where higher is better."""
    run_after: str | None = None
    """In a run's own order (the `report RUN` table), listed after this metric instead."""
    csv_name: str | None = None
    """The summary CSV's header for this metric when its name is one of SKYT's columns, which
    holds SKYT's quantity there (`studies.study_report.skyt_columns`)."""

    @property
    def csv_header(self) -> str:
        return self.csv_name or self.name

    @property
    def header(self) -> str:
        return self.label or self.name

    @property
    def bounded(self) -> bool:
        """A single value in [0, 1] (`metrics.check_invariants` checks it)."""
        return self.unit in BOUNDED_UNITS and not self.per_level

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"

    def show(self, value: float | None) -> str:
        """The value as tables show it: a count whole, anything else with 3 decimals; `–` for None."""
        if value is not None and self.unit == "count":
            return str(int(value))
        return fmt3(value)


def fmt3(value: float | None) -> str:
    """Metrics are stored at full precision and shown with 3 decimals; `–` for not computed."""
    if value is None:
        return "–"
    return f"{value:.3f}"


def _per_tau() -> tuple[Metric, ...]:
    pre = tuple(
        Metric(
            f"R_repair_at_{tau:g}_pre",
            f"P_τ before repair at τ = {tau:g} (SKYT's name; from literature.p_tau)",
            "higher",
            "share",
            STUDY_MODULE,
            needs="canon",
            study_row=True,
            study_table=True,
        )
        for tau in DEFAULT_TAUS
    )
    post = tuple(
        Metric(
            f"R_repair_at_{tau:g}_post",
            f"P_τ after repair at τ = {tau:g} (SKYT's name; from literature.p_tau)",
            "higher",
            "share",
            STUDY_MODULE,
            needs="canon",
            study_row=True,
            study_table=True,
        )
        for tau in DEFAULT_TAUS
    )
    deltas = tuple(
        Metric(
            f"Delta_P_tau_{tau:g}",
            f"R_repair_at_{tau:g}_post − R_repair_at_{tau:g}_pre (SKYT's name)",
            "higher",
            "difference",
            STUDY_MODULE,
            needs="canon",
            study_row=True,
        )
        for tau in DEFAULT_TAUS
    )
    return pre + post + deltas


REGISTRY: tuple[Metric, ...] = (
    Metric(
        "n",
        "samples that produced code (N); failed generations are left out",
        "neither",
        "count",
        METRICS_MODULE,
    ),
    Metric(
        "n_failed",
        "samples whose generation failed (not in N)",
        "lower",
        "count",
        METRICS_MODULE,
    ),
    Metric(
        "n_limited",
        "samples in N too long for skyt-tui to parse: judged and counted, measured on their raw "
        "text, not normalized or repaired",
        "neither",
        "count",
        METRICS_MODULE,
    ),
    Metric(
        "distance_bounds",
        "distances (to the canon, between samples) too long to measure, counted at their bound "
        "1.0: mu, P_tau and R_pairwise are then bounds",
        "lower",
        "count",
        METRICS_MODULE,
    ),
    Metric(
        "R_raw",
        "modal share of byte-identical samples: the largest group of equal raw texts / N",
        "higher",
        "share",
        METRICS_MODULE,
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        app_study=True,
        bench_score=True,
    ),
    Metric(
        "R_sig",
        "modal share of signatures at a normalization level (a study row: at the study's level)",
        "higher",
        "share",
        METRICS_MODULE,
        per_level=True,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "distinct",
        "number of distinct signatures, per level",
        "lower",
        "count",
        METRICS_MODULE,
        per_level=True,
    ),
    Metric(
        "entropy_bits",
        "Shannon entropy of the signatures, per level",
        "lower",
        "bits",
        METRICS_MODULE,
        per_level=True,
    ),
    Metric(
        "R_pairwise",
        "1 − mean distance over all pairs of samples",
        "higher",
        "share",
        METRICS_MODULE,
        report=True,
        study_row=True,
        study_table=True,
        app_headline=True,
        app_study=True,
    ),
    Metric(
        "R_structural",
        "R_pairwise under the tree distance (empty under Levenshtein); not SKYT's R_structural, "
        "the modal share of SKYT's 14-property structural signatures",
        "higher",
        "share",
        STUDY_MODULE,
        study_row=True,
        study_table=True,
        csv_name="R_pairwise_tree",
    ),
    Metric(
        "R_anchor_pre",
        "share of samples equal to the canon before repair (d_pre = 0)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
        app_study=True,
        bench_score=True,
    ),
    Metric(
        "R_anchor_post",
        "share of samples equal to the canon after repair (d_post = 0)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        label="R_anchor",
        pair="R_anchor_pre",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        app_study=True,
        bench_score=True,
    ),
    Metric(
        "R_anchor_mean",
        "1 − mu_pre (the distance note's R_anchor)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
        run_after="Delta_P_tau",
    ),
    Metric(
        "Delta_rescue",
        "R_anchor_post − R_anchor_pre",
        "higher",
        "difference",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "rescue_rate",
        "share of samples repair made equal to the canon: count(d_pre > 0, d_post = 0) / N",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        label="rescue",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        csv_name="rescue_rate_of_n",
    ),
    Metric(
        "rescue_of_noncanonical",
        "rescued samples over the samples not equal to the canon before repair (SKYT's form)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "mu_pre",
        "mean distance to the canon before repair",
        "lower",
        "distance",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "mu_post",
        "mean distance to the canon after repair",
        "lower",
        "distance",
        METRICS_MODULE,
        needs="canon",
        label="μ",
        pair="mu_pre",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
    ),
    Metric(
        "Delta_mu",
        "mu_post − mu_pre (≤ 0 is improvement)",
        "lower",
        "difference",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
        csv_name="Delta_mu_post_minus_pre",
    ),
    Metric(
        "mean_distance_pre",
        "mu_pre under SKYT's name",
        "lower",
        "distance",
        STUDY_MODULE,
        needs="canon",
        study_row=True,
    ),
    Metric(
        "mean_distance_post",
        "mu_post under SKYT's name",
        "lower",
        "distance",
        STUDY_MODULE,
        needs="canon",
        study_row=True,
    ),
    Metric(
        "std_distance_pre",
        "population standard deviation of d_pre over the run's samples (from literature.spread)",
        "lower",
        "spread",
        STUDY_MODULE,
        needs="canon",
        study_row=True,
        study_table=True,
    ),
    Metric(
        "std_distance_post",
        "population standard deviation of d_post over the run's samples (from literature.spread)",
        "lower",
        "spread",
        STUDY_MODULE,
        needs="canon",
        study_row=True,
        study_table=True,
    ),
    Metric(
        "P_tau_pre",
        "share of samples within τ of the canon before repair (d_pre ≤ τ)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
        bench_score=True,
    ),
    Metric(
        "P_tau_post",
        "share of samples within τ of the canon after repair (d_post ≤ τ)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="canon",
        label="P_τ",
        pair="P_tau_pre",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        bench_score=True,
    ),
    Metric(
        "Delta_P_tau",
        "P_tau_post − P_tau_pre",
        "higher",
        "difference",
        METRICS_MODULE,
        needs="canon",
        report=True,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "pass_rate",
        "share of samples the oracle passes under the contract's pass threshold",
        "higher",
        "share",
        METRICS_MODULE,
        needs="oracle",
        label="pass",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        app_study=True,
        bench_score=True,
    ),
    Metric(
        "pass_all_rate",
        "share of samples that pass every test, whatever the contract's pass threshold",
        "higher",
        "share",
        METRICS_MODULE,
        needs="oracle",
        label="pass all",
        report=True,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "compliance_rate",
        "share of samples that keep the contract's coding rules and patterns (contracts with "
        "rules only; separate from passing)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="oracle",
        label="comply",
        report=True,
        study_row=True,
        study_table=True,
        app=True,
        app_if_rules=True,
    ),
    Metric(
        "R_behavioral",
        "modal share of per-test pass/fail vectors",
        "higher",
        "share",
        METRICS_MODULE,
        needs="oracle",
        report=True,
        study_row=True,
        study_table=True,
        csv_name="R_behavioral_all_vectors",
        bench_score=True,
    ),
    Metric(
        "OER",
        "share of tests on which every sample produced the same output, every exception one output "
        "and every timeout one (Ouyang et al.)",
        "higher",
        "share",
        METRICS_MODULE,
        needs="oracle",
        report=True,
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "OER_ow",
        "share of tests on which every sample produced the same value, not an exception or a "
        "timeout, over all tests (Ouyang et al.)",
        "higher",
        "share",
        LITERATURE_MODULE,
        needs="oracle",
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "tests",
        "test cases OER is counted over (the contract's tests, constraints excluded)",
        "neither",
        "count",
        LITERATURE_MODULE,
        needs="oracle",
        study_row=True,
    ),
    Metric(
        "test_pass_rate_mean",
        "mean over samples of each sample's share of passed tests (Ouyang et al.)",
        "higher",
        "share",
        LITERATURE_MODULE,
        needs="oracle",
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "test_pass_rate_variance",
        "population variance over samples of each sample's share of passed tests (Ouyang et al.)",
        "lower",
        "spread",
        LITERATURE_MODULE,
        needs="oracle",
        study_row=True,
        study_table=True,
    ),
    Metric(
        "test_pass_rate_max_diff",
        "max − min over samples of each sample's share of passed tests (Ouyang et al.)",
        "lower",
        "spread",
        LITERATURE_MODULE,
        needs="oracle",
        study_row=True,
        study_table=True,
    ),
    Metric(
        "LCS",
        "mean over later samples of the longest matching block of whitespace tokens with the "
        "first sample, over the first sample's token count (Ouyang et al.)",
        "higher",
        "share",
        LITERATURE_MODULE,
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "LED",
        "mean over later samples of the whitespace-token edit distance to the first sample, in "
        "edits (Ouyang et al.)",
        "lower",
        "edits",
        LITERATURE_MODULE,
        study_row=True,
        study_table=True,
        app_study=True,
    ),
    Metric(
        "token_block_share",
        "mean over later samples of the longest common block of Python tokens with the first "
        "sample, over the longer token count (skyt-tui's normalised LCS)",
        "higher",
        "share",
        LITERATURE_MODULE,
        study_row=True,
        study_table=True,
    ),
    Metric(
        "token_edit_share",
        "mean over later samples of the Python-token edit distance to the first sample, over the "
        "longer token count (skyt-tui's normalised LED)",
        "lower",
        "distance",
        LITERATURE_MODULE,
        study_row=True,
        study_table=True,
    ),
    *_per_tau(),
    Metric(
        "plausible_but_wrong",
        "passing samples that differ from the reference on a probe input",
        "lower",
        "count",
        PROBE_MODULE,
        needs="probe",
    ),
    Metric(
        "plausible_but_wrong_share",
        "plausible_but_wrong over the probed passing samples (contracts with a reference)",
        "lower",
        "share",
        PROBE_MODULE,
        needs="probe",
    ),
    Metric(
        "unlike_majority",
        "passing samples that differ from most passing samples on a probe input the reference "
        "gave no result on (without a reference: on any counted input)",
        "lower",
        "count",
        PROBE_MODULE,
        needs="probe",
    ),
    Metric(
        "behaviour_classes",
        "behaviour classes among the probed passing samples (agreement on every counted input)",
        "lower",
        "count",
        PROBE_MODULE,
        needs="probe",
    ),
    Metric(
        "R_behavioral_probe",
        "modal share of (test pass/fail vector, probe behaviour class) pairs; at most R_behavioral",
        "higher",
        "share",
        PROBE_MODULE,
        needs="probe",
    ),
)
"""Every metric, in the registry's (the study's) order."""

_BY_NAME = {metric.name: metric for metric in REGISTRY}


def metric(name: str) -> Metric:
    """The registered metric of this name (KeyError for an unknown one)."""
    return _BY_NAME[name]


def is_registered(name: str) -> bool:
    return name in _BY_NAME


def _run_order(metrics: tuple[Metric, ...]) -> tuple[Metric, ...]:
    ordered = [m for m in metrics if m.run_after is None]
    for moved in metrics:
        if moved.run_after is not None:
            after = next(m for m in ordered if m.name == moved.run_after)
            ordered.insert(ordered.index(after) + 1, moved)
    return tuple(ordered)


_ordered: list[tuple[tuple[Metric, ...], tuple[Metric, ...]]] = []
"""The registry and its run order, computed once (again if a test extends the registry)."""


def run_order() -> tuple[Metric, ...]:
    """The metrics in a run's own order: the registry's, with `run_after` applied."""
    if not _ordered or _ordered[0][0] is not REGISTRY:
        _ordered[:] = [(REGISTRY, _run_order(REGISTRY))]
    return _ordered[0][1]


def report_metrics() -> tuple[str, ...]:
    """The rows of `report RUN`'s metrics table, in a run's order."""
    return tuple(m.name for m in run_order() if m.report)


def computed_in(module: str) -> tuple[Metric, ...]:
    """The metrics `module` computes, in a run's order."""
    return tuple(m for m in run_order() if m.computed_in == module)


def study_row_metrics() -> tuple[Metric, ...]:
    """The metrics of a study row, registry order."""
    return tuple(m for m in REGISTRY if m.study_row)


def study_table_metrics() -> tuple[str, ...]:
    """The metrics a study can tabulate and compare (`study report --metric`), registry order."""
    return tuple(m.name for m in REGISTRY if m.study_table)


def app_columns() -> tuple[Metric, ...]:
    """The app's Runs list metric columns, registry order."""
    return tuple(m for m in REGISTRY if m.app)


def app_headline() -> tuple[Metric, ...]:
    """A run's headline in the app: the Runs list's columns, then the headline's own metrics."""
    return app_columns() + tuple(m for m in REGISTRY if m.app_headline)


def app_values() -> tuple[str, ...]:
    """Every metric the app reads of a run's analysis (its headline's and their `pair`s), registry
    order."""
    shown = {m.name for m in app_headline()} | {m.pair for m in app_headline() if m.pair}
    return tuple(m.name for m in REGISTRY if m.name in shown)


def app_study_metrics() -> tuple[str, ...]:
    """The metrics the app's Studies section cycles through, registry order (the first shown first)."""
    return tuple(m.name for m in REGISTRY if m.app_study)


def bench_score_metrics() -> tuple[str, ...]:
    """The run metrics a benchmark made from runs may take as its item score, registry order."""
    return tuple(m.name for m in REGISTRY if m.bench_score)


def needing(needs: Needs) -> frozenset[str]:
    """The names of the metrics that need this stage (the canon, the oracle) to have run."""
    return frozenset(m.name for m in REGISTRY if m.needs == needs)
