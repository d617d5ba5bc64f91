"""Install time and size: skyt-tui alone against skyt-tui with its `plots` extra (matplotlib).

    python bench/install_time.py [--rounds 2] [--json]

Each round makes two fresh virtual environments and installs this tree into them with pip,
`pip install TREE` and `pip install 'TREE[plots]'`, interleaved (A B A B …) so a busy machine
weighs on both alike; the venv's own creation is not timed. Prints the median seconds of each,
their ratio, what the extra adds to site-packages, and the load average. It decides whether the
figures of `study report --figures` belong in the default install (issue 27.5): they stay an
extra when they add much to a plain install that most users (who never draw a figure) pay.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def site_packages_size(venv: Path) -> int:
    total = 0
    for directory, _, files in os.walk(venv / "lib"):
        for name in files:
            total += os.path.getsize(os.path.join(directory, name))
    return total


def install(spec: str, workdir: Path) -> tuple[float, int]:
    venv = Path(tempfile.mkdtemp(dir=workdir))
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-cache-dir"]
    started = time.perf_counter()
    subprocess.run([*pip, spec], check=True, cwd=workdir)
    took = time.perf_counter() - started
    size = site_packages_size(venv)
    shutil.rmtree(venv, ignore_errors=True)
    return took, size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    times: dict[str, list[float]] = {"plain": [], "plots": []}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        # a copy of the tree, so pip's build leaves nothing in the repository
        tree = Path(scratch) / "tree"
        shutil.copytree(
            ROOT, tree, ignore=shutil.ignore_patterns(".git", "site", "*.egg-info", "__pycache__")
        )
        for _ in range(args.rounds):
            for name, spec in (("plain", str(tree)), ("plots", f"{tree}[plots]")):
                took, size = install(spec, Path(scratch))
                times[name].append(took)
                sizes[name] = size
    figures = {
        "load_average": [load_before, os.getloadavg()[0]],
        "rounds": args.rounds,
        "plain_s": statistics.median(times["plain"]),
        "plots_s": statistics.median(times["plots"]),
        "ratio": statistics.median(times["plots"]) / statistics.median(times["plain"]),
        "plain_mb": sizes["plain"] / 1e6,
        "extra_mb": (sizes["plots"] - sizes["plain"]) / 1e6,
        "all_s": times,
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(
        f"pip install (median of {args.rounds}, interleaved; load {load_before:.1f} → "
        f"{figures['load_average'][1]:.1f})"
    )
    print(f"  skyt-tui          {figures['plain_s']:6.1f} s   {figures['plain_mb']:6.0f} MB")
    print(
        f"  skyt-tui[plots]   {figures['plots_s']:6.1f} s   +{figures['extra_mb']:5.0f} MB   "
        f"× {figures['ratio']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
