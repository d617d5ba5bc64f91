"""How long a full repaint of the heatmap takes at N=200 (target: under 50 ms).

    python bench/heatmap_render.py [--n 200] [--repeat 20]

Runs the widget in a headless app large enough to show the whole matrix (N
columns, N/2 lines) and times `render_lines` over the widget's full region —
the work Textual does to repaint it, including its style cache:
- cold: every cached strip and style dropped first (new data, zoom or theme);
- cursor move: the cursor moved one cell, the other lines come from the cache;
- scroll: the view moved one column, at 120×36 (N=200 is wider than the screen).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.app import App, ComposeResult  # noqa: E402
from textual.geometry import Region  # noqa: E402

from skyt_tui.ui.widgets.heatmap import Heatmap  # noqa: E402


class BenchApp(App):
    def __init__(self, matrix: np.ndarray) -> None:
        super().__init__()
        self.matrix = matrix

    def compose(self) -> ComposeResult:
        yield Heatmap(self.matrix, glyphs=False, zoom=1)


def random_matrix(n: int, seed: int = 20260119) -> np.ndarray:
    """Worst case for run-length merging: every neighbouring cell a different colour."""
    upper = np.triu(np.random.default_rng(seed).random((n, n)), 1)
    return upper + upper.T


def full_repaint_ms(heatmap: Heatmap, *, cold: bool) -> float:
    if cold:
        heatmap._invalidate()
    heatmap._styles_cache.clear()
    region = Region(0, 0, heatmap.size.width, heatmap.size.height)
    start = time.perf_counter()
    lines = heatmap.render_lines(region)
    elapsed = (time.perf_counter() - start) * 1000
    assert len(lines) == heatmap.size.height
    return elapsed


async def measure(n: int, repeat: int) -> dict[str, list[float]]:
    matrix = random_matrix(n)
    results: dict[str, list[float]] = {"cold": [], "cursor move": [], "scroll (120x36)": []}
    async with BenchApp(matrix).run_test(size=(n + 4, n // 2 + 4)) as pilot:
        heatmap = pilot.app.query_one(Heatmap)
        await pilot.pause()
        assert heatmap.content_rows == (n + 1) // 2 and heatmap.size.width >= n
        for _ in range(repeat):
            results["cold"].append(full_repaint_ms(heatmap, cold=True))
        for step in range(repeat):
            heatmap.move_cursor(step % n, (step * 7) % n)
            results["cursor move"].append(full_repaint_ms(heatmap, cold=False))
    async with BenchApp(matrix).run_test(size=(120, 36)) as pilot:
        heatmap = pilot.app.query_one(Heatmap)
        await pilot.pause()
        for step in range(repeat):
            heatmap.scroll_to(x=step + 1, animate=False, immediate=True)
            await pilot.pause()
            results["scroll (120x36)"].append(full_repaint_ms(heatmap, cold=False))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    results = asyncio.run(measure(args.n, args.repeat))
    print(
        f"heatmap full repaint, N={args.n} ({args.n}×{(args.n + 1) // 2} cells on screen), {args.repeat} runs:"
    )
    for name, times in results.items():
        print(
            f"  {name:<16} median {statistics.median(times):6.2f} ms   p90 {p90(times):6.2f} ms   "
            f"max {max(times):6.2f} ms"
        )
    cold = results["cold"]
    verdict = "met" if p90(cold) < 50 else "NOT met"
    print(
        f"target: cold full repaint under 50 ms (p90) — {verdict}; "
        f"{sum(t >= 50 for t in cold)} of {len(cold)} cold runs took 50 ms or more (a busy machine shows as outliers)"
    )
    return 0


def p90(times: list[float]) -> float:
    return statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]


if __name__ == "__main__":
    sys.exit(main())
