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


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """--executor and --ray-address, shared by the commands that run the oracle over many samples."""
    from skyt_tui.engine.executor.choice import EXECUTORS

    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
        default=None,
        help="where the oracle, repair and per-run analysis run: local (this machine) or ray "
        "(an existing Ray cluster, docs/scaling.md); default: run.executor in settings.toml, "
        "else local",
    )
    parser.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        default=None,
        help="the Ray cluster for --executor ray (default: run.ray_address in settings.toml, "
        "else RAY_ADDRESS, else the cluster `ray start` started on this machine)",
    )


def apply_executor(args: argparse.Namespace) -> str:
    """Choose the executor from the command line and settings.toml; with Ray, connect now, so an
    unreachable cluster or a missing extra is one line before any work. Its name."""
    from skyt_tui.engine.executor.choice import choose_executor, current_executor
    from skyt_tui.engine.settings import load_settings

    defaults = load_settings().run
    kind = args.executor or defaults.executor
    if args.ray_address is not None and kind != "ray":
        raise InputError("--ray-address applies to --executor ray")
    choose_executor(kind, args.ray_address or defaults.ray_address)
    if kind == "ray":
        current_executor()
    return str(kind)


def executor_lines(judge: object = None) -> list[str]:
    """Where the work runs when it is not this machine: the cluster, then one line per node and
    its isolation (of `judge`, else of the shared oracle); nothing for the local executor."""
    from skyt_tui.engine.executor.choice import chosen_executor, current_executor

    if chosen_executor()[0] == "local":
        return []
    return current_executor().describe(judge)


def print_executor(lines: list[str]) -> None:
    """`executor_lines` on stderr (stdout stays what the local executor prints)."""
    from skyt_tui.cli.output import error_console
    from skyt_tui.engine.printable import printable

    out = error_console()
    for line in lines:
        out.print(printable(line), markup=False, highlight=False, soft_wrap=True, style="dim")
