"""`skyt-tui study create|list|show|report|delete`: runs side by side across models, temperatures and contracts."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_executor_options,
    add_json_option,
    apply_executor,
    apply_isolation_setting,
    executor_lines,
    print_executor,
)
from skyt_tui.cli.output import (
    check_output_file,
    console,
    fmt3,
    note_distance_implementation,
    plain,
    print_json,
    print_table,
    with_stage_progress,
    write_output_file,
)
from skyt_tui.engine.printable import counted


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="choose runs: contract=, model=, temperature=, provider=, label=, id= (comma-separated "
        "values, any may match), since=/until=YYYY-MM-DD; repeat for more criteria",
    )
    parser.add_argument(
        "--ids-from",
        type=Path,
        metavar="FILE",
        help="take the runs whose run id or source id (SKYT experiment id) is listed in FILE: a CSV "
        "with a run_id or experiment_id column (e.g. SKYT's metrics_summary.csv) or one id a line",
    )


def _add_analysis(parser: argparse.ArgumentParser) -> None:
    from skyt_tui.engine.versions import DISTANCE_FUNCTIONS, LEVELS

    parser.add_argument(
        "--level", choices=LEVELS, default=None, help="distance level (default: nodoc)"
    )
    parser.add_argument(
        "--tau",
        type=float,
        default=None,
        help="threshold for P_tau, in [0, 1] (default: run.tau in settings.toml, else 0.1)",
    )
    parser.add_argument(
        "--distance",
        choices=tuple(DISTANCE_FUNCTIONS),
        default=None,
        help="levenshtein (default) or tree (normalised AST tree edit distance)",
    )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "study",
        description="A study is a named set of stored runs chosen by a filter or by ids. Its report "
        "puts them side by side: a model × temperature by contract table of any metric, paired "
        "comparisons with Holm correction, a summary CSV, JSON and figures.",
    )
    sub = parser.add_subparsers(dest="study_command", metavar="SUBCOMMAND", required=True)

    create = sub.add_parser("create", help="save a study (a filter over the stored runs) by name")
    create.add_argument("name", metavar="NAME", help="the study's name (letters, digits, _ . -)")
    _add_selection(create)
    _add_analysis(create)
    create.add_argument("--description", default="", help="what the study is about")
    create.add_argument("--force", action="store_true", help="replace a study of the same name")
    create.set_defaults(handler=create_command)

    listing = sub.add_parser("list", help="saved studies and how many runs each selects")
    add_json_option(listing)
    listing.set_defaults(handler=list_command)

    show = sub.add_parser("show", help="a study's definition and the runs it selects")
    show.add_argument("name", metavar="NAME", help="a saved study")
    add_json_option(show)
    show.set_defaults(handler=show_command)

    delete = sub.add_parser("delete", help="delete a saved study (its runs stay)")
    delete.add_argument("name", metavar="NAME", help="a saved study")
    delete.set_defaults(handler=delete_command)

    report = sub.add_parser(
        "report",
        help="the study's table, comparisons and exports",
        description="Analyse the study's runs (cached per run) and print the model × temperature by "
        "contract table of a metric. Without NAME, --filter/--ids-from choose the runs ad hoc.",
    )
    report.add_argument(
        "name", nargs="?", metavar="NAME", help="a saved study (or none, with --filter/--ids-from)"
    )
    _add_selection(report)
    _add_analysis(report)
    add_executor_options(report)
    report.add_argument(
        "--metric", default="R_raw", help="metric of the table and the comparisons (default: R_raw)"
    )
    report.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="FACTOR=A:B",
        help="paired comparison over contracts: temperature=0:0.7 (within each model) or "
        "model=A:B (within each temperature); repeatable",
    )
    add_json_option(report)
    report.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="write the summary CSV (one row per run); - writes only the CSV, to standard output",
    )
    report.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="write PNG and SVG figures to DIR (needs the 'plots' extra: matplotlib)",
    )
    report.set_defaults(handler=report_command)


def _study_from_args(args: argparse.Namespace, name: str):
    from dataclasses import replace

    from skyt_tui.cli.options import tau_of
    from skyt_tui.engine.studies.study import Study, ids_from_file, parse_filter

    run_filter = parse_filter(args.filter)
    if args.ids_from is not None:
        run_filter = replace(run_filter, ids=run_filter.ids + ids_from_file(args.ids_from))
    options: dict[str, Any] = {}
    for key in ("level", "distance"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    options["tau"] = tau_of(args)  # the settings' default is written into the study, visibly
    return Study(
        name=name, filter=run_filter, description=getattr(args, "description", ""), **options
    )


def create_command(args: argparse.Namespace) -> int:
    from skyt_tui.engine.errors import InputError
    from skyt_tui.engine.studies.study import save_study, select_runs

    study = _study_from_args(args, args.name)
    if study.filter.is_empty():
        raise InputError(
            "a study needs at least one --filter or --ids-from (a study of every run: --filter since=1970-01-01)"
        )
    path = save_study(study, overwrite=args.force)
    selected = select_runs(study.filter)
    console().print(
        f"saved study {study.name} ({counted(len(selected), 'run')} now) to {path}",
        markup=False,
        soft_wrap=True,
    )
    return 0


def list_command(args: argparse.Namespace) -> int:
    from skyt_tui.engine.studies.study import list_studies, select_runs

    found = list_studies()
    entries = []
    for name, study, error in found:
        if study is None:
            entries.append({"name": name, "error": error})
        else:
            entries.append(
                {
                    "name": name,
                    "description": study.description,
                    "runs": len(select_runs(study.filter)),
                }
            )
    if args.json:
        print_json("studies", {"studies": entries})
        return 0
    out = console()
    if not entries:
        out.print(
            "no studies saved yet; try `skyt-tui study create NAME --filter model=...`",
            markup=False,
        )
        return 0
    table = Table(title=counted(len(entries), "study"), title_justify="left")
    for column in ("study", "runs", "description"):
        table.add_column(column, justify="right" if column == "runs" else "left")
    for entry in entries:
        if "error" in entry:
            table.add_row(
                plain(entry["name"]), "–", plain(f"damaged: {entry['error']}", style="red")
            )
        else:
            table.add_row(plain(entry["name"]), str(entry["runs"]), plain(entry["description"]))
    print_table(out, table)
    return 0


def show_command(args: argparse.Namespace) -> int:
    from skyt_tui.engine.studies.study import load_study, select_runs

    study = load_study(args.name)
    selected = select_runs(study.filter)
    if args.json:
        print_json(
            "study",
            {
                "study": study.to_toml_dict(),
                "runs": [
                    {
                        "id": m.id,
                        "contract_id": m.contract_id,
                        "model": m.model,
                        "temperature": m.temperature,
                        "provider": m.provider,
                    }
                    for m in selected
                ],
            },
        )
        return 0
    out = console()
    out.print(f"study {study.name}: {study.description}", markup=False)
    out.print(
        f"analysis: level {study.level} · τ {study.tau:g} · distance {study.distance}", markup=False
    )
    for key, value in study.filter.to_dict().items():
        if isinstance(value, list) and len(value) > 5:
            shown = (
                f"{counted(len(value), 'value')}: " + ", ".join(str(v) for v in value[:3]) + ", …"
            )
        else:
            shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        out.print(f"  {key}: {shown}", markup=False, soft_wrap=True)
    out.print(f"{counted(len(selected), 'run')}:", markup=False)
    for meta in selected:
        out.print(
            f"  {meta.id}  {meta.model or '–'}  T={'–' if meta.temperature is None else f'{meta.temperature:g}'}",
            markup=False,
        )
    return 0


def delete_command(args: argparse.Namespace) -> int:
    from skyt_tui.engine.studies.study import delete_study

    delete_study(args.name)
    console().print(f"deleted study {args.name}", markup=False)
    return 0


def report_command(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from skyt_tui.engine.errors import InputError
    from skyt_tui.engine.studies.study import load_study
    from skyt_tui.engine.studies.study_report import (
        METRICS,
        aggregate,
        check_figures,
        compare,
        parse_comparison,
        report_dict,
        summary_csv,
        write_figures,
    )

    if args.metric not in METRICS:
        raise InputError(f"--metric {args.metric!r}: choose one of {', '.join(METRICS)}")
    comparisons_wanted = [parse_comparison(text) for text in args.compare]
    csv_to_stdout = args.csv is not None and str(args.csv) == "-"
    if csv_to_stdout and args.json:
        raise InputError("--csv - and --json both write to standard output; give --csv a file")
    if args.csv is not None:
        check_output_file(args.csv, "--csv")
    if args.figures is not None:  # everything asked for is checked before the analysis starts
        check_figures(args.figures)
    if args.name:
        study = load_study(args.name)
        if args.filter or args.ids_from:
            study = replace(
                study, filter=_merge(study.filter, _study_from_args(args, study.name).filter)
            )
        options = {
            k: getattr(args, k)
            for k in ("level", "tau", "distance")
            if getattr(args, k) is not None
        }
        study = replace(study, **options)
    else:
        if not args.filter and args.ids_from is None:
            raise InputError("study report: give a study NAME or --filter/--ids-from")
        study = _study_from_args(args, "ad-hoc")
    apply_isolation_setting()
    apply_executor(args)
    rows = _rows_with_progress(study, quiet=args.json)
    if not rows:
        raise InputError(f"study {study.name}: the filter selects no stored runs")
    aggregation = aggregate(rows, args.metric)
    comparisons = [compare(rows, args.metric, *wanted) for wanted in comparisons_wanted]
    if args.csv is not None:  # first: the CSV is kept whatever the figures meet
        write_output_file(args.csv, summary_csv(rows), "--csv")
    figures = write_figures(rows, aggregation, args.figures) if args.figures is not None else []
    if csv_to_stdout:
        return 0
    if args.json:
        print_json("study_report", report_dict(study, rows, aggregation, comparisons, figures))
        return 0
    _print_report(study, rows, aggregation, comparisons, figures, args)
    print_executor(executor_lines())
    return 0


def _merge(base, extra):
    from dataclasses import fields, replace

    values = {}
    for f in fields(base):
        a, b = getattr(base, f.name), getattr(extra, f.name)
        values[f.name] = (a + b) if isinstance(a, tuple) else (b if b is not None else a)
    return replace(base, **values)


def _rows_with_progress(study, *, quiet: bool):

    from skyt_tui.engine.studies.study_report import study_rows

    note_distance_implementation(study.distance)
    return with_stage_progress(lambda progress: study_rows(study, progress=progress), quiet)


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def _ci(interval) -> str:
    return "–" if interval is None else f"[{fmt3(interval[0])}, {fmt3(interval[1])}]"


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2g}" if value >= 0.001 else f"{value:.1e}"


def _print_report(study, rows, aggregation, comparisons, figures, args) -> None:
    from skyt_tui.engine.studies.stats import POOLED_NOTE

    out = console()
    metric = aggregation.metric
    out.print(
        f"study {study.name}: {counted(len(rows), 'run')} · level {study.level} · τ {study.tau:g} · "
        f"distance {study.distance}",
        markup=False,
        soft_wrap=True,
    )
    for model in sorted({g.model for g in aggregation.groups}):
        table = Table(
            title=f"{metric} · {model} · across contracts: mean, std, 95% bootstrap CI",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for column in ("T", "mean", "std", "95% CI", "contracts", "runs", "run mean", "OER=0"):
            table.add_column(column, justify="right", no_wrap=True)
        for group in aggregation.groups:
            if group.model != model:
                continue
            table.add_row(
                _t(group.temperature),
                ("~" if group.partial_runs else "") + fmt3(group.mean),
                fmt3(group.std),
                _ci(group.ci),
                str(group.n_contracts),
                str(group.n_runs),
                fmt3(group.mean_runs),
                fmt3(group.zero_equal_share),
            )
        print_table(out, table)
    partial = sum(group.partial_runs for group in aggregation.groups)
    if partial:
        out.print(
            f"~ the mean includes {counted(partial, 'partial run')} (fewer samples analysed than "
            "asked for: an interrupted run; `skyt-tui resume RUN` finishes it)",
            markup=False,
            highlight=False,
        )
    for model in sorted({g.model for g in aggregation.groups}):
        groups = [g for g in aggregation.groups if g.model == model]
        cells = Table(
            title=f"{metric} per contract · {model} (mean over the cell's runs)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        cells.add_column("contract", no_wrap=True, overflow="ellipsis", max_width=28)
        for group in groups:
            cells.add_column(f"T={_t(group.temperature)}", justify="right", no_wrap=True)
        for contract in aggregation.contracts:
            if not any(contract in g.cells for g in groups):
                continue
            cells.add_row(
                plain(contract),
                *(
                    fmt3(g.cells.get(contract))
                    + (
                        ""
                        if g.runs_per_cell.get(contract, 1) <= 1
                        else f" ({g.runs_per_cell[contract]})"
                    )
                    for g in groups
                ),
            )
        print_table(out, cells)
    out.print(
        "run mean: mean over runs (SKYT's summary); (k): k runs in one cell; OER=0: share of contracts "
        "with zero equal test output (no test case where all samples agree).",
        markup=False,
        style="dim",
    )
    for trend in aggregation.trends:
        if trend.slope is None:
            continue
        points = "  ".join(f"T={t:g}: {fmt3(m)}" for t, m in zip(trend.temperatures, trend.means))
        rho = (
            ""
            if trend.spearman_rho is None
            else f"; Spearman ρ {trend.spearman_rho:+.3f} (p {_p(trend.spearman_p)}, {counted(trend.n_cells, 'cell')})"
        )
        out.print(
            f"trend {trend.model}: {points} · slope {trend.slope:+.3f} per unit T{rho}",
            markup=False,
            soft_wrap=True,
        )
    for comparison in comparisons:
        if not comparison.paired:
            within = "model" if comparison.factor == "temperature" else "temperature"
            out.print(
                f"{comparison.metric}: {comparison.factor} {comparison.a} vs {comparison.b}: no {within} "
                f"has runs at both {comparison.factor}s, nothing to compare",
                markup=False,
                soft_wrap=True,
            )
            continue
        result = Table(
            title=f"{comparison.metric}: {comparison.factor} {comparison.a} vs {comparison.b}, "
            "Wilcoxon signed-rank paired over contracts (cell means; ≠0: pairs that differ; "
            "Δmed: median difference; r_rb: rank-biserial effect size), Holm-corrected",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        result.add_column("within", no_wrap=True, overflow="ellipsis", max_width=12)
        for column in (
            "pairs",
            "≠0",
            comparison.a,
            comparison.b,
            "Δmed",
            "r_rb",
            "p",
            "p_Holm",
        ):
            result.add_column(column, justify="right", no_wrap=True, min_width=len(column))
        for c in comparison.paired:
            result.add_row(
                plain(c.a.rsplit(" ", 1)[0]),
                str(c.n),
                str(c.n_nonzero),
                fmt3(c.mean_a),
                fmt3(c.mean_b),
                f"{c.median_difference:+.3f}",
                f"{c.rank_biserial:+.3f}",
                _p(c.p_value),
                _p(c.p_holm),
            )
        print_table(out, result)
        for r in comparison.rates:
            out.print(
                f"  pass rate {r.a}: {fmt3(r.rate_a.rate)} {_ci((r.rate_a.low, r.rate_a.high))} of {r.rate_a.n} · "
                f"{r.b}: {fmt3(r.rate_b.rate)} {_ci((r.rate_b.low, r.rate_b.high))} of {r.rate_b.n} · "
                f"Fisher p {_p(r.p_value)} (Holm {_p(r.p_holm)}) · Cohen's h {r.cohens_h:+.3f}",
                markup=False,
                soft_wrap=True,
            )
        if comparison.rates:
            out.print(f"  pass rates {POOLED_NOTE}.", markup=False, soft_wrap=True, style="dim")
    if args.csv is not None:
        out.print(f"wrote {len(rows)} run rows to {args.csv}", markup=False)
    for path in figures:
        out.print(f"figure: {path}", markup=False)
