"""An app that never looks empty or stale, and a dead server that costs nothing (issue 27).

    python bench/runs_freshness.py [--runs 1000] [--rounds 2] [--baseline main] [--json]

Three figures, each measured for this tree and for the tree at `--baseline` (git archive),
interleaved round by round, with the load average:

- first rows: a store of --runs stored runs nobody has analysed (20 samples each, made with the
  engine's own run writer, copied fresh for every start); `python -m skyt_tui` in a real terminal
  (tmux, 120×36), `2` pressed once the first screen shows; seconds from the key to the Runs list
  showing rows under its header (first rows), and to its header counting every run (all rows);
- another process's run: with that list open and its analyses still running, `skyt-tui import`
  of two runs in another process; seconds from the import's exit to the list counting them
  (capped at --cap seconds: the baseline never shows them while it analyses);
- dead server: `skyt-tui run fibonacci_iterative -n 12` against a local port nothing listens at,
  with the default retry policy; seconds until the command exits (capped at --cap).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SAMPLES = ROOT / "tests" / "fixtures" / "fibonacci_samples.jsonl"

PROGRAMS = [
    "def fibonacci(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "def fibonacci(n):\n    if n <= 0:\n        return 0\n    a, b = 0, 1\n    for _ in range(n - 1):\n        a, b = b, a + b\n    return b\n",
    "def fibonacci(n):\n    x, y = 0, 1\n    i = 0\n    while i < n:\n        x, y = y, x + y\n        i += 1\n    return x\n",
]


def tree_at(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def env_for(tree: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYTHONPATH": str(tree), "SKYT_HOME": str(home), "TERM": "xterm-256color"})
    env.pop("OPENAI_BASE_URL", None)
    return env


def make_store(home: Path, runs: int) -> None:
    """`runs` complete runs of 20 replayed samples each, unanalysed, through `create_run`."""
    code = (
        "from skyt_tui.engine.contracts.catalog import get_contract\n"
        "from skyt_tui.engine.runs.run_store import SampleRecord, create_run, COMPLETE\n"
        f"programs = {PROGRAMS!r}\n"
        "contract = get_contract('fibonacci_iterative')\n"
        f"for run in range({runs}):\n"
        "    records = [SampleRecord(index=i, status='ok', response=programs[(run + i) % 3],\n"
        "               code=programs[(run + i) % 3]) for i in range(20)]\n"
        "    create_run(contract_id=contract.id, contract=contract, provider='replay',\n"
        "               model=f'model-{run % 5}', temperature=0.7, n=20, samples=records,\n"
        "               status=COMPLETE)\n"
    )
    subprocess.run([sys.executable, "-c", code], env=env_for(ROOT, home), check=True, cwd=ROOT)


class Pane:
    def __init__(self, command: str, env: dict[str, str]) -> None:
        self.socket = f"skyt-bench-{os.getpid()}"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items() if k.isidentifier())
        line = f"export {exports} && {command}"
        subprocess.run(
            ["tmux", "-L", self.socket, "new-session", "-d", "-s", "b", "-x", "120", "-y", "36"]
            + [line],
            check=True,
        )

    def text(self) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p", "-t", "b"],
            capture_output=True,
            text=True,
        )
        return done.stdout

    def send(self, keys: str) -> None:
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "b", keys], check=True)

    def wait(self, seen, cap: float) -> float | None:
        began = time.perf_counter()
        while time.perf_counter() - began < cap:
            if seen(self.text()):
                return time.perf_counter() - began
            time.sleep(0.05)
        return None

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def counts_runs(text: str, runs: int | None = None) -> bool:
    """The Runs list's header counts `runs` (any number if None): "40 runs", "1 run", or as trees
    before issue 36 said it, "40 run(s)"."""
    number = r"\d+" if runs is None else str(runs)
    return re.search(rf"\b{number} run(s|\(s\))?\b", text) is not None


def rows_shown(text: str) -> bool:
    """The Runs list's header ("40 runs read so far…", or every run's count) with a row under it."""
    lines = text.splitlines()
    head = [i for i, line in enumerate(lines) if counts_runs(line) and "newest first" in line]
    return bool(head) and any("fibonacci_iterat" in line for line in lines[head[0] :])


def app_round(tree: Path, store: Path, runs: int, cap: float) -> dict[str, float | None]:
    home = Path(tempfile.mkdtemp(prefix="skyt-bench-home-"))
    shutil.rmtree(home)
    shutil.copytree(store, home)
    env = env_for(tree, home)
    pane = Pane(f"cd {shlex.quote(str(tree))} && {shlex.quote(sys.executable)} -m skyt_tui", env)
    try:
        if pane.wait(lambda text: "Quit" in text, 120) is None:
            return {"first_rows_s": None, "all_rows_s": None, "other_process_row_s": None}
        pane.send("2")
        first = pane.wait(rows_shown, cap)
        whole = (
            pane.wait(lambda text: counts_runs(text, runs) and "newest" in text, cap)
            if first
            else None
        )
        other = None
        if whole is not None:
            done = subprocess.run(
                [sys.executable, "-m", "skyt_tui", "import", str(SAMPLES)],
                env=env,
                cwd=tree,
                capture_output=True,
            )
            if done.returncode == 0:
                other = pane.wait(lambda text: counts_runs(text, runs + 2), cap)
        all_rows = None if first is None or whole is None else first + whole
        return {"first_rows_s": first, "all_rows_s": all_rows, "other_process_row_s": other}
    finally:
        pane.send("q")
        time.sleep(0.5)
        pane.close()
        shutil.rmtree(home, ignore_errors=True)


def dead_server_round(tree: Path, cap: float) -> float | None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = Path(tempfile.mkdtemp(prefix="skyt-bench-dead-"))
    argv = [sys.executable, "-m", "skyt_tui", "run", "fibonacci_iterative", "--provider"]
    argv += ["openai", "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1", "-n", "12"]
    began = time.perf_counter()
    try:
        subprocess.run(argv, env=env_for(tree, home), cwd=tree, capture_output=True, timeout=cap)
    except subprocess.TimeoutExpired:
        return None
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return time.perf_counter() - began


def median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if len(known) == len(values) and known else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline", default="main")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds before giving up")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is needed", file=sys.stderr)
        return 2
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "base").mkdir()
        trees = {"this": ROOT, args.baseline: tree_at(args.baseline, Path(scratch) / "base")}
        store = Path(scratch) / "store"
        made = time.perf_counter()
        make_store(store, args.runs)
        made = time.perf_counter() - made
        figures: dict[str, dict[str, list[float | None]]] = {
            name: {
                "first_rows_s": [],
                "all_rows_s": [],
                "other_process_row_s": [],
                "dead_server_s": [],
            }
            for name in trees
        }
        for _ in range(args.rounds):
            for name, tree in trees.items():
                for key, value in app_round(tree, store, args.runs, args.cap).items():
                    figures[name][key].append(value)
                figures[name]["dead_server_s"].append(dead_server_round(tree, args.cap))
                load.append(os.getloadavg()[0])
    summary = {
        name: {key: median(values) for key, values in measured.items()}
        for name, measured in figures.items()
    }
    report = {
        "runs": args.runs,
        "rounds": args.rounds,
        "store_made_s": made,
        "load_average": load,
        "median": summary,
        "all": figures,
    }
    if args.json:
        print(json.dumps(report))
        return 0

    def show(value: float | None) -> str:
        return f"> {args.cap:g} s" if value is None else f"{value:.2f} s"

    print(
        f"{args.runs} stored runs, unanalysed ({made:.0f} s to make); median of {args.rounds} "
        f"interleaved rounds; load average {min(load):.1f}–{max(load):.1f}"
    )
    for key, what in (
        ("first_rows_s", "key 2 → first rows of Runs"),
        ("all_rows_s", "key 2 → every run listed (metrics to come)"),
        ("other_process_row_s", "another process's run → its row"),
        ("dead_server_s", "run -n 12 against a dead server → exit"),
    ):
        this, base = summary["this"][key], summary[args.baseline][key]
        ratio = f"× {this / base:.2f}" if this is not None and base is not None else ""
        print(f"  {what:42} this tree {show(this):>10}   {args.baseline} {show(base):>10}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
