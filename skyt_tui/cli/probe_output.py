"""Probe results for people: one table of the samples that behave unlike the reference (or the
majority), with their witnesses, and the totals (docs/probe.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from skyt_tui.cli.output import fmt3, print_table
from skyt_tui.engine.printable import counted, printable

if TYPE_CHECKING:
    from skyt_tui.engine.probe.behaviour import ContractProbe


def print_probe(
    out: Console, probes: Sequence[ContractProbe], labels: Sequence[Sequence[str]]
) -> None:
    from skyt_tui.engine.probe.report import probe_summary

    table = Table(title="probe: passing samples that behave differently", title_justify="left")
    for column in ("sample", "class", "witness", "sample gives", "expected"):
        table.add_column(column, overflow="fold")
    for probe, names in zip(probes, labels):
        for name, record in zip(names, probe.samples):
            witness = record.witness
            if witness is None:
                continue
            shown = witness.to_dict(probe.contract.entry.name)
            table.add_row(
                Text(printable(name)),
                str(record.behaviour),
                Text(shown["call"][:200]),
                Text(shown["sample"][:120]),
                Text(f"{shown[shown['against']][:120]} ({shown['against']})"),
            )
    if table.row_count:
        print_table(out, table)
    summary = probe_summary(probes)
    wrong = summary["plausible_but_wrong"]
    against_reference = (
        "no reference to compare with"
        if wrong is None
        else f"{wrong} {_differ(wrong)} from the reference "
        f"({fmt3(summary['plausible_but_wrong_share'])})"
    )
    out.print(
        f"probed {counted(summary['probed'], 'passing sample')} on "
        f"{counted(summary['inputs_counted'], 'counted input')}: "
        f"{against_reference}, {summary['unlike_majority']} "
        f"from the passing samples' majority, "
        f"{counted(summary['behaviour_classes'], 'behaviour class')}"
    )
    for probe in probes:
        if len(probe.classes) > 1:
            out.print(
                Text(
                    f"warning: the tests of {printable(probe.contract.id)} let "
                    f"{len(probe.classes)} behaviourally different kinds of sample pass",
                    style="yellow",
                )
            )
        if probe.note:
            out.print(Text(f"{printable(probe.contract.id)}: {printable(probe.note)}", style="dim"))


def _differ(number: int) -> str:
    return "differs" if number == 1 else "differ"
