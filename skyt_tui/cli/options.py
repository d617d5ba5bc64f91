"""Options several commands share, defined once: `--json` and `--tau`."""

from __future__ import annotations

import argparse

from skyt_tui.cli.output import JSON_HELP
from skyt_tui.engine.errors import InputError


def add_json_option(parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup) -> None:
    parser.add_argument("--json", action="store_true", help=JSON_HELP)


def add_tau_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tau",
        metavar="TAU",
        help="distance threshold of P_tau, in [0, 1] (default: run.tau in settings.toml, else 0.1)",
    )


def tau_of(args: argparse.Namespace) -> float:
    """`--tau` as a number in [0, 1], or the settings' default when it was not given."""
    if args.tau is None:
        from skyt_tui.engine.settings import load_settings

        return load_settings().run.tau
    try:
        value = float(args.tau)
    except ValueError:
        raise InputError(f"--tau must be a number, not {args.tau!r}") from None
    if not 0.0 <= value <= 1.0:
        raise InputError(f"--tau must be within [0, 1], not {value:g}")
    return value


SANDBOX_ENV = "SKYT_SANDBOX"
"""The sandbox's own override of "auto" isolation (`skyt_tui.engine.sandbox.ENV_VAR`)."""


def apply_isolation_setting() -> None:
    """Make settings.toml's `run.isolation` what "auto" means for this process and the
    analysis it starts, unless SKYT_SANDBOX already says so."""
    import os

    from skyt_tui.engine.settings import load_settings

    isolation = load_settings().run.isolation
    if isolation != "auto" and not os.environ.get(SANDBOX_ENV):
        os.environ[SANDBOX_ENV] = isolation


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """--contract and --map, shared by `analyze` and `import`."""
    parser.add_argument(
        "--contract",
        metavar="ID",
        help="judge every sample by this contract instead of the one it was generated under "
        "(the report says so)",
    )
    parser.add_argument(
        "--map",
        metavar="KEY=FIELD,...|FILE.toml",
        help="field names of your own JSON/JSONL sample records: run, task, code, model, "
        "temperature, sample (e.g. task=problem,code=output.text)",
    )
