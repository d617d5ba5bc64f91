"""The headless command line: `skyt-tui <command> ...`; no command starts the app.

Each command group lives in its own module exposing `register(subparsers)`; the
commands and their one-line help are listed in `commands.COMMANDS`, and a module is
imported only when its command is on the command line. Handlers return an exit code;
a `SkytError` anywhere becomes one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Sequence

from skyt_tui import __version__
from skyt_tui.cli.commands import COMMANDS, command_on_line
from skyt_tui.engine.errors import SkytError


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; only `command`'s module is imported and registers its arguments.

    The other commands are listed with their help, so `skyt-tui --help` imports none.
    """
    parser, subparsers = top_parser()
    chosen = COMMANDS[command].module if command in COMMANDS else None
    for name, entry in COMMANDS.items():
        if entry.module != chosen:
            subparsers.add_parser(name, help=entry.help)
    if chosen is not None:
        importlib.import_module(f"skyt_tui.cli.{chosen}").register(subparsers)
        _describe_subcommands(parser)
    return parser


def _innermost(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the (sub)command `args` chose, however deep."""
    while True:
        chosen = next(
            (
                action.choices[value]
                for action in parser._actions
                if isinstance(action, argparse._SubParsersAction)
                and isinstance(value := getattr(args, action.dest, None), str)
                and value in action.choices
            ),
            None,
        )
        if chosen is None:
            return parser
        parser = chosen


def top_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The top-level parser (`--version`) and its empty table of commands."""
    parser = argparse.ArgumentParser(
        prog="skyt-tui",
        description="Measure and improve the repeatability of LLM code generation. "
        "Without a command, starts the terminal app.",
    )
    parser.add_argument("--version", action="version", version=f"skyt-tui {__version__}")
    return parser, parser.add_subparsers(dest="command", metavar="COMMAND")


def _describe_subcommands(parser: argparse.ArgumentParser) -> None:
    """A subcommand registered with only a one-line `help` gets it as its description too,
    so its own `--help` says what it does."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                if not sub.description and helps.get(name):
                    text = str(helps[name])
                    sub.description = (
                        text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
                    )
                _describe_subcommands(sub)


EXIT_WHEN_READY = "SKYT_TUI_EXIT_WHEN_READY"
"""Set (to anything): the bare `skyt-tui` starts the app headless and exits once its first
screen is ready, printing that screen's name; the start-up test and bench/cli_start.py use it."""


NO_TERMINAL = (
    "the app needs a terminal, and {which} not one here (a pipe, a file or CI); without one, "
    "`skyt-tui runs list` and `skyt-tui report latest` show what its Runs section does, and "
    "`skyt-tui --help` lists every command"
)


def missing_terminal() -> str | None:
    """The one line saying the app cannot start here, or None when stdin and stdout are terminals."""
    missing = [
        name for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)) if not _tty(stream)
    ]
    if not missing:
        return None
    which = f"{missing[0]} is" if len(missing) == 1 else "stdin and stdout are"
    return NO_TERMINAL.format(which=which)


def _tty(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (OSError, ValueError):
        return False


def start_app(notice: str | None = None) -> int:
    """The app in this terminal; `notice` (a settings file moved) is shown in it."""
    if not os.environ.get(EXIT_WHEN_READY):
        if problem := missing_terminal():
            if notice:
                print(f"skyt-tui: note: {notice}", file=sys.stderr)
            print(f"skyt-tui: error: {problem}", file=sys.stderr)
            return 2
        from skyt_tui.ui.app import run_app

        return run_app(notice=notice)
    from skyt_tui.ui.app import SkytApp

    async def exit_when_ready(pilot) -> None:  # type: ignore[no-untyped-def]
        print(type(pilot.app.screen).__name__, flush=True)
        pilot.app.exit()

    app = SkytApp(notice=notice)
    app.run(headless=True, auto_pilot=exit_when_ready)
    return app.return_code or 0


def _quiet_broken_pipe() -> None:
    """The reader of our stdout went away (`| head -1`): stop quietly with exit code 0.

    Python would report the failed flush of stdout at exit; pointing stdout at
    /dev/null first leaves it nothing to flush.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(command_on_line(argv))
    args, extra = parser.parse_known_args(argv)
    if extra:  # said with the usage of the command they were given to, not the top level's
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        from skyt_tui.locations import check_store_env, move_legacy_settings

        check_store_env()  # before any command or the app opens a store
        notice = move_legacy_settings()
        if args.command is None:
            return start_app(notice)
        if notice:
            print(f"skyt-tui: note: {notice}", file=sys.stderr)
        return int(args.handler(args) or 0)
    except SkytError as exc:  # a message may quote a sample's file name: shown printable
        from skyt_tui.engine.printable import printable

        print(f"skyt-tui: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("skyt-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except OSError as exc:
        from skyt_tui.engine.store import WRITE_REFUSED

        if exc.errno in WRITE_REFUSED | PATH_REFUSED and exc.filename is not None:
            # a write the system refused (a read-only store, permissions, a full disk), or a
            # path it cannot use (a name too long, a loop of links), that no reader or writer
            # turned into an error of ours: still one line, exit 2, like every other
            print(f"skyt-tui: error: {refused_write(exc)}", file=sys.stderr)
            return 2
        if sys.platform.startswith("linux"):
            raise  # a bug here: keep the traceback
        print(f"skyt-tui: error: {unsupported_platform(exc)}", file=sys.stderr)
        return 2
    except (AttributeError, ImportError) as exc:
        if sys.platform.startswith("linux"):
            raise  # a bug here: keep the traceback
        print(f"skyt-tui: error: {unsupported_platform(exc)}", file=sys.stderr)
        return 2


PATH_REFUSED = frozenset({errno.ENAMETOOLONG, errno.ELOOP})
"""A path the system cannot use however it is read or written (a name longer than the file
system takes, too many links on the way): the user's to fix, so one line."""


def refused_write(exc: OSError) -> str:
    """`FILE: Permission denied` and the like: what the system refused, and where."""
    from skyt_tui.engine.printable import printable

    return f"{printable(exc.filename)}: {exc.strerror or exc}"


def unsupported_platform(exc: BaseException) -> str:
    """One line for a failure that comes from running outside Linux, which the sandbox needs."""
    return (
        f"skyt-tui runs generated code in a Linux sandbox (namespaces, seccomp, Landlock) and "
        f"does not support {sys.platform}: {type(exc).__name__}: {exc}"
    )
