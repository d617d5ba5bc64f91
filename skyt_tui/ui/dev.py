"""Development path: draw recorded samples in the app before stored runs are connected.

    python -m skyt_tui.ui.dev SOURCE... [--level nodoc] [--section heatmap]

SOURCE is anything `skyt-tui analyze` reads (SKYT experiment files or folders,
human-eval folders, JSONL of samples); each run is analyzed and handed to the app.
"""

from __future__ import annotations

import argparse
import sys

from skyt_tui.engine.analysis.pipeline import analyze_run
from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.measure.normalize import LEVELS
from skyt_tui.engine.sources.recorded import load_sources, resolve_contracts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m skyt_tui.ui.dev", description=__doc__.splitlines()[0]
    )
    parser.add_argument("sources", nargs="+", metavar="SOURCE")
    parser.add_argument("--level", choices=LEVELS, default="nodoc")
    parser.add_argument("--section", default="heatmap")
    args = parser.parse_args(argv)
    try:
        runs = resolve_contracts(load_sources(args.sources), require=False)
        analyses = [analyze_run(run, level=args.level) for run in runs]
    except SkytError as exc:
        print(f"skyt-tui: error: {exc}", file=sys.stderr)
        return exc.exit_code
    from skyt_tui.ui.app import run_app

    return run_app(analyses=analyses, start=args.section)


if __name__ == "__main__":
    sys.exit(main())
