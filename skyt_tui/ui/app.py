"""The Textual application: six sections as modes over the engine, keys 1–6 to switch between them.

Screens live in `skyt_tui.ui.screens`, their calls of the engine in the `ui/*_data.py` modules
(and `store_watch`, `run_form`, `run_execution`); this module only wires them together. `run_app()` is what `skyt-tui` without a
command starts.
"""

from __future__ import annotations

import atexit
import datetime as dt
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.screen import Screen

from skyt_tui.engine.errors import SkytError
from skyt_tui.ui import demo_data, run_execution, store_watch, theme_data
from skyt_tui.ui.commands import BindingCommands
from skyt_tui.ui.help import HelpScreen, key_actions
from skyt_tui.ui.inert import Inert
from skyt_tui.ui.run_request import RunRequest
from skyt_tui.ui.screens.confirm import ConfirmScreen
from skyt_tui.ui.widgets.section_bar import SECTIONS

if TYPE_CHECKING:
    from skyt_tui.engine.analysis.pipeline import RunAnalysis
    from skyt_tui.ui.screens.base import SectionScreen
    from skyt_tui.ui.screens.contracts import ContractsScreen

LIGHT_THEME, DARK_THEME = "textual-light", "textual-dark"
SWITCHING_MODE = "switching-store"
INERT = Inert()
QUIT_WAIT_S = 3.0
"""After "cancel and quit", the longest the app waits for the run to be stored as interrupted."""


def wall_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _welcome() -> type[SectionScreen]:
    from skyt_tui.ui.screens.welcome import WelcomeScreen

    return WelcomeScreen


def _contracts() -> type[ContractsScreen]:
    from skyt_tui.ui.screens.contracts import ContractsScreen

    return ContractsScreen


def _runs() -> type[SectionScreen]:
    from skyt_tui.ui.screens.runs import RunsScreen

    return RunsScreen


def _canon() -> type[SectionScreen]:
    from skyt_tui.ui.screens.canon import CanonScreen

    return CanonScreen


def _heatmap() -> type[SectionScreen]:
    from skyt_tui.ui.screens.heatmap import HeatmapScreen

    return HeatmapScreen


def _benchmark() -> type[SectionScreen]:
    from skyt_tui.ui.screens.benchmark import BenchmarkScreen

    return BenchmarkScreen


def _studies() -> type[SectionScreen]:
    from skyt_tui.ui.screens.studies import StudiesScreen

    return StudiesScreen


SECTION_SCREENS: dict[str, Callable[[], type[SectionScreen]]] = {
    "welcome": _welcome,
    "contracts": _contracts,
    "runs": _runs,
    "canon": _canon,
    "heatmap": _heatmap,
    "benchmark": _benchmark,
    "studies": _studies,
}
"""Each section's screen class, imported when the section is first opened: the heatmap and
benchmark screens bring numpy, and the first screen should not wait for them."""


def section_screen(mode: str) -> Callable[[], Screen]:
    screen_class = SECTION_SCREENS[mode]

    def make() -> Screen:
        return screen_class()()

    return make


class SkytApp(App[int]):
    TITLE = "skyt-tui"
    CSS_PATH = "styles.tcss"
    MODES = {mode: section_screen(mode) for mode in SECTION_SCREENS}
    COMMANDS = App.COMMANDS | {BindingCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    BINDINGS = [
        # The section keys are shown on the top line (SectionBar), so the footer keeps its room for the section's own keys.
        *(
            Binding(str(number), f"section('{name}')", title, show=False, id=f"section-{name}")
            for number, (name, title) in enumerate(SECTIONS, start=1)
        ),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("t", "toggle_theme", "Light/dark theme", show=False),
        Binding("D", "toggle_store", "Demo store / your store", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self,
        *,
        analyses: Sequence[RunAnalysis] = (),
        run_executor: run_execution.RunExecutor | None = None,
        start: str | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        notice: str | None = None,
    ) -> None:
        """`analyses` are drawn in the heatmap besides stored runs (development path); `run_executor` replaces the
        run engine and `clock` the wall clock (tests, screenshots); `notice` is shown once started
        (the settings file moved)."""
        super().__init__()
        self.notice = notice
        self.extra_analyses = tuple(analyses)
        self.run_executor: run_execution.RunExecutor = run_executor or run_execution.execute_run
        self.clock: Callable[[], dt.datetime] = clock or wall_clock
        if start is not None and start not in self.MODES:
            raise ValueError(f"unknown section {start!r}; choose one of {', '.join(self.MODES)}")
        self.start_section = start
        self.export_dir: Path | None = None
        """Where the last export went; the next export dialog starts there."""
        self.heatmap_request: str | None = None
        """A run the Heatmap section should show next (set by Runs, `h`)."""
        self.run_cancel: threading.Event | None = None
        """Set while a run generates (Contracts): quitting asks first, then cancels it."""
        self.run_cancelling: Callable[[], None] | None = None
        self.quitting = False
        self.diff_side_by_side = False
        """Diffs shown side by side instead of unified (`d` in a run's detail or a heatmap diff)."""

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then `Inert`: no widget shows a character a terminal would act on."""
        return [*super().get_line_filters(), INERT]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own commands, minus those our bindings already offer (quit) or replace (keys → `?`)."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command

    def on_mount(self) -> None:
        theme, error = theme_data.load_theme()
        self.theme = theme if theme in self.available_themes else DARK_THEME
        if error:
            self.notify(f"settings not used: {error}", severity="warning", markup=False)
        if self.notice:
            self.notify(self.notice, timeout=10, markup=False)
        if (
            not demo_data.is_demo_store()
            and not self.extra_analyses
            and store_watch.store_is_empty()
            and demo_data.demo_store_has_runs()
        ):
            # `skyt-tui demo && skyt-tui`: the demo, marked DEMO, until you have runs
            demo_data.set_demo_store(True)
        first_start = store_watch.store_is_empty() and not self.extra_analyses
        self.switch_mode(self.start_section or ("welcome" if first_start else "contracts"))

    async def use_store(self, demo: bool, section: str = "contracts") -> None:
        """Open the demo's own store or the user's: every section is made again over it."""
        if demo != demo_data.is_demo_store():
            if self.run_cancel is not None:
                self.notify(
                    "A run is in progress: cancel it before switching stores.", severity="warning"
                )
                return
            demo_data.set_demo_store(demo)
            self.add_mode(SWITCHING_MODE, Screen)
            await self.switch_mode(SWITCHING_MODE)
            for mode in SECTION_SCREENS:
                await self.remove_mode(mode)
                self.add_mode(mode, section_screen(mode))
            await self.switch_mode(section)
            await self.remove_mode(SWITCHING_MODE)
            self.notify(
                f"Showing the demo's own store ({demo_data.demo_dir()}): hand-written examples, not model "
                "output; D returns to your store."
                if demo
                else f"Showing your store ({demo_data.data_dir()}).",
                markup=False,
            )
        elif section != self.current_mode:
            await self.switch_mode(section)

    async def start_run_request(self, request: RunRequest, follow: bool = True) -> None:
        """Start a run (a new one, a re-run or a resume): followed mark by mark in Contracts, or
        (`follow` false: `r` and `a` in Runs) here, where its row in Runs follows it."""
        if self.run_cancel is not None:
            self.notify(
                "A run is already in progress: wait for it or cancel it (c in Contracts or Runs).",
                severity="warning",
            )
            return
        if not follow and not demo_data.is_demo_store():
            self._generate_here(request)
            return
        screen = await self._contracts_screen(demo_data.is_demo_store())
        if screen is not None:
            screen.select_contract(request.contract_id)
            screen.begin_run(request)

    def _generate_here(self, request: RunRequest) -> None:
        cancel = threading.Event()
        self.run_started(cancel, lambda: None)
        what = (
            f"Resuming run {request.resume}"
            if request.resume
            else f"Running {request.contract_id} again"
        )
        self.notify(f"{what}: its row follows the samples as they come; c cancels.", markup=False)
        self.run_worker(
            lambda: self._generate(request, cancel),
            thread=True,
            group="run-here",
            exit_on_error=False,
        )

    def _generate(self, request: RunRequest, cancel: threading.Event) -> None:
        try:
            outcome = self.run_executor(request, lambda _progress: None, cancel)
        except Exception as exc:  # an engine error (or bug) ends in a visible failure
            error = str(exc) if isinstance(exc, SkytError) else f"{type(exc).__name__}: {exc}"
            self.call_from_thread(self._generated, None, error)
        else:
            self.call_from_thread(self._generated, outcome, None)

    def _generated(self, outcome: run_execution.RunOutcome | None, error: str | None) -> None:
        self.run_ended()
        if outcome is None:
            self.notify(f"Run failed: {error}", severity="error", markup=False)
        else:
            self.notify(
                f"Run {outcome.summary()}",
                severity="warning" if outcome.stopped else "information",
                markup=False,
            )

    async def run_in_own_store(self, contract_id: str) -> None:
        """Leave the demo for the user's store and open the run dialog on the same contract there."""
        screen = await self._contracts_screen(demo=False)
        if screen is not None:
            screen.select_contract(contract_id)
            screen.action_start_run()

    async def _contracts_screen(self, demo: bool) -> ContractsScreen | None:
        """Open Contracts over the demo's store or the user's; its screen, unless the store could
        not be switched (a run in progress)."""
        await self.use_store(demo, "contracts")
        screen = self.screen
        return screen if isinstance(screen, _contracts()) else None

    async def action_toggle_store(self) -> None:
        await self.use_store(not demo_data.is_demo_store())

    def action_section(self, name: str) -> None:
        if name != self.current_mode:
            self.switch_mode(name)

    def show_heatmap(self, run_id: str) -> None:
        """Open the Heatmap section on one stored run."""
        self.heatmap_request = run_id
        self.switch_mode("heatmap")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(key_actions(self.screen)))

    def run_started(self, cancel: threading.Event, cancelling: Callable[[], None]) -> None:
        self.run_cancel, self.run_cancelling = cancel, cancelling

    def run_ended(self) -> None:
        self.run_cancel = self.run_cancelling = None
        if self.quitting:
            self.exit()

    async def action_quit(self) -> None:
        """Quit; while a run generates, ask first, then cancel it and quit once it is stored as interrupted."""
        if self.run_cancel is None:
            self.exit()
            return
        if self.quitting or isinstance(self.screen, ConfirmScreen):
            return
        self.push_screen(
            ConfirmScreen(
                "Quit",
                "A run is in progress: cancel it and quit?\n\nThe samples generated so far stay stored and the "
                "run is stored as interrupted (`skyt-tui resume` asks for the rest).",
                confirm="Cancel and quit",
            ),
            self._quit_answered,
        )

    def _quit_answered(self, yes: bool | None) -> None:
        if not yes or self.run_cancel is None:
            return
        self.quitting = True
        self.run_cancel.set()
        if self.run_cancelling is not None:
            self.run_cancelling()
        self.notify("Cancelling the run, then quitting…", timeout=5)
        # a run that does not end in time does not hold the app
        self.set_timer(QUIT_WAIT_S, self.exit)

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT_THEME if self.current_theme.dark else DARK_THEME
        if error := theme_data.save_theme(self.theme):  # kept for the next start (settings.toml)
            self.notify(f"theme not saved: {error}", severity="warning", markup=False)


def run_app(
    *, analyses: Sequence[RunAnalysis] = (), start: str | None = None, notice: str | None = None
) -> int:
    """Start the app in this terminal; returns the exit code."""
    app = SkytApp(analyses=analyses, start=start, notice=notice)
    app.run()
    code = app.return_code or 0
    if app.quitting:
        # Quit during a run: requests given up on still block their (daemon) threads in the HTTP client, and
        # tearing the interpreter down around them takes seconds (or fails on a locked stream). Everything
        # is stored and the terminal restored: run the exit handlers and leave at once.
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()
        os._exit(code)
    return code
