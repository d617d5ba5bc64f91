"""Issue 27.8: what the docs and the app say about the app's sections is what the app has."""

from __future__ import annotations

import re

from skyt_tui.ui.app import SkytApp
from skyt_tui.ui.widgets.section_bar import SECTIONS
from tests.run_helpers import ROOT
from tests.ui_support import pilot_test, screen_text, settle


def test_docs_app_lists_every_section_key():
    doc = (ROOT / "docs" / "app.md").read_text()
    [row] = [line for line in doc.splitlines() if line.startswith("| `1`–")]
    assert row.startswith(f"| `1`–`{len(SECTIONS)}` |"), row
    titles = [title for _, title in SECTIONS]
    assert re.findall(r"\b(" + "|".join(titles) + r")\b", row) == titles, row
    for number, (_, title) in enumerate(SECTIONS, start=1):
        assert f"**{number}. {title}**" in doc, f"docs/app.md has no section {number}. {title}"


@pilot_test
async def test_the_welcome_page_names_every_section_key():
    app = SkytApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.current_mode == "welcome"
        assert f"Keys: 1–{len(SECTIONS)} sections" in screen_text(app)
