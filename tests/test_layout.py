"""The architecture rules that keep the engine reusable and the app thin."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_engine_never_imports_textual():
    code = (
        "import sys, pkgutil, importlib, skyt_tui.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'skyt_tui.engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "assert 'textual' not in sys.modules, 'engine imported textual'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_the_app_starts_without_the_analysis_pipeline_or_numpy():
    """The first screen only reads the store; the pipeline, numpy and the other sections load when used
    (bench/app_start.py measures the start; this keeps a stray import from undoing it)."""
    heavy = (
        "numpy",
        "skyt_tui.engine.analysis.pipeline",
        "skyt_tui.engine.oracle.judge",
        "skyt_tui.engine.repair",
        "skyt_tui.engine.benchmark",
        "skyt_tui.engine.generation.runner",
        "skyt_tui.ui.screens.heatmap",
        "ray",
    )
    code = (
        "import sys, skyt_tui.ui.app, skyt_tui.ui.screens.contracts, skyt_tui.ui.screens.welcome\n"
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.strip() == ""


def test_version_and_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert out.stdout.startswith("skyt-tui ")
