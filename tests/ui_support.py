"""Helpers for the UI tests: running async Pilot tests without an async pytest plugin, and sample runs."""

import asyncio
import functools
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = FIXTURES / "fibonacci_samples.jsonl"


def pilot_test(test):
    """Run an `async def` test in a fresh event loop (pytest sees the wrapped signature for fixtures)."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return run


def sample_analyses():
    """The two hand-written fibonacci runs (20 and 10 samples) analyzed at the default level."""
    from skyt_tui.engine.analysis import analyze_run
    from skyt_tui.engine.sources import load_samples_jsonl

    return [analyze_run(run, oracle=False) for run in load_samples_jsonl(SAMPLES)]


def screen_text(app) -> str:
    """What the terminal shows right now, as plain text lines."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


def notifications(app) -> list[str]:
    return [notification.message for notification in app._notifications]
