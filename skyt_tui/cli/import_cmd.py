"""`skyt-tui import SOURCE...`: recorded samples become stored runs."""

from __future__ import annotations

import argparse

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import (
    add_executor_options,
    add_json_option,
    add_source_options,
    apply_executor,
    apply_isolation_setting,
    executor_lines,
    print_executor,
    source_load_options,
)
from skyt_tui.cli.output import console, print_json, with_stage_progress
from skyt_tui.engine.errors import InputError
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.runs.run_import import import_runs
from skyt_tui.engine.sources.recorded import assembly_label


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "import",
        description="Turn recorded samples into stored runs (keeping model, temperature and source id); "
        "contracts missing from the catalog are imported from the source. Importing a source twice adds nothing.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a file (or folder) of recorded samples, recognised from its content: SKYT, "
        "human-eval, EvalPlus, Inspect, lm-evaluation-harness, bigcode, promptfoo, OpenAI Batch, "
        "or your own records (docs/coming-from.md); - reads standard input",
    )
    parser.add_argument(
        "--model", help="model name for sources that do not record one (human-eval, old SKYT files)"
    )
    parser.add_argument(
        "--temperature", type=float, help="temperature for sources that do not record one"
    )
    parser.add_argument(
        "--no-contracts", action="store_true", help="do not import missing contracts"
    )
    parser.add_argument(
        "--no-oracle",
        action="store_true",
        help="store runs whose contract is unknown without one (they get no verdicts) instead of refusing",
    )
    parser.add_argument(
        "--analyze",
        action="store_true",
        help="also analyse the runs of these sources now (level nodoc, run.tau in settings.toml), "
        "on the executor, and cache each analysis next to its run, as it finishes, for report, "
        "study report and the app; runs already analysed are not analysed again, so an "
        "interrupted import --analyze run again continues where it stopped",
    )
    add_source_options(parser)
    add_json_option(parser)
    add_executor_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.model is not None and not args.model.strip():
        raise InputError("--model: must name a model, not be empty")
    if args.temperature is not None and not 0.0 <= args.temperature <= 10.0:
        raise InputError(f"--temperature must be within [0, 10], not {args.temperature}")
    if not args.analyze and (args.executor is not None or args.ray_address is not None):
        raise InputError(
            "--executor and --ray-address apply to --analyze (storing samples runs nothing)"
        )
    if args.analyze:
        apply_isolation_setting()
        apply_executor(args)
    options, fmt, mapping = source_load_options(args)
    result = import_runs(
        args.sources,
        model=args.model,
        temperature=args.temperature,
        import_contracts=not args.no_contracts,
        contract=args.contract,
        mapping=mapping,
        require_contract=not args.no_oracle,
        options=options,
        format=fmt,
    )
    analysed = _analyze(result, args) if args.analyze else None
    if args.json:
        extra = {"analysed": analysed} if analysed is not None else {}
        print_json(
            "import",
            {
                "created": [meta.id for meta in result.created],
                "existing": list(result.existing),
                "contracts_written": list(result.contracts_written),
                "contract_problems": list(result.contract_problems),
                "assembly": result.assembly,
                "contract_override": result.override,
                "labels_kept": list(result.kept),
                **extra,
            },
        )
        return 0
    out = console()
    out.print(
        f"imported {counted(len(result.created), 'run')}; {len(result.existing)} already stored",
        markup=False,
        soft_wrap=True,
    )
    if analysed is not None:
        out.print(
            f"analysed {counted(len(analysed), 'run')}; "
            + ("its analysis is cached" if len(analysed) == 1 else "their analyses are cached"),
            markup=False,
            soft_wrap=True,
        )
        print_executor(executor_lines())
    if result.contracts_written:
        shown = ", ".join(result.contracts_written[:10]) + (
            ", …" if len(result.contracts_written) > 10 else ""
        )
        out.print(
            f"imported {counted(len(result.contracts_written), 'contract')} into {locations.user_contracts_dir()}: {shown}",
            markup=False,
            soft_wrap=True,
        )
    if result.override:
        out.print(
            f"every sample is judged by --contract {result.override} (recorded in each run)",
            markup=False,
            soft_wrap=True,
        )
    if result.assembly:
        out.print(
            f"programs assembled: {assembly_label(result.assembly)}", markup=False, soft_wrap=True
        )
    for problem in result.contract_problems:
        out.print(f"warning: {problem}", markup=False, soft_wrap=True)
    for line in result.kept:
        out.print(f"note: {printable(line)}", markup=False, soft_wrap=True)
    for meta in result.created[:10]:
        out.print(f"  {meta.id}", markup=False, soft_wrap=True)
    if len(result.created) > 10:
        out.print(
            f"  … and {len(result.created) - 10} more (see `skyt-tui runs list`)",
            markup=False,
            soft_wrap=True,
        )
    return 0


def _analyze(result, args: argparse.Namespace) -> list[str]:
    """Analyse the runs of these sources, created now or stored before, that have no cached
    analysis yet (each cached as it finishes, so an interrupted `import --analyze` run again
    continues where it stopped); the ids of every run of the sources, all now cached."""
    from skyt_tui.engine.runs.analyses import analyze_stored_runs
    from skyt_tui.engine.settings import load_settings

    tau = load_settings().run.tau
    ids = list(dict.fromkeys([meta.id for meta in result.created] + list(result.existing)))
    if ids:
        with_stage_progress(
            lambda progress: analyze_stored_runs(
                ids, level="nodoc", tau=tau, progress=progress, keep=False
            ),
            quiet=args.json,
        )
    return ids
