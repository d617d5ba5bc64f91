"""Render each screen of the app to `screenshots/<name>.svg` with `run_test` + `save_screenshot`.

    python scripts/screenshots.py [--out screenshots] [--size 120x36]

The data: a fresh demo store (`skyt-tui demo --now 2026-01-15T09:00:00+00:00` in a
temporary SKYT_HOME: six runs of hand-written examples, their canons, the bundled
contracts as a benchmark; the fibonacci_iterative run probed with `probe run`, its
families shown as probed and as if probed by an older probe version) and a fixed
"today" for the app, so the pictures only
change when the app or the demo does. The oracle's isolation is whatever this
machine offers (bubblewrap, or "reduced isolation" where it is missing).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_NOW = "2026-01-15T09:00:00+00:00"
TODAY = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.UTC)
RUN_DETAIL = (
    "2",
    "down",
    "down",
    "down",
    "enter",
    "down",
    "down",
    "down",
    "down",
    "down",
    "down",
    "down",
    "v",
)
"""Runs → the fibonacci_iterative run → sample 7 → its diff against the canon."""
FAMILIES_RUN = "20260115-090002-fibonacci_iterative-85e4"
FAMILIES = ("down", "down", "down", "enter", "f")
"""Runs → the fibonacci_iterative run (probed) → its solution families."""

SHOTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("contracts", "contracts", ()),
    ("run-dialog", "contracts", ("r", "y")),  # the demo offers to open your own store to run
    ("runs", "runs", ()),
    ("run-detail", "contracts", RUN_DETAIL),
    ("canon", "canon", ()),
    ("heatmap", "heatmap", ("down", "down", "down", "right")),
    ("heatmap-diff", "heatmap", ("down", "down", "down", "right", "enter")),
    ("benchmark", "benchmark", ()),
    ("benchmark-rotate", "benchmark", ("r",)),
    ("help", "runs", ("question_mark",)),
)


async def settle(pilot) -> None:
    from textual.worker import WorkerState

    for _ in range(20):
        await pilot.pause()
        if not any(
            worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
            for worker in pilot.app.workers
        ):
            return
        await pilot.app.workers.wait_for_complete()


async def shoot(app, keys: tuple[str, ...], name: str, out: Path, size: tuple[int, int]) -> Path:
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        return Path(app.save_screenshot(f"{name}.svg", str(out)))


async def shoot_all(out: Path, size: tuple[int, int], home: Path) -> list[Path]:
    from skyt_tui.ui.app import SkytApp

    def today() -> dt.datetime:
        return TODAY

    empty = home / "empty"
    os.environ["SKYT_HOME"] = str(empty)
    written = [await shoot(SkytApp(clock=today), (), "welcome", out, size)]
    os.environ["SKYT_HOME"] = str(home / "demo")
    for name, section, keys in SHOTS:
        written.append(await shoot(SkytApp(start=section, clock=today), keys, name, out, size))
    written.append(await shoot(SkytApp(start="runs", clock=today), FAMILIES, "families", out, size))
    probe = home / "demo" / "demo" / "runs" / FAMILIES_RUN / "probe.json"
    document = json.loads(probe.read_text())
    document["key"]["probe_version"] = "probe-3"  # as a probe stored before probe-4 reads
    probe.write_text(json.dumps(document))
    written.append(
        await shoot(SkytApp(start="runs", clock=today), FAMILIES, "families-older-probe", out, size)
    )
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--size", default="120x36", help="terminal size, WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="skyt-screens-") as tmp:
        home = Path(tmp)
        env = {**os.environ, "SKYT_HOME": str(home / "demo"), "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [sys.executable, "-m", "skyt_tui", "demo", "--now", DEMO_NOW],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        subprocess.run(
            [sys.executable, "-m", "skyt_tui", "probe", "run", FAMILIES_RUN],
            cwd=ROOT,
            env={**env, "SKYT_STORE": "demo"},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for path in asyncio.run(shoot_all(args.out, (width, height), home)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
