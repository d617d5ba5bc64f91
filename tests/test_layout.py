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


def test_version_and_module_entry_point():
    out = subprocess.run(
        [sys.executable, "-m", "skyt_tui", "--version"], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.startswith("skyt-tui ")
