"""Render each screen of the app to `screenshots/<name>.svg` with `run_test` + `save_screenshot`.

    python scripts/screenshots.py [--out screenshots] [--size 120x36]

The data: the bundled contracts and, for the heatmap, the hand-written sample
runs in `tests/fixtures/fibonacci_samples.jsonl`, in a fresh temporary store.
When `skyt-tui demo` exists this script should fill that store with the demo
instead, so Runs, Canon and Benchmark are shown filled too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "fibonacci_samples.jsonl"

SHOTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("welcome", "welcome", ()),
    ("contracts", "contracts", ()),
    ("run-dialog", "contracts", ("r",)),
    ("runs", "runs", ()),
    ("canon", "canon", ()),
    ("heatmap", "heatmap", ("down", "down", "down", "right")),
    ("heatmap-diff", "heatmap", ("down", "down", "down", "right", "enter")),
    ("benchmark", "benchmark", ()),
    ("help", "contracts", ("question_mark",)),
)


async def shoot(out: Path, size: tuple[int, int]) -> list[Path]:
    from skyt_tui.engine.analysis import analyze_run
    from skyt_tui.engine.sources import load_samples_jsonl
    from skyt_tui.ui.app import SkytApp

    analyses = [analyze_run(run) for run in load_samples_jsonl(SAMPLES)]
    written = []
    for name, section, keys in SHOTS:
        app = SkytApp(analyses=analyses if section == "heatmap" else (), start=section)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
            await pilot.pause()
            written.append(Path(app.save_screenshot(f"{name}.svg", str(out))))
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--size", default="120x36", help="terminal size, WIDTHxHEIGHT")
    args = parser.parse_args()
    width, height = (int(part) for part in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="skyt-screens-") as home:
        os.environ["SKYT_HOME"] = home
        for path in asyncio.run(shoot(args.out, (width, height))):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
