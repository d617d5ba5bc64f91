"""`skyt-tui probe`: probe a stored run's passing samples on generated inputs, and turn a witness
into a test (a new contract version) (docs/probe.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.text import Text

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option, add_probe_options, probe_settings_of
from skyt_tui.cli.output import console, fmt3, print_json, resolve_run
from skyt_tui.engine.printable import counted, printable

if TYPE_CHECKING:
    from skyt_tui.engine.runs.probe_record import StoredProbe


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "probe",
        description="Run a stored run's passing samples (and the reference) on inputs generated from "
        "the contract's tests, group them by behaviour and store the result next to the run; "
        "or add a sample's witness to the contract as a test (a new contract version).",
    )
    commands = parser.add_subparsers(dest="probe_command", metavar="COMMAND", required=True)
    run = commands.add_parser("run", help="probe a stored run (stored as probe.json beside it)")
    run.add_argument("run", metavar="RUN", help="run id, unique prefix or 'latest'")
    add_probe_options(run, switch=False)
    add_json_option(run)
    run.set_defaults(handler=cmd_run, probe=True)
    add = commands.add_parser(
        "add-test",
        help="add a sample's witness as a call test: a new version of the contract",
    )
    add.add_argument("run", metavar="RUN", help="run id, unique prefix or 'latest'")
    add.add_argument("sample", metavar="SAMPLE", type=int, help="the sample's index in the run")
    add.add_argument(
        "--yes",
        action="store_true",
        help="write the new version (without it, show what would change and write nothing)",
    )
    add_json_option(add)
    add.set_defaults(handler=cmd_add_test)


def cmd_run(args: argparse.Namespace) -> int:
    from skyt_tui.engine.runs.probe_record import StoredProbe
    from skyt_tui.engine.runs.probes import probe_stored_run
    from skyt_tui.engine.runs.run_store import load_run

    settings = probe_settings_of(args)
    assert settings is not None  # `probe run` always probes
    document = probe_stored_run(load_run(resolve_run(args.run)), settings)
    if args.json:
        print_json("probe", document)
        return 0
    print_run_probe(StoredProbe.from_document(document))
    return 0


def print_run_probe(probe: StoredProbe) -> None:
    """The probe's figures, each sample's witness and a warning when the tests let behaviourally
    different samples pass; every text from the document shown printable."""
    out = console()
    figures = probe.figures
    classes = figures.behaviour_classes or 0
    out.print(
        Text(
            f"{counted(figures.probed or 0, 'passing sample')} probed on "
            f"{counted(figures.counted or 0, 'counted input')} ({figures.generated} generated"
            + (f", {figures.generated_wide} wide" if figures.generated_wide else "")
            + "): "
            f"{counted(classes, 'behaviour class')}, "
            f"R_behavioral {fmt3(figures.R_behavioral)} on tests, "
            f"{fmt3(figures.R_behavioral_probe)} on probes"
        )
    )
    wrong = figures.plausible_but_wrong
    if wrong is not None:
        out.print(
            Text(
                f"plausible but wrong: {wrong} "
                f"({fmt3(figures.plausible_but_wrong_share)}) "
                f"{'differs' if wrong == 1 else 'differ'} from the reference"
            )
        )
    for record in probe.samples:
        witness = record.witness
        if witness is not None:
            out.print(
                Text(
                    f"sample {record.index} (class {record.behaviour}): "
                    f"{printable((witness.call or '')[:160])} gives "
                    f"{printable((witness.sample or '')[:80])}, the {printable(witness.against)} "
                    f"{printable((witness.expected or '')[:80])}"
                )
            )
    if classes > 1:
        out.print(
            Text(
                f"warning: the tests of {printable(probe.contract_id)} let "
                f"{classes} behaviourally different kinds of sample pass; "
                "`skyt-tui probe add-test RUN SAMPLE` adds a witness as a test",
                style="yellow",
            )
        )


def cmd_add_test(args: argparse.Namespace) -> int:
    from skyt_tui.engine.runs.probes import witness_as_test

    summary = witness_as_test(resolve_run(args.run), args.sample, write=args.yes)
    if args.json:
        print_json("probe_add_test", summary)
        return 0
    out = console()
    out.print(
        Text(
            f"{summary['contract']}: version {summary['from_version']} → {summary['to_version']}, "
            f"new test {summary['test']}"
        )
    )
    out.print(
        Text(f"expected value from the {summary['expected_from']}: {summary['expected'][:200]}")
    )
    if summary["written"]:
        out.print(Text(f"written to {summary['written']}; the old version is kept under history/"))
        out.print(Text(summary["canon"], style="yellow"))
    else:
        out.print(Text("nothing written: add --yes to write the new version", style="yellow"))
    return 0
