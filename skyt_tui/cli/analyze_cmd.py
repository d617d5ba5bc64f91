"""`skyt-tui analyze SOURCE...`: the whole pipeline over recorded samples.

oracle (sandboxed) → canon (first passing sample of each run) → d_pre →
repair → d_post → metrics. Runs are printed as they finish (`analysis.stream`; on a cluster
each run is analysed on a node). Nothing is written to the store, except with `--resume`:
each finished run is kept until the command has printed everything (`runs.resume`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from skyt_tui.cli.analyze_output import (
    COMPLIANCE,
    TABLE_METRICS,
    OutputOptions,
    RunOutput,
    run_output,
)
from skyt_tui.cli.analyze_output import JsonDocument as JsonDocument
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_executor_options,
    add_json_option,
    add_probe_options,
    add_source_options,
    add_tau_option,
    apply_executor,
    apply_isolation_setting,
    executor_lines,
    print_executor,
    probe_settings_of,
    source_load_options,
    tau_of,
)
from skyt_tui.cli.output import (
    check_output_file,
    console,
    fmt3,
    note_distance_implementation,
    print_table,
    warn,
    with_stage_progress,
)
from skyt_tui.engine import store
from skyt_tui.engine.errors import InputError, StoreError
from skyt_tui.engine.measure import registry
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.report import samples_csv
from skyt_tui.engine.sources.agreement import summarize_sources
from skyt_tui.engine.sources.recorded import load_sources, resolve_contracts
from skyt_tui.engine.versions import DEFAULT_DISTANCE, DISTANCE_FUNCTIONS, distance_version

__all__ = ["TABLE_METRICS", "register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "analyze",
        description="Group recorded samples into runs; check them with the sandboxed oracle, fix each run's "
        "canon (its first passing sample), repair towards it and report every metric. Nothing is stored.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a file (or folder) of recorded samples, recognised from its content: SKYT, "
        "human-eval, EvalPlus, Inspect, lm-evaluation-harness, bigcode, promptfoo, OpenAI Batch, "
        "or your own records (docs/coming-from.md); - reads standard input",
    )
    add_json_option(parser)
    parser.add_argument(
        "--samples", action="store_true", help="include per-sample records in --json output"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        metavar="FILE",
        help="also write one row per sample to FILE (- writes only the CSV, to standard output)",
    )
    parser.add_argument(
        "--level", choices=LEVELS, default="nodoc", help="distance level (default: nodoc)"
    )
    parser.add_argument(
        "--distance",
        choices=tuple(DISTANCE_FUNCTIONS),
        default=DEFAULT_DISTANCE,
        help="distance for d_pre, d_post and R_pairwise: levenshtein (default) or tree "
        "(normalised AST tree edit distance; R_pairwise is then a structural repeatability)",
    )
    add_tau_option(parser)
    parser.add_argument(
        "--no-oracle",
        action="store_true",
        help="skip the oracle (and so canon and repair): signature and pairwise metrics only",
    )
    parser.add_argument("--no-repair", action="store_true", help="skip repair (d_post = d_pre)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep each run in the store as it finishes, and take the runs an earlier "
        "--resume of the same analysis kept instead of analysing them again (a command "
        "stopped midway continues where it stopped); what is kept is removed once the "
        "whole output is written (docs/scaling.md)",
    )
    add_source_options(parser)
    add_executor_options(parser)
    add_probe_options(parser)
    parser.set_defaults(handler=run)


def read_sources(args: argparse.Namespace, *, require_contract: bool) -> list:
    """The runs of the given sources, each with the contract that judges it (sources.resolve_contracts)."""
    from skyt_tui.engine.contracts.catalog import get_contract

    options, fmt, mapping = source_load_options(args)
    runs = load_sources(args.sources, mapping=mapping, options=options, format=fmt)
    override = get_contract(args.contract) if getattr(args, "contract", None) else None
    return resolve_contracts(runs, override=override, require=require_contract)


def run(args: argparse.Namespace) -> int:
    apply_isolation_setting()
    args.tau = tau_of(args)
    csv_to_stdout = args.csv is not None and str(args.csv) == "-"
    if csv_to_stdout and args.json:
        raise InputError("--csv - and --json both write to standard output; give --csv a file")
    args.probe_settings = probe_settings_of(args)
    if args.probe_settings is not None and args.no_oracle:
        raise InputError("--probe needs the oracle; drop --no-oracle")
    if args.probe_settings is not None and args.resume:
        raise InputError(
            "--resume does not apply to --probe (a probed analysis goes in batches, not run by run)"
        )
    apply_executor(args)
    runs = read_sources(args, require_contract=not args.no_oracle)
    if not runs:
        raise InputError("no runs found in the given sources")
    if args.csv is not None:
        check_output_file(args.csv, "--csv")
    options = OutputOptions(
        json=args.json and not csv_to_stdout, samples=args.samples, csv=args.csv is not None
    )
    note_distance_implementation(args.distance)
    document = None
    if options.json:
        document = JsonDocument(
            sys.stdout,
            "analysis",
            {
                "level": args.level,
                "tau": args.tau,
                "distance": distance_version(args.level, args.distance),
            },
        )
    keys: list[str | None] = [None] * len(runs)
    kept: dict[int, RunOutput] = {}
    if args.resume:
        keys, kept = _kept(runs, args, options)
    sources: list[dict[str, Any]] = []
    rows: list[RunOutput] = []
    with _CsvWriter(args.csv) as write_csv:

        def consume(progress: Callable[[str, int, int], None] | None) -> None:
            for output in _outputs(runs, args, options, progress, keys, kept):
                for line in output.limited:
                    warn(line)
                sources.append(output.source)
                if output.csv is not None:
                    write_csv(output.csv)
                if document is not None and output.entry is not None:
                    document.add(output.entry)
                elif not options.json:
                    rows.append(output)

        with_stage_progress(consume, quiet=args.json or csv_to_stdout)
    summaries = summarize_sources(sources, _losses())
    if document is not None:
        document.close(summaries)
    elif not csv_to_stdout:
        print_executor(executor_lines())
        _print_table(rows, args)
        _print_sources(summaries)
    if args.resume:
        from skyt_tui.engine.runs import resume

        resume.forget(key for key in keys if key is not None)
    return 0


def _outputs(
    runs: list,
    args: argparse.Namespace,
    options: OutputOptions,
    progress: Any,
    keys: list[str | None],
    found: dict[int, RunOutput],
) -> Iterator[RunOutput]:
    """Each run's output in input order: `found` (kept by an earlier `--resume`), else analysed
    now, and kept as it finishes under its key (`--resume`)."""
    from skyt_tui.engine.analysis.stream import analyze_stream

    missing = [run for position, run in enumerate(runs) if position not in found]
    fresh = analyze_stream(
        missing,
        finish=partial(run_output, options),
        level=args.level,
        tau=args.tau,
        oracle=not args.no_oracle,
        repair_samples=not args.no_repair,
        distance=args.distance,
        probe=args.probe_settings,
        progress=progress,
    )
    for position in range(len(runs)):
        if position in found:
            yield found.pop(position)
            continue
        output = next(fresh)
        key = keys[position]
        if key is not None:
            from skyt_tui.engine.runs import resume

            resume.keep(key, output.to_dict())
        yield output


def _kept(
    runs: list, args: argparse.Namespace, options: OutputOptions
) -> tuple[list[str | None], dict[int, RunOutput]]:
    """Each run's `--resume` key, and the outputs kept under them (checked; one that does not
    hold is said on stderr and analysed again)."""
    from skyt_tui.engine.executor.choice import current_executor
    from skyt_tui.engine.runs import resume
    from skyt_tui.engine.versions import ORACLE_VERSION

    resume.check_writable()
    oracle: dict[str, Any] = {}
    if not args.no_oracle:
        judge = current_executor().oracle()
        oracle = {
            "version": ORACLE_VERSION,
            "isolation": judge.isolation,
            "layers": list(judge.layers),
        }
    settings = {
        **options.settings(),
        "level": args.level,
        "tau": args.tau,
        "distance": args.distance,
        "oracle": not args.no_oracle,
        "repair": not args.no_repair,
    }
    keys = [resume.run_key(run, settings, oracle) for run in runs]
    found: dict[int, RunOutput] = {}
    for position, (run, key) in enumerate(zip(runs, keys)):
        if key is None:
            continue
        try:
            data = resume.kept(key)
            if data is not None:
                found[position] = RunOutput.from_dict(data, options, run.id, resume.path_of(key))
        except StoreError as exc:
            warn(f"{exc}; run {run.id} is analysed again")
    return keys, found


class _CsvWriter:
    """`--csv FILE` written as runs finish: the header, then each run's rows; to a file in its
    folder under a temporary name, renamed into place once whole (`-`: standard output)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.writer: Any = None

    def __enter__(self) -> Callable[[str], None]:
        if self.path is None:
            return lambda text: None
        header = samples_csv([])
        if str(self.path) == "-":
            tty = sys.stdout.isatty()

            def to_stdout(text: str) -> None:
                sys.stdout.write(printable(text, multiline=True) if tty else text)

            to_stdout(header)
            return to_stdout
        self.writer = store.AtomicWriter(Path(self.path))
        self.writer.write(header)
        return self.writer.write  # type: ignore[no-any-return]

    def __exit__(self, kind: object, *rest: object) -> None:
        if self.writer is not None:
            self.writer.close(commit=kind is None)


def _losses() -> dict[str, str]:
    from skyt_tui.engine.sources.formats import formats

    return {f.name: f.loses for f in formats()} | {"jsonl": "every field not mapped"}


def _print_sources(summaries: list[dict]) -> None:
    out = console()
    for entry in summaries:
        ended = entry.get("tool_run")
        if entry.get("tool") is None and not ended:
            continue
        expected = (ended or {}).get("samples_expected")
        line = (
            f"{printable(entry['file'])} ({entry['format']}): {counted(entry['samples'], 'sample')}"
            + (f" of {expected} expected" if expected is not None else "")
            + (" · pass over the recorded samples only" if ended else " · pass")
            + f" {fmt3(entry['pass_rate'])} by skyt-tui, {fmt3(entry['tool_pass_rate'])} by "
            f"{entry['tool']}"
        )
        if entry.get("disagreements") is not None:
            line += f" · {counted(entry['disagreements'], 'disagreement')}"
        if entry.get("evalplus"):
            rates = entry["evalplus"]
            line += (
                f" · base {fmt3(rates['base']['skyt'])}/{fmt3(rates['base']['tool'])}, "
                f"plus {fmt3(rates['plus']['skyt'])}/{fmt3(rates['plus']['tool'])} (skyt-tui/evalplus)"
            )
        if entry.get("tool_note"):
            line += f" · {entry['tool_note']}"
        out.print(line, markup=False, soft_wrap=True)
        if ended:
            from skyt_tui.engine.sources.run_input import ToolRun

            facts = ToolRun.from_dict(ended)
            if facts is not None:
                out.print(
                    f"{printable(entry['file'])}: INCOMPLETE: {printable(facts.line())}",
                    markup=False,
                    soft_wrap=True,
                )


def _print_table(outputs: list[RunOutput], args) -> None:
    rows = [output.row for output in outputs if output.row is not None]
    table = Table(
        title=f"{counted(len(rows), 'run')} · {distance_version(args.level, args.distance)} · τ {args.tau:g}"
    )
    shown = [registry.metric(name) for name in TABLE_METRICS]
    if any(row["metrics"].get(COMPLIANCE) is not None for row in rows):
        shown.insert(1, registry.metric(COMPLIANCE))  # a contract with coding rules
    columns = (
        "run",
        "model",
        "T",
        "n",
        *(f"{m.header} pre→post" if m.pair else m.header for m in shown),
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("run", "model") else "right")
    for row in rows:
        values = row["metrics"]
        table.add_row(
            row["id"],
            row["model"] or "–",
            "–" if row["temperature"] is None else f"{row['temperature']:g}",
            str(row["n"]),
            *(
                f"{fmt3(values.get(metric.pair))}→{fmt3(values.get(metric.name))}"
                if metric.pair
                else fmt3(values.get(metric.name))
                for metric in shown
            ),
        )
    out = console()
    print_table(out, table)
    for row in rows:
        for line in row["notes"]:
            out.print(line, markup=False, soft_wrap=True)
    probed = [output for output in outputs if output.probe is not None]
    if probed:
        from skyt_tui.cli.probe_output import print_probe

        print_probe(out, [o.probe[0] for o in probed], [o.probe[1] for o in probed])
        for output in probed:
            figures = output.probe[2]
            out.print(
                f"{output.run_id}: R_behavioral {fmt3(figures.get('R_behavioral'))} on tests, "
                f"{fmt3(figures.get('R_behavioral_probe'))} on probes",
                markup=False,
                soft_wrap=True,
            )
    if any(row.get("isolation") == "reduced" for row in rows):
        out.print(
            Text.assemble(
                ("reduced isolation:", "yellow"),
                " bubblewrap is not available; samples ran with limits, seccomp "
                "and Landlock only (see docs/oracle.md).",
            )
        )
