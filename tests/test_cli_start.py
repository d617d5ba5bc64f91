"""Start-up hygiene through the console-script entry: `--version`, `--help` and the bare
`skyt-tui` that opens the app import neither numpy nor the analysis pipeline."""

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from skyt_tui.cli import EXIT_WHEN_READY, build_parser
from skyt_tui.cli.commands import COMMANDS, command_on_line

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "numpy",
    "scipy",
    "rich.syntax",
    "skyt_tui.engine.analysis.pipeline",
    "skyt_tui.engine.oracle.judge",
    "skyt_tui.engine.sandbox.pool",
    "skyt_tui.engine.repair",
    "skyt_tui.engine.generation.runner",
    "skyt_tui.engine.benchmark",
    "openai",
    "ray",
)


def console_script() -> list[str]:
    """The installed `skyt-tui` script run by this interpreter, or what it runs when the
    package is not installed (the entry point `skyt_tui.cli:main`)."""
    script = Path(sys.executable).parent / "skyt-tui"
    if script.exists():
        return [str(script)]
    [entry] = entry_points(group="console_scripts", name="skyt-tui")
    module, function = entry.value.split(":")
    return ["-c", f"import sys; from {module} import {function}; sys.exit({function}())"]


def imported_by(*args, env_extra=None):
    """Run the console script with `-X importtime`; (result, names of the modules it imported)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env_extra or {})}
    result = subprocess.run(
        [sys.executable, "-X", "importtime", *console_script(), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return result, modules


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["-h"]])
def test_version_and_help_import_no_command_module(argv):
    result, modules = imported_by(*argv)
    assert result.returncode == 0
    assert "skyt_tui.cli" in modules  # the measurement sees our imports at all
    assert not [m for m in HEAVY if m in modules]
    assert not [m for m in modules if m.startswith("skyt_tui.cli.") and m.endswith("_cmd")]
    assert "skyt-tui" in result.stdout


def test_help_lists_every_command():
    result, _ = imported_by("--help")
    for name, command in COMMANDS.items():
        assert name in result.stdout and command.help[:30] in result.stdout


def test_the_bare_command_opens_the_app_without_the_pipeline(isolated_home):
    result, modules = imported_by(env_extra={EXIT_WHEN_READY: "1"})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1].endswith("Screen")
    assert "skyt_tui.ui.app" in modules
    assert not [m for m in HEAVY if m in modules]
    assert not [m for m in modules if m.startswith("skyt_tui.cli.") and m.endswith("_cmd")]


def test_a_command_imports_only_its_own_module():
    code = (
        "import sys\n"
        "from skyt_tui.cli import build_parser\n"
        "build_parser('paths').parse_args(['paths'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.endswith('_cmd'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.split() == ["skyt_tui.cli.paths_cmd"]


def test_every_command_module_registers_exactly_its_commands():
    for name, command in COMMANDS.items():
        parser = build_parser(name)
        [sub] = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        assert sub.choices[name].get_default("handler") is not None or sub.choices[name]._subparsers
        registered = [n for n, c in COMMANDS.items() if c.module == command.module]
        assert set(sub.choices) == set(COMMANDS), name
        for other in registered:
            assert sub.choices[other]._actions[1:], f"{other} has no arguments from its module"


def test_command_on_line():
    assert command_on_line(["--json"]) is None
    assert command_on_line(["report", "latest", "--json"]) == "report"
    assert command_on_line(["--", "run"]) is None
    assert command_on_line([]) is None
