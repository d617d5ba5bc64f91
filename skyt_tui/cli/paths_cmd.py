"""`skyt-tui paths`: where state, settings and contracts live."""

from __future__ import annotations

import argparse

from skyt_tui import locations
from skyt_tui.cli.commands import add_command
from skyt_tui.cli.options import add_json_option
from skyt_tui.cli.output import console, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "paths",
        description="Print the directories and files skyt-tui reads and writes: the store, "
        "settings.toml in the config directory ($SKYT_HOME for both when set), your contracts "
        "and the bundled ones.",
    )
    add_json_option(parser)
    parser.set_defaults(handler=run)


def paths() -> dict[str, str]:
    return {
        "state": str(locations.data_dir()),
        "config": str(locations.config_dir()),
        "settings": str(locations.settings_file()),
        "contracts": str(locations.user_contracts_dir()),
        "bundled_contracts": str(locations.bundled_contracts_dir()),
        "runs": str(locations.runs_dir()),
        "canon": str(locations.canon_dir()),
        "benchmarks": str(locations.benchmarks_dir()),
        "resume": str(locations.resume_dir()),
    }


def run(args: argparse.Namespace) -> int:
    found = paths()
    if args.json:
        print_json("paths", found)
        return 0
    out = console()
    width = max(len(name) for name in found)
    for name, path in found.items():
        out.print(f"{name.replace('_', ' '):<{width}}  {path}", markup=False, soft_wrap=True)
    return 0
