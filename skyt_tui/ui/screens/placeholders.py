"""Sections 2, 3 and 5 (Runs, Canon, Benchmark) until their engine parts are connected.

Each shows what the section is for and the command that fills it, never a blank
screen; when the store already holds runs this build cannot read, it says so.
The full screens replace these once `skyt_tui/ui/data.py` is connected.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll

from skyt_tui.ui import data
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.widgets.empty_state import EmptyState

DEMO = ("skyt-tui demo", "loads example contracts, runs, canons and a benchmark")
RUN = ("skyt-tui run CONTRACT --provider openai --model gpt-4o-mini", "generates, checks and stores a run")
NOT_READABLE = ("Runs are stored in this data directory, but this build of the app cannot show them yet; "
                "use the command line meanwhile (skyt-tui --help).")


class _EmptySection(SectionScreen):
    BINDINGS = [Binding("ctrl+r", "reload", "Reload")]
    EMPTY_TITLE = ""
    PURPOSE = ""
    COMMAND_LINES: tuple[tuple[str, str], ...] = ()

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="section-body"):
            yield self._empty_state()

    def _empty_state(self) -> EmptyState:
        note = NOT_READABLE if data.store_has_runs() else ""
        return EmptyState(self.EMPTY_TITLE, [self.PURPOSE], self.COMMAND_LINES, note, id="empty-state")

    async def action_reload(self) -> None:
        await self.query_one("#empty-state").remove()
        await self.query_one(".section-body").mount(self._empty_state())


class RunsScreen(_EmptySection):
    SECTION = "runs"
    EMPTY_TITLE = "No runs yet"
    PURPOSE = (
        "Runs lists every stored run with its key metrics — R_raw, R_anchor before → after repair, rescue rate, "
        "μ, P_τ and pass rate — and opens a run: each sample's verdict, signature, d_pre and d_post and repair "
        "steps, its code, and its diff against the canon before and after repair. Runs export to CSV and JSON."
    )
    COMMAND_LINES = (DEMO, RUN)


class CanonScreen(_EmptySection):
    SECTION = "canon"
    EMPTY_TITLE = "No canon yet"
    PURPOSE = (
        "A contract's canon is the first sample of its first run that passes the oracle; it never changes. "
        "Canon shows it per contract: the code, where it came from (run, sample, model, temperature, time), "
        "the versions it was made under, its integrity (ok, stale or tampered) and its history, and "
        "re-establishes it after a version change — a confirmed, logged action that keeps the old canon."
    )
    COMMAND_LINES = (DEMO, RUN)


class BenchmarkScreen(_EmptySection):
    SECTION = "benchmark"
    EMPTY_TITLE = "No benchmarks yet"
    PURPOSE = (
        "A benchmark is a set of items (problems) with per-system scores. This section shows its difficulty "
        "strata, the validated anchor sample, the held-out and training sets with their fingerprints, the "
        "validation (subset vs full score per system) and the rotation history, and rotates the held-out set "
        "by hand after confirming what will move."
    )
    COMMAND_LINES = (DEMO, ("skyt-tui --help", "lists the commands that import your own items and results"))
