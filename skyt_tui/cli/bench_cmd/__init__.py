"""`skyt-tui bench …`: import a benchmark, draw and validate its anchor sample, estimate new systems
from their anchor scores, rotate, fingerprint.

A thin layer over `skyt_tui.engine.benchmark`: parse arguments, call the engine,
print a rich table (or `--json`). Every input file is checked in full before
anything is written; a bad one is one error line and exit code 2. Each subcommand's
arguments and handler live with its group: `imports` (list, import), `anchors` (sample,
validate, estimate), `rotation` (rotate, status), `fingerprints` (fingerprints, contamination);
`common` holds what they share.
"""

from __future__ import annotations

import argparse

from skyt_tui.cli.bench_cmd import anchors, fingerprints, imports, rotation
from skyt_tui.cli.commands import add_command

SUBCOMMANDS = (
    imports.add_list,
    imports.add_import,
    anchors.add_sample,
    anchors.add_validate,
    anchors.add_estimate,
    rotation.add_rotate,
    rotation.add_status,
    fingerprints.add_fingerprints,
    fingerprints.add_contamination,
)
"""Each subcommand's parser, in the order `bench --help` lists them."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = add_command(
        subparsers,
        "bench",
        description="Import a benchmark, draw and validate its anchor sample, rotate its held-out set, "
        "fingerprint its items and check a file for contamination.",
    )
    commands = parser.add_subparsers(dest="bench_command", metavar="SUBCOMMAND", required=True)
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(commands)
