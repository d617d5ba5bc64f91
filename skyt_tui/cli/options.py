"""Options several commands share, defined once: `--json`, `--tau`, `--probe` and its budget."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from skyt_tui.cli.output import JSON_HELP
from skyt_tui.engine.errors import InputError

if TYPE_CHECKING:
    from skyt_tui.engine.probe.behaviour import ProbeSettings


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


def add_probe_options(parser: argparse.ArgumentParser) -> None:
    """--probe and its budget and seed, shared by `oracle`, `analyze` and `run` (docs/probe.md)."""
    parser.add_argument(
        "--probe",
        action="store_true",
        help="also run passing samples (and the reference) on inputs generated from the tests' "
        "inputs, and group them by behaviour (docs/probe.md)",
    )
    parser.add_argument(
        "--probe-inputs",
        metavar="N",
        type=int,
        default=None,
        help="--probe: generated inputs per contract (default 200)",
    )
    parser.add_argument(
        "--probe-seconds",
        metavar="S",
        type=float,
        default=None,
        help="--probe: time budget in seconds; contracts not started by then are not probed "
        "(default 1800)",
    )
    parser.add_argument(
        "--probe-seed", metavar="K", type=int, default=None, help="--probe: seed (default 0)"
    )


def probe_settings_of(args: argparse.Namespace) -> ProbeSettings | None:
    """The `ProbeSettings` the options ask for, or None without --probe (budget options alone are
    an error: they would silently do nothing)."""
    given = [
        name
        for name in ("probe_inputs", "probe_seconds", "probe_seed")
        if getattr(args, name, None) is not None
    ]
    if not getattr(args, "probe", False):
        if given:
            raise InputError(f"--{given[0].replace('_', '-')} needs --probe")
        return None
    from skyt_tui.engine.probe.behaviour import ProbeSettings

    defaults = ProbeSettings()
    inputs = defaults.max_inputs if args.probe_inputs is None else args.probe_inputs
    seconds = defaults.max_seconds if args.probe_seconds is None else args.probe_seconds
    if not 1 <= inputs <= 100_000:
        raise InputError(f"--probe-inputs: must be between 1 and 100000; got {inputs}")
    if not 0 < seconds <= 86_400 or seconds != seconds:
        raise InputError(f"--probe-seconds: must be above 0 and at most 86400; got {seconds:g}")
    seed = defaults.seed if args.probe_seed is None else args.probe_seed
    return ProbeSettings(max_inputs=inputs, max_seconds=seconds, seed=seed)
