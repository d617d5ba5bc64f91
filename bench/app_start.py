"""App start: launch to first screen painted, and memory with 10,000 stored samples in the Runs screen.

    python bench/app_start.py [--repeat 5] [--samples 10000] [--json]

Start time, each in a fresh interpreter, median of --repeat:
- baseline: `python -c pass` (the interpreter alone) and `python -c "import textual.app"`;
- headless: `SkytApp` run headless until Textual's `Ready` event, which it
  sends once the DOM is ready and the first frame has been rendered;
- terminal: `python -m skyt_tui` in a pseudo-terminal (80×24) until its
  first screen (the footer's "Quit") has been written to the terminal.
Target: under 1 s.

Bytecode: the package is compiled first (`compileall`), as Python itself does
on a first import unless PYTHONDONTWRITEBYTECODE is set (this machine sets
it, and without compiled files every start compiles the sources again:
about 0.2 s more).

Memory and responsiveness: a store with --samples samples in stored runs of
100 (made with `runs.create_run`, provider "replay", uncached), the app
started headless on the Runs section: peak RSS, when the first rows show, the
mean time of a cursor move (a Pilot key press) while the analysis runs in its
child process and after it, against the same key press on a plain 100-row
DataTable in the same process (Pilot's own cost).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 1.0

HEADLESS_CHILD = """
import json, sys, time
from pathlib import Path
import skyt_tui.ui.app
from skyt_tui.ui.app import SkytApp

class Timed(SkytApp):
    CSS_PATH = str(Path(skyt_tui.ui.app.__file__).with_name(SkytApp.CSS_PATH))

    def on_ready(self) -> None:
        self.ready_at = time.time()
        self.first_screen = type(self.screen).__name__
        self.exit()

app = Timed()
app.run(headless=True, size=(80, 24))
print(json.dumps({"ready": app.ready_at, "screen": app.first_screen}))
"""

RUNS_CHILD = """
import asyncio, json, resource, sys, time
from textual.app import App
from textual.widgets import DataTable
from skyt_tui.ui.app import SkytApp

MOVES = 50

async def per_move(pilot, key):
    start = time.perf_counter()
    for _ in range(MOVES):
        await pilot.press(key)
    await pilot.pause()
    return (time.perf_counter() - start) / MOVES

class Bare(App):
    def compose(self):
        yield DataTable()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns(*"abcdefghi")
        for row in range(100):
            table.add_row(*[str(row)] * 9)
        table.focus()

async def main() -> None:
    async with Bare().run_test(size=(120, 40)) as pilot:  # what a key press costs Pilot itself
        await pilot.pause()
        baseline = await per_move(pilot, "down")
    app = SkytApp(start="runs")
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        while not sum(table.row_count for table in screen.query("DataTable")):
            await pilot.pause(0.01)
        shown = time.perf_counter() - started
        during = await per_move(pilot, "down")
        analysed_during = len(screen.analyses)
        await app.workers.wait_for_complete()
        await pilot.pause()
        analysed_s = time.perf_counter() - started
        idle = await per_move(pilot, "up")
        rows = sum(table.row_count for table in screen.query("DataTable"))
    print(json.dumps({"screen": type(screen).__name__, "rows": rows, "shown_s": shown, "baseline_move_s": baseline,
                      "move_during_analysis_s": during, "analysed_during_moves": analysed_during,
                      "analysed": len(screen.analyses), "all_analysed_s": analysed_s, "move_after_analysis_s": idle,
                      "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))

asyncio.run(main())
"""

PROGRAMS = [
    "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "def fibonacci(n):\n    if n <= 0:\n        return 0\n    a, b = 0, 1\n    for _ in range(n - 1):\n        a, b = b, a + b\n    return b\n",
    "def fibonacci(n):\n    x, y = 0, 1\n    i = 0\n    while i < n:\n        x, y = y, x + y\n        i += 1\n    return x\n",
]


def child_env(home: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SKYT_HOME": home,
        "TERM": "xterm-256color",
        "COLUMNS": "80",
        "LINES": "24",
    }


def child_script(source: str, directory: str) -> str:
    """Textual reads an App subclass's source file, so a child's code lives in a file."""
    path = Path(directory) / f"child_{abs(hash(source))}.py"
    path.write_text(source)
    return str(path)


def interpreter_start(code: str, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def headless_start(env: dict[str, str], script: str) -> tuple[float, str]:
    start = time.time()
    result = subprocess.run(
        [sys.executable, script], env=env, check=True, capture_output=True, text=True, cwd=ROOT
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    return report["ready"] - start, report["screen"]


def terminal_start(
    env: dict[str, str], timeout: float = 20.0, argv: list[str] | None = None
) -> float | None:
    """Seconds from exec to the first screen's footer in a real pseudo-terminal; None if never seen.

    `argv` is the command (default `python -m skyt_tui`; bench/cli_start.py passes the console script)."""
    argv = argv or [sys.executable, "-m", "skyt_tui"]
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.chdir(ROOT)
        os.execve(argv[0], argv, env)
    seen = b""
    painted = None
    try:
        while time.perf_counter() - start < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", seen)
            if b"Quit" in text:
                painted = time.perf_counter() - start
                break
        os.write(fd, b"q")
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    os.read(fd, 65536)
                except OSError:
                    pass
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return painted


def make_store(home: str, samples: int, per_run: int = 100) -> int:
    """Stored runs of `per_run` replayed samples each, through the engine's own run writer."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from skyt_tui.engine.contracts.catalog import get_contract\n"
        "from skyt_tui.engine.runs.run_store import SampleRecord, create_run, COMPLETE\n"
        f"programs = {PROGRAMS!r}\n"
        "contract = get_contract('fibonacci_iterative')\n"
        f"total, per_run = {samples}, {per_run}\n"
        "for run in range(0, total, per_run):\n"
        "    n = min(per_run, total - run)\n"
        "    records = [SampleRecord(index=i, status='ok', response=programs[(run + i) % 3], code=programs[(run + i) % 3])\n"
        "               for i in range(n)]\n"
        "    create_run(contract_id=contract.id, contract=contract, provider='replay', model='bench', temperature=0.7,\n"
        "               n=n, samples=records, status=COMPLETE, label=f'bench {run // per_run}')\n"
    )
    subprocess.run([sys.executable, "-c", code], env=child_env(home), check=True, cwd=ROOT)
    return -(-samples // per_run)


def runs_screen(home: str, timeout: float = 300.0) -> dict:
    result = subprocess.run(
        [sys.executable, child_script(RUNS_CHILD, home)],
        env=child_env(home),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=timeout,
    )
    if result.returncode != 0:
        return {
            "error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed"
        }
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures: dict = {
        "load_average_at_start": os.getloadavg()[0],
        "target_s": TARGET_S,
        "repeat": args.repeat,
    }
    # the bundled examples include unparseable samples on purpose
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "-x", "/bundled/", str(ROOT / "skyt_tui")],
        check=True,
        capture_output=True,
    )
    with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
        env = child_env(home)
        figures["python_pass_s"] = statistics.median(
            interpreter_start("pass", env) for _ in range(args.repeat)
        )
        figures["import_textual_s"] = statistics.median(
            interpreter_start("import textual.app", env) for _ in range(args.repeat)
        )
        script = child_script(HEADLESS_CHILD, home)
        headless = [headless_start(env, script) for _ in range(args.repeat)]
        figures["headless_first_frame_s"] = statistics.median(seconds for seconds, _ in headless)
        figures["first_screen"] = headless[0][1]
        terminal = [terminal_start(env) for _ in range(args.repeat)]
        figures["terminal_first_screen_s"] = (
            statistics.median(t for t in terminal if t is not None)
            if any(t is not None for t in terminal)
            else None
        )
    with tempfile.TemporaryDirectory(prefix="skyt-bench-home-") as home:
        start = time.perf_counter()
        figures["stored_runs"] = make_store(home, args.samples)
        figures["store_build_s"] = time.perf_counter() - start
        figures["stored_samples"] = args.samples
        figures["runs_screen"] = runs_screen(home)
    figures["load_average_at_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
        return 0
    print(report(figures))
    return 0


def report(figures: dict) -> str:
    base = figures["python_pass_s"]
    headless = figures["headless_first_frame_s"]
    terminal = figures["terminal_first_screen_s"]
    lines = [
        f"app start, median of {figures['repeat']} fresh interpreters, load average "
        f"{figures['load_average_at_start']:.1f}:",
        f"  python -c pass (baseline):            {base * 1000:6.0f} ms",
        f"  python -c 'import textual.app':       {figures['import_textual_s'] * 1000:6.0f} ms",
        f"  SkytApp headless, launch to first frame: {headless * 1000:6.0f} ms ({headless / base:.1f}x the bare "
        f"interpreter; first screen {figures['first_screen']})",
    ]
    if terminal is not None:
        lines.append(
            f"  skyt-tui in an 80x24 pty, launch to first screen written: {terminal * 1000:6.0f} ms"
        )
    worst = max(headless, terminal or 0.0)
    lines.append(
        f"  target under {figures['target_s']:.0f} s: {'met' if worst < figures['target_s'] else 'NOT met'}"
    )
    runs = figures["runs_screen"]
    lines.append(
        f"Runs screen with {figures['stored_samples']} stored samples in {figures['stored_runs']} runs "
        f"(store built in {figures['store_build_s']:.1f} s):"
    )
    if "error" in runs:
        lines.append(f"  app failed: {runs['error']}")
    else:
        baseline = runs["baseline_move_s"]
        lines += [
            f"  first rows shown after {runs['shown_s']:.2f} s; {runs['rows']} table rows; all {runs['analysed']} "
            f"analyses in after {runs['all_analysed_s']:.1f} s (child process, uncached)",
            f"  a cursor move (Pilot key press, mean of 50): plain 100-row DataTable (baseline) "
            f"{baseline * 1000:.0f} ms;",
            f"    Runs screen while the analysis runs {runs['move_during_analysis_s'] * 1000:.0f} ms "
            f"({runs['move_during_analysis_s'] / baseline:.1f}x; {runs['analysed_during_moves']} runs analysed by then), "
            f"after it {runs['move_after_analysis_s'] * 1000:.0f} ms ({runs['move_after_analysis_s'] / baseline:.1f}x)",
            f"  peak RSS of the app process {runs['max_rss_mb']:.0f} MB",
        ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
