"""`skyt-tui canon ...`: show, list and trace the canon of each contract."""

from __future__ import annotations

import argparse
from typing import Any

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, plain, print_json, print_table
from skyt_tui.engine.analysis import canon as canon_store
from skyt_tui.engine.contracts.catalog import find_contract
from skyt_tui.engine.printable import counted
from skyt_tui.engine.runs.canon_actions import reestablish_from_run
from skyt_tui.engine.versions import ORACLE_VERSION


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "canon",
        description="One immutable canon per contract: the first sample that passed the oracle in the "
        "contract's earliest run; every later sample is measured against it.",
    )
    commands = parser.add_subparsers(dest="canon_command", metavar="SUBCOMMAND", required=True)

    listing = commands.add_parser("list", help="every stored canon with its integrity state")
    add_json_option(listing)
    listing.set_defaults(handler=cmd_list)

    show = commands.add_parser("show", help="a contract's canon: code, provenance, versions, state")
    show.add_argument("contract", metavar="CONTRACT", help="contract id")
    add_json_option(show)
    show.set_defaults(handler=cmd_show)

    history = commands.add_parser(
        "history", help="every establish/reestablish event of a contract's canon"
    )
    history.add_argument("contract", metavar="CONTRACT", help="contract id")
    add_json_option(history)
    history.set_defaults(handler=cmd_history)

    again = commands.add_parser(
        "reestablish",
        help="replace a canon with the first passing sample of RUN (logged; old kept in history)",
    )
    again.add_argument("contract", metavar="CONTRACT", help="contract id")
    again.add_argument(
        "--from", dest="run", metavar="RUN", required=True, help="run id, unique prefix or 'latest'"
    )
    add_json_option(again)
    again.set_defaults(handler=cmd_reestablish)


def canon_state(contract_id: str) -> canon_store.CanonState:
    """The canon with its integrity judged against the current contract and versions."""
    return canon_store.load_canon(
        contract_id, contract=find_contract(contract_id), oracle_version=ORACLE_VERSION
    )


def _state_dict(state: canon_store.CanonState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "contract_id": state.contract_id,
        "status": state.status,
        "reasons": list(state.reasons),
    }
    if state.canon is not None:
        out.update(
            {
                "code": state.canon.code,
                "signatures": state.canon.signatures,
                "versions": state.canon.versions,
                "provenance": state.canon.provenance,
                "contract_hash": state.canon.contract_hash,
                "content_hash": state.canon.content_hash,
            }
        )
    return out


def cmd_list(args: argparse.Namespace) -> int:
    states = [canon_state(contract_id) for contract_id in canon_store.list_canons()]
    if args.json:
        print_json("canons", {"canons": [_state_dict(state) for state in states]})
        return 0
    if not states:
        console().print(
            "No canons yet. A canon is fixed by the first oracle-passing sample of a contract's first run."
        )
        return 0
    table = Table(title=counted(len(states), "canon"))
    for column in ("contract", "state", "run", "sample", "model", "T", "established"):
        table.add_column(column)
    for state in states:
        provenance = state.canon.provenance if state.canon else {}
        temperature = provenance.get("temperature")
        table.add_row(
            state.contract_id,
            plain(state.status, style="green" if state.status == "ok" else "bold red"),
            str(provenance.get("run_id", "–")),
            str(provenance.get("sample_index", "–")),
            str(provenance.get("model") or "–"),
            "–" if temperature is None else f"{temperature:g}",
            str(provenance.get("established_at", "–")),
        )
    print_table(console(), table)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    canon_store.require_canon(args.contract)
    state = canon_state(args.contract)
    if args.json:
        print_json("canon", _state_dict(state))
        return 0
    out = console()
    style = "green" if state.status == "ok" else "bold red"
    out.print(
        Text.assemble(
            ("canon of ", ""), (state.contract_id, "bold"), (" · ", ""), (state.status, style)
        )
    )
    for reason in state.reasons:
        out.print(plain(f"  {reason}", style="red"))
    if state.canon is None:
        return 0
    facts = Table.grid(padding=(0, 2))
    for key, value in sorted(state.canon.provenance.items()):
        facts.add_row(key, plain(str(value)))
    for key, value in sorted(state.canon.versions.items()):
        facts.add_row(f"{key} version", plain(value))
    facts.add_row("content hash", plain(state.canon.content_hash))
    out.print(facts)
    out.print(Syntax(state.canon.code, "python", line_numbers=True))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    events = canon_store.canon_history(args.contract)
    if args.json:
        print_json("canon_history", {"contract_id": args.contract, "events": events})
        return 0
    if not events:
        console().print(plain(f"No canon history for {args.contract}."))
        return 0
    table = Table(title=f"canon history of {args.contract}")
    for column in ("#", "event", "at", "run", "sample", "reason", "content hash"):
        table.add_column(column)
    for number, event in enumerate(map(canon_store.CanonEvent.from_record, events), start=1):
        table.add_row(
            str(number),
            plain(event.event or "?"),
            plain(event.at),
            plain(event.run_id or "–"),
            "–" if event.sample_index is None else str(event.sample_index),
            plain(event.reason),
            plain(event.content_hash[:16]),
        )
    print_table(console(), table)
    return 0


def cmd_reestablish(args: argparse.Namespace) -> int:
    canon = reestablish_from_run(args.contract, args.run)
    if args.json:
        print_json("canon", _state_dict(canon_state(canon.contract_id)))
        return 0
    provenance = canon.provenance
    console().print(
        plain(
            f"canon of {canon.contract_id} re-established from run {provenance['run_id']}, "
            f"sample {provenance['sample_index']}; the previous canon is kept in `skyt-tui canon history {canon.contract_id}`"
        )
    )
    return 0
