"""The commands `skyt-tui` knows, with their one-line help, importing none of them.

`skyt-tui --help` lists these; a command's module (its arguments and handler) is
imported only when that command is on the command line, so `--version`, `--help`
and the bare `skyt-tui` that opens the app pay for an interpreter start and little more.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple


class Command(NamedTuple):
    module: str
    help: str


COMMANDS: dict[str, Command] = {
    "contracts": Command("contracts_cmd", "list, show, validate and import contracts"),
    "analyze": Command(
        "analyze_cmd",
        "run the pipeline over recorded samples (SKYT files/folders, human-eval folders, JSONL)",
    ),
    "bench": Command(
        "bench_cmd", "benchmark: anchor sample, validation, estimates, rotation, fingerprints"
    ),
    "oracle": Command("oracle_cmd", "run samples against a contract's tests in the sandbox"),
    "run": Command("run_cmd", "ask a model for a contract's code N times and store the run"),
    "resume": Command("run_cmd", "finish an interrupted run without repeating finished samples"),
    "runs": Command("runs_cmd", "stored runs"),
    "report": Command("runs_cmd", "metrics and per-sample d_pre/d_post of a stored run"),
    "import": Command(
        "import_cmd", "store SKYT experiments, human-eval sample sets or JSONL samples as runs"
    ),
    "gate": Command(
        "gate_cmd", "exit 0 if stored runs meet repeatability thresholds, 1 if not (for CI)"
    ),
    "demo": Command(
        "demo_cmd", "store demo runs made from hand-written example samples (offline, no API key)"
    ),
    "canon": Command("canon_cmd", "the canon of each contract: show, list, history, reestablish"),
    "probe": Command(
        "probe_cmd", "probe a stored run on generated inputs; add a witness as a test"
    ),
    "paths": Command("paths_cmd", "where state, settings and contracts live"),
    "study": Command("study_cmd", "compare stored runs across models, temperatures and contracts"),
}


def add_command(
    subparsers: argparse._SubParsersAction, name: str, description: str
) -> argparse.ArgumentParser:
    """The parser of command `name`, with its one-line help from `COMMANDS`."""
    return subparsers.add_parser(name, help=COMMANDS[name].help, description=description)  # type: ignore[no-any-return]


def command_on_line(argv: list[str]) -> str | None:
    """The command named on a command line: its first word that is not an option.

    The top-level parser's only options (`--help`, `--version`) take no value, so the
    first such word is the command, or nothing at all.
    """
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None
