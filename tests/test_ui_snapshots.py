"""How each screen looks, at 120×36 (and 80×24), compared with committed SVG snapshots.

Update after an intended change with `python3 -m pytest tests/test_ui_snapshots.py --snapshot-update`
and look at the new SVGs before committing them. The data is the bundled contracts and the
hand-written runs in tests/fixtures (no clocks, no randomness); the store is empty.
"""

import pytest

from skyt_tui.ui.app import SkytApp
from tests.ui_support import sample_analyses

WIDE = (120, 36)
SMALL = (80, 24)


def app_at(section: str) -> SkytApp:
    return SkytApp(analyses=sample_analyses() if section == "heatmap" else (), start=section)


@pytest.mark.parametrize("section", ["welcome", "contracts", "runs", "canon", "heatmap", "benchmark"])
def test_section(section, snap_compare):
    assert snap_compare(app_at(section), terminal_size=WIDE)


def test_heatmap_cursor_and_status(snap_compare):
    assert snap_compare(app_at("heatmap"), terminal_size=WIDE, press=["down", "down", "down", "right"])


def test_heatmap_pair_diff(snap_compare):
    assert snap_compare(app_at("heatmap"), terminal_size=WIDE, press=["down", "down", "down", "right", "enter"])


def test_heatmap_light_theme(snap_compare):
    assert snap_compare(app_at("heatmap"), terminal_size=WIDE, press=["t"])


def test_run_dialog(snap_compare):
    assert snap_compare(app_at("contracts"), terminal_size=WIDE, press=["r"])


def test_help(snap_compare):
    assert snap_compare(app_at("contracts"), terminal_size=WIDE, press=["question_mark"])


@pytest.mark.parametrize("section", ["welcome", "contracts", "heatmap"])
def test_small_terminal(section, snap_compare):
    assert snap_compare(app_at(section), terminal_size=SMALL)


def test_heatmap_no_color_glyphs(snap_compare, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(app_at("heatmap"), terminal_size=WIDE, press=["down", "right"])
