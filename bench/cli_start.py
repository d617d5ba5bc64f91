"""CLI start-up: `skyt-tui --version`, `--help` and the app's first screen against `python -c pass`.

    python bench/cli_start.py [--repeat 15] [--json]

Each measurement is a fresh process; the four commands are run interleaved
(pass, --version, --help, app, pass, ...) so a busy neighbour on this shared
machine slows all of them alike, and the medians are printed as ratios to the
bare interpreter, with the load average before and after:

- `python -c pass`: the interpreter alone, the floor of any Python CLI;
- `skyt-tui --version`, `skyt-tui --help`: the installed console script
  (this interpreter's `bin/skyt-tui`, run with PYTHONPATH at this checkout);
- app, headless: the bare `skyt-tui` with SKYT_TUI_EXIT_WHEN_READY=1, which runs the
  app headless and exits once its first screen is ready (Textual's Ready: DOM
  mounted, first frame rendered) on an empty store;
- app, terminal (`--terminal`, fewer repeats): the bare `skyt-tui` in an 80x24
  pseudo-terminal until its first screen has been written (bench/app_start.py's
  measurement, through the console script).

Bytecode is compiled first (`compileall`), as a first import would do.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def console_script() -> list[str]:
    script = Path(sys.executable).parent / "skyt-tui"
    if script.exists():
        return [sys.executable, str(script)]
    return [sys.executable, "-c", "import sys; from skyt_tui.cli import main; sys.exit(main())"]


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command (default 15)")
    parser.add_argument(
        "--terminal", type=int, default=3, metavar="N", help="pty app starts (default 3; 0: none)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    compileall.compile_dir(ROOT / "skyt_tui", quiet=1, rx=re.compile(r"[/\\]bundled[/\\]"))
    home = tempfile.mkdtemp(prefix="skyt-cli-start-")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKYT_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = console_script()
    commands = {
        "python_pass": [sys.executable, "-c", "pass"],
        "version": [*script, "--version"],
        "help": [*script, "--help"],
        "app_headless": script,
    }
    envs = {name: env for name in commands}
    envs["app_headless"] = {**env, "SKYT_TUI_EXIT_WHEN_READY": "1"}
    load_before = os.getloadavg()[0]
    for name, command in commands.items():  # warm the page cache once
        timed(command, envs[name])
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            times[name].append(timed(command, envs[name]))
    terminal: list[float] = []
    if args.terminal:
        from app_start import terminal_start

        for _ in range(args.terminal):
            seconds = terminal_start(env, argv=script)
            if seconds is not None:
                terminal.append(seconds)
    load_after = os.getloadavg()[0]
    medians = {name: statistics.median(values) for name, values in times.items()}
    if terminal:
        medians["app_terminal"] = statistics.median(terminal)
    base = medians["python_pass"]
    report = {
        "repeat": args.repeat,
        "terminal_repeat": len(terminal),
        "median_s": medians,
        "ratio_to_python_pass": {name: value / base for name, value in medians.items()},
        "load_average_before": load_before,
        "load_average_after": load_after,
        "cores": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    labels = {
        "python_pass": "python -c pass",
        "version": "skyt-tui --version",
        "help": "skyt-tui --help",
        "app_headless": "skyt-tui (app, headless, first screen ready)",
        "app_terminal": "skyt-tui (app, 80x24 pty, first screen written)",
    }
    print(
        f"CLI start, median of {args.repeat} interleaved runs ({len(terminal)} for the pty), "
        f"{os.cpu_count()} cores, load average {load_before:.1f} before, {load_after:.1f} after"
    )
    for name, value in medians.items():
        print(f"  {labels[name]:<50} {value * 1000:7.0f} ms  {value / base:5.1f}x python -c pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
