"""The headless command line: `skyt-tui <command> ...`; no command starts the app.

Each command group lives in its own module exposing `register(subparsers)`,
listed in `COMMAND_MODULES`. Handlers return an exit code; a `SkytError`
anywhere becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from skyt_tui import __version__
from skyt_tui.engine.errors import SkytError

COMMAND_MODULES = (
    "skyt_tui.cli.contracts_cmd",
    "skyt_tui.cli.analyze_cmd",
    "skyt_tui.cli.bench_cmd",
    "skyt_tui.cli.oracle_cmd",
    "skyt_tui.cli.run_cmd",
    "skyt_tui.cli.runs_cmd",
    "skyt_tui.cli.import_cmd",
    "skyt_tui.cli.gate_cmd",
    "skyt_tui.cli.demo_cmd",
    "skyt_tui.cli.canon_cmd",
    "skyt_tui.cli.study_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skyt-tui",
        description="Measure and improve the repeatability of LLM code generation. "
        "Without a command, starts the terminal app.",
    )
    parser.add_argument("--version", action="version", version=f"skyt-tui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def start_app() -> int:
    try:
        app_module = importlib.import_module("skyt_tui.ui.app")
    except ModuleNotFoundError:
        build_parser().print_help()
        return 0
    return app_module.run_app()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return start_app()
    try:
        return int(args.handler(args) or 0)
    except SkytError as exc:  # a message may quote a sample's file name: shown printable
        from skyt_tui.engine.printable import printable

        print(f"skyt-tui: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("skyt-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
