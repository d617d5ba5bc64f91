"""A study's report: one row per run with every metric, the model × temperature by contract
table of any metric, paired comparisons, the summary CSV and the figures.

Rows come from each run's stored analysis (cached, `analyses.stored_analyses`)
plus the literature metrics (`literature`). The table's cell is the mean of
the metric over the runs of one model, temperature and contract; a row's
`mean` is the mean over its contracts, `std` their sample standard deviation,
`ci` a percentile bootstrap interval over contracts, and `mean_runs` the mean
over its runs (what SKYT's metrics_summary.csv averages).
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from skyt_tui.engine.errors import InputError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.distance_kind import distance_kind
from skyt_tui.engine.measure.literature import literature_metrics
from skyt_tui.engine.measure.registry import DEFAULT_TAUS
from skyt_tui.engine.runs import analyses, run_store
from skyt_tui.engine.runs.analysis_record import AnalysedSample, StoredAnalysis
from skyt_tui.engine.studies.stats import (
    PairedComparison,
    RateComparison,
    compare_rates,
    holm,
    wilcoxon_paired,
)
from skyt_tui.engine.studies.study import Study, select_runs

if TYPE_CHECKING:
    from skyt_tui.engine.analysis.pipeline import Progress

GroupKey = tuple[str, float | None]

BOOTSTRAP_DRAWS = 1000
BOOTSTRAP_SEED = 20260119

SKYT_COLUMNS = (
    "experiment_id",
    "repo_commit",
    "contract_id",
    "canon_id",
    "model",
    "decoding_temperature",
    "runs",
    "timestamp",
    "R_raw",
    "R_anchor_pre",
    "R_anchor_post",
    "Delta_rescue",
    *(f"R_repair_at_{t:g}_pre" for t in DEFAULT_TAUS),
    *(f"R_repair_at_{t:g}_post" for t in DEFAULT_TAUS),
    "mean_distance_pre",
    "std_distance_pre",
    "mean_distance_post",
    "std_distance_post",
    "Delta_mu",
    *(f"Delta_P_tau_{t:g}" for t in DEFAULT_TAUS),
    "canon_coverage",
    "rescue_rate",
    "R_behavioral",
    "R_structural",
    "sweep_id",
    "notes",
)
"""SKYT's metrics_summary.csv columns, first in every study CSV, each holding SKYT's quantity
(`skyt_columns`; docs/studies.md maps each one)."""
RUN_COLUMNS = ("run_id", "provider", "label", "level", "distance", "tau", "n", "n_failed", "canon")
"""What a study row says about its run and analysis, after SKYT's columns."""
_OWN_METRICS = tuple(m for m in registry.study_row_metrics() if m.csv_header not in SKYT_COLUMNS)
OWN_COLUMNS = RUN_COLUMNS + tuple(m.csv_header for m in _OWN_METRICS)
"""skyt-tui's own columns: the run's facts, then every study-row metric SKYT's columns lack, a
metric whose name is a SKYT column with another meaning under its own `csv_name`
(`Delta_mu_post_minus_pre`, `rescue_rate_of_n`, ...)."""
_OWN_KEYS = RUN_COLUMNS + tuple(m.name for m in _OWN_METRICS)
"""The study row's key of each own column."""
CSV_COLUMNS = SKYT_COLUMNS + OWN_COLUMNS
METRICS = registry.study_table_metrics()
"""Metrics a table, comparison or figure can be made of."""


@dataclass(frozen=True)
class StudyRow:
    """One run's row of a study (`run_row`): the run's identity, and every column by its key in
    `values` (the run's facts, each study-row metric under its registry name, the literature
    metrics, the distances of its samples) as `study report --json` writes the row; SKYT's
    columns of the run, with SKYT's meanings, in `skyt`."""

    values: Mapping[str, Any]
    skyt: Mapping[str, Any] = field(default_factory=dict)

    @property
    def run_id(self) -> str | None:
        return self.values.get("run_id")

    @property
    def contract_id(self) -> str:
        return str(self.values["contract_id"])

    @property
    def model(self) -> str | None:
        return self.values.get("model")

    @property
    def temperature(self) -> float | None:
        """The decoding temperature (`decoding_temperature`, SKYT's column)."""
        return self.values.get("decoding_temperature")

    @property
    def n(self) -> int | None:
        """Samples with code (N)."""
        return self.values.get("n")

    @property
    def partial(self) -> bool:
        """Fewer samples analysed (with code or failed) than the run asked for: an interrupted
        run, whose metrics stand on what it has (the Runs list marks it `~`)."""
        asked = self.values.get("runs")
        done = (self.values.get("n") or 0) + (self.values.get("n_failed") or 0)
        return isinstance(asked, int) and done < asked

    @property
    def group(self) -> GroupKey:
        """(model, temperature): the row of the study's table it counts in ("–": no model)."""
        return (self.model or "–", self.temperature)

    def value(self, key: str) -> Any:
        """The value of a column or metric (`metric.name`, `mean_distance_pre`, ...), None when
        the row has none."""
        return self.values.get(key)

    def distances(self, stage: str) -> list[float]:
        """Every sample's distance to the canon, "pre" or "post" repair."""
        return list((self.values.get("distances") or {}).get(stage, []))

    def to_dict(self) -> dict[str, Any]:
        """The row as `study report --json` writes it (`runs`)."""
        return {**self.values, "skyt": dict(self.skyt)}


def run_row(run: run_store.StoredRun, analysis: StoredAnalysis, study: Study) -> StudyRow:
    """One run's row: identity, the stored analysis's metrics and the literature metrics (of the
    samples as the typed reader gives them, every fact of each kept)."""
    meta = run.meta
    m = analysis.metrics
    codes = [s.code for s in run.samples if s.status == run_store.OK and s.code is not None]
    facts = [sample.facts for sample in analysis.samples]
    extra = literature_metrics(facts, codes, taus=DEFAULT_TAUS)
    canon = analysis.canon
    row: dict[str, Any] = {
        "run_id": meta.id,
        "experiment_id": str(meta.origin.get("source_id") or meta.id),
        "repo_commit": None,
        "contract_id": meta.contract_id,
        "canon_id": (
            f"{canon.run_id}#{canon.sample_index}"
            if canon.established and canon.run_id is not None
            else None
        ),
        "model": meta.model,
        "decoding_temperature": meta.temperature,
        "runs": meta.n,
        "timestamp": meta.created,
        "provider": meta.provider,
        "label": meta.label,
        "sweep_id": meta.sweep,
        "notes": meta.note or None,
        "level": study.level,
        "distance": m.versions.get("distance"),
        "tau": study.tau,
        "n": m.n,
        "n_failed": m.n_failed,
        "canon": m.canon,
        "R_sig": m.R_sig.get(study.level),
        "R_structural": m.R_pairwise if distance_kind(study.distance).structural else None,
        "distances": {
            "pre": [f.d_pre for f in facts if f.d_pre is not None],
            "post": [f.d_post for f in facts if f.d_post is not None],
        },
    }
    for metric in registry.computed_in(registry.METRICS_MODULE):
        if metric.study_row and not metric.per_level:
            row[metric.name] = getattr(m, metric.name)
    row["mean_distance_pre"] = m.mu_pre
    row["mean_distance_post"] = m.mu_post
    row["std_distance_pre"] = extra["std_d_pre"]
    row["std_distance_post"] = extra["std_d_post"]
    for metric in registry.computed_in(registry.LITERATURE_MODULE):
        if metric.study_row:
            row[metric.name] = extra[metric.name]
    for tau in DEFAULT_TAUS:
        key = f"{tau:g}"
        pre = (extra["P_taus_pre"] or {}).get(key)
        post = (extra["P_taus_post"] or {}).get(key)
        row[f"R_repair_at_{key}_pre"] = pre
        row[f"R_repair_at_{key}_post"] = post
        row[f"Delta_P_tau_{key}"] = None if pre is None or post is None else post - pre
    if not m.n:  # no sample has code: the engine's 0.000s measure nothing, never averaged in
        row.update((key, None) for key in list(row)[list(row).index("R_sig") :])
        row["distances"] = {"pre": [], "post": []}
    skyt_id = str(meta.origin.get("skyt_contract_id") or "")
    return StudyRow(row, skyt_columns(row, analysis.samples, skyt_id))


def skyt_columns(
    row: Mapping[str, Any], samples: Sequence[AnalysedSample], skyt_contract_id: str = ""
) -> dict[str, Any]:
    """SKYT's metrics_summary.csv columns of one run, each with SKYT's meaning (its
    `src/metrics.py`), from the run's row and its analysed samples:

    - `runs`: the samples that produced code (SKYT's `successful_runs`), not those requested;
    - `Delta_mu`: mean_distance_pre − mean_distance_post (skyt-tui's Delta_mu is post − pre);
    - `canon_coverage`: share of samples passing the oracle, under the contract's threshold;
    - `rescue_rate`: rescued samples over those not equal to the canon before repair, 0 when
      there are none (skyt-tui's `rescue_of_noncanonical`; SKYT's half credit for a large
      distance drop never applies, as its comparison has no `final_distance`);
    - `R_behavioral`: the largest group of passing samples with one pass/fail vector over the
      contract's tests, a failing sample a group of its own, over N;
    - `R_structural`: SKYT's modal share of its 14-property structural signatures, which
      skyt-tui does not compute: empty.
    The rest are skyt-tui's values under SKYT's names, with the same meaning.
    """
    mu_pre, mu_post = row.get("mu_pre"), row.get("mu_post")
    out = {column: row.get(column) for column in SKYT_COLUMNS}
    out.update(
        contract_id=skyt_contract_id or row.get("contract_id"),
        runs=row.get("n"),
        mean_distance_pre=mu_pre,
        mean_distance_post=mu_post,
        Delta_mu=None if mu_pre is None or mu_post is None else mu_pre - mu_post,
        canon_coverage=row.get("pass_rate"),
        rescue_rate=row.get("rescue_of_noncanonical"),
        R_behavioral=skyt_behavioral(samples),
        R_structural=None,
    )
    return out


def skyt_behavioral(samples: Sequence[AnalysedSample]) -> float | None:
    """SKYT's R_behavioral: passing samples grouped by their pass/fail vector over the contract's
    tests (out-of-domain inputs and constraints left out), each failing sample alone; the
    largest group over N. None when the oracle did not run."""
    if not samples or any(s.facts.passed is None for s in samples):
        return None
    groups: Counter[Any] = Counter()
    for position, sample in enumerate(samples):
        if not sample.facts.passed:
            groups[("failed", position)] += 1
            continue
        if sample.oracle is not None:
            key = tuple(bool(t.passed) for t in sample.oracle.tests if t.kind not in _NOT_TESTS)
        else:
            key = tuple(sample.facts.pass_vector or ())
        groups[("passed", key)] += 1
    return max(groups.values()) / len(samples)


_NOT_TESTS = ("ood", "constraint")


def study_rows(
    study: Study,
    *,
    progress: Progress | None = None,
    on_result: Callable[[str, dict[str, Any]], None] | None = None,
) -> list[StudyRow]:
    """Every selected run's row, in run id order (analyses cached in the store, read by the
    typed reader `runs.analysis_record`)."""
    metas = select_runs(study.filter)
    stored = [run_store.load_run(meta.id) for meta in metas]
    records = analyses.stored_analyses(
        stored,
        level=study.level,
        tau=study.tau,
        distance=study.distance,
        progress=progress,
        on_result=on_result,
    )
    return [run_row(run, analysis, study) for run, analysis in zip(stored, records)]


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


@dataclass(frozen=True)
class GroupRow:
    model: str
    temperature: float | None
    cells: dict[str, float]
    """contract → mean of the metric over this group's runs of that contract."""
    runs_per_cell: dict[str, int]
    n_runs: int
    n_contracts: int
    mean: float | None
    """Mean over contracts."""
    std: float | None
    """Sample standard deviation over contracts (None below two)."""
    ci: tuple[float, float] | None
    """95% percentile bootstrap interval of the mean over contracts."""
    mean_runs: float | None
    """Mean over runs (SKYT's summary averages its rows this way)."""
    zero_equal_share: float | None
    """Share of contracts whose runs have no test case with one output across all samples (OER = 0)."""
    partial_runs: int = 0
    """Of the runs averaged, those with fewer samples analysed than asked for (`StudyRow.partial`)."""

    @property
    def label(self) -> str:
        return f"{self.model} T={_t(self.temperature)}"


@dataclass(frozen=True)
class Trend:
    model: str
    temperatures: tuple[float, ...]
    means: tuple[float, ...]
    slope: float | None
    """Least-squares slope of the mean over contracts against temperature."""
    spearman_rho: float | None
    """Rank correlation of the contract cells with temperature."""
    spearman_p: float | None
    n_cells: int


@dataclass(frozen=True)
class Aggregation:
    metric: str
    contracts: tuple[str, ...]
    groups: tuple[GroupRow, ...]
    trends: tuple[Trend, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "contracts": list(self.contracts),
            "groups": [{**asdict(g), "label": g.label} for g in self.groups],
            "trends": [asdict(t) for t in self.trends],
        }


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def _sort_key(key: tuple[str, float | None]) -> tuple[str, float]:
    return (key[0], -1.0 if key[1] is None else key[1])


def _cells(rows: Sequence[StudyRow], metric: str) -> dict[GroupKey, dict[str, list[float]]]:
    if metric not in METRICS:
        raise InputError(f"metric {metric!r}: choose one of {', '.join(METRICS)}")
    cells: dict[GroupKey, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        value = row.value(metric)
        if _has_value(value):
            cells[row.group][row.contract_id].append(float(value))
    return cells


def _has_value(value: Any) -> bool:
    """Whether a row's metric counts in the means: neither missing nor NaN."""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def bootstrap_mean_interval(
    values: Sequence[float], draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    data = np.array(values, dtype=np.float64)
    means = data[rng.integers(0, len(data), size=(draws, len(data)))].mean(axis=1)
    low, high = np.quantile(means, (0.025, 0.975))
    return float(low), float(high)


def aggregate(rows: Sequence[StudyRow], metric: str) -> Aggregation:
    """The model × temperature by contract table of `metric`, with trends per model."""
    from scipy import stats as scipy_stats

    cells = _cells(rows, metric)
    oer = _cells(rows, "OER")
    partial: dict[GroupKey, int] = defaultdict(int)
    for row in rows:
        if row.partial and _has_value(row.value(metric)):
            partial[row.group] += 1
    contracts = tuple(sorted({row.contract_id for row in rows}))
    groups = []
    for key in sorted({row.group for row in rows}, key=_sort_key):
        by_contract = {c: _mean(v) for c, v in sorted(cells.get(key, {}).items())}
        values = list(by_contract.values())
        all_runs = [v for c in sorted(cells.get(key, {})) for v in cells[key][c]]
        oer_cells = {c: _mean(v) for c, v in oer.get(key, {}).items()}
        groups.append(
            GroupRow(
                model=key[0],
                temperature=key[1],
                cells=by_contract,
                runs_per_cell={c: len(v) for c, v in sorted(cells.get(key, {}).items())},
                n_runs=len(all_runs),
                n_contracts=len(values),
                mean=_mean(values) if values else None,
                std=float(np.std(values, ddof=1)) if len(values) >= 2 else None,
                ci=bootstrap_mean_interval(values),
                mean_runs=_mean(all_runs) if all_runs else None,
                zero_equal_share=(
                    sum(v == 0.0 for v in oer_cells.values()) / len(oer_cells)
                    if oer_cells
                    else None
                ),
                partial_runs=partial.get(key, 0),
            )
        )
    trends = []
    for model in sorted({g.model for g in groups}):
        points = [
            g
            for g in groups
            if g.model == model and g.temperature is not None and g.mean is not None
        ]
        temperatures = tuple(g.temperature for g in points)
        means = tuple(g.mean for g in points)
        pairs = [(g.temperature, v) for g in points for v in g.cells.values()]
        slope = rho = p = None
        if len(set(temperatures)) >= 2:
            slope = float(scipy_stats.linregress(temperatures, means).slope)
            xs, ys = zip(*pairs)
            if len(set(ys)) > 1:
                result = scipy_stats.spearmanr(xs, ys)
                rho, p = float(result.statistic), float(result.pvalue)
        trends.append(Trend(model, temperatures, means, slope, rho, p, len(pairs)))  # type: ignore[arg-type]
    return Aggregation(metric, contracts, tuple(groups), tuple(trends))


@dataclass(frozen=True)
class Comparison:
    """One family of comparisons (Holm-corrected together): paired over contracts, and the pass rates."""

    metric: str
    factor: str
    """"temperature" (a vs b within each model) or "model" (a vs b within each temperature)."""
    a: str
    b: str
    paired: tuple[PairedComparison, ...]
    rates: tuple[RateComparison, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "factor": self.factor,
            "a": self.a,
            "b": self.b,
            "paired": [c.to_dict() for c in self.paired],
            "rates": [r.to_dict() for r in self.rates],
        }


def parse_comparison(text: str) -> tuple[str, str, str]:
    """`temperature=0:0.7` or `model=gpt-4o:gpt-4o-mini` → (factor, a, b)."""
    factor, sep, values = text.partition("=")
    a, colon, b = values.partition(":")
    if not sep or not colon or factor not in ("temperature", "model") or not a or not b:
        raise InputError(
            f"--compare {text!r}: expected temperature=A:B or model=A:B (e.g. temperature=0:0.7)"
        )
    if factor == "temperature":
        try:
            float(a), float(b)
        except ValueError:
            raise InputError(f"--compare {text!r}: temperatures must be numbers") from None
    return factor, a, b


def compare(rows: Sequence[StudyRow], metric: str, factor: str, a: str, b: str) -> Comparison:
    """a vs b within each level of the other factor, paired over contracts; Holm over the family."""
    cells = _cells(rows, metric)

    def matches(key: tuple[str, float | None], value: str) -> bool:
        if factor == "temperature":
            return key[1] is not None and math.isclose(key[1], float(value), abs_tol=1e-9)
        return key[0] == value

    strata = sorted(
        {key[0] if factor == "temperature" else key[1] for key in cells},
        key=lambda s: (s is None, s if s is not None else 0),
    )
    paired = []
    rates = []
    for stratum in strata:
        in_stratum = [
            key for key in cells if (key[0] if factor == "temperature" else key[1]) == stratum
        ]
        keys_a = [key for key in in_stratum if matches(key, a)]
        keys_b = [key for key in in_stratum if matches(key, b)]
        if not keys_a or not keys_b:
            continue
        cell_a = {c: _mean(v) for c, v in cells[keys_a[0]].items()}
        cell_b = {c: _mean(v) for c, v in cells[keys_b[0]].items()}
        where = (
            str(stratum)
            if factor == "temperature"
            else f"T={stratum:g}"
            if isinstance(stratum, float)
            else "T=–"
        )
        paired.append(
            wilcoxon_paired(
                cell_a,
                cell_b,
                label_a=f"{where} {factor}={a}",
                label_b=f"{where} {factor}={b}",
                metric=metric,
                paired_over="contract",
            )
        )
        rates.append(_pass_rates(rows, keys_a[0], keys_b[0], where, factor, a, b))
    from dataclasses import replace

    adjusted = holm([c.p_value for c in paired])
    paired = [replace(c, p_holm=p) for c, p in zip(paired, adjusted)]
    rate_list = [r for r in rates if r is not None]
    adjusted_rates = holm([r.p_value for r in rate_list])
    rate_list = [replace(r, p_holm=p) for r, p in zip(rate_list, adjusted_rates)]
    return Comparison(metric, factor, a, b, tuple(paired), tuple(rate_list))


def _pass_rates(
    rows: Sequence[StudyRow],
    key_a: GroupKey,
    key_b: GroupKey,
    where: str,
    factor: str,
    a: str,
    b: str,
) -> RateComparison | None:
    def counts(key: GroupKey) -> tuple[int, int]:
        chosen = [r for r in rows if r.group == key and r.value("pass_rate") is not None]
        passed = sum(round(r.value("pass_rate") * (r.n or 0)) for r in chosen)
        return passed, sum(r.n or 0 for r in chosen)

    passed_a, n_a = counts(key_a)
    passed_b, n_b = counts(key_b)
    if not n_a or not n_b:
        return None
    return compare_rates(
        passed_a,
        n_a,
        passed_b,
        n_b,
        label_a=f"{where} {factor}={a}",
        label_b=f"{where} {factor}={b}",
        what="samples passing the oracle",
    )


def _csv_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return value


def summary_csv(rows: Sequence[StudyRow]) -> str:
    """One row per run: SKYT's metrics_summary.csv columns with SKYT's meanings (`skyt_columns`),
    then skyt-tui's own under their own names."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow(
            [_csv_cell(row.skyt.get(column)) for column in SKYT_COLUMNS]
            + [_csv_cell(row.value(key)) for key in _OWN_KEYS]
        )
    return buffer.getvalue()


class MissingPlotsExtra(InputError):
    """matplotlib is not installed."""


def check_figures(directory: Path) -> None:
    """Refuse `--figures DIR` before any work is done: matplotlib missing (with the command that
    installs it where skyt-tui runs), DIR a file, or DIR's parent missing."""
    from skyt_tui.engine.generation.providers.sdk import install_hint

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingPlotsExtra(
            "--figures: figures need matplotlib, which is not installed here: "
            f"{install_hint('matplotlib', 'plots')} (nothing was analysed or written)"
        ) from None
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InputError.at(directory, "is not a directory; --figures needs one")
    if not directory.exists() and not directory.parent.is_dir():
        raise InputError.at(directory, f"directory {directory.parent} does not exist")


def write_figures(
    rows: Sequence[StudyRow],
    aggregation: Aggregation,
    directory: Path,
    *,
    formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """Three figures, each as PNG and SVG: the metric against temperature per model with 95%
    intervals, the d_pre → d_post distributions per model, and a heatmap of mean d_pre
    (model × temperature by contract)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingPlotsExtra(
            "figures need matplotlib, which is not installed: pip install 'skyt-tui[plots]'"
        ) from None
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InputError.at(directory, "is not a directory; --figures needs one")
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    plt.rcParams["svg.hashsalt"] = "skyt-tui"

    def save(figure: Any, stem: str) -> None:
        for extension in formats:
            path = directory / f"{stem}.{extension}"
            metadata = {"Date": None} if extension == "svg" else {"Software": None}
            figure.savefig(path, dpi=150, bbox_inches="tight", metadata=metadata)
            written.append(path)
        plt.close(figure)

    metric = aggregation.metric
    figure, axes = plt.subplots(figsize=(6, 4))
    for trend in aggregation.trends:
        points = [
            (g.temperature, g.mean, g.ci or (g.mean, g.mean))
            for g in aggregation.groups
            if g.model == trend.model and g.temperature is not None and g.mean is not None
        ]
        if not points:
            continue
        xs = [t for t, _, _ in points]
        ys = [m for _, m, _ in points]
        low = [m - ci[0] for _, m, ci in points]
        high = [ci[1] - m for _, m, ci in points]
        axes.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, label=trend.model)
    axes.set_xlabel("temperature")
    axes.set_ylabel(f"{metric} (mean over contracts, 95% bootstrap CI)")
    axes.set_title(f"{metric} against temperature")
    if aggregation.trends:
        axes.legend(fontsize="small")
    save(figure, f"{metric}_vs_temperature")

    models = sorted({r.group[0] for r in rows})
    figure, axes = plt.subplots(figsize=(max(6, 1.6 * len(models)), 4))
    data, positions, labels = [], [], []
    for i, model in enumerate(models):
        for j, stage in enumerate(("pre", "post")):
            values = [d for r in rows if r.group[0] == model for d in r.distances(stage)]
            data.append(values or [math.nan])
            positions.append(i * 3 + j)
            labels.append("d_pre" if j == 0 else "d_post")
    axes.boxplot(data, positions=positions, widths=0.8)
    axes.set_xticks(positions, labels, fontsize="x-small")
    for i, model in enumerate(models):
        axes.text(
            i * 3 + 0.5,
            -0.12,
            model if len(model) <= 22 else model[:21] + "…",
            transform=axes.get_xaxis_transform(),
            ha="center",
            va="top",
            fontsize="small",
        )
    axes.set_ylabel("distance to the canon, every sample")
    axes.set_title("d_pre → d_post")
    save(figure, "distances_pre_post")

    distance = aggregate(rows, "mu_pre")
    matrix = np.full((len(distance.groups), len(distance.contracts)), np.nan)
    for i, group in enumerate(distance.groups):
        for j, contract in enumerate(distance.contracts):
            if contract in group.cells:
                matrix[i, j] = group.cells[contract]
    figure, axes = plt.subplots(
        figsize=(max(6, 0.6 * len(distance.contracts) + 3), max(3, 0.3 * len(distance.groups) + 2))
    )
    image = axes.imshow(matrix, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
    axes.set_xticks(
        range(len(distance.contracts)),
        distance.contracts,
        rotation=60,
        ha="right",
        fontsize="x-small",
    )
    axes.set_yticks(
        range(len(distance.groups)), [g.label for g in distance.groups], fontsize="x-small"
    )
    figure.colorbar(image, ax=axes, label="mean d_pre")
    axes.set_title("mean distance to the canon (d_pre)")
    save(figure, "distance_heatmap")
    return written


def report_dict(
    study: Study,
    rows: Sequence[StudyRow],
    aggregation: Aggregation,
    comparisons: Sequence[Comparison] = (),
    figures: Sequence[Path] = (),
) -> dict[str, Any]:
    return {
        "study": study.to_toml_dict(),
        "n_runs": len(rows),
        "runs": [row.to_dict() for row in rows],
        "table": aggregation.to_dict(),
        "comparisons": [c.to_dict() for c in comparisons],
        "figures": [str(p) for p in figures],
    }
